//! Finding the user's IREE compiler library, as `iree-opt` is found, and saying where from.
//!
//! Order (the first that names something wins; a setting that names nothing usable is an
//! error, not a silent fall-through, so that a typo never switches IREE versions):
//! 1. `--iree PATH` (the library, a venv, or any directory holding `libIREECompiler.so`);
//! 2. `TUNESPEC_IREE_LIB` (the library);
//! 3. `TUNESPEC_IREE_VENV` (a venv with `iree-base-compiler`);
//! 4. `iree-compile` on `PATH`: the venv or install it belongs to;
//! 5. `python3` on `PATH`: where its `iree` package is, read from a venv's layout or remembered
//!    in the cache, the interpreter started only when neither knows ([`super::probe`]);
//! 6. for a debug build from a checkout, the checkout's `target/iree-venv` (`tools/iree-venv.sh`);
//!    release builds (the wheel) carry no build-machine path.
//!
//! `TUNESPEC_NO_IREE=1` makes tunespec behave as if no IREE were installed (but `--iree`).
//!
//! IREE's tools (`iree-opt`, `iree-compile`) are found beside that library ([`tool`]): a pip
//! wheel has them in `site-packages/iree/compiler/_mlir_libs/` next to `libIREECompiler.so`, so
//! every command that runs one runs the IREE whose library `doctor` reports, never another one
//! that a second search happened to find first.

use std::path::{Path, PathBuf};

use crate::config::Environment;

pub use super::probe::Lookup;

/// The library's file name in every `iree-base-compiler` wheel.
pub const LIBRARY: &str = "libIREECompiler.so";
/// The environment variable naming the library.
pub const ENV_LIB: &str = "TUNESPEC_IREE_LIB";
/// The environment variable that turns IREE off (`1`): hermetic runs, tests of the fallbacks.
pub const ENV_NO_IREE: &str = "TUNESPEC_NO_IREE";
/// The environment variable naming a venv with `iree-base-compiler`.
pub const ENV_VENV: &str = "TUNESPEC_IREE_VENV";
/// The environment variable naming iree-opt itself (after `--iree-opt`, before the library's
/// own): shared with `build.rs`, which checks the default specs' attributes with it.
pub const ENV_IREE_OPT: &str = tunespec_core::iree_attrs::ENV_IREE_OPT;

/// Where the library was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// `--iree`.
    Flag,
    /// `TUNESPEC_IREE_LIB`.
    EnvLib,
    /// `TUNESPEC_IREE_VENV`.
    EnvVenv,
    /// Next to `iree-compile` on `PATH` (the path of that `iree-compile`).
    PathCompile(PathBuf),
    /// Python's site-packages (`python3` on `PATH`).
    Python,
    /// The venv `tools/iree-venv.sh` made in the checkout this binary was built from.
    Checkout,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Flag => write!(f, "--iree"),
            Origin::EnvLib => write!(f, "{ENV_LIB}"),
            Origin::EnvVenv => write!(f, "{ENV_VENV}"),
            Origin::PathCompile(compile) => {
                write!(
                    f,
                    "the install of iree-compile on PATH ({})",
                    compile.display()
                )
            }
            Origin::Python => write!(f, "python3's site-packages (iree.compiler)"),
            Origin::Checkout => write!(f, "the checkout's target/iree-venv (tools/iree-venv.sh)"),
        }
    }
}

/// A found library.
#[derive(Clone, Debug)]
pub struct Found {
    /// The library file.
    pub library: PathBuf,
    /// How it was found.
    pub origin: Origin,
}

