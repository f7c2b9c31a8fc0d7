//! Differential tests of `link`: applying the linked library with mlir-opt's transform
//! interpreter must give, op by op, the annotation that the inputs give when applied one by one
//! in priority order (first match wins within merged specs; included specs run in sequence).

use std::path::{Path, PathBuf};
use std::process::Command;

use tunespec::link::{link, LinkInput, LinkOptions, Role};
use tunespec::mlir::Mlir;

use crate::reference::{iree_opt, mlir_opt};

/// The payload: one op of each kind the test specs match, plus one nothing matches.
const PAYLOAD: &str = r#"func.func @f(%a: tensor<8x8xf32>, %b: tensor<2x8x8xf32>, %s: f32) -> (tensor<8x8xf32>, tensor<2x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %fill = linalg.fill ins(%s : f32) outs(%a : tensor<8x8xf32>) -> tensor<8x8xf32>
  %mm = linalg.matmul ins(%a, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%fill : tensor<8x8xf32>) -> tensor<8x8xf32>
  %bmm = linalg.batch_matmul ins(%b, %b : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%b : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %t = linalg.transpose ins(%a : tensor<8x8xf32>) outs(%a : tensor<8x8xf32>) permutation = [1, 0]
  %add = linalg.add ins(%a, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%a : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %mm, %bmm, %t, %add : tensor<8x8xf32>, tensor<2x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
"#;

/// A matcher that matches ops named `op` and yields `tag`.
fn matcher(name: &str, op: &str, tag: &str) -> String {
    format!(
        r#"  transform.named_sequence @{name}(%op: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) {{
    transform.match.operation_name %op ["{op}"] : !transform.any_op
    %tag = transform.param.constant "{tag}" -> !transform.any_param
    transform.yield %op, %tag : !transform.any_op, !transform.any_param
  }}
"#
    )
}

/// A matcher that delegates the op check to `helper` through `transform.include`.
fn matcher_via_helper(name: &str, helper: &str, tag: &str) -> String {
    format!(
        r#"  transform.named_sequence @{name}(%op: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) {{
    transform.include @{helper} failures(propagate) (%op) : (!transform.any_op) -> ()
    %tag = transform.param.constant "{tag}" -> !transform.any_param
    transform.yield %op, %tag : !transform.any_op, !transform.any_param
  }}
"#
    )
}

fn helper(name: &str, op: &str) -> String {
    format!(
        r#"  transform.named_sequence @{name}(%op: !transform.any_op {{transform.readonly}}) {{
    transform.match.operation_name %op ["{op}"] : !transform.any_op
    transform.yield
  }}
"#
    )
}

fn action(name: &str) -> String {
    format!(
        r#"  transform.named_sequence @{name}(%op: !transform.any_op {{transform.readonly}}, %tag: !transform.any_param {{transform.readonly}}) {{
    transform.annotate %op "compilation_info" = %tag : !transform.any_op, !transform.any_param
    transform.yield
  }}
"#
    )
}

/// A merge-ready spec from its body and its (matcher, action) pairs.
fn merge_ready(module: &str, body: &str, pairs: &[(&str, &str)]) -> String {
    let list = pairs
        .iter()
        .map(|(m, a)| format!("@{m} -> @{a}"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        r#"module @{module} attributes {{transform.with_named_sequence, iree_codegen.tuning_spec_with_default_entrypoint}} {{
{body}  transform.named_sequence @__kernel_config(%arg: !transform.any_op {{transform.consumed}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{
    %r = transform.foreach_match in %arg {list} : (!transform.any_op) -> !transform.any_op
    transform.yield %r : !transform.any_op
  }}
}}
"#
    )
}

