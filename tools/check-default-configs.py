#!/usr/bin/env python3
"""Check that every matcher of IREE-form tuning specs takes effect in iree-compile and compiles.

Usage:
    tools/check-default-configs.py [options] PATH...

Example (every staged default spec, every member target, and the chains of specs/registry.toml;
about 10 to 15 minutes on 2 shared CPUs with iree-compile 3.13):
    tools/check-default-configs.py --jobs 2 --registry specs/registry.toml specs

PATH is a spec file (.mlir) or a directory (every *.mlir below it, sorted). Each spec must be in
IREE's tuner form: `@__kernel_config` is one `transform.foreach_match` whose matchers use
`transform.iree.match.contraction` (lhs_type, rhs_type, output_type, indexing_maps) and
`transform.iree.match.dims_equal` on its batch/m/n/k results, and yield a
`#iree_codegen.compilation_info<...>` param to an action that annotates "compilation_info".

For every spec the tool:
  1. prints it with `iree-opt --mlir-print-local-scope` (this also verifies it) and reads each
     matcher of the foreach_match: element types, indexing maps, dims_equal values, config;
  2. derives the payload each matcher is meant for: a func named after the matcher holding a
     linalg.fill (zero) and the contraction of that exact shape, element types and layout, as
     `linalg.matmul` (A*B), `linalg.matmul indexing_maps = [...]` (A*B^T), `linalg.batch_matmul`
     (batched A*B) or, for any other layout, a `linalg.generic` (named forms keep unit dims such
     as M = 1 that IREE folds away in a generic); all of a spec's matchers go into one payload;
  3. for each compile target of the spec (from its directory name, see TARGETS below, or
     --targets), runs iree-compile on that payload three times:
       a. with the spec, --compile-to=executable-configurations,
       b. the same without the spec,
       c. the full compile with the spec (-o /dev/null); if it fails, each matcher's function
          is compiled alone to find which configs fail;
     (how the spec reaches iree-compile, --route: "flag" passes
     --iree-codegen-tuning-spec-path=SPEC; "attr" attaches the spec, written as bytecode by
     iree-opt, to the payload module as iree_codegen.tuning_spec_mlirbc = dense<"0x..."> :
     vector<Nxi8>, as `tunespec attach` does; "auto", the default, uses "attr" for CUDA targets
     (sm_*), because iree-compile 3.13 silently ignores the flag there: only the ROCm target
     passes it to its MaterializeTuningSpecs pass, and "flag" elsewhere)
     and reports, per matcher:
       took_effect  a dispatch the matcher's function runs (found from the host code, as IREE
                    may share one dispatch between identical functions) has exactly the spec's
                    lowering_config (on its root op) and translation_info (on the dispatch
                    function);
       differs      without the spec, that dispatch gets another config (else the matcher
                    has no observable effect), or iree-compile cannot configure the function
                    without the spec (then each function is configured alone to find which;
                    the JSON "note" says so);
       compiled     the full compile succeeds.
     A matcher passes when all three hold.
  4. when a registry manifest is known (--registry FILE, or a registry.toml in a directory
     argument), checks every target's chain (its specs, then its fallbacks'): no two matchers of
     a chain have the same element types, indexing maps and dimensions (the first would hide
     the second). Spec globs of the manifest are resolved against the directory argument (so a
     staging copy of specs/ can be checked with specs/registry.toml), else the manifest's dir.

TARGETS (directory name -> iree-compile targets): gfx90a, gfx942, gfx950, gfx1100, gfx1201,
sm_80, sm_86, sm_89: themselves; gfx9 -> gfx90a, gfx942, gfx950; rdna -> gfx1100, gfx1201;
nvidia -> sm_80, sm_89; sm_90 -> sm_89 (iree-compile 3.13 has no sm_90 target: "missing GPU
target"; reported as target "sm_90~sm_89").

Output (stable; one line per result, fields separated by a single space, no spaces inside fields):
    RESULT <PASS|FAIL> <spec> <target> <matcher> took_effect=<yes|no|-> differs=<yes|no|-> compiled=<yes|no|-> [reason=<text-with-underscores>]
    CHAIN <PASS|FAIL> <target> matchers=<n> [duplicate=<spec>:<matcher>=<spec>:<matcher>]...
    SUMMARY results=<n> passed=<n> failed=<n> chains=<n> chain_failures=<n>
`-` means not determined (an earlier step failed). <target> is the iree-compile target, or
"<dir>~<stand-in>" for a stand-in. With --json one JSON object is printed instead:
    {"version": 1, "iree_compile": str, "ok": bool,
     "results": [{"spec", "target", "route", "matcher", "took_effect", "differs", "compiled", "ok",
                  "reason", "note", "expected": {"lowering_config", "translation_info"},
                  "actual": {...} | null, "default": {...} | null}],
     "chains": [{"target", "specs", "matchers", "duplicates": [[spec, matcher, spec, matcher]],
                 "ok"}],
     "summary": {"results", "passed", "failed", "chains", "chain_failures"}}
(took_effect/differs/compiled are true, false or null.)

Exit status: 0 every result and chain passed; 1 some failed; 2 usage or environment error
(no such path, no spec found, iree-compile/iree-opt not runnable, unknown target directory).

Options:
    --iree-compile PATH  iree-compile to use (default: target/iree-venv/bin/iree-compile under the
                         repository, else iree-compile on PATH); iree-opt is taken from the same
                         directory unless --iree-opt is given
    --iree-opt PATH      iree-opt to use
    --targets T1,T2      compile targets for every spec (instead of the directory name's)
    --registry FILE      registry manifest for the chain check
    --jobs N             iree-compile processes at once (default 1)
    --route auto|flag|attr  how the spec is given to iree-compile (see 3.; default auto)
    --payload-form named|generic  build every payload contraction as a linalg.generic instead of
                         the named op (default named). IREE folds unit dimensions of a generic
                         before dispatch formation, so a generic M = 1 GEMV reaches the matchers
                         as a 2-loop matvec and a matcher with dims_equal %m, [1] does not fire.
    --keep DIR           keep payloads and configuration outputs in DIR
    --json               print JSON instead of lines
Python 3 standard library only (the chain check needs tomllib, Python >= 3.11).
"""

