//! The corpus cases, by kind of input: each is a command line, an input, the exit status and a
//! text the output must contain.

use crate::reference::repo_root;

use super::{case, corpus, Case, Inputs, APPLY, ATTACH, EXTRACT, LINK, VERIFY};

/// Every case, in a stable order.
pub(super) fn cases() -> Vec<Case> {
    let inputs = Inputs::new();
    [
        text_cases,
        bytecode_cases,
        payload_cases,
        depth_cases,
        expansion_cases,
        io_and_fuzz_cases,
    ]
    .iter()
    .flat_map(|group| group(&inputs))
    .collect()
}

/// Text: truncated, malformed, every rule broken.
fn text_cases(inputs: &Inputs) -> Vec<Case> {
    let spec = &inputs.spec;
    let payload = &inputs.payload;
    let mut cases = Vec::new();
    // Truncated text, at ten points.
    for tenth in 1..10 {
        let cut = spec.len() * tenth / 10;
        let cut = (cut..spec.len())
            .find(|&i| spec.is_char_boundary(i))
            .unwrap();
        cases.push(case(
            &format!("text truncated at {tenth}/10"),
            VERIFY,
            "cut.mlir",
            &spec.as_bytes()[..cut],
            1,
            "\"severity\":\"error\"",
        ));
    }
    // Malformed text.
    for (name, text, code) in [
        ("unbalanced brace", "module attributes {transform.with_named_sequence} {\n", "tunespec::parse"),
        ("bad type", "module attributes {transform.with_named_sequence} {\n  transform.named_sequence @x(%a: !transform.nosuch) {\n    transform.yield\n  }\n}\n", "tunespec::parse"),
        ("bad attribute", "module attributes {transform.with_named_sequence = [} {\n}\n", "tunespec::parse"),
        ("unknown custom op", "module attributes {transform.with_named_sequence} {\n  transform.frobnicate\n}\n", "tunespec::parse"),
        ("stray token", "module @m attributes {transform.with_named_sequence} {\n}\n}\n", "tunespec::parse"),
        ("two modules", "module {\n}\nmodule {\n}\n", "tunespec::verify::not-a-library"),
        ("undefined value", "module attributes {transform.with_named_sequence} {\n  transform.named_sequence @x() {\n    transform.yield %nope : !transform.any_op\n  }\n}\n", "tunespec::parse"),
        ("empty", "", "tunespec::verify::empty"),
        ("comments only", "// a spec\n// nothing else\n", "tunespec::verify::empty"),
        ("whitespace only", "\n\n   \t\n", "tunespec::verify::empty"),
        ("nul byte", "module {\u{0}}\n", "tunespec::verify::nul-byte"),
        ("empty module", "module {\n}\n", "tunespec::verify::empty"),
        ("payload, not a spec", payload.as_str(), "tunespec::verify::payload-not-spec"),
        ("deep nesting", &"module {\n".repeat(5000), "tunespec::verify::too-deep"),
    ] {
        cases.push(case(name, VERIFY, "bad.mlir", text, 1, code));
    }
    let mut latin1 = spec.clone().into_bytes();
    latin1.splice(0..0, b"// caf\xE9\n".iter().copied());
    cases.push(case(
        "invalid UTF-8",
        VERIFY,
        "latin1.mlir",
        latin1,
        1,
        "tunespec::verify::invalid-utf8",
    ));
    cases.push(case(
        "binary garbage",
        VERIFY,
        "garbage.mlir",
        (0..=255u8).cycle().take(2048).collect::<Vec<_>>(),
        1,
        "tunespec::verify::nul-byte",
    ));

    // Every rule broken, one at a time.
    for (name, from, to, code) in [
        ("no with_named_sequence", "module @gfx942_llama attributes {transform.with_named_sequence, ", "module @gfx942_llama attributes {", "tunespec::verify::not-a-library"),
        ("unknown matcher", "@match_mmt_f16_2048x4096x4096 -> @apply_op_config", "@nosuch -> @apply_op_config", "tunespec::verify::unknown-symbol"),
        ("unknown action", "-> @apply_op_config\n", "-> @nosuch\n", "tunespec::verify::unknown-symbol"),
        ("duplicate matcher", "@match_mmt_f16_2048x4096x4096 -> @apply_op_config", "@match_mmt_f16_2048x4096x4096 -> @apply_op_config, @match_mmt_f16_2048x4096x4096 -> @apply_op_config", "tunespec::verify::duplicate-matcher"),
        ("readonly entry", "(%variant_op: !transform.any_op {transform.consumed})", "(%variant_op: !transform.any_op {transform.readonly})", "tunespec::verify::entry-effect"),
        ("consuming matcher", "@match_mmt_f16_2048x4096x4096(%root: !transform.any_op {transform.readonly})", "@match_mmt_f16_2048x4096x4096(%root: !transform.any_op {transform.consumed})", "tunespec::verify::matcher-signature"),
        ("entry marker not unit", "attributes {iree_codegen.tuning_spec_entrypoint}", "attributes {iree_codegen.tuning_spec_entrypoint = 1 : i64}", "tunespec::verify::entrypoint-attr"),
        ("no entry marker", " attributes {iree_codegen.tuning_spec_entrypoint}", "", "tunespec::verify::default-entrypoint"),
        ("entry renamed", "@__kernel_config(", "@kernel_config(", "tunespec::verify::default-entrypoint"),
        ("restrict_root", "transform.foreach_match in", "transform.foreach_match restrict_root in", "tunespec::verify::default-entrypoint"),
        ("matcher yields too little", "    transform.yield %root, %cfg : !transform.any_op, !transform.any_param", "    transform.yield %root : !transform.any_op", "tunespec::"),
        ("rewriting op", "    transform.annotate %op", "    transform.apply_patterns to %op {\n    } : !transform.any_op\n    transform.annotate %op", "tunespec::verify::changes-semantics"),
        ("rewriting op, unreachable (denied)", "  transform.named_sequence @apply_op_config(", "  transform.named_sequence @unused(%op: !transform.any_op {transform.readonly}) {\n    transform.apply_patterns to %op {\n    } : !transform.any_op\n    transform.yield\n  }\n  transform.named_sequence @apply_op_config(", "tunespec::verify::unsafe-op"),
        ("annotates another op", "    transform.annotate %op \"compilation_info\"", "    %producer = transform.get_producer_of_operand %op[0] : (!transform.any_op) -> !transform.any_op\n    transform.annotate %producer \"value\"", "tunespec::verify::changes-semantics"),
    ] {
        assert!(spec.contains(from), "{name}: fixture changed");
        let text = spec.replacen(from, to, 1);
        let args: &[&str] = if name.contains("denied") {
            &["verify", "--deny-warnings", "--format", "json", "{input}"]
        } else {
            VERIFY
        };
        cases.push(case(name, args, "rule.mlir", text.clone(), 1, code));
        // The linker refuses the same inputs.
        if !name.contains("denied") {
            cases.push(case(&format!("link: {name}"), LINK, "rule.mlir", text, 1, "tunespec::"));
        }
    }

    cases
}