/// A spec that is not merge-ready: its entry point reads its argument only (readonly) and
/// annotates every `op` it collects with `tag`.
fn include_only(module: &str, op: &str, tag: &str) -> String {
    format!(
        r#"module @{module} attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @pick(%op: !transform.any_op {{transform.readonly}}) -> !transform.any_op {{
    transform.match.operation_name %op ["{op}"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }}
  transform.named_sequence @__kernel_config(%arg: !transform.any_op {{transform.readonly}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{
    %ops = transform.collect_matching @pick in %arg : (!transform.any_op) -> !transform.any_op
    %tag = transform.param.constant "{tag}" -> !transform.any_param
    transform.annotate %ops "compilation_info" = %tag : !transform.any_op, !transform.any_param
    transform.yield %arg : !transform.any_op
  }}
}}
"#
    )
}

struct Tools {
    mlir_opt: PathBuf,
    dir: tempfile::TempDir,
}

impl Tools {
    fn new() -> Option<Self> {
        Some(Tools {
            mlir_opt: mlir_opt()?,
            dir: tempfile::tempdir().expect("temp dir"),
        })
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path
    }

    /// Per payload op (in order), the `compilation_info` tag the library gives, via mlir-opt.
    fn apply(&self, library: &Path) -> Vec<Option<String>> {
        let payload = self.write("payload.mlir", PAYLOAD);
        let output = Command::new(&self.mlir_opt)
            .arg("--allow-unregistered-dialect")
            .arg(format!(
                "--transform-preload-library=transform-library-paths={}",
                library.display()
            ))
            .arg("--transform-interpreter=entry-point=__kernel_config")
            .arg(&payload)
            .output()
            .expect("mlir-opt runs");
        assert!(
            output.status.success(),
            "mlir-opt failed on {}:\n{}",
            library.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout)
            .expect("utf-8")
            .lines()
            .filter(|line| line.contains("= linalg."))
            .map(|line| {
                line.split("compilation_info = \"")
                    .nth(1)
                    .and_then(|rest| rest.split('"').next())
                    .map(str::to_string)
            })
            .collect()
    }
}

/// Links `specs` (priority order) with tunespec and returns the linked library's text.
fn link_texts(
    specs: &[(&str, &str)],
    options: LinkOptions,
) -> (String, Vec<tunespec::problem::Problem>) {
    let mlir = Mlir::new();
    let inputs: Vec<LinkInput> = specs
        .iter()
        .map(|(name, text)| LinkInput {
            name: name.to_string(),
            location: name.to_string(),
            bytes: text.as_bytes().to_vec(),
            role: Role::User,
        })
        .collect();
    let result = match link(&mlir, &inputs, options) {
        Ok(linked) => {
            // `link` prints text from the linked module (no bytecode round trip): it must be
            // what MLIR prints for the bytecode form.
            if let Some(mlir_opt) = mlir_opt() {
                let dir = tempfile::tempdir().expect("temp dir");
                let path = dir.path().join("linked.mlirbc");
                std::fs::write(&path, linked.module.to_bytecode().expect("bytecode")).unwrap();
                let output = Command::new(mlir_opt)
                    .arg("--allow-unregistered-dialect")
                    .arg(&path)
                    .output()
                    .expect("mlir-opt runs");
                assert!(output.status.success(), "{output:?}");
                assert_eq!(
                    String::from_utf8(output.stdout).unwrap(),
                    linked.module.print_file(),
                    "text printed from the module differs from mlir-opt's print of its bytecode"
                );
            }
            (linked.module.print(), linked.problems)
        }
        Err(problems) => panic!("link failed: {problems:#?}"),
    };
    result
}

