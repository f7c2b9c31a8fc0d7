//! The target registry: manifest validation (every rule, located), target IDs and fallback
//! chains, user spec libraries at every level and their precedence, `tunespec resolve`, the
//! checks `tunespec verify` runs on manifests and configs, the build script's index, and the C
//! export compiled with `cc`.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use snapbox::cmd::Command;
use tunespec::config::{Config, Discovery};
use tunespec::manifest::{self, ResolvedManifest};
use tunespec::problem::Problem;
use tunespec::registry::{self, Error, Origin, Registry, TargetId};

use crate::build_check::{build_script, run_build_script, GOOD, REGISTRY};
use crate::reference::{in_ci, iree_compile, repo_root};

fn tunespec() -> Command {
    Command::new(snapbox::cmd::cargo_bin!("tunespec"))
        .current_dir(repo_root())
        .env("NO_COLOR", "1")
        .env("TUNESPEC_TERM_WIDTH", "100")
        .env("TUNESPEC_NO_CONFIG", "1")
        .env("TUNESPEC_CACHE", "off")
        .env_remove("TUNESPEC_SPEC_PATH")
}

/// Writes `files` (relative path, content) under `dir`.
fn write(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// Loads `manifest` as the default registry's manifest of a specs directory holding `files`.
fn load(manifest: &str, files: &[&str]) -> Result<ResolvedManifest, Vec<Problem>> {
    load_as(manifest, files, &[])
}

fn load_as(
    manifest: &str,
    files: &[&str],
    external: &[manifest::ExternalTarget],
) -> Result<ResolvedManifest, Vec<Problem>> {
    let dir = tempfile::tempdir().unwrap();
    for file in files {
        write(dir.path(), &[(file, "// a spec\n")]);
    }
    manifest::load_with(manifest, "specs/registry.toml", dir.path(), external)
}

/// The problems of a manifest that must fail, one `line:col: message (help: ...)` each.
fn errors(manifest: &str, files: &[&str]) -> Vec<String> {
    lines(load(manifest, files).expect_err("the manifest must be refused"))
}

fn lines(problems: Vec<Problem>) -> Vec<String> {
    problems
        .into_iter()
        .map(|problem| {
            assert_eq!(problem.code, "tunespec::registry::manifest", "{problem}");
            let loc = problem.loc.expect("manifest problems are located");
            assert_eq!(loc.file, "specs/registry.toml");
            let help = problem
                .help
                .map(|help| format!(" (help: {help})"))
                .unwrap_or_default();
            format!("{}:{}: {}{help}", loc.line, loc.col, problem.message)
        })
        .collect()
}

const A: &str = "schema = 1\n[targets.a]\ndescription = \"a\"\nspecs = [\"a/*.mlir\"]\n";

#[test]
fn manifest_toml_and_schema_errors_are_located() {
    assert_eq!(
        errors(
            &A.replace("schema = 1\n", "schema = 1\nversion = 2\n"),
            &["a/x.mlir"]
        ),
        ["2:1: unknown field `version`, expected one of `schema`, `targets`, `extend`"]
    );
    assert_eq!(
        errors(&format!("{A}version = 2\n"), &["a/x.mlir"]),
        ["5:1: unknown field `version`, expected one of `description`, `kind`, `aliases`, `fallback`, `features`, `specs`"]
    );
    assert_eq!(
        errors(&A.replace("schema = 1", "schema = 2"), &["a/x.mlir"]),
        ["1:10: manifest schema 2 is not supported (this tunespec reads schema 1)"]
    );
    assert_eq!(
        errors(&A.replace("description = \"a\"\n", ""), &["a/x.mlir"]),
        ["2:1: missing field `description`"]
    );
    assert_eq!(
        errors(&A.replace("[\"a/*.mlir\"]", "[\"a/*.mlir\""), &["a/x.mlir"])[0],
        "5:1: invalid array\nexpected `]`"
    );
    assert_eq!(
        errors(&A.replace("\"a/*.mlir\"", "3"), &["a/x.mlir"]),
        ["4:10: invalid type: integer `3`, expected a path or glob, or a table { path = \"...\", features = [\"xnack+\"] }"]
    );
    assert_eq!(
        errors(
            &A.replace("\"a/*.mlir\"", "{ path = \"a/*.mlir\", feature = [] }"),
            &["a/x.mlir"]
        ),
        ["4:31: unknown field `feature`, expected `path` or `features`"]
    );
}

#[test]
fn manifest_spec_paths_must_match_files_inside_the_specs_directory() {
    assert_eq!(
        errors(&A.replace("a/*.mlir", "b/*.mlir"), &["a/x.mlir"]),
        ["4:10: spec path 'b/*.mlir' of target 'a' matches no file under the specs directory (help: spec files end in .mlir or .mlirbc and live under the manifest's directory)"]
    );
    assert_eq!(
        errors(&A.replace("a/*.mlir", "/etc/a.mlir"), &["a/x.mlir"]),
        ["4:10: spec path '/etc/a.mlir' of target 'a' is absolute; spec paths are relative to the specs directory"]
    );
    assert_eq!(
        errors(&A.replace("a/*.mlir", "a/../../x.mlir"), &["a/x.mlir"]),
        ["4:10: spec path 'a/../../x.mlir' of target 'a' escapes the specs directory with '..'"]
    );
    assert_eq!(
        errors(&A.replace("a/*.mlir", ""), &["a/x.mlir"]),
        ["4:10: spec path '' of target 'a' is empty"]
    );
    // Only .mlir and .mlirbc files are specs; `**` reaches any depth.
    assert_eq!(
        errors(&A.replace("a/*.mlir", "a/*.txt"), &["a/x.mlir", "a/y.txt"]).len(),
        1
    );
    let deep = load(
        &A.replace("a/*.mlir", "**/*.mlir*"),
        &["a/b/c.mlirbc", "d.mlir"],
    )
    .unwrap();
    let paths: Vec<&str> = deep.targets[0]
        .specs
        .iter()
        .map(|s| s.path.as_str())
        .collect();
    assert_eq!(paths, ["a/b/c.mlirbc", "d.mlir"]);
}

#[cfg(unix)]
#[test]
fn manifest_spec_paths_must_not_leave_the_specs_directory_through_symlinks() {
    let outside = tempfile::tempdir().unwrap();
    write(
        outside.path(),
        &[
            ("evil.mlir", "// outside\n"),
            ("dir/evil.mlir", "// outside\n"),
        ],
    );
    let specs = tempfile::tempdir().unwrap();
    write(specs.path(), &[("a/x.mlir", "// a spec\n")]);
    std::os::unix::fs::symlink(
        outside.path().join("evil.mlir"),
        specs.path().join("a/link.mlir"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path().join("dir"), specs.path().join("linked")).unwrap();
    let check = |manifest: &str| {
        lines(manifest::load(manifest, "specs/registry.toml", specs.path()).unwrap_err())
    };
    assert_eq!(
        check(A),
        ["4:10: spec file 'a/link.mlir' of target 'a' is reached through a symlink that leads outside the specs directory"]
    );
    assert_eq!(
        check(&A.replace("a/*.mlir", "linked/*.mlir")),
        ["4:10: spec file 'linked/evil.mlir' of target 'a' is reached through a symlink that leads outside the specs directory"]
    );
    // A dangling directory link: nothing to list, and the message says why.
    std::fs::remove_file(specs.path().join("linked")).unwrap();
    std::os::unix::fs::symlink("/nonexistent/dir", specs.path().join("linked")).unwrap();
    assert_eq!(
        check(&A.replace("a/*.mlir", "linked/*.mlir")),
        ["4:10: spec path 'linked/*.mlir' of target 'a' passes through 'linked', a symlink that leads outside the specs directory"]
    );
    // A symlink that stays inside is fine.
    std::fs::remove_file(specs.path().join("a/link.mlir")).unwrap();
    std::fs::remove_file(specs.path().join("linked")).unwrap();
    std::os::unix::fs::symlink(specs.path().join("a"), specs.path().join("inside")).unwrap();
    let resolved = manifest::load(
        &A.replace("a/*.mlir", "inside/*.mlir"),
        "specs/registry.toml",
        specs.path(),
    )
    .unwrap();
    assert_eq!(resolved.targets[0].specs[0].path, "inside/x.mlir");
}

#[test]
fn manifest_fallbacks_must_name_targets_and_end() {
    let two = "schema = 1\n\
               [targets.a]\ndescription = \"a\"\nfallback = \"b\"\n\
               [targets.b]\ndescription = \"b\"\nfallback = \"a\"\n\
               [targets.c]\ndescription = \"c\"\nfallback = \"a\"\n";
    // One report per cycle, at its smallest member; c (which only leads into it) is not blamed.
    assert_eq!(
        errors(two, &[]),
        ["4:12: fallback chain of target 'a' has a cycle: a -> b -> a"]
    );
    assert_eq!(
        errors(
            &A.replace("specs =", "fallback = \"a\"\nspecs ="),
            &["a/x.mlir"]
        ),
        ["4:12: target 'a' falls back to itself"]
    );
    let gfx = "schema = 1\n[targets.gfx942]\ndescription = \"x\"\naliases = [\"mi300x\"]\nspecs = [\"a/*.mlir\"]\n\
               [targets.sku]\ndescription = \"s\"\nfallback = \"gfx943\"\n";
    assert_eq!(
        errors(gfx, &["a/x.mlir"]),
        ["8:12: fallback 'gfx943' of target 'sku' is not a target (help: did you mean 'gfx942'?)"]
    );
    assert_eq!(
        errors(&gfx.replace("gfx943", "mi300x"), &["a/x.mlir"]),
        ["8:12: fallback 'mi300x' of target 'sku' is an alias of 'gfx942' (help: name the target: fallback = \"gfx942\")"]
    );
    assert_eq!(
        errors("schema = 1\n[targets.lonely]\ndescription = \"x\"\n", &[]),
        ["2:10: target 'lonely' has neither specs nor a fallback"]
    );
}

#[test]
fn manifest_kinds_order_the_chain() {
    let chain = "schema = 1\n\
                 [targets.fam]\ndescription = \"f\"\nkind = \"family\"\nfallback = \"arch\"\n\
                 [targets.arch]\ndescription = \"a\"\nkind = \"arch\"\nspecs = [\"a/*.mlir\"]\n";
    assert_eq!(
        errors(chain, &["a/x.mlir"]),
        ["5:12: target 'fam' (family) falls back to 'arch' (arch), which is more specific"]
    );
    assert_eq!(
        errors(&chain.replace("\"family\"", "\"famly\""), &["a/x.mlir"]),
        ["4:8: kind 'famly' of target 'fam' is not one of sku, arch, family, vendor, generic"]
    );
    assert!(load(&chain.replace("\"family\"", "\"sku\""), &["a/x.mlir"]).is_ok());
}

#[test]
fn manifest_names_and_aliases_are_unique_and_unambiguous() {
    let two = "schema = 1\n\
               [targets.a]\ndescription = \"a\"\naliases = [\"x\"]\nspecs = [\"a/*.mlir\"]\n\
               [targets.b]\ndescription = \"b\"\naliases = [\"x\"]\nspecs = [\"a/*.mlir\"]\n";
    assert_eq!(
        errors(two, &["a/x.mlir"]),
        ["8:12: alias 'x' is declared by both 'a' and 'b'"]
    );
    assert_eq!(
        errors(&two.replacen("[\"x\"]", "[\"b\"]", 1), &["a/x.mlir"]),
        ["4:12: alias 'b' of target 'a' is also a target name"]
    );
    assert_eq!(
        errors(
            &A.replace("specs =", "aliases = [\"y\", \"y\"]\nspecs ="),
            &["a/x.mlir"]
        ),
        ["4:17: alias 'y' is listed twice for target 'a'"]
    );
    assert_eq!(
        errors(
            &A.replace("specs =", "aliases = [\"a\"]\nspecs ="),
            &["a/x.mlir"]
        ),
        ["4:12: alias 'a' of target 'a' repeats its name"]
    );
    // Lookups are case-insensitive, so names and aliases are written lowercase; ':' separates
    // features in a target ID, so it cannot be part of a name.
    assert_eq!(
        errors(
            &A.replace(
                "specs =",
                "aliases = [\"MI300X\", \"gfx942:xnack+\", \"\"]\nspecs ="
            ),
            &["a/x.mlir"]
        ),
        [
            "4:12: alias 'MI300X' of target 'a' must be lowercase (lookups are case-insensitive)",
            "4:22: alias 'gfx942:xnack+' of target 'a' may only hold letters, digits, '_', '.' and '-'",
            "4:39: alias '' of target 'a' is empty",
        ]
    );
    assert_eq!(
        errors(&A.replace("targets.a]", "targets.GFX942]"), &["a/x.mlir"]),
        ["2:10: target name 'GFX942' must be lowercase (lookups are case-insensitive)"]
    );
    assert_eq!(
        errors(&A.replace("\"a\"\n", "\"  \"\n"), &["a/x.mlir"]),
        ["3:15: target 'a' has an empty description"]
    );
}

#[test]
fn manifest_features_are_declared_and_well_formed() {
    let base =
        "schema = 1\n[targets.gfx942]\ndescription = \"x\"\nfeatures = [\"sramecc\", \"xnack\"]\n\
                specs = [\"a/*.mlir\", { path = \"x/*.mlir\", features = [\"xnack+\"] }]\n";
    let files = ["a/a.mlir", "x/x.mlir"];
    let resolved = load(base, &files).unwrap();
    let specs = &resolved.targets[0].specs;
    assert_eq!(specs[0].path, "a/a.mlir");
    assert!(specs[0].features.is_empty());
    assert_eq!(specs[1].path, "x/x.mlir");
    assert_eq!(specs[1].features, ["xnack+"]);
    assert_eq!(
        errors(&base.replace("[\"xnack+\"]", "[\"tgsplit+\"]"), &files),
        ["5:55: feature 'tgsplit' is not declared by target 'gfx942' or its fallbacks (declared: sramecc, xnack) (help: declare it with features = [\"...\"] on the target)"]
    );
    assert_eq!(
        errors(
            &base.replace("[\"xnack+\"]", "[\"xnack\", \"sramecc+\", \"sramecc-\"]"),
            &files
        ),
        [
            "5:55: feature 'xnack' needs a + or - suffix, as LLVM writes target features (xnack+ or xnack-)",
            "5:76: feature 'sramecc' is given twice in one spec entry of target 'gfx942'",
        ]
    );
    assert_eq!(
        errors(
            &base.replace(
                "\"sramecc\", \"xnack\"",
                "\"sramecc+\", \"xnack\", \"xnack\""
            ),
            &files
        ),
        [
            "4:13: feature 'sramecc+' of target 'gfx942' is declared without its +/- sign",
            "4:34: feature 'xnack' is declared twice for target 'gfx942'",
        ]
    );
    // Features are inherited along the fallback chain.
    let sku = format!(
        "{base}[targets.sku]\ndescription = \"s\"\nfallback = \"gfx942\"\n\
         specs = [{{ path = \"s.mlir\", features = [\"sramecc-\"] }}]\n"
    );
    let resolved = load(&sku, &["a/a.mlir", "x/x.mlir", "s.mlir"]).unwrap();
    assert_eq!(
        resolved.target("sku").unwrap().specs[0].features,
        ["sramecc-"]
    );
}

#[test]
fn manifest_problems_are_all_reported_in_file_order() {
    let bad = "schema = 1\n\
               [targets.a]\ndescription = \"\"\naliases = [\"b\"]\nfallback = \"nope\"\nspecs = [\"../x.mlir\"]\n\
               [targets.b]\ndescription = \"b\"\n";
    assert_eq!(
        errors(bad, &[]),
        [
            "3:15: target 'a' has an empty description",
            "4:12: alias 'b' of target 'a' is also a target name",
            "5:12: fallback 'nope' of target 'a' is not a target",
            "6:10: spec path '../x.mlir' of target 'a' escapes the specs directory with '..'",
            "7:10: target 'b' has neither specs nor a fallback",
        ]
    );
}

#[test]
fn manifest_lists_every_spec_file_or_warns() {
    let resolved = load(A, &["a/x.mlir", "stray.mlir"]).unwrap();
    assert_eq!(resolved.warnings.len(), 1);
    assert_eq!(
        resolved.warnings[0].message,
        "spec file 'specs/stray.mlir' is not listed by any target of specs/registry.toml"
    );
}

#[test]
fn library_manifests_extend_the_default_registry() {
    let external = registry::external_targets();
    let library = "schema = 1\n\
                   [targets.mi300x_lab]\ndescription = \"lab SKU\"\nkind = \"sku\"\nfallback = \"gfx942\"\n\
                   specs = [{ path = \"lab/*.mlir\", features = [\"xnack+\"] }]\n\
                   [extend.gfx942]\nspecs = [\"gfx942/*.mlir\"]\n\
                   [extend.MI300X]\nspecs = [\"mi300x.mlir\"]\n";
    let files = ["lab/a.mlir", "gfx942/b.mlir", "mi300x.mlir"];
    let resolved = load_as(library, &files, &external).unwrap();
    assert_eq!(resolved.targets[0].name, "mi300x_lab");
    assert_eq!(resolved.targets[0].specs[0].features, ["xnack+"]);
    let extended: Vec<&str> = resolved
        .extensions
        .iter()
        .map(|extension| extension.target.as_str())
        .collect();
    assert_eq!(extended, ["gfx942", "mi300x"]);

    let refused = |text: &str| lines(load_as(text, &files, &external).unwrap_err());
    assert_eq!(
        refused("schema = 1\n[targets.gfx942]\ndescription = \"x\"\nspecs = [\"mi300x.mlir\"]\n"),
        ["2:10: target 'gfx942' is already defined by the default registry (help: add specs to it with [extend.gfx942])"]
    );
    assert_eq!(
        refused("schema = 1\n[targets.mi300x]\ndescription = \"x\"\nspecs = [\"mi300x.mlir\"]\n"),
        ["2:10: target 'mi300x' is already an alias of 'gfx942' in the default registry"]
    );
    assert_eq!(
        refused(
            "schema = 1\n[targets.lab]\ndescription = \"x\"\naliases = [\"h100\"]\nspecs = [\"mi300x.mlir\"]\n"
        ),
        ["4:12: alias 'h100' of target 'lab' is already an alias of 'sm_90' in the default registry"]
    );
    assert_eq!(
        refused("schema = 1\n[extend.gfx943]\nspecs = [\"mi300x.mlir\"]\n"),
        ["2:9: [extend.gfx943] names no known target (help: did you mean 'gfx942'?)"]
    );
    assert_eq!(
        refused("schema = 1\n[extend.gfx942]\nspecs = []\n"),
        ["2:9: [extend.gfx942] adds no specs"]
    );
    assert_eq!(
        refused(
            "schema = 1\n[targets.lab]\ndescription = \"x\"\nfallback = \"gfx942\"\n[extend.lab]\nspecs = [\"mi300x.mlir\"]\n"
        ),
        ["5:9: [extend.lab] names a target of this manifest (help: list its specs in its own [targets.NAME] table)"]
    );
    assert_eq!(
        refused(
            "schema = 1\n[extend.gfx1100]\nspecs = [{ path = \"mi300x.mlir\", features = [\"xnack+\"] }]\n"
        ),
        ["3:46: feature 'xnack' is not declared by target 'gfx1100' or its fallbacks (it declares no features) (help: declare it with features = [\"...\"] on the target)"]
    );
    // The default registry's own manifest cannot extend anything.
    assert_eq!(
        errors(
            "schema = 1\n[extend.gfx942]\nspecs = [\"mi300x.mlir\"]\n",
            &files
        ),
        ["2:9: [extend.gfx942] names no known target"]
    );
}

#[test]
fn target_ids_are_case_insensitive_with_llvm_features() {
    let id = TargetId::parse(" MI300X:XNACK+:sramecc- ").unwrap();
    assert_eq!(id.name, "mi300x");
    assert_eq!(
        id.features,
        [("sramecc".to_string(), false), ("xnack".to_string(), true)]
    );
    let bad = |text: &str| TargetId::parse(text).unwrap_err().to_string();
    assert_eq!(
        bad("gfx942:xnack"),
        "target 'gfx942:xnack': feature 'xnack' needs a + or - suffix, as LLVM writes target features (xnack+ or xnack-)"
    );
    assert_eq!(
        bad("gfx942:xnack+:xnack-"),
        "target 'gfx942:xnack+:xnack-' sets feature 'xnack' both on and off"
    );
    assert_eq!(bad(":xnack+"), "empty target name in ':xnack+'");
    assert_eq!(
        bad("gfx942:+"),
        "target 'gfx942:+': feature '+': the name is empty"
    );
}

#[test]
fn default_targets_resolve_through_their_fallback_chains() {
    let registry = Registry::embedded();
    let resolution = registry.resolve("MI308X", &[]).unwrap();
    assert_eq!(resolution.chain_names(), ["mi308x", "gfx942", "gfx9"]);
    assert_eq!(resolution.alias, None);
    let specs: Vec<(&str, Option<&str>, &str)> = resolution
        .specs
        .iter()
        .map(|spec| {
            (
                spec.name.as_str(),
                spec.target.as_deref(),
                spec.reason.as_str(),
            )
        })
        .collect();
    assert_eq!(
        specs,
        [
            (
                "specs/gfx942/llama2_f16.mlir",
                Some("gfx942"),
                "default spec of gfx942, a fallback of mi308x"
            ),
            (
                "specs/gfx942/llama3_bf16.mlir",
                Some("gfx942"),
                "default spec of gfx942, a fallback of mi308x"
            ),
            (
                "specs/gfx9/llama3_70b_bf16.mlir",
                Some("gfx9"),
                "default spec of gfx9, a fallback of mi308x"
            ),
        ]
    );
    assert!(resolution
        .specs
        .iter()
        .all(|spec| spec.origin == Origin::Default));

    for (name, chain) in [
        ("mi250x", "gfx90a gfx9"),
        ("GFX950", "gfx950 gfx9"),
        ("cdna", "gfx9"),
        ("rx7900xtx", "gfx1100 rdna"),
        ("gfx1201", "gfx1201 rdna"),
        ("A100", "sm_80 nvidia"),
        ("h100", "sm_90 nvidia"),
        ("cuda", "nvidia"),
    ] {
        let resolution = registry.resolve(name, &[]).unwrap();
        assert_eq!(resolution.chain_names().join(" "), chain, "{name}");
        assert!(!resolution.specs.is_empty(), "{name} resolves to no spec");
    }
    // The same chains from the embedded-only helper the other commands use.
    let chain: Vec<&str> = registry::resolve_chain("mi250x")
        .unwrap()
        .iter()
        .map(|target| target.name)
        .collect();
    assert_eq!(chain, ["gfx90a", "gfx9"]);
}

#[test]
fn every_default_chain_links_without_shadowed_or_duplicate_matchers() {
    // Family and vendor specs match shapes the architecture specs do not, so linking a chain
    // never hides one default matcher behind another (upstream matchers cannot tell f16 from
    // bf16, so a repeated shape would hand one of them the other's intrinsic).
    let registry = Registry::embedded();
    let mlir = tunespec::mlir::Mlir::new();
    for target in registry::targets() {
        let resolution = registry.resolve(target.name, &[]).unwrap();
        let linked = tunespec::link::link(&mlir, &resolution.link_inputs(), Default::default())
            .unwrap_or_else(|problems| panic!("{}: {problems:?}", target.name));
        assert!(
            linked.problems.is_empty(),
            "{}: {:#?}",
            target.name,
            linked.problems
        );
        let matchers: usize = resolution
            .specs
            .iter()
            .filter_map(|spec| spec.matchers())
            .sum();
        assert_eq!(linked.pairs.len(), matchers, "{}", target.name);
    }
}

#[test]
fn features_are_checked_kept_and_part_of_the_fingerprint() {
    let registry = Registry::embedded();
    let resolution = registry.resolve("mi300x:sramecc+:XNACK-", &[]).unwrap();
    assert_eq!(resolution.target_id(), "gfx942:sramecc+:xnack-");
    assert_eq!(resolution.features, ["sramecc+", "xnack-"]);
    // Features are part of the cache key (and so is the alias: specs may be attached to it).
    let plain = registry.resolve("gfx942", &[]).unwrap();
    assert_ne!(resolution.fingerprint(), plain.fingerprint());
    assert_eq!(
        plain.fingerprint(),
        registry.resolve(" GFX942 ", &[]).unwrap().fingerprint()
    );
    assert_eq!(
        registry
            .resolve("gfx942:tgsplit+", &[])
            .unwrap_err()
            .to_string(),
        "target 'gfx942' has no feature 'tgsplit' (it knows sramecc, xnack)"
    );
    assert_eq!(
        registry
            .resolve("gfx1100:xnack+", &[])
            .unwrap_err()
            .to_string(),
        "target 'gfx1100' takes no features (got 'xnack')"
    );
    // A SKU inherits the features of its architecture.
    assert!(registry.resolve("mi308x:xnack+", &[]).is_ok());
}

#[test]
fn unknown_targets_name_the_nearest_known_ones() {
    let registry = Registry::embedded();
    let error = registry.resolve("gfx943:xnack+", &[]).unwrap_err();
    assert_eq!(
        error,
        Error::UnknownTarget {
            name: "gfx943:xnack+".into(),
            suggestions: vec!["gfx942".into()]
        }
    );
    assert!(error.is_usage());
    assert_eq!(
        registry.resolve("mi300", &[]).unwrap_err().to_string(),
        "unknown target 'mi300' (did you mean mi300a, mi300x?)"
    );
    assert_eq!(
        registry.resolve("tpu-v5", &[]).unwrap_err().to_string(),
        "unknown target 'tpu-v5'"
    );
}

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
            spec_path: vec![PathBuf::from("/x")]
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
        resolution.chain[0].defined_by,
        library.display().to_string()
    );
    assert_eq!(resolution.chain[1].defined_by, "default");
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
    match Registry::embedded().with_discovery(discovery) {
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

#[test]
fn config_problems_are_located_in_the_config() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let project = |text: &str| {
        write(root, &[("tunespec.toml", text)]);
        Discovery {
            project: Some(root.join("tunespec.toml")),
            ..Discovery::default()
        }
    };
    assert_eq!(
        config_problems(&project("spec_dir = [\"x\"]\n")),
        ["tunespec.toml:1:1: unknown field `spec_dir`, expected one of `schema`, `spec_dirs`, `targets`, `safe_configs`"]
    );
    assert_eq!(
        config_problems(&project("schema = 3\n")),
        ["tunespec.toml:1:10: config schema 3 is not supported (this tunespec reads schema 1)"]
    );
    write(root, &[("empty/notes.txt", "no specs here")]);
    assert_eq!(
        config_problems(&project("spec_dirs = [\"missing\", \"empty\"]\n")),
        [
            "tunespec.toml:1:14: spec directory 'missing' does not exist".to_string(),
            format!(
                "tunespec.toml:1:25: {} holds no spec files (.mlir, .mlirbc)",
                root.join("empty").display()
            ),
        ]
    );
    write(root, &[("x.mlir", "// x\n")]);
    assert_eq!(
        config_problems(&project(
            "[targets.gfx943]\nspecs = [\"x.mlir\"]\n\
             [targets.gfx1100]\nspecs = [{ path = \"x.mlir\", features = [\"xnack+\"] }, \"nope/*.mlir\", \"gone.mlir\"]\n"
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
        config_problems(&project("[targets.a100]\nspecs = []\n")),
        ["tunespec.toml:1:10: [targets.a100] lists no specs"]
    );
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
    let problems = config_problems(&project("spec_dirs = [\"lib\"]\n"));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with(
            "registry.toml:3:10: spec path 'none/*.mlir' of target 'gfx942' matches no file"
        ),
        "{problems:?}"
    );
    // Two libraries may not define the same target.
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
    let problems = config_problems(&project("spec_dirs = [\"lib\", \"lib2\"]\n"));
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
    let registry = Registry::embedded();
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

#[test]
fn resolve_prints_the_chain_and_the_ordered_specs() {
    tunespec()
        .args([
            "resolve",
            "MI300X:xnack+",
            "--spec",
            "tests/fixtures/specs/good/one_matcher.mlir",
        ])
        .assert()
        .code(0)
        .stdout_eq(snapbox::file!["snapshots/resolve_mi300x.stdout"]);
}

#[test]
fn resolve_json_has_the_documented_fields() {
    let output = tunespec()
        .args(["resolve", "mi308x:sramecc+", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(text.lines().count(), 1);
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["version"], 1);
    assert_eq!(value["target"], "mi308x");
    assert_eq!(value["target_id"], "mi308x:sramecc+");
    assert_eq!(value["features"], serde_json::json!(["sramecc+"]));
    let chain: Vec<&str> = value["chain"]
        .as_array()
        .unwrap()
        .iter()
        .map(|link| link["name"].as_str().unwrap())
        .collect();
    assert_eq!(chain, ["mi308x", "gfx942", "gfx9"]);
    assert_eq!(value["chain"][0]["kind"], "sku");
    let specs = value["specs"].as_array().unwrap();
    assert_eq!(specs.len(), 3);
    for (index, spec) in specs.iter().enumerate() {
        assert_eq!(spec["position"], index + 1);
        for field in [
            "name", "origin", "config", "for", "features", "reason", "bytes", "hash", "matchers",
        ] {
            assert!(spec.get(field).is_some(), "{field} missing in {spec}");
        }
    }
    let embedded = registry::find_target("gfx942")
        .unwrap()
        .specs()
        .next()
        .unwrap();
    assert_eq!(specs[0]["hash"], embedded.bytecode_hash);
    assert_eq!(specs[0]["origin"], "default");
    assert_eq!(value["fingerprint"].as_str().unwrap().len(), 64);
}

#[test]
fn resolve_errors_follow_the_cli_exit_statuses() {
    tunespec()
        .args(["resolve", "gfx943"])
        .assert()
        .code(2)
        .stderr_eq("tunespec: error: unknown target 'gfx943' (did you mean gfx942?)\n");
    tunespec()
        .args(["resolve", "gfx942:xnack"])
        .assert()
        .code(2)
        .stderr_eq("tunespec: error: target 'gfx942:xnack': feature 'xnack' needs a + or - suffix, as LLVM writes target features (xnack+ or xnack-)\n");
    tunespec()
        .args(["resolve", "gfx942", "--spec", "no/such.mlir"])
        .assert()
        .code(2)
        .stderr_eq("tunespec: error: cannot read no/such.mlir: no such file or directory\n");
    // A bad project config is a problem in an input (1), shown with its snippet.
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("tunespec.toml", "spec_dirs = [\"missing\"]\n"),
            ("src/.keep", ""),
        ],
    );
    let output = tunespec()
        .current_dir(dir.path().join("src"))
        .env_remove("TUNESPEC_NO_CONFIG")
        .env("XDG_CONFIG_HOME", dir.path().join("xdg"))
        .args(["resolve", "gfx942"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("tunespec.toml:1:14:"), "{stderr}");
    assert!(
        stderr.contains("spec directory 'missing' does not exist"),
        "{stderr}"
    );
    assert!(stderr.contains("tunespec::config"), "{stderr}");
    assert!(
        stderr.contains("spec_dirs = [\"missing\"]"),
        "no snippet: {stderr}"
    );
}

#[test]
fn link_and_resolve_read_the_project_config_from_the_current_directory() {
    let dir = tempfile::tempdir().unwrap();
    let fixture =
        std::fs::read_to_string(repo_root().join("tests/fixtures/specs/good/one_matcher.mlir"))
            .unwrap();
    write(
        dir.path(),
        &[
            (
                "tunespec.toml",
                "[targets.mi300x]\nspecs = [\"tuning/mine.mlir\"]\n",
            ),
            ("tuning/mine.mlir", &fixture),
            ("build/.keep", ""),
        ],
    );
    let run = |args: &[&str]| {
        tunespec()
            .current_dir(dir.path().join("build"))
            .env_remove("TUNESPEC_NO_CONFIG")
            .env("XDG_CONFIG_HOME", dir.path().join("xdg"))
            .args(args)
            .output()
            .unwrap()
    };
    let linked = run(&["link", "--target", "MI300X", "-o", "-"]);
    assert_eq!(
        linked.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&linked.stderr)
    );
    let text = String::from_utf8(linked.stdout).unwrap();
    let list = &text[text.find("transform.foreach_match in").unwrap()..];
    // The project's spec leads; then gfx942's pairs and gfx9's.
    let first = list.find(" -> @").unwrap();
    assert!(
        list[..first].ends_with("@match_mmt_f16_2048x4096x4096"),
        "{list}"
    );
    let defaults: usize = Registry::embedded()
        .resolve("gfx942", &[])
        .unwrap()
        .specs
        .iter()
        .filter_map(|spec| spec.matchers())
        .sum();
    assert!(defaults >= 16);
    assert_eq!(list.matches(" -> @").count(), 1 + defaults);
    // Only for that SKU: gfx942 itself does not get it.
    let plain = run(&["link", "--target", "gfx942", "-o", "-"]);
    assert!(!String::from_utf8(plain.stdout)
        .unwrap()
        .contains("@match_mmt_f16_2048x4096x4096"));
    // --no-default keeps the user specs and drops the defaults.
    let user_only = run(&["link", "--target", "mi300x", "--no-default", "-o", "-"]);
    assert_eq!(
        String::from_utf8(user_only.stdout)
            .unwrap()
            .matches(" -> @")
            .count(),
        1
    );
    let resolved = run(&["resolve", "mi300x", "--format", "json"]);
    let value: serde_json::Value = serde_json::from_slice(&resolved.stdout).unwrap();
    assert_eq!(value["specs"][0]["origin"], "project");
    assert_eq!(value["specs"][0]["for"], "mi300x");
}

#[test]
fn verify_checks_manifests_and_configs() {
    // The default registry's own manifest (with its specs directory).
    tunespec()
        .args(["verify", "-q", "specs/registry.toml"])
        .assert()
        .code(0)
        .stdout_eq("");
    let dir = tempfile::tempdir().unwrap();
    // A good spec in IREE's tuner form (GOOD's `linalg.matmul` matcher gets IREE's named-op
    // warning, which this test is not about).
    let good = |name: &str| {
        GOOD.replace("@good", &format!("@{name}")).replace(
            "    transform.match.operation_name %op [\"linalg.matmul\"] : !transform.any_op\n",
            "    %batch, %m, %n, %k = transform.iree.match.contraction %op, lhs_type = f16, rhs_type = f16, output_type = f32 : !transform.any_op -> !transform.param<i64>\n",
        )
    };
    assert!(good("lab").contains("transform.iree.match.contraction"));
    write(
        dir.path(),
        &[
            (
                "lib/registry.toml",
                "schema = 1\n[targets.lab]\ndescription = \"l\"\nfallback = \"gfx942\"\nspecs = [\"lab/*.mlir\"]\n[extend.mi300x]\nspecs = [\"x.mlir\"]\n",
            ),
            ("lib/lab/good.mlir", &good("lab")),
            ("lib/x.mlir", &good("x")),
            (
                "tunespec.toml",
                "spec_dirs = [\"lib\"]\n[targets.lab]\nspecs = [\"lib/x.mlir\"]\n",
            ),
        ],
    );
    // A spec library directory: its manifest (against the default registry) and its specs.
    tunespec()
        .arg("verify")
        .arg(dir.path().join("lib"))
        .assert()
        .code(0)
        .stdout_eq("verified 3 file(s), 2 matcher(s): 0 error(s), 0 warning(s)\n");
    // A config: its paths, its libraries and the targets it names.
    tunespec()
        .args(["verify", "-q"])
        .arg(dir.path().join("tunespec.toml"))
        .assert()
        .code(0)
        .stdout_eq("");
    write(
        dir.path(),
        &[(
            "lib/registry.toml",
            "schema = 1\n[targets.lab]\ndescription = \"l\"\nfallback = \"gfx943\"\n",
        )],
    );
    let output = tunespec()
        .args(["verify", "--format", "json"])
        .arg(dir.path().join("lib"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let problem: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(problem["code"], "tunespec::registry::manifest");
    assert_eq!(
        problem["message"],
        "fallback 'gfx943' of target 'lab' is not a target"
    );
    assert_eq!(problem["help"], "did you mean 'gfx942'?");
    assert_eq!(problem["line"], 4);
    assert_eq!(problem["column"], 12);
    assert!(problem["file"]
        .as_str()
        .unwrap()
        .ends_with("lib/registry.toml"));
    // The config that uses the broken library fails too.
    tunespec()
        .args(["verify", "-q"])
        .arg(dir.path().join("tunespec.toml"))
        .assert()
        .code(1);
}

#[test]
fn the_build_script_embeds_kinds_features_and_restricted_specs() {
    let registry = "schema = 1\n[targets.gfx942]\ndescription = \"test\"\nkind = \"arch\"\nfeatures = [\"xnack\"]\n\
                    specs = [\"gfx942/good.mlir\", { path = \"gfx942/xnack/*.mlir\", features = [\"xnack+\"] }]\n";
    let (ok, stderr, out, _dir) = run_build_script(&[
        ("registry.toml", registry),
        ("gfx942/good.mlir", GOOD),
        ("gfx942/xnack/on.mlir", &GOOD.replace("@good", "@on")),
    ]);
    assert!(ok, "{stderr}");
    let index = std::fs::read_to_string(out.join("index.rs")).unwrap();
    assert!(index.contains("kind: Some(\"arch\")"), "{index}");
    assert!(index.contains("features: &[\"xnack\"]"), "{index}");
    assert!(
        index.contains("spec_features: &[&[], &[\"xnack+\"]]"),
        "{index}"
    );
}

/// Runs the build script on a crate directory that already holds `specs/`.
fn build_in(crate_dir: &Path) -> std::process::Output {
    std::fs::create_dir_all(crate_dir.join("out")).unwrap();
    Process::new(build_script())
        .env("CARGO_MANIFEST_DIR", crate_dir)
        .env("OUT_DIR", crate_dir.join("out"))
        .env_remove("TUNESPEC_SPECS_DIR")
        .output()
        .unwrap()
}

#[test]
fn the_build_script_warns_about_unlisted_specs() {
    let crate_dir = tempfile::tempdir().unwrap();
    write(
        &crate_dir.path().join("specs"),
        &[
            ("registry.toml", REGISTRY),
            ("gfx942/good.mlir", GOOD),
            ("stray/unused.mlir", GOOD),
        ],
    );
    let output = build_in(crate_dir.path());
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("cargo:warning=warning: spec file 'specs/stray/unused.mlir' is not listed by any target of specs/registry.toml"),
        "{stdout}"
    );
}

#[cfg(unix)]
#[test]
fn the_build_script_refuses_specs_reached_through_symlinks_out() {
    let crate_dir = tempfile::tempdir().unwrap();
    write(
        &crate_dir.path().join("specs"),
        &[("registry.toml", REGISTRY), ("gfx942/good.mlir", GOOD)],
    );
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("evil.mlir"), GOOD).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("evil.mlir"),
        crate_dir.path().join("specs/gfx942/evil.mlir"),
    )
    .unwrap();
    let output = build_in(crate_dir.path());
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("specs/registry.toml:4:10: error: spec file 'gfx942/evil.mlir' of target 'gfx942' is reached through a symlink that leads outside the specs directory"),
        "{stderr}"
    );
    assert!(!crate_dir.path().join("out/index.rs").exists());
}

