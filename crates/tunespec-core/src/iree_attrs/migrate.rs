//! Known syntax changes of IREE attributes between the releases tunespec supports (3.10 to
//! 3.13), as text edits both ways: forward for `tunespec check --fix` (a spec written for an
//! older IREE made readable by the one found) and backward for what tunespec writes for an older
//! IREE (the linked library in the syntax the found IREE reads), and as the hint `verify` gives
//! for the old spelling. One table ([`CHANGES`]) serves both directions, so a change is taught
//! once.
//!
//! Why text and not IR: the other spelling does not parse in the IREE in use (that is the
//! point), and tunespec's MLIR keeps IREE attributes as opaque text anyway; an edit of the exact
//! bytes keeps everything else in the file (comments, layout) as the author wrote it.
//!
//! The changes: IREE 3.12 made a GPU pipeline an attribute. IREE 3.10 and 3.11 print
//! `translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = ...>`; 3.12 and 3.13
//! read only `translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> ...>`. IREE 3.12
//! also added NVIDIA's `mma.sync` intrinsics (`#iree_gpu.mma_layout<NV_MMA_SYNC_...>`), which no
//! older release can express: a config using one has no spelling to migrate back to.

/// An IREE release, (major, minor).
pub type Release = (u32, u32);

/// The IREE releases tunespec supports, oldest first: what `doctor` and `targets` print, and
/// what every change of [`CHANGES`] is defined between.
pub const SUPPORTED: &[Release] = &[(3, 10), (3, 11), (3, 12), (3, 13)];

/// `3.10, 3.11, 3.12, 3.13`: [`SUPPORTED`] as users read it.
pub fn supported_text() -> String {
    SUPPORTED
        .iter()
        .map(|(major, minor)| format!("{major}.{minor}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The release of a version or revision text (`3.11.0`, `3.13.0rc20261016 @ hash`): `None`
/// when it does not start with `major.minor`.
pub fn release_of(version: &str) -> Option<Release> {
    let version = version.split_whitespace().next()?;
    let mut parts = version.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor: String = parts
        .next()?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    Some((major, minor.parse().ok()?))
}

/// Whether tunespec supports `release` (it is in [`SUPPORTED`]).
pub fn is_supported(release: Release) -> bool {
    SUPPORTED.contains(&release)
}

/// How a change is undone for a release before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `pipeline = LLVMGPU<Case>` became `pipeline = #iree_gpu.pipeline<Case>`: edits both ways.
    GpuPipelineAttribute,
    /// Words starting with this prefix name something older releases do not have: a config
    /// using one cannot be written for them.
    NewWords(&'static str),
}

/// One syntax change between supported releases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    /// The first release with the new syntax.
    pub since: Release,
    /// What changed, as a warning names it.
    pub what: &'static str,
    /// How it is migrated, or why it cannot be.
    pub kind: Kind,
}

/// Every syntax change between the supported releases, oldest first: `check --fix` applies the
/// edits toward the found IREE, and the library is written back through them for an older one.
pub const CHANGES: &[Change] = &[
    Change {
        since: (3, 12),
        what: "GPU pipelines as `#iree_gpu.pipeline<...>` attributes",
        kind: Kind::GpuPipelineAttribute,
    },
    Change {
        since: (3, 12),
        what: "NVIDIA's mma.sync intrinsics (`NV_MMA_SYNC_*`)",
        kind: Kind::NewWords("NV_MMA_SYNC_"),
    },
];

/// The edits that make `text` read by IREE `release`: for each change of [`CHANGES`], forward
/// when `release` has it, backward when it predates it; in text order.
pub fn edits_for(text: &str, release: Release) -> Vec<Edit> {
    let mut edits = Vec::new();
    for change in CHANGES {
        if change.kind == Kind::GpuPipelineAttribute {
            edits.extend(if release >= change.since {
                pipeline_edits(text)
            } else {
                pipeline_edits_back(text)
            });
        }
    }
    edits.sort_by_key(|edit| edit.offset);
    edits
}

/// The first change `text` uses that IREE `release` cannot express (a word it does not have),
/// with the word and its offset.
pub fn inexpressible(text: &str, release: Release) -> Option<(&'static Change, &str, usize)> {
    CHANGES
        .iter()
        .filter(|change| release < change.since)
        .filter_map(|change| match change.kind {
            Kind::NewWords(prefix) => find_word(text, prefix).map(|(at, word)| (change, word, at)),
            Kind::GpuPipelineAttribute => None,
        })
        .min_by_key(|(_, _, at)| *at)
}

/// The first whole word of `text` that starts with `prefix`: its offset and the word.
fn find_word<'t>(text: &'t str, prefix: &str) -> Option<(usize, &'t str)> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = text[from..].find(prefix) {
        let start = from + found;
        from = start + prefix.len();
        if start > 0 && is_word(bytes[start - 1]) {
            continue;
        }
        let end = start + bytes[start..].iter().take_while(|&&b| is_word(b)).count();
        return Some((start, &text[start..end]));
    }
    None
}

