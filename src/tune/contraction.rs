//! A contraction's shape read from its printed op: which loop dimensions are batch, M, N and K
//! (from the indexing maps), their sizes (from the operand types), and the name of the layout.
//!
//! Why from the maps: IREE's GPU pipelines generalize every matmul to `linalg.generic` before
//! configuring it (llvm-cpu keeps the named ops), and a tuner-form matcher
//! (`transform.iree.match.contraction`) matches by maps and dimension groups, not by op name.
//! The classification is the one contraction matchers use: a dimension in both inputs and the
//! output is a batch dimension, in the left input and the output an M, in the right input and
//! the output an N, in both inputs only a K.

use crate::iree::configs;

/// The maps of a row-major matmul (`C[m, n] += A[m, k] * B[k, n]`).
pub const MATMUL_MAPS: [&str; 3] = [
    "affine_map<(d0, d1, d2) -> (d0, d2)>",
    "affine_map<(d0, d1, d2) -> (d2, d1)>",
    "affine_map<(d0, d1, d2) -> (d0, d1)>",
];

/// The maps of a batch matmul (`C[b, m, n] += A[b, m, k] * B[b, k, n]`).
pub const BATCH_MATMUL_MAPS: [&str; 3] = [
    "affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>",
    "affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>",
    "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>",
];

/// The maps of a matmul with the right operand transposed (`B[n, k]`, a linear layer).
const MATMUL_TRANSPOSE_B_MAPS: [&str; 3] = [
    "affine_map<(d0, d1, d2) -> (d0, d2)>",
    "affine_map<(d0, d1, d2) -> (d1, d2)>",
    "affine_map<(d0, d1, d2) -> (d0, d1)>",
];

/// A contraction with one M, one N and one K dimension (and any batch dimensions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The layout's name: `matmul`, `batch_matmul`, `matmul_transpose_b` or `contraction`.
    pub kind: &'static str,
    /// The indexing maps (lhs, rhs, output) as printed.
    pub maps: [String; 3],
    /// The sizes of the batch dimensions, in loop order.
    pub batch: Vec<i64>,
    /// M, N, K.
    pub sizes: [i64; 3],
    /// lhs, rhs and output element types.
    pub types: [String; 3],
    /// Where M, N and K are in the loop order (`[0, 1, 2]` for a matmul): the position of a
    /// knob's tile in a `workgroup`/`reduction` list.
    pub loops: [usize; 3],
}

impl Shape {
    /// The dimensions in words: the batch sizes, then M, N and K (`32x4096x4096x128`).
    pub fn dims_words(&self) -> String {
        self.batch
            .iter()
            .chain(self.sizes.iter())
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join("x")
    }
}

impl Shape {
    /// The same contraction without its batch dimensions (maps renumbered): the problem whose
    /// space IREE can describe when it cannot describe the batched one.
    pub fn without_batch(&self) -> Shape {
        let mut maps = Vec::new();
        let parsed: Vec<(usize, Vec<usize>)> =
            self.maps.iter().filter_map(|map| parse_map(map)).collect();
        let loops = parsed.first().map_or(0, |(count, _)| *count);
        let batch: Vec<usize> = (0..loops)
            .filter(|dim| parsed.iter().all(|(_, results)| results.contains(dim)))
            .collect();
        let renumber = |dim: usize| dim - batch.iter().filter(|&&b| b < dim).count();
        let kept = loops - batch.len();
        let domain: Vec<String> = (0..kept).map(|dim| format!("d{dim}")).collect();
        for (_, results) in &parsed {
            let results: Vec<String> = results
                .iter()
                .filter(|dim| !batch.contains(dim))
                .map(|&dim| format!("d{}", renumber(dim)))
                .collect();
            maps.push(format!(
                "affine_map<({}) -> ({})>",
                domain.join(", "),
                results.join(", ")
            ));
        }
        let maps: [String; 3] = maps.try_into().unwrap_or_else(|_| self.maps.clone());
        Shape {
            kind: layout_name(&maps),
            maps,
            batch: Vec::new(),
            sizes: self.sizes,
            types: self.types.clone(),
            loops: self.loops.map(renumber),
        }
    }

