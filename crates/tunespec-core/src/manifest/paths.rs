//! Spec paths of a manifest: listing the spec files of a directory, relative paths and globs,
//! symlinks that lead out, and locations in the manifest's text.

use std::path::{Component, Path, PathBuf};

use crate::ir::Loc;

/// Spec files under `dir` (`.mlir`, `.mlirbc`), as sorted `/`-separated relative paths.
/// Symlinks are followed (a loop is an error); only regular files are listed (a FIFO named
/// `x.mlir` is not read). Every error of the walk (an unreadable directory, a dangling link) is
/// returned with its path; [`check_inside`] tells whether a file stays inside.
pub fn list_spec_files(dir: &Path) -> Result<Vec<String>, String> {
    Ok(list_spec_entries(dir)?
        .into_iter()
        .map(|(relative, _)| relative)
        .collect())
}

/// [`list_spec_files`] with each file's real path too: the relative name is printable (lossy
/// for a name that is not UTF-8), the path is what to open.
pub fn list_spec_entries(dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let (files, mut errors) = walk_spec_entries(dir);
    if errors.is_empty() {
        Ok(files)
    } else {
        Err(errors.swap_remove(0))
    }
}

/// [`list_spec_files`] going on past errors: the files found, and every error of the walk.
pub fn walk_spec_files(dir: &Path) -> (Vec<String>, Vec<String>) {
    let (files, errors) = walk_spec_entries(dir);
    (
        files.into_iter().map(|(relative, _)| relative).collect(),
        errors,
    )
}

fn walk_spec_entries(dir: &Path) -> (Vec<(String, PathBuf)>, Vec<String>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for entry in walkdir::WalkDir::new(dir).follow_links(true) {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                errors.push(walk_error(dir, &error));
                continue;
            }
        };
        if !entry.file_type().is_file() || !is_spec_file(entry.path()) {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(dir) else {
            continue;
        };
        let name = relative
            .components()
            .map(|component| component.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        files.push((name, entry.into_path()));
    }
    files.sort();
    (files, errors)
}

fn walk_error(dir: &Path, error: &walkdir::Error) -> String {
    let path = error.path().unwrap_or(dir).display();
    if let Some(ancestor) = error.loop_ancestor() {
        return format!(
            "cannot read {path}: a symlink loop (back to {})",
            ancestor.display()
        );
    }
    match error.io_error() {
        Some(io) if io.kind() == std::io::ErrorKind::NotFound => {
            format!("cannot read {path}: no such file or directory (a dangling symlink?)")
        }
        Some(io) if io.kind() == std::io::ErrorKind::PermissionDenied => {
            format!("cannot read {path}: permission denied")
        }
        Some(io) => format!("cannot read {path}: {io}"),
        None => format!("cannot read {path}: {error}"),
    }
}

/// Whether `path` names a spec file (`.mlir`, `.mlirbc`).
pub fn is_spec_file(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|extension| extension.to_str()),
        Some("mlir") | Some("mlirbc")
    )
}

/// Spec paths are relative and stay below the manifest's directory.
pub fn check_relative(pattern: &str) -> Result<(), &'static str> {
    let path = Path::new(pattern);
    if pattern.trim().is_empty() {
        return Err("is empty");
    }
    if path.is_absolute() || pattern.starts_with('/') || pattern.starts_with('\\') {
        return Err("is absolute; spec paths are relative to the specs directory");
    }
    if path.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err("escapes the specs directory with '..'");
    }
    Ok(())
}

/// A file reached through a symlink must still be inside the specs directory.
pub fn check_inside(specs_dir: &Path, relative: &str) -> Result<(), &'static str> {
    let root = specs_dir
        .canonicalize()
        .unwrap_or_else(|_| PathBuf::from(specs_dir));
    match specs_dir.join(relative).canonicalize() {
        Ok(real) if real.starts_with(&root) => Ok(()),
        Ok(_) => Err("is reached through a symlink that leads outside the specs directory"),
        Err(_) => Err("cannot be read"),
    }
}

/// The first literal directory of `pattern` that is a symlink leading outside `specs_dir`.
pub(super) fn symlink_out(specs_dir: &Path, pattern: &str) -> Option<String> {
    let root = specs_dir.canonicalize().ok()?;
    let mut current = PathBuf::from(specs_dir);
    let mut shown = Vec::new();
    for segment in pattern.split('/') {
        if is_glob(segment) {
            break;
        }
        current.push(segment);
        shown.push(segment);
        let is_link = std::fs::symlink_metadata(&current)
            .map(|metadata| metadata.file_type().is_symlink())
            .unwrap_or(false);
        if is_link
            && current
                .canonicalize()
                .map_or(true, |real| !real.starts_with(&root))
        {
            return Some(shown.join("/"));
        }
    }
    None
}

/// Glob match on `/`-separated paths: `*` and `?` within one segment, `**` for any depth; every
/// other character is literal. Compiled by globset (a pattern with many stars stays linear in the
/// path's length); empty and `.` segments of the pattern are ignored. One pattern against many
/// paths: [`PathPattern`], compiled once.
pub fn glob_match(pattern: &str, path: &str) -> bool {
    PathPattern::new(pattern).is_match(path)
}

/// A pattern of [`glob_match`], compiled once for matching many paths. Why: a manifest lists
/// each spec by its path, and resolving N entries against N files compiled N² regexes (a
/// 300-spec measured library took a second to load); a pattern without `*` or `?` is now a
/// string comparison, and a glob is compiled once.
#[derive(Clone, Debug)]
pub struct PathPattern(Compiled);

#[derive(Clone, Debug)]
enum Compiled {
    /// No glob character: the pattern's segments, joined (empty and `.` segments dropped).
    Literal(String),
    /// A glob, compiled.
    Glob(globset::GlobMatcher),
    /// A glob globset refuses: it matches nothing.
    Invalid,
}

impl PathPattern {
    /// `pattern`, compiled.
    pub fn new(pattern: &str) -> PathPattern {
        let segments = pattern
            .split('/')
            .filter(|segment| !segment.is_empty() && *segment != ".");
        if !is_glob(pattern) {
            return PathPattern(Compiled::Literal(segments.collect::<Vec<_>>().join("/")));
        }
        let mut normalized = String::with_capacity(pattern.len());
        for (index, segment) in segments.enumerate() {
            if index > 0 {
                normalized.push('/');
            }
            for ch in segment.chars() {
                // Only `*` and `?` are special here; globset's classes and alternations are not.
                if matches!(ch, '[' | ']' | '{' | '}' | '\\') {
                    normalized.push('\\');
                }
                normalized.push(ch);
            }
        }
        PathPattern(
            match globset::GlobBuilder::new(&normalized)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
            {
                Ok(glob) => Compiled::Glob(glob.compile_matcher()),
                Err(_) => Compiled::Invalid,
            },
        )
    }

    /// Whether `path` matches.
    pub fn is_match(&self, path: &str) -> bool {
        match &self.0 {
            Compiled::Literal(literal) => literal == path,
            Compiled::Glob(matcher) => matcher.is_match(path),
            Compiled::Invalid => false,
        }
    }
}

/// Whether a pattern holds glob characters.
pub fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?'])
}

/// The 1-based line and column of a byte offset, as a location in `file`.
pub fn offset_loc(text: &str, file: &str, offset: usize) -> Loc {
    let (line, col) = crate::verify::line_col(text.as_bytes(), offset);
    Loc {
        file: file.to_string(),
        line,
        col,
    }
}