/// The backward pipeline edits of `text`: every `#iree_gpu.pipeline<Case>` as the
/// `LLVMGPU<Case>` enum IREE 3.10 and 3.11 read, in text order.
pub fn pipeline_edits_back(text: &str) -> Vec<Edit> {
    const OPEN: &str = "#iree_gpu.pipeline<";
    let mut edits = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find(OPEN) {
        let start = from + found;
        from = start + OPEN.len();
        let Some(close) = text[from..].find('>') else {
            break;
        };
        let case = &text[from..from + close];
        if !GPU_PIPELINES.contains(&case) {
            continue;
        }
        let end = from + close + 1;
        let (line, col) = line_col(text, start);
        edits.push(Edit {
            offset: start,
            line,
            col,
            before: text[start..end].to_string(),
            after: format!("LLVMGPU{case}"),
        });
        from = end;
    }
    edits
}

/// The GPU pipelines of IREE 3.12 and 3.13 (their `#iree_gpu.pipeline<...>` cases, from its "to be one of"
/// message).
pub const GPU_PIPELINES: &[&str] = &[
    "Default",
    "BaseLowering",
    "Distribute",
    "Vectorize",
    "VectorDistribute",
    "WinogradVectorize",
    "TileAndFuse",
];

/// The IREE 3.12+ case of a pre-3.12 GPU pipeline enum (`LLVMGPUVectorDistribute` ->
/// `VectorDistribute`); `None` for a word that names none (a pipeline 3.12 dropped, such as
/// `LLVMGPUMatmulTensorCore`, has no spelling to migrate to).
pub fn gpu_pipeline_case(word: &str) -> Option<&'static str> {
    let bare = word.strip_prefix("LLVMGPU")?;
    GPU_PIPELINES
        .iter()
        .copied()
        .find(|case| case.eq_ignore_ascii_case(bare))
}

/// One edit of a file: the bytes `before` at `offset` (1-based `line`:`col`, `col` in bytes)
/// replaced by `after`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// Byte offset in the text.
    pub offset: usize,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (bytes).
    pub col: u32,
    /// The text replaced.
    pub before: String,
    /// Its replacement.
    pub after: String,
}

/// The forward pipeline edits of `text`: every `pipeline = LLVMGPU<Case>` whose case IREE 3.12 has,
/// in text order. Words after `pipeline =` that are already attributes (`#...`) are left alone.
pub fn pipeline_edits(text: &str) -> Vec<Edit> {
    let mut edits = Vec::new();
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = text[from..].find("pipeline") {
        let start = from + found;
        from = start + "pipeline".len();
        // A whole word: not the tail of `passPipeline` or an identifier.
        if start > 0 && is_word(bytes[start - 1]) {
            continue;
        }
        let mut at = from;
        while at < bytes.len() && bytes[at] == b' ' {
            at += 1;
        }
        if bytes.get(at) != Some(&b'=') {
            continue;
        }
        at += 1;
        while at < bytes.len() && bytes[at] == b' ' {
            at += 1;
        }
        let end = at + bytes[at..].iter().take_while(|&&b| is_word(b)).count();
        let word = &text[at..end];
        let Some(case) = gpu_pipeline_case(word) else {
            continue;
        };
        let (line, col) = line_col(text, at);
        edits.push(Edit {
            offset: at,
            line,
            col,
            before: word.to_string(),
            after: format!("#iree_gpu.pipeline<{case}>"),
        });
        from = end;
    }
    edits
}

