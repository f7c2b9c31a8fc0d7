//! Where `python3` on `PATH` has IREE's package, without starting it on every command.
//!
//! Why: starting Python costs 20 ms, and 150 to 250 ms behind a version manager's shim (pyenv
//! runs bash and several programs before the interpreter): more than a whole `verify` of a
//! small spec, paid by every command of a user or a CI job that has no IREE at all. So:
//!
//! 1. a venv (`python3` is `VENV/bin/python3` beside `VENV/pyvenv.cfg`) is read as a layout:
//!    its site-packages is `VENV/lib/pythonX.Y/site-packages`; a venv without the system's
//!    site-packages that has no IREE has none, and no interpreter is started;
//! 2. otherwise the interpreter's answer is remembered in the caller's [`Store`] (the cache)
//!    under everything that could change it ([`identity`]): the interpreter (`PATH`, the file
//!    it resolves to, its inode, size and times), the settings that choose a version behind a
//!    shim (pyenv's and asdf's files and variables, the directory, for a `#!` script), and then
//!    the inode and times of every directory on its `sys.path`: installing or removing a
//!    package changes its site-packages directory, so the next command asks again.
//!
//! [`Lookup`] says which way answered (`doctor` prints it).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::{Failure, Store, StoreKey};

/// How the `python3` step of the search answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// No `python3` on `PATH`.
    NoPython,
    /// Read from the layout of the venv `python3` belongs to (no interpreter started).
    VenvLayout(PathBuf),
    /// The interpreter's earlier answer, remembered in the cache (no interpreter started).
    Remembered(PathBuf),
    /// The interpreter was asked (and its answer kept for the next command).
    Asked(PathBuf),
}

impl std::fmt::Display for Lookup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Lookup::NoPython => write!(f, "no python3 on PATH"),
            Lookup::VenvLayout(venv) => write!(
                f,
                "read the layout of the venv python3 belongs to ({}), no interpreter started",
                venv.display()
            ),
            Lookup::Remembered(python) => write!(
                f,
                "{}'s answer remembered in the cache (same interpreter, PATH and site-packages), no interpreter started",
                python.display()
            ),
            Lookup::Asked(python) => write!(
                f,
                "asked {} (its answer is kept in the cache for the next command)",
                python.display()
            ),
        }
    }
}

/// The directories of Python's `iree` package for `python3` on `path_var` (empty: none),
/// through the cheapest way that knows, kept in `store`; and which way that was. `env`: the
/// variables that choose an interpreter behind a version manager's shim.
pub fn iree_dirs(
    path_var: Option<&std::ffi::OsStr>,
    env: &crate::config::Environment,
    store: &dyn Store,
) -> (Vec<PathBuf>, Lookup) {
    let Some(python) = path_var.and_then(|paths| {
        std::env::split_paths(paths)
            .map(|dir| dir.join("python3"))
            .find(|candidate| candidate.is_file())
    }) else {
        return (Vec::new(), Lookup::NoPython);
    };
    if let Some((venv, answer)) = venv_layout(&python) {
        return (answer, Lookup::VenvLayout(venv));
    }
    let key_input = identity(&python, path_var, env);
    let mut asked: Option<Answer> = None;
    let mut ask = || -> Result<Answer, Failure> {
        if let Some(answer) = &asked {
            return Ok(answer.clone());
        }
        let answer = ask_python(&python)
            .ok_or_else(|| Failure::Tool(format!("{} did not answer", python.display())))?;
        asked = Some(answer.clone());
        Ok(answer)
    };
    // First the interpreter's search path, then the answer under that path's state.
    let search = store.get_or_make(&key(&key_input, "python-sys-path"), &mut || {
        ask().map(|answer| join(&answer.search))
    });
    let Ok(search) = search else {
        return (Vec::new(), Lookup::Asked(python));
    };
    let mut state = key_input.clone();
    for dir in split(&search) {
        state.extend_from_slice(dir.as_os_str().as_encoded_bytes());
        state.push(0);
        state.extend_from_slice(&stat_bytes(&dir));
    }
    let dirs = store.get_or_make(&key(&state, "python-iree"), &mut || {
        ask().map(|answer| join(&answer.iree))
    });
    let was_asked = asked.is_some();
    let dirs = dirs.map(|dirs| split(&dirs)).unwrap_or_default();
    // A package removed inside a directory whose own times did not change: ask again, once.
    if !was_asked && dirs.iter().any(|dir| !dir.is_dir()) {
        let dirs = ask_python(&python)
            .map(|answer| answer.iree)
            .unwrap_or_default();
        return (dirs, Lookup::Asked(python));
    }
    if was_asked {
        (dirs, Lookup::Asked(python))
    } else {
        (dirs, Lookup::Remembered(python))
    }
}

