//! What a tuner-form matcher matches, read from its ops, and the payload built from it: the one
//! op the matcher is meant for, of that shape, element types and layout, which IREE then forms
//! into a dispatch and configures.
//!
//! Why a payload of its own per matcher: a spec's matchers are keyed by exact shapes; the only
//! way to know that IREE in use still applies a matcher is to give IREE such an op and look at
//! the config its dispatch gets (as `tools/check-default-configs.py` does for the defaults).

use std::collections::HashMap;

use crate::ir::{self, Attr, Loc, ValueRef};

/// A matcher of a root op (`transform.iree.match.contraction|convolution|attention|
/// online_attention`), with what it requires.
#[derive(Clone, Debug, PartialEq)]
pub struct MatcherInfo {
    /// The named sequence.
    pub name: String,
    /// Where it is defined.
    pub loc: Option<Loc>,
    /// `contraction`, `convolution`, `attention`, `online_attention`.
    pub kind: String,
    /// `lhs_type`, `rhs_type`, `output_type` (contraction, convolution).
    pub types: Option<[String; 3]>,
    /// The indexing maps, as written (`affine_map<(d0, d1, d2) -> (d0, d2)>`).
    pub maps: Vec<String>,
    /// The `dims_equal` sizes per result of the root match op (its dimension groups).
    pub dims: Vec<Option<Vec<i64>>>,
    /// The `#iree_codegen.compilation_info<...>` the matcher yields (tuner form).
    pub config: Option<String>,
}