    /// A config of [`Shape::without_batch`]'s loops lifted to this shape's: each per-loop list
    /// of the `lowering_config` (`workgroup`, `reduction`, `subgroup`) gets the batch loops
    /// back, tile 1 in `workgroup` and 0 elsewhere; VectorDistribute's `subgroup_basis` gets a
    /// count of 1 for them and the identity mapping. `None` when a list is not of the
    /// surrogate's three loops or the basis maps them otherwise.
    pub fn lift(&self, lowering_config: &str) -> Option<String> {
        if self.batch.is_empty() {
            return Some(lowering_config.to_string());
        }
        let surrogate = self.without_batch();
        let loops = self.batch.len() + 3;
        let mut out = lowering_config.to_string();
        // VectorDistribute: subgroup counts per loop and their mapping, `[[m, n, k], [0, 1, 2]]`.
        if let Some(basis) = configs::attribute_named(&out, "subgroup_basis") {
            let lists: Vec<Vec<i64>> = basis
                .trim()
                .strip_prefix('[')?
                .strip_suffix(']')?
                .split(']')
                .map(|part| part.trim_start_matches([',', ' ', '[']))
                .filter(|part| !part.trim().is_empty())
                .map(|part| {
                    part.split(',')
                        .map(|item| item.trim().parse().ok())
                        .collect::<Option<Vec<i64>>>()
                })
                .collect::<Option<_>>()?;
            let [counts, mapping] = <[Vec<i64>; 2]>::try_from(lists).ok()?;
            if counts.len() != 3 || mapping != [0, 1, 2] {
                return None;
            }
            let mut lifted = vec![1; loops];
            for role in 0..3 {
                lifted[self.loops[role]] = counts[surrogate.loops[role]];
            }
            let list = |values: &[i64]| {
                values
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let identity: Vec<i64> = (0..loops as i64).collect();
            out = out.replacen(
                &format!("subgroup_basis = {basis}"),
                &format!(
                    "subgroup_basis = [[{}], [{}]]",
                    list(&lifted),
                    list(&identity)
                ),
                1,
            );
        }
        for (key, batch_value) in [("workgroup", 1), ("reduction", 0), ("subgroup", 0)] {
            let Some(list) = configs::attribute_named(&out, key) else {
                continue;
            };
            let values: Vec<i64> = list
                .trim_start_matches('[')
                .trim_end_matches(']')
                .split(',')
                .map(|item| item.trim().parse().ok())
                .collect::<Option<_>>()?;
            if values.len() != 3 {
                return None;
            }
            let mut lifted = vec![batch_value; loops];
            for role in 0..3 {
                lifted[self.loops[role]] = values[surrogate.loops[role]];
            }
            let printed: Vec<String> = lifted.iter().map(i64::to_string).collect();
            out = out.replacen(
                &format!("{key} = {list}"),
                &format!("{key} = [{}]", printed.join(", ")),
                1,
            );
        }
        Some(out)
    }
}

/// The shape of the contraction `op` printed on `line`, or why it is not one tunespec tunes.
pub fn read(op: &str, line: &str) -> Result<Shape, &'static str> {
    let maps: Vec<String> = match configs::attribute_named(line, "indexing_maps") {
        Some(list) => split_maps(&list),
        None if op == "linalg.matmul" => MATMUL_MAPS.iter().map(|m| m.to_string()).collect(),
        None if op == "linalg.batch_matmul" => {
            BATCH_MATMUL_MAPS.iter().map(|m| m.to_string()).collect()
        }
        None => return Err("it is not a contraction tunespec reads (no indexing maps)"),
    };
    let maps: [String; 3] = maps
        .try_into()
        .map_err(|_| "it has other than two inputs and one output")?;
    let operands = operand_types(line).ok_or("its operands are not static tensors")?;
    let parsed: Vec<(usize, Vec<usize>)> = maps
        .iter()
        .map(|map| parse_map(map))
        .collect::<Option<_>>()
        .ok_or("its indexing maps are not projections of the loops")?;
    let loops = parsed[0].0;
    if parsed.iter().any(|(count, _)| *count != loops) {
        return Err("its indexing maps disagree on the loops");
    }
    let mut sizes = vec![None::<i64>; loops];
    for ((_, results), (shape, _)) in parsed.iter().zip(&operands) {
        if results.len() != shape.len() {
            return Err("an operand's rank differs from its map's");
        }
        for (&dim, &size) in results.iter().zip(shape) {
            match sizes[dim] {
                Some(known) if known != size => return Err("its operands disagree on a size"),
                _ => sizes[dim] = Some(size),
            }
        }
    }
    let (mut batch, mut m, mut n, mut k) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (dim, size) in sizes.iter().enumerate() {
        let in_ = |index: usize| parsed[index].1.contains(&dim);
        let size = size.ok_or("a loop is in no operand")?;
        match (in_(0), in_(1), in_(2)) {
            (true, true, true) => batch.push((dim, size)),
            (true, false, true) => m.push((dim, size)),
            (false, true, true) => n.push((dim, size)),
            (true, true, false) => k.push((dim, size)),
            _ => return Err("a loop is not a batch, M, N or K dimension"),
        }
    }
    if k.is_empty() {
        return Err("it is not a contraction (no dimension reduced over both inputs)");
    }
    let (&[(dm, sm)], &[(dn, sn)], &[(dk, sk)]) = (m.as_slice(), n.as_slice(), k.as_slice()) else {
        return Err("it has not exactly one M, one N and one K dimension (not tuned so far)");
    };
    let types = [
        operands[0].1.clone(),
        operands[1].1.clone(),
        operands[2].1.clone(),
    ];
    let kind = layout_name(&maps);
    Ok(Shape {
        kind,
        maps,
        batch: batch.into_iter().map(|(_, size)| size).collect(),
        sizes: [sm, sn, sk],
        types,
        loops: [dm, dn, dk],
    })
}

