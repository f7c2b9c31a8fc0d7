//! An IREE config attribute's text as its named fields (`workgroup = [64, 64, 0]`,
//! `pipeline = #iree_gpu.pipeline<VectorDistribute>`, `llvm_func_attrs = {...}`), for saying
//! which field differs when `check` shows expected and got side by side, and for comparing
//! two spellings when IREE cannot print one of them back.
//!
//! Why fields: two configs of a few hundred characters that differ in one number are hard to
//! compare by eye, and a character offset into IREE's printing says nothing about which knob
//! differs. Spelling differences IREE's printer removes (whitespace, the order of dictionary
//! entries, `: i64` on integers) are removed here too.

use std::collections::BTreeMap;

/// The fields of an attribute's text: the parameters inside its outermost `<...>`, and the
/// entries of a top-level `{...}` dictionary among them (translation info's configuration),
/// by name; each value without whitespace and without a trailing `:i64`. `None` when the
/// text has no `<...>` or a part that is not `name = value`.
pub fn fields(text: &str) -> Option<BTreeMap<String, String>> {
    let open = text.find('<')?;
    let close = text.rfind('>')?;
    let inner = text.get(open + 1..close)?;
    let mut out = BTreeMap::new();
    collect(inner, &mut out)?;
    Some(out)
}

fn collect(text: &str, out: &mut BTreeMap<String, String>) -> Option<()> {
    for part in split_top(text.trim(), |c| c == ',') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        if let Some(dict) = part
            .strip_prefix('{')
            .and_then(|rest| rest.strip_suffix('}'))
        {
            collect(dict, out)?;
            continue;
        }
        // Parameters printed one after another without commas (`pipeline = X workgroup_size
        // = [...] subgroup_size = 64`): a new one starts at a name followed by ` = `.
        for (name, value) in named_values(part)? {
            out.insert(name, normalize(&value));
        }
    }
    Some(())
}

/// `name = value` pairs of one comma-free part, in order.
fn named_values(part: &str) -> Option<Vec<(String, String)>> {
    let pieces: Vec<&str> = split_top(part, char::is_whitespace)
        .into_iter()
        .filter(|piece| !piece.is_empty())
        .collect();
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut index = 0;
    while index < pieces.len() {
        let is_name = pieces.get(index + 1) == Some(&"=")
            && pieces[index]
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '"' || c == '-' || c == '.');
        if is_name {
            pairs.push((pieces[index].trim_matches('"').to_string(), String::new()));
            index += 2;
            continue;
        }
        let (_, value) = pairs.last_mut()?;
        value.push_str(pieces[index]);
        index += 1;
    }
    Some(pairs)
}

/// A value as IREE's printer would compare: no whitespace, no `:i64` after an integer.
fn normalize(value: &str) -> String {
    let squashed: String = value.chars().filter(|c| !c.is_whitespace()).collect();
    squashed.replace(":i64", "")
}

/// `text` split at `separator`s outside brackets and strings (`->` is not a bracket).
fn split_top(text: &str, separator: impl Fn(char) -> bool) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut in_string, mut start, mut previous) = (0i32, false, 0, ' ');
    for (at, c) in text.char_indices() {
        match c {
            '"' if previous != '\\' => in_string = !in_string,
            _ if in_string => {}
            '<' | '[' | '{' | '(' => depth += 1,
            '>' if previous == '-' => {}
            '>' | ']' | '}' | ')' => depth -= 1,
            _ if depth == 0 && separator(c) => {
                parts.push(&text[start..at]);
                start = at + c.len_utf8();
            }
            _ => {}
        }
        previous = c;
    }
    parts.push(&text[start..]);
    parts
}

/// The fields that differ between `expected` and `got`, each as `name: expected X, got Y`
/// (`(none)` for a field one side lacks); `None` when either text has no fields.
pub fn differing(expected: &str, got: &str) -> Option<Vec<String>> {
    let (expected, got) = (fields(expected)?, fields(got)?);
    let none = "(none)".to_string();
    Some(
        expected
            .keys()
            .chain(got.keys().filter(|name| !expected.contains_key(*name)))
            .filter(|name| expected.get(*name) != got.get(*name))
            .map(|name| {
                format!(
                    "`{name}`: expected {}, got {}",
                    expected.get(name).unwrap_or(&none),
                    got.get(name).unwrap_or(&none)
                )
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowering_config_fields_ignore_order_spacing_and_integer_types() {
        let a = "#iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, promote_operands = [0, 1], subgroup_m_count = 2 : i64, workgroup = [64, 64, 0]}>";
        let b = "#iree_gpu.lowering_config<{workgroup = [64,64,0], subgroup_m_count = 2, promote_operands = [0, 1], mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>}>";
        assert_eq!(fields(a), fields(b));
        assert_eq!(differing(a, b), Some(Vec::new()));
        let c = b.replace("[64,64,0]", "[64,128,0]");
        assert_eq!(
            differing(a, &c),
            Some(vec![
                "`workgroup`: expected [64,64,0], got [64,128,0]".to_string()
            ])
        );
    }

    #[test]
    fn translation_info_parameters_and_its_dictionary_are_fields() {
        let a = "#iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [256, 2, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>, llvm_func_attrs = {\"amdgpu-waves-per-eu\" = \"2\"}}>";
        let parsed = fields(a).unwrap();
        assert_eq!(parsed["pipeline"], "#iree_gpu.pipeline<VectorDistribute>");
        assert_eq!(parsed["workgroup_size"], "[256,2,1]");
        assert_eq!(parsed["subgroup_size"], "64");
        assert_eq!(parsed["llvm_func_attrs"], "{\"amdgpu-waves-per-eu\"=\"2\"}");
        let b = a.replace("[256, 2, 1]", "[128, 2, 1]");
        assert_eq!(
            differing(a, &b),
            Some(vec![
                "`workgroup_size`: expected [256,2,1], got [128,2,1]".to_string()
            ])
        );
        let without = "#iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [256, 2, 1] subgroup_size = 64>";
        let missing = differing(a, without).unwrap();
        assert_eq!(missing.len(), 2, "{missing:?}");
        assert!(missing[0].contains("got (none)"), "{missing:?}");
    }

    #[test]
    fn maps_and_nested_attributes_stay_whole() {
        let a = "#x.attr<maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>], b = #y<c = 1, d = 2>>";
        let parsed = fields(a).unwrap();
        assert_eq!(parsed.len(), 2, "{parsed:?}");
        assert_eq!(parsed["b"], "#y<c=1,d=2>");
        assert_eq!(fields("no brackets"), None);
    }
}