/// Bytecode: truncated, newer, aborting the reader, garbage.
fn bytecode_cases(inputs: &Inputs) -> Vec<Case> {
    let mut cases = Vec::new();
    // Bytecode: truncated across the whole file (every section), from a newer MLIR, aborting
    // the reader, garbage after the magic.
    let bytecode = &inputs.bytecode;
    for step in 1..=24 {
        let cut = (bytecode.len() * step / 25).max(5);
        cases.push(case(
            &format!("bytecode truncated at {cut}/{}", bytecode.len()),
            VERIFY,
            "cut.mlirbc",
            &bytecode[..cut],
            1,
            "tunespec::verify::bad-bytecode",
        ));
    }
    let mut newer = bytecode.clone();
    assert_eq!(
        newer[4],
        (6 << 1) | 1,
        "version 6 is one prefix-varint byte"
    );
    newer[4] = (99 << 1) | 1;
    cases.push(case(
        "bytecode from a newer MLIR",
        VERIFY,
        "newer.mlirbc",
        newer.clone(),
        1,
        "tunespec::verify::bad-bytecode",
    ));
    cases.push(case(
        "link: bytecode from a newer MLIR",
        LINK,
        "newer.mlirbc",
        newer,
        1,
        "tunespec::verify::bad-bytecode",
    ));
    let abort =
        std::fs::read(repo_root().join("tests/corpus/bytecode_reader_abort.mlirbc")).unwrap();
    cases.push(case(
        "bytecode that aborts MLIR's reader",
        VERIFY,
        "abort.mlirbc",
        abort.clone(),
        1,
        "aborted",
    ));
    cases.push(case(
        "link: bytecode that aborts MLIR's reader",
        LINK,
        "abort.mlirbc",
        abort.clone(),
        1,
        "aborted",
    ));
    cases.push(case(
        "apply: payload bytecode that aborts MLIR's reader",
        APPLY,
        "abort.mlirbc",
        abort,
        1,
        "aborted",
    ));
    let mut garbage = b"ML\xEFR".to_vec();
    garbage.extend((0..200u8).map(|i| i.wrapping_mul(37)));
    cases.push(case(
        "magic then garbage",
        VERIFY,
        "garbage.mlirbc",
        garbage,
        1,
        "tunespec::verify::bad-bytecode",
    ));

    cases
}

