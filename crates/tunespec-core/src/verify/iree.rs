//! Lints on IREE configs: pipelines, named-op matchers, workgroup sizes, and tile lists against
//! the loops a matcher pins.

use super::*;

/// Lints for specs that IREE will run, beyond what IREE checks: matchers that can never fire in
/// IREE's pipeline because they name ops IREE has generalized, tile lists longer than the loop
/// count the matcher pins, and workgroup sizes that are not whole subgroups (warnings); and
/// attributes of dialects IREE does not have, which make IREE refuse the spec
/// ([`check_attribute_dialects`]: an error for a dialect no one has).
///
/// Separate from [`check_module`] because they are about IREE's pipeline, not about the spec
/// being a valid library: `tunespec verify` runs them; `link` and `apply`, which also run on
/// specs made for upstream MLIR, do not.
///
/// `texts` supplies the attribute values a structure snapshot leaves unprinted: from the spec
/// text ([`iree_attrs::AttrTexts::from_text`]) or from a fully printed snapshot.
///
/// `backend`: the IREE backend the spec is verified for, which decides whether named ops reach
/// the matchers; `None` checks the GPU rule and says so.
pub fn check_iree_pipeline(
    module: &ir::Module,
    texts: &iree_attrs::AttrTexts,
    file: &str,
    backend: Option<Backend>,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    module.root.walk(&mut |op| {
        if op.name == "transform.match.operation_name" {
            check_operation_name(op, backend, &mut problems);
        }
        check_print_name(op, &mut problems);
    });
    let sites = texts.sites(file);
    if sites.is_empty() {
        module.root.walk(&mut |op| {
            for (_, attr) in &op.attrs {
                iree_attrs::printed_iree_attrs(attr, &mut |printed| {
                    check_workgroup_size(&op.loc, printed, &mut problems);
                });
            }
        });
    } else {
        for (loc, text) in &sites {
            check_workgroup_size(&Some(loc.clone()), text, &mut problems);
        }
    }
    if module.root.name == names::MODULE {
        check_tile_lists(&module.root, texts, &mut problems);
    }
    problems.extend(check_attribute_dialects(module, texts, file));
    let mut seen = HashSet::new();
    problems.retain(|problem| seen.insert((problem.loc.clone(), problem.message.clone())));
    sort_problems(&mut problems);
    problems
}

/// The kind of IREE backend a spec is verified for, as far as the matchers see it: IREE 3.13's
/// GPU backends (rocm/hip, cuda, vulkan-spirv) turn named linalg ops into `linalg.generic` when
/// they form dispatches, before the tuning spec runs; llvm-cpu keeps them named (checked with
/// iree-compile 3.13 at `--compile-to=executable-configurations`: a matcher on
/// `operation_name ["linalg.matmul"]` tags the matmul on llvm-cpu and nothing on gfx942).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// rocm/hip, cuda, vulkan-spirv: named linalg ops are generalized before the spec runs.
    Gpu,
    /// llvm-cpu: named linalg ops reach the matchers as written.
    LlvmCpu,
}