/// `cc`, or `None` (with a note) when there is none; CI must have one.
fn c_compiler() -> Option<PathBuf> {
    let found = std::env::var_os("CC").map(PathBuf::from).or_else(|| {
        ["/usr/bin/cc", "/usr/local/bin/cc"]
            .iter()
            .map(PathBuf::from)
            .find(|path| path.is_file())
    });
    match found {
        Some(cc) => Some(cc),
        None if in_ci() => panic!("a C compiler (cc) is required when CI=true"),
        None => {
            eprintln!("note: no C compiler (cc) found; the C export check did not run");
            None
        }
    }
}

const C_PROGRAM: &str = r#"
#include "tunespec_specs.h"
#include <stdint.h>
#include <stdio.h>

int main(void) {
  size_t i;
  const char *names[] = {"MI300X:sramecc+:xnack-", "gfx942", "H100", "cdna", "nope", ""};
  for (i = 0; i < tunespec_spec_count; ++i) {
    const tunespec_spec *spec = &tunespec_specs[i];
    char path[64];
    FILE *file;
    sprintf(path, "spec_%u.bin", (unsigned)i);
    file = fopen(path, "wb");
    if (file == NULL || fwrite(spec->data, 1, spec->size, file) != spec->size) return 1;
    fclose(file);
    printf("S\t%s\t%s\t%s\t%s\t%lu\t%s\t%u\t%d\t%d\n", spec->target, spec->name, spec->module_name,
           spec->features, (unsigned long)spec->size, spec->hash, (unsigned)spec->matchers,
           (int)((uintptr_t)spec->data % TUNESPEC_SPECS_ALIGNMENT), spec->data[spec->size]);
  }
  for (i = 0; i < tunespec_target_count; ++i) {
    const tunespec_target *target = &tunespec_targets[i];
    printf("T\t%s\t%s\t%s\t%lu\t%lu\t%s\n", target->name, target->kind,
           target->fallback ? target->fallback : "-", (unsigned long)target->first_spec,
           (unsigned long)target->spec_count, target->aliases[0] ? target->aliases[0] : "-");
  }
  for (i = 0; i < sizeof names / sizeof names[0]; ++i) {
    const tunespec_target *found = tunespec_find_target(names[i]);
    printf("F\t%s\t%s\n", names[i], found ? found->name : "NULL");
  }
  printf("V\t%s\n", TUNESPEC_SPECS_VERSION);
  return 0;
}
"#;

