//! User specs layered over the default registry: the command line, the project and user configs
//! and `TUNESPEC_SPEC_PATH`, each a layer of sources (plain spec files, `[targets.KEY]` lists of a
//! config, spec libraries with their own `registry.toml`). Loading a spec library adds its
//! targets to the registry after checking that its names clash with no known one.

use std::path::{Path, PathBuf};

use super::model::Registry;
use super::target::Target;
use super::Error;
use crate::config::{self, Config, ConfigTarget, Discovery};
use crate::manifest::{self, ResolvedManifest};
use crate::problem::{codes, io_message, Problem};

/// Where a spec (or a library's target) comes from, in precedence order.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Origin {
    /// `--spec` on the command line (or the `user_specs` of [`Registry::resolve`]).
    CommandLine,
    /// The project config (`tunespec.toml`) at this path.
    Project(PathBuf),
    /// The user config at this path.
    User(PathBuf),
    /// `TUNESPEC_SPEC_PATH`.
    SpecPath,
    /// A shared store's best entries (`--store URL`), pulled into a measured library: below
    /// every user level, above the defaults.
    Store(String),
    /// The embedded default registry.
    Default,
}

impl Origin {
    /// A short stable label: `command-line`, `project`, `user`, `spec-path`, `store`, `default`.
    pub fn label(&self) -> &'static str {
        match self {
            Origin::CommandLine => "command-line",
            Origin::Project(_) => "project",
            Origin::User(_) => "user",
            Origin::SpecPath => "spec-path",
            Origin::Store(_) => "store",
            Origin::Default => "default",
        }
    }

    /// The config file, for the config levels.
    pub fn config(&self) -> Option<&Path> {
        match self {
            Origin::Project(path) | Origin::User(path) => Some(path),
            _ => None,
        }
    }

    pub(super) fn describe(&self) -> String {
        match self {
            Origin::CommandLine => "given with --spec".to_string(),
            Origin::Project(path) | Origin::User(path) => {
                format!("spec_dirs of {}", path.display())
            }
            Origin::SpecPath => "from TUNESPEC_SPEC_PATH".to_string(),
            Origin::Store(url) => format!("pulled from the store {url}"),
            Origin::Default => "the default registry".to_string(),
        }
    }
}

/// A source of user specs at one level.
#[derive(Clone, Debug)]
pub(super) enum Source {
    /// Spec files for every target; `root`: the directory they were found in (their locations
    /// are relative to it), `None` for a file given alone.
    Files {
        files: Vec<PathBuf>,
        root: Option<PathBuf>,
        why: String,
    },
    /// `[targets.KEY] specs` of a config: for requests whose chain (or alias) holds `key`.
    ForTarget {
        key: String,
        files: Vec<(PathBuf, Vec<String>)>,
        config: PathBuf,
    },
    /// A directory with its own `registry.toml`.
    Library {
        dir: PathBuf,
        manifest: ResolvedManifest,
        why: String,
    },
}

/// The sources of one level, in order.
#[derive(Clone, Debug)]
pub(super) struct Layer {
    pub(super) origin: Origin,
    pub(super) sources: Vec<Source>,
}

impl Layer {
    fn new(origin: Origin) -> Layer {
        Layer {
            origin,
            sources: Vec::new(),
        }
    }
}

impl Registry {
    /// Adds the configs and `TUNESPEC_SPEC_PATH` entries of `discovery`, in precedence order.
    pub fn with_discovery(mut self, discovery: &Discovery) -> Result<Registry, Error> {
        let mut problems = Vec::new();
        let configs = load_configs(discovery, &mut problems);
        // Measured first unless asked: the environment, then the project config, then the user
        // config; none of them set leaves the registry's own choice.
        if let Some(derived) = discovery
            .derived
            .or_else(|| configs.iter().find_map(|(_, config)| config.derived))
        {
            self.derived = derived;
        }
        // Spec directories first: libraries may define the targets that configs name.
        let first_layer = self.layers.len();
        for (origin, config) in &configs {
            let layer = self.config_dirs(origin, config, &mut problems);
            self.layers.push(layer);
        }
        let env_layer = self.spec_path_layer(discovery, &mut problems)?;
        // Per-target specs, now that every target is known.
        for (index, (_, config)) in configs.iter().enumerate() {
            for target in &config.targets {
                if let Some(source) = self.config_target(config, target, &mut problems) {
                    self.layers[first_layer + index].sources.push(source);
                }
            }
        }
        if !env_layer.sources.is_empty() {
            self.layers.push(env_layer);
        }
        crate::verify::sort_problems(&mut problems);
        if problems.is_empty() {
            Ok(self)
        } else {
            Err(Error::Problems(problems))
        }
    }

