//! IREE's built-in default tuning specs, taken from an installed compiler into a spec library.
//!
//! Why: IREE ships default specs inside the compiler (for gfx942 in 3.13) and applies them after
//! the user's spec. A user who links with tunespec gets tunespec's defaults instead; to keep
//! IREE's, or to layer their own specs over IREE's, they need IREE's spec as a file. The spec is
//! never copied into tunespec (it is IREE's); it is dumped from the compiler the user has, with
//! IREE's own flags (`iree-codegen-materialize-tuning-specs` with
//! `--iree-codegen-enable-default-tuning-specs --iree-codegen-dump-tuning-specs-to=DIR` on an
//! empty module whose target names the built-in spec), verified with tunespec's rules, and
//! written as a spec library (see docs/registry.md, "User spec libraries") whose manifest puts each spec
//! before tunespec's defaults of its target (`[extend.ARCH]`).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The tool a manifest written by [`manifest_text`] names (`manifest::written_by`): marks a
/// directory whose files `import-iree` may replace, and a library of IREE's own defaults.
pub const TOOL: &str = "tunespec import-iree";

/// First line of a manifest written by [`manifest_text`], up to the tool's name.
pub const MANIFEST_MARKER: &str = "# Written by `tunespec import-iree`";

/// One architecture's built-in spec, as dumped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The architecture (`gfx942`).
    pub arch: String,
    /// File name inside the library: `ARCH/iree_default_tuning_spec_ARCH.mlir`.
    pub relative_path: String,
    /// The spec as iree-opt printed it.
    pub text: String,
}

/// Whether `arch` is a name IREE's ROCm target takes (`gfx` and lowercase hex digits/letters):
/// it is spliced into MLIR text, so nothing else may pass.
pub fn is_rocm_arch(arch: &str) -> bool {
    arch.len() > 3
        && arch.starts_with("gfx")
        && arch[3..]
            .bytes()
            .all(|byte| byte.is_ascii_digit() || byte.is_ascii_lowercase())
}

/// The empty module whose target asks for IREE's built-in spec of `arch`.
fn request(arch: &str) -> String {
    format!(
        "module attributes {{hal.executable.target = #hal.executable.target<\"rocm\", \"rocm-hsaco-fb\", \
         {{iree_codegen.default_tuning_spec = #rocm.builtin.tuning_module<\"iree_default_tuning_spec_{arch}.mlir\">}}>}} {{\n}}\n"
    )
}

/// Dumps IREE's built-in default spec for `arch` with `iree_opt`. `Ok(None)`: this compiler has
/// no built-in spec for `arch`. `Err`: iree-opt failed, timed out, or wrote something unexpected.
pub fn dump_default_spec(
    iree_opt: &Path,
    arch: &str,
    timeout: Duration,
) -> Result<Option<Imported>, String> {
    if !is_rocm_arch(arch) {
        return Err(format!(
            "'{arch}' is not a ROCm architecture name (gfx...): IREE ships default tuning specs only for ROCm targets"
        ));
    }
    // The request goes through stdin, so iree-opt's messages name `<stdin>`, not a file of
    // tunespec's; only the dump needs a directory (IREE's flag takes one).
    let work = tempfile::tempdir()
        .map_err(|error| format!("cannot create a directory for iree-opt's dump: {error}"))?;
    let dump = work.path().join("dump");
    std::fs::create_dir(&dump)
        .map_err(|error| format!("cannot create a directory for iree-opt's dump: {error}"))?;
    run_dump(iree_opt, arch, &dump, timeout)?;
    read_dump(iree_opt, arch, &dump)
}

/// Runs iree-opt on the request for `arch`, dumping the materialized specs into `dump`.
fn run_dump(iree_opt: &Path, arch: &str, dump: &Path, timeout: Duration) -> Result<(), String> {
    let captured = super::child::capture(
        Command::new(iree_opt)
            .arg("--pass-pipeline=builtin.module(iree-codegen-materialize-tuning-specs)")
            .arg("--iree-codegen-enable-default-tuning-specs")
            .arg(format!(
                "--iree-codegen-dump-tuning-specs-to={}",
                dump.display()
            ))
            .args(["-o", "/dev/null", "-"]),
        Some(request(arch).as_bytes()),
        timeout,
    );
    let (status, stderr) = match captured {
        Ok(captured) => (
            captured.status,
            String::from_utf8_lossy(&captured.stderr).into_owned(),
        ),
        Err(super::child::RunError::Start(error)) => {
            return Err(format!("cannot run {}: {error}", iree_opt.display()))
        }
        Err(super::child::RunError::Wait(error)) => {
            return Err(format!("waiting for {}: {error}", iree_opt.display()))
        }
        Err(super::child::RunError::Timeout) => {
            return Err(format!(
                "{} did not finish within {} s and was stopped ({} sets the limit)",
                iree_opt.display(),
                timeout.as_secs(),
                crate::iree_attrs::ENV_TIMEOUT
            ))
        }
    };
    if !status.success() {
        // Its input is the request on stdin; the only path of tunespec's it knows is the dump
        // directory, which means nothing to the user.
        let first = stderr.lines().next().unwrap_or("(no message)");
        let first = first.replace(&dump.display().to_string(), "<dump directory>");
        return Err(format!(
            "{} failed ({status}) on the request for IREE's {arch} spec: {first}",
            iree_opt.display(),
        ));
    }
    Ok(())
}

