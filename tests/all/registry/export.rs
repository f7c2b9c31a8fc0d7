//! The build script's index of the default registry, and `tunespec export --format c` compiled
//! with `cc`; every default config compiles in IREE for every member of its target.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use tunespec::registry;

use super::{tunespec, write};
use crate::build_check::{build_script, run_build_script, GOOD, REGISTRY};
use crate::reference::{in_ci, iree_compile, repo_root};

#[test]
fn the_build_script_embeds_kinds_features_and_restricted_specs() {
    let registry = "schema = 1\n[targets.gfx942]\ndescription = \"test\"\nkind = \"arch\"\nfeatures = [\"xnack\"]\n\
                    specs = [\"gfx942/good.mlir\", { path = \"gfx942/xnack/*.mlir\", features = [\"xnack+\"] }]\n";
    let (ok, stderr, out, _dir) = run_build_script(&[
        ("registry.toml", registry),
        ("gfx942/good.mlir", GOOD),
        ("gfx942/xnack/on.mlir", &GOOD.replace("@good", "@on")),
    ]);
    assert!(ok, "{stderr}");
    let index = std::fs::read_to_string(out.join("index.rs")).unwrap();
    assert!(index.contains("kind: Some(\"arch\")"), "{index}");
    assert!(index.contains("features: &[\"xnack\"]"), "{index}");
    assert!(
        index.contains("spec_features: &[&[], &[\"xnack+\"]]"),
        "{index}"
    );
}

/// Runs the build script on a crate directory that already holds `specs/`.
fn build_in(crate_dir: &Path) -> std::process::Output {
    std::fs::create_dir_all(crate_dir.join("out")).unwrap();
    Process::new(build_script())
        .env("CARGO_MANIFEST_DIR", crate_dir)
        .env("OUT_DIR", crate_dir.join("out"))
        .env_remove("TUNESPEC_SPECS_DIR")
        .output()
        .unwrap()
}

#[test]
fn the_build_script_warns_about_unlisted_specs() {
    let crate_dir = tempfile::tempdir().unwrap();
    write(
        &crate_dir.path().join("specs"),
        &[
            ("registry.toml", REGISTRY),
            ("gfx942/good.mlir", GOOD),
            ("stray/unused.mlir", GOOD),
        ],
    );
    let output = build_in(crate_dir.path());
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("cargo:warning=warning: spec file 'specs/stray/unused.mlir' is not listed by any target of specs/registry.toml"),
        "{stdout}"
    );
}

#[cfg(unix)]
#[test]
fn the_build_script_refuses_specs_reached_through_symlinks_out() {
    let crate_dir = tempfile::tempdir().unwrap();
    write(
        &crate_dir.path().join("specs"),
        &[("registry.toml", REGISTRY), ("gfx942/good.mlir", GOOD)],
    );
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("evil.mlir"), GOOD).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("evil.mlir"),
        crate_dir.path().join("specs/gfx942/evil.mlir"),
    )
    .unwrap();
    let output = build_in(crate_dir.path());
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("specs/registry.toml:4:10: error: spec file 'gfx942/evil.mlir' of target 'gfx942' is reached through a symlink that leads outside the specs directory"),
        "{stderr}"
    );
    assert!(!crate_dir.path().join("out/index.rs").exists());
}

/// `cc`, or `None` (with a note) when there is none; CI must have one.
fn c_compiler() -> Option<PathBuf> {
    let found = std::env::var_os("CC").map(PathBuf::from).or_else(|| {
        ["/usr/bin/cc", "/usr/local/bin/cc"]
            .iter()
            .map(PathBuf::from)
            .find(|path| path.is_file())
    });
    match found {
        Some(cc) => Some(cc),
        None if in_ci() => panic!("a C compiler (cc) is required when CI=true"),
        None => {
            eprintln!("note: no C compiler (cc) found; the C export check did not run");
            None
        }
    }
}

const C_PROGRAM: &str = r#"
#include "tunespec_specs.h"
#include <stdint.h>
#include <stdio.h>

