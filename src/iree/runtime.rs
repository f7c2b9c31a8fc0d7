//! IREE's runtime tools (`iree-benchmark-module`, `iree-run-module`, `iree-dump-module` of the
//! `iree-base-runtime` wheel) and the `iree-compile` of the compiler found by [`super::find`]:
//! what `tunespec bench` compiles and times with.
//!
//! Why beside the compiler: a vmfb is only loadable by a runtime of the compiler's revision, so
//! the runtime is looked for where the found compiler lives (the same venv's `site-packages`,
//! `iree/_runtime_libs/`), never picked from elsewhere on `PATH` when a compiler was found. The
//! tools are called directly (not the venv's `bin/` wrappers, which start Python each time).
//! Every child runs under a time limit and its output is read on threads (a full pipe never
//! stalls it).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::find::Found;
use crate::config::Environment;

/// The environment variable naming a directory that holds the runtime tools (an install that
/// is not a pip venv).
pub const ENV_RUNTIME: &str = "TUNESPEC_IREE_RUNTIME";

/// How to install the runtime, for the message when it is missing.
pub fn install_hint(revision: &str) -> String {
    let version = revision.split_whitespace().next().unwrap_or("");
    let pin = version
        .split("rc")
        .next()
        .filter(|version| !version.is_empty())
        .map_or_else(String::new, |version| format!("=={version}"));
    format!(
        "install IREE's runtime beside the compiler (`pip install iree-base-runtime{pin}` in the compiler's venv, or tools/iree-venv.sh), or set {ENV_RUNTIME} to a directory holding iree-benchmark-module"
    )
}

/// The tools `bench` needs, all of one IREE install: `iree-compile` and the runtime's.
#[derive(Clone, Debug)]
pub struct Tools {
    /// `iree-compile` beside the compiler library.
    pub compile: PathBuf,
    /// The runtime's tools beside it.
    pub runtime: Runtime,
}

/// A [`Tools`] is its [`Runtime`] plus `iree-compile`: what times and runs is reached through
/// it as it is on a machine that has the runtime alone (the time phase, [`Runtime::find_alone`]).
impl std::ops::Deref for Tools {
    type Target = Runtime;

    fn deref(&self) -> &Runtime {
        &self.runtime
    }
}

/// IREE's runtime tools (the `iree-base-runtime` wheel's): all that times and runs a compiled
/// module, and all a GPU machine of a plan's time phase needs.
#[derive(Clone, Debug)]
pub struct Runtime {
    /// `iree-benchmark-module`.
    pub benchmark: PathBuf,
    /// `iree-run-module`.
    pub run: PathBuf,
    /// `iree-dump-module`.
    pub dump: PathBuf,
}

/// `iree-compile` of the install `found` belongs to: beside its library, else in `runtime`
/// (the runtime's directory, where one was found). What a plan's compile phase needs alone.
pub fn compiler(found: &Found, runtime: Option<&Path>) -> Result<PathBuf, String> {
    let library_dir = found
        .library
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    std::iter::once(library_dir.join("iree-compile"))
        .chain(runtime.map(|dir| dir.join("iree-compile")))
        .find(|path| path.is_file())
        .ok_or_else(|| {
            format!(
                "iree-compile was not found beside {}",
                found.library.display()
            )
        })
}

/// Compiles `source` to `output` (a vmfb) with `program` (an `iree-compile`) and `flags`;
/// `dump` writes each executable's benchmark module there
/// (`--iree-hal-dump-executable-benchmarks-to`).
pub fn compile(
    program: &Path,
    source: &Path,
    flags: &[String],
    (output, dump): (&Path, Option<&Path>),
    timeout: Duration,
) -> Result<(), String> {
    let mut command = Command::new(program);
    command.arg(source).args(flags).arg("-o").arg(output);
    if let Some(dir) = dump {
        command.arg(format!(
            "--iree-hal-dump-executable-benchmarks-to={}",
            dir.display()
        ));
    }
    run_tool(&mut command, timeout).map(|_| ())
}

