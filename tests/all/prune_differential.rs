//! `attach`'s pruning against IREE's real compile on every backend it touches (issue 39): a
//! payload of many functions (named `linalg.matmul`s and transposed-B `linalg.generic`s, their
//! accumulators from `linalg.fill`, shapes repeated across functions) and a library whose
//! matchers see the ops differently (by the named op's name, by `linalg.generic`'s name, by
//! IREE's `match.contraction`) are attached whole and pruned, with and without `--target`, and
//! compiled by iree-compile 3.13 for llvm-cpu (named ops kept) and for hip (named ops
//! generalized). Every dispatch must get the same configs from the pruned library as from the
//! whole one: zero differing dispatches.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use crate::reference::{iree_compile, output_with_timeout};
use crate::support::tunespec_command;

/// The shapes (m, n, k) of the payload's ops. The library's matchers have the even-indexed
/// shapes, and the odd-indexed ones with m off by 16 (pairs that fire on no op).
const SHAPES: [(u32, u32, u32); 10] = [
    (1248, 288, 384),
    (2464, 224, 320),
    (512, 256, 128),
    (96, 640, 192),
    (320, 320, 320),
    (64, 1024, 256),
    (128, 128, 512),
    (256, 96, 64),
    (768, 160, 96),
    (160, 448, 224),
];

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Layout {
    /// `linalg.matmul`: A (m x k) * B (k x n).
    Named,
    /// `linalg.generic` with B transposed: A (m x k) * B (n x k).
    TransposedB,
}

/// How a matcher recognises its op.
#[derive(Clone, Copy)]
enum Form {
    /// `transform.match.operation_name ["linalg.matmul"]` and the loop ranges.
    NamedOp,
    /// `transform.match.operation_name ["linalg.generic"]` and the loop ranges.
    GenericOp,
    /// IREE's `transform.iree.match.contraction` with the layout's maps, and `dims_equal`.
    Contraction(Layout),
}

#[derive(Clone, Copy, PartialEq)]
/// The IREE backend a payload is compiled for.
pub(crate) enum Backend {
    Cpu,
    Hip,
}

/// The payload: `functions` functions of a few contractions each, shapes and layouts cycling
/// so that every shape appears several times, in both layouts; with the number of distinct
/// dispatches the library configures (IREE deduplicates identical dispatches: one per shape
/// and layout whose shape has a matcher).
fn payload(functions: usize) -> (String, usize) {
    let mut text = String::from("module {\n");
    let mut configured = std::collections::BTreeSet::new();
    let mut index = 0usize;
    for function in 0..functions {
        let ops = 3 + function % 3;
        let mut args = Vec::new();
        let mut body = String::new();
        let mut results = Vec::new();
        for op in 0..ops {
            let (m, n, k) = SHAPES[index % SHAPES.len()];
            let layout = if (index / SHAPES.len() + op) % 2 == 0 {
                Layout::Named
            } else {
                Layout::TransposedB
            };
            if index % SHAPES.len() % 2 == 0 {
                configured.insert((index % SHAPES.len(), layout));
            }
            index += 1;
            let (a, b) = (format!("%a{op}"), format!("%b{op}"));
            let b_type = match layout {
                Layout::Named => format!("tensor<{k}x{n}xf32>"),
                Layout::TransposedB => format!("tensor<{n}x{k}xf32>"),
            };
            args.push(format!("{a}: tensor<{m}x{k}xf32>"));
            args.push(format!("{b}: {b_type}"));
            let out = format!("tensor<{m}x{n}xf32>");
            let _ = writeln!(
                body,
                "    %e{op} = tensor.empty() : {out}\n    %acc{op} = linalg.fill ins(%zero : f32) outs(%e{op} : {out}) -> {out}"
            );
            let _ = match layout {
                Layout::Named => writeln!(
                    body,
                    "    %r{op} = linalg.matmul ins({a}, {b} : tensor<{m}x{k}xf32>, {b_type}) outs(%acc{op} : {out}) -> {out}"
                ),
                Layout::TransposedB => writeln!(
                    body,
                    "    %r{op} = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\", \"reduction\"]}} ins({a}, {b} : tensor<{m}x{k}xf32>, {b_type}) outs(%acc{op} : {out}) {{\n    ^bb0(%x: f32, %y: f32, %z: f32):\n      %p = arith.mulf %x, %y : f32\n      %s = arith.addf %z, %p : f32\n      linalg.yield %s : f32\n    }} -> {out}"
                ),
            };
            results.push((format!("%r{op}"), out));
        }
        let (names, types): (Vec<_>, Vec<_>) = results.into_iter().unzip();
        let _ = writeln!(
            text,
            "  func.func @f{function}({}) -> ({}) {{\n    %zero = arith.constant 0.0 : f32\n{body}    return {} : {}\n  }}",
            args.join(", "),
            types.join(", "),
            names.join(", "),
            types.join(", ")
        );
    }
    text.push_str("}\n");
    (text, configured.len())
}

