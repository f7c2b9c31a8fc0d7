//! Step (b)'s comparison: the config IREE put on the payload's dispatch against the matcher's,
//! compared as IREE does.
//!
//! Why through IREE: the spec's author spells an attribute one way (an older release's
//! parameters, integers without their type, dictionary entries in any order), IREE prints it
//! another; only IREE knows which spellings mean the same attribute. Both sides are parsed by
//! IREE and printed back in one canonical form ([`Iree::canonical_attributes`]), then compared;
//! text without whitespace is tried first (no IREE run when it already agrees). When IREE cannot
//! print one of them, they are compared field by field as written ([`fields`]); a difference
//! is shown as both configs, expected above got, and the fields that differ.

use super::{fields, MatcherInfo, Step};
use crate::iree::{configs, Iree};

/// Whether the configured dispatch (`configured`, IREE's generic IR) carries the matcher's
/// config; when not, the message shows both configs and where they first differ.
pub(super) fn compare(iree: &Iree, info: &MatcherInfo, configured: &str) -> Step {
    let Some(config) = &info.config else {
        return Step::skipped(
            "the matcher yields no #iree_codegen.compilation_info (not the tuner form): its effect is not compared",
        );
    };
    let expected = (
        configs::attribute_named(config, "lowering_config"),
        configs::attribute_named(config, "translation_info"),
    );
    let squashed = (
        expected.0.as_deref().map(configs::squash),
        expected.1.as_deref().map(configs::squash),
    );
    let ops = configs::read_configured(configured);
    let hit = ops.iter().any(|op| {
        Some(&op.lowering_config) == squashed.0.as_ref()
            && (squashed.1.is_none() || op.translation_info == squashed.1)
    });
    if hit {
        return Step::ok();
    }
    if ops.is_empty() {
        return Step::failed(
            "the payload's dispatch did not get the matcher's config: no op configured",
        );
    }
    match canonical(iree, &expected, &ops) {
        Some(Ok(())) => Step::ok(),
        Some(Err(difference)) => Step::failed(format!(
            "the payload's dispatch did not get the matcher's config: {difference}"
        )),
        // IREE could not print one of them back: compared field by field as written (the
        // spellings IREE's printer evens out, evened out here), never failed for spelling.
        None => by_fields(&expected, &ops),
    }
}

/// [`compare`] without IREE's printing: an op whose lowering config (and translation info,
/// when the matcher sets one) has the matcher's fields passes; otherwise the first op's
/// configs are shown beside the matcher's, with the fields that differ.
fn by_fields(expected: &(Option<String>, Option<String>), ops: &[configs::Configured]) -> Step {
    let Some(expected_lowering) = expected.0.as_deref() else {
        return Step::failed(
            "the payload's dispatch did not get the matcher's config: the matcher's config has no lowering_config",
        );
    };
    let same = |want: &str, got: &str| {
        fields::differing(want, got).is_some_and(|differing| differing.is_empty())
    };
    let agrees = |op: &configs::Configured| {
        same(expected_lowering, &op.lowering_config_text)
            && expected.1.as_deref().is_none_or(|want| {
                op.translation_info_text
                    .as_deref()
                    .is_some_and(|got| same(want, got))
            })
    };
    if ops.iter().any(agrees) {
        return Step::ok();
    }
    let first = &ops[0];
    Step::failed(format!(
        "the payload's dispatch did not get the matcher's config (as written; IREE could not print them back): {}",
        side_by_side(
            &first.op,
            (expected_lowering, &first.lowering_config_text),
            expected
                .1
                .as_deref()
                .map(|want| (want, first.translation_info_text.as_deref().unwrap_or("(none)"))),
        )
    ))
}

/// Expected and got of both attributes, one under the other, and the fields that differ.
fn side_by_side(op: &str, lowering: (&str, &str), translation: Option<(&str, &str)>) -> String {
    let mut differing = Vec::new();
    let mut text = String::new();
    for (what, pair) in [
        ("lowering_config", Some(lowering)),
        ("translation_info", translation),
    ] {
        let Some((expected, got)) = pair else {
            continue;
        };
        text.push_str(&format!(
            "\n    {op}'s {what}:\n      expected {expected}\n      got      {got}"
        ));
        match fields::differing(expected, got) {
            Some(fields) => {
                differing.extend(fields.into_iter().map(|field| format!("{what} {field}")))
            }
            None if expected != got => differing.push(format!("{what} (not of fields)")),
            None => {}
        }
    }
    if differing.is_empty() {
        text.push_str("\n    no field differs");
    } else {
        text.push_str(&format!("\n    differs in: {}", differing.join("; ")));
    }
    text
}

/// The matcher's `(lowering_config, translation_info)` against each configured op, every text
/// printed by IREE: `Ok` when one op has both (the translation info only when the matcher
/// sets one), else the first op's first differing attribute, both printed, and where they
/// differ. `None` when IREE cannot print them.
fn canonical(
    iree: &Iree,
    expected: &(Option<String>, Option<String>),
    ops: &[configs::Configured],
) -> Option<Result<(), String>> {
    let expected_lowering = expected.0.as_deref()?;
    let mut texts: Vec<&str> = vec![expected_lowering, expected.1.as_deref().unwrap_or("")];
    for op in ops {
        texts.push(&op.lowering_config_text);
        texts.push(op.translation_info_text.as_deref().unwrap_or(""));
    }
    let printed = iree.canonical_attributes(&texts).ok()?;
    let (lowering, translation) = (printed[0].clone()?, printed[1].clone());
    if expected.1.is_some() && translation.is_none() {
        return None;
    }
    let mut first_difference = None;
    for (index, op) in ops.iter().enumerate() {
        let got_lowering = printed[2 + 2 * index].clone().unwrap_or_default();
        let got_translation = printed[3 + 2 * index].clone();
        let translation_differs = translation.is_some() && got_translation != translation;
        if got_lowering == lowering && !translation_differs {
            return Some(Ok(()));
        }
        if first_difference.is_none() {
            let got_translation = got_translation.unwrap_or_else(|| "(none)".to_string());
            first_difference = Some(format!(
                "(both as IREE prints them){}",
                side_by_side(
                    &op.op,
                    (&lowering, &got_lowering),
                    translation
                        .as_deref()
                        .map(|want| (want, got_translation.as_str())),
                )
            ));
        }
    }
    first_difference.map(Err)
}

#[cfg(test)]
mod tests {
    use super::side_by_side;

    #[test]
    fn expected_and_got_are_shown_with_the_fields_that_differ() {
        let message = side_by_side(
            "linalg.generic",
            (
                "#iree_gpu.lowering_config<{reduction = [0, 0, 64], workgroup = [64, 64, 0]}>",
                "#iree_gpu.lowering_config<{reduction = [0, 0, 64], workgroup = [64, 128, 0]}>",
            ),
            Some((
                "#iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64>",
                "#iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [128, 1, 1] subgroup_size = 64>",
            )),
        );
        assert!(message.contains("linalg.generic's lowering_config:\n      expected #iree_gpu.lowering_config<{reduction = [0, 0, 64], workgroup = [64, 64, 0]}>\n      got      #iree_gpu.lowering_config<{reduction = [0, 0, 64], workgroup = [64, 128, 0]}>"), "{message}");
        assert!(message.contains("differs in: lowering_config `workgroup`: expected [64,64,0], got [64,128,0]; translation_info `workgroup_size`: expected [256,1,1], got [128,1,1]"), "{message}");
        let same = side_by_side("op", ("#a<{x = 1 : i64}>", "#a<{x = 1}>"), None);
        assert!(same.ends_with("no field differs"), "{same}");
    }
}
