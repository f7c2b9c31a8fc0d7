//! The IREE flags a registry architecture is compiled with (`gfx942`: HIP/ROCm, `sm_80`: CUDA),
//! and the one substitution tunespec makes: a CUDA architecture IREE 3.13 has no GPU target for
//! is compiled as the newest one it has that is not newer (`sm_90` as `sm_89`).
//!
//! Why: `iree-compile --iree-cuda-target=sm_90` (and `sm_90a`, `sm_100`, ...) fails in IREE 3.13
//! with "missing GPU target in #hal.executable.target" for any payload, so `explain --exact`,
//! `check` and every compile for an H100 would fail although the H100 runs what IREE compiles for
//! `sm_89`: IREE's CUDA backend embeds PTX, and the CUDA driver JIT-compiles PTX for any GPU of
//! the same or a newer compute capability when the module is loaded (checked on an H100, driver
//! 580: `docs/measured-defaults.md`). The configs IREE chose for sm_89 and for a hand-written
//! sm_90 target were the same; the default `sm_90` specs use only what sm_80 has (mma.sync).

/// The CUDA compute capabilities (`sm_N`) IREE 3.13 has a GPU target for. Found by compiling a
/// matmul with `iree-compile 3.13.0 --iree-hal-target-device=cuda --iree-cuda-target=sm_N
/// --compile-to=executable-configurations` for each N: sm_60, 61, 62, 70, 72, 75, 80, 86, 87, 89,
/// 120 and 121 compile; sm_50..53, sm_88, sm_90, sm_90a, sm_100, sm_100a, sm_101, sm_103,
/// sm_110, sm_120a and sm_130 fail with "missing GPU target". `tests/all/sm90.rs` checks this
/// list against the IREE the tests use, so a new IREE that knows more shows up there.
pub const IREE_CUDA_TARGETS: &[u32] = &[60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 120, 121];

/// The IREE release [`IREE_CUDA_TARGETS`] was read from (said in the substitution's reason).
pub const IREE_CUDA_TARGETS_RELEASE: &str = "3.13";

/// How IREE compiles for a registry architecture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileTarget {
    /// The architecture asked for (`sm_90`).
    pub architecture: String,
    /// IREE's session flags (`--iree-hal-target-device=cuda --iree-cuda-target=sm_89`).
    pub flags: Vec<String>,
    /// The architecture IREE compiles for: `architecture` unless substituted (`sm_89`).
    pub compiled_as: String,
    /// Why it was substituted, in a sentence ("sm_90: compiled as sm_89 PTX, JIT-compiled by
    /// the driver: IREE 3.13 has no sm_90 target"); `None` when it was not.
    pub substitution: Option<String>,
}

/// How IREE compiles for `architecture`: `None` for a family or a name that is not an
/// architecture (`gfx9`, `nvidia`, `mi308x`).
pub fn compile_target(architecture: &str) -> Option<CompileTarget> {
    // The built-in `host` target: this machine's CPU, as IREE's llvm-cpu `host` names it.
    if architecture == "host" {
        return Some(CompileTarget {
            architecture: architecture.to_string(),
            flags: vec![
                "--iree-hal-target-device=local".to_string(),
                "--iree-hal-local-target-device-backends=llvm-cpu".to_string(),
                "--iree-llvmcpu-target-cpu=host".to_string(),
            ],
            compiled_as: "host".to_string(),
            substitution: None,
        });
    }
    let alphanumeric =
        |rest: &str| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric());
    if let Some(rest) = architecture.strip_prefix("gfx") {
        if alphanumeric(rest)
            && rest.chars().next().is_some_and(|c| c.is_ascii_digit())
            && rest.len() >= 3
        {
            return Some(CompileTarget {
                architecture: architecture.to_string(),
                flags: vec![
                    "--iree-hal-target-device=hip".to_string(),
                    format!("--iree-rocm-target={architecture}"),
                ],
                compiled_as: architecture.to_string(),
                substitution: None,
            });
        }
    }
    let rest = architecture.strip_prefix("sm_")?;
    if !(alphanumeric(rest) && rest.chars().next().is_some_and(|c| c.is_ascii_digit())) {
        return None;
    }
    let (compiled_as, substitution) = match cuda_substitute(rest) {
        Some(known) => {
            let as_name = format!("sm_{known}");
            let why = format!(
                "{architecture}: compiled as {as_name} PTX, JIT-compiled by the driver: IREE {IREE_CUDA_TARGETS_RELEASE} has no {architecture} target"
            );
            (as_name, Some(why))
        }
        None => (architecture.to_string(), None),
    };
    Some(CompileTarget {
        architecture: architecture.to_string(),
        flags: vec![
            "--iree-hal-target-device=cuda".to_string(),
            format!("--iree-cuda-target={compiled_as}"),
        ],
        compiled_as,
        substitution,
    })
}

