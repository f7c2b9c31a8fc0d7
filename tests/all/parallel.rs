//! Linking on several threads sharing one MLIR context: the result (library, pairs, every
//! problem with its file and position) must not depend on the number of threads or their
//! timing. Problems are the sharp edge: MLIR reports them through one handler per context, and
//! each must land with the input that caused it, including the verifier's, which MLIR emits
//! from its own thread pool.

use tunespec::link::{link, LinkInput, LinkOptions, Role};
use tunespec::mlir::Mlir;

/// A merge-ready spec of `matchers` matchers whose names clash with every other spec's
/// (`@match_0`, ...); `salt` makes its matchers differ. `broken` puts one mistake of the given
/// kind in its last matcher (the parser then has the
/// whole spec to destroy after the error: a long window for another thread's diagnostics).
fn spec(module: &str, matchers: usize, salt: usize, broken: Option<Broken>) -> String {
    let mut body = String::new();
    let mut pairs = Vec::new();
    for index in 0..matchers {
        let size = 16 + index + salt * 10_000;
        let constant = match broken {
            Some(Broken::Dominance) if index + 1 == matchers => {
                // Parses; MLIR's verifier rejects it (a use before its definition), and reports
                // it from its thread pool.
                format!(
                    "%x = transform.merge_handles %y : !transform.any_op\n    %y = transform.merge_handles %op : !transform.any_op\n    %tag = transform.param.constant \"t{size}\" -> !transform.any_param"
                )
            }
            _ => format!(r#"%tag = transform.param.constant "t{size}" -> !transform.any_param"#),
        };
        let operation = match broken {
            Some(Broken::Parse) if index + 1 == matchers => {
                "transform.match.operation_name %op [".to_string()
            }
            _ => r#"transform.match.operation_name %op ["linalg.matmul"] : !transform.any_op"#
                .to_string(),
        };
        body.push_str(&format!(
            r#"  transform.named_sequence @match_{index}(%op: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) {{
    {operation}
    %p = transform.param.constant {size} : i64 -> !transform.param<i64>
    {constant}
    transform.yield %op, %tag : !transform.any_op, !transform.any_param
  }}
"#
        ));
        pairs.push(format!("@match_{index} -> @apply_op_config"));
    }
    let entry_arg = match broken {
        // tunespec's own rule: IREE's entry point must consume its argument.
        Some(Broken::Rule) => "transform.readonly",
        _ => "transform.consumed",
    };
    format!(
        r#"module @{module} attributes {{transform.with_named_sequence, iree_codegen.tuning_spec_with_default_entrypoint}} {{
{body}  transform.named_sequence @apply_op_config(%op: !transform.any_op {{transform.readonly}}, %tag: !transform.any_param {{transform.readonly}}) {{
    transform.annotate %op "compilation_info" = %tag : !transform.any_op, !transform.any_param
    transform.yield
  }}
  transform.named_sequence @__kernel_config(%arg: !transform.any_op {{{entry_arg}}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{
    %r = transform.foreach_match in %arg {} : (!transform.any_op) -> !transform.any_op
    transform.yield %r : !transform.any_op
  }}
}}
"#,
        pairs.join(", ")
    )
}

#[derive(Clone, Copy)]
enum Broken {
    Parse,
    Dominance,
    Rule,
}

/// `count` specs; the broken ones have `big` matchers, the others 4 (many short parses around
/// each long one).
fn inputs(count: usize, big: usize, broken: &[(usize, Broken)]) -> Vec<LinkInput> {
    (0..count)
        .map(|index| {
            let broken = broken
                .iter()
                .find(|(at, _)| *at == index)
                .map(|(_, kind)| *kind);
            let matchers = if broken.is_some() { big } else { 4 };
            LinkInput::new(
                format!("spec_{index}.mlir"),
                spec(&format!("s{index}"), matchers, index, broken).into_bytes(),
                Role::User,
            )
        })
        .collect()
}