/// What the interpreter answered: its search path and its `iree` package's directories.
#[derive(Clone, Debug, Default)]
struct Answer {
    search: Vec<PathBuf>,
    iree: Vec<PathBuf>,
}

fn key<'a>(input: &'a [u8], phase: &'a str) -> StoreKey<'a> {
    StoreKey {
        input,
        name: "python3",
        revision: "",
        flags: &[],
        phase,
    }
}

fn join(dirs: &[PathBuf]) -> Vec<u8> {
    let mut out = Vec::new();
    for dir in dirs {
        out.extend_from_slice(dir.as_os_str().as_encoded_bytes());
        out.push(b'\n');
    }
    out
}

fn split(bytes: &[u8]) -> Vec<PathBuf> {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter(|line| !line.is_empty())
        .map(PathBuf::from)
        .collect()
}

/// The venv `python` belongs to, and what its layout answers; `None` where only the
/// interpreter knows (not a venv, one that also reads the system's site-packages, or one whose
/// `.pth` files run code).
fn venv_layout(python: &Path) -> Option<(PathBuf, Vec<PathBuf>)> {
    // Not resolved: a venv's bin/python3 is a link to the base interpreter.
    let venv = python.parent()?.parent()?;
    let config = std::fs::read_to_string(venv.join("pyvenv.cfg")).ok()?;
    let iree_of = |library: PathBuf| Some(library.parent()?.parent()?.parent()?.to_path_buf());
    if let Some(iree) = super::find::library_under(venv).and_then(iree_of) {
        return Some((venv.to_path_buf(), vec![iree]));
    }
    let system_too = config.lines().any(|line| {
        line.split_once('=').is_some_and(|(name, value)| {
            name.trim() == "include-system-site-packages" && value.trim() == "true"
        })
    });
    if system_too {
        return None;
    }
    // Directories that `.pth` files add to the search path (a venv given another's packages).
    for site in site_packages(venv) {
        for line in pth_lines(&site)? {
            if let Some(iree) = super::find::library_under(&site.join(line)).and_then(iree_of) {
                return Some((venv.to_path_buf(), vec![iree]));
            }
        }
    }
    Some((venv.to_path_buf(), Vec::new()))
}

/// `VENV/lib*/python*/site-packages`, sorted.
fn site_packages(venv: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for lib in ["lib", "lib64"] {
        let Ok(entries) = std::fs::read_dir(venv.join(lib)) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let site = entry.path().join("site-packages");
            if entry.file_name().to_string_lossy().starts_with("python") && site.is_dir() {
                found.push(site);
            }
        }
    }
    found.sort();
    found
}

/// The directories the `.pth` files of `site` name; `None` when one runs code (an `import`
/// line, other than setuptools' `distutils-precedence.pth`, which adds no directory).
fn pth_lines(site: &Path) -> Option<Vec<String>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(site)
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "pth"))
        .collect();
    files.sort();
    let mut lines = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).ok()?;
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if line.starts_with("import ") || line.starts_with("import\t") {
                if file
                    .file_name()
                    .is_some_and(|name| name == "distutils-precedence.pth")
                {
                    continue;
                }
                return None;
            }
            lines.push(line.to_string());
        }
    }
    Some(lines)
}