import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TARGETS = {
    "gfx90a": ["gfx90a"], "gfx942": ["gfx942"], "gfx950": ["gfx950"],
    "gfx1100": ["gfx1100"], "gfx1201": ["gfx1201"],
    "sm_80": ["sm_80"], "sm_86": ["sm_86"], "sm_89": ["sm_89"],
    "gfx9": ["gfx90a", "gfx942", "gfx950"], "rdna": ["gfx1100", "gfx1201"],
    "nvidia": ["sm_80", "sm_89"], "sm_90": ["sm_89"],
}
# directory -> stand-in note: the directory's own target cannot be compiled for by iree-compile 3.13.
STAND_IN = {"sm_90": "sm_89"}


class UsageError(Exception):
    pass


# ---------------------------------------------------------------------------- text helpers

def balanced(text, start):
    """Return the end index (exclusive) of the attribute starting at text[start] ('#...<...>')."""
    i = text.index("<", start)
    depth = 0
    while i < len(text):
        c = text[i]
        if c == "-" and text.startswith("->", i):
            i += 2
            continue
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
            if depth == 0:
                return i + 1
        elif c == '"':
            i = text.index('"', i + 1)
        i += 1
    raise ValueError("unbalanced attribute")


def split_top(text, sep=","):
    """Split at separators outside any brackets."""
    parts, depth, cur, i = [], 0, [], 0
    while i < len(text):
        c = text[i]
        if c == "-" and text.startswith("->", i):
            cur.append("->")
            i += 2
            continue
        if c in "<{[(":
            depth += 1
        elif c in ">}])":
            depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def norm(attr):
    attr = re.sub(r"\s+", " ", attr.strip())
    if attr.startswith("#iree_codegen.translation_info<"):
        attr = attr[len("#iree_codegen.translation_info"):]
    return attr


def parse_compilation_info(text):
    """'#iree_codegen.compilation_info<lowering_config = X, translation_info = Y>' -> (X, Y)."""
    inner = text[text.index("<") + 1:-1]
    fields = {}
    for part in split_top(inner):
        key, _, value = part.partition("=")
        fields[key.strip()] = value.strip()
    return norm(fields.get("lowering_config", "")), norm(fields.get("translation_info", ""))