/// Payloads that are libraries, libraries that are payloads, broken attached blobs.
fn payload_cases(inputs: &Inputs) -> Vec<Case> {
    let spec = &inputs.spec;
    let payload = &inputs.payload;
    // Payloads that are libraries, libraries that are payloads, attached blobs that are broken.
    let mut cases = vec![case(
        "apply: a library as payload",
        APPLY,
        "spec.mlir",
        spec.clone(),
        1,
        "tunespec::apply::not-a-payload",
    )];
    cases.push(case(
        "attach: a library as payload",
        ATTACH,
        "spec.mlir",
        spec.clone(),
        1,
        "tunespec::apply::not-a-payload",
    ));
    cases.push(case(
        "link: a payload as spec",
        LINK,
        "payload.mlir",
        payload.clone(),
        1,
        "tunespec::verify::payload-not-spec",
    ));
    cases.push(case(
        "extract: nothing attached",
        EXTRACT,
        "payload.mlir",
        payload.clone(),
        1,
        "tunespec::apply::no-library",
    ));
    cases.push(case(
        "apply: nothing attached, no target",
        &["apply", "{input}", "-o", "{out}"],
        "payload.mlir",
        payload.clone(),
        1,
        "tunespec::apply::no-library",
    ));
    for (name, attr) in [
        ("not bytecode", "dense<[1, 2, 3]> : vector<3xi8>"),
        ("a string", "\"hello\""),
        ("a unit", "unit"),
        (
            "truncated bytecode",
            &format!(
                "dense<\"0x{}\"> : vector<40xi8>",
                inputs.bytecode[..40]
                    .iter()
                    .map(|b| format!("{b:02X}"))
                    .collect::<String>()
            ),
        ),
    ] {
        let text = format!(
            "module attributes {{iree_codegen.tuning_spec_mlirbc = {attr}}} {{\n{payload}}}\n"
        );
        cases.push(case(
            &format!("extract: attached {name}"),
            EXTRACT,
            "attached.mlir",
            text.clone(),
            1,
            "tunespec::apply::corrupt-library",
        ));
        cases.push(case(
            &format!("apply: attached {name}"),
            &["apply", "{input}", "-o", "{out}"],
            "attached.mlir",
            text,
            1,
            "tunespec::apply::corrupt-library",
        ));
    }
    cases.push(case(
        "apply: broken payload",
        APPLY,
        "payload.mlir",
        "func.func @f( {\n",
        1,
        "tunespec::apply::payload",
    ));
    cases.push(case(
        "apply: deep payload",
        APPLY,
        "payload.mlir",
        "module {\n".repeat(3000),
        1,
        "tunespec::verify::too-deep",
    ));

    cases
}

