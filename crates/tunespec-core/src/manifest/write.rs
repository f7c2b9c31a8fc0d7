//! Writing a manifest: the spec libraries tunespec writes itself (`import-iree`, `import-tuner`).
//!
//! Why here: the module that reads manifests also writes them, so a written manifest is built
//! from the same model (keys and strings serialized by the toml crate, never spliced into text)
//! and always reads back as written. The first comment line names the tool that wrote it
//! ([`written_by`]): a tool replaces only a library it wrote itself.

use serde::ser::{Serialize, SerializeMap, SerializeStruct, Serializer};

use super::SCHEMA_VERSION;

/// What a manifest's first line starts with when a tool wrote it: `# Written by `NAME`...`.
const WRITTEN_BY: &str = "# Written by `";

/// The tool that wrote a manifest, from its first line (`# Written by `NAME`...`); `None` for a
/// manifest a person wrote.
pub fn written_by(text: &str) -> Option<&str> {
    let first = text.lines().next()?;
    let (tool, _) = first.strip_prefix(WRITTEN_BY)?.split_once('`')?;
    Some(tool)
}

/// A manifest to write: comment lines, `schema`, the `[targets.NAME]` it defines, then one
/// `[extend.TARGET]` table per target, in the order they were added.
#[derive(Clone, Debug, Default)]
pub struct Writer {
    comments: Vec<String>,
    targets: Vec<Definition>,
    extend: Vec<(String, Vec<String>)>,
}

/// A `[targets.NAME]` table to write: a target a written library defines itself, so that it
/// works alone (a measured library for a target a user's library defines).
#[derive(
    Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Definition {
    /// The target's name.
    pub name: String,
    /// Its one line.
    pub description: String,
    /// `sku`, `arch`, ...
    pub kind: Option<String>,
    /// Its aliases.
    pub aliases: Vec<String>,
    /// The next more general target.
    pub fallback: Option<String>,
    /// The features it declares.
    pub features: Vec<String>,
    /// The IREE backend it names.
    pub backend: Option<String>,
    /// Its spec files, relative to the manifest's directory.
    pub specs: Vec<String>,
}

impl Definition {
    /// The definition of `[targets.NAME]` as read (its specs left out: a writer lists its own).
    pub fn read(name: &str, entry: &super::TargetEntry) -> Definition {
        let strings = |items: &[toml::Spanned<String>]| {
            items.iter().map(|item| item.get_ref().clone()).collect()
        };
        let optional =
            |item: &Option<toml::Spanned<String>>| item.as_ref().map(|item| item.get_ref().clone());
        Definition {
            name: name.to_string(),
            description: entry.description.get_ref().clone(),
            kind: optional(&entry.kind),
            aliases: strings(&entry.aliases),
            fallback: optional(&entry.fallback),
            features: strings(&entry.features),
            backend: optional(&entry.backend),
            specs: Vec::new(),
        }
    }
}

impl Writer {
    /// A manifest written by `tool` (what [`written_by`] reads back); `rest` goes on the same
    /// line (` from iree-base-compiler 3.13.0.`).
    pub fn written_by(tool: &str, rest: &str) -> Writer {
        let mut writer = Writer::default();
        writer.comment(&format!("Written by `{tool}`{rest}"));
        writer
    }

    /// Adds a comment line (each line of `text` is a comment of its own).
    pub fn comment(&mut self, text: &str) -> &mut Writer {
        self.comments.extend(text.lines().map(str::to_string));
        self
    }

    /// Adds `[targets.NAME]` (tables are written sorted by name, as TOML readers list them).
    pub fn define(&mut self, definition: Definition) -> &mut Writer {
        self.targets.push(definition);
        self.targets.sort();
        self
    }

    /// Adds `[extend.TARGET]` with these spec paths (relative to the manifest's directory).
    pub fn extend(&mut self, target: &str, specs: &[String]) -> &mut Writer {
        self.extend.push((target.to_string(), specs.to_vec()));
        self
    }

    /// The manifest's text.
    pub fn text(&self) -> String {
        let mut text = String::new();
        for comment in &self.comments {
            text.push_str("# ");
            text.push_str(comment);
            text.push('\n');
        }
        // Only strings, integers, arrays and tables of them: the toml crate cannot fail here.
        let body = toml::to_string(&Body(self)).unwrap_or_default();
        text.push_str(&body);
        text
    }
}

/// The TOML document of a [`Writer`]: `schema`, then `extend` in the writer's order.
struct Body<'a>(&'a Writer);

impl Serialize for Body<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut document = serializer.serialize_struct("Manifest", 3)?;
        document.serialize_field("schema", &SCHEMA_VERSION)?;
        if !self.0.targets.is_empty() {
            document.serialize_field("targets", &Targets(&self.0.targets))?;
        }
        if !self.0.extend.is_empty() {
            document.serialize_field("extend", &Extend(&self.0.extend))?;
        }
        document.end()
    }
}

