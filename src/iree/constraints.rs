//! IREE's own config space of a dispatch: the `iree_codegen.smt.constraints` ops that
//! `iree-compile --compile-to=executable-configurations --iree-codegen-emit-pipeline-constraints`
//! keeps beside each GPU root op (one per pipeline: TileAndFuse, VectorDistribute), their
//! lowering to SMT-LIB, and the `compilation_info` IREE materializes from a knob assignment.
//!
//! Why IREE's passes do the work (run by the install's `iree-opt`): the knobs' meaning (which
//! tile a `red_2` is, which intrinsic an `mma_idx` names) is IREE's and changes with it;
//! `iree-codegen-convert-constraints-to-smt` lowers the constraints and
//! `iree-codegen-test-materialize-smt-constraint-assignments` turns an assignment into the
//! attribute IREE itself would build. tunespec only moves text between them: it copies each
//! constraints op (with the index constants its `dims(...)` operands name) into a small module
//! of its own, so that the passes see nothing else of the model.
//!
//! Why a module of its own: the materialization pass fails on a constraints op without an
//! assignment, and the conversion is nested under `func.func` (on a whole model, a pipeline
//! without the `hal.executable` nesting silently does nothing).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::configs;
use super::runtime::run_tool;

/// One constraints op: the space of one pipeline for one dispatch's root op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Space {
    /// The dispatch function it is in.
    pub function: String,
    /// The pipeline it constrains (`TileAndFuse`, `VectorDistribute`).
    pub pipeline: String,
    /// The knobs' names, in the order the op declares them.
    pub knobs: Vec<String>,
    /// The intrinsics `mma_idx` indexes (`NV_MMA_SYNC_F32_16x8x16_F16`), in order.
    pub intrinsics: Vec<String>,
    /// The op as printed (from its first line to its region's closing brace).
    op: String,
    /// The index constants its `dims(...)` operands name: (name without `%`, value).
    dims: Vec<(String, i64)>,
}

/// The spaces of a printed `executable-configurations` module, in order.
pub fn read(text: &str) -> Vec<Space> {
    let lines: Vec<&str> = text.lines().collect();
    let mut spaces = Vec::new();
    let mut function = String::new();
    let mut constants: Vec<(String, i64)> = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        let trimmed = lines[at].trim_start();
        if let Some(rest) = trimmed.strip_prefix("func.func @") {
            function = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
                .collect();
            constants.clear();
        } else if let Some(constant) = index_constant(trimmed) {
            constants.push(constant);
        } else if trimmed.starts_with("iree_codegen.smt.constraints ") {
            let indent = lines[at].len() - trimmed.len();
            let close = format!("{}}}", " ".repeat(indent));
            let Some(end) = (at + 1..lines.len()).find(|&index| lines[index] == close) else {
                break;
            };
            let op = lines[at..=end].join("\n");
            if let Some(space) = space_of(&function, &op, &constants) {
                spaces.push(space);
            }
            at = end;
        }
        at += 1;
    }
    spaces
}

/// `%c4096 = arith.constant 4096 : index` -> ("c4096", 4096).
fn index_constant(line: &str) -> Option<(String, i64)> {
    let (name, rest) = line.strip_prefix('%')?.split_once(" = arith.constant ")?;
    let value = rest.strip_suffix(" : index")?.trim().parse().ok()?;
    Some((name.to_string(), value))
}

fn space_of(function: &str, op: &str, constants: &[(String, i64)]) -> Option<Space> {
    let pipeline = configs::attribute_named(op, "pipeline")?;
    let pipeline = pipeline
        .strip_prefix("<")
        .and_then(|inner| inner.strip_suffix('>'))
        .unwrap_or(&pipeline)
        .to_string();
    let dims_list = op.split_once("dims(")?.1.split_once(')')?.0;
    let dims = dims_list
        .split(',')
        .map(|name| {
            let name = name.trim().strip_prefix('%')?;
            constants
                .iter()
                .rev()
                .find(|(known, _)| known == name)
                .cloned()
        })
        .collect::<Option<Vec<_>>>()?;
    let knobs = op
        .lines()
        .filter_map(|line| {
            let (_, rest) = line.split_once("iree_codegen.smt.knob \"")?;
            Some(rest.split_once('"')?.0.to_string())
        })
        .collect();
    let header = op.split_once("dims(")?.0;
    let intrinsics = header
        .match_indices("mma_layout<")
        .filter_map(|(at, key)| {
            let rest = &header[at + key.len()..];
            Some(rest[..rest.find('>')?].to_string())
        })
        .collect();
    Some(Space {
        function: function.to_string(),
        pipeline: pipeline_name(&pipeline),
        knobs,
        intrinsics,
        op: op.to_string(),
        dims,
    })
}

