//! The compile phase of a bench, and the plan it leaves: a directory another machine can time.
//!
//! GPU machines are the scarce part of a tuning setup, and often the ones without IREE's
//! compiler (about 350 MB installed; its runtime, about 15 MB). So everything that needs the
//! compiler happens here: the library attached, both variants compiled for the named target,
//! each dispatch's benchmark module dumped (and compiled, with `--dispatches`), the unchanged
//! cases found, and the ops each dispatch holds described. What is left to time is written down
//! in `plan.json` with every module's path relative to the plan and its BLAKE3 hash, and the
//! compiler's version and flags: the time phase ([`super::execute`]) needs only the runtime,
//! refuses a plan whose files changed or whose runtime is another release, and the decide phase
//! ([`super::decide`]) needs neither.
//!
//! Inputs are not part of the plan: they are a pure function of each function's ABI declaration
//! (a fixed seed, [`super::data::write_input`]), generated where they are used rather than
//! carried (a model's inputs can be larger than its modules).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{ops, Case, MatcherCase, Options, Progress};
use crate::iree::Iree;
use crate::manifest::Definition;

/// The plan's manifest, in the plan directory.
pub const PLAN_FILE: &str = "plan.json";
/// The version of `plan.json`'s format: a plan of another format is refused, not misread.
pub const FORMAT: u32 = 1;

/// What a plan holds: how its modules were made and what to time.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// [`FORMAT`].
    pub format: u32,
    /// The tunespec that made it.
    pub tunespec: String,
    /// The IREE compiler's version and revision (`3.13.0 @ 89ece87b`): the runtime that times
    /// the plan must be of the same release (a vmfb loads only in its compiler's runtime).
    pub iree: String,
    /// iree-compile's flags.
    pub flags: Vec<String>,
    /// The HAL device the modules are compiled for (`local`, `cuda`, `hip`): which runtime
    /// devices can run them.
    pub target_device: String,
    /// The cases, in the bench's order.
    pub cases: Vec<PlannedCase>,
    /// What `decide --write` needs to write measured entries without the user's files.
    pub write: Option<WriteContext>,
}

/// What writing measured entries needs besides the timings: the target they are for, the
/// library's specs (whose matchers a model's dispatch rows are attributed to) and the target
/// definitions a written library carries to work alone.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct WriteContext {
    /// The target the entries are measured for.
    pub target: String,
    /// The library's specs: (name, text).
    pub specs: Vec<(String, String)>,
    /// The targets a written library defines (a user-defined target and its fallbacks).
    pub definitions: Vec<Definition>,
}

/// One case of the plan.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlannedCase {
    /// Its stable identity: what `--shard` hashes.
    pub id: String,
    /// What reports call it.
    pub name: String,
    /// The function to time; `None`: every exported function.
    pub function: Option<String>,
    /// The matcher it was built for.
    pub matcher: Option<MatcherCase>,
    /// The standalone spec a matcher case attaches (what a measured entry is made of).
    pub library: Option<String>,
    /// Its directory, relative to the plan's.
    pub dir: String,
    /// What the compile phase found.
    pub outcome: Outcome,
}

/// A case's outcome of the compile phase.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Outcome {
    /// Attaching or compiling failed: a failed row, nothing to time.
    Failed {
        /// Why.
        message: String,
    },
    /// The library changes no dispatch's config: nothing to time.
    Unchanged {
        /// How many dispatches the payload has.
        dispatches: usize,
    },
    /// Compiled both ways: to time.
    Time(Box<ToTime>),
}

/// A case to time.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ToTime {
    /// The payload compiled with IREE's own configs.
    pub base: Module,
    /// The payload compiled with the library.
    pub tuned: Module,
    /// How many dispatches the payload has.
    pub dispatch_count: usize,
    /// How many dispatches the library changed.
    pub changed: usize,
    /// Each changed dispatch's two benchmark modules, when each is timed alone.
    pub dispatches: Vec<DispatchPair>,
    /// Each changed dispatch's exported functions ([`ops::exports`]).
    pub exports: Vec<(String, Vec<String>)>,
    /// The ops of each dispatch ([`ops::find`]), when they could be described.
    pub ops: Option<ops::Found>,
}

/// A changed dispatch's benchmark modules.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DispatchPair {
    /// The dispatch.
    pub name: String,
    /// Compiled with IREE's own config.
    pub base: Module,
    /// Compiled with the library's.
    pub tuned: Module,
}

/// A compiled module of the plan: where it is (relative, `/`-separated) and what it is.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Module {
    /// Its path relative to the plan directory.
    pub path: String,
    /// The BLAKE3 hash of its bytes (hex).
    pub blake3: String,
    /// Its size.
    pub bytes: u64,
}

impl Module {
    /// The module at `path` (under `root`), hashed.
    fn of(root: &Path, path: &Path) -> Result<Module, String> {
        let (blake3, bytes) =
            hash_file(path).map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        Ok(Module {
            path: relative(root, path),
            blake3,
            bytes,
        })
    }

