//! Step (b)'s comparison: the config IREE put on the payload's dispatch against the matcher's,
//! compared as IREE does.
//!
//! Why through IREE: the spec's author spells an attribute one way (an older release's
//! parameters, integers without their type, dictionary entries in any order), IREE prints it
//! another; only IREE knows which spellings mean the same attribute. Both sides are parsed by
//! IREE and printed back in one canonical form ([`Iree::canonical_attributes`]), then compared;
//! text without whitespace is tried first (no IREE run when it already agrees).

use super::{MatcherInfo, Step};
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
    let Some(first) = ops.first() else {
        return Step::failed(
            "the payload's dispatch did not get the matcher's config: no op configured",
        );
    };
    match canonical(iree, &expected, &ops) {
        Some(Ok(())) => Step::ok(),
        Some(Err(difference)) => Step::failed(format!(
            "the payload's dispatch did not get the matcher's config: {difference}"
        )),
        // IREE could not print them: the texts as they are.
        None => Step::failed(format!(
            "the payload's dispatch did not get the matcher's config: {} got lowering_config = {}",
            first.op, first.lowering_config
        )),
    }
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
        let difference = if got_lowering != lowering {
            Some(("lowering_config", &lowering, got_lowering))
        } else if translation.is_some() && got_translation != translation {
            let expected = translation.as_ref()?;
            Some((
                "translation_info",
                expected,
                got_translation.unwrap_or_else(|| "(none)".to_string()),
            ))
        } else {
            None
        };
        match difference {
            None => return Some(Ok(())),
            Some((what, expected, got)) if first_difference.is_none() => {
                first_difference = Some(describe(&op.op, what, expected, &got));
            }
            Some(_) => {}
        }
    }
    first_difference.map(Err)
}

/// Both attributes as IREE prints them, and the first character where they differ.
fn describe(op: &str, what: &str, expected: &str, got: &str) -> String {
    let at = expected
        .char_indices()
        .zip(got.chars())
        .find(|((_, a), b)| a != b)
        .map_or_else(|| expected.len().min(got.len()), |((index, _), _)| index);
    let tail = |text: &str| -> String {
        let rest = text.get(at..).unwrap_or("");
        let cut: String = rest.chars().take(40).collect();
        if cut.is_empty() {
            "(end)".to_string()
        } else {
            format!("`{cut}`")
        }
    };
    format!(
        "{op}'s {what} differs (both as IREE prints them): expected {expected}, got {got}; first difference at character {}: expected {}, got {}",
        expected[..at].chars().count() + 1,
        tail(expected),
        tail(got)
    )
}

#[cfg(test)]
mod tests {
    use super::describe;

    #[test]
    fn the_first_difference_is_located_and_quoted() {
        let message = describe(
            "linalg.generic",
            "lowering_config",
            "<{a = 1, b = 2}>",
            "<{a = 1, b = 3}>",
        );
        assert!(
            message.contains("first difference at character 14: expected `2}>`, got `3}>`"),
            "{message}"
        );
        let message = describe("op", "translation_info", "<x>", "<x> y");
        assert!(message.contains("expected (end), got ` y`"), "{message}");
    }
}