/// `#iree_gpu.pipeline<TileAndFuse>` -> `TileAndFuse`.
fn pipeline_name(printed: &str) -> String {
    printed
        .rsplit_once('<')
        .map_or(printed, |(_, inner)| inner.trim_end_matches('>'))
        .to_string()
}

/// A module of `ops` (constraints ops with what each needs), one function each, with
/// `attributes` (an attribute dictionary's entries, or nothing) on each op.
fn module(ops: &[(&Space, Option<String>)]) -> String {
    let mut text = String::from("module {\n");
    for (index, (space, attributes)) in ops.iter().enumerate() {
        text.push_str(&format!("  func.func @space_{index}() {{\n"));
        for (name, value) in &space.dims {
            text.push_str(&format!("    %{name} = arith.constant {value} : index\n"));
        }
        let mut op = space.op.clone();
        if let Some(attributes) = attributes {
            // The op's custom form takes its attribute dictionary after `dims(...)`.
            if let Some(at) = op.find("dims(") {
                if let Some(close) = op[at..].find(')') {
                    op.insert_str(at + close + 1, &format!(" attributes {{{attributes}}}"));
                }
            }
        }
        text.push_str(&op);
        text.push_str("\n    return\n  }\n");
    }
    text.push_str("}\n");
    text
}

/// Runs `iree_opt` with `args` on `input` (written beside `work`), returning its output.
fn iree_opt(
    iree_opt: &Path,
    work: &Path,
    name: &str,
    input: &str,
    args: &[&str],
) -> Result<String, String> {
    let source = work.join(format!("{name}.mlir"));
    let output = work.join(format!("{name}.out.mlir"));
    std::fs::write(&source, input)
        .map_err(|error| format!("cannot write {}: {error}", source.display()))?;
    run_tool(
        Command::new(iree_opt)
            .arg(&source)
            .args(args)
            .arg("-o")
            .arg(&output),
        Duration::from_secs(600),
    )?;
    std::fs::read_to_string(&output)
        .map_err(|error| format!("cannot read {}: {error}", output.display()))
}

/// Each space's constraints lowered to an `smt.solver` op by IREE, as a module of its own
/// (MLIR's `smt` dialect, which MLIR 22 reads): the input of [`crate::mlir`]'s SMT-LIB export.
pub fn to_smt(iree_opt_path: &Path, work: &Path, spaces: &[Space]) -> Result<Vec<String>, String> {
    let ops: Vec<(&Space, Option<String>)> = spaces.iter().map(|space| (space, None)).collect();
    let converted = iree_opt(
        iree_opt_path,
        work,
        "constraints",
        &module(&ops),
        &["--pass-pipeline=builtin.module(func.func(iree_codegen.smt.constraints(iree-codegen-convert-constraints-to-smt)))"],
    )
    .map_err(|error| format!("IREE could not lower its constraints to SMT: {error}"))?;
    let lines: Vec<&str> = converted.lines().collect();
    let mut solvers = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        let trimmed = lines[at].trim_start();
        if trimmed.starts_with("smt.solver(") {
            let indent = lines[at].len() - trimmed.len();
            let close = format!("{}}}", " ".repeat(indent));
            let end = (at + 1..lines.len())
                .find(|&index| lines[index] == close)
                .ok_or("IREE's SMT lowering printed an unclosed solver")?;
            solvers.push(format!("module {{\n{}\n}}\n", lines[at..=end].join("\n")));
            at = end;
        }
        at += 1;
    }
    if solvers.len() != spaces.len() {
        return Err(format!(
            "IREE's SMT lowering gave {} solvers for {} constraint ops",
            solvers.len(),
            spaces.len()
        ));
    }
    Ok(solvers)
}