int main(void) {
  size_t i;
  const char *names[] = {"MI300X:sramecc+:xnack-", "gfx942", "H100", "cdna", "nope", ""};
  for (i = 0; i < tunespec_spec_count; ++i) {
    const tunespec_spec *spec = &tunespec_specs[i];
    char path[64];
    FILE *file;
    sprintf(path, "spec_%u.bin", (unsigned)i);
    file = fopen(path, "wb");
    if (file == NULL || fwrite(spec->data, 1, spec->size, file) != spec->size) return 1;
    fclose(file);
    printf("S\t%s\t%s\t%s\t%s\t%lu\t%s\t%u\t%d\t%d\n", spec->target, spec->name, spec->module_name,
           spec->features, (unsigned long)spec->size, spec->hash, (unsigned)spec->matchers,
           (int)((uintptr_t)spec->data % TUNESPEC_SPECS_ALIGNMENT), spec->data[spec->size]);
  }
  for (i = 0; i < tunespec_target_count; ++i) {
    const tunespec_target *target = &tunespec_targets[i];
    printf("T\t%s\t%s\t%s\t%lu\t%lu\t%s\n", target->name, target->kind,
           target->fallback ? target->fallback : "-", (unsigned long)target->first_spec,
           (unsigned long)target->spec_count, target->aliases[0] ? target->aliases[0] : "-");
  }
  for (i = 0; i < sizeof names / sizeof names[0]; ++i) {
    const tunespec_target *found = tunespec_find_target(names[i]);
    printf("F\t%s\t%s\n", names[i], found ? found->name : "NULL");
  }
  printf("V\t%s\n", TUNESPEC_SPECS_VERSION);
  return 0;
}
"#;

#[test]
fn exported_c_sources_compile_and_hold_exactly_the_verified_bytecode() {
    let Some(cc) = c_compiler() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gen");
    tunespec()
        .args(["export", "--format", "c", "-o"])
        .arg(&out)
        .assert()
        .code(0)
        .stdout_eq("wrote tunespec_specs.h and tunespec_specs.c to [..]: 12 target(s), 16 spec(s), 16 table row(s)\n");
    let stdout = compile_and_run_c_program(&cc, dir.path(), &out);
    assert_spec_rows_hold_the_verified_bytecode(dir.path(), &stdout);
    let targets: Vec<&str> = stdout
        .lines()
        .filter(|line| line.starts_with("T\t"))
        .collect();
    assert_eq!(targets.len(), registry::targets().len());
    assert!(
        targets.contains(&"T\tmi308x\tsku\tgfx942\t9\t0\t-"),
        "{targets:#?}"
    );
    assert!(
        targets.contains(&"T\tgfx942\tarch\tgfx9\t5\t2\tmi300x"),
        "{targets:#?}"
    );
    let found: Vec<&str> = stdout
        .lines()
        .filter(|line| line.starts_with("F\t"))
        .collect();
    assert_eq!(
        found,
        [
            "F\tMI300X:sramecc+:xnack-\tgfx942",
            "F\tgfx942\tgfx942",
            "F\tH100\tsm_90",
            "F\tcdna\tgfx9",
            "F\tnope\tNULL",
            "F\t\tNULL",
        ]
    );
    assert!(stdout.contains(&format!("V\t{}\n", env!("CARGO_PKG_VERSION"))));
    assert_header_compiles_as_cxx(dir.path(), &out);
}

/// Compiles `C_PROGRAM` in `dir` against the sources exported to `out`, runs it there and
/// returns its stdout. Part of
/// `exported_c_sources_compile_and_hold_exactly_the_verified_bytecode`, split out to keep it
/// short.
fn compile_and_run_c_program(cc: &Path, dir: &Path, out: &Path) -> String {
    std::fs::write(dir.join("main.c"), C_PROGRAM).unwrap();
    let program = dir.join("main");
    let compiled = Process::new(cc)
        .args([
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-O1",
            "-I",
        ])
        .arg(out)
        .arg(dir.join("main.c"))
        .arg(out.join("tunespec_specs.c"))
        .arg("-o")
        .arg(&program)
        .output()
        .unwrap();
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let run = Process::new(&program).current_dir(dir).output().unwrap();
    assert!(run.status.success());
    String::from_utf8(run.stdout).unwrap()
}

/// Each `S` row the C program printed describes, in order, one spec of the embedded registry,
/// and the bytes it wrote to `dir` are that spec's verified bytecode. Part of
/// `exported_c_sources_compile_and_hold_exactly_the_verified_bytecode`, split out to keep it
/// short.
fn assert_spec_rows_hold_the_verified_bytecode(dir: &Path, stdout: &str) {
    let mut expected = Vec::new();
    for target in registry::targets() {
        for (position, spec) in target.specs().enumerate() {
            expected.push((target.name, spec, target.spec_features[position].join(":")));
        }
    }
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .filter(|line| line.starts_with("S\t"))
        .map(|line| line.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), expected.len());
    for (index, (row, (target, spec, features))) in rows.iter().zip(&expected).enumerate() {
        assert_eq!(
            row[1..5],
            [*target, spec.path, spec.module_name, features.as_str()]
        );
        assert_eq!(row[5], spec.bytecode().len().to_string());
        assert_eq!(row[6], spec.bytecode_hash);
        assert_eq!(row[7], spec.matcher_count.to_string());
        assert_eq!(
            row[8..],
            ["0", "0"],
            "{} is not aligned or not NUL-terminated",
            spec.path
        );
        // The bytes the C program sees are tunespec's, and hash to the same BLAKE3.
        let bytes = std::fs::read(dir.join(format!("spec_{index}.bin"))).unwrap();
        assert_eq!(bytes, spec.bytecode(), "{}", spec.path);
        assert_eq!(blake3::hash(&bytes).to_hex().as_str(), spec.bytecode_hash);
    }
}