#[test]
fn exported_c_sources_compile_and_hold_exactly_the_verified_bytecode() {
    let Some(cc) = c_compiler() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gen");
    tunespec()
        .args(["export", "--format", "c", "-o"])
        .arg(&out)
        .assert()
        .code(0)
        .stdout_eq("wrote tunespec_specs.h and tunespec_specs.c to [..]: 11 target(s), 15 spec(s), 15 table row(s)\n");
    std::fs::write(dir.path().join("main.c"), C_PROGRAM).unwrap();
    let program = dir.path().join("main");
    let compiled = Process::new(&cc)
        .args([
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-O1",
            "-I",
        ])
        .arg(&out)
        .arg(dir.path().join("main.c"))
        .arg(out.join("tunespec_specs.c"))
        .arg("-o")
        .arg(&program)
        .output()
        .unwrap();
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let run = Process::new(&program)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(run.status.success());
    let stdout = String::from_utf8(run.stdout).unwrap();

    let mut expected = Vec::new();
    for target in registry::targets() {
        for (position, spec) in target.specs().enumerate() {
            expected.push((target.name, spec, target.spec_features[position].join(":")));
        }
    }
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .filter(|line| line.starts_with("S\t"))
        .map(|line| line.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), expected.len());
    for (index, (row, (target, spec, features))) in rows.iter().zip(&expected).enumerate() {
        assert_eq!(
            row[1..5],
            [*target, spec.path, spec.module_name, features.as_str()]
        );
        assert_eq!(row[5], spec.bytecode().len().to_string());
        assert_eq!(row[6], spec.bytecode_hash);
        assert_eq!(row[7], spec.matcher_count.to_string());
        assert_eq!(
            row[8..],
            ["0", "0"],
            "{} is not aligned or not NUL-terminated",
            spec.path
        );
        // The bytes the C program sees are tunespec's, and hash to the same BLAKE3.
        let bytes = std::fs::read(dir.path().join(format!("spec_{index}.bin"))).unwrap();
        assert_eq!(bytes, spec.bytecode(), "{}", spec.path);
        assert_eq!(blake3::hash(&bytes).to_hex().as_str(), spec.bytecode_hash);
    }
    let targets: Vec<&str> = stdout
        .lines()
        .filter(|line| line.starts_with("T\t"))
        .collect();
    assert_eq!(targets.len(), registry::targets().len());
    assert!(
        targets.contains(&"T\tmi308x\tsku\tgfx942\t9\t0\t-"),
        "{targets:#?}"
    );
    assert!(
        targets.contains(&"T\tgfx942\tarch\tgfx9\t5\t2\tmi300x"),
        "{targets:#?}"
    );
    let found: Vec<&str> = stdout
        .lines()
        .filter(|line| line.starts_with("F\t"))
        .collect();
    assert_eq!(
        found,
        [
            "F\tMI300X:sramecc+:xnack-\tgfx942",
            "F\tgfx942\tgfx942",
            "F\tH100\tsm_90",
            "F\tcdna\tgfx9",
            "F\tnope\tNULL",
            "F\t\tNULL",
        ]
    );
    assert!(stdout.contains(&format!("V\t{}\n", env!("CARGO_PKG_VERSION"))));

    // The header is usable from C++ too.
    if let Some(cxx) = ["/usr/bin/c++"]
        .iter()
        .map(Path::new)
        .find(|path| path.is_file())
    {
        std::fs::write(
            dir.path().join("use.cpp"),
            "#include \"tunespec_specs.h\"\nint main() { return tunespec_find_target(\"gfx942\") ? 0 : 1; }\n",
        )
        .unwrap();
        let compiled = Process::new(cxx)
            .args(["-std=c++11", "-Wall", "-Werror", "-fsyntax-only", "-I"])
            .arg(&out)
            .arg(dir.path().join("use.cpp"))
            .output()
            .unwrap();
        assert!(
            compiled.status.success(),
            "{}",
            String::from_utf8_lossy(&compiled.stderr)
        );
    }
}