/// The runtime directory for a found compiler library: `TUNESPEC_IREE_RUNTIME`, else the
/// `_runtime_libs` of the library's `iree` package, else the directory of the venv's `bin/`
/// (`<prefix>/bin` of the `site-packages` the library is in).
fn runtime_dir(found: &Found, env: &Environment) -> Result<PathBuf, String> {
    if let Some(value) = env.get(ENV_RUNTIME).filter(|value| !value.is_empty()) {
        let dir = PathBuf::from(value);
        return if dir.join("iree-benchmark-module").is_file() {
            Ok(dir)
        } else {
            Err(format!(
                "{ENV_RUNTIME}={}: no iree-benchmark-module there",
                dir.display()
            ))
        };
    }
    // .../site-packages/iree/compiler/_mlir_libs/libIREECompiler.so, as found (not resolved:
    // a library linked into another tree belongs to that tree's install).
    let iree_package = found.library.ancestors().nth(3).map(Path::to_path_buf);
    let mut tried = Vec::new();
    if let Some(package) = &iree_package {
        let dir = package.join("_runtime_libs");
        if dir.join("iree-benchmark-module").is_file() {
            return Ok(dir);
        }
        tried.push(dir);
        // <prefix>/lib/pythonX.Y/site-packages/iree -> <prefix>/bin
        if let Some(prefix) = package.ancestors().nth(4) {
            let bin = prefix.join("bin");
            if bin.join("iree-benchmark-module").is_file() {
                return Ok(bin);
            }
            tried.push(bin);
        }
    }
    let tried: Vec<String> = tried.iter().map(|dir| dir.display().to_string()).collect();
    Err(format!(
        "IREE's runtime (iree-benchmark-module) was not found beside the compiler {} (looked in {})",
        found.library.display(),
        if tried.is_empty() {
            "nothing".to_string()
        } else {
            tried.join(", ")
        }
    ))
}

impl Tools {
    /// The tools of the install `found` belongs to; `Err` names where it looked.
    pub fn find(found: &Found, env: &Environment) -> Result<Tools, String> {
        let dir = runtime_dir(found, env)?;
        let compile = compiler(found, Some(&dir))?;
        Ok(Tools {
            compile,
            runtime: Runtime::in_dir(&dir)?,
        })
    }

    /// Compiles `source` to `output` (a vmfb) with `flags`; `dump` writes each executable's
    /// benchmark module there (`--iree-hal-dump-executable-benchmarks-to`).
    pub fn compile(
        &self,
        source: &Path,
        flags: &[String],
        output: &Path,
        dump: Option<&Path>,
        timeout: Duration,
    ) -> Result<(), String> {
        compile(&self.compile, source, flags, (output, dump), timeout)
    }
}

impl Runtime {
    /// The tools in `dir`; `Err` names the one missing.
    fn in_dir(dir: &Path) -> Result<Runtime, String> {
        let tool = |name: &str| -> Result<PathBuf, String> {
            let path = dir.join(name);
            if path.is_file() {
                Ok(path)
            } else {
                Err(format!("{name} is missing from {}", dir.display()))
            }
        };
        Ok(Runtime {
            benchmark: tool("iree-benchmark-module")?,
            run: tool("iree-run-module")?,
            dump: tool("iree-dump-module")?,
        })
    }

