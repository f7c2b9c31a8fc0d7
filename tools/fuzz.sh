#!/usr/bin/env bash
# Fuzzes tunespec's readers: the libFuzzer targets of fuzz/ in process, then bytecode out of
# process.
#
#   tools/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# SECONDS_PER_TARGET defaults to 300. TARGETs (default: all) are verify_text, manifest, payload,
# cache_entry and bytecode.
#
# 1. installs cargo-fuzz if missing (`cargo install cargo-fuzz --locked`); needs the nightly
#    toolchain (`cargo +nightly`): without it, says so and exits 2;
# 2. writes seed corpora from the repository (specs/, tests/fixtures/, examples/, and inputs made
#    from them) into fuzz/seeds/<target>/; the corpus libFuzzer grows is fuzz/corpus/<target>/
#    (both ignored by git); text seeds include `//repeat N` templates (deep alias chains, affine
#    chains, nested regions), which the harnesses expand (fuzz/fuzz_targets/common.rs);
# 3. runs each in-process target for SECONDS_PER_TARGET (`cargo +nightly fuzz run`, ASan,
#    -jobs=1 -workers=1: one fuzzing process at a time; libFuzzer's log is
#    fuzz/logs/<target>.log), builds in CARGO_TARGET_DIR=target/fuzz so the main build lock is
#    never held;
# 4. the bytecode driver: MLIR's bytecode reader can abort the process on corrupt input, which an
#    in-process fuzzer cannot survive, and tunespec contains it by probing bytecode in a child
#    process (src/contain.rs). So bytecode is fuzzed through the real binary: BYTECODE_RUNS
#    (default 3000) mutations (truncations, bit flips, interesting bytes, inserted, deleted and
#    duplicated ranges, splices) of real bytecode (linked libraries), each run as
#    `tunespec verify --format json FILE` or, one in five, attached to a payload for
#    `tunespec extract` or `tunespec apply` (the attached-library path); the exit status must be
#    0 or 1, never a signal, a panic (101) or 2, and verify's stdout must be JSON Lines.
#    The binary is $TUNESPEC_BIN (default: `cargo build --release` of the work tree into
#    target/fuzz/release/tunespec).
#
# Findings go to fuzz/artifacts/<target>/ (minimize with `cargo +nightly fuzz tmin`; the bytecode
# driver also keeps inputs its probe contained there, as contained-*), a summary (inputs tried,
# crashes) to stdout. Exit status: 0 no crash, 1 crashes found, 2 setup failure.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

SECONDS_PER_TARGET=300
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
    SECONDS_PER_TARGET=$1
    shift
fi
case "${1:-}" in
    -h | --help)
        sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
        exit 0
        ;;
esac
IN_PROCESS=(verify_text manifest payload cache_entry)
TARGETS=("$@")
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=("${IN_PROCESS[@]}" bytecode)
for target in "${TARGETS[@]}"; do
    case " ${IN_PROCESS[*]} bytecode " in
        *" $target "*) ;;
        *)
            echo "tools/fuzz.sh: unknown target '$target' (try --help)" >&2
            exit 2
            ;;
    esac
done
BYTECODE_RUNS=${BYTECODE_RUNS:-3000}
export CARGO_TARGET_DIR="$ROOT/target/fuzz"

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "tools/fuzz.sh: the nightly toolchain is missing (cargo-fuzz needs it):" >&2
    echo "  rustup toolchain install nightly" >&2
    exit 2
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "tools/fuzz.sh: installing cargo-fuzz" >&2
    cargo install cargo-fuzz --locked || {
        echo "tools/fuzz.sh: cannot install cargo-fuzz" >&2
        exit 2
    }
fi

