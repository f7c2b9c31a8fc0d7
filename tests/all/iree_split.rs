//! IREE's check of a written library in parts (issue 32, section 2): a large library is checked
//! by one IREE worker per core, each reading a part of the text; the parts together are the
//! whole text, so IREE accepts what it accepts whole, and a refusal is reported as the whole
//! check reports it.

use std::path::Path;
use std::process::Output;

use crate::iree_library::{venv, with_iree};
use crate::reference::{iree_opt, output_with_timeout};

/// A merge-ready spec whose names clash with every other spec's: `@apply`, `@match_0..3`.
/// `bad`: the second matcher's config names an MMA intrinsic IREE does not have (MLIR 22 reads
/// IREE's attributes as opaque text and cannot tell).
fn spec(index: usize, bad: bool) -> String {
    let mut matchers = String::new();
    for k in 0..4 {
        let intrinsic = if bad && k == 1 {
            "MFMA_NOT_AN_INTRINSIC"
        } else {
            "MFMA_F32_16x16x16_F16"
        };
        matchers.push_str(&format!(
            r#"  transform.named_sequence @match_{k}(%root: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) {{
    transform.match.operation_name %root ["linalg.matmul"] : !transform.any_op
    %rank = transform.match.structured failures(propagate) %root : (!transform.any_op) -> !transform.param<i64> {{
    ^bb0(%s: !transform.any_op):
      %r = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      transform.match.structured.yield %r : !transform.param<i64>
    }}
    %c = transform.param.constant {rank} : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %rank, %c : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{{workgroup = [64, {n}, 0], reduction = [0, 0, 32], mma_kind = #iree_gpu.mma_layout<{intrinsic}>, subgroup_m_count = 2, subgroup_n_count = 2}}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }}
"#,
            rank = 100 * index + k + 2,
            n = 64 * (k + 1),
        ));
    }
    let pairs: Vec<String> = (0..4).map(|k| format!("@match_{k} -> @apply")).collect();
    format!(
        r#"module @user_{index} attributes {{transform.with_named_sequence, iree_codegen.tuning_spec_with_default_entrypoint}} {{
  transform.named_sequence @apply(%op: !transform.any_op {{transform.readonly}}, %config: !transform.any_param {{transform.readonly}}) {{
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }}
{matchers}  transform.named_sequence @__kernel_config(%root: !transform.any_op {{transform.consumed}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{
    %r = transform.foreach_match in %root {pairs} : (!transform.any_op) -> !transform.any_op
    transform.yield %r : !transform.any_op
  }}
}}
"#,
        pairs = pairs.join(", ")
    )
}

/// Three clashing user specs in `dir`, the first with a refused config when `bad`.
fn specs(dir: &Path, bad: bool) -> std::path::PathBuf {
    let specs = dir.join("specs");
    std::fs::create_dir_all(&specs).unwrap();
    for index in 0..3 {
        std::fs::write(
            specs.join(format!("s{index}.mlir")),
            spec(index, bad && index == 0),
        )
        .unwrap();
    }
    specs
}

/// `link -t gfx942 --derived` of the user specs in front of gfx942's defaults (IREE's own ops
/// and aliases), cache off, with IREE's check in parts of at least `part_bytes` (4 workers at
/// most) and `-vv` when `log`.
fn link(venv: &Path, specs: &Path, out: &Path, part_bytes: usize, log: bool) -> Output {
    let mut command = with_iree(venv);
    command
        .env("TUNESPEC_CACHE", "off")
        .env("TUNESPEC_IREE_CHECK_PART_BYTES", part_bytes.to_string());
    if log {
        command.arg("-vv");
    }
    command
        .args(["link", "-t", "gfx942", "--derived", "-j", "4", "-s"])
        .arg(specs)
        .arg("-o")
        .arg(out);
    output_with_timeout(&mut command)
}

/// How many IREE requests of `op` the `-vv` log shows.
fn requests(stderr: &[u8], op: &str) -> usize {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|line| line.contains("iree.request:") && line.ends_with(&format!("(op={op})")))
        .count()
}

/// Whole: a part as large as the library (one request). In parts: 20 kB parts of the 120 kB
/// library, 4 workers (the `-j`).
const WHOLE: usize = 1 << 30;
const PARTS: usize = 20_000;

#[test]
fn a_library_checked_in_four_parts_is_accepted_and_written_as_the_whole_check_writes_it() {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let specs = specs(dir.path(), false);
    let whole = dir.path().join("whole.mlir");
    let parts = dir.path().join("parts.mlir");
    let one = link(&venv, &specs, &whole, WHOLE, true);
    assert!(one.status.success(), "{one:?}");
    assert_eq!(requests(&one.stderr, "check"), 1, "{one:?}");
    let split = link(&venv, &specs, &parts, PARTS, true);
    assert!(split.status.success(), "{split:?}");
    let log = String::from_utf8_lossy(&split.stderr);
    assert!(
        log.contains("iree.check_split") && log.contains("(parts=4)"),
        "{log}"
    );
    // Four parts, each accepted: no fifth, whole check.
    assert_eq!(requests(&split.stderr, "check"), 4, "{log}");
    let written = std::fs::read(&parts).unwrap();
    assert_eq!(written, std::fs::read(&whole).unwrap());
    // What was checked in parts holds renamed names, IREE's ops and aliases: the cases the
    // declarations and the aliases in every part are for.
    let text = String::from_utf8_lossy(&written);
    assert!(
        text.contains("@match_0_1") && text.contains("@apply_1"),
        "{text}"
    );
    assert!(
        text.contains("transform.iree.") && text.starts_with('#'),
        "{text}"
    );
    if let Some(iree_opt) = iree_opt() {
        let read = output_with_timeout(std::process::Command::new(iree_opt).arg(&parts));
        assert!(read.status.success(), "{read:?}");
    }
}

#[test]
fn a_refusal_in_one_part_is_reported_as_the_whole_check_reports_it_and_nothing_is_written() {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let specs = specs(dir.path(), true);
    let whole = dir.path().join("whole.mlir");
    let parts = dir.path().join("parts.mlir");
    let one = link(&venv, &specs, &whole, WHOLE, false);
    let split = link(&venv, &specs, &parts, PARTS, false);
    assert_eq!(one.status.code(), Some(1), "{one:?}");
    assert_eq!(split.status.code(), Some(1), "{split:?}");
    let stderr = String::from_utf8_lossy(&split.stderr);
    assert!(stderr.contains("MFMA_NOT_AN_INTRINSIC"), "{stderr}");
    // The same diagnostics, naming lines of the text that would have been written.
    assert_eq!(
        stderr.replace("parts.mlir", "OUT"),
        String::from_utf8_lossy(&one.stderr).replace("whole.mlir", "OUT")
    );
    assert!(!whole.exists() && !parts.exists());
    // The parts were asked, then the whole text once more.
    let logged = link(&venv, &specs, &parts, PARTS, true);
    assert_eq!(requests(&logged.stderr, "check"), 5, "{logged:?}");
}
