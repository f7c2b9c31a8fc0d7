//! Known syntax changes of IREE attributes between releases, as text edits (`tunespec check
//! --fix`) and as the hint `verify` gives for the old spelling.
//!
//! Why text and not IR: the old spelling does not parse in the IREE in use (that is the point),
//! and tunespec's MLIR keeps IREE attributes as opaque text anyway; an edit of the exact bytes
//! keeps everything else in the file (comments, layout) as the author wrote it.
//!
//! First migration: IREE 3.13 made a GPU pipeline an attribute. IREE 3.10 printed
//! `translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = ...>`; 3.13 reads
//! `translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> ...>`.

/// IREE 3.13's GPU pipelines (its `#iree_gpu.pipeline<...>` cases, from its "to be one of"
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

/// The IREE 3.13 case of a pre-3.13 GPU pipeline enum (`LLVMGPUVectorDistribute` ->
/// `VectorDistribute`); `None` for a word that names none (a pipeline 3.13 dropped, such as
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

/// The pipeline edits of `text`: every `pipeline = LLVMGPU<Case>` whose case IREE 3.13 has,
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
}