const MAPS_NAMED: &str = "[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]";
const MAPS_TRANSPOSED_B: &str = "[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]";

/// A config that names its pair: `id` is spelt into the tile sizes, so the compiled output
/// shows which pair configured each dispatch.
fn config(backend: Backend, id: usize) -> String {
    let (a, b) = (8 * (1 + id % 8), 8 * (1 + id / 8 % 8));
    match backend {
        Backend::Cpu => format!(
            "#iree_codegen.compilation_info<lowering_config = #iree_cpu.lowering_config<distribution = [{a}, {b}, 0], vector_common_parallel = [4, 8, 0], vector_reduction = [0, 0, {}]>, translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>>",
            1 + id / 64
        ),
        Backend::Hip => format!(
            "#iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{{workgroup = [{a}, {b}, 0], reduction = [0, 0, {}]}}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [64, 4, 1] subgroup_size = 64>>",
            4 * (1 + id / 64)
        ),
    }
}

fn matcher(name: &str, form: Form, (m, n, k): (u32, u32, u32), config: &str) -> String {
    let head = format!(
        "  transform.named_sequence @{name}(%op: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) {{\n"
    );
    let checks = match form {
        Form::NamedOp | Form::GenericOp => {
            let op = if matches!(form, Form::NamedOp) {
                "linalg.matmul"
            } else {
                "linalg.generic"
            };
            format!(
                "    transform.match.operation_name %op [\"{op}\"] : !transform.any_op\n    %dims = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.param<i64> {{\n    ^bb0(%s: !transform.any_op):\n      %d = transform.match.structured.dim %s[all] : (!transform.any_op) -> !transform.param<i64>\n      transform.match.structured.yield %d : !transform.param<i64>\n    }}\n    %m = transform.param.constant {m} : i64 -> !transform.param<i64>\n    %n = transform.param.constant {n} : i64 -> !transform.param<i64>\n    %k = transform.param.constant {k} : i64 -> !transform.param<i64>\n    %shape = transform.merge_handles %m, %n, %k : !transform.param<i64>\n    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>\n"
            )
        }
        Form::Contraction(layout) => {
            let maps = match layout {
                Layout::Named => MAPS_NAMED,
                Layout::TransposedB => MAPS_TRANSPOSED_B,
            };
            format!(
                "    %batch, %m, %n, %k = transform.iree.match.contraction %op, lhs_type = f32, rhs_type = f32, output_type = f32, indexing_maps = {maps} : !transform.any_op -> !transform.param<i64>\n    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>\n    transform.iree.match.dims_equal %m, [{m}] : !transform.param<i64>\n    transform.iree.match.dims_equal %n, [{n}] : !transform.param<i64>\n    transform.iree.match.dims_equal %k, [{k}] : !transform.param<i64>\n"
            )
        }
    };
    format!(
        "{head}{checks}    %config = transform.param.constant {config} -> !transform.any_param\n    transform.yield %op, %config : !transform.any_op, !transform.any_param\n  }}\n"
    )
}