/// Everything that decides which interpreter `python` is and what it reads, as bytes.
fn identity(
    python: &Path,
    path_var: Option<&std::ffi::OsStr>,
    env: &crate::config::Environment,
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut add = |bytes: &[u8]| {
        out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(bytes);
    };
    add(path_var.map_or(&b""[..], |paths| paths.as_encoded_bytes()));
    add(python.as_os_str().as_encoded_bytes());
    let resolved = std::fs::canonicalize(python).unwrap_or_else(|_| python.to_path_buf());
    add(resolved.as_os_str().as_encoded_bytes());
    add(&stat_bytes(&resolved));
    for name in [
        "PYENV_VERSION",
        "PYENV_ROOT",
        "PYENV_DIR",
        "ASDF_PYTHON_VERSION",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
    ] {
        let value = env.get(name).unwrap_or_default();
        add(value.as_encoded_bytes());
    }
    // A `#!` script (pyenv's or asdf's shim) chooses the interpreter by the directory it runs
    // in and the version files around it.
    let script = std::fs::read(&resolved)
        .ok()
        .is_some_and(|bytes| bytes.starts_with(b"#!"));
    if script {
        if let Ok(cwd) = std::env::current_dir() {
            add(cwd.as_os_str().as_encoded_bytes());
            for dir in cwd.ancestors() {
                for file in [".python-version", ".tool-versions"] {
                    add(&std::fs::read(dir.join(file)).unwrap_or_default());
                }
            }
        }
        let root = env
            .get("PYENV_ROOT")
            .map(PathBuf::from)
            .or_else(|| env.get("HOME").map(|home| Path::new(&home).join(".pyenv")));
        if let Some(root) = root {
            add(root.as_os_str().as_encoded_bytes());
            add(&std::fs::read(root.join("version")).unwrap_or_default());
        }
    }
    out
}

/// A file's or directory's identity and times (empty when it is gone).
fn stat_bytes(path: &Path) -> Vec<u8> {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::metadata(path) else {
        return Vec::new();
    };
    [
        meta.dev(),
        meta.ino(),
        meta.size(),
        meta.mtime() as u64,
        meta.mtime_nsec() as u64,
        meta.ctime() as u64,
        meta.ctime_nsec() as u64,
    ]
    .iter()
    .flat_map(|value| value.to_le_bytes())
    .collect()
}