    /// The runtime of a machine that may have no compiler (a plan's time phase): never looks
    /// for, loads or starts IREE's compiler or Python. In order: [`ENV_RUNTIME`]; the venv
    /// named by `TUNESPEC_IREE_VENV`, else the active one (`VIRTUAL_ENV`): its `iree` package's
    /// `_runtime_libs`; `iree-benchmark-module` on `PATH` (a binary: its directory; a venv's
    /// wrapper script: that venv's `_runtime_libs`). `Err` says where it looked.
    pub fn find_alone(env: &Environment) -> Result<Runtime, String> {
        if let Some(value) = env.get(ENV_RUNTIME).filter(|value| !value.is_empty()) {
            return Runtime::in_dir(Path::new(&value))
                .map_err(|error| format!("{ENV_RUNTIME}={}: {error}", value.to_string_lossy()));
        }
        let mut tried = Vec::new();
        for variable in [super::find::ENV_VENV, "VIRTUAL_ENV"] {
            let Some(venv) = env.get(variable).filter(|v| !v.is_empty()) else {
                continue;
            };
            match venv_runtime_dir(Path::new(&venv)) {
                Some(dir) => return Runtime::in_dir(&dir),
                None => tried.push(format!("{variable}={}", venv.to_string_lossy())),
            }
        }
        if let Some(program) = super::find::on_path("iree-benchmark-module", env) {
            let dir = program.parent().map(Path::to_path_buf).unwrap_or_default();
            let wrapper = std::fs::read(&program)
                .map(|bytes| bytes.starts_with(b"#!"))
                .unwrap_or(false);
            let found = if wrapper {
                dir.parent().and_then(venv_runtime_dir)
            } else {
                Some(dir.clone())
            };
            match found {
                Some(dir) => return Runtime::in_dir(&dir),
                None => tried.push(format!("{} (on PATH)", program.display())),
            }
        }
        tried.push("PATH".to_string());
        Err(format!(
            "IREE's runtime (iree-benchmark-module) was not found (looked at {ENV_RUNTIME}, {}, VIRTUAL_ENV: {})",
            super::find::ENV_VENV,
            tried.join(", ")
        ))
    }
}

/// `<venv>/lib/pythonX.Y/site-packages/iree/_runtime_libs` when it holds the runtime (the
/// first of the venv's Pythons, sorted: deterministic where a venv has two).
fn venv_runtime_dir(venv: &Path) -> Option<PathBuf> {
    let mut pythons: Vec<PathBuf> = std::fs::read_dir(venv.join("lib"))
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .collect();
    pythons.sort();
    pythons
        .into_iter()
        .map(|python| python.join("site-packages/iree/_runtime_libs"))
        .find(|dir| dir.join("iree-benchmark-module").is_file())
}

impl Runtime {
    /// The devices the runtime lists (`local-task`, `cuda`, ...: the URIs' schemes, and the
    /// URIs as printed).
    pub fn devices(&self) -> Result<Vec<String>, String> {
        let out = run_tool(
            Command::new(&self.benchmark).arg("--list_devices"),
            Duration::from_secs(60),
        )?;
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
            .map(str::to_string)
            .collect())
    }

    /// The runtime's version and revision (`3.13.0rc20261016 @ 89ece87b...`), from the
    /// wheel's `version.py` beside the tools (the tools themselves have no `--version`), or
    /// `unknown`.
    pub fn version(&self) -> String {
        let Some(dir) = self.benchmark.parent() else {
            return "unknown".to_string();
        };
        std::fs::read_to_string(dir.join("version.py"))
            .ok()
            .and_then(|text| parse_version_py(&text))
            .unwrap_or_else(|| "unknown".to_string())
    }

    /// The `iree.abi.declaration` of each exported function of a vmfb (`iree-dump-module`):
    /// `(name, declaration)`.
    pub fn declarations(&self, module: &Path) -> Result<Vec<(String, String)>, String> {
        let out = run_tool(
            Command::new(&self.dump).arg(module),
            Duration::from_secs(120),
        )?;
        Ok(parse_declarations(&String::from_utf8_lossy(&out.stdout)))
    }

    /// Runs `function` once on `device` with `inputs` (`--input` values) and writes each result
    /// to the matching path of `outputs` (raw little-endian bytes).
    pub fn run_once(
        &self,
        call: &Call<'_>,
        outputs: &[PathBuf],
        timeout: Duration,
    ) -> Result<(), String> {
        let mut command = Command::new(&self.run);
        call.add_to(&mut command);
        for output in outputs {
            command.arg(format!("--output=@{}", output.display()));
        }
        run_tool(&mut command, timeout).map(|_| ())
    }

    /// Times `call` (`iree-benchmark-module`, `repetitions` repetitions after a warm-up of
    /// `min_time` seconds, each at least `min_time` seconds): each repetition's real time per
    /// invocation, in microseconds.
    pub fn benchmark(
        &self,
        call: &Call<'_>,
        repetitions: u32,
        min_time: f64,
        timeout: Duration,
    ) -> Result<Vec<f64>, String> {
        let mut command = Command::new(&self.benchmark);
        call.add_to(&mut command);
        command
            .arg(format!("--benchmark_repetitions={repetitions}"))
            .arg(format!("--benchmark_min_time={min_time}s"))
            .arg(format!("--benchmark_min_warmup_time={min_time}"))
            .arg("--benchmark_format=json");
        let out = run_tool(&mut command, timeout)?;
        parse_benchmark_json(&out.stdout)
    }
}