/// Spec file `file` of the library: `per_file` matchers of one form each (the forms rotate
/// with the file, so a shape's named-op matcher comes before its contraction matcher in one
/// file and after it in another), over the payload's shapes and shapes it lacks.
fn spec(backend: Backend, file: usize, per_file: usize) -> String {
    let mut text = String::from(
        "module attributes {iree_codegen.tuning_spec_with_default_entrypoint, transform.with_named_sequence} {\n",
    );
    let mut pairs = Vec::new();
    for slot in 0..per_file {
        let id = file * per_file + slot;
        let form = match (slot + file) % 4 {
            0 => Form::NamedOp,
            1 => Form::Contraction(Layout::TransposedB),
            2 => Form::GenericOp,
            _ => Form::Contraction(Layout::Named),
        };
        // Four forms per shape; odd-indexed shapes off by 16 in m (they fire on no op).
        let index = slot / 4 % SHAPES.len();
        let (m, n, k) = SHAPES[index];
        let shape = if index % 2 == 1 {
            (m + 16, n, k)
        } else {
            (m, n, k)
        };
        let name = format!("match_{file}_{slot}");
        text.push_str(&matcher(&name, form, shape, &config(backend, id)));
        pairs.push(name);
    }
    text.push_str("  transform.named_sequence @apply_op_config(%op: !transform.any_op {transform.readonly}, %config: !transform.any_param {transform.readonly}) {\n    transform.annotate %op \"compilation_info\" = %config : !transform.any_op, !transform.any_param\n    transform.yield\n  }\n");
    let list: Vec<String> = pairs
        .iter()
        .map(|name| format!("@{name} -> @apply_op_config"))
        .collect();
    let _ = write!(
        text,
        "  transform.named_sequence @__kernel_config(%root: !transform.any_op {{transform.consumed}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{\n    %res = transform.foreach_match in %root\n        {} : (!transform.any_op) -> !transform.any_op\n    transform.yield %res : !transform.any_op\n  }}\n}}\n",
        list.join(",\n        ")
    );
    text
}

const FILES: usize = 3;
const PER_FILE: usize = 4 * SHAPES.len();

/// Writes the library's spec files and a registry that defines a target for `backend`
/// (`diff_cpu` with backend llvm-cpu; the hip run uses the embedded gfx942).
fn write_library(dir: &Path, backend: Backend) {
    std::fs::create_dir_all(dir.join("specs")).unwrap();
    for file in 0..FILES {
        std::fs::write(
            dir.join(format!("specs/s{file}.mlir")),
            spec(backend, file, PER_FILE),
        )
        .unwrap();
    }
    std::fs::write(
        dir.join("registry.toml"),
        "schema = 1\n[targets.diff_cpu]\ndescription = \"a CPU target of the pruning differential\"\nbackend = \"llvm-cpu\"\nspecs = [\"specs/*.mlir\"]\n[extend.gfx942]\nspecs = [\"specs/*.mlir\"]\n",
    )
    .unwrap();
}

/// `tunespec attach` of the library onto the payload; its note (stderr).
fn attach(dir: &Path, library: &[String], extra: &[&str], out: &str) -> String {
    let output = tunespec_command()
        .args(["attach", "--no-default"])
        .args(library)
        .args(extra)
        .arg(dir.join("payload.mlir"))
        .arg("-o")
        .arg(dir.join(out))
        .output()
        .unwrap();
    let note = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{note}");
    note
}