/// `transform.match.operation_name` whose every name is one IREE has generalized on `backend`
/// (or that no longer exists): the matcher fails on every op of an IREE dispatch.
pub(super) fn check_operation_name(op: &Op, backend: Option<Backend>, problems: &mut Vec<Problem>) {
    let Some(listed) = op.attr("op_names").and_then(Attr::as_array) else {
        return;
    };
    let listed: Vec<&str> = listed.iter().filter_map(Attr::as_str).collect();
    let keeps_named = backend == Some(Backend::LlvmCpu);
    if listed.is_empty()
        || listed.iter().any(|name| {
            (keeps_named && !iree_ops::REMOVED_NAMED_OPS.contains(name))
                || iree_ops::survives_dispatch_formation(name)
        })
    {
        return;
    }
    let quoted = listed
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let removed: Vec<&str> = listed
        .iter()
        .copied()
        .filter(|name| iree_ops::REMOVED_NAMED_OPS.contains(name))
        .collect();
    let reason = if removed.len() == listed.len() {
        "no such op exists in MLIR 22 or IREE 3.13".to_string()
    } else if removed.is_empty() {
        "IREE turns named ops like these into `linalg.generic` when it forms GPU dispatches, before it applies tuning specs".to_string()
    } else {
        format!(
            "IREE turns named ops into `linalg.generic` when it forms GPU dispatches, before it applies tuning specs, and {} no longer exist(s)",
            removed
                .iter()
                .map(|name| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let contraction = listed.iter().any(|name| {
        name.contains("matmul")
            || name.contains("matvec")
            || name.contains("vecmat")
            || *name == "linalg.dot"
    });
    let convolution = listed.iter().any(|name| name.contains("conv_"));
    let help = if contraction {
        "match IREE's form, which sees named and generic contractions alike: \
         `%batch, %m, %n, %k = transform.iree.match.contraction %op, lhs_type = f16, rhs_type = f16, output_type = f32 : !transform.any_op -> !transform.param<i64>` \
         (your element types), then `transform.iree.match.dims_equal %m, [4096] : !transform.param<i64>` for each of %batch, %m, %n, %k"
    } else if convolution {
        "match IREE's form, which sees named and generic convolutions alike: \
         `transform.iree.match.convolution %op, lhs_type = ..., rhs_type = ..., output_type = ... : !transform.any_op -> !transform.param<i64>` \
         and `transform.iree.match.dims_equal` on the dimension groups it yields"
    } else {
        "match the `linalg.generic` IREE sees: `transform.match.operation_name %op [\"linalg.generic\"]` \
         and its structure (`transform.match.structured`: rank, dims, iterator kinds)"
    };
    let (place, help) = if removed.len() == listed.len() {
        ("IREE", help.to_string())
    } else if backend.is_none() {
        (
            "IREE on GPU targets",
            format!(
                "{help}; this is the GPU rule (no `--backend` or `--target` given): on llvm-cpu IREE keeps named ops and the matcher can fire (`--backend llvm-cpu`)"
            ),
        )
    } else {
        ("IREE on GPU targets", help.to_string())
    };
    problems.push(
        Problem::warning(
            codes::NAMED_OP_MATCHER,
            format!("this matcher never fires in {place}: it accepts only {quoted}, and {reason}"),
            op.loc.clone(),
        )
        .with_help(help),
    );
}

/// `workgroup_size` whose thread count is not a whole number of subgroups.
pub(super) fn check_workgroup_size(loc: &Option<Loc>, printed: &str, problems: &mut Vec<Problem>) {
    for (sizes, subgroup) in iree_attrs::workgroup_sizes(printed) {
        let threads: i64 = sizes.iter().product();
        if subgroup <= 0 || threads % subgroup == 0 {
            continue;
        }
        let listed = sizes
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        problems.push(
            Problem::warning(
                codes::IREE_CONFIG,
                format!(
                    "workgroup_size = [{listed}] is {threads} threads, not a multiple of subgroup_size = {subgroup}"
                ),
                loc.clone(),
            )
            .with_help(format!(
                "IREE runs a workgroup as whole subgroups of {subgroup} threads; make the product of workgroup_size a multiple of {subgroup}"
            )),
        );
    }
}

/// What a matcher's value stands for, as far as the tile-list lint follows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Known<'a> {
    Root,
    Int(i64),
    /// `merge_handles` of this many single integers.
    Ints(usize),
    Rank,
    AllDims,
    /// A result group of `transform.iree.match.contraction` on the root (batch, m, n, k).
    ContractionGroup(usize),
    /// A `transform.param.constant` holding an attribute (a config).
    Config(&'a Op),
}

/// What the tile-list lint learned about one matcher.
pub(super) struct MatcherFacts<'a> {
    /// The loop count of every op the matcher accepts, and the op that pins it.
    loops: Option<(usize, &'a Op)>,
    /// Per yielded value: what it is.
    yielded: Vec<Option<Known<'a>>>,
}

/// Tile lists longer than the loop count that the matcher pins (for every matcher -> action
/// pair of every `foreach_match`, module by module).
pub(super) fn check_tile_lists(
    module: &Op,
    texts: &iree_attrs::AttrTexts,
    problems: &mut Vec<Problem>,
) {
    let symbols = SymbolTable::new(module);
    let mut foreach_ops = Vec::new();
    collect_in_module(module, &mut foreach_ops);
    for foreach in foreach_ops {
        let matchers = foreach
            .attr("matchers")
            .and_then(Attr::as_array)
            .unwrap_or(&[]);
        let actions = foreach
            .attr("actions")
            .and_then(Attr::as_array)
            .unwrap_or(&[]);
        for (matcher, action) in matchers.iter().zip(actions) {
            let resolve = |attr: &Attr| {
                attr.as_symbol_ref()
                    .and_then(|path| symbols.resolve(path))
                    .and_then(Sequence::from_op)
            };
            let (Some(matcher), Some(action)) = (resolve(matcher), resolve(action)) else {
                continue;
            };
            let facts = matcher_facts(matcher.op, texts);
            let Some((loops, pinned_by)) = facts.loops else {
                continue;
            };
            for config in configs_applied(&facts, action.op) {
                check_config_tiles(config, texts, loops, pinned_by, problems);
            }
        }
    }
    for nested in module.body().iter().filter(|op| op.name == names::MODULE) {
        check_tile_lists(nested, texts, problems);
    }
}

/// The `foreach_match` ops of a module, not of its nested modules.
pub(super) fn collect_in_module<'a>(op: &'a Op, found: &mut Vec<&'a Op>) {
    for region in &op.regions {
        for block in &region.blocks {
            for inner in &block.ops {
                if inner.name == names::FOREACH_MATCH {
                    found.push(inner);
                }
                if inner.name != names::MODULE {
                    collect_in_module(inner, found);
                }
            }
        }
    }
}

/// Follows a matcher's values: which op it pins the loop count of, and what it yields.
pub(super) fn matcher_facts<'a>(
    matcher: &'a Op,
    texts: &iree_attrs::AttrTexts,
) -> MatcherFacts<'a> {
    let mut facts = MatcherFacts {
        loops: None,
        yielded: Vec::new(),
    };
    let Some(block) = matcher.entry_block() else {
        return facts;
    };
    let mut known: std::collections::HashMap<ir::ValueRef, Known> = Default::default();
    known.insert(
        ir::ValueRef::BlockArg {
            block: block.id,
            index: 0,
        },
        Known::Root,
    );
    let mut pins: Vec<(usize, &Op)> = Vec::new();
    let mut group_dims: [Option<usize>; 4] = [None; 4];
    let mut contraction: Option<&Op> = None;
    for op in &block.ops {
        let operand = |index: usize| op.operands.get(index).and_then(|v| known.get(v)).copied();
        let result = |index: u32| ir::ValueRef::Result { op: op.id, index };
        match op.name.as_str() {
            "transform.param.constant" => match op.attr("value") {
                Some(Attr::Int(value)) => {
                    known.insert(result(0), Known::Int(*value));
                }
                Some(_) => {
                    known.insert(result(0), Known::Config(op));
                }
                None => {}
            },
            "transform.merge_handles" if !op.has_attr("deduplicate") => {
                let all_ints = (0..op.operands.len())
                    .all(|index| matches!(operand(index), Some(Known::Int(_))));
                if all_ints {
                    known.insert(result(0), Known::Ints(op.operands.len()));
                }
            }
            "transform.match.structured" if operand(0) == Some(Known::Root) => {
                for (index, value) in structured_yields(op).into_iter().enumerate() {
                    if let Some(value) = value {
                        known.insert(result(index as u32), value);
                    }
                }
            }
            "transform.match.param.cmpi" if op.attr("predicate") == Some(&Attr::Int(0)) => {
                if let Some(count) = equality_pin(operand(0), operand(1)) {
                    pins.push((count, op));
                }
            }
            "transform.iree.match.contraction" if operand(0) == Some(Known::Root) => {
                contraction = Some(op);
                if let Some(count) = op
                    .has_attr("indexing_maps")
                    .then(|| texts.get(op, "indexing_maps"))
                    .flatten()
                    .and_then(|maps| affine_map_dims(&maps))
                {
                    pins.push((count, op));
                }
                for group in 0..4 {
                    known.insert(result(group as u32), Known::ContractionGroup(group));
                }
            }
            "transform.iree.match.dims_equal" => {
                if let (Some(Known::ContractionGroup(group)), Some(Attr::I64Array(values))) =
                    (operand(0), op.attr("expected_values"))
                {
                    group_dims[group] = Some(values.len());
                }
            }
            name if name == names::YIELD => {
                facts.yielded = op.operands.iter().map(|v| known.get(v).copied()).collect();
            }
            _ => {}
        }
    }
    if let (Some(op), [Some(batch), Some(m), Some(n), Some(k)]) = (contraction, group_dims) {
        pins.push((batch + m + n + k, op));
    }
    facts.loops = agreed_loops(&pins);
    facts
}

