//! The data a bench runs on: a function's signature (read from the vmfb's ABI declaration),
//! pseudo-random inputs written as raw little-endian files, and the comparison of two runs'
//! outputs within a tolerance.
//!
//! Why pseudo-random and not zeros: zeros and splats take other paths through the GPU's power
//! management and some kernels, and a wrong config often still gives the right zeros. The values
//! come from a fixed-seed generator (splitmix64), so every bench of the same payload runs on the
//! same bytes on any machine.

use std::path::Path;

use half::{bf16, f16};
use serde::Serialize;

/// One tensor (or scalar) of a signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorType {
    /// Static sizes (empty for a scalar or a rank-0 tensor).
    pub shape: Vec<u64>,
    /// The element type (`f16`, `bf16`, `f32`, `i8`, ...).
    pub element: String,
}

impl TensorType {
    /// `256x256xf32`, the form of `--input`.
    pub fn runtime_form(&self) -> String {
        let mut text = String::new();
        for size in &self.shape {
            text.push_str(&format!("{size}x"));
        }
        text.push_str(&self.element);
        text
    }

    fn elements(&self) -> u64 {
        self.shape.iter().product()
    }

    fn element_bytes(&self) -> Option<usize> {
        Some(match self.element.as_str() {
            "f16" | "bf16" | "i16" => 2,
            "f32" | "i32" => 4,
            "f64" | "i64" => 8,
            "i8" | "i1" => 1,
            _ => return None,
        })
    }
}

/// A function's inputs and outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// The inputs, in order.
    pub inputs: Vec<TensorType>,
    /// The results, in order.
    pub outputs: Vec<TensorType>,
}

/// Splits at top-level commas (outside `<>`, `()`, `[]`).
fn split_top(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (index, c) in text.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..index].trim());
                start = index + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        parts.push(last);
    }
    parts
}

/// `%input0: tensor<4x8xf16>` (or a bare type) as a tensor type.
fn parse_type(text: &str) -> Result<TensorType, String> {
    let ty = text.rsplit_once(": ").map_or(text, |(_, ty)| ty).trim();
    // Attributes after the type (`{iree.abi...}`) are not part of it.
    let ty = ty.split(" {").next().unwrap_or(ty).trim();
    let Some(inner) = ty.strip_prefix("tensor<").and_then(|t| t.strip_suffix('>')) else {
        return if ty.starts_with('i') || ty.starts_with('f') || ty == "bf16" {
            Ok(TensorType {
                shape: Vec::new(),
                element: ty.to_string(),
            })
        } else {
            Err(format!(
                "an argument of type {ty}: only tensors and scalars are fed"
            ))
        };
    };
    let mut parts: Vec<&str> = inner.split('x').collect();
    let element = parts.pop().unwrap_or_default().to_string();
    let mut shape = Vec::new();
    for part in parts {
        match part.parse::<u64>() {
            Ok(size) => shape.push(size),
            Err(_) if part == "?" => {
                return Err(format!(
                    "{ty} has a dynamic size: bench feeds static shapes only"
                ))
            }
            Err(_) => return Err(format!("cannot read the type {ty}")),
        }
    }
    Ok(TensorType { shape, element })
}

/// The signature in an `iree.abi.declaration` (`sync func @main(%input0: tensor<...>) ->
/// (%output0: tensor<...>)`).
pub fn parse_signature(declaration: &str) -> Result<Signature, String> {
    let open = declaration
        .find('(')
        .ok_or_else(|| format!("no argument list in `{declaration}`"))?;
    let mut depth = 0i32;
    let mut close = None;
    for (index, c) in declaration[open..].char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => {
                depth -= 1;
                if depth == 0 && c == ')' {
                    close = Some(open + index);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close.ok_or_else(|| format!("unbalanced `{declaration}`"))?;
    let inputs = split_top(&declaration[open + 1..close])
        .into_iter()
        .map(parse_type)
        .collect::<Result<Vec<_>, _>>()?;
    let rest = declaration[close + 1..].trim();
    let results = rest.strip_prefix("->").map(str::trim).unwrap_or("");
    let results = results
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(results);
    let outputs = split_top(results)
        .into_iter()
        .map(parse_type)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Signature { inputs, outputs })
}

/// splitmix64: a tiny, well-known generator; fixed seeds give the same inputs everywhere.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [-0.5, 0.5).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    }
}

