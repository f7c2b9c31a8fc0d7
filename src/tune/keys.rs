//! `tune --keys LIB`: a spec library's keys as the model to tune. A tuning team that holds a
//! library (the SHARK tuner's output, a measured library, a team's specs) re-tunes its shapes on
//! a new device or IREE without the models they came from: each root matcher of the library
//! becomes a function of one op of its own shape, element types and layout (the payload `check`
//! and `bench` build for a matcher), and the functions together are the model `tune` searches.
//!
//! Why a model and not a list of dispatches: IREE forms and configures the dispatches of the
//! built model exactly as it does a user's, so IREE's own config (candidate 0), the linked
//! config and the GPU's constraints all come from IREE, as for any model.

use std::path::PathBuf;

use crate::mlir::Mlir;
use crate::spec_check::{self, payload};

/// The model built from a library's keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeysModel {
    /// The model's MLIR text: a function per distinct key, in the library's order.
    pub text: String,
    /// How many matchers became a function.
    pub functions: usize,
    /// Matchers that did not, and why (`file: @matcher: why`): attention (no payload is built
    /// for it), matchers without fixed sizes, a key already taken by an earlier matcher.
    pub left_out: Vec<String>,
}

/// The model of the root matchers of the spec files, directories and libraries in `paths`;
/// an error when none can be read or none gives a function.
pub fn model(mlir: &Mlir, paths: &[PathBuf]) -> Result<KeysModel, String> {
    let files = spec_check::collect(paths)?;
    let mut functions = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut left_out = Vec::new();
    for file in &files {
        let matchers = spec_check::matchers_of(mlir, file)
            .map_err(|why| format!("{}: cannot be read: {why}", file.name))?;
        for (keyed, info, _) in matchers {
            // One op per shape: the same key registered for two targets is one function.
            let constraints: Vec<&str> = keyed.key.constraints.iter().map(String::as_str).collect();
            let key = format!("{}: {}", keyed.key.root, constraints.join("; "));
            let mut why = |reason: String| {
                left_out.push(format!("{}: @{}: {reason}", file.name, keyed.name));
            };
            let Some(info) = info else {
                why("its root match op is not one tunespec reads".to_string());
                continue;
            };
            if seen.contains(&key) {
                why("its key is an earlier matcher's".to_string());
                continue;
            }
            let function = format!(
                "key_{}_{}",
                functions.len(),
                payload::function_name(&keyed.name)
            );
            match payload::payload(&info, &function) {
                Ok(text) => {
                    seen.push(key);
                    functions.push(text);
                }
                Err(reason) => why(reason),
            }
        }
    }
    if functions.is_empty() {
        let detail = if left_out.is_empty() {
            "it has no root matcher".to_string()
        } else {
            left_out.join("; ")
        };
        return Err(format!(
            "no key of {} gives an op to tune: {detail}",
            paths
                .iter()
                .map(|path| path.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let count = functions.len();
    let body: String = functions
        .iter()
        .flat_map(|function| function.lines().map(|line| format!("  {line}\n")))
        .collect();
    Ok(KeysModel {
        text: format!(
            "// The keys of a spec library as a model to tune (`tunespec tune --keys`): a function per key.\nmodule @tune_keys {{\n{body}}}\n"
        ),
        functions: count,
        left_out,
    })
}
