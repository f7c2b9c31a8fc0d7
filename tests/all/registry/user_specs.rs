//! User specs at every level (command line, project and user configs, `TUNESPEC_SPEC_PATH`,
//! spec libraries), their precedence, and the problems of configs.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use tunespec::config::{Config, Discovery};
use tunespec::registry::{self, Error, Origin, Registry};

use super::write;

/// An environment for [`Discovery::find`].
fn env(vars: &[(&str, OsString)]) -> impl Fn(&str) -> Option<OsString> {
    let vars: BTreeMap<String, OsString> = vars
        .iter()
        .map(|(name, value)| (name.to_string(), value.clone()))
        .collect();
    move |name| vars.get(name).cloned()
}

#[test]
fn configs_are_found_by_walking_up_and_in_the_xdg_directory() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    write(
        &root,
        &[
            ("project/tunespec.toml", "spec_dirs = []\n"),
            ("xdg/tunespec/config.toml", "spec_dirs = []\n"),
            ("home/.config/tunespec/config.toml", "spec_dirs = []\n"),
        ],
    );
    let nested = root.join("project/a/b");
    std::fs::create_dir_all(&nested).unwrap();
    let found = Discovery::find(
        &nested,
        env(&[
            ("XDG_CONFIG_HOME", root.join("xdg").into()),
            ("HOME", root.join("home").into()),
            ("TUNESPEC_SPEC_PATH", "/x::/y".into()),
        ]),
    );
    assert_eq!(found.project, Some(root.join("project/tunespec.toml")));
    assert_eq!(found.user, Some(root.join("xdg/tunespec/config.toml")));
    assert_eq!(found.spec_path, [PathBuf::from("/x"), PathBuf::from("/y")]);
    // Without XDG_CONFIG_HOME (or with a relative one, which the XDG spec says to ignore): ~/.config.
    for xdg in [None, Some("relative")] {
        let mut vars = vec![("HOME", OsString::from(root.join("home")))];
        if let Some(xdg) = xdg {
            vars.push(("XDG_CONFIG_HOME", xdg.into()));
        }
        let found = Discovery::find(&root, env(&vars));
        assert_eq!(
            found.user,
            Some(root.join("home/.config/tunespec/config.toml"))
        );
        assert_eq!(found.project, None);
    }
    // TUNESPEC_NO_CONFIG skips both configs but keeps the explicit spec path.
    let found = Discovery::find(
        &nested,
        env(&[
            ("XDG_CONFIG_HOME", root.join("xdg").into()),
            ("TUNESPEC_NO_CONFIG", "1".into()),
            ("TUNESPEC_SPEC_PATH", "/x".into()),
        ]),
    );
    assert_eq!(
        found,
        Discovery {
            project: None,
            user: None,
            home: None,
            spec_path: vec![PathBuf::from("/x")],
            derived: None,
            notices: Vec::new(),
        }
    );
}

/// A spec file whose content names it (identity is by path; content only has to differ).
fn spec(name: &str) -> String {
    format!("// {name}\n")
}

/// A project, a user config and a spec path, with specs at every level.
struct Levels {
    _dir: tempfile::TempDir,
    root: PathBuf,
    discovery: Discovery,
}