/// The largest input bench writes (4 GiB): a model's real inputs are larger only for whole
/// models, which are then given their own inputs.
const MAX_INPUT_BYTES: u64 = 4 << 30;

/// Writes input `index` of type `ty` to `path`: floats uniform in [-0.5, 0.5), integers in
/// [-4, 4] (`i1`: 0 or 1), seeded by the input's position.
pub fn write_input(ty: &TensorType, index: usize, path: &Path) -> Result<(), String> {
    let width = ty
        .element_bytes()
        .ok_or_else(|| format!("inputs of element type {} are not generated", ty.element))?;
    let bytes = ty.elements().saturating_mul(width as u64);
    if bytes > MAX_INPUT_BYTES {
        return Err(format!(
            "input {index} ({}) is larger than 4 GiB",
            ty.runtime_form()
        ));
    }
    let mut rng = SplitMix(0x7475_6E65_7370_6563 ^ (index as u64).wrapping_mul(0x1000_0001));
    let mut out = Vec::with_capacity(bytes as usize);
    for _ in 0..ty.elements() {
        let unit = rng.unit();
        let small = (rng.next() % 9) as i64 - 4;
        match ty.element.as_str() {
            "f16" => out.extend_from_slice(&f16::from_f64(unit).to_le_bytes()),
            "bf16" => out.extend_from_slice(&bf16::from_f64(unit).to_le_bytes()),
            "f32" => out.extend_from_slice(&(unit as f32).to_le_bytes()),
            "f64" => out.extend_from_slice(&unit.to_le_bytes()),
            "i1" => out.push(u8::from(small > 0)),
            "i8" => out.push(small as i8 as u8),
            "i16" => out.extend_from_slice(&(small as i16).to_le_bytes()),
            "i32" => out.extend_from_slice(&(small as i32).to_le_bytes()),
            _ => out.extend_from_slice(&small.to_le_bytes()),
        }
    }
    std::fs::write(path, out).map_err(|error| format!("cannot write an input: {error}"))
}

/// How close two outputs must be: |tuned - baseline| <= atol + rtol * |baseline| per element,
/// integers exactly.
#[derive(Clone, Copy, Debug, Serialize, serde::Deserialize)]
pub struct Tolerance {
    /// Absolute tolerance.
    pub atol: f64,
    /// Relative tolerance.
    pub rtol: f64,
}

impl Tolerance {
    /// The default for an output element type: f32/f64 atol 1e-2, rtol 1e-3 (a different
    /// reduction order over thousands of f16 products moves an f32 sum by about 1e-3); f16
    /// 5e-2 / 1e-2; bf16 1e-1 / 2e-2; integers exact.
    pub fn for_element(element: &str) -> Tolerance {
        let (atol, rtol) = match element {
            "f16" => (5e-2, 1e-2),
            "bf16" => (1e-1, 2e-2),
            e if e.starts_with('f') => (1e-2, 1e-3),
            _ => (0.0, 0.0),
        };
        Tolerance { atol, rtol }
    }
}

/// How two outputs compare.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Agreement {
    /// Whether every element is within the tolerance.
    pub ok: bool,
    /// The largest absolute difference.
    pub max_abs_diff: f64,
    /// The first element out of tolerance: index, baseline, tuned.
    pub first_mismatch: Option<(u64, f64, f64)>,
}

