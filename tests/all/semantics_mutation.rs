//! The `changes-semantics` rule as a mutation differential: config-only specs (the good
//! fixtures, the SHARK-tuner runs, the default specs, IREE's own default spec) must give no
//! finding (false alarms), and every mutant that makes one change what the program computes must
//! give one (misses): non-config attribute names on the matched op, writes on ops reached by
//! navigation, writes in matchers, and every payload-rewriting transform op MLIR 22 registers.
//! Both counts must be 0. Also: each of IREE's config attribute names tunespec allows is a
//! string of the installed IREE compiler (fails under `CI=true` without IREE).

use std::path::{Path, PathBuf};

use tunespec::mlir::Mlir;
use tunespec::problem::codes;
use tunespec::verify::verify_bytes;

use crate::reference::{iree_opt, repo_root};

/// The config-only specs every mutant starts from, read from the tree.
fn config_only_specs() -> Vec<(String, String)> {
    let root = repo_root();
    let mut paths: Vec<PathBuf> = Vec::new();
    for dir in ["specs", "tests/fixtures/specs/good", "tests/fixtures/tuner"] {
        for entry in walkdir::WalkDir::new(root.join(dir)).sort_by_file_name() {
            let entry = entry.unwrap();
            let path = entry.path();
            let in_broken = path.components().any(|c| c.as_os_str() == "broken");
            if path.extension().is_some_and(|ext| ext == "mlir") && !in_broken {
                paths.push(path.to_path_buf());
            }
        }
    }
    paths
        .into_iter()
        .map(|path| {
            let name = path.strip_prefix(root).unwrap().display().to_string();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect()
}

/// The `changes-semantics` findings (any severity) of one text.
fn findings(mlir: &Mlir, text: &str) -> Vec<String> {
    verify_bytes(mlir, text.as_bytes(), "mutant.mlir")
        .problems
        .into_iter()
        .filter(|problem| problem.code == codes::CHANGES_SEMANTICS)
        .map(|problem| problem.message)
        .collect()
}

/// The first config write of an action: (line index, indentation, op handle, param handle).
fn config_write(text: &str) -> Option<(usize, String, String, String)> {
    text.lines().enumerate().find_map(|(index, line)| {
        let rest = line.trim_start().strip_prefix("transform.annotate ")?;
        let (target, rest) = rest.split_once(' ')?;
        let param = rest
            .strip_prefix("\"compilation_info\" = ")?
            .split(' ')
            .next()?;
        let indent = &line[..line.len() - line.trim_start().len()];
        Some((
            index,
            indent.to_string(),
            target.to_string(),
            param.to_string(),
        ))
    })
}

/// `text` with `lines` inserted after line `index`.
fn insert_after(text: &str, index: usize, lines: &[String]) -> String {
    let mut out: Vec<String> = text.lines().map(str::to_string).collect();
    for (offset, line) in lines.iter().enumerate() {
        out.insert(index + 1 + offset, line.clone());
    }
    out.join("\n") + "\n"
}

const ANY: &str = "!transform.any_op";

/// Navigations from the matched op `x` to another op, bound to `%nav`.
fn navigations(x: &str) -> Vec<Vec<String>> {
    let to_op = format!("({ANY}) -> {ANY}");
    vec![
        vec![format!(
            "%nav = transform.get_producer_of_operand {x}[0] : {to_op}"
        )],
        vec![format!(
            "%nav = transform.get_consumers_of_result {x}[0] : {to_op}"
        )],
        vec![format!("%nav = transform.get_parent_op {x} : {to_op}")],
        vec![format!(
            "%nav = transform.get_parent_op {x} {{isolated_from_above}} : {to_op}"
        )],
        vec![
            format!("%val = transform.get_operand {x}[0] : ({ANY}) -> !transform.any_value"),
            "%nav = transform.get_defining_op %val : (!transform.any_value) -> !transform.any_op"
                .to_string(),
        ],
        vec![format!(
            "%nav = transform.structured.match ops{{[\"arith.constant\"]}} in {x} : {to_op}"
        )],
        vec![
            format!("%par = transform.get_parent_op {x} : {to_op}"),
            format!("%nav = transform.merge_handles {x}, %par : {ANY}"),
        ],
    ]
}

/// Mutants of one spec's action that must be refused, by what they do.
fn action_mutants(text: &str) -> Vec<(String, String)> {
    let Some((index, indent, x, p)) = config_write(text) else {
        return Vec::new();
    };
    let mut mutants = Vec::new();
    for name in [
        "value",
        "tag",
        "sym_name",
        "iree_codegen_external_symbols",
        "iree_gpu.lowering_config",
        "compilation_info_",
        "predicate",
    ] {
        for line in [
            format!("transform.annotate {x} \"{name}\" = {p} : {ANY}, !transform.any_param"),
            format!("transform.annotate {x} \"{name}\" : {ANY}"),
        ] {
            mutants.push((line.clone(), format!("{indent}{line}")));
        }
    }
    for navigation in navigations(&x) {
        for write in [
            format!(
                "transform.annotate %nav \"compilation_info\" = {p} : {ANY}, !transform.any_param"
            ),
            format!("transform.annotate %nav \"lowering_config\" : {ANY}"),
            format!("transform.annotate %nav \"value\" = {p} : {ANY}, !transform.any_param"),
        ] {
            let lines: Vec<String> = navigation.iter().chain([&write]).cloned().collect();
            mutants.push((lines.join("; "), lines.join(&format!("\n{indent}"))));
        }
    }
    mutants
        .into_iter()
        .map(|(what, lines)| {
            (
                what,
                insert_after(text, index, &[format!("{indent}{}", lines.trim_start())]),
            )
        })
        .collect()
}

/// Mutants that write in a matcher: after its first op-handle match op.
fn matcher_mutants(text: &str) -> Vec<(String, String)> {
    let found = text.lines().enumerate().find_map(|(index, line)| {
        let body = line.trim_start();
        let rest = [
            "transform.match.operation_name ",
            "transform.iree.match.has_no_lowering_config ",
        ]
        .iter()
        .find_map(|prefix| body.strip_prefix(prefix))?;
        let handle = rest.split([' ', ',']).next()?;
        let indent = &line[..line.len() - body.len()];
        Some((index, indent.to_string(), handle.to_string()))
    });
    let Some((index, indent, handle)) = found else {
        return Vec::new();
    };
    ["compilation_info", "__tuning_spec_applied__", "tag"]
        .iter()
        .map(|name| {
            let line = format!("transform.annotate {handle} \"{name}\" : {ANY}");
            (
                format!("matcher: {line}"),
                insert_after(text, index, &[format!("{indent}{line}")]),
            )
        })
        .collect()
}

/// Config-only variants that must pass: read-only navigation without a write, another config
/// attribute on the matched op.
fn config_only_variants(text: &str) -> Vec<(String, String)> {
    let Some((index, indent, x, p)) = config_write(text) else {
        return Vec::new();
    };
    let mut variants: Vec<(String, String)> = navigations(&x)
        .into_iter()
        .map(|lines| {
            let lines: Vec<String> = lines.iter().map(|l| format!("{indent}{l}")).collect();
            (lines.join("; "), insert_after(text, index, &lines))
        })
        .collect();
    for name in [
        "lowering_config",
        "translation_info",
        "decomposition_config",
    ] {
        let line = format!(
            "{indent}transform.annotate {x} \"{name}\" = {p} : {ANY}, !transform.any_param"
        );
        variants.push((line.clone(), insert_after(text, index, &[line])));
    }
    variants
}

/// Transform op names in MLIR 22's library (strings of the shared library; names of ops
/// the context does not register are dropped by the caller).
fn mlir_transform_op_candidates() -> Vec<String> {
    let Ok(bytes) = std::fs::read("/usr/lib/llvm-22/lib/libMLIR.so") else {
        assert!(
            !crate::reference::in_ci(),
            "MLIR 22 (libMLIR.so) is required when CI=true"
        );
        return Vec::new();
    };
    let mut names: Vec<String> = bytes
        .split(|&byte| byte == 0)
        .filter_map(|chunk| std::str::from_utf8(chunk).ok())
        .filter(|text| {
            text.starts_with("transform.")
                && text.len() < 80
                && text[10..]
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '.')
        })
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The test's own oracle of transform ops that only read the payload (independent of the
/// rule's list): matching, navigation, parameters, control flow over handles, debugging.
fn only_reads(name: &str) -> bool {
    const PREFIXES: &[&str] = &["transform.match.", "transform.param.", "transform.debug."];
    const EXACT: &[&str] = &[
        "transform.alternatives",
        "transform.cast",
        "transform.collect_matching",
        "transform.foreach",
        "transform.foreach_match",
        "transform.get_consumers_of_result",
        "transform.get_defining_op",
        "transform.get_operand",
        "transform.get_parent_op",
        "transform.get_producer_of_operand",
        "transform.get_result",
        "transform.get_type",
        "transform.include",
        "transform.merge_handles",
        "transform.named_sequence",
        "transform.num_associations",
        "transform.print",
        "transform.select",
        "transform.sequence",
        "transform.split_handle",
        "transform.structured.match",
        "transform.verify",
        "transform.yield",
        // A write, judged by what it writes (the mutants above); not a rewrite.
        "transform.annotate",
    ];
    PREFIXES.iter().any(|prefix| name.starts_with(prefix)) || EXACT.contains(&name)
}

#[test]
fn config_only_specs_pass_and_every_semantics_change_is_refused() {
    let mlir = Mlir::new();
    let mut bases = config_only_specs();
    let dir = tempfile::tempdir().unwrap();
    if let Some(iree_opt) = iree_opt() {
        let dumped = crate::iree_default_spec::dump_default_spec(&iree_opt, "gfx942", dir.path());
        bases.push((
            "IREE's gfx942 default spec".into(),
            std::fs::read_to_string(dumped).unwrap(),
        ));
    }
    assert!(bases.len() >= 20, "{} base specs", bases.len());
    let (mut false_alarms, mut misses, mut mutants, mut variants) = (Vec::new(), Vec::new(), 0, 0);
    for (name, text) in &bases {
        for found in findings(&mlir, text) {
            false_alarms.push(format!("{name}: {found}"));
        }
        // Mutants of the small specs (the large ones add time, not kinds).
        if text.len() > 64 << 10 {
            continue;
        }
        for (what, variant) in config_only_variants(text) {
            variants += 1;
            for found in findings(&mlir, &variant) {
                false_alarms.push(format!("{name} + {what}: {found}"));
            }
        }
        for (what, mutant) in action_mutants(text)
            .into_iter()
            .chain(matcher_mutants(text))
        {
            mutants += 1;
            if findings(&mlir, &mutant).is_empty() {
                misses.push(format!("{name} + {what}"));
            }
        }
    }
    // Every payload-rewriting op MLIR 22 registers, in generic form in an action.
    let base =
        std::fs::read_to_string(repo_root().join("tests/fixtures/specs/good/one_matcher.mlir"))
            .unwrap();
    let (index, indent, x, _) = config_write(&base).unwrap();
    let mut rewriting = 0;
    // In generic form without their regions or results these crash MLIR 22's verifier
    // (SIGSEGV, a tunespec crash on input in verify as well: reported separately); the rule
    // judges them by name like every other op.
    const CRASH_GENERIC: &[&str] = &[
        "transform.structured.continuous_tile_sizes",
        "transform.structured.fuse_into_containing_op",
        "transform.structured.hoist_pad.build_packing_loop_nest",
        "transform.structured.multitile_sizes",
        "transform.with_pdl_patterns",
    ];
    for op in mlir_transform_op_candidates() {
        if only_reads(&op) || CRASH_GENERIC.contains(&op.as_str()) {
            continue;
        }
        let line = format!("{indent}\"{op}\"({x}) : ({ANY}) -> ()");
        let text = insert_after(&base, index, &[line]);
        let verified = verify_bytes(&mlir, text.as_bytes(), "mutant.mlir");
        if verified
            .problems
            .iter()
            .any(|p| p.message.contains("unregistered operation"))
        {
            continue;
        }
        rewriting += 1;
        mutants += 1;
        if !verified
            .problems
            .iter()
            .any(|p| p.code == codes::CHANGES_SEMANTICS && p.is_error())
        {
            misses.push(format!("rewriting op {op}"));
        }
    }
    eprintln!(
        "semantics mutation: {} bases, {variants} config-only variants, {mutants} mutants ({rewriting} rewriting ops); {} false alarms, {} misses",
        bases.len(),
        false_alarms.len(),
        misses.len()
    );
    assert!(
        false_alarms.is_empty(),
        "false alarms:\n{}",
        false_alarms.join("\n")
    );
    assert!(misses.is_empty(), "misses:\n{}", misses.join("\n"));
    assert!(
        mutants >= 500 && variants >= 100,
        "{mutants} mutants, {variants} variants"
    );
    if Path::new("/usr/lib/llvm-22/lib/libMLIR.so").exists() {
        assert!(
            rewriting >= 50,
            "only {rewriting} registered rewriting ops found"
        );
    }
}

#[test]
fn every_allowed_config_attribute_is_a_name_iree_knows() {
    let Some(venv) = crate::iree_library::venv() else {
        return;
    };
    let library = std::fs::read_dir(venv.join("lib"))
        .unwrap()
        .map(|entry| {
            entry
                .unwrap()
                .path()
                .join("site-packages/iree/compiler/_mlir_libs/libIREECompiler.so")
        })
        .find(|path| path.is_file())
        .expect("libIREECompiler.so in the reference venv");
    let bytes = std::fs::read(library).unwrap();
    // A name is a string of its own (a C++ constant), or quoted in the text of the default specs
    // IREE embeds (`__tuning_spec_applied__`, set by the specs, read by nothing).
    let chunks: Vec<&[u8]> = bytes.split(|&byte| byte == 0).collect();
    let strings: std::collections::HashSet<&[u8]> = chunks
        .iter()
        .copied()
        .filter(|chunk| chunk.len() < 64)
        .collect();
    let specs: Vec<&str> = chunks
        .iter()
        .filter(|chunk| chunk.len() > 1024)
        .filter_map(|chunk| std::str::from_utf8(chunk).ok())
        .filter(|text| text.contains("transform.annotate"))
        .collect();
    for name in tunespec::iree_ops::CONFIG_ATTRS {
        let quoted = format!("\"{name}\"");
        assert!(
            strings.contains(name.as_bytes()) || specs.iter().any(|text| text.contains(&quoted)),
            "`{name}` is not a string of IREE's compiler"
        );
    }
}