/// The reference semantics: merged specs in a run are first-match-wins; an included spec
/// overwrites; segments apply in order. `merged[i]` says whether spec i is merge-ready.
fn expected(tools: &Tools, specs: &[(&str, &str)], merged: &[bool]) -> Vec<Option<String>> {
    let per_spec: Vec<Vec<Option<String>>> = specs
        .iter()
        .map(|(name, text)| tools.apply(&tools.write(&format!("{name}.single.mlir"), text)))
        .collect();
    let ops = PAYLOAD.matches("= linalg.").count();
    let mut state: Vec<Option<String>> = vec![None; ops];
    let mut index = 0;
    while index < specs.len() {
        if merged[index] {
            let mut run_end = index;
            while run_end < specs.len() && merged[run_end] {
                run_end += 1;
            }
            for op in 0..ops {
                if let Some(tag) = (index..run_end).find_map(|spec| per_spec[spec][op].clone()) {
                    state[op] = Some(tag);
                }
            }
            index = run_end;
        } else {
            for op in 0..ops {
                if let Some(tag) = per_spec[index][op].clone() {
                    state[op] = Some(tag);
                }
            }
            index += 1;
        }
    }
    state
}

fn check_link(specs: &[(&str, &str)], merged: &[bool]) -> String {
    let Some(tools) = Tools::new() else {
        return String::new();
    };
    let (linked, _) = link_texts(specs, LinkOptions::default());
    let library = tools.write("linked.mlir", &linked);
    let actual = tools.apply(&library);
    assert_eq!(
        actual,
        expected(&tools, specs, merged),
        "linked library:\n{linked}"
    );
    linked
}

fn spec_a() -> String {
    merge_ready(
        "a",
        &[
            action("apply"),
            helper("helper", "linalg.matmul"),
            matcher_via_helper("match", "helper", "a.matmul"),
            matcher("match_fill", "linalg.fill", "a.fill"),
        ]
        .concat(),
        &[("match", "apply"), ("match_fill", "apply")],
    )
}

fn spec_b() -> String {
    // Same names as spec A, different meaning: @helper matches fill here.
    merge_ready(
        "b",
        &[
            action("apply"),
            helper("helper", "linalg.batch_matmul"),
            matcher_via_helper("match", "helper", "b.batch_matmul"),
            matcher("match_fill", "linalg.fill", "b.fill"),
            matcher("match_add", "linalg.add", "b.add"),
        ]
        .concat(),
        &[
            ("match", "apply"),
            ("match_fill", "apply"),
            ("match_add", "apply"),
        ],
    )
}

#[test]
fn collisions_of_matcher_action_and_helper_names_rename_every_use() {
    let linked = check_link(
        &[("a.mlir", &spec_a()), ("b.mlir", &spec_b())],
        &[true, true],
    );
    if linked.is_empty() {
        return;
    }
    // IREE's bug: B's matcher must call B's helper, renamed, not A's.
    assert!(
        linked.contains("transform.include @helper_0 failures(propagate)"),
        "{linked}"
    );
    assert!(linked.contains("@match_0 -> @apply_0"), "{linked}");
}

#[test]
fn specs_that_already_carry_suffixed_names() {
    let a = merge_ready(
        "a",
        &[
            action("apply"),
            matcher("match", "linalg.fill", "a.fill"),
            matcher("match_0", "linalg.add", "a.add"),
        ]
        .concat(),
        &[("match", "apply"), ("match_0", "apply")],
    );
    let b = merge_ready(
        "b",
        &[
            action("apply_0"),
            action("apply"),
            matcher("match", "linalg.matmul", "b.matmul"),
            matcher("match_1", "linalg.transpose", "b.transpose"),
        ]
        .concat(),
        &[("match", "apply"), ("match_1", "apply_0")],
    );
    let linked = check_link(&[("a.mlir", &a), ("b.mlir", &b)], &[true, true]);
    if linked.is_empty() {
        return;
    }
    // `match` clashes; `match_0` and `match_1` are taken by the inputs, so it becomes `match_2`.
    assert!(linked.contains("@match_2 -> @apply_1"), "{linked}");
}