/// Asks `python` its search path and where its `iree` package is, under a time limit.
fn ask_python(python: &Path) -> Option<Answer> {
    let mut child = Command::new(python)
        .args([
            "-I",
            "-c",
            // `iree` is a namespace package: finding it imports nothing of IREE's.
            "import sys, importlib.util as u; s = u.find_spec('iree'); print('\\n'.join(p for p in sys.path if p)); print('--'); print('\\n'.join(s.submodule_search_locations or []) if s else '')",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let status = tunespec_core::child::wait_or_kill(&mut child, Duration::from_secs(10)).ok()??;
    if !status.success() {
        return None;
    }
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take()?, &mut out).ok()?;
    let (search, iree) = out.split_once("\n--\n")?;
    let dirs = |text: &str| -> Vec<PathBuf> {
        text.lines()
            .map(str::trim)
            .filter(|dir| !dir.is_empty())
            .map(PathBuf::from)
            .collect()
    };
    Some(Answer {
        search: dirs(search)
            .into_iter()
            .filter(|dir| dir.is_dir())
            .collect(),
        iree: dirs(iree),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A venv's layout answers without an interpreter: its IREE, or none when it does not read
    /// the system's site-packages; one that does is left to the interpreter.
    #[test]
    fn a_venv_is_read_as_a_layout() {
        let venv = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(venv.path().join("bin")).unwrap();
        std::fs::write(venv.path().join("bin/python3"), b"").unwrap();
        let python = venv.path().join("bin/python3");
        assert_eq!(venv_layout(&python), None, "no pyvenv.cfg: not a venv");
        let config = venv.path().join("pyvenv.cfg");
        std::fs::write(&config, "include-system-site-packages = false\n").unwrap();
        assert_eq!(
            venv_layout(&python),
            Some((venv.path().to_path_buf(), Vec::new()))
        );
        // A `.pth` file naming another site-packages that has IREE; one that runs code.
        let other = tempfile::tempdir().unwrap();
        let other_libs = other.path().join("iree/compiler/_mlir_libs");
        std::fs::create_dir_all(&other_libs).unwrap();
        std::fs::write(other_libs.join(super::super::find::LIBRARY), b"").unwrap();
        let site = venv.path().join("lib/python3.11/site-packages");
        std::fs::create_dir_all(&site).unwrap();
        std::fs::write(
            site.join("distutils-precedence.pth"),
            "import os; var = 'x'\n",
        )
        .unwrap();
        std::fs::write(
            site.join("other.pth"),
            format!("{}\n", other.path().display()),
        )
        .unwrap();
        assert_eq!(
            venv_layout(&python),
            Some((venv.path().to_path_buf(), vec![other.path().join("iree")]))
        );
        std::fs::write(site.join("other.pth"), "import finder; finder.install()\n").unwrap();
        assert_eq!(venv_layout(&python), None, "a .pth that runs code");
        std::fs::remove_file(site.join("other.pth")).unwrap();
        std::fs::write(&config, "include-system-site-packages = true\n").unwrap();
        assert_eq!(venv_layout(&python), None);
        let libs = venv
            .path()
            .join("lib/python3.11/site-packages/iree/compiler/_mlir_libs");
        std::fs::create_dir_all(&libs).unwrap();
        std::fs::write(libs.join(super::super::find::LIBRARY), b"").unwrap();
        assert_eq!(
            venv_layout(&python),
            Some((
                venv.path().to_path_buf(),
                vec![venv.path().join("lib/python3.11/site-packages/iree")]
            ))
        );
    }

    /// What [`Counting`] keeps: (input, phase) -> answer.
    type Kept = std::collections::HashMap<(Vec<u8>, String), Vec<u8>>;

    /// A store that keeps everything in memory.
    #[derive(Default)]
    struct Counting {
        kept: std::sync::Mutex<Kept>,
    }

    impl Store for Counting {
        fn get_or_make(
            &self,
            key: &StoreKey<'_>,
            make: &mut dyn FnMut() -> Result<Vec<u8>, Failure>,
        ) -> Result<Vec<u8>, Failure> {
            let index = (key.input.to_vec(), key.phase.to_string());
            if let Some(kept) = self.kept.lock().unwrap().get(&index) {
                return Ok(kept.clone());
            }
            let answer = make()?;
            self.kept.lock().unwrap().insert(index, answer.clone());
            Ok(answer)
        }
    }

    /// The interpreter is asked once; the next lookup is remembered; a change to a directory
    /// on its search path (a package installed) asks again.
    #[test]
    fn the_interpreters_answer_is_remembered_until_its_site_packages_change() {
        let Some(system) = ["/usr/bin/python3", "/usr/local/bin/python3"]
            .into_iter()
            .map(Path::new)
            .find(|python| python.is_file())
        else {
            return;
        };
        let bin = tempfile::tempdir().unwrap();
        let site = tempfile::tempdir().unwrap();
        // A wrapper that puts `site` first on the search path, as a site-packages is.
        let python = bin.path().join("python3");
        std::fs::write(
            &python,
            format!(
                "#!/bin/sh\nexec {} -I -c \"import sys; sys.path.insert(0, '{}'); exec(sys.argv[1])\" \"$3\"\n",
                system.display(),
                site.path().display(),
            ),
        )
        .unwrap();
        std::fs::set_permissions(&python, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let store = Counting::default();
        let path_var = std::ffi::OsString::from(bin.path());
        let none = Vec::<PathBuf>::new();
        let asked = (none.clone(), Lookup::Asked(python.clone()));
        assert_eq!(
            iree_dirs(
                Some(&path_var),
                &crate::config::Environment::default(),
                &store
            ),
            asked
        );
        let remembered = (none, Lookup::Remembered(python.clone()));
        assert_eq!(
            iree_dirs(
                Some(&path_var),
                &crate::config::Environment::default(),
                &store
            ),
            remembered
        );
        // `pip install`: a package appears in the site-packages directory.
        std::fs::create_dir_all(site.path().join("iree/compiler")).unwrap();
        let found = (
            vec![site.path().join("iree")],
            Lookup::Asked(python.clone()),
        );
        assert_eq!(
            iree_dirs(
                Some(&path_var),
                &crate::config::Environment::default(),
                &store
            ),
            found
        );
        let found = (vec![site.path().join("iree")], Lookup::Remembered(python));
        assert_eq!(
            iree_dirs(
                Some(&path_var),
                &crate::config::Environment::default(),
                &store
            ),
            found
        );
    }
}