/// The loop count a `cmpi eq` pins, when one side is the op's rank or its dimension list and
/// the other a constant (or a merged list of constants). Split out of `matcher_facts` so the
/// walk over the matcher's ops stays readable.
fn equality_pin(lhs: Option<Known>, rhs: Option<Known>) -> Option<usize> {
    match (lhs, rhs) {
        (Some(Known::Rank), Some(Known::Int(n))) | (Some(Known::Int(n)), Some(Known::Rank))
            if n >= 0 =>
        {
            Some(n as usize)
        }
        (Some(Known::AllDims), Some(Known::Ints(count)))
        | (Some(Known::Ints(count)), Some(Known::AllDims)) => Some(count),
        (Some(Known::AllDims), Some(Known::Int(_)))
        | (Some(Known::Int(_)), Some(Known::AllDims)) => Some(1),
        _ => None,
    }
}

/// The loop count every pin agrees on, with the first op that pinned it. Pins that disagree
/// make a matcher that accepts nothing: no loop count to compare with. Split out of
/// `matcher_facts` so the walk over the matcher's ops stays readable.
fn agreed_loops<'a>(pins: &[(usize, &'a Op)]) -> Option<(usize, &'a Op)> {
    let &(first, op) = pins.first()?;
    pins.iter()
        .all(|&(count, _)| count == first)
        .then_some((first, op))
}

