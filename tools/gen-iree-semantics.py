#!/usr/bin/env python3
"""Generate a random IREE-form tuning spec and a payload for differential testing of
`tunespec apply` against IREE's materialization (iree-opt 3.13).

    tools/gen-iree-semantics.py --seed S --out DIR [--ops N] [--matchers K] [--tuner-form]

Writes DIR/spec.mlir and DIR/payload.mlir. The payload has N functions with one root op each,
drawn from the op forms IREE's matchers see: named and generic contractions in many layouts
(A*B, A*B^T, A^T*B, batched, several M or K dimensions, matrix-vector), element types from f8
to f32 and i8 (with and without widening), dynamic dimensions, ops that already carry a
lowering_config, convolutions (NHWC, NCHW, depthwise; strides and dilations), attention and
online attention in generic form, and ops no matcher should take (fills, elementwise).

The spec has K matchers in IREE's tuner form, each aimed at a randomly chosen payload op and
then perturbed: contraction / convolution / attention with that op's element types or others,
indexing_maps sometimes (right or wrong), dims_equal on each result with the op's sizes, -1
wildcards, wrong sizes or several values, has_no_lowering_config, dim_is_multiple_of and
dim_bounds on an operand, operation_name. Each matcher's config has distinct workgroup tiles
([i+1, 0, 0]) so the materialized payload says which matcher configured which op.

Deterministic for given arguments. Standard library only.
"""
import argparse
import os
import random

TYPES = [
    ("f16", "f16", "f32"),
    ("bf16", "bf16", "f32"),
    ("f32", "f32", "f32"),
    ("i8", "i8", "i32"),
    ("f16", "f16", "f16"),
    ("f8E4M3FNUZ", "f8E4M3FNUZ", "f32"),
]

# name -> (number of loops, lhs dims, rhs dims, out dims, iterator kinds)
LAYOUTS = {
    "mm": (3, [0, 2], [2, 1], [0, 1], "ppr"),
    "mmt": (3, [0, 2], [1, 2], [0, 1], "ppr"),
    "mtm": (3, [2, 0], [2, 1], [0, 1], "ppr"),
    "bmm": (4, [0, 1, 3], [0, 3, 2], [0, 1, 2], "pppr"),
    "bmmt": (4, [0, 1, 3], [0, 2, 3], [0, 1, 2], "pppr"),
    "multi_m": (4, [0, 1, 3], [2, 3], [0, 1, 2], "pppr"),
    "multi_k": (4, [0, 2, 3], [1, 2, 3], [0, 1], "pprr"),
    "matvec": (2, [0, 1], [1], [0], "pr"),
    "vecmat": (2, [1], [1, 0], [0], "pr"),
}


def is_int(t):
    return t.startswith("i")


def tensor(shape, elem):
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def amap(n, dims):
    names = ", ".join(f"d{i}" for i in range(n))
    res = ", ".join(f"d{i}" for i in dims)
    return f"affine_map<({names}) -> ({res})>"


def body(lt, rt, ot):
    lines = []
    a, b = "%a", "%b"
    if lt != ot:
        op = "arith.extsi" if is_int(ot) else "arith.extf"
        lines.append(f"      %ae = {op} %a : {lt} to {ot}")
        a = "%ae"
    if rt != ot:
        op = "arith.extsi" if is_int(ot) else "arith.extf"
        lines.append(f"      %be = {op} %b : {rt} to {ot}")
        b = "%be"
    mul, add = ("arith.muli", "arith.addi") if is_int(ot) else ("arith.mulf", "arith.addf")
    lines.append(f"      %p = {mul} {a}, {b} : {ot}")
    lines.append(f"      %s = {add} %c, %p : {ot}")
    lines.append(f"      linalg.yield %s : {ot}")
    return "\n".join(lines)