/// Everything a link reports, as text: the printed library or every problem.
fn outcome(inputs: &[LinkInput], threads: usize) -> String {
    let mlir = Mlir::new_threaded();
    let options = LinkOptions {
        threads: Some(threads),
        ..LinkOptions::default()
    };
    let text = match link(&mlir, inputs, options) {
        Ok(linked) => format!(
            "{}\n{:?}\n{:?}",
            linked.module.print_file(),
            linked.pairs,
            linked.problems
        ),
        Err(problems) => format!("{problems:#?}"),
    };
    text
}

#[test]
fn a_link_on_several_threads_equals_the_link_on_one() {
    let specs: Vec<LinkInput> = (0..6)
        .map(|index| {
            LinkInput::new(
                format!("spec_{index}.mlir"),
                spec(&format!("s{index}"), 60, index, None).into_bytes(),
                Role::User,
            )
        })
        .collect();
    let inputs = &specs;
    let one = outcome(inputs, 1);
    assert_eq!(
        one.matches("transform.named_sequence @match_").count(),
        6 * 60,
        "every matcher linked, the clashing names renamed"
    );
    for threads in [2, 3, 8] {
        assert!(
            outcome(inputs, threads) == one,
            "{threads} threads differ from one"
        );
    }
}

#[test]
fn every_problem_stays_with_its_own_input_on_any_number_of_threads() {
    let broken = [
        (1, Broken::Parse),
        (6, Broken::Dominance),
        (11, Broken::Parse),
        (16, Broken::Dominance),
        (21, Broken::Rule),
    ];
    let inputs = inputs(24, 400, &broken);
    let mlir = Mlir::new_threaded();
    let sequential = link(
        &mlir,
        &inputs,
        LinkOptions {
            threads: Some(1),
            ..LinkOptions::default()
        },
    )
    .err()
    .expect("broken inputs fail the link");
    // Each broken input reports in its own file, and only there.
    for (index, _) in &broken {
        let file = format!("spec_{index}.mlir");
        assert!(
            sequential.iter().any(|problem| problem.is_error()
                && problem.loc.as_ref().is_some_and(|loc| loc.file == file)),
            "no error in {file}: {sequential:#?}"
        );
    }
    for clean in [0, 3, 7, 12, 23] {
        let file = format!("spec_{clean}.mlir");
        assert!(
            !sequential
                .iter()
                .any(|problem| problem.loc.as_ref().is_some_and(|loc| loc.file == file)),
            "a problem in the clean {file}: {sequential:#?}"
        );
    }
    let expected = format!("{sequential:#?}");
    // Several rounds: a misrouted diagnostic depends on timing.
    for round in 0..6 {
        for threads in [2, 4, 7] {
            let got = outcome(&inputs, threads);
            assert!(
                got == expected,
                "round {round}, {threads} threads:\n{got}\n--- one thread:\n{expected}"
            );
        }
    }
}

#[test]
fn link_jobs_on_the_command_line_give_the_same_library() {
    let dir = tempfile::tempdir().unwrap();
    let specs = dir.path().join("specs");
    std::fs::create_dir(&specs).unwrap();
    // Over the size where the linker goes parallel by itself (1 MiB).
    for index in 0..4 {
        let text = spec(&format!("s{index}"), 900, index, None);
        std::fs::write(specs.join(format!("spec_{index}.mlir")), text).unwrap();
    }
    let mut outputs = Vec::new();
    for jobs in [None, Some("1"), Some("2"), Some("5")] {
        let mut command = crate::support::tunespec_command();
        // Every run links (a cache hit would print the first run's library).
        command.env("TUNESPEC_CACHE", "off");
        command.args(["link", "--no-default", "--spec"]).arg(&specs);
        if let Some(jobs) = jobs {
            command.args(["-j", jobs]);
        }
        let output = crate::support::run(&mut command);
        assert!(output.status.success(), "{jobs:?}: {output:?}");
        outputs.push(output.stdout);
    }
    assert!(outputs[0].len() > 1 << 20, "the library is over 1 MiB");
    for (index, output) in outputs.iter().enumerate().skip(1) {
        assert!(*output == outputs[0], "output {index} differs");
    }
    let mut zero = crate::support::tunespec_command();
    zero.args(["link", "--no-default", "-j", "0", "--spec"])
        .arg(&specs);
    let refused = zero.output().unwrap();
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
}