/// The layout's name, from the maps (whitespace as MLIR prints it).
fn layout_name(maps: &[String; 3]) -> &'static str {
    let same = |known: &[&str; 3]| maps.iter().zip(known).all(|(a, b)| a == b);
    if same(&MATMUL_MAPS) {
        "matmul"
    } else if same(&BATCH_MATMUL_MAPS) {
        "batch_matmul"
    } else if same(&MATMUL_TRANSPOSE_B_MAPS) {
        "matmul_transpose_b"
    } else {
        "contraction"
    }
}

/// `[affine_map<...>, affine_map<...>]` -> each map.
fn split_maps(list: &str) -> Vec<String> {
    let mut maps = Vec::new();
    let mut rest = list;
    while let Some(at) = rest.find("affine_map<") {
        match configs::attribute_at(rest, at + "affine_map".len()) {
            Some(inner) => {
                maps.push(format!("affine_map{inner}"));
                rest = &rest[at + "affine_map".len() + inner.len()..];
            }
            None => break,
        }
    }
    maps
}

/// `affine_map<(d0, d1, d2) -> (d0, d2)>` -> (3, [0, 2]); `None` unless every result is a loop.
fn parse_map(map: &str) -> Option<(usize, Vec<usize>)> {
    let inner = map.strip_prefix("affine_map<")?.strip_suffix('>')?;
    let (domain, results) = inner.split_once("->")?;
    let list = |text: &str| -> Option<Vec<usize>> {
        let text = text.trim().strip_prefix('(')?.strip_suffix(')')?;
        if text.trim().is_empty() {
            return Some(Vec::new());
        }
        text.split(',')
            .map(|item| item.trim().strip_prefix('d')?.parse::<usize>().ok())
            .collect()
    };
    let domain = list(domain)?;
    if domain.iter().enumerate().any(|(index, &dim)| index != dim) {
        return None;
    }
    let results = list(results)?;
    results
        .iter()
        .all(|&dim| dim < domain.len())
        .then_some((domain.len(), results))
}

/// The operands' shapes and element types of a printed structured op:
/// `ins(%a, %b : tensor<MxKxf16>, tensor<KxNxf16>) outs(%c : tensor<MxNxf32>)`.
fn operand_types(line: &str) -> Option<Vec<(Vec<i64>, String)>> {
    let ins = line.split_once("ins(")?.1;
    let (_, types) = ins.split_once(" : ")?;
    let types = types.split_once(')')?.0;
    let outs = line.split_once("outs(")?.1.split_once(" : ")?.1;
    let outs = outs.split_once(')')?.0;
    types
        .split(", ")
        .chain(std::iter::once(outs))
        .map(tensor)
        .collect()
}