def parse_map(text):
    """'affine_map<(d0, d1, d2) -> (d0, d2)>' -> (['d0','d1','d2'], ['d0','d2'])."""
    m = re.fullmatch(r"affine_map<\(([^)]*)\)\s*->\s*\(([^)]*)\)>", text.strip())
    if not m:
        raise ValueError(f"unsupported indexing map {text}")
    dims = [d.strip() for d in m.group(1).split(",") if d.strip()]
    res = [r.strip() for r in m.group(2).split(",") if r.strip()]
    for r in res:
        if r not in dims:
            raise ValueError(f"unsupported indexing map expression {r} in {text}")
    return dims, res


# ---------------------------------------------------------------------------- spec parsing

def measured_matchers(path):
    """The names of a spec's matchers that carry a measurement record (tunespec.measurement on
    the named sequence's header line, as tunespec import-tuner and link print it)."""
    text = open(path, encoding="utf-8").read()
    return set(re.findall(r"transform\.named_sequence @([\w$.-]+)\([^\n]*tunespec\.measurement", text))


class Matcher:
    def __init__(self, name):
        self.name = name
        self.error = None
        self.lhs = self.rhs = self.out = None
        self.maps = None
        self.groups = {}
        self.expected = None
        self.action = None

    def key(self):
        return (self.lhs, self.rhs, self.out, tuple(self.maps or ()),
                tuple((g, tuple(v)) for g, v in sorted(self.groups.items())))


def parse_spec(canonical):
    """Parse iree-opt's local-scope print of a spec into (matchers in foreach_match order, error)."""
    seqs, cur = {}, None
    for line in canonical.splitlines():
        m = re.match(r"\s*transform\.named_sequence @([\w$.-]+)\(", line)
        if m:
            cur = m.group(1)
            seqs[cur] = []
            continue
        if cur is not None:
            seqs[cur].append(line)
    entry = seqs.get("__kernel_config")
    if entry is None:
        return [], "no @__kernel_config"
    joined = " ".join(entry)
    at = joined.find("transform.foreach_match")
    pairs = re.findall(r"@([\w$.-]+)\s*->\s*@([\w$.-]+)", joined[at:]) if at >= 0 else []
    if not pairs:
        return [], "@__kernel_config has no foreach_match pairs"
    out = []
    for mname, aname in pairs:
        mt = Matcher(mname)
        mt.action = aname
        out.append(mt)
        body = seqs.get(mname)
        action = seqs.get(aname)
        if body is None:
            mt.error = f"matcher_{mname}_not_found"
            continue
        if action is None or not any('"compilation_info"' in l and "transform.annotate" in l for l in action):
            mt.error = f"action_{aname}_does_not_annotate_compilation_info"
            continue
        text = "\n".join(body)
        if "transform.iree.match.has_no_lowering_config" not in text:
            mt.error = "no_has_no_lowering_config"
            continue
        cm = re.search(r"(%[\w]+), (%[\w]+), (%[\w]+), (%[\w]+) = transform\.iree\.match\.contraction %\w+, "
                       r"lhs_type = ([\w]+), rhs_type = ([\w]+), output_type = ([\w]+), indexing_maps = \[(.*?)\] :", text)
        if not cm:
            kind = re.search(r"transform\.iree\.match\.(\w+)", text.replace("has_no_lowering_config", ""))
            mt.error = "unsupported_matcher_" + (kind.group(1) if kind else "without_iree_contraction")
            continue
        names = [cm.group(i) for i in range(1, 5)]
        mt.lhs, mt.rhs, mt.out = cm.group(5), cm.group(6), cm.group(7)
        maps_text = split_top(cm.group(8))
        try:
            mt.maps = [re.sub(r"\s+", " ", x) for x in maps_text]
            parsed = [parse_map(x) for x in maps_text]
        except ValueError as e:
            mt.error = str(e).replace(" ", "_")
            continue
        values = {}
        for dm in re.finditer(r"transform\.iree\.match\.dims_equal (%[\w]+), \[([^\]]*)\]", text):
            values[dm.group(1)] = [int(v) for v in dm.group(2).split(",") if v.strip()]
        for group, nm in zip(("batch", "m", "n", "k"), names):
            if nm not in values:
                mt.error = f"no_dims_equal_on_{group}"
                break
            mt.groups[group] = values[nm]
        if mt.error:
            continue
        ci = text.find("transform.param.constant #iree_codegen.compilation_info<")
        if ci < 0:
            mt.error = "no_compilation_info_constant"
            continue
        start = text.index("#iree_codegen.compilation_info<", ci)
        mt.expected = parse_compilation_info(text[start:balanced(text, start)])
        mt.parsed_maps = parsed
    return out, None


