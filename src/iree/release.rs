//! Text for the IREE found, in its release's syntax: the linked library (defaults, measured
//! entries, users' specs) written for IREE 3.10 to 3.13, and a config as that IREE spells it.
//!
//! Why: tunespec's specs and defaults are written in IREE 3.13's syntax, but tuning teams run
//! the release the SHARK tuner works with (3.10, 3.11). An older IREE refuses the newer
//! spellings outright ("unknown attribute `pipeline` in dialect `iree_gpu`"), so the library is
//! written through the backward edits of `check --fix`'s one table
//! ([`crate::iree_attrs::migrate::CHANGES`]). A config the older release cannot express at all
//! (a word it does not have) leaves its entry out, named in a warning: a library with fewer
//! entries is still one the user's IREE reads, never one it refuses.
//!
//! The text is MLIR's print of the linked library (one op per line, a sequence's closing brace
//! on a line of its own at the sequence's indentation), which is what the entry removal reads.

use crate::iree_attrs::migrate::{self, Release};

/// An entry left out: the sequence, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeftOut {
    /// The named sequence removed (a matcher or an action), without `@`.
    pub sequence: String,
    /// The word the release does not have.
    pub word: String,
    /// The change that introduced it ([`migrate::Change::what`]).
    pub what: &'static str,
    /// The first release that has it.
    pub since: Release,
}

impl LeftOut {
    /// The warning's message, for IREE `release`.
    pub fn message(&self, release: Release) -> String {
        format!(
            "@{} is left out of the library for IREE {}.{}: its config uses `{}`, one of {} (IREE {}.{} and later)",
            self.sequence, release.0, release.1, self.word, self.what, self.since.0, self.since.1
        )
    }
}

/// A text written for one release: the text and the entries left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// The text the release reads.
    pub text: String,
    /// The entries it could not express, in the order they were removed.
    pub left_out: Vec<LeftOut>,
}

impl super::Iree {
    /// This IREE's release (major, minor), from its revision; `None` when it names none (a
    /// build from source): such an IREE gets tunespec's own syntax.
    pub fn release(&self) -> Option<Release> {
        migrate::release_of(&self.revision)
    }
}

/// One line saying which IREE releases tunespec supports and which one `found` is (`doctor`,
/// `targets`): a user on an unsupported IREE learns it before a command fails on its syntax.
pub fn support_line(found: Option<&super::Iree>) -> String {
    let supported = migrate::supported_text();
    let found = match found {
        None => "none".to_string(),
        Some(iree) => match iree.release() {
            Some(release) if migrate::is_supported(release) => {
                format!("{}.{} (supported)", release.0, release.1)
            }
            Some(release) => format!(
                "{}.{} (not supported: its syntax may differ from what tunespec writes)",
                release.0, release.1
            ),
            None => format!(
                "{} (names no release: written in tunespec's own syntax, 3.13's)",
                iree.revision
            ),
        },
    };
    format!("IREE releases supported: {supported}; found: {found}")
}

/// `text` (a linked library as MLIR prints it) for IREE `release`: each entry whose config
/// the release cannot express removed with the pairs that name it, then every spelling edited
/// to the release's. `None` release: the text as it is.
pub fn library_for(text: &str, release: Option<Release>) -> Written {
    let Some(release) = release else {
        return Written {
            text: text.to_string(),
            left_out: Vec::new(),
        };
    };
    let mut text = text.to_string();
    let mut left_out = Vec::new();
    while let Some((change, word, at)) = migrate::inexpressible(&text, release) {
        let word = word.to_string();
        let Some((start, end, name)) = enclosing_sequence(&text, at) else {
            // Not inside a sequence (a module attribute?): left for IREE to refuse, with its
            // own diagnostic at the place.
            break;
        };
        text.replace_range(start..end, "");
        text = without_pairs_naming(&text, &name);
        left_out.push(LeftOut {
            sequence: name,
            word,
            what: change.what,
            since: change.since,
        });
    }
    let edits = migrate::edits_for(&text, release);
    Written {
        text: migrate::apply_edits(&text, &edits),
        left_out,
    }
}

/// A config's text (an attribute) as IREE `release` spells it, for comparing what tunespec
/// predicts with what that IREE printed.
pub fn spelled_for(text: &str, release: Option<Release>) -> String {
    match release {
        Some(release) => migrate::apply_edits(text, &migrate::edits_for(text, release)),
        None => text.to_string(),
    }
}

/// IREE's session `flags` as `release` names them: IREE 3.10 has only `--iree-hip-target*`
/// for what 3.11 also calls, and 3.12 only calls, `--iree-rocm-target*`.
pub fn flags_for(flags: &[String], release: Option<Release>) -> Vec<String> {
    flags
        .iter()
        .map(|flag| match flag.strip_prefix("--iree-rocm-target") {
            Some(rest) if release.is_some_and(|release| release < (3, 11)) => {
                format!("--iree-hip-target{rest}")
            }
            _ => flag.clone(),
        })
        .collect()
}

