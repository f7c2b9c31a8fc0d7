//! The registry through the binary: `tunespec resolve`, its JSON, its exit statuses, the project
//! config read from the current directory, and `tunespec verify` on manifests and configs.

use tunespec::registry::Registry;

use super::{tunespec, write};
use crate::build_check::GOOD;
use crate::reference::repo_root;

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
        .stdout_eq(snapbox::file!["../snapshots/resolve_mi300x.stdout"]);
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
    let embedded = Registry::embedded()
        .with_derived(true)
        .find("gfx942")
        .unwrap()
        .default_specs()
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
        .with_derived(true)
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

/// Regression: `link` keyed its cache by the chain as the embedded registry alone resolved it,
/// so a target defined in a spec library kept the name as written: every spelling (case, alias)
/// of one target linked again into an entry of its own. The key is the chain the library gives.
#[test]
fn link_keys_the_cache_by_the_chain_of_a_spec_library_target() {
    let dir = tempfile::tempdir().unwrap();
    let fixture =
        std::fs::read_to_string(repo_root().join("tests/fixtures/specs/good/one_matcher.mlir"))
            .unwrap();
    let library = "schema = 1\n[targets.mi300x_lab]\ndescription = \"a lab SKU\"\nkind = \"sku\"\n\
                   aliases = [\"lab-box\"]\nfallback = \"gfx942\"\nspecs = [\"lab/*.mlir\"]\n";
    write(
        dir.path(),
        &[
            ("lib/registry.toml", library),
            ("lib/lab/lab.mlir", &fixture),
        ],
    );
    let cache = dir.path().join("cache");
    let lib = dir.path().join("lib").display().to_string();
    let mut linked = Vec::new();
    for target in ["mi300x_lab", "MI300X_LAB", "lab-box"] {
        let output = crate::support::run(
            crate::support::tunespec(&cache).args(["link", "--target", target, "--spec", &lib]),
        );
        linked.push(output.stdout);
    }
    assert!(linked.iter().all(|library| *library == linked[0]));
    let stats = crate::support::run(
        crate::support::tunespec(&cache).args(["cache", "stats", "--format", "json"]),
    );
    let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(
        (&stats["entries"], &stats["misses"], &stats["hits"]),
        (&1.into(), &1.into(), &2.into()),
        "{stats}"
    );
}