    /// The layer of a config's `spec_dirs` (its `[targets.KEY]` lists come later).
    fn config_dirs(
        &mut self,
        origin: &Origin,
        config: &Config,
        problems: &mut Vec<Problem>,
    ) -> Layer {
        let mut layer = Layer::new(origin.clone());
        for dir in &config.spec_dirs {
            if !dir.path.is_dir() {
                let what = if dir.path.exists() {
                    "is not a directory"
                } else {
                    "does not exist"
                };
                problems.push(Problem::error(
                    codes::CONFIG,
                    format!("spec directory '{}' {what}", dir.written),
                    Some(dir.loc.clone()),
                ));
                continue;
            }
            match self.directory_source(&dir.path, origin) {
                Ok(Some(source)) => layer.sources.push(source),
                Ok(None) => {}
                Err(found) => problems.extend(found.into_iter().map(|mut problem| {
                    if problem.loc.is_none() {
                        problem.loc = Some(dir.loc.clone());
                    }
                    problem
                })),
            }
        }
        layer
    }

    /// The layer of `TUNESPEC_SPEC_PATH`; an entry that does not exist is an I/O error.
    fn spec_path_layer(
        &mut self,
        discovery: &Discovery,
        problems: &mut Vec<Problem>,
    ) -> Result<Layer, Error> {
        let mut layer = Layer::new(Origin::SpecPath);
        for entry in &discovery.spec_path {
            if entry.is_dir() {
                match self.directory_source(entry, &Origin::SpecPath) {
                    Ok(Some(source)) => layer.sources.push(source),
                    Ok(None) => {}
                    Err(found) => problems.extend(found),
                }
            } else if entry.is_file() {
                layer.sources.push(Source::Files {
                    files: vec![entry.clone()],
                    root: None,
                    why: "named in TUNESPEC_SPEC_PATH".to_string(),
                });
            } else {
                return Err(Error::Io(format!(
                    "TUNESPEC_SPEC_PATH names {}, which does not exist",
                    entry.display()
                )));
            }
        }
        Ok(layer)
    }

    /// A config's `[targets.KEY]` table as a source: its key must name a known target or alias,
    /// its features must be declared along that target's chain.
    fn config_target(
        &self,
        config: &Config,
        target: &ConfigTarget,
        problems: &mut Vec<Problem>,
    ) -> Option<Source> {
        let Some(found) = self.find(&target.key) else {
            let suggestions = self.nearest(&target.key);
            let mut problem = Problem::error(
                codes::CONFIG,
                format!("[targets.{}] names no known target", target.key),
                Some(target.loc.clone()),
            );
            if !suggestions.is_empty() {
                problem = problem.with_help(format!("did you mean {}?", suggestions.join(", ")));
            }
            problems.push(problem);
            return None;
        };
        let declared = self.chain_features(&found.name);
        let mut files = Vec::new();
        for spec in &target.specs {
            for feature in &spec.features {
                let name = feature.trim_end_matches(['+', '-']);
                if !declared.contains(name) {
                    problems.push(Problem::error(
                        codes::CONFIG,
                        format!(
                            "feature '{name}' is not declared by target '{}' or its fallbacks",
                            found.name
                        ),
                        Some(spec.loc.clone()),
                    ));
                }
            }
            match config::expand(&spec.path) {
                Ok(paths) => {
                    files.extend(paths.into_iter().map(|path| (path, spec.features.clone())))
                }
                Err(reason) => problems.push(Problem::error(
                    codes::CONFIG,
                    format!(
                        "spec path '{}' of [targets.{}] {reason}",
                        spec.written, target.key
                    ),
                    Some(spec.loc.clone()),
                )),
            }
        }
        Some(Source::ForTarget {
            key: target.key.clone(),
            files,
            config: config.path.clone(),
        })
    }

