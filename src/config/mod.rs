//! User spec libraries: where they are configured and how configs read.
//!
//! Three places name user specs, in precedence order (after `--spec` on the command line):
//!
//! 1. the project config, `tunespec.toml`, found by walking up from the current directory;
//! 2. the user config, `$XDG_CONFIG_HOME/tunespec/config.toml` (`~/.config/tunespec/config.toml`);
//! 3. `TUNESPEC_SPEC_PATH`, a `:`-separated list of spec directories and files.
//!
//! `TUNESPEC_NO_CONFIG=1` skips the project and user configs (hermetic builds and tests);
//! `TUNESPEC_SPEC_PATH` still applies because it is given explicitly.
//!
//! Both config files have the same form (paths relative to the config file; `~/` is the home
//! directory, `$HOME` or else the password database's, and `~user/` that user's):
//!
//! ```toml
//! schema = 1                                  # optional
//! spec_dirs = ["tuning/specs"]                # plain directories: every spec applies to every
//!                                             # target; with a registry.toml: a spec library
//! derived = true                              # optional: link tunespec's derived (never
//!                                             # measured) default specs too (TUNESPEC_DERIVED)
//! [targets.mi300x]                            # a target, alias or SKU name, case-insensitive
//! specs = ["tuning/mi300x/*.mlir", { path = "tuning/xnack.mlir", features = ["xnack+"] }]
//! ```
//!
//! This module only finds and parses; [`crate::registry::Registry`] checks the paths and target
//! names and orders the specs.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

pub mod environment;

pub use environment::Environment;

use crate::ir::Loc;
use crate::manifest::{self, offset_loc, SpecEntry};
use crate::problem::{codes, Problem};

/// The project config's file name.
pub const PROJECT_FILE: &str = "tunespec.toml";
/// The config schema version this build understands.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    schema: Option<Spanned<u32>>,
    #[serde(default)]
    spec_dirs: Vec<Spanned<String>>,
    #[serde(default)]
    targets: BTreeMap<Spanned<String>, RawTarget>,
    /// User config only: project configs owned by other users that may be used anyway.
    #[serde(default)]
    safe_configs: Vec<Spanned<String>>,
    /// Whether tunespec's derived (never measured) default specs are linked.
    #[serde(default)]
    derived: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTarget {
    specs: Vec<Spanned<SpecEntry>>,
}

/// A parsed config file (project or user).
#[derive(Clone, Debug)]
pub struct Config {
    /// The config file.
    pub path: PathBuf,
    /// Spec directories, resolved against the config's directory, in listed order.
    pub spec_dirs: Vec<ConfigPath>,
    /// Per-target spec files, in the order of the file.
    pub targets: Vec<ConfigTarget>,
    /// `derived = true|false`: whether tunespec's derived default specs are linked (unset: the
    /// next level decides; none: off, measured first).
    pub derived: Option<bool>,
}

/// One path written in a config, resolved, with where it was written.
#[derive(Clone, Debug)]
pub struct ConfigPath {
    /// As written.
    pub written: String,
    /// Resolved against the config's directory (a glob keeps its wildcards).
    pub path: PathBuf,
    /// Canonical request features (`xnack+`) the spec needs; empty for directories.
    pub features: Vec<String>,
    /// Where it is written in the config.
    pub loc: Loc,
}

/// `[targets.NAME]`: spec files for one target, alias or SKU.
#[derive(Clone, Debug)]
pub struct ConfigTarget {
    /// Lowercase.
    pub key: String,
    /// Where the table starts in the config.
    pub loc: Loc,
    /// The spec files and globs it lists, in order.
    pub specs: Vec<ConfigPath>,
}

