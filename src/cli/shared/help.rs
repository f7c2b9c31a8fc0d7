//! The text after each command's options in `--help`: examples, the environment variables the
//! command reads, and the exit statuses (naming only flags the command has).

/// The variables every command reads: colour and width of reports, and the log filter.
macro_rules! env_output {
    () => {
        "  NO_COLOR                  any value: no colour (as --color never)
  CLICOLOR                  0: no colour unless CLICOLOR_FORCE
  CLICOLOR_FORCE            1: colour even when not writing to a terminal
  TUNESPEC_TERM_WIDTH       width of reports (default: the terminal's, else 100)
  TUNESPEC_LOG              what -v logs, as a filter (info, debug, tunespec::cache=debug)
"
    };
}

/// Reading untrusted bytecode.
macro_rules! env_bytecode {
    () => {
        "  TUNESPEC_TRUST_BYTECODE   1: parse bytecode in process without the child-process probe
  TUNESPEC_IREE_OPT         iree-opt, to read bytecode written by IREE's newer MLIR
  TUNESPEC_IREE_VENV        a Python venv with IREE's compiler (its bin/iree-opt and libIREECompiler.so)
  TUNESPEC_IREE_LIB         IREE's compiler library (libIREECompiler.so), to read models and write
                            libraries as that IREE does (else: the venv, iree-compile on PATH, python3)
  TUNESPEC_IREE_TIMEOUT_SECS  time limit of one IREE request (default 600)
  TUNESPEC_IREE_CHECK_PART_BYTES  smallest part of IREE's check of a written library that gets a
                            worker of its own (default 4 MiB; one worker per core, at most 8)
  TUNESPEC_NO_IREE          1: behave as if IREE's compiler library were not installed
"
    };
}

/// Which specs a target resolves to.
macro_rules! env_specs {
    () => {
        "  TUNESPEC_SPEC_PATH        `:`-separated user spec files and directories
  TUNESPEC_NO_CONFIG        1: ignore tunespec.toml and the user config
  TUNESPEC_DERIVED          1: also link tunespec's derived (never measured) default specs,
                            0: not (over `derived` in the configs; --derived/--no-derived win)
  XDG_CONFIG_HOME, HOME     the user config, $XDG_CONFIG_HOME/tunespec/config.toml
"
    };
}

/// The cache of linked libraries.
macro_rules! env_cache {
    () => {
        "  TUNESPEC_CACHE            on (default), off, readonly or recache
  TUNESPEC_CACHE_DIR        the cache directory (default: $XDG_CACHE_HOME/tunespec,
                            else ~/.cache/tunespec)
  TUNESPEC_CACHE_MAX_BYTES  the cache's size limit (e.g. 512M)
  XDG_CACHE_HOME, HOME      where the cache directory is by default
"
    };
}

macro_rules! exit_deny {
    () => {
        "
Exit status:
  0  success (warnings allowed unless --deny-warnings)
  1  problems found in the inputs
  2  usage or I/O error (bad flags, missing or unreadable files, unknown target)"
    };
}

macro_rules! exit_plain {
    () => {
        "
Exit status:
  0  success
  1  problems found in the inputs
  2  usage or I/O error (bad flags, missing or unreadable files, unknown target)"
    };
}

pub const TOP: &str = concat!(
    "Examples:
  tunespec verify my_specs/                     check specs before shipping them
  tunespec link -t mi300x -s my_spec.mlir -o lib.mlir
  tunespec apply -t gfx942 model.mlir -o configured.mlir --explain

Environment:
",
    env_output!(),
    "
`tunespec COMMAND --help` names the variables each command reads.
",
    exit_deny!()
);

pub const VERIFY: &str = concat!(
    "Examples:
  tunespec verify                               the embedded registry
  tunespec verify specs/ my_spec.mlir --deny-warnings
  tunespec verify --format github specs/        annotations in a GitHub Actions log
  cat spec.mlir | tunespec verify -             from stdin (reported as <stdin>)

Environment:
",
    env_output!(),
    env_bytecode!(),
    "  TUNESPEC_IREE_TIMEOUT_SECS  time limit of the iree-opt check (default 120)
  PATH                      where iree-opt is looked for last
",
    exit_deny!()
);

pub const LINK: &str = concat!(
    "Examples:
  tunespec link --target mi300x -o library.mlirbc --emit mlirbc
  tunespec link -t gfx942 -s my_spec.mlir -s team_specs/ -o -
  tunespec link -t gfx942 --derived -o lib.mlir     tunespec's derived defaults too (never measured)
  tunespec link --no-default -s a.mlir -s b.mlir --dedupe --deny-warnings

Environment:
",
    env_output!(),
    env_bytecode!(),
    env_specs!(),
    env_cache!(),
    exit_deny!()
);

pub const ATTACH: &str = concat!(
    "Examples:
  tunespec attach -t mi300x model.mlir -o model.tuned.mlir
  tunespec attach -t gfx942 -s my_spec.mlir --blob resource model.mlirbc -o -
  cat model.mlir | tunespec attach -t gfx942 - > model.tuned.mlir

Environment:
",
    env_output!(),
    env_bytecode!(),
    env_specs!(),
    env_cache!(),
    exit_plain!()
);

pub const EXTRACT: &str = concat!(
    "Examples:
  tunespec extract model.tuned.mlir
  tunespec extract --emit mlirbc model.tuned.mlir -o library.mlirbc

Environment:
",
    env_output!(),
    env_bytecode!(),
    exit_plain!()
);

pub const APPLY: &str = concat!(
    "Examples:
  tunespec apply -t gfx942 model.mlir -o configured.mlir
  tunespec apply model.tuned.mlir --explain           the attached library
  tunespec apply -t mi300x --as-dispatch model.mlir -o -

Environment:
",
    env_output!(),
    env_bytecode!(),
    env_specs!(),
    env_cache!(),
    exit_plain!()
);

pub const EXPLAIN: &str = concat!(
    "Examples:
  tunespec explain -t gfx942 model.mlir   also lists where a derived default would apply
  tunespec explain -t gfx942 --derived model.mlir
  tunespec explain -t mi300x -s my_spec.mlir --format json model.mlir
  tunespec explain model.tuned.mlir --view written
  tunespec explain -t gfx942 --exact torch_model.mlir   checked against IREE's own compile

Environment:
",
    env_output!(),
    env_bytecode!(),
    env_specs!(),
    env_cache!(),
    exit_plain!(),
    "
  3  --exact: IREE set a config other than tunespec predicts (a tunespec bug)"
);

pub const DOCTOR: &str = concat!(
    "Examples:
  tunespec doctor
  tunespec doctor --iree ~/venvs/iree-3.12 --format json
  tunespec --version -v                  the version line, and the IREE tunespec would use

Environment:
",
    env_bytecode!(),
    "
Exit status:
  0  success (whatever was found)
  2  the IREE named by --iree or TUNESPEC_IREE_LIB does not load"
);

/// `check`: what each step does, `--fix`, and IREE's variables.
pub const BENCH: &str = concat!(
    "With PAYLOADs (models: any input IREE compiles), each is compiled twice with the user's IREE,
with IREE's own configs and with the library attached (iree_codegen.tuning_spec_mlirbc, the one
way a spec reaches IREE's compile on CUDA); each dispatch is dumped as a benchmark module, and a
payload whose dispatches all keep IREE's configs is `unchanged`. Without PAYLOADs, each matcher
of the library (contraction and convolution matchers with fixed shapes) is benched alone on the
payload `check` builds from its key.

Both variants run once on the same pseudo-random inputs (fixed seed; floats in [-0.5, 0.5)) and
their outputs are compared: |library - IREE| <= atol + rtol * |IREE| per element (defaults by
element type: f32 1e-2/1e-3, f16 5e-2/1e-2, bf16 1e-1/2e-2, integers exact). A config whose
outputs differ is `wrong output`: never timed, never a winner. Then both are timed with
iree-benchmark-module in paired rounds: one process for IREE's config and one for the
library's per round (reversed each round), --repetitions per run after --min-time of warm-up.
Each round gives one ratio; the ratio reported is their median, with a sign-test interval. A
config is called faster or slower only when the interval excludes 1 AND the ratio is more than
--min-effect from 1; otherwise `no difference` (not worth shipping). Unsettled comparisons
double their rounds from --rounds up to --max-rounds (or --budget seconds), each look at
--alpha over the number of looks. --dispatches also times each changed dispatch alone (its
benchmark module).

Compiles run in parallel (--jobs); timing runs one at a time (on a terminal, a progress line
with an estimate of the time left). Each row: medians, the ratio (library / IREE) with its
interval, p, rounds (* unsettled), outputs, verdict, and what it measured: the ops the library
configured in it, their loops and element types, and the matcher (spec file:line) of each, as
explain finds them in IREE's dispatches. Without --function every exported function is timed,
a row each. --format short: one line per row. --write LIB
writes the matchers that won (faster, outputs equal) as measured entries (device, IREE version
and revision, flags, medians, samples, spread, rounds, interval, p-value, date), merged by
matcher key and device into LIB (faster wins on the same device; another device's entry is kept
beside it, and --measured-on picks one when linking); with a model and --dispatches, the matcher
of each dispatch that measured faster alone; losers are listed and left out. LIB is written whole or not
at all. --shard K/N takes a deterministic share of the cases (by a hash of each matcher's key),
so shards of a Slurm array or a CI matrix are disjoint, and writing their winners into one
library in any order gives the same library.

Flags: the target's (as explain --exact and check use; sm_90 and newer compile as IREE 3.13's
sm_89 PTX), the host CPU for local-task/local-sync, then --iree-flag values.

Compile here, time there: --plan DIR only compiles (IREE's compiler, no runtime, no device)
and writes a plan: every module with its hash, the compiler's version and flags, what to time.
`tunespec time DIR --device D` times it where the device is, with IREE's runtime alone
(--shard K/N over several machines; resumable), and `tunespec decide DIR [--write LIB]` gives
the verdicts and entries anywhere: the same as one bench run. --keep DIR keeps a one-machine
run's plan and results, which decide reads as well.

Examples:
  tunespec bench --spec my_cpu_spec.mlir model.mlir      IREE's CPU backend on local-task
  tunespec bench -t sm_90 --spec team-specs --device cuda --plan plan/   then time, decide
  tunespec bench -t host --spec cpu-specs --dispatches --write measured model.mlir
  tunespec bench -t sm_90 --derived --device cuda --write team-specs
  tunespec bench -t gfx942 --spec team-specs --device hip --shard 3/16 --format json

Environment:
  TUNESPEC_IREE_RUNTIME   a directory holding iree-benchmark-module (else beside the compiler)
",
    env_output!(),
    "
Exit status:
  0  every payload benched (faster, slower, no difference or unchanged)
  1  a payload failed to compile or run, or its outputs differ with the library
  2  usage or I/O error, no IREE compiler or runtime found, a device the runtime does not have"
);

/// `time`: the time phase of a plan.
pub const TIME: &str = concat!(
    "Times a plan made by `bench --plan DIR` on --device, with IREE's runtime alone (the
iree-base-runtime wheel: no compiler, no Python started). Before anything is timed, the plan is
checked: every module against its BLAKE3 hash (a changed or missing file is refused), the
runtime's release against the compiler's that made the plan (a vmfb loads only in its compiler's
runtime), the device against the HAL device the plan was compiled for. Then each case is timed
as `bench` times it (outputs compared, paired rounds, the same options), and its result written
to DIR/results/ at once, whole or not at all: a stopped run loses at most the case it was
timing, and the next run on the same device goes on where it stopped. --shard K/N times the
cases whose identity hashes to K of N: N machines time one plan, and their results/ copied into
one directory are the plan timed whole (`tunespec decide DIR`).

Examples:
  tunespec time plan/ --device cuda
  tunespec time plan/ --device hip://0 --shard 2/4

Environment:
  TUNESPEC_IREE_RUNTIME   a directory holding iree-benchmark-module
  TUNESPEC_IREE_VENV      a venv with iree-base-runtime (else the active VIRTUAL_ENV, else PATH)
",
    "
Exit status:
  0  the share timed (failed rows are decide's to report)
  2  usage or I/O error, not a plan, a changed module, another IREE release, no runtime found,
     a device the runtime does not have or the plan was not compiled for"
);

/// `decide`: the decide phase of a plan.
pub const DECIDE: &str = concat!(
    "The verdicts of a timed plan (`bench --plan`, then `tunespec time`), as `bench` prints them,
and with --write LIB the winners as measured entries (as `bench --write`): the same rows and the
same library as a one-machine bench of the same timings, on any machine, no IREE needed. Results
of several shards copied into DIR/results/ are decided together, in the plan's order whatever
order they arrived in; results timed on different devices are refused (one report, one device).
A case without a result is a failed row, `not timed`.

Examples:
  tunespec decide plan/
  tunespec decide plan/ --write team-specs --format json
",
    "
Exit status:
  0  every case decided (faster, slower, no difference or unchanged)
  1  a case failed to compile, run or be timed, or its outputs differ with the library
  2  usage or I/O error, not a plan, nothing timed, results of different devices"
);

pub const CHECK: &str = concat!(
    "Each PATH is a spec file, a directory of specs (*.mlir, walked recursively) or a spec library (a
directory with registry.toml, whose [targets.T]/[extend.T] lists give each spec its target).
Per matcher of a root op (transform.iree.match.contraction, convolution, attention):
  parse    the spec parses in the IREE in use (its parser and verifier)
  effect   a payload of the matcher's own shape, element types and layout, compiled by IREE to
           executable-configurations with the spec attached, gets the matcher's config
           (contractions as a linalg.generic, convolutions as NHWC x HWCF; no payload is built
           for attention: skipped, with the reason); when IREE picks the same config without
           the spec, the step says the match is not observable
  compile  the full compile of that payload with the spec succeeds (IREE's pipeline to its end,
           the VM module a .vmfb is written from)
A measurement recorded with another IREE version (tunespec.measurement, from import-tuner) is a
warning, as is a transform.iree.match.attention matcher: IREE 3.13 dispatches hold
iree_linalg_ext.online_attention (match.online_attention matches them).

--fix migrates known syntax changes in place (temporary file and rename), before the checks:
pre-3.13 GPU pipelines (`pipeline = LLVMGPUVectorDistribute`) become attributes
(`pipeline = #iree_gpu.pipeline<VectorDistribute>`). Each edit is reported as
file:line:col: before -> after. Without --fix no file is written; a file with nothing to fix is
never rewritten.

--store URL checks the best entries a shared store holds (every target's; --measured-on D: those
measured on D) as one more library, pulled read-only beside the cache (docs/store.md); a store
that fails is exit 2.

Examples:
  tunespec check team-specs/
  tunespec check --target gfx942 tuning_spec.mlir
  tunespec check --fix --target gfx942 old-specs/ --format json
  tunespec check --store redis://cache.local --measured-on H100 --bench --device cuda

Environment:
",
    env_output!(),
    env_bytecode!(),
    "
Exit status:
  0  every matcher passed (warnings allowed)
  1  a matcher failed a step, or a spec tunespec cannot read
  2  usage or I/O error (no such path, a spec without a target), or no IREE compiler found"
);

pub const COVERAGE: &str = concat!(
    "Examples:
  tunespec coverage -t gfx942 examples/*.mlir
  tunespec coverage --no-default -s my_spec.mlir --format json corpus/*.mlir
  tunespec coverage -t gfx942 --format github corpus/*.mlir   dead matchers as CI annotations

Environment:
",
    env_output!(),
    env_bytecode!(),
    env_specs!(),
    env_cache!(),
    exit_plain!()
);

pub const RESOLVE: &str = concat!(
    "Examples:
  tunespec resolve mi300x
  tunespec resolve gfx942:sramecc+:xnack- -s my_spec.mlir --format json

Environment:
",
    env_output!(),
    env_specs!(),
    exit_plain!()
);

pub const EXPORT: &str = concat!(
    "Examples:
  tunespec export -o build/tunespec_specs
  tunespec export -o out/ -t gfx942 -t sm_90

Environment:
",
    env_output!(),
    exit_plain!()
);

pub const TARGETS: &str = concat!(
    "Examples:
  tunespec targets
  tunespec targets --format json | jq -r .target

Environment:
",
    env_output!(),
    exit_plain!()
);

pub const SHOW: &str = concat!(
    "Examples:
  tunespec show mi300x
  tunespec show sm_90 | less

Environment:
",
    env_output!(),
    exit_plain!()
);

/// The shared store's environment (`store`, and `--store` on `bench` and `tune`).
macro_rules! env_store {
    () => {
        "  TUNESPEC_STORE_READ_ONLY  1: the store is read-only (as --read-only)
  REDISCLI_AUTH             the Redis server's password (as redis-cli reads it)
"
    };
}

pub const STORE: &str = concat!(
    "Examples:
  tunespec store push tuning/measured --store redis://cache.local:6379
  tunespec store pull --store redis://cache.local --target gfx942 --device MI300X -o tuning/mi300x
  tunespec store ls --store file:///srv/tunespec --format json
  tunespec store purge --store redis://cache.local --iree-version 3.12.0

Environment:
",
    env_output!(),
    env_store!(),
    "
Exit status:
  0  success
  2  usage or I/O error: a bad or unsupported --store URL, an unreachable store, refused
     credentials, a write to a read-only store, an unwritable output (docs/store.md)"
);

pub const CACHE: &str = concat!(
    "Examples:
  tunespec cache stats
  tunespec cache stats --format json
  tunespec cache clean --counters

Environment:
",
    env_output!(),
    env_cache!(),
    exit_plain!()
);

pub const COMPLETIONS: &str = concat!(
    "Examples:
  tunespec completions bash > ~/.local/share/bash-completion/completions/tunespec
  tunespec completions zsh > ~/.zfunc/_tunespec
  tunespec completions fish > ~/.config/fish/completions/tunespec.fish

Environment:
",
    env_output!(),
    exit_plain!()
);

pub const MAN: &str = concat!(
    "Examples:
  tunespec man | man -l -
  tunespec man verify > tunespec-verify.1
  tunespec man --all -o share/man/man1

Environment:
",
    env_output!(),
    exit_plain!()
);