    /// Its file under the plan directory `root`, checked against its hash: `Err` says which file
    /// changed (or is missing) and how.
    pub fn verified(&self, root: &Path) -> Result<PathBuf, String> {
        let path = root.join(&self.path);
        let (hash, _) = hash_file(&path).map_err(|error| {
            format!(
                "the plan's module {} cannot be read ({error}): copy the whole plan directory",
                self.path
            )
        })?;
        if hash != self.blake3 {
            return Err(format!(
                "the plan's module {} changed since the plan was made (BLAKE3 {}, the plan says {}): make the plan again",
                self.path,
                &hash[..16],
                &self.blake3[..16.min(self.blake3.len())]
            ));
        }
        Ok(path)
    }
}

/// The BLAKE3 hash (hex) and size of the file at `path`, streamed: a model's module can be
/// larger than is worth holding in memory to hash.
fn hash_file(path: &Path) -> std::io::Result<(String, u64)> {
    let mut hasher = blake3::Hasher::new();
    let file = std::fs::File::open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let bytes = std::io::copy(&mut std::io::BufReader::new(file), &mut hasher)?;
    Ok((hasher.finalize().to_hex().to_string(), bytes))
}

/// `path` relative to `root`, `/`-separated (the plan moves between machines).
fn relative(root: &Path, path: &Path) -> String {
    let inner = path.strip_prefix(root).unwrap_or(path);
    inner
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

impl Plan {
    /// The plan in `dir`: `Err` when there is none, it does not parse, or it is of another
    /// format.
    pub fn load(dir: &Path) -> Result<Plan, String> {
        let path = dir.join(PLAN_FILE);
        let text = crate::files::read_input_text(&path).map_err(|error| {
            format!(
                "{} is not a bench plan: cannot read {PLAN_FILE} ({error}); make one with `tunespec bench --plan DIR`",
                dir.display()
            )
        })?;
        let plan: Plan = serde_json::from_str(&text)
            .map_err(|error| format!("{}: not a bench plan: {error}", path.display()))?;
        if plan.format != FORMAT {
            return Err(format!(
                "{}: a plan of format {} (this tunespec reads format {FORMAT}): make the plan again with this tunespec",
                path.display(),
                plan.format
            ));
        }
        Ok(plan)
    }

    /// The device to suggest timing the plan on: `given` for a CPU plan, else the HAL device
    /// it is compiled for (`cuda`, `hip`).
    pub fn device_hint(&self, given: &crate::device::Device) -> String {
        if self.target_device == "local" {
            given.to_string()
        } else {
            self.target_device.clone()
        }
    }

    /// Writes `plan.json` into `dir` whole or not at all.
    pub fn save(&self, dir: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|error| format!("cannot write the plan: {error}"))?;
        write_atomically(&dir.join(PLAN_FILE), format!("{text}\n").as_bytes())
    }
}

/// Writes `bytes` to `path` through a temporary file beside it, renamed over it: a reader never
/// sees half a file, and an interrupted writer leaves none.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir)
        .map_err(|error| format!("cannot write into {}: {error}", dir.display()))?;
    file.write_all(bytes)
        .and_then(|()| file.as_file().sync_all())
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    file.persist(path)
        .map_err(|error| format!("cannot write {}: {}", path.display(), error.error))?;
    Ok(())
}

/// The HAL device `flags` compile for (`--iree-hal-target-device=`), `local` when none is named
/// (IREE's default for the CPU flags `bench` uses).
pub fn target_device(flags: &[String]) -> String {
    flags
        .iter()
        .find_map(|flag| flag.strip_prefix("--iree-hal-target-device="))
        .unwrap_or("local")
        .to_string()
}

/// The compile phase: each case attached and compiled both ways in `root` (in parallel,
/// `options.jobs`), with `compiler` (an `iree-compile`); a case that fails is a failed outcome,
/// never an abort. The plan is returned, not saved.
pub fn make(
    iree: &Iree,
    compiler: &Path,
    cases: &[Case],
    options: &Options,
    root: &Path,
    progress: Progress<'_>,
) -> Plan {
    let indexed: Vec<(usize, &Case)> = cases.iter().enumerate().collect();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let planned = crate::jobs::parallel(&indexed, options.jobs, |(index, case)| {
        let dir = format!("cases/{index:04}");
        let outcome = match build(iree, compiler, case, (root, &root.join(&dir)), options) {
            Ok(outcome) => outcome,
            Err(message) => Outcome::Failed { message },
        };
        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        progress(&format!("compiled {n}/{} ({})", cases.len(), case.name));
        PlannedCase {
            id: case.id.clone(),
            name: case.name.clone(),
            function: case.function.clone(),
            matcher: case.matcher.clone(),
            library: case.matcher.as_ref().map(|_| case.library.clone()),
            dir,
            outcome,
        }
    });
    Plan {
        format: FORMAT,
        tunespec: env!("CARGO_PKG_VERSION").to_string(),
        iree: iree.revision.clone(),
        flags: options.flags.clone(),
        target_device: target_device(&options.flags),
        cases: planned,
        write: None,
    }
}