impl Config {
    /// Reads and parses a config file; an unreadable file is one `tunespec::io` problem.
    /// `home`: where `~/` paths lead (the settings' `HOME`, [`Discovery::home`]).
    pub fn load(path: &Path, home: Option<&Path>) -> Result<Config, Vec<Problem>> {
        let text = crate::files::read_input_text(path).map_err(|error| {
            vec![Problem::error(
                codes::IO,
                format!("cannot read {}: {error}", path.display()),
                None,
            )]
        })?;
        Config::parse(&text, path, home)
    }

    /// Parses the text of the config file at `path` (paths resolve against its directory,
    /// `~/` against `home`).
    pub fn parse(text: &str, path: &Path, home: Option<&Path>) -> Result<Config, Vec<Problem>> {
        let name = path.display().to_string();
        let raw: RawConfig = toml::from_str(text).map_err(|error| {
            let offset = error.span().map_or(0, |span| span.start);
            vec![Problem::error(
                codes::CONFIG,
                error.message().trim_end().to_string(),
                Some(offset_loc(text, &name, offset)),
            )]
        })?;
        let mut parsing = Parsing {
            text,
            name,
            base: path.parent().unwrap_or(Path::new(".")),
            home,
            problems: Vec::new(),
        };
        parsing.check_header(&raw, path);
        let spec_dirs = parsing.spec_dirs(&raw.spec_dirs);
        let targets = raw
            .targets
            .iter()
            .map(|(key, target)| parsing.target(key, target))
            .collect();
        if parsing.problems.is_empty() {
            Ok(Config {
                path: path.to_path_buf(),
                spec_dirs,
                targets,
                derived: raw.derived,
            })
        } else {
            Err(parsing.problems)
        }
    }
}

/// A config being checked after TOML parsing: its text and name (for locations), the directory
/// its paths resolve against and the problems so far, in file order. One struct so that each
/// section is checked by a function of its own and every problem is still reported.
struct Parsing<'a> {
    text: &'a str,
    name: String,
    base: &'a Path,
    home: Option<&'a Path>,
    problems: Vec<Problem>,
}

impl Parsing<'_> {
    /// The location of a byte offset in the config.
    fn loc(&self, offset: usize) -> Loc {
        offset_loc(self.text, &self.name, offset)
    }

    /// Records a `tunespec::config` error at `offset`.
    fn error(&mut self, message: impl Into<String>, offset: usize) {
        let loc = self.loc(offset);
        self.problems
            .push(Problem::error(codes::CONFIG, message, Some(loc)));
    }

    /// The schema version, and `safe_configs` outside the user config.
    fn check_header(&mut self, raw: &RawConfig, path: &Path) {
        if let Some(schema) = &raw.schema {
            if *schema.get_ref() != SCHEMA_VERSION {
                self.error(
                    format!(
                        "config schema {} is not supported (this tunespec reads schema {SCHEMA_VERSION})",
                        schema.get_ref()
                    ),
                    schema.span().start,
                );
            }
        }
        if let (Some(first), true) = (
            raw.safe_configs.first(),
            path.file_name().is_some_and(|name| name == PROJECT_FILE),
        ) {
            self.error(
                "safe_configs belongs in the user config, not in a project's tunespec.toml",
                first.span().start,
            );
        }
    }

    /// `spec_dirs`, resolved; an empty path is an error.
    fn spec_dirs(&mut self, dirs: &[Spanned<String>]) -> Vec<ConfigPath> {
        let mut spec_dirs = Vec::new();
        for dir in dirs {
            if dir.get_ref().trim().is_empty() {
                self.error("empty spec directory path", dir.span().start);
                continue;
            }
            spec_dirs.push(ConfigPath {
                written: dir.get_ref().clone(),
                path: resolve_path(self.base, dir.get_ref(), self.home),
                features: Vec::new(),
                loc: self.loc(dir.span().start),
            });
        }
        spec_dirs
    }

    /// A `[targets.KEY]` table: its specs with their features (sorted, once each); a target
    /// without specs, an empty path or a malformed feature is an error.
    fn target(&mut self, key: &Spanned<String>, target: &RawTarget) -> ConfigTarget {
        let mut specs = Vec::new();
        for entry in &target.specs {
            let mut features = Vec::new();
            for feature in &entry.get_ref().features {
                match manifest::parse_feature(feature.get_ref()) {
                    Ok((name, enabled)) => features.push(manifest::format_feature(&name, enabled)),
                    Err(reason) => self.error(reason, feature.span().start),
                }
            }
            features.sort();
            features.dedup();
            let written = &entry.get_ref().path;
            if written.trim().is_empty() {
                self.error(
                    format!("empty spec path for target '{}'", key.get_ref()),
                    entry.span().start,
                );
                continue;
            }
            specs.push(ConfigPath {
                written: written.clone(),
                path: resolve_path(self.base, written, self.home),
                features,
                loc: self.loc(entry.span().start),
            });
        }
        if target.specs.is_empty() {
            self.error(
                format!("[targets.{}] lists no specs", key.get_ref()),
                key.span().start,
            );
        }
        ConfigTarget {
            key: key.get_ref().trim().to_ascii_lowercase(),
            loc: self.loc(key.span().start),
            specs,
        }
    }
}