# ---------------------------------------------------------------------------- payloads

STD = {
    ("(d0,d1,d2)->(d0,d2)", "(d0,d1,d2)->(d2,d1)", "(d0,d1,d2)->(d0,d1)"): "linalg.matmul",
    ("(d0,d1,d2)->(d0,d2)", "(d0,d1,d2)->(d1,d2)", "(d0,d1,d2)->(d0,d1)"): "linalg.matmul_maps",
    ("(d0,d1,d2,d3)->(d0,d1,d3)", "(d0,d1,d2,d3)->(d0,d3,d2)", "(d0,d1,d2,d3)->(d0,d1,d2)"): "linalg.batch_matmul",
}


def is_float(t):
    return t.startswith("f") or t.startswith("bf") or t.startswith("tf")


def payload_function(mt, form_choice="named"):
    """The func a matcher is meant for (raises ValueError if it cannot be derived)."""
    (ldims, lres), (rdims, rres), (odims, ores) = mt.parsed_maps
    L, R, O = set(lres), set(rres), set(ores)
    groups = {
        "batch": sorted(L & R & O, key=ldims.index),
        "m": sorted((L & O) - R, key=ldims.index),
        "n": sorted((R & O) - L, key=ldims.index),
        "k": sorted((L & R) - O, key=ldims.index),
    }
    size = {}
    for g, dims in groups.items():
        vals = mt.groups[g]
        if len(vals) != len(dims):
            raise ValueError(f"dims_equal_on_{g}_has_{len(vals)}_values_for_{len(dims)}_dims")
        size.update(zip(dims, vals))
    if set(size) != set(ldims):
        raise ValueError("a loop dimension is in no contraction group")

    def ty(res, et):
        return "tensor<" + "x".join(str(size[d]) for d in res) + f"x{et}>"
    A, B, C = ty(lres, mt.lhs), ty(rres, mt.rhs), ty(ores, mt.out)
    key = tuple(re.sub(r"\s+|affine_map<|>$", "", m) for m in mt.maps)
    zero = "0.0" if is_float(mt.out) else "0"
    form = STD.get(key) if form_choice == "named" else None
    head = (f"func.func @{mt.name}(%a: {A}, %b: {B}) -> {C} {{\n"
            f"  %z = arith.constant {zero} : {mt.out}\n"
            f"  %e = tensor.empty() : {C}\n"
            f"  %f = linalg.fill ins(%z : {mt.out}) outs(%e : {C}) -> {C}\n")
    if form == "linalg.matmul" or form == "linalg.batch_matmul":
        op = f"  %r = {form} ins(%a, %b : {A}, {B}) outs(%f : {C}) -> {C}\n"
    elif form == "linalg.matmul_maps":
        op = (f"  %r = linalg.matmul indexing_maps = [{', '.join(mt.maps)}] "
              f"ins(%a, %b : {A}, {B}) outs(%f : {C}) -> {C}\n")
    else:
        def ext(v, t):
            if t == mt.out:
                return v, ""
            if is_float(t):
                return f"%{v}e", f"    %{v}e = arith.extf %{v} : {t} to {mt.out}\n"
            return f"%{v}e", f"    %{v}e = arith.extsi %{v} : {t} to {mt.out}\n"
        xa, xs = ext("x", mt.lhs)
        ya, ys = ext("y", mt.rhs)
        xa = xa if xs else "%x"
        ya = ya if ys else "%y"
        mul, add = ("arith.mulf", "arith.addf") if is_float(mt.out) else ("arith.muli", "arith.addi")
        iters = ", ".join('"reduction"' if d in groups["k"] else '"parallel"' for d in ldims)
        op = (f"  %r = linalg.generic {{indexing_maps = [{', '.join(mt.maps)}], iterator_types = [{iters}]}} "
              f"ins(%a, %b : {A}, {B}) outs(%f : {C}) {{\n"
              f"  ^bb0(%x: {mt.lhs}, %y: {mt.rhs}, %acc: {mt.out}):\n{xs}{ys}"
              f"    %p = {mul} {xa}, {ya} : {mt.out}\n"
              f"    %s = {add} %acc, %p : {mt.out}\n"
              f"    linalg.yield %s : {mt.out}\n  }} -> {C}\n")
    return head + op + f"  return %r : {C}\n}}\n"