#[test]
fn non_sequence_symbols_are_renamed_with_their_uses() {
    let with_global = |module: &str, tag: &str| {
        merge_ready(
            module,
            &[
                "  memref.global \"private\" constant @table : memref<2xi32> = dense<[1, 2]>\n".to_string(),
                action("apply"),
                format!(
                    r#"  transform.named_sequence @match(%op: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) {{
    transform.match.operation_name %op ["linalg.fill"] : !transform.any_op
    %unused = transform.param.constant @table -> !transform.any_param
    %tag = transform.param.constant "{tag}" -> !transform.any_param
    transform.yield %op, %tag : !transform.any_op, !transform.any_param
  }}
"#
                ),
            ]
            .concat(),
            &[("match", "apply")],
        )
    };
    let linked = check_link(
        &[
            ("a.mlir", &with_global("a", "a.fill")),
            ("b.mlir", &with_global("b", "b.fill")),
        ],
        &[true, true],
    );
    if linked.is_empty() {
        return;
    }
    assert!(
        linked.contains("memref.global \"private\" constant @table_0"),
        "{linked}"
    );
    assert!(
        linked.contains("transform.param.constant @table_0"),
        "{linked}"
    );
}

#[test]
fn relinking_a_linked_library_gives_the_same_annotations() {
    let Some(tools) = Tools::new() else { return };
    let c = merge_ready(
        "c",
        &[
            action("apply"),
            matcher("match_t", "linalg.transpose", "c.transpose"),
            matcher("match_fill", "linalg.fill", "c.fill"),
        ]
        .concat(),
        &[("match_t", "apply"), ("match_fill", "apply")],
    );
    let (ab, _) = link_texts(
        &[("a.mlir", &spec_a()), ("b.mlir", &spec_b())],
        LinkOptions::default(),
    );
    let (ab_c, _) = link_texts(&[("ab.mlir", &ab), ("c.mlir", &c)], LinkOptions::default());
    let (abc, _) = link_texts(
        &[("a.mlir", &spec_a()), ("b.mlir", &spec_b()), ("c.mlir", &c)],
        LinkOptions::default(),
    );
    let relinked = tools.apply(&tools.write("ab_c.mlir", &ab_c));
    assert_eq!(relinked, tools.apply(&tools.write("abc.mlir", &abc)));
    assert_eq!(
        relinked,
        expected(
            &tools,
            &[("a", &spec_a()), ("b", &spec_b()), ("c", &c)],
            &[true, true, true]
        )
    );
    // Relinking the result with its own inputs adds nothing that can fire.
    let (again, problems) = link_texts(
        &[("ab.mlir", &ab), ("a.mlir", &spec_a())],
        LinkOptions {
            dedupe: true,
            ..LinkOptions::default()
        },
    );
    assert!(problems
        .iter()
        .any(|p| p.code == tunespec::link::codes::SHADOWED));
    // Everything in `ab` that can fire stays: all its pairs but b's fill matcher, which a's
    // (same op, by key) shadows already in `ab`.
    assert_eq!(
        again.matches(" -> @").count(),
        ab.matches(" -> @").count() - 1,
        "--dedupe drops the shadowed pairs:\n{again}"
    );
}

#[test]
fn mixed_merge_and_include_inputs_keep_priority_order() {
    let n = include_only("n", "linalg.fill", "n.fill");
    let linked = check_link(
        &[("a.mlir", &spec_a()), ("n.mlir", &n), ("b.mlir", &spec_b())],
        &[true, false, true],
    );
    if linked.is_empty() {
        return;
    }
    assert!(
        linked.contains("transform.include @n::@__kernel_config failures(suppress)"),
        "{linked}"
    );
    assert!(
        !linked.contains("tuning_spec_with_default_entrypoint"),
        "{linked}"
    );
}

#[test]
fn readonly_and_consumed_entry_points_mix() {
    // Both inputs readonly: the linked entry reads its argument only.
    let n = include_only("n", "linalg.fill", "n.fill");
    let m = include_only("m", "linalg.add", "m.add");
    let linked = check_link(&[("n.mlir", &n), ("m.mlir", &m)], &[false, false]);
    if linked.is_empty() {
        return;
    }
    assert!(
        linked.contains("%arg0: !transform.any_op {transform.readonly}"),
        "{linked}"
    );
    // A consuming input (foreach_match) makes the linked entry consume.
    let linked = check_link(&[("n.mlir", &n), ("a.mlir", &spec_a())], &[false, true]);
    assert!(
        linked.contains("%arg0: !transform.any_op {transform.consumed}"),
        "{linked}"
    );
}