/// `~/x` is under `home`, `~user/x` under that user's (see [`expand_tilde`]); relative paths
/// are under `base`.
fn resolve_path(base: &Path, written: &str, home: Option<&Path>) -> PathBuf {
    let env = |name: &str| {
        (name == "HOME")
            .then(|| home.map(|home| home.as_os_str().to_os_string()))
            .flatten()
    };
    let path = expand_tilde(written, &env);
    if path.is_absolute() {
        path
    } else {
        base.join(path)
    }
}

/// `~` and `~/x`: this user's home (`HOME`, looked up in `env`); `~user` and `~user/x`: that
/// user's home from the password database. Anything else, or a home that cannot be found, as
/// written. The `~` form is expanded by `shellexpand`.
pub fn expand_tilde(written: &str, env: &impl Fn(&str) -> Option<OsString>) -> PathBuf {
    let home = || env("HOME").map(|home| home.to_string_lossy().into_owned());
    let expanded = shellexpand::tilde_with_context(written, home);
    if expanded != written {
        return PathBuf::from(expanded.into_owned());
    }
    // `~user`: shellexpand leaves it (it knows no other users).
    if let Some(rest) = written.strip_prefix('~') {
        let (user, tail) = rest.split_once('/').unwrap_or((rest, ""));
        if !user.is_empty() {
            if let Some(home) = user_home(user) {
                return if tail.is_empty() {
                    home
                } else {
                    home.join(tail)
                };
            }
        }
    }
    PathBuf::from(written)
}

/// The home directory of `user` in the password database (`getpwnam_r`).
fn user_home(user: &str) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new(user).ok()?;
    let mut buffer: Vec<libc::c_char> = vec![0; 16 * 1024];
    // SAFETY: `passwd` is plain data (integers and pointers); all-zero is a valid value, and
    // getpwnam_r overwrites it.
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is to live storage of the given size owned by this frame (`name` is
    // NUL-terminated); the entry's strings point into `buffer`, which outlives their use below.
    let status = unsafe {
        libc::getpwnam_r(
            name.as_ptr(),
            &mut entry,
            buffer.as_mut_ptr(),
            buffer.len(),
            &mut found,
        )
    };
    if status != 0 || found.is_null() || entry.pw_dir.is_null() {
        return None;
    }
    // SAFETY: `pw_dir` is a NUL-terminated string in `buffer`, alive here.
    let dir = unsafe { std::ffi::CStr::from_ptr(entry.pw_dir) };
    let dir = Path::new(std::ffi::OsStr::from_bytes(dir.to_bytes()));
    dir.is_absolute().then(|| dir.to_path_buf())
}

