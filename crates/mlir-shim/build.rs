//! Compiles `shim.cpp`, `symbols.cpp`, `iree_match_ops.cpp` and `iree_match_support.cpp` against
//! Debian's MLIR 22 headers (prefix from `MLIR_SYS_220_PREFIX`), after generating the IREE
//! matcher ops' C++ from `iree_match_ops.td` with `mlir-tblgen` (`MLIR_TBLGEN`, default
//! `mlir-tblgen-22`).
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let prefix =
        std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".to_string());
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    for file in [
        "src/shim.cpp",
        "src/symbols.cpp",
        "src/iree_match_ops.cpp",
        "src/iree_match_support.cpp",
        "src/iree_match_support.h",
        "src/iree_match_ops.td",
    ] {
        println!("cargo:rerun-if-changed={file}");
    }
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    println!("cargo:rerun-if-env-changed=MLIR_TBLGEN");

    let tblgen = std::env::var("MLIR_TBLGEN").unwrap_or_else(|_| {
        let versioned = format!("{prefix}/bin/mlir-tblgen");
        if std::path::Path::new(&versioned).exists() {
            versioned
        } else {
            "mlir-tblgen-22".to_string()
        }
    });
    for (generator, name) in [
        ("-gen-op-decls", "iree_match_ops.h.inc"),
        ("-gen-op-defs", "iree_match_ops.cpp.inc"),
    ] {
        let status = Command::new(&tblgen)
            .arg(generator)
            .arg(format!("-I{prefix}/include"))
            .arg("src/iree_match_ops.td")
            .arg("-o")
            .arg(out.join(name))
            .status()
            .unwrap_or_else(|error| panic!("running {tblgen}: {error}"));
        assert!(status.success(), "{tblgen} {generator} failed");
    }

    cc::Build::new()
        .cpp(true)
        .file("src/shim.cpp")
        .file("src/symbols.cpp")
        .file("src/iree_match_ops.cpp")
        .file("src/iree_match_support.cpp")
        .include(format!("{prefix}/include"))
        .include(&out)
        .flag("-std=c++17")
        // LLVM is built without RTTI and exceptions; matching flags avoids typeinfo link errors.
        .flag("-fno-rtti")
        .flag("-fno-exceptions")
        // Debian's MLIR is a release build: without NDEBUG, the transform dialect's templates
        // call a checker (`checkImplementsTransformOpInterface`) that the library does not export.
        .define("NDEBUG", None)
        .flag_if_supported("-Wno-unused-parameter")
        .warnings(false)
        .compile("tunespec_mlir_shim");
}
