//! Compiles `shim.cpp` against Debian's MLIR 22 headers (prefix from `MLIR_SYS_220_PREFIX`).
fn main() {
    let prefix =
        std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".to_string());
    println!("cargo:rerun-if-changed=src/shim.cpp");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    cc::Build::new()
        .cpp(true)
        .file("src/shim.cpp")
        .include(format!("{prefix}/include"))
        .flag("-std=c++17")
        // LLVM is built without RTTI and exceptions; matching flags avoids typeinfo link errors.
        .flag("-fno-rtti")
        .flag("-fno-exceptions")
        .flag_if_supported("-Wno-unused-parameter")
        .warnings(false)
        .compile("tunespec_mlir_shim");
}