/// The header exported to `out` is usable from C++ too, where a C++ compiler is installed.
/// Part of `exported_c_sources_compile_and_hold_exactly_the_verified_bytecode`, split out to
/// keep it short.
fn assert_header_compiles_as_cxx(dir: &Path, out: &Path) {
    // The header is usable from C++ too.
    if let Some(cxx) = ["/usr/bin/c++"]
        .iter()
        .map(Path::new)
        .find(|path| path.is_file())
    {
        std::fs::write(
            dir.join("use.cpp"),
            "#include \"tunespec_specs.h\"\nint main() { return tunespec_find_target(\"gfx942\") ? 0 : 1; }\n",
        )
        .unwrap();
        let compiled = Process::new(cxx)
            .args(["-std=c++11", "-Wall", "-Werror", "-fsyntax-only", "-I"])
            .arg(out)
            .arg(dir.join("use.cpp"))
            .output()
            .unwrap();
        assert!(
            compiled.status.success(),
            "{}",
            String::from_utf8_lossy(&compiled.stderr)
        );
    }
}

#[test]
fn export_selects_targets_with_their_chains() {
    let dir = tempfile::tempdir().unwrap();
    tunespec()
        .args(["export", "-o"])
        .arg(dir.path())
        .args(["--target", "mi300x", "--target", "H100"])
        .assert()
        .code(0)
        .stdout_eq("wrote tunespec_specs.h and tunespec_specs.c to [..]: 4 target(s), 7 spec(s), 7 table row(s)\n");
    let source = std::fs::read_to_string(dir.path().join("tunespec_specs.c")).unwrap();
    assert!(source.contains("\"specs/gfx9/llama3_70b_bf16.mlir\""));
    assert!(!source.contains("\"specs/rdna/"));
    tunespec()
        .args(["export", "-o"])
        .arg(dir.path())
        .args(["--target", "gfx943"])
        .assert()
        .code(2)
        .stderr_eq("tunespec: error: unknown target 'gfx943' (did you mean gfx942?)\n");
}

/// The compile targets tools/check-default-configs.py gives a spec directory: the architecture
/// itself, or every member of a family or vendor (iree-compile 3.13 cannot target sm_90: sm_89
/// stands in).
fn check_targets(directory: &str) -> usize {
    match directory {
        "gfx9" => 3,
        "rdna" | "nvidia" => 2,
        _ => 1,
    }
}

#[test]
fn every_default_config_takes_effect_and_compiles_in_iree_for_every_member() {
    // Every matcher of every default spec, for every target it applies to (family and vendor
    // specs: every member), through tools/check-default-configs.py: it builds the payload each
    // IREE-form matcher is meant for and checks in iree-compile 3.13 that the dispatch gets
    // exactly the matcher's config (and another one without the spec), and that the full compile
    // succeeds (iree-opt checks syntax only; iree-compile checks intrinsics, subgroup sizes,
    // workgroup shapes and shared memory). On CUDA, where 3.13 ignores
    // --iree-codegen-tuning-spec-path, the spec is attached to the payload. It also checks that no
    // two matchers of a chain of specs/registry.toml match the same ops.
    let Some(iree_compile) = iree_compile() else {
        return;
    };
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let started = std::time::Instant::now();
    let output = match Process::new("python3")
        .current_dir(repo_root())
        .arg("tools/check-default-configs.py")
        .arg("--iree-compile")
        .arg(&iree_compile)
        .args(["--jobs", &jobs.to_string()])
        .args(["--registry", "specs/registry.toml", "--json", "specs"])
        .output()
    {
        Ok(output) => output,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound && !in_ci() => {
            eprintln!("note: python3 not found; this check did not run");
            return;
        }
        Err(error) => panic!("python3 (>= 3.11) is required: {error}"),
    };
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
            panic!(
                "check-default-configs.py printed no JSON ({error}), exit {:?}:\n{}",
                output.status.code(),
                String::from_utf8_lossy(&output.stderr)
            )
        });
    eprintln!(
        "check-default-configs.py: {} in {:.0?}",
        report["summary"],
        started.elapsed()
    );
    let failed: Vec<String> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|result| result["ok"] != true)
        .map(|result| {
            format!(
                "{} on {}: @{} took_effect={} differs={} compiled={} {}",
                result["spec"],
                result["target"],
                result["matcher"],
                result["took_effect"],
                result["differs"],
                result["compiled"],
                result["reason"]
            )
        })
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    let bad_chains: Vec<&serde_json::Value> = report["chains"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|chain| chain["ok"] != true)
        .collect();
    assert!(bad_chains.is_empty(), "{bad_chains:#?}");
    assert_eq!(report["ok"], true);
    assert_eq!(output.status.code(), Some(0));
    assert_nothing_was_left_out(&report);
}