/// The `compilation_info` IREE materializes from each assignment (values in the order of
/// `space.knobs`), in order: every one in one `iree-opt` run; when that run fails, each alone,
/// so that one bad assignment is reported as its own failure.
pub fn materialize(
    iree_opt_path: &Path,
    work: &Path,
    space: &Space,
    assignments: &[Vec<i64>],
) -> Vec<Result<String, String>> {
    let attributes = |values: &Vec<i64>| {
        let entries: Vec<String> = space
            .knobs
            .iter()
            .zip(values)
            .map(|(knob, value)| format!("{knob} = {value} : i64"))
            .collect();
        Some(format!("test.assignments = {{{}}}", entries.join(", ")))
    };
    let run = |values: &[Vec<i64>]| -> Result<Vec<String>, String> {
        let ops: Vec<(&Space, Option<String>)> =
            values.iter().map(|v| (space, attributes(v))).collect();
        let output = iree_opt(
            iree_opt_path,
            work,
            "assignments",
            &module(&ops),
            &[
                "--iree-codegen-test-materialize-smt-constraint-assignments",
                // Attributes printed whole, not as aliases defined elsewhere in the file.
                "--mlir-print-local-scope",
            ],
        )?;
        let found: Vec<String> = output
            .match_indices("test.materialized_compilation_info = ")
            .filter_map(|(at, key)| configs::attribute_at(&output, at + key.len()))
            .map(|attribute| attribute.trim().to_string())
            .collect();
        if found.len() == values.len() {
            Ok(found)
        } else {
            Err(format!(
                "IREE materialized {} of {} assignments",
                found.len(),
                values.len()
            ))
        }
    };
    match run(assignments) {
        Ok(all) => all.into_iter().map(Ok).collect(),
        Err(_) if assignments.len() > 1 => assignments
            .iter()
            .map(|values| run(std::slice::from_ref(values)).map(|mut one| one.remove(0)))
            .collect(),
        Err(error) => vec![Err(error)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "\
        func.func @main_dispatch_0_matmul() attributes {translation_info = #x} {
          %c4096 = arith.constant 4096 : index
          %c128 = arith.constant 128 : index
          iree_codegen.smt.constraints target = <set = 0>, pipeline = #iree_gpu.pipeline<TileAndFuse>, 
           knobs = {mma_kind = #iree_codegen.smt.one_of_knob<\"mma_idx\", [#iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, #iree_gpu.mma_layout<MFMA_F32_32x32x8_F16>]>, workgroup = [#iree_codegen.smt.int_knob<\"wg_0\">, 0]}
           dims(%c4096, %c128) {
          ^bb0(%arg0: !smt.int, %arg1: !smt.int):
            %11 = iree_codegen.smt.knob \"wg_0\" : !smt.int
            %12 = iree_codegen.smt.knob \"mma_idx\" : !smt.int
          }
          return
        }
";

    #[test]
    fn a_constraints_op_is_read_with_its_pipeline_knobs_and_dims() {
        let spaces = read(TEXT);
        assert_eq!(spaces.len(), 1);
        let space = &spaces[0];
        assert_eq!(space.function, "main_dispatch_0_matmul");
        assert_eq!(space.pipeline, "TileAndFuse");
        assert_eq!(space.knobs, ["wg_0", "mma_idx"]);
        assert_eq!(
            space.intrinsics,
            ["MFMA_F32_16x16x16_F16", "MFMA_F32_32x32x8_F16"]
        );
        assert_eq!(
            space.dims,
            [("c4096".to_string(), 4096), ("c128".to_string(), 128)]
        );
        let module = module(&[(space, Some("test.assignments = {wg_0 = 64 : i64}".into()))]);
        assert!(module.contains("%c4096 = arith.constant 4096 : index"));
        assert!(module
            .contains("dims(%c4096, %c128) attributes {test.assignments = {wg_0 = 64 : i64}} {"));
        assert!(module.trim_end().ends_with("return\n  }\n}"));
    }

    #[test]
    fn an_unclosed_op_reads_as_no_space() {
        let cut: String = TEXT.lines().take(8).collect::<Vec<_>>().join("\n");
        assert!(read(&cut).is_empty());
    }
}