#[test]
fn export_selects_targets_with_their_chains() {
    let dir = tempfile::tempdir().unwrap();
    tunespec()
        .args(["export", "-o"])
        .arg(dir.path())
        .args(["--target", "mi300x", "--target", "H100"])
        .assert()
        .code(0)
        .stdout_eq("wrote tunespec_specs.h and tunespec_specs.c to [..]: 4 target(s), 6 spec(s), 6 table row(s)\n");
    let source = std::fs::read_to_string(dir.path().join("tunespec_specs.c")).unwrap();
    assert!(source.contains("\"specs/gfx9/llama3_70b_bf16.mlir\""));
    assert!(!source.contains("\"specs/rdna/"));
    tunespec()
        .args(["export", "-o"])
        .arg(dir.path())
        .args(["--target", "gfx943"])
        .assert()
        .code(2)
        .stderr_eq("tunespec: error: unknown target 'gfx943' (did you mean gfx942?)\n");
}

/// The compile targets tools/check-default-configs.py gives a spec directory: the architecture
/// itself, or every member of a family or vendor (iree-compile 3.13 cannot target sm_90: sm_89
/// stands in).
fn check_targets(directory: &str) -> usize {
    match directory {
        "gfx9" => 3,
        "rdna" | "nvidia" => 2,
        _ => 1,
    }
}

