//! Target IDs, the default targets' fallback chains, features and "did you mean".

use tunespec::registry::{self, Error, Origin, Registry, TargetId};

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
    let registry = Registry::embedded().with_derived(true);
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
    // The same chain from the lookup the other commands use (show, export, the cache key).
    let chain: Vec<&str> = registry
        .chain("mi250x")
        .unwrap()
        .iter()
        .map(|target| target.name.as_str())
        .collect();
    assert_eq!(chain, ["gfx90a", "gfx9"]);
}

#[test]
fn every_default_chain_links_without_shadowed_or_duplicate_matchers() {
    // Family and vendor specs match shapes the architecture specs do not, so linking a chain
    // never hides one default matcher behind another (upstream matchers cannot tell f16 from
    // bf16, so a repeated shape would hand one of them the other's intrinsic).
    let registry = Registry::embedded().with_derived(true);
    let mlir = tunespec::mlir::Mlir::new();
    for target in registry::targets() {
        let resolution = registry.resolve(target.name, &[]).unwrap();
        let linked = tunespec::link::link(&mlir, &resolution.link_inputs(), Default::default())
            .unwrap_or_else(|problems| panic!("{}: {problems:?}", target.name));
        // A measured default covering a derived one (sm_90's H100 configs over its derived
        // configs of the same shapes) is a note by design (measured first); nothing else.
        let (measured_first, others): (Vec<_>, Vec<_>) = linked
            .problems
            .iter()
            .partition(|problem| problem.code == "tunespec::link::measured-first");
        assert!(others.is_empty(), "{}: {others:#?}", target.name);
        let expected_notes = if target.name == "sm_90" { 5 } else { 0 };
        assert_eq!(
            measured_first.len(),
            expected_notes,
            "{}: {measured_first:#?}",
            target.name
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
    let registry = Registry::embedded().with_derived(true);
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
    let registry = Registry::embedded().with_derived(true);
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