/// An XDG base directory: `variable` when it is set to an absolute path (the XDG rule: relative
/// values are ignored), else `HOME`/`fallback` (`.config`, `.cache`); with the process's
/// environment ([`Environment::process`]), what `etcetera`'s XDG strategy
/// gives.
pub fn xdg_home(
    env: &impl Fn(&str) -> Option<OsString>,
    variable: &str,
    fallback: &str,
) -> Option<PathBuf> {
    env(variable)
        .filter(|value| !value.is_empty() && Path::new(value).is_absolute())
        .map(PathBuf::from)
        .or_else(|| {
            env("HOME")
                .filter(|value| !value.is_empty())
                .map(|home| PathBuf::from(home).join(fallback))
        })
}

/// Spec files named by a path or glob (`*`, `?`, `**`): a file, every spec file of a directory
/// (sorted), or the spec files matching the glob (sorted). `Err` says why nothing was found.
pub fn expand(path: &Path) -> Result<Vec<PathBuf>, String> {
    let text = path.to_string_lossy().replace('\\', "/");
    if !manifest::is_glob(&text) {
        let metadata = std::fs::metadata(path).map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => "does not exist".to_string(),
            _ => format!("cannot be read: {error}"),
        })?;
        if metadata.is_dir() {
            let files = manifest::list_spec_entries(path)?;
            if files.is_empty() {
                return Err("is a directory with no spec files (.mlir, .mlirbc)".into());
            }
            return Ok(files.into_iter().map(|(_, file)| file).collect());
        }
        return Ok(vec![path.to_path_buf()]);
    }
    // The literal directory before the first wildcard is walked; the rest is matched.
    let segments: Vec<&str> = text.split('/').collect();
    let first_glob = segments
        .iter()
        .position(|segment| manifest::is_glob(segment))
        .unwrap_or(segments.len());
    let literal = segments[..first_glob].join("/");
    let root = if literal.is_empty() && text.starts_with('/') {
        PathBuf::from("/")
    } else if literal.is_empty() {
        PathBuf::from(".")
    } else {
        PathBuf::from(literal)
    };
    let pattern = segments[first_glob..].join("/");
    if !root.is_dir() {
        return Err(format!("'{}' is not a directory", root.display()));
    }
    let compiled = manifest::PathPattern::new(&pattern);
    let files: Vec<PathBuf> = manifest::list_spec_entries(&root)?
        .into_iter()
        .filter(|(relative, _)| compiled.is_match(relative))
        .map(|(_, file)| file)
        .collect();
    if files.is_empty() {
        return Err("matches no spec file (.mlir, .mlirbc)".into());
    }
    Ok(files)
}

/// Where the configs are, for one process: found from a directory and an environment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Discovery {
    /// The nearest `tunespec.toml` at or above the start directory.
    pub project: Option<PathBuf>,
    /// The user config, when the file exists.
    pub user: Option<PathBuf>,
    /// `HOME` as the environment said it: where the configs' `~/` paths lead.
    pub home: Option<PathBuf>,
    /// `TUNESPEC_SPEC_PATH` entries, in order (empty entries dropped).
    pub spec_path: Vec<PathBuf>,
    /// `TUNESPEC_DERIVED` (`1`/`true`/`yes`/`on` or `0`/`false`/`no`/`off`), the twin of the
    /// configs' `derived` key; it wins over both configs, and `--derived`/`--no-derived` over it.
    pub derived: Option<bool>,
    /// What was ignored, and why (a project config another user owns, a `TUNESPEC_DERIVED`
    /// that is no switch), each once: the CLI prints them as warnings.
    pub notices: Vec<String>,
}

impl Discovery {
    /// From the current directory and `env`.
    pub fn from_env(env: &Environment) -> Discovery {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        Discovery::find(&cwd, env.lookup())
    }