    /// A directory as a source: a spec library when it has a `registry.toml`, otherwise its spec
    /// files for every target. `Ok(None)`: a library already loaded at a higher level.
    pub(super) fn directory_source(
        &mut self,
        dir: &Path,
        origin: &Origin,
    ) -> Result<Option<Source>, Vec<Problem>> {
        let manifest_path = dir.join("registry.toml");
        if !manifest_path.is_file() {
            return plain_directory(dir, origin).map(Some);
        }
        if self.has_library(dir) {
            return Ok(None);
        }
        let text = crate::files::read_input_text(&manifest_path).map_err(|error| {
            vec![Problem::error(
                codes::IO,
                format!("cannot read {}: {error}", manifest_path.display()),
                None,
            )]
        })?;
        let name = manifest_path.display().to_string();
        let external = Registry::embedded().external_targets();
        let resolved = manifest::load_with(&text, &name, dir, &external)?;
        self.add_library_targets(&resolved, dir)?;
        Ok(Some(Source::Library {
            dir: dir.to_path_buf(),
            manifest: resolved,
            why: origin.describe(),
        }))
    }

    /// Whether the spec library in `dir` is loaded already (compared by canonical path).
    fn has_library(&self, dir: &Path) -> bool {
        let canonical = canonical(dir);
        self.layers.iter().flat_map(|layer| &layer.sources).any(
            |source| matches!(source, Source::Library { dir, .. } if canonical_eq(dir, &canonical)),
        )
    }

