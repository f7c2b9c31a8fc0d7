//! One data-driven case per verification rule and message: `check(input, expected)`.
//!
//! `expected` lists every problem the input must produce as (code, message fragment, line); a
//! problem that is not listed fails the case, so each case pins the whole report.

use tunespec::mlir::Mlir;
use tunespec::problem::codes;
use tunespec::verify::verify_bytes;

fn check(input: &str, expected: &[(&str, &str, u32)]) {
    check_bytes(input.as_bytes(), expected)
}

fn check_bytes(input: &[u8], expected: &[(&str, &str, u32)]) {
    let mlir = Mlir::new();
    let verified = verify_bytes(&mlir, input, "case.mlir");
    let actual: Vec<(String, String, u32)> = verified
        .problems
        .iter()
        .map(|p| {
            (
                p.code.to_string(),
                p.message.clone(),
                p.loc.as_ref().map_or(0, |loc| loc.line),
            )
        })
        .collect();
    let render = || {
        actual
            .iter()
            .map(|(code, message, line)| format!("  {code} line {line}: {message}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        actual.len(),
        expected.len(),
        "expected {} problem(s), got:\n{}",
        expected.len(),
        render()
    );
    for (code, fragment, line) in expected {
        assert!(
            actual
                .iter()
                .any(|(c, m, l)| c == code && m.contains(fragment) && l == line),
            "missing {code} at line {line} containing {fragment:?}; got:\n{}",
            render()
        );
    }
}

const ACTION: &str = r#"  transform.named_sequence @apply(%op: !transform.any_op {transform.readonly}, %config: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }
"#;

const MATCHER: &str = r#"  transform.named_sequence @match_mm(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.matmul"] : !transform.any_op
    %c = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{workgroup = [64, 64, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %op, %c : !transform.any_op, !transform.any_param
  }
"#;

const ENTRY: &str = r#"  transform.named_sequence @__kernel_config(%arg: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    %r = transform.foreach_match in %arg @match_mm -> @apply : (!transform.any_op) -> !transform.any_op
    transform.yield %r : !transform.any_op
  }
"#;

const HEADER: &str = "module attributes {transform.with_named_sequence, iree_codegen.tuning_spec_with_default_entrypoint} {\n";

/// A merge-ready spec: header on line 1, action lines 2-5, matcher 6-10, entry 11-14.
fn spec(action: &str, matcher: &str, entry: &str) -> String {
    format!("{HEADER}{action}{matcher}{entry}}}\n")
}

#[test]
fn valid_spec_has_no_problems() {
    check(&spec(ACTION, MATCHER, ENTRY), &[]);
}

#[test]
fn valid_spec_facts() {
    let mlir = Mlir::new();
    let verified = verify_bytes(&mlir, spec(ACTION, MATCHER, ENTRY).as_bytes(), "case.mlir");
    let facts = verified.facts.expect("facts for a parsed spec");
    assert_eq!(facts.matcher_count, 1);
    assert!(facts.merge_ready);
    assert!(facts.entry_consumed);
    assert_eq!(facts.entry_point.as_deref(), Some("__kernel_config"));
}

#[test]
fn empty_file() {
    check("", &[(codes::EMPTY, "holds no operations", 1)]);
}

#[test]
fn comment_only_file() {
    check(
        "// just a comment\n\n// another\n",
        &[(codes::EMPTY, "holds no operations", 1)],
    );
}

#[test]
fn nul_byte_is_located() {
    check_bytes(b"module {\n  \0\n}\n", &[(codes::NUL_BYTE, "NUL byte", 2)]);
}

#[test]
fn invalid_utf8_in_comment_is_reported_and_parsing_continues() {
    let mut bytes = b"// caf\xE9\n".to_vec();
    bytes.extend_from_slice(spec(ACTION, MATCHER, ENTRY).as_bytes());
    check_bytes(&bytes, &[(codes::INVALID_UTF8, "not valid UTF-8", 1)]);
}

#[test]
fn syntax_error_is_located() {
    check(
        "module attributes {transform.with_named_sequence} {\n  transform.named_sequence @x( {\n}\n",
        &[(codes::PARSE, "", 2)],
    );
}

#[test]
fn truncated_bytecode() {
    let mlir = Mlir::new();
    let parsed = mlir.parse(spec(ACTION, MATCHER, ENTRY).as_bytes(), "case.mlir");
    let bytecode = parsed
        .module
        .expect("parses")
        .to_bytecode()
        .expect("writes");
    for cut in [
        5,
        bytecode.len() / 3,
        bytecode.len() / 2,
        bytecode.len() - 1,
    ] {
        let verified = verify_bytes(&mlir, &bytecode[..cut], "case.mlirbc");
        assert!(verified.has_errors(), "cut at {cut} must fail");
        assert!(
            verified
                .problems
                .iter()
                .all(|p| p.code == codes::BAD_BYTECODE),
            "cut at {cut}: {:?}",
            verified.problems
        );
    }
}

#[test]
fn payload_at_top_level_is_not_a_library() {
    check(
        "func.func @f() {\n  return\n}\n",
        &[
            (
                codes::PAYLOAD_NOT_SPEC,
                "is a payload (it holds 'func.func')",
                1,
            ),
            (
                codes::NOT_A_LIBRARY,
                "Module without the 'transform.with_named_sequence'",
                1,
            ),
        ],
    );
}

#[test]
fn payload_module_is_not_a_spec() {
    check(
        "module {\n  func.func @f() {\n    return\n  }\n}\n",
        &[
            (codes::PAYLOAD_NOT_SPEC, "is a payload (it holds 'func.func')", 2),
            (
                codes::NOT_A_LIBRARY,
                "Module without the 'transform.with_named_sequence' attribute is not a transform dialect library",
                1,
            ),
        ],
    );
}

#[test]
fn empty_module() {
    check(
        "module attributes {transform.with_named_sequence} {\n}\n",
        &[(codes::EMPTY, "module is empty", 1)],
    );
}

#[test]
fn entrypoint_attribute_must_be_unit() {
    let entry = ENTRY.replace(
        "{iree_codegen.tuning_spec_entrypoint}",
        "{iree_codegen.tuning_spec_entrypoint = 1 : i32}",
    );
    check(
        &spec(ACTION, MATCHER, &entry),
        &[(
            codes::ENTRYPOINT_ATTR,
            "'iree_codegen.tuning_spec_entrypoint' attribute must be a UnitAttr",
            11,
        )],
    );
}

#[test]
fn entrypoint_must_return_and_take_one_any_op() {
    let text = "module attributes {transform.with_named_sequence} {\n  transform.named_sequence @entry(%a: !transform.any_op {transform.readonly}, %b: !transform.any_op {transform.readonly}) attributes {iree_codegen.tuning_spec_entrypoint} {\n    transform.yield\n  }\n}\n";
    check(
        text,
        &[
            (
                codes::ENTRYPOINT_SIGNATURE,
                "Must return one 'any_op' (required by 'iree_codegen.tuning_spec_entrypoint')",
                2,
            ),
            (
                codes::ENTRYPOINT_SIGNATURE,
                "Must take one 'any_op' (required by 'iree_codegen.tuning_spec_entrypoint')",
                2,
            ),
        ],
    );
}

#[test]
fn default_entrypoint_needs_kernel_config() {
    let text = format!("{HEADER}{ACTION}{MATCHER}}}\n");
    check(
        &text,
        &[(
            codes::DEFAULT_ENTRYPOINT,
            "Missing named sequence '__kernel_config' (required by 'iree_codegen.tuning_spec_with_default_entrypoint')",
            1,
        )],
    );
}

#[test]
fn default_entrypoint_needs_marker_attribute() {
    let entry = ENTRY.replace(" attributes {iree_codegen.tuning_spec_entrypoint}", "");
    check(
        &spec(ACTION, MATCHER, &entry),
        &[(
            codes::DEFAULT_ENTRYPOINT,
            "Missing attribute 'iree_codegen.tuning_spec_entrypoint' in named sequence '__kernel_config'",
            11,
        )],
    );
}

#[test]
fn default_entrypoint_allows_one_marked_sequence() {
    let action = ACTION.replace(
        "%config: !transform.any_param {transform.readonly}) {",
        "%config: !transform.any_param {transform.readonly}) attributes {iree_codegen.tuning_spec_entrypoint} {",
    );
    check(
        &spec(&action, MATCHER, ENTRY),
        &[
            (
                codes::DEFAULT_ENTRYPOINT,
                "Expected one named sequence with 'iree_codegen.tuning_spec_entrypoint', but found 2",
                1,
            ),
            (codes::ENTRYPOINT_SIGNATURE, "Must return one 'any_op'", 2),
            (codes::ENTRYPOINT_SIGNATURE, "Must take one 'any_op'", 2),
        ],
    );
}

#[test]
fn default_entrypoint_body_shape() {
    let entry = ENTRY.replace(
        "    transform.yield %r",
        "    %p = transform.param.constant 1 : i64 -> !transform.any_param\n    transform.yield %r",
    );
    check(
        &spec(ACTION, MATCHER, &entry),
        &[(
            codes::DEFAULT_ENTRYPOINT,
            "'__kernel_config' must contain exactly two operations",
            11,
        )],
    );
}

#[test]
fn default_entrypoint_must_start_with_foreach_match() {
    let entry = r#"  transform.named_sequence @__kernel_config(%arg: !transform.any_op {transform.readonly}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    transform.yield %arg : !transform.any_op
  }
"#;
    check(
        &spec(ACTION, MATCHER, entry),
        &[
            (
                codes::DEFAULT_ENTRYPOINT,
                "'__kernel_config' must contain exactly two operations",
                11,
            ),
            (
                codes::DEFAULT_ENTRYPOINT,
                "'__kernel_config' must start with 'ForeachMatchOp'",
                12,
            ),
        ],
    );
}

#[test]
fn foreach_match_flags_are_refused() {
    let entry = ENTRY.replace(
        "transform.foreach_match in",
        "transform.foreach_match restrict_root flatten_results in",
    );
    check(
        &spec(ACTION, MATCHER, &entry),
        &[
            (
                codes::DEFAULT_ENTRYPOINT,
                "'ForeachMatchOp' must not have 'restrict_root' attribute",
                12,
            ),
            (
                codes::DEFAULT_ENTRYPOINT,
                "'ForeachMatchOp' must not have 'flatten_results' attribute",
                12,
            ),
        ],
    );
}

#[test]
fn unknown_matcher_and_action_are_all_reported() {
    let entry = ENTRY.replace(
        "@match_mm -> @apply",
        "@match_mx -> @apply, @match_mm -> @aply",
    );
    check(
        &spec(ACTION, MATCHER, &entry),
        &[
            (
                codes::UNKNOWN_SYMBOL,
                "unresolved matcher symbol @match_mx",
                12,
            ),
            (codes::UNKNOWN_SYMBOL, "unresolved action symbol @aply", 12),
        ],
    );
}

#[test]
fn unknown_symbol_suggests_nearest() {
    let mlir = Mlir::new();
    let entry = ENTRY.replace("@match_mm -> @apply", "@match_mx -> @apply");
    let verified = verify_bytes(&mlir, spec(ACTION, MATCHER, &entry).as_bytes(), "case.mlir");
    let problem = &verified.problems[0];
    assert_eq!(problem.help.as_deref(), Some("did you mean @match_mm?"));
}

#[test]
fn matcher_must_be_readonly() {
    let matcher = MATCHER.replace(
        "@match_mm(%op: !transform.any_op {transform.readonly})",
        "@match_mm(%op: !transform.any_op {transform.consumed})",
    );
    check(
        &spec(ACTION, &matcher, ENTRY),
        &[
            (
                codes::MATCHER_SIGNATURE,
                "matcher @match_mm must take argument #0 transform.readonly",
                6,
            ),
            // MLIR's own warning about the same sequence, kept: it is about the body.
            (
                codes::ENTRY_EFFECT,
                "argument #0 is not consumed in the body but is marked as consumed",
                6,
            ),
            // MLIR's error at the foreach_match, kept: tunespec's finding is at another place
            // (only a finding at the same place, as severe, replaces MLIR's).
            (
                codes::MATCHER_SIGNATURE,
                "does not expect matcher symbol to consume its operand #0",
                12,
            ),
        ],
    );
}

#[test]
fn matcher_yields_what_action_takes() {
    let action = ACTION
        .replace(", %config: !transform.any_param {transform.readonly}", "")
        .replace(
            "    transform.annotate %op \"compilation_info\" = %config : !transform.any_op, !transform.any_param\n",
            "",
        );
    check(
        &spec(&action, MATCHER, ENTRY),
        &[(
            codes::MATCHER_ACTION_MISMATCH,
            "matcher @match_mm yields (!transform.any_op, !transform.any_param) but action @apply takes (!transform.any_op)",
            11,
        )],
    );
}

#[test]
fn duplicate_matcher_is_reported_not_a_crash() {
    // mlir-opt 22 overflows its stack verifying this; tunespec must report it.
    let entry = ENTRY.replace(
        "@match_mm -> @apply",
        "@match_mm -> @apply, @match_mm -> @apply",
    );
    let mlir = Mlir::new();
    let verified = verify_bytes(&mlir, spec(ACTION, MATCHER, &entry).as_bytes(), "case.mlir");
    assert!(verified
        .problems
        .iter()
        .any(|p| p.code == codes::DUPLICATE_MATCHER && p.message.contains("@match_mm")));
}

#[test]
fn include_target_must_resolve() {
    let matcher = MATCHER.replace(
        "    transform.match.operation_name %op",
        "    transform.include @helper failures(propagate) (%op) : (!transform.any_op) -> ()\n    transform.match.operation_name %op",
    );
    let verified_lines = spec(ACTION, &matcher, ENTRY);
    let line = verified_lines
        .lines()
        .position(|l| l.contains("transform.include"))
        .unwrap() as u32
        + 1;
    check(
        &verified_lines,
        &[(
            codes::UNKNOWN_SYMBOL,
            "unresolved include target symbol @helper",
            line,
        )],
    );
}

#[test]
fn readonly_entry_argument_consumed_by_foreach_match() {
    let entry = ENTRY.replace("{transform.consumed}", "{transform.readonly}");
    check(
        &spec(ACTION, MATCHER, &entry),
        &[(
            codes::ENTRY_EFFECT,
            "argument #0 of '@__kernel_config' is marked transform.readonly but 'transform.foreach_match' consumes it",
            11,
        )],
    );
}

#[test]
fn consumed_entry_argument_never_consumed_warns() {
    let text = "module attributes {transform.with_named_sequence} {\n  transform.named_sequence @__kernel_config(%arg: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {\n    transform.yield %arg : !transform.any_op\n  }\n}\n";
    let mlir = Mlir::new();
    let verified = verify_bytes(&mlir, text.as_bytes(), "case.mlir");
    assert!(!verified.has_errors(), "{:?}", verified.problems);
    assert!(verified
        .problems
        .iter()
        .any(|p| p.code == codes::ENTRY_EFFECT
            && p.severity == tunespec::problem::Severity::Warning
            && p.message.contains("nothing in its body consumes it")));
}

#[test]
fn payload_rewriting_op_in_an_action_is_refused() {
    let action = ACTION.replace(
        "    transform.yield\n",
        "    %tiled, %loop = transform.structured.tile_using_for %op tile_sizes [8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n    transform.yield\n",
    );
    let text = spec(&action, MATCHER, ENTRY);
    let mlir = Mlir::new();
    let verified = verify_bytes(&mlir, text.as_bytes(), "case.mlir");
    assert!(
        verified.problems.iter().any(|p| p.code == codes::CHANGES_SEMANTICS
            && p.is_error()
            && p.message.contains(
                "this action runs `transform.structured.tile_using_for`, which rewrites the payload IR"
            )
            && p.loc.as_ref().is_some_and(|loc| loc.line == 4)),
        "{:#?}",
        verified.problems
    );
}

#[test]
fn consuming_action_warns() {
    let action = ACTION.replace(
        "@apply(%op: !transform.any_op {transform.readonly}",
        "@apply(%op: !transform.any_op {transform.consumed}",
    );
    let mlir = Mlir::new();
    let verified = verify_bytes(&mlir, spec(&action, MATCHER, ENTRY).as_bytes(), "case.mlir");
    assert!(verified
        .problems
        .iter()
        .any(|p| p.code == codes::ACTION_SIGNATURE
            && p.message.contains("action @apply consumes argument #0")));
}

#[test]
fn library_without_entry_point() {
    let text = format!("module attributes {{transform.with_named_sequence}} {{\n{ACTION}}}\n");
    check(
        &text,
        &[(
            codes::MISSING_ENTRYPOINT,
            "no entry point: the module has no named sequence '__kernel_config'",
            1,
        )],
    );
}

#[test]
fn kernel_config_without_marker_warns_outside_default_form() {
    let text = format!(
        "module attributes {{transform.with_named_sequence}} {{\n{ACTION}{MATCHER}{}}}\n",
        ENTRY.replace(" attributes {iree_codegen.tuning_spec_entrypoint}", "")
    );
    check(
        &text,
        &[(
            codes::MISSING_ENTRYPOINT,
            "named sequence '__kernel_config' is not marked 'iree_codegen.tuning_spec_entrypoint'",
            11,
        )],
    );
}

#[test]
fn every_problem_in_a_file_is_reported() {
    // Three independent problems in one file: all three are reported, not only the first.
    let matcher = MATCHER.replace("{transform.readonly}) -> (", "{transform.consumed}) -> (");
    let entry = ENTRY
        .replace(
            "@match_mm -> @apply",
            "@match_mm -> @apply, @nope -> @apply",
        )
        .replace("{transform.consumed}", "{transform.readonly}");
    let mlir = Mlir::new();
    let verified = verify_bytes(
        &mlir,
        spec(ACTION, &matcher, &entry).as_bytes(),
        "case.mlir",
    );
    let codes_found: Vec<&str> = verified.problems.iter().map(|p| p.code).collect();
    for code in [
        codes::MATCHER_SIGNATURE,
        codes::UNKNOWN_SYMBOL,
        codes::ENTRY_EFFECT,
    ] {
        assert!(
            codes_found.contains(&code),
            "{code} missing from {codes_found:?}"
        );
    }
}

#[test]
fn function_type_splitting() {
    use tunespec::verify::split_function_type;
    assert_eq!(
        split_function_type("(!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.op<\"a,b\">)"),
        Some((
            vec!["!transform.any_op".into(), "!transform.param<i64>".into()],
            vec!["!transform.any_op".into(), "!transform.op<\"a,b\">".into()]
        ))
    );
    assert_eq!(split_function_type("() -> ()"), Some((vec![], vec![])));
    assert_eq!(
        split_function_type("(!transform.any_op) -> !transform.any_op"),
        Some((
            vec!["!transform.any_op".into()],
            vec!["!transform.any_op".into()]
        ))
    );
}