/// What a `transform.match.structured` body yields, for the values the lint follows.
pub(super) fn structured_yields(op: &Op) -> Vec<Option<Known<'_>>> {
    let Some(block) = op.entry_block() else {
        return Vec::new();
    };
    let handle = ir::ValueRef::BlockArg {
        block: block.id,
        index: 0,
    };
    let mut known: std::collections::HashMap<ir::ValueRef, Known> = Default::default();
    for inner in &block.ops {
        let on_handle = inner.operands.first() == Some(&handle);
        let result = ir::ValueRef::Result {
            op: inner.id,
            index: 0,
        };
        match inner.name.as_str() {
            "transform.match.structured.rank" if on_handle => {
                known.insert(result, Known::Rank);
            }
            "transform.match.structured.dim"
                if on_handle
                    && inner.has_attr("is_all")
                    && !inner.has_attr("is_inverted")
                    && !inner.has_attr("parallel")
                    && !inner.has_attr("reduction") =>
            {
                known.insert(result, Known::AllDims);
            }
            "transform.match.structured.yield" => {
                return inner
                    .operands
                    .iter()
                    .map(|v| known.get(v).copied())
                    .collect();
            }
            _ => {}
        }
    }
    Vec::new()
}

/// The number of dimensions of the first `affine_map<(d0, d1, d2)[s0] -> (...)>` in `text`.
pub(super) fn affine_map_dims(text: &str) -> Option<usize> {
    let at = text.find("affine_map<(")?;
    let dims = &text[at + "affine_map<(".len()..];
    let dims = &dims[..dims.find(')')?];
    Some(dims.split(',').filter(|d| !d.trim().is_empty()).count())
}

/// The config constants that end up annotating the matched op: yielded by the matcher next to
/// the op and annotated by the action, or defined in the action and annotated there.
pub(super) fn configs_applied<'a>(facts: &MatcherFacts<'a>, action: &'a Op) -> Vec<&'a Op> {
    let mut configs = Vec::new();
    let Some(block) = action.entry_block() else {
        return configs;
    };
    let arg = |value: &ir::ValueRef| match value {
        ir::ValueRef::BlockArg { block: id, index } if *id == block.id => {
            facts.yielded.get(*index as usize).copied().flatten()
        }
        _ => None,
    };
    let local: Vec<&Op> = block
        .ops
        .iter()
        .filter(|op| op.name == "transform.param.constant")
        .collect();
    for op in &block.ops {
        if op.name != "transform.annotate" || op.operands.len() != 2 {
            continue;
        }
        if arg(&op.operands[0]) != Some(Known::Root) {
            continue;
        }
        match (arg(&op.operands[1]), &op.operands[1]) {
            (Some(Known::Config(config)), _) => configs.push(config),
            (None, ir::ValueRef::Result { op: id, .. }) => {
                if let Some(config) = local.iter().find(|candidate| candidate.id == *id) {
                    configs.push(config);
                }
            }
            _ => {}
        }
    }
    configs
}

pub(super) fn check_config_tiles(
    config: &Op,
    texts: &iree_attrs::AttrTexts,
    loops: usize,
    pinned_by: &Op,
    problems: &mut Vec<Problem>,
) {
    let Some(value) = texts.get(config, "value") else {
        return;
    };
    {
        for list in iree_attrs::tile_lists(&value) {
            if list.len <= loops {
                continue;
            }
            let mut problem = Problem::warning(
                codes::IREE_CONFIG,
                format!(
                    "`{}` has {} tile sizes but the op this matcher accepts has {loops} loops",
                    list.key, list.len
                ),
                config.loc.clone(),
            )
            .with_help(format!(
                "entry i of a tile list tiles loop i; iree-compile 3.13 ignores the entries past the op's {loops} loops, so a longer list was likely written for another op: give at most {loops}"
            ));
            if let Some(loc) = &pinned_by.loc {
                problem = problem.with_related(loc.clone(), "the matcher pins the loop count here");
            }
            problems.push(problem);
        }
    }
}