# ---------------------------------------------------------------------------- iree-compile

def device_flags(target):
    if target.startswith("sm_"):
        return ["--iree-hal-target-device=cuda", f"--iree-cuda-target={target}"]
    return ["--iree-hal-target-device=hip", f"--iree-rocm-target={target}"]


# A compile takes seconds; iree-compile has been seen to deadlock at start-up (all threads in a
# futex, no CPU time). A run past this limit is killed and tried once more: a hang is the tool's
# flake, never a verdict on the spec.
COMPILE_TIMEOUT_S = 300


def run(cmd):
    for attempt in range(2):
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
            return r.returncode, r.stderr
        except subprocess.TimeoutExpired:
            print(f"note: {cmd[0]} timed out after {COMPILE_TIMEOUT_S} s (attempt {attempt + 1}), "
                  "killed", file=sys.stderr)
    raise SystemExit(f"{' '.join(cmd)}: timed out twice after {COMPILE_TIMEOUT_S} s")


def first_error(stderr):
    for line in stderr.splitlines():
        if "error:" in line:
            msg = line.split("error:", 1)[1].strip()
            return re.sub(r"\s+", "_", msg)[:200]
    return "exit_status_nonzero"


def dispatch_configs(text):
    """{function name: [(lowering_config, translation_info)]} from an executable-configurations print."""
    found = {}
    for m in re.finditer(r"func\.func @(\w+)\(\)[^\n]*?attributes \{translation_info = ", text):
        start = m.end()
        end = balanced(text, start)
        ti = norm(text[start:end])
        stop = text.find("func.func @", end)
        body = text[end:stop if stop >= 0 else len(text)]
        lcs = []
        for lm in re.finditer(r"lowering_config = #", body):
            s = lm.start() + len("lowering_config = ")
            lcs.append(norm(body[s:balanced(body, s)]))
        found[m.group(1)] = [(lc, ti) for lc in lcs] or [(None, ti)]
    return found


def host_dispatches(text):
    """{payload function: [dispatch function names]} from the host code of a configurations print
    (IREE deduplicates identical dispatches, so one payload function may use another's)."""
    out = {}
    starts = [(m.start(), m.group(1)) for m in re.finditer(r"util\.func public @([\w$.-]+)\(", text)]
    for i, (pos, name) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        out[name] = re.findall(r"dispatch @[\w$.-]+::@[\w$.-]+::@([\w$.-]+)", text[pos:end])
    return out


def configs_for(found, matcher, hosts=None):
    names = (hosts or {}).get(matcher)
    if names is None:
        names = [f for f in found if f.startswith(matcher + "_dispatch_")]
    out = []
    for fname in names:
        out += found.get(fname, [])
    return out


# ---------------------------------------------------------------------------- main check

def route_for(target, route):
    if route != "auto":
        return route
    # iree-compile 3.13 threads --iree-codegen-tuning-spec-path only into the ROCm target's
    # configuration pipeline: on CUDA the flag is silently ignored, so the spec is attached to
    # the payload module as iree_codegen.tuning_spec_mlirbc instead (as `tunespec attach` does).
    return "attr" if target.startswith("sm_") else "flag"