/// Input nested or expanding past the limits, with and without brackets.
fn depth_cases(inputs: &Inputs) -> Vec<Case> {
    let spec = &inputs.spec;
    let payload = &inputs.payload;
    let mut cases = angle_nesting_cases();

    // Nesting without brackets (found by review after fuzzing): aliases build attributes and
    // types of any depth, affine operators chain, unary minus recurses. MLIR's printer overflowed
    // the stack on the first two (`link` aborted), its parser on the others.
    let with_entry_attr = |attr: &str| with_entry_attr(spec, attr);
    assert_ne!(
        with_entry_attr("1"),
        *spec,
        "the good spec has an entry point to mark"
    );
    let deep_attr_spec = alias_chain(20_000, "attr") + &with_entry_attr("#a19999");
    let sum = |terms: usize| vec!["d0"; terms].join(" + ");
    let long_sum_spec = with_entry_attr(&format!("affine_map<(d0) -> ({})>", sum(20_000)));
    let minus_spec = with_entry_attr(&format!("affine_map<(d0) -> ({}d0)>", "- ".repeat(200_000)));
    let deep_type_payload = alias_chain(20_000, "type") + "func.func private @f(%a: !a19999)\n";
    let deep_attr_payload = alias_chain(20_000, "attr")
        + payload
        + "func.func private @deep() attributes {deep = #a19999}\n";
    for (name, args, file, input, expect) in [
        (
            "verify: alias chain 20,000 deep",
            VERIFY,
            "spec.mlir",
            deep_attr_spec.clone(),
            "tunespec::verify::too-deep",
        ),
        (
            "link: alias chain 20,000 deep",
            LINK,
            "spec.mlir",
            deep_attr_spec,
            "tunespec::verify::too-deep",
        ),
        (
            "link: affine sum of 20,000 terms",
            LINK,
            "spec.mlir",
            long_sum_spec,
            "chains more than 512 operators",
        ),
        (
            "verify: 200,000 unary minus",
            VERIFY,
            "spec.mlir",
            minus_spec,
            "chains more than 512 operators",
        ),
        (
            "attach: type alias chain 20,000 deep",
            ATTACH,
            "payload.mlir",
            deep_type_payload.clone(),
            "nests deeper than 256 levels",
        ),
        (
            "apply: type alias chain 20,000 deep",
            APPLY,
            "payload.mlir",
            deep_type_payload,
            "nests deeper than 256 levels",
        ),
        (
            "apply: alias chain 20,000 deep on the payload",
            APPLY,
            "payload.mlir",
            deep_attr_payload,
            "nests deeper than 256 levels",
        ),
    ] {
        cases.push(case(name, args, file, input, 1, expect));
    }
    cases
}

/// Nesting through `<`, for `depth_cases`: split out of it to keep it short.
fn angle_nesting_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    // Nesting through `<` (found by fuzzing: it used to overflow the parser's stack).
    let angle = format!(
        "func.func private @f(%a: {}i32{})\n",
        "tuple<".repeat(20000),
        ">".repeat(20000)
    );
    cases.push(case(
        "attach: deep `<` nesting",
        ATTACH,
        "payload.mlir",
        angle.clone(),
        1,
        "tunespec::verify::too-deep",
    ));
    cases.push(case(
        "verify: deep `<` nesting",
        VERIFY,
        "spec.mlir",
        angle,
        1,
        "tunespec::verify::too-deep",
    ));
    cases
}

/// A chain of `count` aliases, each wrapping the one before: `kind` "type" gives `!aN` type
/// aliases nested in `tuple<>`, anything else `#aN` attribute aliases nested in `[]`. Used by
/// `depth_cases` (it was a closure there, split out to keep it short).
fn alias_chain(count: usize, kind: &str) -> String {
    let (sigil, base, wrap) = if kind == "type" {
        ("!", "i32", "tuple<")
    } else {
        ("#", "1", "[")
    };
    let close = if kind == "type" { ">" } else { "]" };
    let mut text = format!("{sigil}a0 = {base}\n");
    for index in 1..count {
        text += &format!("{sigil}a{index} = {wrap}{sigil}a{}{close}\n", index - 1);
    }
    text
}