fn levels() -> Levels {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let project_config = r#"
spec_dirs = ["tuning/plain", "tuning/lib"]

[targets.gfx9]
specs = ["tuning/cdna.mlir"]

[targets.MI300X]
specs = ["tuning/mi300x/*.mlir"]

[targets.gfx942]
specs = [{ path = "tuning/xnack_on.mlir", features = ["xnack+"] }]
"#;
    let library = r#"
schema = 1
[targets.mi300x_lab]
description = "a lab SKU"
kind = "sku"
fallback = "gfx942"
specs = ["lab/*.mlir"]

[extend.gfx942]
specs = ["gfx942/extra.mlir"]

[extend.mi300x]
specs = ["mi300x/sku.mlir"]
"#;
    let user_config = r#"
spec_dirs = ["user_specs"]
[targets.gfx942]
specs = ["user_gfx942.mlir"]
"#;
    write(
        &root,
        &[
            ("project/tunespec.toml", project_config),
            ("project/tuning/plain/a.mlir", &spec("plain a")),
            ("project/tuning/plain/b.mlir", &spec("plain b")),
            ("project/tuning/cdna.mlir", &spec("cdna")),
            ("project/tuning/mi300x/one.mlir", &spec("mi300x one")),
            ("project/tuning/xnack_on.mlir", &spec("xnack on")),
            ("project/tuning/lib/registry.toml", library),
            ("project/tuning/lib/lab/lab.mlir", &spec("lab")),
            ("project/tuning/lib/gfx942/extra.mlir", &spec("lib gfx942")),
            ("project/tuning/lib/mi300x/sku.mlir", &spec("lib mi300x")),
            ("xdg/tunespec/config.toml", user_config),
            ("xdg/tunespec/user_specs/u.mlir", &spec("user dir")),
            ("xdg/tunespec/user_gfx942.mlir", &spec("user gfx942")),
            ("env/dir/e.mlir", &spec("env dir")),
            ("env/file.mlir", &spec("env file")),
            ("cli.mlir", &spec("cli")),
        ],
    );
    std::fs::create_dir_all(root.join("project/src")).unwrap();
    let spec_path =
        std::env::join_paths([root.join("env/dir"), root.join("env/file.mlir")]).unwrap();
    let discovery = Discovery::find(
        &root.join("project/src"),
        env(&[
            ("XDG_CONFIG_HOME", root.join("xdg").into()),
            ("TUNESPEC_SPEC_PATH", spec_path),
        ]),
    );
    Levels {
        _dir: dir,
        root,
        discovery,
    }
}

/// (name relative to the temp root, origin label, what it was included for).
fn order(root: &Path, resolution: &registry::Resolution) -> Vec<(String, &'static str, String)> {
    resolution
        .specs
        .iter()
        .map(|spec| {
            let name = spec
                .name
                .strip_prefix(&format!("{}/", root.display()))
                .unwrap_or(&spec.name)
                .to_string();
            let target = spec.target.clone().unwrap_or_else(|| "*".into());
            (name, spec.origin.label(), target)
        })
        .collect()
}

fn names(root: &Path, resolution: &registry::Resolution) -> Vec<String> {
    order(root, resolution)
        .into_iter()
        .map(|(name, _, _)| name)
        .collect()
}

