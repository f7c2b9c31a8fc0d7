//! The dispatches of a model worth tuning, read from IREE's own configs: the `linalg.matmul`
//! ops of IREE's `executable-configurations` output (as `iree-compile --compile-to=
//! executable-configurations` prints it) with their shapes, element types, the
//! `lowering_config` IREE chose and the function's `translation_info`, deduplicated by the key
//! a tuner-form matcher would match (two dispatches of one shape are one search).
//!
//! Why `linalg.matmul` and `linalg.batch_matmul` only (on llvm-cpu; a GPU tunes whatever
//! contraction IREE configured): they are the contractions IREE's llvm-cpu backend keeps
//! named, whose matcher key (maps, sizes, types) and loop layout follow from the printed op
//! alone, transposed operands included; other contractions are listed as skipped with the
//! reason, never tuned half-right.

use super::contraction::{self, Shape};
use crate::iree::configs;

/// The ops whose contractions llvm-cpu's space tiles: the named matmuls llvm-cpu keeps, and a
/// `linalg.generic` contraction (a model's own, or `tune --keys`'s payload of a matcher), which
/// llvm-cpu configures with the same tile levels.
const CPU_NAMED: [&str; 3] = ["linalg.matmul", "linalg.batch_matmul", "linalg.generic"];

/// One contraction to tune.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dispatch {
    /// The key in words (`matmul 512x512x512 f32*f32->f32`): the journal's and the report's
    /// identity of the search.
    pub key: String,
    /// The dispatch functions IREE formed with this op (first seen first).
    pub functions: Vec<String>,
    /// Its shape: layout, batch, M, N, K and element types.
    pub shape: Shape,
    /// IREE's own `lowering_config`, as printed.
    pub lowering_config: String,
    /// The function's `translation_info`, as printed.
    pub translation_info: String,
}

/// An op IREE configured that is not tuned, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The dispatch function.
    pub function: String,
    /// The op.
    pub op: String,
    /// Why it is not tuned.
    pub why: String,
}

/// The tunable dispatches of IREE's printed `executable-configurations` IR (deduplicated by
/// key, in IREE's order) and the configured root ops that are not tuned.
pub fn read(text: &str, gpu: bool) -> (Vec<Dispatch>, Vec<Skipped>) {
    let mut dispatches: Vec<Dispatch> = Vec::new();
    let mut skipped = Vec::new();
    let mut function: Option<(String, Option<String>)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("func.func @") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
                .collect();
            function = Some((name, configs::attribute_named(rest, "translation_info")));
            continue;
        }
        let Some(op) = op_name(trimmed) else { continue };
        if !op.starts_with("linalg.") || op == "linalg.fill" || op == "linalg.yield" {
            continue;
        }
        let Some(lowering_config) = configs::attribute_named(trimmed, "lowering_config") else {
            continue;
        };
        let (name, translation) = function.clone().unwrap_or_default();
        let skip = |why: &str| Skipped {
            function: name.clone(),
            op: op.to_string(),
            why: why.to_string(),
        };
        let shape = match contraction::read(op, trimmed) {
            Ok(shape) => shape,
            Err(why) if CPU_NAMED.contains(&op) || gpu => {
                skipped.push(skip(why));
                continue;
            }
            Err(_) => {
                skipped.push(skip(
                    "on llvm-cpu, only contractions (linalg.matmul, linalg.batch_matmul, a linalg.generic contraction) are tuned so far",
                ));
                continue;
            }
        };
        // llvm-cpu's space is tiles of a named matmul's loops where its maps put M, N and K
        // (`space::Layout`); the GPU space is IREE's own constraints of whatever contraction it
        // configured.
        if !gpu && !CPU_NAMED.contains(&op) {
            skipped.push(skip(
                "on llvm-cpu, only contractions (linalg.matmul, linalg.batch_matmul, a linalg.generic contraction) are tuned so far",
            ));
            continue;
        }
        let Some(translation_info) = translation else {
            skipped.push(skip("its function has no translation_info"));
            continue;
        };
        let [lhs, rhs, out] = &shape.types;
        let key = format!("{} {} {lhs}*{rhs}->{out}", shape.kind, shape.dims_words());
        match dispatches.iter_mut().find(|known| known.key == key) {
            Some(known) => known.functions.push(name),
            None => dispatches.push(Dispatch {
                key,
                functions: vec![name],
                shape,
                lowering_config,
                translation_info,
            }),
        }
    }
    (dispatches, skipped)
}

