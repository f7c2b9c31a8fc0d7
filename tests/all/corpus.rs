//! The bad-input corpus: every reader gets broken input and must answer with a located
//! diagnostic and a documented exit status; never a panic or an abort, never a partial output
//! file, never a modified input. Cases are generated from good inputs (truncations, flipped
//! versions, broken rules) and read from `tests/corpus/`.

use std::process::Command;

use tunespec::mlir::Mlir;

use crate::reference::repo_root;

struct Case {
    name: String,
    /// Arguments; `{input}` is the input file, `{out}` an output path that must not appear.
    args: Vec<String>,
    input: Vec<u8>,
    /// File name of the input (its extension matters).
    file: String,
    exit: i32,
    /// Text that stdout or stderr must contain (a diagnostic code, or a tool error).
    expect: String,
}

fn case(
    name: &str,
    args: &[&str],
    file: &str,
    input: impl Into<Vec<u8>>,
    exit: i32,
    expect: &str,
) -> Case {
    Case {
        name: name.to_string(),
        args: args.iter().map(|arg| arg.to_string()).collect(),
        input: input.into(),
        file: file.to_string(),
        exit,
        expect: expect.to_string(),
    }
}

fn run_case(case: &Case) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join(&case.file);
    std::fs::write(&input, &case.input).unwrap();
    let out = dir.path().join("out.mlir");
    let args: Vec<String> = case
        .args
        .iter()
        .map(|arg| {
            arg.replace("{input}", &input.display().to_string())
                .replace("{out}", &out.display().to_string())
                .replace("{dir}", &dir.path().display().to_string())
        })
        .collect();
    let output = crate::support::tunespec_command()
        .args(&args)
        .env("TUNESPEC_CACHE", "off")
        .output()
        .map_err(|error| format!("cannot run: {error}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let tail: String = text
        .chars()
        .rev()
        .take(600)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    if output.status.code() != Some(case.exit) {
        return Err(format!(
            "exit {:?}, expected {}: {tail}",
            output.status.code(),
            case.exit
        ));
    }
    if !text.contains(&case.expect) {
        return Err(format!("output lacks {:?}: {tail}", case.expect));
    }
    if text.contains("panicked") || text.contains("RUST_BACKTRACE") {
        return Err(format!("panicked: {tail}"));
    }
    if out.exists() {
        return Err("an output file was written".into());
    }
    if std::fs::read(&input).unwrap() != case.input {
        return Err("the input was modified".into());
    }
    let leftovers: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name != &case.file)
        .collect();
    if !leftovers.is_empty() {
        return Err(format!("files left behind: {leftovers:?}"));
    }
    Ok(())
}

fn good_spec() -> String {
    std::fs::read_to_string(repo_root().join("tests/fixtures/specs/good/one_matcher.mlir")).unwrap()
}

fn good_payload() -> String {
    std::fs::read_to_string(repo_root().join("examples/llama2_7b_f16_decode.mlir")).unwrap()
}

const VERIFY: &[&str] = &["verify", "--format", "json", "{input}"];
const LINK: &[&str] = &["link", "--no-default", "--spec", "{input}", "-o", "{out}"];
const APPLY: &[&str] = &["apply", "--target", "gfx942", "{input}", "-o", "{out}"];
const ATTACH: &[&str] = &["attach", "--target", "gfx942", "{input}", "-o", "{out}"];
const EXTRACT: &[&str] = &["extract", "{input}", "-o", "{out}"];