/// The configs IREE put on each dispatch: executable name -> its config lines (printed in
/// local scope, so no alias numbering differs between two compiles).
pub(crate) fn dispatch_configs(
    compile: &Path,
    backend: Backend,
    payload: &Path,
) -> BTreeMap<String, String> {
    let flags: &[&str] = match backend {
        Backend::Cpu => &[
            "--iree-hal-target-device=local",
            "--iree-hal-local-target-device-backends=llvm-cpu",
        ],
        Backend::Hip => &["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"],
    };
    let output = output_with_timeout(
        Command::new(compile)
            .args(flags)
            .args([
                "--compile-to=executable-configurations",
                "--mlir-print-local-scope",
                "-o",
                "-",
            ])
            .arg(payload),
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    let mut configs = BTreeMap::new();
    let mut current = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(rest) = trimmed.strip_prefix("hal.executable private @") {
            current = rest.split([' ', '{']).next().unwrap_or("").to_string();
        }
        if trimmed.contains("lowering_config") || trimmed.contains("translation_info") {
            let entry: &mut String = configs.entry(current.clone()).or_default();
            entry.push_str(trimmed);
            entry.push('\n');
        }
    }
    configs
}

fn kept(note: &str) -> (usize, usize) {
    let rest = note
        .split("attached ")
        .nth(1)
        .unwrap_or_else(|| panic!("{note}"));
    let mut words = rest.split(' ');
    let kept = words.next().unwrap().parse().unwrap();
    let total = words.nth(1).unwrap().parse().unwrap();
    (kept, total)
}

/// The pruning of one backend's library, with and without `--target`, against the whole
/// library, dispatch by dispatch.
fn differential(backend: Backend) {
    let Some(compile) = iree_compile() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (text, configured) = payload(16);
    std::fs::write(dir.path().join("payload.mlir"), text).unwrap();
    let library = dir.path().join("library");
    write_library(&library, backend);
    let files: Vec<String> = (0..FILES)
        .flat_map(|file| {
            [
                "--spec".to_string(),
                library
                    .join(format!("specs/s{file}.mlir"))
                    .display()
                    .to_string(),
            ]
        })
        .collect();
    let target = match backend {
        Backend::Cpu => "diff_cpu",
        Backend::Hip => "gfx942",
    };
    let targeted = [
        "--spec".to_string(),
        library.display().to_string(),
        "--target".to_string(),
        target.to_string(),
    ];
    let runs = [
        ("no target", &files[..], "whole.mlir", "pruned.mlir"),
        ("--target", &targeted[..], "whole_t.mlir", "pruned_t.mlir"),
    ];
    let mut kept_without_target = 0;
    for (what, args, whole, pruned) in runs {
        attach(dir.path(), args, &["--keep-all"], whole);
        let note = attach(dir.path(), args, &[], pruned);
        let (kept, total) = kept(&note);
        assert_eq!(total, FILES * PER_FILE, "{what}: {note}");
        assert!(kept < total, "{what}: nothing was pruned: {note}");
        // The counts add up: each left-out pair had its own matcher.
        assert!(
            note.contains(&format!("left out with them: {} matcher(s)", total - kept)),
            "{what}: {note}"
        );
        if what == "no target" {
            kept_without_target = kept;
        } else {
            assert!(
                kept <= kept_without_target,
                "{what}: a target's view keeps no more than every view: {note}"
            );
        }
        let expected = dispatch_configs(&compile, backend, &dir.path().join(whole));
        let got = dispatch_configs(&compile, backend, &dir.path().join(pruned));
        // The library configures the payload in IREE's compile (else this would test nothing):
        // every dispatch of an op with a matcher's shape has one of the library's configs.
        let marker = match backend {
            Backend::Cpu => "vector_common_parallel = [4, 8, 0]",
            Backend::Hip => "workgroup_size = [64, 4, 1]",
        };
        let ours = expected
            .values()
            .filter(|lines| lines.contains(marker))
            .count();
        assert_eq!(
            ours, configured,
            "{what}: dispatches configured by the library: {expected:#?}"
        );
        let differing: std::collections::BTreeSet<&String> = expected
            .keys()
            .chain(got.keys())
            .filter(|name| expected.get(*name) != got.get(*name))
            .collect();
        assert!(
            differing.is_empty(),
            "{what}: {} of {} dispatches differ: {differing:?}\n{note}",
            differing.len(),
            expected.len()
        );
    }
    explain_agrees(backend, dir.path(), &library);
    if backend == Backend::Cpu {
        let iree = dispatch_configs(&compile, backend, &dir.path().join("whole_t.mlir"));
        apply_as_dispatch_agrees(dir.path(), &library, &iree);
    }
}