def contraction(rng, name, layout, types, named, configured, dynamic):
    n, ld, rd, od, iters = LAYOUTS[layout]
    sizes = [rng.choice([1, 2, 3, 4, 8, 16, 48, 64, 100, 128, 256, 512, 1024, 4096]) for _ in range(n)]
    lt, rt, ot = types
    dyn = set()
    if dynamic:
        dyn.add(ld[0])

    def shape(dims):
        return ["?" if d in dyn else sizes[d] for d in dims]

    lty, rty, oty = tensor(shape(ld), lt), tensor(shape(rd), rt), tensor(shape(od), ot)
    maps = [amap(n, ld), amap(n, rd), amap(n, od)]
    sig = f"func.func @{name}(%lhs: {lty}, %rhs: {rty}, %acc: {oty}) -> {oty}"
    named_op = {"mm": "linalg.matmul", "bmm": "linalg.batch_matmul", "matvec": "linalg.matvec", "vecmat": "linalg.vecmat"}
    if named and not configured and (layout in named_op or layout == "mmt"):
        if layout == "mmt":
            op = f"linalg.matmul indexing_maps = [{', '.join(maps)}] ins(%lhs, %rhs : {lty}, {rty}) outs(%acc : {oty}) -> {oty}"
        else:
            op = f"{named_op[layout]} ins(%lhs, %rhs : {lty}, {rty}) outs(%acc : {oty}) -> {oty}"
        text = f"  {sig} {{\n    %r = {op}\n    return %r : {oty}\n  }}\n"
    else:
        kinds = ", ".join('"parallel"' if c == "p" else '"reduction"' for c in iters)
        extra = ""
        if configured:
            extra = ", lowering_config = #iree_gpu.lowering_config<{workgroup = [7, 7, 0], reduction = [0, 0, 7]}>"
        text = (
            f"  {sig} {{\n"
            f"    %r = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{kinds}]{extra}}} "
            f"ins(%lhs, %rhs : {lty}, {rty}) outs(%acc : {oty}) {{\n"
            f"    ^bb0(%a: {lt}, %b: {rt}, %c: {ot}):\n{body(lt, rt, ot)}\n"
            f"    }} -> {oty}\n    return %r : {oty}\n  }}\n"
        )
    # IREE's contraction dims: batch = in lhs, rhs and out; m = lhs and out; n = rhs and out;
    # k = lhs and rhs (reduction).
    batch = [d for d in range(n) if d in ld and d in rd and d in od]
    m = [d for d in range(n) if d in ld and d not in rd and d in od]
    nn = [d for d in range(n) if d not in ld and d in rd and d in od]
    k = [d for d in range(n) if d in ld and d in rd and d not in od]
    dims = {r: [("?" if d in dyn else sizes[d]) for d in ds] for r, ds in
            (("batch", batch), ("m", m), ("n", nn), ("k", k))}
    return text, {"kind": "contraction", "types": types, "dims": dims, "maps": maps,
                  "operands": [shape(ld), shape(rd), shape(od)], "optypes": [lty, rty, oty]}


def convolution(rng, name, form, types):
    lt, rt, ot = types
    nb = rng.choice([1, 2])
    oh, ow = rng.choice([4, 8, 16]), rng.choice([4, 8, 16])
    kh, kw = rng.choice([1, 3]), rng.choice([1, 3])
    s = rng.choice([1, 2])
    d = rng.choice([1, 2])
    ih, iw = (oh - 1) * s + (kh - 1) * d + 1, (ow - 1) * s + (kw - 1) * d + 1
    c, f = rng.choice([4, 16, 64]), rng.choice([8, 32, 128])
    attrs = f"{{dilations = dense<{d}> : tensor<2xi64>, strides = dense<{s}> : tensor<2xi64>}}"
    if form == "nhwc":
        shapes = ([nb, ih, iw, c], [kh, kw, c, f], [nb, oh, ow, f])
        opname = "linalg.conv_2d_nhwc_hwcf"
        dims = {"batch": [nb], "outputImage": [oh, ow], "outputChannel": [f], "filterLoop": [kh, kw],
                "inputChannel": [c], "depth": [], "strides": [s, s], "dilations": [d, d]}
    elif form == "nchw":
        shapes = ([nb, c, ih, iw], [f, c, kh, kw], [nb, f, oh, ow])
        opname = "linalg.conv_2d_nchw_fchw"
        dims = {"batch": [nb], "outputImage": [oh, ow], "outputChannel": [f], "filterLoop": [kh, kw],
                "inputChannel": [c], "depth": [], "strides": [s, s], "dilations": [d, d]}
    else:
        shapes = ([nb, ih, iw, c], [kh, kw, c], [nb, oh, ow, c])
        opname = "linalg.depthwise_conv_2d_nhwc_hwc"
        dims = {"batch": [nb], "outputImage": [oh, ow], "outputChannel": [], "filterLoop": [kh, kw],
                "inputChannel": [], "depth": [c], "strides": [s, s], "dilations": [d, d]}
    lty, rty, oty = tensor(shapes[0], lt), tensor(shapes[1], rt), tensor(shapes[2], ot)
    text = (
        f"  func.func @{name}(%lhs: {lty}, %rhs: {rty}, %acc: {oty}) -> {oty} {{\n"
        f"    %r = {opname} {attrs} ins(%lhs, %rhs : {lty}, {rty}) outs(%acc : {oty}) -> {oty}\n"
        f"    return %r : {oty}\n  }}\n"
    )
    return text, {"kind": "convolution", "types": types, "dims": dims, "maps": None,
                  "operands": [shapes[0], shapes[1], shapes[2]], "optypes": [lty, rty, oty]}