    /// Adds a library's targets; none of their names or aliases may be known already (targets
    /// of two libraries must not clash either), except as the same definition.
    fn add_library_targets(
        &mut self,
        resolved: &ResolvedManifest,
        dir: &Path,
    ) -> Result<(), Vec<Problem>> {
        let mut problems = Vec::new();
        let mut redefined = Vec::new();
        for target in &resolved.targets {
            // The same definition in two libraries is one target: a measured library that
            // `bench --write` wrote carries a copy of the target it was measured for, so that it
            // works alone and beside the library it came from.
            let same = self.find(&target.name).is_some_and(|owner| {
                owner.library.is_some()
                    && owner.definition() == Target::from_library(target, dir).definition()
            });
            if same {
                redefined.push(target.name.clone());
                continue;
            }
            let clash = std::iter::once(&target.name)
                .chain(&target.aliases)
                .find_map(|name| self.find(name).map(|owner| (name, owner)));
            if let Some((name, owner)) = clash {
                let definer = match &owner.library {
                    Some(dir) => format!("the spec library {}", dir.display()),
                    None => "the default registry".to_string(),
                };
                problems.push(Problem::error(
                    codes::MANIFEST,
                    format!(
                        "'{name}' is already defined by {definer} (target '{}')",
                        owner.name
                    ),
                    Some(target.loc.clone()),
                ));
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        self.targets.extend(
            resolved
                .targets
                .iter()
                .filter(|target| !redefined.contains(&target.name))
                .map(|target| Target::from_library(target, dir)),
        );
        self.targets.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(())
    }

    /// The registry with `specs` (files, directories, spec libraries) as command-line specs.
    pub fn with_command_line(&self, specs: &[PathBuf]) -> Result<Registry, Error> {
        let mut registry = self.clone();
        let mut layer = Layer::new(Origin::CommandLine);
        for path in specs {
            // `-`: a spec read from stdin when it is resolved (`Builder::file`).
            if path.as_os_str() == "-" {
                layer.sources.push(Source::Files {
                    files: vec![path.clone()],
                    root: None,
                    why: "given with --spec - (stdin)".to_string(),
                });
                continue;
            }
            let metadata = std::fs::metadata(path).map_err(|error| {
                Error::Io(format!(
                    "cannot read {}: {}",
                    path.display(),
                    io_message(&error)
                ))
            })?;
            if !metadata.is_dir() {
                layer.sources.push(Source::Files {
                    files: vec![path.clone()],
                    root: None,
                    why: "given with --spec".to_string(),
                });
                continue;
            }
            match registry.directory_source(path, &Origin::CommandLine) {
                Ok(Some(source)) => layer.sources.push(source),
                Ok(None) => {}
                Err(problems) if problems.iter().all(|p| p.loc.is_none()) => {
                    let messages: Vec<String> = problems
                        .iter()
                        .map(|p| match &p.help {
                            Some(help) => format!("{}\n  help: {help}", p.message),
                            None => p.message.clone(),
                        })
                        .collect();
                    return Err(Error::Io(messages.join("\n")));
                }
                Err(problems) => return Err(Error::Problems(problems)),
            }
        }
        registry.layers.insert(0, layer);
        Ok(registry)
    }

    /// The registry with the measured library `dir`, pulled from the store `url`, as the lowest
    /// user layer: every user spec (command line, configs, `TUNESPEC_SPEC_PATH`) goes before the
    /// store's entries, which go before the defaults.
    pub fn with_store_library(&self, dir: &Path, url: &str) -> Result<Registry, Error> {
        let mut registry = self.clone();
        let origin = Origin::Store(url.to_string());
        let mut layer = Layer::new(origin.clone());
        match registry.directory_source(dir, &origin) {
            Ok(Some(source)) => layer.sources.push(source),
            Ok(None) => {}
            Err(problems) => return Err(Error::Problems(problems)),
        }
        registry.layers.push(layer);
        Ok(registry)
    }
}

/// The project and user configs of `discovery`, loaded; their problems go to `problems`.
fn load_configs(discovery: &Discovery, problems: &mut Vec<Problem>) -> Vec<(Origin, Config)> {
    let levels = [
        discovery
            .project
            .as_ref()
            .map(|path| Origin::Project(path.clone())),
        discovery
            .user
            .as_ref()
            .map(|path| Origin::User(path.clone())),
    ];
    let mut configs = Vec::new();
    for origin in levels.into_iter().flatten() {
        let path = origin.config().expect("a config level");
        match Config::load(path, discovery.home.as_deref()) {
            Ok(config) => configs.push((origin, config)),
            Err(found) => problems.extend(found),
        }
    }
    configs
}

/// A directory without a `registry.toml`: its spec files, for every target.
fn plain_directory(dir: &Path, origin: &Origin) -> Result<Source, Vec<Problem>> {
    if let Some(run) = tuner_run(dir) {
        return Err(vec![Problem::error(
            codes::CONFIG,
            format!(
                "{} is a SHARK tuner run's candidates: every candidate of a dispatch matches the same op, so only the first in file order would ever fire, and 0_spec.mlir is the baseline's empty placeholder",
                dir.display()
            ),
            None,
        )
        .with_help(format!(
            "import the fastest measured candidate of each dispatch, with its measurement: `tunespec import-tuner {} --target TARGET -o LIBRARY`, then use `--spec LIBRARY`",
            run.display()
        ))]);
    }
    let files = manifest::list_spec_entries(dir)
        .map_err(|message| vec![Problem::error(codes::IO, message, None)])?;
    if files.is_empty() {
        return Err(vec![Problem::error(
            codes::CONFIG,
            format!("{} holds no spec files (.mlir, .mlirbc)", dir.display()),
            None,
        )]);
    }
    let why = match origin {
        Origin::CommandLine => format!("in {}, given with --spec", dir.display()),
        Origin::SpecPath => format!("in {}, from TUNESPEC_SPEC_PATH", dir.display()),
        other => format!("in {} ({})", dir.display(), other.describe()),
    };
    Ok(Source::Files {
        files: files.into_iter().map(|(_, file)| file).collect(),
        root: Some(dir.to_path_buf()),
        why,
    })
}

/// The SHARK tuner run `dir` belongs to, when `dir` is one (`candidates/specs/<N>_spec.mlir`
/// beside `*_candidate_analysis.csv` or `summary.log`) or is its `candidates/specs` directory.
/// Linking such a directory as specs is never what the user wants (see the error above).
fn tuner_run(dir: &Path) -> Option<PathBuf> {
    let is_run = |run: &Path| {
        let specs = run.join("candidates").join("specs");
        let candidates = std::fs::read_dir(&specs).ok().is_some_and(|entries| {
            entries.filter_map(Result::ok).any(|entry| {
                entry
                    .file_name()
                    .to_str()
                    .and_then(|name| name.strip_suffix("_spec.mlir"))
                    .is_some_and(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
            })
        });
        let marked = run.join("summary.log").is_file()
            || std::fs::read_dir(run).ok().is_some_and(|entries| {
                entries.filter_map(Result::ok).any(|entry| {
                    entry
                        .file_name()
                        .to_str()
                        .is_some_and(|name| name.ends_with("_candidate_analysis.csv"))
                })
            });
        candidates && marked
    };
    if is_run(dir) {
        return Some(dir.to_path_buf());
    }
    let canonical_dir = canonical(dir);
    let run = canonical_dir.parent()?.parent()?;
    (canonical_dir.file_name()? == "specs"
        && canonical_dir.parent()?.file_name()? == "candidates"
        && is_run(run))
    .then(|| {
        // As the user wrote it where it can be (`RUN/candidates/specs` -> `RUN`).
        dir.parent()
            .and_then(Path::parent)
            .filter(|given| !given.as_os_str().is_empty())
            .map_or_else(|| run.to_path_buf(), Path::to_path_buf)
    })
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

fn canonical_eq(path: &Path, canonical_other: &Path) -> bool {
    canonical(path) == canonical_other
}