/// The `distribution` tile sizes of a CPU lowering config in `line`.
fn distribution(line: &str) -> Option<&str> {
    let start = line.find("distribution = [")? + "distribution = ".len();
    let end = start + line[start..].find(']')? + 1;
    Some(&line[start..end])
}

/// `apply --as-dispatch` for the CPU target keeps `linalg.matmul` named, as IREE's llvm-cpu
/// dispatches do, and gives each named matmul the config IREE's compile gives its dispatch
/// (`iree`: the whole library's compile for the target), shape by shape.
fn apply_as_dispatch_agrees(dir: &Path, library: &Path, iree: &BTreeMap<String, String>) {
    let output = tunespec_command()
        .args([
            "apply",
            "--as-dispatch",
            "--no-default",
            "--target",
            "diff_cpu",
            "--spec",
        ])
        .arg(library)
        .arg(dir.join("payload.mlir"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let applied = String::from_utf8_lossy(&output.stdout);
    let mut predicted = std::collections::BTreeSet::new();
    for line in applied
        .lines()
        .filter(|line| line.contains("= linalg.matmul"))
    {
        // `outs(%acc : tensor<MxNxf32>)` and `ins(%a, %b : tensor<MxKxf32>, ...)`.
        let types: Vec<&str> = line.split("tensor<").skip(1).collect();
        let dims = |at: usize| types.get(at).and_then(|t| t.split("xf32").next());
        let (Some(lhs), Some(out)) = (dims(0), dims(2)) else {
            panic!("{line}");
        };
        let k = lhs.rsplit('x').next().unwrap();
        if let Some(tiles) = distribution(line) {
            predicted.insert((format!("{out}x{k}"), tiles.to_string()));
        }
    }
    let mut compiled = std::collections::BTreeSet::new();
    for lines in iree.values() {
        // The dispatch function is named for its root: `..._matmul_MxNxK_f32` for a named
        // matmul (`matmul_like_` for a generic one).
        let Some(shape) = lines
            .split("_matmul_")
            .nth(1)
            .and_then(|rest| rest.split("_f32(").next())
        else {
            continue;
        };
        let matmul = lines.lines().find(|line| line.contains("linalg.matmul"));
        if let Some(tiles) = matmul.and_then(distribution) {
            if lines.contains("vector_common_parallel = [4, 8, 0]") {
                compiled.insert((shape.to_string(), tiles.to_string()));
            }
        }
    }
    assert!(!compiled.is_empty(), "{iree:#?}");
    assert!(
        compiled.is_subset(&predicted),
        "IREE: {compiled:?}\napply --as-dispatch: {predicted:?}\n{applied}"
    );
}

/// `explain --exact` on the same payload and library for the backend's target: tunespec's
/// prediction of every op (named ops kept on llvm-cpu, generalized on hip) is what IREE's
/// compile gives it.
fn explain_agrees(backend: Backend, dir: &Path, library: &Path) {
    let Some(venv) = crate::iree_library::venv() else {
        return;
    };
    let target = match backend {
        Backend::Cpu => "diff_cpu",
        Backend::Hip => "gfx942",
    };
    let output = output_with_timeout(
        crate::iree_library::with_iree(&venv)
            .args(["explain", "--exact", "--no-default", "--format", "short"])
            .args(["--target", target, "--spec"])
            .arg(library)
            .arg(dir.join("payload.mlir")),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{output:?}");
    let summary = stdout
        .lines()
        .find(|line| line.contains("predicted config(s) checked equal"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(summary.contains(", 0 differ"), "{summary}");
    assert!(!summary.starts_with("0 of"), "{summary}");
}

#[test]
fn pruning_changes_no_dispatch_of_the_llvm_cpu_compile() {
    differential(Backend::Cpu);
}

#[test]
fn pruning_changes_no_dispatch_of_the_hip_compile() {
    differential(Backend::Hip);
}