/// Nothing was left out of check-default-configs.py's `report`: one result per matcher of
/// every embedded spec and compile target, and a chain for every target of the registry. Part
/// of `every_default_config_takes_effect_and_compiles_in_iree_for_every_member`, split out to
/// keep it short.
fn assert_nothing_was_left_out(report: &serde_json::Value) {
    // Nothing was left out: one result per matcher of every embedded spec and compile target, and
    // a chain for every target of the registry.
    let mut expected = 0;
    for spec in registry::specs() {
        let directory = spec.path.split('/').nth(1).unwrap();
        let matchers = std::fs::read_to_string(repo_root().join(spec.path))
            .unwrap()
            .matches("transform.named_sequence @match_")
            .count();
        expected += matchers * check_targets(directory);
        let checked = report["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|result| {
                result["spec"]
                    .as_str()
                    .is_some_and(|path| path.ends_with(spec.path))
            })
            .count();
        assert_eq!(
            checked,
            matchers * check_targets(directory),
            "{}",
            spec.path
        );
    }
    assert_eq!(report["summary"]["results"], expected);
    assert_eq!(report["summary"]["passed"], expected);
    // Every target with default specs along its chain (the built-in `host` has none).
    assert_eq!(
        report["summary"]["chains"],
        registry::targets()
            .iter()
            .filter(|target| !target.specs.is_empty() || target.fallback.is_some())
            .count(),
        "{}",
        report["summary"]
    );
}

/// The CMake snippet of docs/embedding.md, as written there, builds a program against the
/// export: CMake runs `tunespec export` at build time, compiles it as a static library and links
/// it.
#[test]
fn docs_cmake_snippet_builds_a_program_against_the_export() {
    let cmake = PathBuf::from("/usr/bin/cmake");
    if !cmake.is_file() {
        assert!(
            !in_ci(),
            "cmake is required when CI=true (tools/setup.sh installs it)"
        );
        eprintln!("note: no cmake; the CMake snippet of docs/embedding.md was not built");
        return;
    }
    if c_compiler().is_none() {
        return;
    }
    let page = std::fs::read_to_string(repo_root().join("docs/embedding.md")).unwrap();
    let snippet = page
        .split("```cmake\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/embedding.md has a ```cmake block");
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("src");
    std::fs::create_dir(&source).unwrap();
    std::fs::write(
        source.join("CMakeLists.txt"),
        format!(
            "cmake_minimum_required(VERSION 3.20)\nproject(uses_tunespec C)\n{snippet}\nadd_executable(main main.c)\ntarget_link_libraries(main PRIVATE tunespec_specs)\n"
        ),
    )
    .unwrap();
    std::fs::write(source.join("main.c"), C_PROGRAM).unwrap();
    let build = dir.path().join("build");
    let home = crate::support::private_home();
    let step = |args: &[&std::ffi::OsStr]| {
        let output = Process::new(&cmake)
            .args(args)
            .envs(crate::support::hermetic_env(&home))
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "cmake {args:?}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let tunespec = format!("-DTUNESPEC={}", env!("CARGO_BIN_EXE_tunespec"));
    step(&[
        "-S".as_ref(),
        source.as_os_str(),
        "-B".as_ref(),
        build.as_os_str(),
        tunespec.as_ref(),
    ]);
    step(&["--build".as_ref(), build.as_os_str()]);
    assert!(build.join("tunespec/tunespec_specs.h").is_file());
    let run = Process::new(build.join("main"))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(run.status.success());
    let stdout = String::from_utf8(run.stdout).unwrap();
    let specs: usize = registry::targets()
        .iter()
        .map(|target| target.specs().count())
        .sum();
    assert_eq!(
        stdout
            .lines()
            .filter(|line| line.starts_with("S\t"))
            .count(),
        specs,
        "{stdout}"
    );
    assert!(stdout.contains("F\tgfx942\tgfx942\n"), "{stdout}");
}