/// One function of a module on a device, with its inputs.
pub struct Call<'a> {
    /// The vmfb.
    pub module: &'a Path,
    /// The runtime's device (`local-task`, `cuda`, `cuda://0`).
    pub device: &'a crate::device::Device,
    /// The function; `None`: every function (a dispatch benchmark module has one).
    pub function: Option<&'a str>,
    /// `--input` values (`256x256xf32=@a.bin`).
    pub inputs: &'a [String],
}

impl Call<'_> {
    fn add_to(&self, command: &mut Command) {
        command
            .arg(format!("--module={}", self.module.display()))
            .arg(format!("--device={}", self.device));
        if let Some(function) = self.function {
            command.arg(format!("--function={function}"));
        }
        for input in self.inputs {
            command.arg(format!("--input={input}"));
        }
    }
}

/// `VERSION = "..."` and the IREE revision of a wheel's `version.py`, as IREE's compiler
/// prints its own (`3.13.0rc20261016 @ 89ece87b...`).
pub(crate) fn parse_version_py(text: &str) -> Option<String> {
    let quoted = |line: &str| line.split('"').nth(1).map(str::to_string);
    let version = text
        .lines()
        .find(|line| line.trim_start().starts_with("VERSION"))
        .and_then(quoted)?;
    let revision = text
        .lines()
        .find(|line| line.contains("\"IREE\""))
        .and_then(|line| line.split('"').nth(3).map(str::to_string));
    Some(match revision {
        Some(revision) => format!("{version} @ {revision}"),
        None => version,
    })
}

/// The declarations in `iree-dump-module`'s listing: an exported function's line
/// (`[  0] main(...)`) followed by `iree.abi.declaration: sync func @main(...)`.
pub fn parse_declarations(listing: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for line in listing.lines() {
        let Some(declaration) = line.trim().strip_prefix("iree.abi.declaration:") else {
            continue;
        };
        let declaration = declaration.trim();
        let Some(at) = declaration.find("func @") else {
            continue;
        };
        let name: String = declaration[at + "func @".len()..]
            .chars()
            .take_while(|c| *c != '(')
            .collect();
        found.push((name, declaration.to_string()));
    }
    found
}

/// The per-repetition `real_time`s (microseconds) of google-benchmark's JSON: the entries whose
/// `run_type` is `iteration` (aggregates such as the mean are left out).
pub fn parse_benchmark_json(bytes: &[u8]) -> Result<Vec<f64>, String> {
    let value: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|error| format!("iree-benchmark-module's JSON does not parse: {error}"))?;
    let benchmarks = value
        .get("benchmarks")
        .and_then(serde_json::Value::as_array)
        .ok_or("iree-benchmark-module's JSON has no benchmarks")?;
    let mut samples = Vec::new();
    for entry in benchmarks {
        if entry.get("run_type").and_then(serde_json::Value::as_str) != Some("iteration") {
            continue;
        }
        if entry
            .get("error_occurred")
            .and_then(serde_json::Value::as_bool)
            == Some(true)
        {
            let message = entry
                .get("error_message")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("an error");
            return Err(format!("the benchmark failed: {message}"));
        }
        let time = entry.get("real_time").and_then(serde_json::Value::as_f64);
        let unit = entry.get("time_unit").and_then(serde_json::Value::as_str);
        let scale = match unit {
            Some("ns") => 1e-3,
            Some("us") => 1.0,
            Some("ms") => 1e3,
            Some("s") => 1e6,
            _ => {
                return Err(format!(
                    "unknown time unit {unit:?} in the benchmark's JSON"
                ))
            }
        };
        match time {
            Some(time) if time.is_finite() => samples.push(time * scale),
            _ => return Err("a benchmark entry has no real_time".to_string()),
        }
    }
    if samples.is_empty() {
        return Err("iree-benchmark-module reported no repetitions".to_string());
    }
    Ok(samples)
}