/// For `sm_<rest>` that IREE 3.13 has no target for, the newest compute capability it has that
/// is not newer (PTX runs forward, never backward); `None` when IREE has the target itself, or
/// when nothing older is known (sm_5x: IREE then says what it lacks). An `a`/`f` suffix
/// (architecture- or family-specific features, `sm_90a`) is dropped: IREE's configs use none of
/// them, and PTX without them runs on that GPU.
fn cuda_substitute(rest: &str) -> Option<u32> {
    let digits_end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (digits, suffix) = rest.split_at(digits_end);
    if !matches!(suffix, "" | "a" | "f") {
        return None;
    }
    let capability: u32 = digits.parse().ok()?;
    if suffix.is_empty() && IREE_CUDA_TARGETS.contains(&capability) {
        return None;
    }
    IREE_CUDA_TARGETS
        .iter()
        .copied()
        .filter(|&known| known <= capability)
        .max()
}

/// The session flags of IREE's compile for a registry target's architecture (see
/// [`compile_target`]); `None` for a family or a name that is not an architecture.
pub fn target_flags(architecture: &str) -> Option<Vec<String>> {
    compile_target(architecture).map(|target| target.flags)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compiled_as(architecture: &str) -> Option<String> {
        compile_target(architecture).map(|target| target.compiled_as)
    }

    #[test]
    fn known_targets_are_kept() {
        for name in ["sm_80", "sm_89", "sm_120", "gfx942", "gfx1100"] {
            let target = compile_target(name).unwrap();
            assert_eq!(target.compiled_as, name);
            assert_eq!(target.substitution, None);
        }
        assert_eq!(
            target_flags("sm_80").unwrap(),
            ["--iree-hal-target-device=cuda", "--iree-cuda-target=sm_80"]
        );
    }

    #[test]
    fn newer_cuda_targets_compile_as_the_newest_older_one() {
        for (name, expected) in [
            ("sm_90", "sm_89"),
            ("sm_90a", "sm_89"),
            ("sm_100", "sm_89"),
            ("sm_100a", "sm_89"),
            ("sm_103", "sm_89"),
            ("sm_120a", "sm_120"),
            ("sm_130", "sm_121"),
            ("sm_88", "sm_87"),
        ] {
            assert_eq!(compiled_as(name).as_deref(), Some(expected), "{name}");
        }
        let h100 = compile_target("sm_90").unwrap();
        assert_eq!(
            h100.flags,
            ["--iree-hal-target-device=cuda", "--iree-cuda-target=sm_89"]
        );
        assert_eq!(
            h100.substitution.as_deref(),
            Some("sm_90: compiled as sm_89 PTX, JIT-compiled by the driver: IREE 3.13 has no sm_90 target")
        );
    }

    #[test]
    fn what_has_no_older_target_or_is_no_architecture_is_left_alone() {
        assert_eq!(compiled_as("sm_52").as_deref(), Some("sm_52"));
        assert_eq!(compiled_as("sm_90x").as_deref(), Some("sm_90x"));
        assert_eq!(
            compiled_as("sm_99999999999999999999").as_deref(),
            Some("sm_99999999999999999999")
        );
        for name in ["nvidia", "gfx9", "mi308x", "sm_", "sm_a9", "gfx", "sm_9-0"] {
            assert_eq!(compile_target(name), None, "{name}");
        }
    }
}