#[test]
fn one_spec_and_zero_specs() {
    check_link(&[("a.mlir", &spec_a())], &[true]);
    check_link(&[], &[]);
}

#[test]
fn identical_inputs_are_linked_once_with_a_warning() {
    let (linked, problems) = link_texts(
        &[("a.mlir", &spec_a()), ("copy.mlir", &spec_a())],
        LinkOptions::default(),
    );
    assert!(problems.iter().any(
        |p| p.code == tunespec::link::codes::DUPLICATE_INPUT && p.message.contains("copy.mlir")
    ));
    assert_eq!(linked.matches(" -> @").count(), 2, "{linked}");
}

#[test]
fn link_is_deterministic() {
    let specs = [("a.mlir", spec_a()), ("b.mlir", spec_b())];
    let specs: Vec<(&str, &str)> = specs.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let (first, _) = link_texts(&specs, LinkOptions::default());
    let (second, _) = link_texts(&specs, LinkOptions::default());
    assert_eq!(first, second);
}

#[test]
fn linked_output_verifies_in_iree_opt_and_matches_iree_link_pass() {
    let Some(iree_opt) = iree_opt() else { return };
    let Some(tools) = Tools::new() else { return };
    // Inputs without the include-renaming trap (where IREE is not buggy).
    let a = merge_ready(
        "a",
        &[
            action("apply"),
            matcher("match", "linalg.fill", "a.fill"),
            matcher("match_mm", "linalg.matmul", "a.matmul"),
        ]
        .concat(),
        &[("match", "apply"), ("match_mm", "apply")],
    );
    let b = merge_ready(
        "b",
        &[
            action("apply"),
            matcher("match", "linalg.fill", "b.fill"),
            matcher("match_add", "linalg.add", "b.add"),
        ]
        .concat(),
        &[("match", "apply"), ("match_add", "apply")],
    );
    let (linked, _) = link_texts(&[("a.mlir", &a), ("b.mlir", &b)], LinkOptions::default());
    let ours = tools.write("ours.mlir", &linked);
    let parsed = Command::new(&iree_opt)
        .arg(&ours)
        .arg("-o")
        .arg("/dev/null")
        .output()
        .unwrap();
    assert!(
        parsed.status.success(),
        "{}",
        String::from_utf8_lossy(&parsed.stderr)
    );
    // IREE links specs nested in one module.
    let strip = |text: &str| text.to_string();
    let nested = tools.write(
        "nested.mlir",
        &format!(
            "module attributes {{transform.with_named_sequence}} {{\n{}\n{}\n}}\n",
            strip(&a),
            strip(&b)
        ),
    );
    let output = Command::new(&iree_opt)
        .arg("--iree-codegen-link-tuning-specs")
        .arg(&nested)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let theirs = tools.write("theirs.mlir", &String::from_utf8(output.stdout).unwrap());
    assert_eq!(tools.apply(&ours), tools.apply(&theirs));
}