/// A case's two compiles, which dispatches changed, and (to time) its modules hashed.
fn build(
    iree: &Iree,
    compiler: &Path,
    case: &Case,
    (root, dir): (&Path, &Path),
    options: &Options,
) -> Result<Outcome, String> {
    std::fs::create_dir_all(dir)
        .map_err(|error| format!("cannot create a work directory: {error}"))?;
    let bytecode = case.payload.starts_with(crate::verify::BYTECODE_MAGIC);
    let source = dir.join(if bytecode {
        "payload.mlirbc"
    } else {
        "payload.mlir"
    });
    write(&source, &case.payload)?;
    let attached = iree
        .attach(
            &case.payload,
            &case.name,
            crate::apply::ATTR_NAME,
            case.library.as_bytes(),
            false,
        )
        .map_err(|failure| {
            format!(
                "attaching the library failed: {}",
                super::first_line(&failure.summary())
            )
        })?;
    let tuned_source = dir.join("tuned.mlir");
    write(&tuned_source, &attached)?;
    let (base, tuned) = (dir.join("iree.vmfb"), dir.join("tuned.vmfb"));
    let (base_dumps, tuned_dumps) = (dir.join("iree-dispatches"), dir.join("tuned-dispatches"));
    let compile = |source: &Path, output: &Path, dumps: Option<&Path>| {
        crate::iree::runtime::compile(
            compiler,
            source,
            &options.flags,
            (output, dumps),
            options.compile_timeout,
        )
    };
    compile(&source, &base, Some(&base_dumps))
        .map_err(|error| format!("compiling with IREE's own configs failed: {error}"))?;
    compile(&tuned_source, &tuned, Some(&tuned_dumps))
        .map_err(|error| format!("compiling with the library failed: {error}"))?;
    let (changed, dispatch_count) = changed_dispatches(&base_dumps, &tuned_dumps)?;
    if changed.is_empty() && !options.time_unchanged {
        return Ok(Outcome::Unchanged {
            dispatches: dispatch_count,
        });
    }
    let exports = changed
        .iter()
        .map(|(name, _, tuned)| {
            let dump = std::fs::read_to_string(tuned).unwrap_or_default();
            (name.clone(), ops::exports(&dump))
        })
        .collect();
    let mut dispatches = Vec::new();
    if options.dispatches && dispatch_count > 1 {
        for (name, base, tuned) in &changed {
            let mut pair = Vec::new();
            for path in [base, tuned] {
                let vmfb = path.with_extension("vmfb");
                compile(path, &vmfb, None)
                    .map_err(|error| format!("compiling dispatch {name} failed: {error}"))?;
                pair.push(Module::of(root, &vmfb)?);
            }
            let tuned = pair.pop().expect("two modules");
            let base = pair.pop().expect("two modules");
            dispatches.push(DispatchPair {
                name: name.clone(),
                base,
                tuned,
            });
        }
    }
    Ok(Outcome::Time(Box::new(ToTime {
        base: Module::of(root, &base)?,
        tuned: Module::of(root, &tuned)?,
        dispatch_count,
        changed: changed.len(),
        dispatches,
        exports,
        // Described beside the compiles (in parallel over cases), only when the case is timed.
        ops: ops::find(iree, case, &options.flags),
    })))
}

/// A dispatch whose config the library changed: its name, IREE's benchmark module source, the
/// library's.
type Changed = (String, PathBuf, PathBuf);

/// The dispatches whose benchmark modules differ between the two dumps (sorted by name), and
/// how many there are.
fn changed_dispatches(base: &Path, tuned: &Path) -> Result<(Vec<Changed>, usize), String> {
    let list = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".mlir"))
            .collect();
        names.sort();
        names
    };
    let names = list(base);
    if names != list(tuned) {
        return Err("the two compiles formed different dispatches".to_string());
    }
    let mut changed = Vec::new();
    for name in &names {
        let (a, b) = (base.join(name), tuned.join(name));
        let same = std::fs::read(&a).ok() == std::fs::read(&b).ok();
        if !same {
            let stem = name
                .trim_end_matches(".mlir")
                .trim_end_matches("_benchmark");
            changed.push((stem.to_string(), a, b));
        }
    }
    Ok((changed, names.len()))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|error| format!("cannot write {}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_module_is_refused_with_its_path_and_a_missing_one_too() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cases/0000/iree.vmfb");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"module").unwrap();
        let module = Module::of(dir.path(), &path).unwrap();
        assert_eq!(module.path, "cases/0000/iree.vmfb");
        assert_eq!(module.verified(dir.path()).unwrap(), path);
        std::fs::write(&path, b"modulE").unwrap();
        let error = module.verified(dir.path()).unwrap_err();
        assert!(
            error.contains("cases/0000/iree.vmfb changed since the plan was made"),
            "{error}"
        );
        std::fs::remove_file(&path).unwrap();
        let error = module.verified(dir.path()).unwrap_err();
        assert!(error.contains("cannot be read"), "{error}");
    }

    #[test]
    fn the_target_device_is_the_flags_or_local() {
        let flags = ["--iree-hal-target-device=cuda".to_string()];
        assert_eq!(target_device(&flags), "cuda");
        assert_eq!(target_device(&[]), "local");
    }
}