/// The library under `path`: the file itself, or in a venv, a site-packages, an `iree` package
/// or its `_mlir_libs` directory.
pub fn library_under(path: &Path) -> Option<PathBuf> {
    if path.is_file() {
        return Some(path.to_path_buf());
    }
    let direct = [
        path.join(LIBRARY),
        path.join("_mlir_libs").join(LIBRARY),
        path.join("compiler/_mlir_libs").join(LIBRARY),
        path.join("iree/compiler/_mlir_libs").join(LIBRARY),
    ];
    if let Some(found) = direct.into_iter().find(|candidate| candidate.is_file()) {
        return Some(found);
    }
    // A venv or prefix: lib/pythonX.Y/site-packages/iree/compiler/_mlir_libs (sorted, so the
    // choice does not depend on the directory's order).
    for lib in ["lib", "lib64"] {
        let Ok(entries) = std::fs::read_dir(path.join(lib)) else {
            continue;
        };
        let mut pythons: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|dir| {
                dir.file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| name.starts_with("python"))
            })
            .collect();
        pythons.sort();
        for python in pythons {
            let candidate = python
                .join("site-packages/iree/compiler/_mlir_libs")
                .join(LIBRARY);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

/// Finds the library; `Err` says what was tried or which setting names nothing. `store` keeps
/// python3's answer (see [`find_with`]).
pub fn find(
    explicit: Option<&Path>,
    env: &Environment,
    store: &dyn super::Store,
) -> Result<Found, String> {
    find_with(explicit, true, env, store).0
}

/// [`find`], looking at python3 only when `python` (where neither a venv's layout nor the
/// cache knows, it costs a Python start, up to half a second behind a version manager's shim:
/// paid by commands that need IREE, not by those for which it is a check on top); with how the
/// `python3` step answered (`doctor` says it), `None` when none ran because a setting named
/// IREE or an earlier step found it.
pub fn find_with(
    explicit: Option<&Path>,
    python: bool,
    env: &Environment,
    store: &dyn super::Store,
) -> (Result<Found, String>, Option<Lookup>) {
    let mut lookup = None;
    let found = search(explicit, python, env, store, &mut lookup);
    (found, lookup)
}

/// The search of [`find_with`]; `lookup` is set when the python3 step runs.
fn search(
    explicit: Option<&Path>,
    python: bool,
    env: &Environment,
    store: &dyn super::Store,
    last: &mut Option<Lookup>,
) -> Result<Found, String> {
    let install_hint = "install IREE's compiler (`pip install iree-base-compiler`, or tools/iree-venv.sh) and activate its venv, or pass --iree PATH";
    if let Some(path) = explicit {
        return library_under(path)
            .map(|library| Found {
                library,
                origin: Origin::Flag,
            })
            .ok_or_else(|| {
                format!(
                    "--iree {}: no {LIBRARY} there (give the library, a venv or a directory holding it)",
                    path.display()
                )
            });
    }
    let not_found = format!(
        "IREE's compiler library ({LIBRARY}) was not found (--iree, {ENV_LIB}, {ENV_VENV}, iree-compile on PATH, python3's iree package); {install_hint}"
    );
    if env.is_on(ENV_NO_IREE) {
        return Err(format!("{ENV_NO_IREE}=1: {not_found}"));
    }
    if let Some(value) = env.get(ENV_LIB).filter(|value| !value.is_empty()) {
        let path = PathBuf::from(value);
        return if path.is_file() {
            Ok(Found {
                library: path,
                origin: Origin::EnvLib,
            })
        } else {
            Err(format!("{ENV_LIB}={} is not a file", path.display()))
        };
    }
    if let Some(value) = env.get(ENV_VENV).filter(|value| !value.is_empty()) {
        let path = PathBuf::from(value);
        return library_under(&path)
            .map(|library| Found {
                library,
                origin: Origin::EnvVenv,
            })
            .ok_or_else(|| format!("{ENV_VENV}={}: no {LIBRARY} in it", path.display()));
    }
    if let Some(compile) = on_path("iree-compile", env) {
        // A venv's bin/iree-compile, or a symlink into one.
        let resolved = std::fs::canonicalize(&compile).unwrap_or_else(|_| compile.clone());
        for candidate in [compile.clone(), resolved] {
            if let Some(prefix) = candidate.parent().and_then(Path::parent) {
                if let Some(library) = library_under(prefix) {
                    return Ok(Found {
                        library,
                        origin: Origin::PathCompile(compile.clone()),
                    });
                }
            }
        }
    }
    if python {
        let (dirs, lookup) = super::probe::iree_dirs(env.get("PATH").as_deref(), env, store);
        tracing::debug!(lookup = %lookup, "iree.python");
        *last = Some(lookup);
        if let Some(library) = dirs.iter().find_map(|dir| library_under(dir)) {
            return Ok(Found {
                library,
                origin: Origin::Python,
            });
        }
    }
    // A debug build from a checkout: the venv the project's tools made there. Release builds
    // (the wheel's binary among them) carry no path of the machine that built them.
    #[cfg(debug_assertions)]
    if let Some(library) =
        library_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("target/iree-venv"))
    {
        return Ok(Found {
            library,
            origin: Origin::Checkout,
        });
    }
    Err(not_found)
}