#[test]
fn an_included_spec_keeps_resolving_its_own_matchers() {
    // Not merge-ready (two foreach_match in its entry): linked by include, nested, and its
    // matcher/action references must resolve inside its own module (regression: the linked
    // library was once refused by tunespec's own check as "unresolved matcher symbol").
    let two_step = r#"module @two_step attributes {transform.with_named_sequence} {
  transform.named_sequence @apply(%op: !transform.any_op {transform.readonly}, %tag: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %tag : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.add"] : !transform.any_op
    %tag = transform.param.constant "two_step.add" -> !transform.any_param
    transform.yield %op, %tag : !transform.any_op, !transform.any_param
  }
  transform.named_sequence @__kernel_config(%arg: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    %r = transform.foreach_match in %arg @match_add -> @apply : (!transform.any_op) -> !transform.any_op
    %s = transform.foreach_match in %r @match_add -> @apply : (!transform.any_op) -> !transform.any_op
    transform.yield %s : !transform.any_op
  }
}
"#;
    let linked = check_link(
        &[("a.mlir", &spec_a()), ("two_step.mlir", two_step)],
        &[true, false],
    );
    if linked.is_empty() {
        return;
    }
    assert!(
        linked.contains("transform.include @two_step::@__kernel_config"),
        "{linked}"
    );
}

/// `link --emit mlir` and `--emit mlirbc` of the same inputs, cache off.
fn link_both_forms(dir: &Path, name: &str, args: &[String]) -> (PathBuf, PathBuf) {
    let bytecode = dir.join(format!("{name}.mlirbc"));
    let text = dir.join(format!("{name}.mlir"));
    for (emit, out) in [("mlirbc", &bytecode), ("mlir", &text)] {
        let status = crate::support::tunespec_command()
            .current_dir(crate::reference::repo_root())
            .arg("link")
            .args(args)
            .args(["--emit", emit, "-o"])
            .arg(out)
            .env("TUNESPEC_CACHE", "off")
            .env("TUNESPEC_NO_CONFIG", "1")
            .env("TUNESPEC_DERIVED", "1")
            .env_remove("TUNESPEC_SPEC_PATH")
            .status()
            .unwrap();
        assert!(status.success(), "link {name} --emit {emit}");
    }
    (bytecode, text)
}

/// mlir-opt 22 cannot parse IREE's match ops, so this runs on the old default chains in upstream
/// form (tests/fixtures/specs/upstream): the text tunespec writes is exactly mlir-opt's print of
/// the bytecode tunespec writes.
#[test]
fn text_output_is_mlir_opts_print_of_the_bytecode_output_for_upstream_form_libraries() {
    let Some(mlir_opt) = mlir_opt() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let upstream = crate::reference::repo_root().join("tests/fixtures/specs/upstream");
    for (name, chain) in [
        ("gfx942", ["gfx942", "gfx9"]),
        ("gfx950", ["gfx950", "gfx9"]),
        ("sm_90", ["sm_90", "nvidia"]),
    ] {
        let mut args = vec!["--no-default".to_string()];
        for link in chain {
            args.push("--spec".to_string());
            args.push(upstream.join(link).display().to_string());
        }
        let (bytecode, text) = link_both_forms(dir.path(), name, &args);
        let printed = Command::new(&mlir_opt)
            .arg("--allow-unregistered-dialect")
            .arg(&bytecode)
            .output()
            .unwrap();
        assert!(
            printed.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&printed.stderr)
        );
        let text = std::fs::read_to_string(&text).unwrap();
        assert!(text.matches(" -> @").count() >= 24, "{name}");
        assert_eq!(String::from_utf8(printed.stdout).unwrap(), text, "{name}");
    }
}

/// The default specs (IREE's tuner form), for every default target: iree-opt reads the text and
/// the bytecode tunespec writes as the same library. (iree-opt prints IREE's attributes in its own
/// spelling, so tunespec's text is compared as iree-opt prints it.)
#[test]
fn text_and_bytecode_outputs_are_the_same_library_in_iree_opt_for_every_default_target() {
    let Some(iree_opt) = iree_opt() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // Targets with default specs along their chain (the built-in `host` has none).
    for target in tunespec::registry::targets()
        .iter()
        .filter(|target| !target.specs.is_empty() || target.fallback.is_some())
    {
        let args = ["--target".to_string(), target.name.to_string()];
        let (bytecode, text) = link_both_forms(dir.path(), target.name, &args);
        let print = |path: &Path| {
            let output = Command::new(&iree_opt)
                .arg("--mlir-print-local-scope")
                .arg(path)
                .output()
                .unwrap();
            assert!(
                output.status.success(),
                "{} {}: {}",
                target.name,
                path.display(),
                String::from_utf8_lossy(&output.stderr)
            );
            String::from_utf8(output.stdout).unwrap()
        };
        let from_text = print(&text);
        assert!(from_text.contains("transform.iree.match.contraction"));
        assert_eq!(print(&bytecode), from_text, "{}", target.name);
    }
}