/// `text` with `edits` (in text order, not overlapping) applied.
pub fn apply_edits(text: &str, edits: &[Edit]) -> String {
    let mut out = String::with_capacity(text.len() + edits.len() * 24);
    let mut at = 0;
    for edit in edits {
        out.push_str(&text[at..edit.offset]);
        out.push_str(&edit.after);
        at = edit.offset + edit.before.len();
    }
    out.push_str(&text[at..]);
    out
}

fn is_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

fn line_col(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = offset - before.rfind('\n').map_or(0, |at| at + 1) + 1;
    (line as u32, col as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_pipeline_enums_become_attributes() {
        let text = "a\n  translation_info = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [64]>\n  #iree_codegen.translation_info<pipeline =LLVMGPUTileAndFuse>\n";
        let edits = pipeline_edits(text);
        assert_eq!(edits.len(), 2);
        assert_eq!((edits[0].line, edits[0].col), (2, 64));
        assert_eq!(edits[0].before, "LLVMGPUVectorDistribute");
        assert_eq!(edits[0].after, "#iree_gpu.pipeline<VectorDistribute>");
        assert_eq!(edits[1].after, "#iree_gpu.pipeline<TileAndFuse>");
        let fixed = apply_edits(text, &edits);
        assert!(fixed.contains("pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size"));
        assert!(fixed.contains("pipeline =#iree_gpu.pipeline<TileAndFuse>>"));
        assert!(pipeline_edits(&fixed).is_empty());
    }

    #[test]
    fn unknown_and_new_spellings_are_left_alone() {
        assert!(pipeline_edits("pipeline = LLVMGPUMatmulTensorCore").is_empty());
        assert!(pipeline_edits("passPipeline = LLVMGPUDistribute").is_empty());
        assert!(pipeline_edits("pipeline = #iree_gpu.pipeline<Distribute>").is_empty());
        assert_eq!(gpu_pipeline_case("LLVMGPUDistribute"), Some("Distribute"));
        assert_eq!(gpu_pipeline_case("LLVMGPUVectorize"), Some("Vectorize"));
        assert_eq!(gpu_pipeline_case("VectorDistribute"), None);
    }

    #[test]
    fn the_table_migrates_both_ways_by_release() {
        let new = "translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [64]>";
        let old = "translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [64]>";
        assert_eq!(apply_edits(new, &edits_for(new, (3, 11))), old);
        assert_eq!(apply_edits(old, &edits_for(old, (3, 12))), new);
        assert!(edits_for(new, (3, 13)).is_empty());
        assert!(edits_for(old, (3, 10)).is_empty());
        assert!(pipeline_edits_back("#iree_gpu.pipeline<Nope>").is_empty());
    }

    #[test]
    fn new_words_cannot_be_written_for_older_releases() {
        let text = "mma_kind = #iree_gpu.mma_layout<NV_MMA_SYNC_F32_16x8x16_F16>";
        let (change, word, at) = inexpressible(text, (3, 11)).unwrap();
        assert_eq!(word, "NV_MMA_SYNC_F32_16x8x16_F16");
        assert_eq!(at, 32);
        assert!(change.what.contains("mma.sync"));
        assert!(inexpressible(text, (3, 12)).is_none());
        assert!(inexpressible("XNV_MMA_SYNC_F32", (3, 10)).is_none());
    }

    #[test]
    fn releases_are_read_from_versions_and_revisions() {
        assert_eq!(release_of("3.11.0"), Some((3, 11)));
        assert_eq!(release_of("3.13.0rc20261016 @ 89ece87"), Some((3, 13)));
        assert_eq!(release_of("3.13rc1"), Some((3, 13)));
        assert_eq!(release_of("main"), None);
        assert!(is_supported((3, 10)) && !is_supported((3, 9)));
        assert_eq!(supported_text(), "3.10, 3.11, 3.12, 3.13");
    }
}