def check_spec_target(spec, matchers, target, label, ic, io, workdir, jobs, route):
    """Results for one spec on one compile target."""
    good = [m for m in matchers if m.error is None and getattr(m, "function", None)]
    base = os.path.join(workdir, re.sub(r"[^\w.-]", "_", spec) + "." + target)
    payload = base + ".payload.mlir"
    with open(payload, "w") as f:
        f.write("".join(m.function for m in good))
    results = []
    if not good:
        return [dict(matcher=m.name, took_effect=None, differs=None, compiled=None,
                     reason=m.error, actual=None, default=None, expected=m.expected) for m in matchers]
    dev = device_flags(target)
    route = route_for(target, route)
    if route == "attr":
        rc, err = run([io, "--emit-bytecode", spec, "-o", base + ".spec.mlirbc"])
        if rc != 0:
            return [dict(matcher=m.name, took_effect=None, differs=None, compiled=None,
                         reason="iree-opt_cannot_write_bytecode:" + first_error(err), actual=None,
                         default=None, expected=m.expected) for m in matchers]
        blob = open(base + ".spec.mlirbc", "rb").read()
        attr = f'iree_codegen.tuning_spec_mlirbc = dense<"0x{blob.hex().upper()}"> : vector<{len(blob)}xi8>'

        def attached(text, path):
            with open(path, "w") as f:
                f.write(f"module attributes {{{attr}}} {{\n{text}}}\n")
            return path
        with_payload = attached("".join(m.function for m in good), base + ".attached.mlir")
        spec_flags = []
    else:
        def attached(text, path):
            with open(path, "w") as f:
                f.write(text)
            return path
        with_payload = payload
        spec_flags = [f"--iree-codegen-tuning-spec-path={spec}"]
    cmds = {
        "with": [ic, with_payload, *dev, *spec_flags,
                 "--compile-to=executable-configurations", "--mlir-print-local-scope", "-o", base + ".with.mlir"],
        "without": [ic, payload, *dev, "--compile-to=executable-configurations",
                    "--mlir-print-local-scope", "-o", base + ".without.mlir"],
        "full": [ic, with_payload, *dev, *spec_flags, "-o", os.devnull],
    }
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as ex:
        outs = dict(zip(cmds, ex.map(run, cmds.values())))
    with_cfg = without_cfg = None
    with_hosts = without_hosts = {}
    without_alone = {}
    if outs["with"][0] == 0:
        text = open(base + ".with.mlir").read()
        with_cfg, with_hosts = dispatch_configs(text), host_dispatches(text)
    if outs["without"][0] == 0:
        text = open(base + ".without.mlir").read()
        without_cfg, without_hosts = dispatch_configs(text), host_dispatches(text)
    else:
        # IREE itself failed to configure some function without the spec: find which, alone.
        def alone_without(m):
            p = base + "." + m.name + ".without.payload.mlir"
            with open(p, "w") as f:
                f.write(m.function)
            out = base + "." + m.name + ".without.mlir"
            rc, err = run([ic, p, *dev, "--compile-to=executable-configurations", "--mlir-print-local-scope", "-o", out])
            return m.name, (dispatch_configs(open(out).read()) if rc == 0 else first_error(err))
        with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as ex:
            without_alone = dict(ex.map(alone_without, good))
    compiled = {}
    if outs["full"][0] == 0:
        compiled = {m.name: (True, None) for m in good}
    else:
        def alone(m):
            p = attached(m.function, base + "." + m.name + ".mlir")
            rc, err = run([ic, p, *dev, *spec_flags, "-o", os.devnull])
            return m.name, (rc == 0, None if rc == 0 else first_error(err))
        with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as ex:
            compiled = dict(ex.map(alone, good))
    for m in matchers:
        if m.error is not None or m not in good:
            results.append(dict(matcher=m.name, took_effect=None, differs=None, compiled=None,
                                reason=m.error, actual=None, default=None, expected=m.expected))
            continue
        reason = None
        took = differs = None
        actual = default = None
        if with_cfg is None:
            reason = "configuration_failed:" + first_error(outs["with"][1])
        else:
            pairs = configs_for(with_cfg, m.name, with_hosts)
            took = m.expected in pairs
            actual = m.expected if took else (next((p for p in pairs if p[0]), pairs[0]) if pairs else None)
            if not pairs:
                reason = "no_dispatch_for_function"
            elif not took:
                reason = "config_not_applied"
        note = None
        wc = without_cfg if without_cfg is not None else without_alone.get(m.name)
        if isinstance(wc, dict):
            dpairs = configs_for(wc, m.name, without_hosts if without_cfg is not None else None)
            default = next((p for p in dpairs if p[0]), dpairs[0]) if dpairs else None
            differs = m.expected not in dpairs
            if not differs and reason is None:
                reason = "same_config_without_the_spec"
        elif isinstance(wc, str):
            # Without the spec iree-compile cannot configure this function at all.
            differs = True
            note = "iree-compile fails to configure it without the spec: " + wc
        elif reason is None:
            reason = "configuration_without_spec_failed:" + first_error(outs["without"][1])
        ok_c, err_c = compiled.get(m.name, (None, None))
        if ok_c is False and reason is None:
            reason = "full_compile_failed:" + (err_c or "")
        results.append(dict(matcher=m.name, took_effect=took, differs=differs, compiled=ok_c,
                            reason=reason, actual=actual, default=default, expected=m.expected, note=note))
    return results


