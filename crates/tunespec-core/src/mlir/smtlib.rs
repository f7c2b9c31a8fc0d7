//! SMT-LIB text of MLIR's `smt` dialect, through MLIR's own exporter (`mlir-translate
//! --export-smtlib`'s C API): how `tunespec tune` hands IREE's pipeline constraints, lowered to
//! `smt.solver` ops by IREE's `iree-codegen-convert-constraints-to-smt`, to the z3 solver.
//!
//! Why MLIR's exporter rather than tunespec walking the ops: the lowering's op set (integer
//! arithmetic, comparisons, `ite`, `distinct`) is MLIR's to keep in step with its printer; the
//! exporter rejects what SMT-LIB cannot say instead of tunespec guessing.

use std::ffi::c_void;

use mlir_sys::*;

use super::ffi::append_bytes;
use super::{Mlir, OwnedOp};

impl OwnedOp<'_> {
    /// The SMT-LIB script of this module, whose body is one `smt.solver` op (its declarations
    /// and assertions, closed by `(check-sat)`), or MLIR's reason when the module holds
    /// something SMT-LIB cannot express.
    pub fn export_smtlib(&self, mlir: &Mlir) -> Result<String, String> {
        mlir.take_diagnostics();
        let mut out: Vec<u8> = Vec::new();
        // SAFETY: `self.raw` is a live top-level op of `mlir`'s context (the `OwnedOp` is
        // borrowed for the call); `append_bytes` receives `&mut out`, a vector of this frame that
        // nothing else borrows while the exporter runs; the exporter only reads the IR.
        let result = unsafe {
            mlirTranslateOperationToSMTLIB(
                self.raw,
                Some(append_bytes),
                &mut out as *mut Vec<u8> as *mut c_void,
                false,
                false,
            )
        };
        if result.value == 0 {
            let problems = mlir.take_diagnostics();
            let why: Vec<String> = problems.iter().map(|p| p.message.clone()).collect();
            return Err(if why.is_empty() {
                "MLIR's SMT-LIB exporter failed".to_string()
            } else {
                format!("MLIR's SMT-LIB exporter failed: {}", why.join("; "))
            });
        }
        String::from_utf8(out).map_err(|_| "the SMT-LIB text is not UTF-8".to_string())
    }
}

#[cfg(test)]
mod tests {
    use crate::mlir::Mlir;

    #[test]
    fn an_smt_solver_op_is_exported_as_an_smtlib_script() {
        let mlir = Mlir::new();
        let text = r#"smt.solver() : () -> () {
  %x = smt.declare_fun "wg_0" : !smt.int
  %c = smt.int.constant 64
  %ge = smt.int.cmp ge %x, %c
  smt.assert %ge
}
"#;
        let parsed = mlir.parse(text.as_bytes(), "constraints.mlir");
        let module = parsed.module.expect("parses");
        let script = module.export_smtlib(&mlir).unwrap();
        assert!(script.contains("(declare-const wg_0 Int)"), "{script}");
        assert!(script.contains("(assert"), "{script}");
        assert!(script.contains("(>= wg_0 64)"), "{script}");
    }
}