fn values(bytes: &[u8], element: &str) -> Option<Vec<f64>> {
    let chunked = |width: usize| bytes.chunks_exact(width);
    Some(match element {
        "f16" => chunked(2)
            .map(|c| f16::from_le_bytes([c[0], c[1]]).to_f64())
            .collect(),
        "bf16" => chunked(2)
            .map(|c| bf16::from_le_bytes([c[0], c[1]]).to_f64())
            .collect(),
        "f32" => chunked(4)
            .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect(),
        "f64" => chunked(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect(),
        "i8" | "i1" => bytes.iter().map(|&b| f64::from(b as i8)).collect(),
        "i16" => chunked(2)
            .map(|c| f64::from(i16::from_le_bytes([c[0], c[1]])))
            .collect(),
        "i32" => chunked(4)
            .map(|c| f64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect(),
        "i64" => chunked(8)
            .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")) as f64)
            .collect(),
        _ => return None,
    })
}

/// Compares two raw outputs of element type `element`.
pub fn compare(baseline: &[u8], tuned: &[u8], element: &str, tolerance: Tolerance) -> Agreement {
    if baseline.len() != tuned.len() {
        return Agreement {
            ok: false,
            max_abs_diff: f64::INFINITY,
            first_mismatch: None,
        };
    }
    let (Some(a), Some(b)) = (values(baseline, element), values(tuned, element)) else {
        // An element type without a reading: bytes must be equal.
        let ok = baseline == tuned;
        return Agreement {
            ok,
            max_abs_diff: if ok { 0.0 } else { f64::INFINITY },
            first_mismatch: None,
        };
    };
    let mut agreement = Agreement {
        ok: true,
        max_abs_diff: 0.0,
        first_mismatch: None,
    };
    for (index, (&x, &y)) in a.iter().zip(&b).enumerate() {
        if x.is_nan() && y.is_nan() {
            continue;
        }
        let diff = (x - y).abs();
        let within = diff <= tolerance.atol + tolerance.rtol * x.abs();
        if diff.is_nan() || diff > agreement.max_abs_diff {
            agreement.max_abs_diff = if diff.is_nan() { f64::INFINITY } else { diff };
        }
        if !within && agreement.first_mismatch.is_none() {
            agreement.ok = false;
            agreement.first_mismatch = Some((index as u64, x, y));
        }
    }
    agreement
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declaration_gives_its_types() {
        let signature = parse_signature(
            "sync func @main(%input0: tensor<256x128xf16>, %input1: tensor<128x64xf16>) -> (%output0: tensor<256x64xf32>)",
        )
        .unwrap();
        assert_eq!(signature.inputs.len(), 2);
        assert_eq!(signature.inputs[0].runtime_form(), "256x128xf16");
        assert_eq!(signature.outputs[0].runtime_form(), "256x64xf32");
        let err = parse_signature("sync func @main(%input0: tensor<?x4xf32>) -> ()").unwrap_err();
        assert!(err.contains("dynamic"), "{err}");
    }

    #[test]
    fn inputs_are_the_same_bytes_every_time_and_differ_by_position() {
        let dir = tempfile::tempdir().unwrap();
        let ty = TensorType {
            shape: vec![8, 4],
            element: "f16".into(),
        };
        let (a, b, c) = (
            dir.path().join("a"),
            dir.path().join("b"),
            dir.path().join("c"),
        );
        write_input(&ty, 0, &a).unwrap();
        write_input(&ty, 0, &b).unwrap();
        write_input(&ty, 1, &c).unwrap();
        let (a, b, c) = (
            std::fs::read(a).unwrap(),
            std::fs::read(b).unwrap(),
            std::fs::read(c).unwrap(),
        );
        assert_eq!(a.len(), 64);
        assert_eq!(a, b);
        assert_ne!(a, c);
        let values = values(&a, "f16").unwrap();
        assert!(values.iter().all(|v| (-0.5..=0.5).contains(v)));
        assert!(values.iter().any(|v| *v != 0.0));
    }

    #[test]
    fn outputs_within_tolerance_agree_and_others_do_not() {
        let base: Vec<u8> = [1.0f32, 2.0, 3.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let close: Vec<u8> = [1.0005f32, 2.0, 3.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let wrong: Vec<u8> = [1.0f32, 3.0, 3.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let tolerance = Tolerance::for_element("f32");
        assert!(compare(&base, &close, "f32", tolerance).ok);
        let agreement = compare(&base, &wrong, "f32", tolerance);
        assert!(!agreement.ok);
        assert_eq!(agreement.first_mismatch, Some((1, 2.0, 3.0)));
        assert_eq!(agreement.max_abs_diff, 1.0);
        assert!(!compare(&base, &base[..8], "f32", tolerance).ok);
    }
}