/// Input that expands when printed, or nests without brackets or in bytecode.
fn expansion_cases(inputs: &Inputs) -> Vec<Case> {
    let spec = &inputs.spec;
    let mut cases = Vec::new();
    // Aliases that share: each function type uses the previous one twice, so 40 lines print
    // as 2^40 types (mlir-opt 22 writes gigabytes; tunespec used to hang in `verify`).
    let mut doubling = String::from("!t0 = i32\n");
    for index in 1..40 {
        doubling += &format!("!t{index} = (!t{}) -> !t{}\n", index - 1, index - 1);
    }
    // Call-site locations chained through aliases: deep without brackets.
    let mut callsites = String::from("#loc0 = loc(\"a.mlir\":1:1)\n");
    for index in 1..5_000 {
        callsites += &format!(
            "#loc{index} = loc(callsite(#loc{} at #loc{}))\n",
            index - 1,
            index - 1
        );
    }
    for (name, args, file, input, expect) in [
        (
            "verify: aliases that double 40 times",
            VERIFY,
            "spec.mlir",
            doubling.clone() + &with_entry_attr(spec, "!t39"),
            "nodes when printed",
        ),
        (
            "apply: aliases that double 40 times",
            APPLY,
            "payload.mlir",
            doubling + "func.func private @f(%a: !t39)\n",
            "nodes when printed",
        ),
        (
            "verify: call-site location chain 5,000 deep",
            VERIFY,
            "spec.mlir",
            callsites + &spec.replacen("transform.yield\n", "transform.yield loc(#loc4999)\n", 1),
            "nests deeper than 256 levels",
        ),
    ] {
        cases.push(case(name, args, file, input, 1, expect));
    }
    // Ops nested 1,000 regions deep, as bytecode (mlir-opt-22 wrote it from 1,000 nested
    // `module {`): the IR depth check stops it (as text, the bracket limit would).
    let deep_ops = corpus("deep_ops_1000.mlirbc");
    for (command, args) in [("verify", VERIFY), ("link", LINK)] {
        cases.push(case(
            &format!("{command}: bytecode with ops 1,000 regions deep"),
            args,
            "deep.mlirbc",
            deep_ops.clone(),
            1,
            "operations nested in regions deeper than 256 levels",
        ));
    }

    cases
}

/// The good spec with `deep = ATTR` on its entry point.
fn with_entry_attr(spec: &str, attr: &str) -> String {
    spec.replacen(
        "attributes {iree_codegen.tuning_spec_entrypoint}",
        &format!("attributes {{iree_codegen.tuning_spec_entrypoint, deep = {attr}}}"),
        1,
    )
}

/// I/O failures, and inputs found by fuzzing.
fn io_and_fuzz_cases(inputs: &Inputs) -> Vec<Case> {
    let payload = &inputs.payload;
    // I/O: missing files, directories, unwritable outputs.
    let mut cases = vec![case(
        "verify: missing file",
        &["verify", "{dir}/nope.mlir"],
        "x.mlir",
        "",
        2,
        "tunespec: error: cannot read",
    )];
    cases.push(case(
        "apply: missing payload",
        &["apply", "--target", "gfx942", "{dir}/nope.mlir"],
        "x.mlir",
        "",
        2,
        "tunespec: error: cannot read",
    ));
    cases.push(case(
        "link: output in a missing directory",
        &[
            "link",
            "--target",
            "gfx942",
            "-o",
            "{dir}/no/such/dir/out.mlir",
        ],
        "x.mlir",
        "",
        2,
        "tunespec: error: cannot",
    ));
    cases.push(case(
        "link: output is a directory",
        &["link", "--target", "gfx942", "-o", "{dir}"],
        "x.mlir",
        "",
        2,
        "tunespec: error: cannot",
    ));
    cases.push(case(
        "apply: unknown target",
        &["apply", "--target", "gfx9000", "{input}", "-o", "{out}"],
        "payload.mlir",
        payload.as_str(),
        2,
        "unknown target",
    ));

    // Found by fuzzing (tools/fuzz.sh; docs/reliability.md).
    let mixed = corpus("fuzz_parse_error_then_invalid_utf8.mlir");
    for code in ["tunespec::parse", "tunespec::verify::invalid-utf8"] {
        cases.push(case(
            &format!("fuzz: parse error, then invalid UTF-8 ({code})"),
            VERIFY,
            "mixed.mlir",
            mixed.clone(),
            1,
            code,
        ));
    }
    cases.push(case(
        "fuzz: registry.toml with a control character in a comment",
        VERIFY,
        "registry.toml",
        corpus("fuzz_manifest_control_char_in_comment.toml"),
        1,
        "tunespec::registry::manifest",
    ));
    // Bytecode on which MLIR's reader dies of SIGSEGV (not an abort): the probe contains it.
    let segv = corpus("fuzz_bytecode_reader_segv.mlirbc");
    for (command, args) in [("verify", VERIFY), ("link", LINK)] {
        cases.push(case(
            &format!("fuzz: {command}: bytecode that crashes MLIR's reader"),
            args,
            "segv.mlirbc",
            segv.clone(),
            1,
            "reader or verifier crashed on this input (signal 11)",
        ));
    }
    cases
}