pub(crate) fn on_path(program: &str, env: &Environment) -> Option<PathBuf> {
    let paths = env.get("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// One of IREE's tools, found beside the library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// `iree-opt`: the attribute check, bytecode read-back, `import-iree`'s dump.
    Opt,
    /// `iree-compile`.
    Compile,
}

impl Tool {
    /// The program's file name.
    pub fn program(self) -> &'static str {
        match self {
            Tool::Opt => "iree-opt",
            Tool::Compile => "iree-compile",
        }
    }
}

/// `tool` of the IREE whose library is `library`: beside it (a pip wheel's `_mlir_libs`), or in
/// the `bin` of the prefix it is installed in (`PREFIX/lib/libIREECompiler.so`,
/// `PREFIX/bin/iree-opt`).
pub fn beside(library: &Path, tool: Tool) -> Option<PathBuf> {
    let dir = library.parent()?;
    [
        Some(dir.join(tool.program())),
        dir.parent()
            .map(|prefix| prefix.join("bin").join(tool.program())),
    ]
    .into_iter()
    .flatten()
    .find(|candidate| candidate.is_file())
}

/// Finds `tool` (see the module's doc): `explicit` (`--iree-opt`), then [`ENV_IREE_OPT`] for
/// iree-opt, then beside the library `library` finds (the one the process uses), then `PATH`
/// (an IREE whose library tunespec does not use, e.g. under [`ENV_NO_IREE`]). A setting that
/// names no library (`--iree`, [`ENV_LIB`], [`ENV_VENV`]) is the error, as for the library;
/// `library_flag` is `--iree`.
pub fn tool(
    tool: Tool,
    explicit: Option<&Path>,
    library_flag: Option<&Path>,
    env: &Environment,
    library: impl FnOnce() -> Result<Found, String>,
) -> Result<PathBuf, String> {
    let program = tool.program();
    if let Some(path) = explicit {
        return if path.is_file() {
            Ok(path.to_path_buf())
        } else {
            Err(format!("--{program} {}: no such file", path.display()))
        };
    }
    if tool == Tool::Opt {
        if let Some(value) = env.get(ENV_IREE_OPT).filter(|value| !value.is_empty()) {
            let path = PathBuf::from(&value);
            return if path.is_file() {
                Ok(path)
            } else {
                Err(format!("{ENV_IREE_OPT}={} is not a file", path.display()))
            };
        }
    }
    let configured = library_flag.is_some()
        || (!env.is_on(ENV_NO_IREE) && (env.is_set(ENV_LIB) || env.is_set(ENV_VENV)));
    match library() {
        Ok(found) => {
            return beside(&found.library, tool).ok_or_else(|| {
                format!(
                    "no {program} beside IREE's library {} (found by {})",
                    found.library.display(),
                    found.origin
                )
            })
        }
        Err(message) if configured => return Err(message),
        Err(_) => {}
    }
    on_path(program, env).ok_or_else(|| match tool {
        Tool::Opt => format!("iree-opt not found (--iree-opt, {ENV_IREE_OPT}, {ENV_VENV}, PATH)"),
        Tool::Compile => format!("iree-compile not found ({ENV_LIB}, {ENV_VENV}, PATH)"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pip wheel's layout: the tools live next to the library, not (only) in the venv's bin,
    /// whose scripts need the venv's python.
    #[test]
    fn tools_are_found_beside_the_library() {
        let dir = tempfile::tempdir().unwrap();
        let libs = dir
            .path()
            .join("lib/python3.11/site-packages/iree/compiler/_mlir_libs");
        std::fs::create_dir_all(&libs).unwrap();
        std::fs::write(libs.join(LIBRARY), b"").unwrap();
        std::fs::write(libs.join("iree-opt"), b"").unwrap();
        let library = library_under(dir.path()).unwrap();
        assert_eq!(beside(&library, Tool::Opt), Some(libs.join("iree-opt")));
        assert_eq!(beside(&library, Tool::Compile), None);
        // An install prefix: PREFIX/lib/libIREECompiler.so and PREFIX/bin/iree-compile.
        let prefix = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(prefix.path().join("lib")).unwrap();
        std::fs::create_dir_all(prefix.path().join("bin")).unwrap();
        std::fs::write(prefix.path().join("lib").join(LIBRARY), b"").unwrap();
        std::fs::write(prefix.path().join("bin/iree-compile"), b"").unwrap();
        assert_eq!(
            beside(&prefix.path().join("lib").join(LIBRARY), Tool::Compile),
            Some(prefix.path().join("bin/iree-compile"))
        );
    }
}