/// Attribute text as MLIR writes it (types, maps and integers are what the matchers hold).
fn attr_text(attr: &Attr) -> String {
    match attr {
        Attr::Type(text) | Attr::Other(text) => text.clone(),
        Attr::Str(text) => format!("{text:?}"),
        Attr::Int(value) => value.to_string(),
        Attr::Unit => "unit".to_string(),
        Attr::I64Array(values) => format!("{values:?}"),
        Attr::Array(items) => format!(
            "[{}]",
            items.iter().map(attr_text).collect::<Vec<_>>().join(", ")
        ),
        Attr::SymbolRef(path) => format!("@{}", path.join("::@")),
        Attr::Dict(entries) => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(name, value)| format!("{name} = {}", attr_text(value)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn ints(attr: &Attr) -> Option<Vec<i64>> {
    match attr {
        Attr::I64Array(values) => Some(values.clone()),
        Attr::Array(items) => items
            .iter()
            .map(|item| match item {
                Attr::Int(value) => Some(*value),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// The root matcher `name` of `module` (parsed from `text`), read (`None` when it has no root
/// match op). Its config is read from the text: the snapshot leaves IREE's attributes
/// unprinted.
pub fn matcher_info(module: &ir::Module, text: &str, name: &str) -> Option<MatcherInfo> {
    let mut sequence = None;
    module.root.walk(&mut |op| {
        if sequence.is_none() && op.name == ir::names::NAMED_SEQUENCE && op.sym_name() == Some(name)
        {
            sequence = Some(op);
        }
    });
    let sequence = sequence?;
    let body = sequence.body();
    let root = body.iter().find(|op| {
        op.name
            .strip_prefix("transform.iree.match.")
            .is_some_and(|kind| {
                matches!(
                    kind,
                    "contraction" | "convolution" | "attention" | "online_attention"
                )
            })
    })?;
    let kind = root.name["transform.iree.match.".len()..].to_string();
    let types = match (
        root.attr("lhs_type"),
        root.attr("rhs_type"),
        root.attr("output_type"),
    ) {
        (Some(lhs), Some(rhs), Some(out)) => Some([attr_text(lhs), attr_text(rhs), attr_text(out)]),
        _ => None,
    };
    let maps = root
        .attr("indexing_maps")
        .and_then(Attr::as_array)
        .map(|maps| maps.iter().map(attr_text).collect())
        .unwrap_or_default();
    let mut dims = vec![None; root.result_types.len()];
    for op in body
        .iter()
        .filter(|op| op.name == "transform.iree.match.dims_equal")
    {
        let Some(ValueRef::Result { op: from, index }) = op.operands.first() else {
            continue;
        };
        if *from != root.id {
            continue;
        }
        let sizes = op.attrs.iter().find_map(|(_, value)| ints(value));
        if let (Some(slot), Some(sizes)) = (dims.get_mut(*index as usize), sizes) {
            *slot = Some(sizes);
        }
    }
    let texts = crate::iree_attrs::AttrTexts::from_text(text, module);
    let config = body
        .iter()
        .filter(|op| op.name == "transform.param.constant")
        .filter_map(|op| texts.get(op, "value"))
        .find_map(|value| {
            let at = value.find("#iree_codegen.compilation_info<")?;
            crate::iree::configs::attribute_at(&value, at)
        });
    Some(MatcherInfo {
        name: name.to_string(),
        loc: sequence.loc.clone(),
        kind,
        types,
        maps,
        dims,
        config,
    })
}

/// `affine_map<(d0, d1, d2) -> (d0, d2)>` -> (["d0", "d1", "d2"], ["d0", "d2"]): plain
/// permutations and projections only.
fn parse_map(map: &str) -> Option<(Vec<String>, Vec<String>)> {
    let inner = map.trim().strip_prefix("affine_map<")?.strip_suffix('>')?;
    let (dims, results) = inner.split_once("->")?;
    let list = |text: &str| -> Option<Vec<String>> {
        let text = text.trim().strip_prefix('(')?.strip_suffix(')')?;
        Some(
            text.split(',')
                .map(|item| item.trim().to_string())
                .filter(|item| !item.is_empty())
                .collect(),
        )
    };
    let (dims, results) = (list(dims)?, list(results)?);
    results
        .iter()
        .all(|result| dims.contains(result))
        .then_some((dims, results))
}

fn is_float(ty: &str) -> bool {
    ty.starts_with('f') || ty.starts_with("bf") || ty.starts_with("tf")
}

/// The payload (a `func.func` named `function`) the matcher is meant for, or why none can be
/// built.
pub fn payload(info: &MatcherInfo, function: &str) -> Result<String, String> {
    match info.kind.as_str() {
        "contraction" => contraction(info, function),
        "convolution" => convolution(info, function),
        kind => Err(format!(
            "no payload is built for a {kind} matcher (IREE forms attention dispatches from a model's attention op with its masks and scales; check it with `explain --exact` on the model)"
        )),
    }
}

fn sized(info: &MatcherInfo, group: usize, name: &str) -> Result<Vec<i64>, String> {
    info.dims
        .get(group)
        .cloned()
        .flatten()
        .ok_or_else(|| format!("no dims_equal on the {name} dimensions: the shape is not fixed"))
}

fn tensor(shape: &[i64], ty: &str) -> String {
    let mut text = String::from("tensor<");
    for size in shape {
        text.push_str(&format!("{size}x"));
    }
    text.push_str(ty);
    text.push('>');
    text
}

/// A contraction as a `linalg.generic` with the matcher's maps, element types and sizes.
fn contraction(info: &MatcherInfo, function: &str) -> Result<String, String> {
    let [lhs, rhs, out] = info
        .types
        .clone()
        .ok_or("the matcher names no element types")?;
    let parsed: Vec<(Vec<String>, Vec<String>)> = info
        .maps
        .iter()
        .map(|map| parse_map(map).ok_or_else(|| format!("unsupported indexing map {map}")))
        .collect::<Result<_, _>>()?;
    let [(loops, a), (_, b), (_, c)] = parsed.as_slice() else {
        return Err("a contraction needs three indexing maps".to_string());
    };
    let (size, reduction) = contraction_sizes(info, loops, [a, b, c])?;
    let shape = |dims: &Vec<String>| -> Vec<i64> { dims.iter().map(|d| size[d]).collect() };
    let (ta, tb, tc) = (
        tensor(&shape(a), &lhs),
        tensor(&shape(b), &rhs),
        tensor(&shape(c), &out),
    );
    let zero = if is_float(&out) { "0.0" } else { "0" };
    let (xa, xs) = widen("x", &lhs, &out);
    let (ya, ys) = widen("y", &rhs, &out);
    let (mul, add) = if is_float(&out) {
        ("arith.mulf", "arith.addf")
    } else {
        ("arith.muli", "arith.addi")
    };
    let iterators: Vec<&str> = loops
        .iter()
        .map(|d| {
            if reduction.contains(&d) {
                "\"reduction\""
            } else {
                "\"parallel\""
            }
        })
        .collect();
    Ok(format!(
        "func.func @{function}(%a: {ta}, %b: {tb}) -> {tc} {{\n\
         \x20 %z = arith.constant {zero} : {out}\n\
         \x20 %e = tensor.empty() : {tc}\n\
         \x20 %f = linalg.fill ins(%z : {out}) outs(%e : {tc}) -> {tc}\n\
         \x20 %r = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{iterators}]}} ins(%a, %b : {ta}, {tb}) outs(%f : {tc}) {{\n\
         \x20 ^bb0(%x: {lhs}, %y: {rhs}, %acc: {out}):\n{xs}{ys}\
         \x20   %p = {mul} {xa}, {ya} : {out}\n\
         \x20   %s = {add} %acc, %p : {out}\n\
         \x20   linalg.yield %s : {out}\n\
         \x20 }} -> {tc}\n\
         \x20 return %r : {tc}\n}}\n",
        maps = info.maps.join(", "),
        iterators = iterators.join(", "),
    ))
}

/// The size of every loop of a contraction whose operand maps use the dimensions `operands`
/// (lhs, rhs, out): each loop's group (batch, m, n, k: by which operands use it) sized by the
/// matcher's `dims_equal` on that group; and the reduction (k) loops.
fn contraction_sizes<'a>(
    info: &MatcherInfo,
    loops: &'a [String],
    operands: [&Vec<String>; 3],
) -> Result<(HashMap<String, i64>, Vec<&'a String>), String> {
    let in_all = |d: &String, want: [bool; 3]| {
        operands
            .iter()
            .zip(want)
            .all(|(set, w)| set.contains(d) == w)
    };
    let mut groups: Vec<Vec<&String>> = [
        [true, true, true],
        [true, false, true],
        [false, true, true],
        [true, true, false],
    ]
    .iter()
    .map(|want| loops.iter().filter(|d| in_all(d, *want)).collect())
    .collect();
    let mut size = HashMap::new();
    for (index, (group, name)) in groups.iter().zip(["batch", "m", "n", "k"]).enumerate() {
        // A group the maps give no loop needs no size: a matcher that pins m, n and k but not
        // the batch dims matches the batch-free op (its maps have no batch loop), built as is.
        let values = match sized(info, index, name) {
            Err(_) if group.is_empty() => Vec::new(),
            sized => sized?,
        };
        if values.len() != group.len() {
            return Err(format!(
                "dims_equal on {name} has {} value(s) for {} loop(s)",
                values.len(),
                group.len()
            ));
        }
        for (dim, value) in group.iter().zip(values) {
            size.insert((*dim).clone(), value);
        }
    }
    if size.len() != loops.len() {
        return Err("a loop is in no contraction group".to_string());
    }
    let reduction = groups.pop().unwrap_or_default();
    Ok((size, reduction))
}

/// An operand of element type `ty` as the accumulator's type `out`: its name in the body, and
/// the extension op that widens it (none when the types are the same).
fn widen(value: &str, ty: &str, out: &str) -> (String, String) {
    if ty == out {
        (format!("%{value}"), String::new())
    } else if is_float(ty) {
        (
            format!("%{value}e"),
            format!("    %{value}e = arith.extf %{value} : {ty} to {out}\n"),
        )
    } else {
        (
            format!("%{value}e"),
            format!("    %{value}e = arith.extsi %{value} : {ty} to {out}\n"),
        )
    }
}

/// An NHWC x HWCF 2-D convolution (the layout the tuner generates for), strides and dilations
/// from the matcher when it fixes them, else 1.
fn convolution(info: &MatcherInfo, function: &str) -> Result<String, String> {
    let [lhs, rhs, out] = info
        .types
        .clone()
        .ok_or("the matcher names no element types")?;
    let batch = sized(info, 0, "batch")?;
    let image = sized(info, 1, "output image")?;
    let channel = sized(info, 2, "output channel")?;
    let filter = sized(info, 3, "filter")?;
    let input_channel = sized(info, 4, "input channel")?;
    let depth = info.dims.get(5).cloned().flatten().unwrap_or_default();
    let strides = info.dims.get(6).cloned().flatten().unwrap_or(vec![1, 1]);
    let dilations = info.dims.get(7).cloned().flatten().unwrap_or(vec![1, 1]);
    let ([n], [oh, ow], [f], [kh, kw], [c], [], [sh, sw], [dh, dw]) = (
        batch.as_slice(),
        image.as_slice(),
        channel.as_slice(),
        filter.as_slice(),
        input_channel.as_slice(),
        depth.as_slice(),
        strides.as_slice(),
        dilations.as_slice(),
    ) else {
        return Err(
            "only a 2-D NHWC x HWCF convolution (one batch, two image, one channel dim each) is built"
                .to_string(),
        );
    };
    let (h, w) = (
        (oh - 1) * sh + (kh - 1) * dh + 1,
        (ow - 1) * sw + (kw - 1) * dw + 1,
    );
    let (ti, tf, to) = (
        tensor(&[*n, h, w, *c], &lhs),
        tensor(&[*kh, *kw, *c, *f], &rhs),
        tensor(&[*n, *oh, *ow, *f], &out),
    );
    let zero = if is_float(&out) { "0.0" } else { "0" };
    Ok(format!(
        "func.func @{function}(%a: {ti}, %b: {tf}) -> {to} {{\n\
         \x20 %z = arith.constant {zero} : {out}\n\
         \x20 %e = tensor.empty() : {to}\n\
         \x20 %f = linalg.fill ins(%z : {out}) outs(%e : {to}) -> {to}\n\
         \x20 %r = linalg.conv_2d_nhwc_hwcf {{dilations = dense<[{dh}, {dw}]> : tensor<2xi64>, strides = dense<[{sh}, {sw}]> : tensor<2xi64>}} ins(%a, %b : {ti}, {tf}) outs(%f : {to}) -> {to}\n\
         \x20 return %r : {to}\n}}\n"
    ))
}

/// The payload function's name for a matcher: `check_` and the name, other characters than
/// letters, digits and `_` as `_` (IREE names the dispatch after it).
pub fn function_name(matcher: &str) -> String {
    let body: String = matcher
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("check_{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tuner_matcher_is_read_and_its_payload_built() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/tuner/tuning_2026_11_20_10_00/candidates/specs/1_spec.mlir"
        ))
        .unwrap();
        let mlir = crate::mlir::Mlir::new();
        let verified = crate::verify::verify_bytes(&mlir, text.as_bytes(), "1_spec.mlir");
        let module = verified.snapshot.unwrap();
        let name = "match_main_dispatch_0_matmul_transpose_b_2048x4096x4096_f16xf16xf32";
        let info = matcher_info(&module, &text, name).unwrap();
        assert_eq!(info.kind, "contraction");
        assert_eq!(info.types.as_ref().unwrap()[2], "f32");
        assert_eq!(info.dims[1], Some(vec![2048]));
        assert_eq!(info.dims[0], Some(vec![]));
        assert!(info
            .config
            .as_deref()
            .unwrap()
            .starts_with("#iree_codegen.compilation_info<"));
        let payload = payload(&info, "f").unwrap();
        assert!(
            payload.contains(
                "%a: tensor<2048x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<2048x4096xf32>"
            ),
            "{payload}"
        );
        assert!(payload.contains("iterator_types = [\"parallel\", \"parallel\", \"reduction\"]"));
    }

    #[test]
    fn a_contraction_matcher_without_batch_dims_builds_the_batch_free_op() {
        let text = "module attributes {transform.with_named_sequence} {
  transform.named_sequence @m(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %batch, %m, %n, %k = transform.iree.match.contraction %op, lhs_type = f32, rhs_type = f32, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %m, [32] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [16] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [8] : !transform.param<i64>
    transform.yield %op : !transform.any_op
  }
}
";
        let mlir = crate::mlir::Mlir::new();
        let verified = crate::verify::verify_bytes(&mlir, text.as_bytes(), "m.mlir");
        let module = verified.snapshot.unwrap();
        let info = matcher_info(&module, text, "m").unwrap();
        assert_eq!(info.dims[0], None);
        let built = payload(&info, "f").unwrap();
        assert!(
            built.contains("%a: tensor<32x8xf32>, %b: tensor<8x16xf32>) -> tensor<32x16xf32>"),
            "{built}"
        );
        // With a batch loop in its maps, an unpinned batch is still no fixed shape.
        let batched = MatcherInfo {
            maps: vec![
                "affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>".to_string(),
                "affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>".to_string(),
                "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>".to_string(),
            ],
            ..info
        };
        let refused = payload(&batched, "f").unwrap_err();
        assert!(refused.contains("batch"), "{refused}");
    }
}
