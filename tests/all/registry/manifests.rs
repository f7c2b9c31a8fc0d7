//! Registry manifests: every validation rule, located, for the default registry's manifest
//! and for spec libraries over it.

use tunespec::manifest::{self, ResolvedManifest};
use tunespec::problem::Problem;
use tunespec::registry::Registry;

use super::write;

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
        ["5:1: unknown field `version`, expected one of `description`, `kind`, `aliases`, `fallback`, `features`, `backend`, `specs`"]
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
        ["2:10: target 'lonely' has neither specs, a fallback nor a backend"]
    );
    // A target that names its backend is one to compile for, configured by users' specs.
    let compiled = load(
        "schema = 1\n[targets.lonely]\ndescription = \"x\"\nbackend = \"llvm-cpu\"\n",
        &[],
    )
    .expect("a target with a backend needs no specs");
    assert_eq!(compiled.targets[0].backend.as_deref(), Some("llvm-cpu"));
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
            "7:10: target 'b' has neither specs, a fallback nor a backend",
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
    let external = Registry::embedded().external_targets();
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