ATT_MAPS = [
    "affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>",
    "affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2)>",
    "affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>",
    "affine_map<(d0, d1, d2, d3, d4) -> ()>",
    "affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>",
]
ATT_MAPS_ONLINE = ATT_MAPS + ["affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>"] * 2


def attention(rng, name, online, elem, dynamic):
    b, m, k1, k2, n = (rng.choice([1, 2, 4]), rng.choice([64, 128]), rng.choice([32, 64]),
                       rng.choice([128, 256]), rng.choice([32, 64]))
    bs = "?" if dynamic else b
    q, kk, v = tensor([bs, m, k1], elem), tensor([bs, k2, k1], elem), tensor([bs, k2, n], elem)
    dims = {"batch": [bs], "m": [m], "n": [n], "k1": [k1], "k2": [k2]}
    if online:
        ot = "f32"
        o, mx = tensor([bs, m, n], ot), tensor([bs, m], ot)
        text = (
            f"  func.func @{name}(%q: {q}, %k: {kk}, %v: {v}, %s: {elem}, %o: {o}, %mx: {mx}, %sm: {mx}) -> {o} {{\n"
            f"    %r:3 = \"iree_linalg_ext.online_attention\"(%q, %k, %v, %s, %o, %mx, %sm) <{{indexing_maps = [{', '.join(ATT_MAPS_ONLINE)}]}}> ({{\n"
            f"    ^bb0(%x: f32):\n      \"iree_linalg_ext.yield\"(%x) : (f32) -> ()\n"
            f"    }}) : ({q}, {kk}, {v}, {elem}, {o}, {mx}, {mx}) -> ({o}, {mx}, {mx})\n"
            f"    return %r#0 : {o}\n  }}\n"
        )
        types = {"query": elem, "key": elem, "value": elem, "scale": elem, "output": ot, "max": ot, "sum": ot}
        maps = ATT_MAPS_ONLINE
    else:
        o = tensor([bs, m, n], elem)
        text = (
            f"  func.func @{name}(%q: {q}, %k: {kk}, %v: {v}, %s: {elem}, %o: {o}) -> {o} {{\n"
            f"    %r = \"iree_linalg_ext.attention\"(%q, %k, %v, %s, %o) <{{indexing_maps = [{', '.join(ATT_MAPS)}]}}> ({{\n"
            f"    ^bb0(%x: f32):\n      \"iree_linalg_ext.yield\"(%x) : (f32) -> ()\n"
            f"    }}) : ({q}, {kk}, {v}, {elem}, {o}) -> {o}\n"
            f"    return %r : {o}\n  }}\n"
        )
        types = {"query": elem, "key": elem, "value": elem, "output": elem}
        maps = ATT_MAPS
    return text, {"kind": "online_attention" if online else "attention", "types": types,
                  "dims": dims, "maps": maps, "operands": [[bs, m, k1]], "optypes": [q, kk, v]}