#[test]
fn user_specs_come_first_in_documented_precedence() {
    let levels = levels();
    let registry = Registry::embedded()
        .with_derived(true)
        .with_discovery(&levels.discovery)
        .unwrap();
    let resolution = registry
        .resolve("MI300X:xnack+", &[levels.root.join("cli.mlir")])
        .unwrap();
    let expected: Vec<(String, &str, String)> = [
        // 1. the command line
        ("cli.mlir", "command-line", "*"),
        // 2. the project config: for the alias, then the architecture, then the family, its
        //    per-target files and then its spec libraries' specs; then its plain directories
        ("project/tuning/mi300x/one.mlir", "project", "mi300x"),
        ("project/tuning/lib/mi300x/sku.mlir", "project", "mi300x"),
        ("project/tuning/xnack_on.mlir", "project", "gfx942"),
        ("project/tuning/lib/gfx942/extra.mlir", "project", "gfx942"),
        ("project/tuning/cdna.mlir", "project", "gfx9"),
        ("project/tuning/plain/a.mlir", "project", "*"),
        ("project/tuning/plain/b.mlir", "project", "*"),
        // 3. the user config, in the same order
        ("xdg/tunespec/user_gfx942.mlir", "user", "gfx942"),
        ("xdg/tunespec/user_specs/u.mlir", "user", "*"),
        // 4. TUNESPEC_SPEC_PATH, in order
        ("env/dir/e.mlir", "spec-path", "*"),
        ("env/file.mlir", "spec-path", "*"),
        // 5. the defaults: the architecture's, then the family's
        ("specs/gfx942/llama2_f16.mlir", "default", "gfx942"),
        ("specs/gfx942/llama3_bf16.mlir", "default", "gfx942"),
        ("specs/gfx9/llama3_70b_bf16.mlir", "default", "gfx9"),
    ]
    .into_iter()
    .map(|(name, origin, target)| (name.to_string(), origin, target.to_string()))
    .collect();
    assert_eq!(order(&levels.root, &resolution), expected);
    // Every spec says why it is there.
    let config = levels.root.join("project/tunespec.toml");
    let library = levels.root.join("project/tuning/lib");
    let reasons: Vec<&str> = resolution
        .specs
        .iter()
        .map(|spec| spec.reason.as_str())
        .collect();
    assert_eq!(reasons[0], "given with --spec");
    assert_eq!(
        reasons[1],
        format!(
            "listed under [targets.mi300x] in {}, for the alias mi300x",
            config.display()
        )
    );
    assert_eq!(
        reasons[2],
        format!(
            "[extend.mi300x] of the spec library {} (spec_dirs of {}), for the alias mi300x",
            library.display(),
            config.display()
        )
    );
    assert_eq!(
        reasons[3],
        format!(
            "listed under [targets.gfx942] in {}, for the target gfx942; the request has xnack+",
            config.display()
        )
    );
    assert_eq!(
        reasons[6],
        format!(
            "in {} (spec_dirs of {})",
            levels.root.join("project/tuning/plain").display(),
            config.display()
        )
    );
    assert_eq!(
        reasons[10],
        format!(
            "in {}, from TUNESPEC_SPEC_PATH",
            levels.root.join("env/dir").display()
        )
    );
    assert_eq!(reasons[11], "named in TUNESPEC_SPEC_PATH");
    assert_eq!(reasons[14], "default spec of gfx9, a fallback of gfx942");
    assert!(resolution.skipped.is_empty(), "{:?}", resolution.skipped);
    assert_eq!(resolution.specs[1].origin, Origin::Project(config));
    assert_eq!(
        resolution.specs[8].origin,
        Origin::User(levels.root.join("xdg/tunespec/config.toml"))
    );
}

#[test]
fn user_specs_for_an_alias_or_a_feature_apply_only_when_requested() {
    let levels = levels();
    let registry = Registry::embedded()
        .with_derived(true)
        .with_discovery(&levels.discovery)
        .unwrap();
    let plain = registry.resolve("gfx942", &[]).unwrap();
    let included = names(&levels.root, &plain);
    assert!(
        !included.iter().any(|name| name.contains("mi300x")),
        "{included:?}"
    );
    assert!(!included.contains(&"project/tuning/xnack_on.mlir".to_string()));
    assert_eq!(plain.skipped.len(), 1);
    assert!(
        plain.skipped[0]
            .reason
            .ends_with("; skipped: needs xnack+; the request does not set xnack"),
        "{}",
        plain.skipped[0].reason
    );
    let off = registry.resolve("gfx942:xnack-", &[]).unwrap();
    assert!(off.skipped[0]
        .reason
        .ends_with("; skipped: needs xnack+; the request has xnack-"));
    // Specs keyed to one SKU name do not apply to another SKU of the same architecture.
    let sibling = registry.resolve("mi300a", &[]).unwrap();
    assert!(!names(&levels.root, &sibling)
        .iter()
        .any(|name| name.contains("mi300x")));
    // Another chain gets only the specs for every target.
    let rdna = registry.resolve("gfx1100", &[]).unwrap();
    assert!(rdna.skipped.is_empty());
    assert_eq!(
        names(&levels.root, &rdna),
        [
            "project/tuning/plain/a.mlir",
            "project/tuning/plain/b.mlir",
            "xdg/tunespec/user_specs/u.mlir",
            "env/dir/e.mlir",
            "env/file.mlir",
            "specs/gfx1100/llama2_f16.mlir",
            "specs/gfx1100/llama3_bf16.mlir",
            "specs/rdna/llama32_decode_16bit.mlir",
        ]
    );
}