/// The `extend` tables in insertion order (a map type would sort them).
struct Extend<'a>(&'a [(String, Vec<String>)]);

impl Serialize for Extend<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (target, specs) in self.0 {
            map.serialize_entry(target, &Specs(specs))?;
        }
        map.end()
    }
}

/// The `targets` tables, by name.
struct Targets<'a>(&'a [Definition]);

impl Serialize for Targets<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for definition in self.0 {
            map.serialize_entry(&definition.name, &Table(definition))?;
        }
        map.end()
    }
}

/// One `[targets.NAME]` table: the fields a definition has (absent ones left out).
struct Table<'a>(&'a Definition);

impl Serialize for Table<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let definition = self.0;
        let mut table = serializer.serialize_map(None)?;
        table.serialize_entry("description", &definition.description)?;
        if let Some(kind) = &definition.kind {
            table.serialize_entry("kind", kind)?;
        }
        if !definition.aliases.is_empty() {
            table.serialize_entry("aliases", &definition.aliases)?;
        }
        if let Some(fallback) = &definition.fallback {
            table.serialize_entry("fallback", fallback)?;
        }
        if !definition.features.is_empty() {
            table.serialize_entry("features", &definition.features)?;
        }
        if let Some(backend) = &definition.backend {
            table.serialize_entry("backend", backend)?;
        }
        if !definition.specs.is_empty() {
            table.serialize_entry("specs", &definition.specs)?;
        }
        table.end()
    }
}

/// One `[extend.TARGET]` table.
struct Specs<'a>(&'a [String]);

impl Serialize for Specs<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut table = serializer.serialize_struct("ExtendEntry", 1)?;
        table.serialize_field("specs", self.0)?;
        table.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout the importers wrote with `format!` before: byte for byte.
    #[test]
    fn writes_the_importers_layout() {
        let mut writer = Writer::written_by("tunespec import-tuner", ": measured configs.");
        writer.comment("Each spec's matcher carries its measurement.");
        writer.extend("gfx942", &["gfx942/b.mlir".into(), "gfx942/a.mlir".into()]);
        writer.extend("gfx90a", &["gfx90a/x.mlir".into()]);
        assert_eq!(
            writer.text(),
            "# Written by `tunespec import-tuner`: measured configs.\n\
             # Each spec's matcher carries its measurement.\n\
             schema = 1\n\
             \n[extend.gfx942]\nspecs = [\"gfx942/b.mlir\", \"gfx942/a.mlir\"]\n\
             \n[extend.gfx90a]\nspecs = [\"gfx90a/x.mlir\"]\n"
        );
        assert_eq!(written_by(&writer.text()), Some("tunespec import-tuner"));
        assert_eq!(
            Writer::written_by("t", "").text(),
            "# Written by `t`\nschema = 1\n"
        );
    }

    /// A defined target reads back as written, and before the extensions.
    #[test]
    fn defined_targets_read_back() {
        let mut writer = Writer::written_by("t", "");
        let definition = Definition {
            name: "host_cpu".into(),
            description: "this \"CPU\"".into(),
            kind: Some("arch".into()),
            aliases: vec!["mine".into()],
            fallback: None,
            features: vec!["avx2".into()],
            backend: Some("llvm-cpu".into()),
            specs: vec!["host_cpu/a.mlir".into()],
        };
        writer.define(definition.clone());
        writer.extend("gfx942", &["gfx942/b.mlir".into()]);
        let text = writer.text();
        let manifest = super::super::parse(&text, "registry.toml").unwrap();
        let (name, entry) = manifest.targets.iter().next().unwrap();
        let read = Definition::read(name.get_ref(), entry);
        assert_eq!(
            read,
            Definition {
                specs: Vec::new(),
                ..definition
            }
        );
        let listed: Vec<_> = manifest
            .listed_specs()
            .map(|(_, target, spec)| (target.to_string(), spec.path.clone()))
            .collect();
        assert_eq!(
            listed,
            [
                ("host_cpu".to_string(), "host_cpu/a.mlir".to_string()),
                ("gfx942".to_string(), "gfx942/b.mlir".to_string())
            ]
        );
    }

    /// Whatever the strings hold, the manifest reads back with the same listing.
    #[test]
    fn odd_strings_read_back() {
        let mut writer = Writer::written_by("t", " from a\nsecond line");
        writer.extend("a.b", &["x \"y\"\\z.mlir".into()]);
        let text = writer.text();
        let manifest = super::super::parse(&text, "registry.toml").unwrap();
        let listed: Vec<_> = manifest
            .listed_specs()
            .map(|(_, target, spec)| (target.to_string(), spec.path.clone()))
            .collect();
        assert_eq!(listed, [("a.b".to_string(), "x \"y\"\\z.mlir".to_string())]);
        assert_eq!(written_by(&text), Some("t"));
        assert_eq!(written_by("schema = 1\n"), None);
    }
}