def other(rng, name):
    if rng.random() < 0.5:
        t = tensor([64, 64], "f32")
        text = (f"  func.func @{name}(%x: {t}) -> {t} {{\n    %c = arith.constant 0.0 : f32\n"
                f"    %r = linalg.fill ins(%c : f32) outs(%x : {t}) -> {t}\n    return %r : {t}\n  }}\n")
        return text, {"kind": "fill", "types": None, "dims": {}, "maps": None, "operands": [[]],
                      "optypes": ["f32", t]}
    t = tensor([128, 256], "f16")
    text = (f"  func.func @{name}(%x: {t}, %y: {t}) -> {t} {{\n"
            f"    %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], "
            f"iterator_types = [\"parallel\", \"parallel\"]}} ins(%x : {t}) outs(%y : {t}) {{\n"
            f"    ^bb0(%a: f16, %b: f16):\n      %e = math.exp %a : f16\n      linalg.yield %e : f16\n"
            f"    }} -> {t}\n    return %r : {t}\n  }}\n")
    return text, {"kind": "elementwise", "types": None, "dims": {}, "maps": None, "operands": [[128, 256]],
                  "optypes": [t, t]}


def payload_op(rng, i, dynamic=True):
    name = f"f{i}"
    r = rng.random()
    if r < 0.55:
        layout = rng.choice(list(LAYOUTS))
        return contraction(rng, name, layout, rng.choice(TYPES), rng.random() < 0.4,
                           rng.random() < 0.1, dynamic and rng.random() < 0.15)
    if r < 0.75:
        types = rng.choice([t for t in TYPES if not t[0].startswith("f8")])
        return convolution(rng, name, rng.choice(["nhwc", "nchw", "depthwise"]), types)
    if r < 0.9:
        return attention(rng, name, rng.random() < 0.3, rng.choice(["f16", "bf16", "f32"]),
                         dynamic and rng.random() < 0.2)
    return other(rng, name)


def dims_list(rng, values):
    """Values for dims_equal aimed at `values` (the op's sizes, `?` for dynamic)."""
    r = rng.random()
    out = []
    for v in values:
        if v == "?":
            out.append(rng.choice([-1, -1, 64, 128]))
        elif rng.random() < 0.15:
            out.append(-1)
        else:
            out.append(v)
    if r < 0.12 and out:
        j = rng.randrange(len(out))
        out[j] = out[j] * 2 if out[j] > 0 else 3
    elif r < 0.17:
        out.append(rng.choice([1, 64]))
    elif r < 0.2 and out:
        out.pop()
    return out