#[test]
fn a_spec_library_adds_targets_that_fall_back_into_the_defaults() {
    let levels = levels();
    let registry = Registry::embedded()
        .with_derived(true)
        .with_discovery(&levels.discovery)
        .unwrap();
    let library = levels.root.join("project/tuning/lib");
    let lab = registry
        .find("MI300X_LAB:xnack+")
        .expect("the library's target");
    assert_eq!(lab.library.as_deref(), Some(library.as_path()));
    let resolution = registry.resolve("mi300x_lab", &[]).unwrap();
    assert_eq!(resolution.chain_names(), ["mi300x_lab", "gfx942", "gfx9"]);
    assert_eq!(
        resolution.chain[0].defined_by(),
        library.display().to_string()
    );
    assert_eq!(resolution.chain[1].defined_by(), "default");
    assert_eq!(
        names(&levels.root, &resolution)[..4],
        [
            "project/tuning/lib/lab/lab.mlir",
            "project/tuning/lib/gfx942/extra.mlir",
            "project/tuning/cdna.mlir",
            "project/tuning/plain/a.mlir",
        ]
    );
    assert!(resolution.specs[0]
        .reason
        .starts_with("[targets.mi300x_lab] of the spec library"));
    assert!(resolution.specs[0]
        .reason
        .ends_with("for the target mi300x_lab"));
}

#[test]
fn a_spec_reached_twice_is_included_once_at_its_first_place() {
    let levels = levels();
    // The user config names the project's plain directory too, and the command line one of
    // its files (through a path that differs but leads to the same file).
    let plain = levels.root.join("project/tuning/plain");
    write(
        &levels.root,
        &[(
            "xdg/tunespec/config.toml",
            &format!("spec_dirs = [\"{}\"]\n", plain.display()),
        )],
    );
    let registry = Registry::embedded()
        .with_derived(true)
        .with_discovery(&levels.discovery)
        .unwrap();
    let resolution = registry
        .resolve("gfx1201", &[plain.join("../plain/b.mlir")])
        .unwrap();
    assert_eq!(
        names(&levels.root, &resolution)[..2],
        [
            "project/tuning/plain/../plain/b.mlir",
            "project/tuning/plain/a.mlir"
        ]
    );
    let skipped: Vec<&str> = resolution
        .skipped
        .iter()
        .map(|spec| spec.reason.as_str())
        .collect();
    assert_eq!(skipped.len(), 3, "{skipped:?}");
    assert!(skipped[0].ends_with("skipped: already included at position 1"));
    assert!(skipped[1].ends_with("skipped: already included at position 2"));
    assert!(skipped[2].ends_with("skipped: already included at position 1"));
}

/// The problems of building a registry from `discovery`, as `file:line:col: message`.
fn config_problems(discovery: &Discovery) -> Vec<String> {
    match Registry::embedded()
        .with_derived(true)
        .with_discovery(discovery)
    {
        Err(Error::Problems(problems)) => problems
            .into_iter()
            .map(|problem| {
                let loc = problem.loc.expect("located");
                let file = Path::new(&loc.file)
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let help = problem
                    .help
                    .map(|help| format!(" (help: {help})"))
                    .unwrap_or_default();
                format!("{file}:{}:{}: {}{help}", loc.line, loc.col, problem.message)
            })
            .collect(),
        other => panic!("expected located problems, got {other:?}"),
    }
}