fn cases() -> Vec<Case> {
    let spec = good_spec();
    let payload = good_payload();
    let corpus = |file: &str| std::fs::read(repo_root().join("tests/corpus").join(file)).unwrap();
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
        ("rewriting op (denied)", "    transform.annotate %op", "    transform.apply_patterns to %op {\n    } : !transform.any_op\n    transform.annotate %op", "tunespec::verify::unsafe-op"),
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

    // Bytecode: truncated across the whole file (every section), from a newer MLIR, aborting
    // the reader, garbage after the magic.
    let mlir = Mlir::new();
    let bytecode = mlir
        .parse(spec.as_bytes(), "spec.mlir")
        .module
        .unwrap()
        .to_bytecode()
        .unwrap();
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

    // Payloads that are libraries, libraries that are payloads, attached blobs that are broken.
    cases.push(case(
        "apply: a library as payload",
        APPLY,
        "spec.mlir",
        spec.clone(),
        1,
        "tunespec::apply::not-a-payload",
    ));
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
                bytecode[..40]
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

    // Nesting without brackets (found by review after fuzzing): aliases build attributes and
    // types of any depth, affine operators chain, unary minus recurses. MLIR's printer overflowed
    // the stack on the first two (`link` aborted), its parser on the others.
    let aliases = |count: usize, kind: &str| -> String {
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
    };
    let with_entry_attr = |attr: &str| {
        spec.replacen(
            "attributes {iree_codegen.tuning_spec_entrypoint}",
            &format!("attributes {{iree_codegen.tuning_spec_entrypoint, deep = {attr}}}"),
            1,
        )
    };
    assert_ne!(
        with_entry_attr("1"),
        spec,
        "the good spec has an entry point to mark"
    );
    let deep_attr_spec = aliases(20_000, "attr") + &with_entry_attr("#a19999");
    let sum = |terms: usize| vec!["d0"; terms].join(" + ");
    let long_sum_spec = with_entry_attr(&format!("affine_map<(d0) -> ({})>", sum(20_000)));
    let minus_spec = with_entry_attr(&format!("affine_map<(d0) -> ({}d0)>", "- ".repeat(200_000)));
    let deep_type_payload = aliases(20_000, "type") + "func.func private @f(%a: !a19999)\n";
    let deep_attr_payload = aliases(20_000, "attr")
        + &payload
        + "func.func private @deep() attributes {deep = #a19999}\n";
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
        (
            "verify: aliases that double 40 times",
            VERIFY,
            "spec.mlir",
            doubling.clone() + &with_entry_attr("!t39"),
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

    // I/O: missing files, directories, unwritable outputs.
    cases.push(case(
        "verify: missing file",
        &["verify", "{dir}/nope.mlir"],
        "x.mlir",
        "",
        2,
        "tunespec: error: cannot read",
    ));
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
        payload,
        2,
        "unknown target",
    ));

    // Found by fuzzing (tools/fuzz.sh; README "Reliability").
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
            "reader crashed on this input (signal 11)",
        ));
    }
    cases
}