/// The one spec iree-opt dumped into `dump` (IREE's file, not an input), if any.
fn read_dump(iree_opt: &Path, arch: &str, dump: &Path) -> Result<Option<Imported>, String> {
    let mut dumped: Vec<std::path::PathBuf> = std::fs::read_dir(dump)
        .map_err(|error| format!("cannot read the specs iree-opt dumped: {error}"))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    dumped.sort();
    match dumped.as_slice() {
        [] => Ok(None),
        [file] => {
            let text = std::fs::read_to_string(file)
                .map_err(|error| format!("cannot read the spec iree-opt dumped: {error}"))?;
            Ok(Some(Imported {
                arch: arch.to_string(),
                relative_path: format!("{arch}/iree_default_tuning_spec_{arch}.mlir"),
                text,
            }))
        }
        more => Err(format!(
            "{} dumped {} specs for {arch}, expected one",
            iree_opt.display(),
            more.len()
        )),
    }
}

/// The spec library's manifest: each imported spec before tunespec's defaults of its target.
/// `compiler` names the compiler the specs came from (its version line, not its path: the
/// output must not depend on where the compiler is installed).
pub fn manifest_text(imported: &[Imported], compiler: &str) -> String {
    let mut writer = crate::manifest::Writer::written_by(TOOL, &format!(" from {compiler}."));
    writer.comment(
        "IREE's built-in default tuning specs; linked before tunespec's defaults of each target.",
    );
    for spec in imported {
        writer.extend(&spec.arch, std::slice::from_ref(&spec.relative_path));
    }
    writer.text()
}

/// Which compiler `iree_opt` is: the `iree-base-compiler` package version when iree-opt belongs
/// to a Python environment (the wheel's `site-packages/iree/compiler/_mlir_libs/iree-opt`, where
/// every command finds it, or the environment's `ENV/bin/iree-opt` script; the package's
/// dist-info in that `site-packages`), else iree-opt's own version line (which names only LLVM).
pub fn compiler_version(iree_opt: &Path, timeout: Duration) -> Result<String, String> {
    if let Some(version) = package_version(iree_opt) {
        return Ok(format!("iree-base-compiler {version}"));
    }
    let mut child = Command::new(iree_opt)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| format!("cannot run {}: {error}", iree_opt.display()))?;
    let mut stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stdout.read_to_end(&mut text);
        text
    });
    match crate::child::wait_or_kill(&mut child, timeout) {
        Ok(Some(_)) => {}
        Ok(None) => {
            return Err(format!(
                "{} --version did not finish within {} s and was stopped ({} sets the limit)",
                iree_opt.display(),
                timeout.as_secs(),
                crate::iree_attrs::ENV_TIMEOUT
            ))
        }
        Err(error) => return Err(format!("waiting for {}: {error}", iree_opt.display())),
    }
    let stdout = reader.join().unwrap_or_default();
    let text = String::from_utf8_lossy(&stdout);
    text.lines()
        .map(str::trim)
        .find(|line| line.contains("version"))
        .map(|line| format!("iree-opt ({line})"))
        .ok_or_else(|| format!("{} --version printed no version", iree_opt.display()))
}

/// The newest `iree-base-compiler` version whose dist-info is in the `site-packages` that
/// `iree_opt` belongs to.
fn package_version(iree_opt: &Path) -> Option<String> {
    let dir = iree_opt.parent()?;
    // The wheel's own copy: site-packages/iree/compiler/_mlir_libs/iree-opt.
    let wheel = (dir.file_name()? == "_mlir_libs")
        .then(|| Some(dir.parent()?.parent()?.parent()?.to_path_buf()))
        .flatten();
    let mut site_packages: Vec<std::path::PathBuf> = wheel.into_iter().collect();
    if site_packages.is_empty() {
        // A venv's script: ENV/bin/iree-opt, ENV/lib/python*/site-packages.
        let env = dir.parent()?;
        for python in std::fs::read_dir(env.join("lib")).ok()?.flatten() {
            site_packages.push(python.path().join("site-packages"));
        }
    }
    let mut found: Vec<String> = Vec::new();
    for packages in site_packages {
        let Ok(entries) = std::fs::read_dir(packages) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(version) = name
                .strip_prefix("iree_base_compiler-")
                .and_then(|rest| rest.strip_suffix(".dist-info"))
            {
                found.push(version.to_string());
            }
        }
    }
    found.sort();
    found.pop()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_rocm_architecture_names_are_spliced_into_the_request() {
        assert!(is_rocm_arch("gfx942"));
        assert!(is_rocm_arch("gfx90a"));
        for bad in ["gfx", "sm_80", "gfx942\"", "GFX942", "gfx9 42", "gfx942>}"] {
            assert!(!is_rocm_arch(bad), "{bad}");
        }
    }

    #[test]
    fn the_manifest_extends_each_target_with_its_spec() {
        let imported = [Imported {
            arch: "gfx942".into(),
            relative_path: "gfx942/iree_default_tuning_spec_gfx942.mlir".into(),
            text: String::new(),
        }];
        let text = manifest_text(&imported, "IREE compiler version 3.13.0");
        assert!(text.starts_with(MANIFEST_MARKER));
        assert_eq!(crate::manifest::written_by(&text), Some(TOOL));
        assert!(text.contains(
            "[extend.gfx942]\nspecs = [\"gfx942/iree_default_tuning_spec_gfx942.mlir\"]\n"
        ));
    }
}