/// Writes `text` as the project config in `root` and discovers it, as the CLI would. Shared
/// by the helpers of `config_problems_are_located_in_the_config`.
fn project(root: &Path, text: &str) -> Discovery {
    write(root, &[("tunespec.toml", text)]);
    Discovery {
        project: Some(root.join("tunespec.toml")),
        ..Discovery::default()
    }
}

#[test]
fn config_problems_are_located_in_the_config() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    assert_top_level_problems_are_located(root);
    assert_target_problems_are_located(root);
    assert_library_problems_are_located(root);
}

/// Unknown fields, an unsupported schema and bad spec directories, each at its key or value.
/// Part of `config_problems_are_located_in_the_config`, split out to keep it short.
fn assert_top_level_problems_are_located(root: &Path) {
    assert_eq!(
        config_problems(&project(root, "spec_dir = [\"x\"]\n")),
        ["tunespec.toml:1:1: unknown field `spec_dir`, expected one of `schema`, `spec_dirs`, `targets`, `safe_configs`, `derived`"]
    );
    assert_eq!(
        config_problems(&project(root, "schema = 3\n")),
        ["tunespec.toml:1:10: config schema 3 is not supported (this tunespec reads schema 1)"]
    );
    write(root, &[("empty/notes.txt", "no specs here")]);
    assert_eq!(
        config_problems(&project(root, "spec_dirs = [\"missing\", \"empty\"]\n")),
        [
            "tunespec.toml:1:14: spec directory 'missing' does not exist".to_string(),
            format!(
                "tunespec.toml:1:25: {} holds no spec files (.mlir, .mlirbc)",
                root.join("empty").display()
            ),
        ]
    );
}

/// Unknown targets, undeclared features, bad spec paths and empty spec lists in
/// `[targets.*]`. Part of `config_problems_are_located_in_the_config`, split out to keep it
/// short.
fn assert_target_problems_are_located(root: &Path) {
    write(root, &[("x.mlir", "// x\n")]);
    assert_eq!(
        config_problems(&project(
            root,
            concat!(
                "[targets.gfx943]\nspecs = [\"x.mlir\"]\n",
                "[targets.gfx1100]\nspecs = [{ path = \"x.mlir\", features = [\"xnack+\"] }, \"nope/*.mlir\", \"gone.mlir\"]\n",
            )
        )),
        [
            "tunespec.toml:1:10: [targets.gfx943] names no known target (help: did you mean gfx942?)".to_string(),
            "tunespec.toml:4:10: feature 'xnack' is not declared by target 'gfx1100' or its fallbacks".to_string(),
            format!(
                "tunespec.toml:4:54: spec path 'nope/*.mlir' of [targets.gfx1100] '{}' is not a directory",
                root.join("nope").display()
            ),
            "tunespec.toml:4:69: spec path 'gone.mlir' of [targets.gfx1100] does not exist".to_string(),
        ]
    );
    assert_eq!(
        config_problems(&project(root, "[targets.a100]\nspecs = []\n")),
        ["tunespec.toml:1:10: [targets.a100] lists no specs"]
    );
}