/// `tensor<512x256xf32>` -> ([512, 256], "f32"); `None` for a dynamic or unranked tensor.
pub fn tensor(text: &str) -> Option<(Vec<i64>, String)> {
    let inner = text.trim().strip_prefix("tensor<")?.strip_suffix('>')?;
    let mut parts: Vec<&str> = inner.split('x').collect();
    let element = parts.pop()?.to_string();
    let shape = parts
        .into_iter()
        .map(|size| size.parse::<i64>().ok().filter(|&size| size > 0))
        .collect::<Option<Vec<i64>>>()?;
    Some((shape, element))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_matmul_and_a_generic_batch_matmul_are_classified_by_their_maps() {
        let line = "%7 = linalg.matmul {lowering_config = #x} ins(%3, %4 : tensor<512x128xf32>, tensor<128x256xf32>) outs(%6 : tensor<512x256xf32>) -> tensor<512x256xf32>";
        let shape = read("linalg.matmul", line).unwrap();
        assert_eq!(shape.kind, "matmul");
        assert_eq!(shape.sizes, [512, 256, 128]);
        assert_eq!(shape.loops, [0, 1, 2]);
        assert!(shape.batch.is_empty());
        let generic = "%7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = [\"parallel\", \"parallel\", \"parallel\", \"reduction\"]} ins(%3, %4 : tensor<32x4096x128xf16>, tensor<32x128x4096xf16>) outs(%6 : tensor<32x4096x4096xf32>) attrs =  {lowering_config = #x} {";
        let shape = read("linalg.generic", generic).unwrap();
        assert_eq!(shape.kind, "batch_matmul");
        assert_eq!(shape.batch, vec![32]);
        assert_eq!(shape.sizes, [4096, 4096, 128]);
        assert_eq!(shape.types, ["f16".to_string(), "f16".into(), "f32".into()]);
        assert_eq!(shape.dims_words(), "32x4096x4096x128");
        assert_eq!(shape.loops, [1, 2, 3]);
        let surrogate = shape.without_batch();
        assert_eq!(surrogate.kind, "matmul");
        assert_eq!(surrogate.loops, [0, 1, 2]);
        assert!(surrogate.batch.is_empty());
        let config = "#iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, promote_operands = [0, 1], reduction = [0, 0, 4], subgroup = [2, 4, 0], workgroup = [64, 128, 0]}>";
        assert_eq!(
            shape.lift(config).unwrap(),
            "#iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, promote_operands = [0, 1], reduction = [0, 0, 0, 4], subgroup = [0, 2, 4, 0], workgroup = [1, 64, 128, 0]}>"
        );
        assert_eq!(
            shape
                .lift("#iree_gpu.lowering_config<{reduction = [0, 0, 64], subgroup_basis = [[2, 4, 1], [0, 1, 2]], workgroup = [64, 128, 0]}>")
                .unwrap(),
            "#iree_gpu.lowering_config<{reduction = [0, 0, 0, 64], subgroup_basis = [[1, 2, 4, 1], [0, 1, 2, 3]], workgroup = [1, 64, 128, 0]}>"
        );
        assert!(shape
            .lift("#iree_gpu.lowering_config<{subgroup_basis = [[1, 2, 1], [0, 2, 1]]}>")
            .is_none());
        let linear = generic
            .replace(
                "(d0, d1, d2, d3) -> (d0, d1, d3)",
                "(d0, d1, d2) -> (d0, d2)",
            )
            .replace(
                "(d0, d1, d2, d3) -> (d0, d3, d2)",
                "(d0, d1, d2) -> (d1, d2)",
            )
            .replace(
                "(d0, d1, d2, d3) -> (d0, d1, d2)",
                "(d0, d1, d2) -> (d0, d1)",
            )
            .replace("tensor<32x4096x128xf16>", "tensor<2048x5120xf16>")
            .replace("tensor<32x128x4096xf16>", "tensor<1280x5120xf16>")
            .replace("tensor<32x4096x4096xf32>", "tensor<2048x1280xf32>");
        let shape = read("linalg.generic", &linear).unwrap();
        assert_eq!(shape.kind, "matmul_transpose_b");
        assert_eq!(shape.sizes, [2048, 1280, 5120]);
    }

    #[test]
    fn what_is_not_a_single_mnk_static_contraction_says_why() {
        let dynamic = "%7 = linalg.matmul ins(%3, %4 : tensor<?x128xf32>, tensor<128x256xf32>) outs(%6 : tensor<?x256xf32>)";
        assert!(read("linalg.matmul", dynamic)
            .unwrap_err()
            .contains("static"));
        assert!(read(
            "linalg.add",
            "%1 = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%c : tensor<4xf32>)"
        )
        .is_err());
        let elementwise = "%7 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]} ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%c : tensor<4xf32>)";
        assert!(read("linalg.generic", elementwise)
            .unwrap_err()
            .contains("not a contraction"));
        // Two M dimensions (a contraction tunespec does not tune so far).
        let two_m = "%7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]} ins(%a, %b : tensor<2x4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<2x4x16xf32>)";
        assert!(read("linalg.generic", two_m)
            .unwrap_err()
            .contains("exactly one"));
    }
}