#[test]
fn every_default_config_takes_effect_and_compiles_in_iree_for_every_member() {
    // Every matcher of every default spec, for every target it applies to (family and vendor
    // specs: every member), through tools/check-default-configs.py: it builds the payload each
    // IREE-form matcher is meant for and checks in iree-compile 3.13 that the dispatch gets
    // exactly the matcher's config (and another one without the spec), and that the full compile
    // succeeds (iree-opt checks syntax only; iree-compile checks intrinsics, subgroup sizes,
    // workgroup shapes and shared memory). On CUDA, where 3.13 ignores
    // --iree-codegen-tuning-spec-path, the spec is attached to the payload. It also checks that no
    // two matchers of a chain of specs/registry.toml match the same ops.
    let Some(iree_compile) = iree_compile() else {
        return;
    };
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let started = std::time::Instant::now();
    let output = match Process::new("python3")
        .current_dir(repo_root())
        .arg("tools/check-default-configs.py")
        .arg("--iree-compile")
        .arg(&iree_compile)
        .args(["--jobs", &jobs.to_string()])
        .args(["--registry", "specs/registry.toml", "--json", "specs"])
        .output()
    {
        Ok(output) => output,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound && !in_ci() => {
            eprintln!("note: python3 not found; this check did not run");
            return;
        }
        Err(error) => panic!("python3 (>= 3.11) is required: {error}"),
    };
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
            panic!(
                "check-default-configs.py printed no JSON ({error}), exit {:?}:\n{}",
                output.status.code(),
                String::from_utf8_lossy(&output.stderr)
            )
        });
    eprintln!(
        "check-default-configs.py: {} in {:.0?}",
        report["summary"],
        started.elapsed()
    );
    let failed: Vec<String> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|result| result["ok"] != true)
        .map(|result| {
            format!(
                "{} on {}: @{} took_effect={} differs={} compiled={} {}",
                result["spec"],
                result["target"],
                result["matcher"],
                result["took_effect"],
                result["differs"],
                result["compiled"],
                result["reason"]
            )
        })
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    let bad_chains: Vec<&serde_json::Value> = report["chains"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|chain| chain["ok"] != true)
        .collect();
    assert!(bad_chains.is_empty(), "{bad_chains:#?}");
    assert_eq!(report["ok"], true);
    assert_eq!(output.status.code(), Some(0));
    // Nothing was left out: one result per matcher of every embedded spec and compile target, and
    // a chain for every target of the registry.
    let mut expected = 0;
    for spec in registry::specs() {
        let directory = spec.path.split('/').nth(1).unwrap();
        let matchers = std::fs::read_to_string(repo_root().join(spec.path))
            .unwrap()
            .matches("transform.named_sequence @match_")
            .count();
        expected += matchers * check_targets(directory);
        let checked = report["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|result| {
                result["spec"]
                    .as_str()
                    .is_some_and(|path| path.ends_with(spec.path))
            })
            .count();
        assert_eq!(
            checked,
            matchers * check_targets(directory),
            "{}",
            spec.path
        );
    }
    assert_eq!(report["summary"]["results"], expected);
    assert_eq!(report["summary"]["passed"], expected);
    assert_eq!(
        report["summary"]["chains"],
        registry::targets().len(),
        "{}",
        report["summary"]
    );
}