/// The innermost `transform.named_sequence` around byte `at`: its byte range (whole lines,
/// header to closing brace) and its name.
fn enclosing_sequence(text: &str, at: usize) -> Option<(usize, usize, String)> {
    let mut best = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if offset > at {
            break;
        }
        let body = line.trim_start();
        if let Some(rest) = body.strip_prefix("transform.named_sequence @") {
            let indent = &line[..line.len() - body.len()];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.' | '-'))
                .collect();
            if let Some(end) = closing_line(text, offset + line.len(), indent) {
                if end > at {
                    best = Some((offset, end, name));
                }
            }
        }
        offset += line.len();
    }
    best
}

/// The end (after its newline) of the first line from `from` that is `indent` and `}`.
fn closing_line(text: &str, from: usize, indent: &str) -> Option<usize> {
    let mut offset = from;
    for line in text[from..].split_inclusive('\n') {
        offset += line.len();
        if line.trim_end() == format!("{indent}}}") {
            return Some(offset);
        }
    }
    None
}

/// `text` with every `foreach_match` pair that names `@name` (as matcher or action) removed.
fn without_pairs_naming(text: &str, name: &str) -> String {
    let symbol = format!("@{name}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(found) = rest.find("transform.foreach_match") {
        let head_end = found + "transform.foreach_match".len();
        out.push_str(&rest[..head_end]);
        rest = &rest[head_end..];
        // The pairs run from the first symbol to the functional type (` : (`).
        let (Some(first), Some(colon)) = (rest.find('@'), rest.find(" : (")) else {
            continue;
        };
        if first > colon {
            continue;
        }
        let list = &rest[first..colon];
        let kept: Vec<&str> = list
            .split(',')
            .map(str::trim)
            .filter(|pair| !pair.split("->").any(|side| side.trim() == symbol.as_str()))
            .collect();
        out.push_str(&rest[..first]);
        let indent = list
            .split('\n')
            .nth(1)
            .map(|line| &line[..line.len() - line.trim_start().len()])
            .unwrap_or(" ");
        out.push_str(&kept.join(&format!(",\n{indent}")));
        rest = &rest[colon..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIBRARY: &str = "module {
  transform.named_sequence @apply(%arg0: !transform.any_op, %arg1: !transform.any_param) {
    transform.yield 
  }
  transform.named_sequence @match_nv(%arg0: !transform.any_op) -> (!transform.any_op, !transform.any_param) attributes {m = {a = 1}} {
    %0 = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<NV_MMA_SYNC_F32_16x8x16_F16>}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [64, 1, 1]>> -> !transform.any_param
    transform.yield %arg0, %0 : !transform.any_op, !transform.any_param
  }
  transform.named_sequence @match_ok(%arg0: !transform.any_op) -> (!transform.any_op, !transform.any_param) {
    %0 = transform.param.constant #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [64, 1, 1]> -> !transform.any_param
    transform.yield %arg0, %0 : !transform.any_op, !transform.any_param
  }
  transform.named_sequence @main(%arg0: !transform.any_op) -> !transform.any_op {
    %r = transform.foreach_match in %arg0 
        @match_nv -> @apply, 
        @match_ok -> @apply : (!transform.any_op) -> !transform.any_op
    transform.yield %r : !transform.any_op
  }
}
";

    #[test]
    fn an_older_release_gets_its_spelling_and_loses_what_it_cannot_express() {
        let written = library_for(LIBRARY, Some((3, 11)));
        assert_eq!(written.left_out.len(), 1);
        assert_eq!(written.left_out[0].sequence, "match_nv");
        assert_eq!(written.left_out[0].word, "NV_MMA_SYNC_F32_16x8x16_F16");
        assert!(written.left_out[0]
            .message((3, 11))
            .starts_with("@match_nv is left out of the library for IREE 3.11"));
        assert!(!written.text.contains("match_nv"), "{}", written.text);
        assert!(written.text.contains("pipeline = LLVMGPUVectorDistribute"));
        assert!(written
            .text
            .contains("foreach_match in %arg0 \n        @match_ok -> @apply : ("));
        assert!(written.text.contains("@apply(%arg0"));
    }

    #[test]
    fn the_newest_releases_get_the_text_as_it_is() {
        for release in [Some((3, 12)), Some((3, 13)), None] {
            let written = library_for(LIBRARY, release);
            assert_eq!(written.text, LIBRARY);
            assert!(written.left_out.is_empty());
        }
    }

    #[test]
    fn iree_3_10_gets_its_name_of_the_rocm_target_flag() {
        let flags = vec![
            "--iree-hal-target-device=hip".to_string(),
            "--iree-rocm-target=gfx942".to_string(),
        ];
        assert_eq!(
            flags_for(&flags, Some((3, 10)))[1],
            "--iree-hip-target=gfx942"
        );
        assert_eq!(flags_for(&flags, Some((3, 11))), flags);
        assert_eq!(flags_for(&flags, None), flags);
    }

    #[test]
    fn a_config_is_spelled_as_the_release_prints_it() {
        let text =
            "#iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute>>";
        assert_eq!(
            spelled_for(text, Some((3, 10))),
            "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute>"
        );
        assert_eq!(spelled_for(text, Some((3, 13))), text);
    }
}