def find_tools(args):
    here = os.path.dirname(os.path.abspath(__file__))
    ic = args.iree_compile
    if ic is None:
        cand = os.path.join(os.path.dirname(here), "target", "iree-venv", "bin", "iree-compile")
        ic = cand if os.path.exists(cand) else shutil.which("iree-compile")
    if not ic or not os.access(ic, os.X_OK):
        raise UsageError(f"iree-compile not found or not executable: {ic}")
    io = args.iree_opt or os.path.join(os.path.dirname(ic), "iree-opt")
    if not os.access(io, os.X_OK):
        io = shutil.which("iree-opt")
    if not io:
        raise UsageError("iree-opt not found (give --iree-opt)")
    return ic, io


def collect(paths):
    specs, roots = [], []
    for p in paths:
        if os.path.isdir(p):
            roots.append(p)
            specs += sorted(glob.glob(os.path.join(p, "**", "*.mlir"), recursive=True))
        elif os.path.isfile(p):
            specs.append(p)
        else:
            raise UsageError(f"no such file or directory: {p}")
    if not specs:
        raise UsageError("no spec (.mlir) found")
    return specs, roots


def chains_from_registry(registry, root):
    try:
        import tomllib
    except ImportError:
        raise UsageError("the chain check needs Python >= 3.11 (tomllib)")
    with open(registry, "rb") as f:
        data = tomllib.load(f)
    base = root or os.path.dirname(os.path.abspath(registry))
    targets = data.get("targets", {})
    chains = []
    for name, t in targets.items():
        chain, seen, cur = [], set(), name
        while cur and cur not in seen and cur in targets:
            seen.add(cur)
            for entry in targets[cur].get("specs", []):
                pattern = entry if isinstance(entry, str) else entry.get("path", "")
                chain += sorted(glob.glob(os.path.join(base, pattern)))
            cur = targets[cur].get("fallback")
        if chain:
            chains.append((name, chain))
    return chains


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], add_help=True)
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--iree-compile")
    ap.add_argument("--iree-opt")
    ap.add_argument("--targets")
    ap.add_argument("--registry")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--route", choices=["auto", "flag", "attr"], default="auto")
    ap.add_argument("--payload-form", choices=["named", "generic"], default="named")
    ap.add_argument("--keep")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    try:
        ic, io = find_tools(args)
        specs, roots = collect(args.paths)
        registry = args.registry
        if registry is None:
            for r in roots:
                if os.path.isfile(os.path.join(r, "registry.toml")):
                    registry = os.path.join(r, "registry.toml")
                    break
        plan = []
        for spec in specs:
            d = os.path.basename(os.path.dirname(os.path.abspath(spec)))
            if args.targets:
                tl = [t.strip() for t in args.targets.split(",") if t.strip()]
                labels = tl
            elif d in TARGETS:
                tl = TARGETS[d]
                labels = [f"{d}~{t}" if d in STAND_IN else t for t in tl]
            else:
                raise UsageError(f"{spec}: unknown target directory '{d}' (give --targets)")
            plan.append((spec, list(zip(tl, labels))))
        chains = chains_from_registry(registry, roots[0] if roots else None) if registry else []
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    workdir = args.keep or tempfile.mkdtemp(prefix="check-default-configs.")
    os.makedirs(workdir, exist_ok=True)
    parsed = {}

    def load(spec):
        if spec in parsed:
            return parsed[spec]
        rc, err = run([io, "--mlir-print-local-scope", spec, "-o", os.path.join(workdir, "canonical.mlir")])
        if rc != 0:
            parsed[spec] = ([], "iree-opt_rejects_the_spec:" + first_error(err))
        else:
            matchers, error = parse_spec(open(os.path.join(workdir, "canonical.mlir")).read())
            for m in matchers:
                if m.error is None:
                    try:
                        m.function = payload_function(m, args.payload_form)
                    except (ValueError, KeyError) as e:
                        m.error = "cannot_derive_payload:" + re.sub(r"\s+", "_", str(e))
            parsed[spec] = (matchers, error and error.replace(" ", "_"))
        return parsed[spec]

    results = []
    for spec, targets in plan:
        matchers, error = load(spec)
        for target, label in targets:
            if error or not matchers:
                results.append(dict(spec=spec, target=label, route=route_for(target, args.route), matcher="-",
                                    took_effect=None, differs=None,
                                    compiled=None, reason=error or "no_matchers", actual=None, default=None,
                                    expected=None))
                continue
            for r in check_spec_target(spec, matchers, target, label, ic, io, workdir, args.jobs, args.route):
                r["spec"], r["target"], r["route"] = spec, label, route_for(target, args.route)
                results.append(r)
    for r in results:
        r["ok"] = bool(r["took_effect"] and r["differs"] and r["compiled"] and not r["reason"])
    chain_out = []
    for name, files in chains:
        seen, dups, count = {}, [], 0
        for f in files:
            matchers, _ = load(f)
            measured = measured_matchers(f)
            for m in matchers:
                if m.error is not None:
                    continue
                count += 1
                k = m.key()
                if k in seen and seen[k][2] and m.name not in measured:
                    # Measured first: a measured matcher covering a derived one of the same ops
                    # (sm_90's H100 configs) is by design; tunespec link notes it.
                    continue
                if k in seen:
                    dups.append([seen[k][0], seen[k][1], f, m.name])
                else:
                    seen[k] = (f, m.name, m.name in measured)
        chain_out.append(dict(target=name, specs=files, matchers=count, duplicates=dups, ok=not dups))
    summary = dict(results=len(results), passed=sum(r["ok"] for r in results),
                   failed=sum(not r["ok"] for r in results), chains=len(chain_out),
                   chain_failures=sum(not c["ok"] for c in chain_out))
    ok = summary["failed"] == 0 and summary["chain_failures"] == 0
    if args.json:
        def pair(p):
            return None if p is None else dict(lowering_config=p[0], translation_info=p[1])
        out = dict(version=1, iree_compile=ic, ok=ok, results=[
            dict(spec=r["spec"], target=r["target"], route=r["route"], matcher=r["matcher"],
                 took_effect=r["took_effect"],
                 differs=r["differs"], compiled=r["compiled"], ok=r["ok"], reason=r["reason"],
                 expected=pair(r["expected"]), actual=pair(r["actual"]), default=pair(r["default"]),
                 note=r.get("note"))
            for r in results], chains=chain_out, summary=summary)
        print(json.dumps(out, indent=1))
    else:
        yn = {True: "yes", False: "no", None: "-"}
        for r in results:
            line = (f"RESULT {'PASS' if r['ok'] else 'FAIL'} {r['spec']} {r['target']} {r['matcher']} "
                    f"took_effect={yn[r['took_effect']]} differs={yn[r['differs']]} compiled={yn[r['compiled']]}")
            if r["reason"]:
                line += " reason=" + re.sub(r"\s+", "_", r["reason"])
            print(line)
        for c in chain_out:
            line = f"CHAIN {'PASS' if c['ok'] else 'FAIL'} {c['target']} matchers={c['matchers']}"
            for d in c["duplicates"]:
                line += f" duplicate={d[0]}:{d[1]}={d[2]}:{d[3]}"
            print(line)
        print("SUMMARY " + " ".join(f"{k}={v}" for k, v in summary.items()))
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