/// Problems of a spec library named by `spec_dirs` are located in its own manifest. Part of
/// `config_problems_are_located_in_the_config`, split out to keep it short.
fn assert_library_problems_are_located(root: &Path) {
    // A broken spec library is reported in its own manifest.
    write(
        root,
        &[
            (
                "lib/registry.toml",
                "schema = 1\n[extend.gfx942]\nspecs = [\"none/*.mlir\"]\n",
            ),
            ("lib/a.mlir", "// a\n"),
        ],
    );
    let problems = config_problems(&project(root, "spec_dirs = [\"lib\"]\n"));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with(
            "registry.toml:3:10: spec path 'none/*.mlir' of target 'gfx942' matches no file"
        ),
        "{problems:?}"
    );
    // Two libraries that define the same target the same way define one target (a measured
    // library carries a copy of the target it was measured for).
    write(
        root,
        &[
            (
                "lib/registry.toml",
                "schema = 1\n[targets.lab]\ndescription = \"l\"\nfallback = \"gfx942\"\n",
            ),
            (
                "lib2/registry.toml",
                "schema = 1\n[targets.lab]\ndescription = \"l\"\nfallback = \"gfx942\"\n",
            ),
            ("lib2/a.mlir", "// a\n"),
        ],
    );
    let same =
        Registry::embedded().with_discovery(&project(root, "spec_dirs = [\"lib\", \"lib2\"]\n"));
    let same = same.expect("identical definitions are one target");
    assert_eq!(same.targets().iter().filter(|t| t.name == "lab").count(), 1);
    // Two libraries may not define the same target differently.
    write(
        root,
        &[(
            "lib2/registry.toml",
            "schema = 1\n[targets.lab]\ndescription = \"another lab\"\nfallback = \"gfx942\"\n",
        )],
    );
    let problems = config_problems(&project(root, "spec_dirs = [\"lib\", \"lib2\"]\n"));
    assert_eq!(
        problems,
        [format!(
            "registry.toml:2:10: 'lab' is already defined by the spec library {} (target 'lab')",
            root.join("lib").display()
        )]
    );
}

#[test]
fn a_config_parses_paths_relative_to_itself() {
    let config = Config::parse(
        "spec_dirs = [\"specs\", \"/abs\"]\n[targets.A100]\nspecs = [{ path = \"a.mlir\", features = [\"FOO+\"] }]\n",
        Path::new("/p/tunespec.toml"),
        None,
    )
    .unwrap();
    let dirs: Vec<&Path> = config
        .spec_dirs
        .iter()
        .map(|dir| dir.path.as_path())
        .collect();
    assert_eq!(dirs, [Path::new("/p/specs"), Path::new("/abs")]);
    assert_eq!(config.targets[0].key, "a100");
    assert_eq!(config.targets[0].specs[0].path, Path::new("/p/a.mlir"));
    assert_eq!(config.targets[0].specs[0].features, ["foo+"]);
}

#[test]
fn command_line_paths_must_exist_and_libraries_add_targets_for_one_resolution() {
    let registry = Registry::embedded().with_derived(true);
    assert_eq!(
        registry
            .resolve("gfx942", &[PathBuf::from("no/such.mlir")])
            .unwrap_err(),
        Error::Io("cannot read no/such.mlir: no such file or directory".into())
    );
    let dir = tempfile::tempdir().unwrap();
    let error = registry
        .resolve("gfx942", &[dir.path().to_path_buf()])
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{} holds no spec files (.mlir, .mlirbc)",
            dir.path().display()
        )
    );
    assert!(error.is_usage());
    // A spec library on the command line adds its targets for this resolution only.
    let library = |fallback: &str| {
        format!("schema = 1\n[targets.bench]\ndescription = \"b\"\nfallback = \"{fallback}\"\nspecs = [\"b.mlir\"]\n")
    };
    write(
        dir.path(),
        &[("registry.toml", &library("h100")), ("b.mlir", "// b\n")],
    );
    let problems = match registry.resolve("bench", &[dir.path().to_path_buf()]) {
        Err(Error::Problems(problems)) => problems,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        problems[0].message,
        "fallback 'h100' of target 'bench' is an alias of 'sm_90'"
    );
    write(dir.path(), &[("registry.toml", &library("sm_90"))]);
    let resolution = registry
        .resolve("BENCH", &[dir.path().to_path_buf()])
        .unwrap();
    assert_eq!(resolution.chain_names(), ["bench", "sm_90", "nvidia"]);
    assert_eq!(resolution.specs[0].origin, Origin::CommandLine);
    assert!(registry.find("bench").is_none());
    assert_eq!(
        Registry::command_line_specs(&[dir.path().to_path_buf()])
            .unwrap_err()
            .to_string(),
        format!(
            "{} is a spec library (it has a registry.toml); give --target to use it",
            dir.path().display()
        )
    );
}