/// The op of a pretty-printed line (`%7 = linalg.matmul {...} ins(...)` -> `linalg.matmul`).
fn op_name(line: &str) -> Option<&str> {
    let rest = match line.split_once(" = ") {
        Some((results, rest)) if results.starts_with('%') => rest,
        _ => line,
    };
    let name = rest.split([' ', '(', '{', '<']).next()?;
    name.contains('.').then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "\
      func.func @main_dispatch_0_matmul_512x256x128_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>} {
        %6 = linalg.fill {lowering_config = #iree_cpu.lowering_config<vector_common_parallel = [8, 16]>} ins(%cst : f32) outs(%5 : tensor<512x256xf32>) -> tensor<512x256xf32>
        %7 = linalg.matmul {lowering_config = #iree_cpu.lowering_config<distribution = [64, 64, 0], vector_common_parallel = [8, 16, 0], vector_reduction = [0, 0, 16]>} ins(%3, %4 : tensor<512x128xf32>, tensor<128x256xf32>) outs(%6 : tensor<512x256xf32>) -> tensor<512x256xf32>
      func.func @main_dispatch_1_matmul_512x256x128_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>} {
        %7 = linalg.matmul {lowering_config = #iree_cpu.lowering_config<distribution = [64, 64, 0], vector_common_parallel = [8, 16, 0], vector_reduction = [0, 0, 16]>} ins(%3, %4 : tensor<512x128xf32>, tensor<128x256xf32>) outs(%6 : tensor<512x256xf32>) -> tensor<512x256xf32>
      func.func @main_dispatch_2_batch_matmul() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>} {
        %7 = linalg.batch_matmul {lowering_config = #iree_cpu.lowering_config<distribution = [1, 64, 64, 0]>} ins(%3, %4 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%6 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
      func.func @main_dispatch_3_conv() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<ConvTileAndDecomposeExpert>>} {
        %7 = linalg.conv_2d_nhwc_hwcf {lowering_config = #iree_cpu.lowering_config<distribution = [0, 4, 56, 64, 0, 0, 0]>} ins(%3, %4 : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>) outs(%6 : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
";

    #[test]
    fn matmuls_are_read_with_their_config_and_deduplicated_by_key() {
        let (dispatches, skipped) = read(TEXT, false);
        assert_eq!(dispatches.len(), 2);
        assert_eq!(dispatches[1].key, "batch_matmul 2x8x8x8 f32*f32->f32");
        assert_eq!(dispatches[1].shape.batch, [2]);
        let dispatch = &dispatches[0];
        assert_eq!(dispatch.key, "matmul 512x256x128 f32*f32->f32");
        assert_eq!(dispatch.shape.sizes, [512, 256, 128]);
        assert_eq!(dispatch.functions.len(), 2);
        assert!(dispatch
            .lowering_config
            .starts_with("#iree_cpu.lowering_config<distribution = [64, 64, 0]"));
        assert!(dispatch.translation_info.contains("DoubleTilingExpert"));
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].op, "linalg.conv_2d_nhwc_hwcf");
        assert!(
            skipped[0].why.contains("linalg.batch_matmul"),
            "{}",
            skipped[0].why
        );
    }

    #[test]
    fn dynamic_shapes_are_skipped_with_a_reason() {
        let text = TEXT.replace("tensor<512x128xf32>", "tensor<?x128xf32>");
        let (dispatches, skipped) = read(&text, false);
        assert!(dispatches.iter().all(|d| d.shape.kind == "batch_matmul"));
        assert!(skipped.iter().any(|s| s.why.contains("static")));
    }
}