/// What a finished child wrote.
pub struct Output {
    /// Its standard output.
    pub stdout: Vec<u8>,
    /// Its standard error.
    pub stderr: Vec<u8>,
}

/// Runs `command` to completion under `timeout`, its output read on threads; `Err` (with the
/// last lines the tool wrote) when it cannot start, fails, crashes or runs out of time.
pub fn run_tool(command: &mut Command, timeout: Duration) -> Result<Output, String> {
    let program = command.get_program().to_string_lossy().into_owned();
    let tool = Path::new(&program)
        .file_name()
        .map_or(program.clone(), |name| name.to_string_lossy().into_owned());
    let captured = match super::child::capture(command, None, timeout) {
        Ok(captured) => captured,
        Err(super::child::RunError::Start(error)) => {
            return Err(format!("cannot start {program}: {error}"))
        }
        Err(super::child::RunError::Wait(error)) => {
            return Err(format!("waiting for {tool}: {error}"))
        }
        Err(super::child::RunError::Timeout) => {
            return Err(format!(
                "{tool} did not finish within {} s",
                timeout.as_secs()
            ))
        }
    };
    let (status, stdout, stderr) = (captured.status, captured.stdout, captured.stderr);
    if status.success() {
        return Ok(Output { stdout, stderr });
    }
    let text = String::from_utf8_lossy(&stderr);
    let last: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    let tail = last[last.len().saturating_sub(3)..].join(" | ");
    Err(format!(
        "{tool} {}{}",
        super::describe(&status),
        if tail.is_empty() {
            String::new()
        } else {
            format!(": {tail}")
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_read_from_the_listing() {
        let listing = "Exported Functions:\n  [  0] main(!vm.ref<?>) -> (!vm.ref<?>)\n        iree.abi.declaration: sync func @main(%input0: tensor<4x8xf16>) -> (%output0: tensor<4x8xf32>)\n  [  1] __init() -> ()\n";
        let found = parse_declarations(listing);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, "main");
        assert!(found[0].1.contains("tensor<4x8xf16>"));
    }

    #[test]
    fn benchmark_json_gives_iteration_samples_in_microseconds() {
        let json = br#"{"benchmarks": [
            {"run_type": "iteration", "real_time": 1.5, "time_unit": "ms"},
            {"run_type": "iteration", "real_time": 1500, "time_unit": "us"},
            {"run_type": "aggregate", "real_time": 9.0, "time_unit": "ms"}]}"#;
        assert_eq!(parse_benchmark_json(json).unwrap(), vec![1500.0, 1500.0]);
        assert!(parse_benchmark_json(b"{\"benchmarks\": []}").is_err());
        assert!(parse_benchmark_json(b"not json").is_err());
    }

    #[test]
    fn the_wheel_version_reads_like_the_compiler_revision() {
        let text = "# Auto-generated version info.\nPACKAGE_SUFFIX = \"\"\nVERSION = \"3.13.0rc20261016\"\nREVISIONS = {\"IREE\": \"89ece87b\"}\n";
        assert_eq!(
            parse_version_py(text).as_deref(),
            Some("3.13.0rc20261016 @ 89ece87b")
        );
        assert_eq!(parse_version_py("nothing"), None);
    }

    #[test]
    fn the_install_hint_pins_the_compiler_release() {
        let hint = install_hint("3.13.0rc20261016 @ 89ece87b");
        assert!(hint.contains("iree-base-runtime==3.13.0"), "{hint}");
    }
}