/// `rename_symbols` rewrites every use of every renamed symbol at once: references in op
/// attributes, arrays and dictionaries, nested references (`@inner::@x`), the nested module's
/// own attributes; not references inside a nested symbol table (they resolve there), nor names
/// that only look alike. Swaps and chains apply to the original names. The expected text is
/// written by hand and printed by MLIR, so the comparison is byte for byte.
#[test]
fn renaming_applies_every_pair_to_the_original_names_in_one_pass() {
    let input = r#"module attributes {transform.with_named_sequence} {
  transform.named_sequence @a(%op: !transform.any_op {transform.readonly}) {
    transform.include @b failures(propagate) (%op) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @b(%op: !transform.any_op {transform.readonly}) {
    "test.uses"() {list = [@a, @b, @c], dict = {x = @c, y = [@ab]}, nested = @inner::@a} : () -> ()
    transform.yield
  }
  transform.named_sequence @c(%op: !transform.any_op {transform.readonly}) {
    transform.yield
  }
  transform.named_sequence @ab(%op: !transform.any_op {transform.readonly}) {
    transform.yield
  }
  module @inner attributes {ref = @a} {
    transform.named_sequence @a(%op: !transform.any_op {transform.readonly}) {
      "test.inner"() {ref = @a, other = @b} : () -> ()
      transform.yield
    }
  }
}
"#;
    let expected = r#"module attributes {transform.with_named_sequence} {
  transform.named_sequence @b(%op: !transform.any_op {transform.readonly}) {
    transform.include @a failures(propagate) (%op) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @a(%op: !transform.any_op {transform.readonly}) {
    "test.uses"() {list = [@b, @a, @c_0], dict = {x = @c_0, y = [@ab]}, nested = @inner_1::@a} : () -> ()
    transform.yield
  }
  transform.named_sequence @c_0(%op: !transform.any_op {transform.readonly}) {
    transform.yield
  }
  transform.named_sequence @ab(%op: !transform.any_op {transform.readonly}) {
    transform.yield
  }
  module @inner_1 attributes {ref = @b} {
    transform.named_sequence @a(%op: !transform.any_op {transform.readonly}) {
      "test.inner"() {ref = @a, other = @b} : () -> ()
      transform.yield
    }
  }
}
"#;
    let mlir = Mlir::new();
    let module = mlir
        .parse(input.as_bytes(), "in.mlir")
        .module
        .expect("parses");
    let renames: Vec<(String, String)> =
        [("a", "b"), ("b", "a"), ("c", "c_0"), ("inner", "inner_1")]
            .iter()
            .map(|(old, new)| (old.to_string(), new.to_string()))
            .collect();
    module.rename_symbols(&renames).expect("renames");
    let want = mlir
        .parse(expected.as_bytes(), "want.mlir")
        .module
        .expect("parses");
    assert_eq!(module.print(), want.print());

    // A name that is not a top-level symbol, or one given twice, changes nothing.
    let before = module.print();
    let missing = vec![
        ("ab".to_string(), "x".to_string()),
        ("nope".to_string(), "y".to_string()),
    ];
    let error = module.rename_symbols(&missing).expect_err("no @nope");
    assert!(error.contains("@nope"), "{error}");
    let twice = vec![
        ("ab".to_string(), "x".to_string()),
        ("ab".to_string(), "y".to_string()),
    ];
    assert!(module.rename_symbols(&twice).is_err());
    assert_eq!(module.print(), before);
}