def matcher(rng, i, target, ops, operand_checks):
    lines = []
    args = "%op: !transform.any_op {transform.readonly}"
    kind = target["kind"]
    if kind in ("fill", "elementwise") or rng.random() < 0.1:
        kind = rng.choice(["contraction", "convolution", "attention"])
    if rng.random() < 0.3:
        lines.append("    transform.iree.match.has_no_lowering_config %op : !transform.any_op")
    if rng.random() < 0.15:
        names = rng.choice([["linalg.generic"], ["linalg.matmul"], ["linalg.generic", "linalg.matmul"],
                            ["linalg.conv_2d_nhwc_hwcf"], ["iree_linalg_ext.attention"]])
        quoted = ", ".join(f'"{n}"' for n in names)
        lines.append(f"    transform.match.operation_name %op [{quoted}] : !transform.any_op")
    param = rng.choice(["!transform.param<i64>", "!transform.any_param"])
    same_kind = target["kind"] == kind or (kind == "attention" and target["kind"] == "online_attention")
    if kind == "contraction":
        types = target["types"] if same_kind and rng.random() < 0.8 else rng.choice(TYPES)
        maps = ""
        if rng.random() < 0.3:
            if same_kind and rng.random() < 0.7:
                chosen = target["maps"]
            else:
                n, ld, rd, od, _ = LAYOUTS[rng.choice(list(LAYOUTS))]
                chosen = [amap(n, ld), amap(n, rd), amap(n, od)]
            maps = f", indexing_maps = [{', '.join(chosen)}]"
        lines.append(f"    %batch, %m, %n, %k = transform.iree.match.contraction %op, lhs_type = {types[0]}, "
                     f"rhs_type = {types[1]}, output_type = {types[2]}{maps} : !transform.any_op -> {param}")
        results = ["batch", "m", "n", "k"]
        target_dims = target["dims"] if target["kind"] == "contraction" else {}
    elif kind == "convolution":
        types = target["types"] if same_kind and rng.random() < 0.8 else rng.choice(TYPES)
        results = ["batch", "outputImage", "outputChannel", "filterLoop", "inputChannel", "depth", "strides", "dilations"]
        lines.append(f"    %{', %'.join(results)} = transform.iree.match.convolution %op, lhs_type = {types[0]}, "
                     f"rhs_type = {types[1]}, output_type = {types[2]} : !transform.any_op -> {param}")
        target_dims = target["dims"] if target["kind"] == "convolution" else {}
    else:
        online = target["kind"] == "online_attention" if rng.random() < 0.85 else rng.random() < 0.5
        if same_kind and (target["kind"] == "online_attention") == online and rng.random() < 0.85:
            t = target["types"]
        else:
            e = rng.choice(["f16", "bf16", "f32"])
            t = {"query": e, "key": e, "value": e, "scale": e, "output": "f32" if online else e, "max": "f32", "sum": "f32"}
        results = ["batch", "m", "n", "k1", "k2"]
        if online:
            maps = ATT_MAPS_ONLINE
            lines.append(f"    %{', %'.join(results)} = transform.iree.match.online_attention %op, query_type = {t['query']}, "
                         f"key_type = {t['key']}, value_type = {t['value']}, scale_type = {t['scale']}, output_type = {t['output']}, "
                         f"max_type = {t['max']}, sum_type = {t['sum']}, indexing_maps = [{', '.join(maps)}] : !transform.any_op -> {param}")
        else:
            maps = ATT_MAPS
            lines.append(f"    %{', %'.join(results)} = transform.iree.match.attention %op, query_type = {t['query']}, "
                         f"key_type = {t['key']}, value_type = {t['value']}, output_type = {t['output']}, "
                         f"indexing_maps = [{', '.join(maps)}] : !transform.any_op -> {param}")
        target_dims = target["dims"] if target["kind"] in ("attention", "online_attention") else {}
    for r in results:
        if rng.random() < 0.6:
            values = dims_list(rng, target_dims.get(r, [rng.choice([1, 64])]))
            lines.append(f"    transform.iree.match.dims_equal %{r}, [{', '.join(str(v) for v in values)}] : {param}")
    if not operand_checks and rng.random() < 0.3:
        # What the native matcher reads: get_operand + cast_compatible_type / dim_is_multiple_of.
        k = rng.randrange(2)
        optype = target["optypes"][k]
        lines.append(f"    %v = transform.get_operand %op[{k}] : (!transform.any_op) -> !transform.any_value")
        if optype.startswith("tensor<"):
            dims = optype[len("tensor<"):-1].split("x")
            elem = dims.pop()
            if rng.random() < 0.6:
                wanted = ["?" if rng.random() < 0.4 else d for d in dims]
                if rng.random() < 0.2:
                    elem = rng.choice(["f16", "bf16", "f32", "i8"])
                if rng.random() < 0.1:
                    wanted.append("4")
                lines.append(f"    transform.iree.match.cast_compatible_type %v = tensor<{''.join(d + 'x' for d in wanted)}{elem}> : !transform.any_value")
            if dims and rng.random() < 0.6:
                d = rng.randrange(len(dims) + 1)
                lines.append(f"    transform.iree.match.dim_is_multiple_of %v[{d}], {rng.choice([1, 2, 3, 16, 64, 128])} : !transform.any_value")
        else:
            lines.append(f"    transform.iree.match.cast_compatible_type %v = {rng.choice([optype, 'f16', 'i32'])} : !transform.any_value")
    if operand_checks and rng.random() < 0.25:
        shape = target["operands"][0]
        lines.append("    %lhs = transform.get_operand %op[0] : (!transform.any_op) -> !transform.any_value")
        if shape:
            d = rng.randrange(len(shape))
            if rng.random() < 0.5:
                lines.append(f"    transform.iree.match.dim_is_multiple_of %lhs[{d}], {rng.choice([1, 2, 3, 16, 64])} : !transform.any_value")
            else:
                v = shape[d] if shape[d] != "?" else 64
                lo = rng.choice(["none", f"umin = {max(0, v - 1)}", f"umin = {v + 1}", f"umin = {v}"])
                hi = rng.choice(["none", f"umax = {v}", f"umax = {max(0, v - 1)}", f"umax = {v * 4}"])
                lines.append(f"    transform.iree.match.dim_bounds %lhs[{d}], {lo}, {hi} : !transform.any_value")
    config = (f"#iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{{workgroup = [{i + 1}, 0, 0]}}>, "
              f"translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> "
              f"workgroup_size = [64, 1, 1] subgroup_size = 64>>")
    lines.append(f"    %config = transform.param.constant {config} -> !transform.any_param")
    if rng.random() < 0.3:
        # Two parameters, for the action that annotates three attributes (one a unit).
        lines.append(f"    %extra = transform.param.constant {{tag = {i} : i64}} -> !transform.any_param")
        lines.append("    transform.yield %op, %config, %extra : !transform.any_op, !transform.any_param, !transform.any_param")
        return (f"  transform.named_sequence @match_{i}({args}) -> (!transform.any_op, !transform.any_param, !transform.any_param) {{\n"
                + "\n".join(lines) + "\n  }\n", "apply_tagged")
    lines.append("    transform.yield %op, %config : !transform.any_op, !transform.any_param")
    return (f"  transform.named_sequence @match_{i}({args}) -> (!transform.any_op, !transform.any_param) {{\n"
            + "\n".join(lines) + "\n  }\n", "apply_op_config")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--ops", type=int, default=40)
    parser.add_argument("--matchers", type=int, default=30)
    parser.add_argument("--tuner-form", action="store_true",
                        help="the form the native matcher evaluates: operand checks only by "
                             "cast_compatible_type and dim_is_multiple_of, no dynamic sizes in the payload")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ops = [payload_op(rng, i, dynamic=not args.tuner_form) for i in range(args.ops)]
    payload = ("// Generated by tools/gen-iree-semantics.py --seed %d\nmodule {\n" % args.seed
               + "".join(text for text, _ in ops) + "}\n")
    matchers = [matcher(rng, i, rng.choice(ops)[1], ops, not args.tuner_form) for i in range(args.matchers)]
    names = ",\n".join(f"        @match_{i} -> @{action}" for i, (_, action) in enumerate(matchers))
    spec = (
        "// Generated by tools/gen-iree-semantics.py --seed %d\n" % args.seed
        + "module attributes {transform.with_named_sequence, iree_codegen.tuning_spec_with_default_entrypoint} {\n"
        + "".join(text for text, _ in matchers)
        + "  transform.named_sequence @apply_op_config(%op: !transform.any_op {transform.readonly}, %config: !transform.any_param {transform.readonly}) {\n"
        + "    transform.annotate %op \"compilation_info\" = %config : !transform.any_op, !transform.any_param\n"
        + "    transform.yield\n  }\n"
        + "  transform.named_sequence @apply_tagged(%op: !transform.any_op {transform.readonly}, %config: !transform.any_param {transform.readonly}, %extra: !transform.any_param {transform.readonly}) attributes {tunespec.rewrites = \"the semantics fuzzer sets a non-config attribute to compare every annotation with IREE\"} {\n"
        + "    transform.annotate %op \"compilation_info\" = %config : !transform.any_op, !transform.any_param\n"
        + "    transform.annotate %op \"tuning_extra\" = %extra : !transform.any_op, !transform.any_param\n"
        + "    transform.annotate %op \"__tuning_spec_applied__\" : !transform.any_op\n"
        + "    transform.yield\n  }\n"
        + "  transform.named_sequence @__kernel_config(%root: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {\n"
        + "    %res = transform.foreach_match in %root\n" + names + "\n"
        + "      : (!transform.any_op) -> !transform.any_op\n    transform.yield %res : !transform.any_op\n  }\n}\n"
    )
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "spec.mlir"), "w") as f:
        f.write(spec)
    with open(os.path.join(args.out, "payload.mlir"), "w") as f:
        f.write(payload)


if __name__ == "__main__":
    main()