    /// From `start` and an environment lookup (`TUNESPEC_NO_CONFIG`, `XDG_CONFIG_HOME`, `HOME`,
    /// `TUNESPEC_SPEC_PATH`).
    pub fn find(start: &Path, env: impl Fn(&str) -> Option<OsString>) -> Discovery {
        let mut notices = Vec::new();
        let mut notice = |message: String| {
            if !notices.contains(&message) {
                notices.push(message);
            }
        };
        let spec_path = env("TUNESPEC_SPEC_PATH")
            .map(|value| {
                std::env::split_paths(&value)
                    .filter(|path| !path.as_os_str().is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let derived = env(DERIVED_ENV).and_then(|value| {
            let parsed = parse_switch(&value.to_string_lossy());
            if parsed.is_none() {
                notice(format!(
                    "ignoring {DERIVED_ENV}={}: it takes 1, true, yes, on, 0, false, no or off",
                    value.to_string_lossy()
                ));
            }
            parsed
        });
        let home = env("HOME")
            .filter(|home| !home.is_empty())
            .map(PathBuf::from);
        let skip = env("TUNESPEC_NO_CONFIG").is_some_and(|value| !value.is_empty() && value != "0");
        if skip {
            return Discovery {
                spec_path,
                derived,
                notices,
                home,
                ..Discovery::default()
            };
        }
        let user = user_config_path(&env).filter(|path| path.is_file());
        // A project config someone else owns is not used (git's safe.directory rule): it could
        // name specs that change what this user's compiler does. Root's and the owner of its
        // directory's are fine, and so is one the user config lists in `safe_configs`.
        let project = find_project(start).filter(|path| {
            if crate::files::trusted_config(path) || listed_as_safe(user.as_deref(), path, home.as_deref()) {
                return true;
            }
            notice(format!(
                "ignoring {}: it is owned by another user (list it in safe_configs in {} to use it)",
                path.display(),
                user.clone()
                    .or_else(|| user_config_path(&env))
                    .map_or("the user config".to_string(), |user| user.display().to_string())
            ));
            false
        });
        Discovery {
            project,
            user,
            home,
            spec_path,
            derived,
            notices,
        }
    }
}

/// The environment twin of the configs' `derived` key.
pub const DERIVED_ENV: &str = "TUNESPEC_DERIVED";

/// `1`, `true`, `yes`, `on` (any case) are on; `0`, `false`, `no`, `off` and the empty string
/// are off; anything else is `None`.
pub fn parse_switch(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "" | "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// Whether the user config lists `path` in `safe_configs`.
fn listed_as_safe(user: Option<&Path>, path: &Path, home: Option<&Path>) -> bool {
    let Some(user) = user else {
        return false;
    };
    let Ok(table) = crate::files::read_input_text(user)
        .map_err(|_| ())
        .and_then(|text| toml::from_str::<toml::Table>(&text).map_err(|_| ()))
    else {
        return false;
    };
    let base = user.parent().unwrap_or(Path::new("."));
    let wanted = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    table
        .get("safe_configs")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(toml::Value::as_str)
        .map(|written| resolve_path(base, written, home))
        .any(|listed| listed.canonicalize().unwrap_or(listed) == wanted)
}

/// The nearest `tunespec.toml` in `start` or one of its ancestors.
pub fn find_project(start: &Path) -> Option<PathBuf> {
    let start = start.canonicalize().unwrap_or_else(|_| start.to_path_buf());
    start
        .ancestors()
        .map(|dir| dir.join(PROJECT_FILE))
        .find(|candidate| candidate.is_file())
}

/// `$XDG_CONFIG_HOME/tunespec/config.toml` (an absolute `XDG_CONFIG_HOME` only, as the XDG
/// spec says), else `$HOME/.config/tunespec/config.toml` (see [`xdg_home`]).
pub fn user_config_path(env: &impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let base = xdg_home(env, "XDG_CONFIG_HOME", ".config")?;
    Some(base.join("tunespec").join("config.toml"))
}