# ---------------------------------------------------------------------------------------------
# Seeds
SEEDS=$ROOT/fuzz/seeds
rm -rf "$SEEDS"
mkdir -p "$SEEDS"/{verify_text,manifest,payload,cache_entry,bytecode} fuzz/corpus fuzz/logs fuzz/artifacts
seed() { # seed TARGET FILE...: copies files, named by content hash (no duplicates)
    local target=$1
    shift
    local file
    for file in "$@"; do
        [[ -f $file ]] && cp "$file" "$SEEDS/$target/$(sha1sum "$file" | cut -c1-16)"
    done
    return 0
}
seed verify_text specs/*/*.mlir tests/fixtures/specs/*/*.mlir tests/fixtures/payloads/*.mlir \
    examples/*.mlir
seed payload tests/fixtures/payloads/*.mlir examples/*.mlir tests/fixtures/specs/bad/payload.mlir
seed manifest specs/registry.toml
python3 - "$SEEDS" <<'EOF'
import pathlib, sys
seeds = pathlib.Path(sys.argv[1])
def put(target, name, data):
    path = seeds / target / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())

# Manifests: one per validation rule, against the fuzz target's specs tree.
head = "schema = 1\n"
good = '[targets.gfx942]\ndescription = "d"\naliases = ["mi300x"]\nspecs = ["gfx942/*.mlir"]\n'
for name, text in {
    "good": head + good,
    "fallback": head + good + '[targets.gfx9]\ndescription = "d"\nspecs = ["gfx950/llama2_f16.mlir"]\n'
        '[targets.gfx950]\ndescription = "d"\nfallback = "gfx9"\n',
    "cycle": head + '[targets.a]\ndescription = "d"\nfallback = "b"\n[targets.b]\ndescription = "d"\nfallback = "a"\n',
    "alias-clash": head + good + '[targets.sm_80]\ndescription = "d"\naliases = ["MI300X", "gfx942"]\nspecs = ["sm_80/*.mlir"]\n',
    "escape": head + '[targets.x]\ndescription = "d"\nspecs = ["../outside.mlir", "/etc/passwd", "escape.mlir", "up/specs/gfx942/*.mlir"]\n',
    "globs": head + '[targets.x]\ndescription = "d"\nspecs = ["**/*.mlir", "sm_9?/deep/*/x.mlir", "gfx1100/*.mlirbc", "common/*"]\n',
    "schema": "schema = 2\n" + good,
    "unknown-key": head + good + 'colour = "blue"\n',
    "empty-target": head + '[targets.Gfx]\ndescription = " "\n',
    "kinds-features": head + '[targets.mi308x]\ndescription = "d"\nkind = "sku"\nfallback = "gfx942"\n'
        '[targets.gfx942]\ndescription = "d"\nkind = "arch"\nfeatures = ["xnack"]\nfallback = "gfx9"\n'
        'specs = [{ path = "gfx942/xnack/*.mlir", features = ["xnack+"] }, "gfx942/*.mlir"]\n'
        '[targets.gfx9]\ndescription = "d"\nkind = "family"\nspecs = ["gfx9/*.mlir"]\n',
    "bad-kind": head + '[targets.gfx942]\ndescription = "d"\nkind = "vendor"\nfallback = "x"\n'
        '[targets.x]\ndescription = "d"\nkind = "sku"\nspecs = [{ path = "sm_80/*.mlir", features = ["nosuch+"] }]\n',
    "extend": head + '[extend.mi300x]\nspecs = ["gfx942/*.mlir"]\n[extend.gfx9]\nspecs = ["gfx9/common.mlir"]\n'
        '[targets.mine]\ndescription = "d"\nfallback = "gfx942"\nspecs = ["sm_80/*.mlir"]\n',
}.items():
    put("manifest", name, text)

# Deep and repetitive inputs, through the harnesses' `//repeat N` expansion (common.rs): alias
# chains of attributes, types and locations, aliases that share, affine operator chains, unary
# minus runs, nested regions. N is mutated like any other byte.
spec = pathlib.Path("tests/fixtures/specs/good/one_matcher.mlir").read_text()
def with_attr(attr):
    return spec.replace("-> (!transform.any_op, !transform.any_param) {",
                        "-> (!transform.any_op, !transform.any_param) attributes {deep = %s} {" % attr, 1)
for name, text in {
    "repeat-attr-alias": "//repeat 300\n#a0 = [1]\n{{#a{i} = [#a{p}]\n}}" + with_attr("#a{n}"),
    "repeat-dict-alias": "//repeat 300\n#a0 = {k = 1}\n{{#a{i} = {k = #a{p}}\n}}" + with_attr("#a{n}"),
    "repeat-type-alias": "//repeat 300\n!t0 = i32\n{{!t{i} = tuple<!t{p}>\n}}" + with_attr("!t{n}"),
    "repeat-type-doubling": "//repeat 30\n!t0 = i32\n{{!t{i} = (!t{p}) -> !t{p}\n}}" + with_attr("!t{n}"),
    "repeat-loc-callsite": "//repeat 300\n#loc0 = loc(\"a.mlir\":1:1)\n{{#loc{i} = loc(callsite(#loc{p} at #loc{p}))\n}}"
        + spec.replace("transform.yield\n", "transform.yield loc(#loc{n})\n", 1),
    "repeat-affine-sum": "//repeat 300\n" + with_attr("affine_map<(d0, d1) -> (d0{{ + d1}})>"),
    "repeat-affine-mod": "//repeat 300\n" + with_attr("affine_map<(d0) -> (d0{{ mod 7}})>"),
    "repeat-affine-neg": "//repeat 300\n" + with_attr("affine_map<(d0) -> ({{- }}d0)>"),
    "repeat-brackets": "//repeat 300\n" + with_attr("{{[}}1"),
    "repeat-regions": "//repeat 300\n{{\"test.op\"() ({\n}}",
}.items():
    put("verify_text", name, text)
put("payload", "repeat-type-alias", "//repeat 300\n!t0 = i32\n{{!t{i} = tuple<!t{p}>\n}}func.func private @f(%a: !t{n})\n")
put("payload", "repeat-attr-alias", "//repeat 300\n#a0 = [1]\n{{#a{i} = [#a{p}]\n}}func.func private @f() attributes {deep = #a{n}}\n")

# Payloads carrying a library as text (a string, and dense bytes): extract verifies it.
lib = (pathlib.Path("tests/fixtures/specs/good/one_matcher.mlir")).read_text()
payload = pathlib.Path("tests/fixtures/payloads/llama2_f16_decoder.mlir").read_text()
escaped = lib.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\0A")
put("payload", "attached-string",
    f'module attributes {{iree_codegen.tuning_spec_mlirbc = "{escaped}"}} {{\n{payload}}}\n')
hexed = lib.encode().hex().upper()
put("payload", "attached-dense",
    f'module attributes {{iree_codegen.tuning_spec_mlirbc = dense<"0x{hexed}"> : vector<{len(lib.encode())}xi8>}} {{\n{payload}}}\n')
put("payload", "attached-nested",
    f'module {{\n  module attributes {{iree_codegen.tuning_spec_mlirbc = "{escaped}"}} {{\n  }}\n{payload}}}\n')
EOF

# Real bytecode: the linked library of every target, and of single specs.
if [[ -z ${TUNESPEC_BIN:-} ]]; then
    # A plain release build of the work tree, in target/fuzz too (never the main build's lock).
    cargo build --release --quiet --bin tunespec
    TUNESPEC_BIN=$CARGO_TARGET_DIR/release/tunespec
fi
export TUNESPEC_CACHE=off
for target in $("$TUNESPEC_BIN" targets 2>/dev/null | awk 'NR > 1 && $1 ~ /^[a-z0-9_]+$/ {print $1}'); do
    "$TUNESPEC_BIN" link --target "$target" --emit mlirbc -o "$SEEDS/bytecode/$target.mlirbc" 2>/dev/null || true
done
for spec in tests/fixtures/specs/good/*.mlir; do
    "$TUNESPEC_BIN" link --no-default --spec "$spec" --emit mlirbc \
        -o "$SEEDS/bytecode/$(basename "$spec" .mlir).mlirbc" 2>/dev/null || true
done
if ! compgen -G "$SEEDS/bytecode/*.mlirbc" >/dev/null; then
    echo "tools/fuzz.sh: could not make bytecode seeds with $TUNESPEC_BIN" >&2
    exit 2
fi
# Cache entries: odd mode byte = "warnings JSON" NUL payload, sealed by the target.
for file in "$SEEDS"/bytecode/gfx942.mlirbc "$SEEDS"/bytecode/one_matcher.mlirbc; do
    name=$(basename "$file" .mlirbc)
    { printf '\x01[]\x00'; cat "$file"; } >"$SEEDS/cache_entry/$name-clean"
    { printf '\x03[]\x00'; cat "$file"; } >"$SEEDS/cache_entry/$name-flipped"
done
printf '\x01[{"code":"tunespec::link::shadowed","severity":"warning","message":"m","loc":{"file":"a.mlir","line":3,"col":5},"help":"h","related":[[{"file":"a.mlir","line":1,"col":1},"first"]]}]\x00ML\xefR\x06' \
    >"$SEEDS/cache_entry/warnings"
printf '\x00\x89TSLC\r\n\x1a\x01\x00\x00\x00' >"$SEEDS/cache_entry/raw-header"

# ---------------------------------------------------------------------------------------------
# In-process targets
declare -A RESULT
CRASHED=0
cd fuzz
for target in "${TARGETS[@]}"; do
    [[ $target == bytecode ]] && continue
    echo "== $target: ${SECONDS_PER_TARGET}s" >&2
    mkdir -p "corpus/$target" "artifacts/$target"
    rm -f fuzz-0.log
    touch "logs/$target.start"
    status=0
    cargo +nightly fuzz run "$target" "corpus/$target" "$SEEDS/$target" -- \
        -max_total_time="$SECONDS_PER_TARGET" -jobs=1 -workers=1 -rss_limit_mb=4096 \
        -timeout=60 -max_len=65536 -artifact_prefix="artifacts/$target/" || status=$?
    [[ -f fuzz-0.log ]] && mv fuzz-0.log "logs/$target.log"
    execs=$(grep -aoE '^#[0-9]+' "logs/$target.log" 2>/dev/null | tail -1 | tr -d '#')
    crashes=$(find "artifacts/$target" -type f -newer "logs/$target.start" | wc -l)
    RESULT[$target]="inputs ${execs:-?}, crash artifacts $crashes, exit $status"
    if [[ $status -ne 0 || $crashes -gt 0 ]]; then
        CRASHED=1
        grep -aE 'ERROR|panicked|SUMMARY|Test unit written' "logs/$target.log" | head -5 >&2 || true
    fi
done
cd "$ROOT"

# ---------------------------------------------------------------------------------------------
# Bytecode, out of process
if [[ " ${TARGETS[*]} " == *" bytecode "* ]]; then
    echo "== bytecode: $BYTECODE_RUNS mutations through $TUNESPEC_BIN" >&2
    mkdir -p fuzz/artifacts/bytecode
    status=0
    summary=$(python3 - "$TUNESPEC_BIN" "$SEEDS/bytecode" fuzz/artifacts/bytecode "$BYTECODE_RUNS" <<'EOF'
import json, os, pathlib, random, subprocess, sys, tempfile
binary, seed_dir, artifacts, runs = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), int(sys.argv[4])
seeds = [p.read_bytes() for p in sorted(seed_dir.glob("*.mlirbc"))]
payload = pathlib.Path("tests/fixtures/payloads/llama2_f16_decoder.mlir").read_text()
rng = random.Random(int(os.environ.get("FUZZ_SEED", "1")))
INTERESTING = [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF, 0x3F, 0x40]

def mutate(data):
    data = bytearray(data)
    for _ in range(rng.choice([1, 1, 1, 2, 3, 8])):
        kind = rng.randrange(8)
        n = len(data)
        if n < 6:
            break
        at = rng.randrange(4, n)  # keep the magic: stay on the bytecode path
        if kind == 0:
            del data[rng.randrange(5, n + 1):]                      # truncate
        elif kind == 1:
            data[at] ^= 1 << rng.randrange(8)                       # bit flip
        elif kind == 2:
            data[at] = rng.choice(INTERESTING)                      # interesting byte
        elif kind == 3:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9)))
        elif kind == 4:
            del data[at:at + rng.randrange(1, 64)]                  # delete a range
        elif kind == 5:
            end = min(n, at + rng.randrange(1, 64))
            data[at:at] = data[at:end]                              # duplicate a range
        elif kind == 6:
            other = rng.choice(seeds)                               # splice another library
            cut = rng.randrange(4, len(other))
            data[at:] = other[cut:]
        else:
            data[at] = rng.randrange(256)                           # random byte
    return bytes(data)

stats = {"runs": 0, "verify": 0, "extract": 0, "apply": 0, "exit0": 0, "exit1": 0, "contained": 0, "failures": 0}
with tempfile.TemporaryDirectory() as tmp:
    for run in range(runs):
        data = mutate(rng.choice(seeds))
        roll = rng.randrange(10)
        if roll < 2:
            # Attached to a payload: extract (one in ten) or apply (one in ten) load it.
            mode = "extract" if roll == 0 else "apply"
            text = (f'module attributes {{iree_codegen.tuning_spec_mlirbc = dense<"0x{data.hex().upper()}"> '
                    f': vector<{len(data)}xi8>}} {{\n{payload}}}\n')
            path = pathlib.Path(tmp, "payload.mlir")
            path.write_text(text)
            args = [binary, mode, str(path), "-o", str(pathlib.Path(tmp, "out.mlir"))]
        else:
            mode = "verify"
            path = pathlib.Path(tmp, "input.mlirbc")
            path.write_bytes(data)
            args = [binary, "verify", "--format", "json", str(path)]
        stats["runs"] += 1
        stats[mode] += 1
        try:
            done = subprocess.run(args, capture_output=True, timeout=120)
            code = done.returncode
            out = done.stdout.decode(errors="replace") + done.stderr.decode(errors="replace")
        except subprocess.TimeoutExpired:
            code, out = "timeout", ""
        problem = None
        if code not in (0, 1):
            problem = f"exit {code}"
        elif "panicked" in out:
            problem = "panic"
        elif mode == "verify":
            try:
                for line in done.stdout.decode().splitlines():
                    json.loads(line)
            except ValueError:
                problem = "stdout is not JSON Lines"
        if problem:
            stats["failures"] += 1
            name = f"{mode}-{run}-{problem.replace(' ', '_')}"
            pathlib.Path(artifacts, name + (".mlirbc" if mode == "verify" else ".mlir")).write_bytes(path.read_bytes())
            print(f"bytecode: {name}: {out[-300:]}", file=sys.stderr)
        else:
            stats[f"exit{code}"] += 1
            if "reader aborted" in out or "reader crashed" in out or "did not finish" in out:
                # Handled: the probe caught a reader failure. Kept as candidates for tests/corpus.
                stats["contained"] += 1
                name = f"contained-{mode}-{run}" + (".mlirbc" if mode == "verify" else ".mlir")
                pathlib.Path(artifacts, name).write_bytes(path.read_bytes())
        for leftover in pathlib.Path(tmp).glob("out.mlir*"):
            leftover.unlink()
print(json.dumps(stats))
EOF
) || status=$?
    RESULT[bytecode]="$summary, exit $status"
    if [[ $status -ne 0 ]] || ! grep -q '"failures": 0' <<<"$summary"; then
        CRASHED=1
    fi
fi

echo "== summary (${SECONDS_PER_TARGET}s per in-process target)"
for target in "${TARGETS[@]}"; do
    echo "$target: ${RESULT[$target]:-not run}"
done
exit $CRASHED