#[test]
fn every_bad_input_gets_a_diagnostic_and_a_documented_exit_status() {
    let cases = cases();
    assert!(cases.len() >= 60, "only {} cases", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            run_case(case)
                .err()
                .map(|error| format!("{}: {error}", case.name))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn a_full_disk_leaves_no_partial_output_and_keeps_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("linked.mlir");
    std::fs::write(&out, "old content\n").unwrap();
    // A 1-block file-size limit: writing the library fails with EFBIG (SIGXFSZ is ignored).
    let output = crate::support::hermetic(&mut Command::new("bash"))
        .arg("-c")
        .arg(format!(
            "ulimit -f 1; exec '{}' link --target gfx942 -o '{}'",
            env!("CARGO_BIN_EXE_tunespec"),
            out.display()
        ))
        .env("TUNESPEC_CACHE", "off")
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("tunespec: error: cannot write"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old content\n");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary file left"
    );
}

#[test]
fn the_corpus_directory_holds_only_inputs_the_tests_use() {
    for entry in std::fs::read_dir(repo_root().join("tests/corpus")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let used = std::fs::read_to_string(repo_root().join("tests/all/corpus.rs"))
            .unwrap()
            .contains(&name);
        assert!(used, "{name} is not used by any case");
    }
}

#[test]
fn nesting_just_under_the_limits_links_and_applies() {
    // Attributes 240 aliases deep and an affine sum of 200 terms stay under the limits
    // (`MAX_IR_DEPTH` 256, `MAX_OPERATORS` 512): link prints them and apply reads them back, on the
    // stack `MLIR_STACK_BYTES` gives, whatever `ulimit -s` says.
    let spec = good_spec();
    let mut text = String::from("#a0 = [1]\n");
    for index in 1..240 {
        text += &format!("#a{index} = [#a{}]\n", index - 1);
    }
    // Distinct dimensions: MLIR folds `d0 + d0 + ...` into `d0 * 200`.
    let dims: Vec<String> = (0..200).map(|index| format!("d{index}")).collect();
    let (dims, sum) = (dims.join(", "), dims.join(" + "));
    // On the matcher: link copies matchers (it rebuilds the entry point).
    text += &spec.replacen(
        "-> (!transform.any_op, !transform.any_param) {",
        &format!(
            "-> (!transform.any_op, !transform.any_param) attributes {{deep = #a239, sum = affine_map<({dims}) -> ({sum})>}} {{"
        ),
        1,
    );
    assert!(text.contains("deep = #a239"));
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("deep.mlir");
    let linked = dir.path().join("linked.mlir");
    let applied = dir.path().join("applied.mlir");
    std::fs::write(&input, &text).unwrap();
    // Runs tunespec with a 1 MiB main-thread stack and asserts that it succeeds.
    let run = |args: &[&str]| {
        let output = crate::support::hermetic(&mut Command::new("bash"))
            .arg("-c")
            .arg(r#"ulimit -s 1024; exec "$@""#)
            .arg("bash")
            .arg(env!("CARGO_BIN_EXE_tunespec"))
            .args(args)
            .env("TUNESPEC_CACHE", "off")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    run(&[
        "link",
        "--no-default",
        "--spec",
        input.to_str().unwrap(),
        "-o",
        linked.to_str().unwrap(),
    ]);
    let library = std::fs::read_to_string(&linked).unwrap();
    assert!(library.contains("d198 + d199"), "the sum is printed");
    run(&[
        "apply",
        "--no-default",
        "--spec",
        linked.to_str().unwrap(),
        repo_root()
            .join("examples/llama2_7b_f16_decode.mlir")
            .to_str()
            .unwrap(),
        "-o",
        applied.to_str().unwrap(),
    ]);
    assert!(applied.exists());
}

#[test]
fn the_library_handles_input_at_the_limits_on_an_8_mib_thread() {
    // The crate docs promise embedders that a main thread's 8 MiB is enough: text nested 1,000
    // brackets deep (parsed, refused after the parse), and IR just under the IR limits (parsed,
    // verified, printed, parsed again, written as bytecode).
    let spec = good_spec();
    let mut deep = String::from("#a0 = [1]\n");
    for index in 1..240 {
        deep += &format!("#a{index} = [#a{}]\n", index - 1);
    }
    let dims: Vec<String> = (0..200).map(|index| format!("d{index}")).collect();
    deep += &spec.replacen(
        "-> (!transform.any_op, !transform.any_param) {",
        &format!(
            "-> (!transform.any_op, !transform.any_param) attributes {{deep = #a239, sum = affine_map<({}) -> ({})>}} {{",
            dims.join(", "),
            dims.join(" + ")
        ),
        1,
    );
    let nested = "module {\n".repeat(1_000) + &"}\n".repeat(1_000);
    let generic = "\"t.op\"() ({\n".repeat(1_000) + &"}) : () -> ()\n".repeat(1_000);
    let outcome = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            let mlir = Mlir::new();
            let verified = tunespec::verify::verify_bytes(&mlir, deep.as_bytes(), "deep.mlir");
            assert!(verified.problems.is_empty(), "{:?}", verified.problems);
            let module = verified.module.expect("verified");
            let text = module.print_file();
            assert!(text.contains("d198 + d199"));
            assert!(mlir.parse(text.as_bytes(), "again.mlir").module.is_some());
            assert!(module.to_bytecode().is_ok());
            for (name, text) in [("nested.mlir", nested), ("generic.mlir", generic)] {
                let parsed = mlir.parse(text.as_bytes(), name);
                assert!(parsed.module.is_none(), "{name}: deeper than 256 regions");
                assert!(
                    parsed
                        .problems
                        .iter()
                        .any(|problem| problem.code == "tunespec::verify::too-deep"),
                    "{name}: {:?}",
                    parsed.problems
                );
            }
        })
        .unwrap()
        .join();
    assert!(outcome.is_ok(), "the checks failed on an 8 MiB thread");
}
