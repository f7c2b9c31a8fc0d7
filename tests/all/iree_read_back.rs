//! What tunespec writes, IREE 3.13 reads (issue 24, item 4): libraries holding the
//! region-bearing matchers (`transform.iree.match.cast_compatible_dag_from_root`,
//! `transform.iree.match.regions`), whose bodies hold payload ops, written as bytecode by
//! `link --emit mlirbc` and by `attach`, are parsed by iree-opt 3.13 and applied by
//! iree-compile 3.13.
//!
//! The cause was never the matchers' own encoding (their traits equal IREE's): IREE 3.13's
//! MLIR (24) gave `arith.addf`/`subf`/`mulf`/`divf` and `math.fma` another optional property,
//! and bytecode version 6 writes properties in each op's native encoding, which the newer reader
//! decodes past the end. Such libraries are written at version 4 (properties as attributes).

use std::path::{Path, PathBuf};

use crate::reference::{iree_compile, iree_opt, output_with_timeout, repo_root};
use crate::support::{run, tunespec_command};

fn fixture(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/iree/bytecode").join(name)
}

/// The bytecode version a file was written at (one prefix-varint byte after the magic).
fn bytecode_version(bytes: &[u8]) -> u8 {
    assert!(bytes.starts_with(b"ML\xefR"), "not MLIR bytecode");
    assert_eq!(bytes[4] & 1, 1, "the version is one varint byte");
    bytes[4] >> 1
}

fn iree_opt_reads(iree_opt: &Path, file: &Path) {
    let output = output_with_timeout(
        std::process::Command::new(iree_opt)
            .arg(file)
            .args(["-o", "-"]),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "iree-opt 3.13 cannot read what tunespec wrote ({}): {stderr}",
        file.display()
    );
    let text = String::from_utf8_lossy(&output.stdout);
    for op in [
        "transform.iree.match.cast_compatible_dag_from_root",
        "transform.iree.match.regions",
        "arith.addf",
        "arith.divf",
        "math.fma",
    ] {
        assert!(text.contains(op), "iree-opt read no {op}:\n{text}");
    }
}

#[test]
fn link_writes_region_matcher_bytecode_that_iree_opt_reads() {
    let Some(iree_opt) = iree_opt() else { return };
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("library.mlirbc");
    run(tunespec_command()
        .args(["link", "-q", "--no-default", "--emit", "mlirbc", "-o"])
        .arg(&library)
        .arg("--spec")
        .arg(fixture("dag_and_regions_bodies.mlir")));
    let bytes = std::fs::read(&library).unwrap();
    assert_eq!(
        i64::from(bytecode_version(&bytes)),
        tunespec::mlir::PAYLOAD_BYTECODE_VERSION
    );
    iree_opt_reads(&iree_opt, &library);
    // tunespec reads its own bytecode back.
    run(tunespec_command().arg("verify").arg(&library));
}

#[test]
fn libraries_without_payload_ops_keep_bytecode_version_6() {
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("library.mlirbc");
    run(tunespec_command()
        .args(["link", "-q", "--no-default", "--emit", "mlirbc", "-o"])
        .arg(&library)
        .arg("--spec")
        .arg(repo_root().join("tests/fixtures/iree/good/contraction_family.mlir")));
    let bytes = std::fs::read(&library).unwrap();
    assert_eq!(
        i64::from(bytecode_version(&bytes)),
        tunespec::mlir::BYTECODE_VERSION
    );
}

/// The hex bytes of `dense<"0x...">` in the attribute `name` of a printed payload.
fn attached_bytes(text: &str, name: &str) -> Vec<u8> {
    let start = text
        .find(&format!("{name} = dense<\"0x"))
        .unwrap_or_else(|| panic!("no {name} in the attached payload"))
        + name.len()
        + " = dense<\"0x".len();
    let hex = &text[start..start + text[start..].find('"').unwrap()];
    (0..hex.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&hex[at..at + 2], 16).unwrap())
        .collect()
}

#[test]
fn attach_of_region_matchers_is_read_and_applied_by_iree_compile() {
    let (Some(iree_opt), Some(iree_compile)) = (iree_opt(), iree_compile()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let attached = dir.path().join("attached.mlir");
    run(tunespec_command()
        .args(["attach", "-q", "--no-default", "--spec"])
        .arg(fixture("dag_and_regions_bodies.mlir"))
        .arg(fixture("mmt_f32.mlir"))
        .arg("-o")
        .arg(&attached));
    let text = std::fs::read_to_string(&attached).unwrap();
    let library = dir.path().join("attached.mlirbc");
    std::fs::write(
        &library,
        attached_bytes(&text, "iree_codegen.tuning_spec_mlirbc"),
    )
    .unwrap();
    iree_opt_reads(&iree_opt, &library);

    let compile = |input: &Path| {
        let output =
            output_with_timeout(std::process::Command::new(&iree_compile).arg(input).args([
                "--iree-hal-target-device=hip",
                "--iree-rocm-target=gfx942",
                "--compile-to=executable-configurations",
                "-o",
                "-",
            ]));
        assert!(
            output.status.success(),
            "iree-compile 3.13 refused {}: {}",
            input.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    // The dag matcher's config (workgroup [64, 64, 0]) replaces IREE's default for this matmul.
    let ours = "workgroup = [64, 64, 0]";
    assert!(
        !compile(&fixture("mmt_f32.mlir")).contains(ours),
        "IREE's default config is not the fixture's"
    );
    assert!(
        compile(&attached).contains(ours),
        "iree-compile did not apply the attached library"
    );
}
