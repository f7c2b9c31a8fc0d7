//! Stage 1 of a tune: IREE's own configs of the payload, the config the user's linked library
//! gives each dispatch (when there is one), and each dispatch's candidates, specs and payload.

use std::collections::HashMap;
use std::path::Path;

use super::space::{self, Candidate};
use super::{dispatches, gpu};
use super::{Request, Search};
use crate::iree::runtime::Tools;
use crate::iree::Iree;

/// Stage 1: IREE's configs of the payload, and each dispatch's candidates, specs and payload.
pub(super) fn generate(
    (iree, tools): (&Iree, &Tools),
    request: &Request,
) -> Result<Generated, String> {
    let (work, source) = super::staged_payload(request)?;
    let gpu = is_gpu(&request.options.flags);
    // IREE 3.13 crashes emitting the constraints of some ops (batched contractions): the
    // model's configs are then read without them, and each dispatch's space apart.
    let (text, whole) = match configure(tools, request, &source, gpu) {
        Ok(text) => (text, None),
        Err(error) if gpu => (configure(tools, request, &source, false)?, Some(error)),
        Err(error) => return Err(error),
    };
    let (mut found, skipped) = dispatches::read(&text, gpu);
    select(&mut found, &request.only)?;
    let iree_opt = if gpu {
        Some(iree.iree_opt().map_err(|error| {
            format!("the GPU space is IREE's constraints, read with iree-opt: {error}")
        })?)
    } else {
        None
    };
    let mut generations = Vec::new();
    let linked = match &request.linked {
        Some(library) => linked_configs((iree, tools), request, library, work.path())?,
        None => HashMap::new(),
    };
    let mlir = crate::mlir::Mlir::new();
    let ordering = cpu_ordering(request, &text, gpu);
    let mut searches = Vec::new();
    for dispatch in found {
        let mut candidates = space::candidates(
            &dispatch,
            linked.get(&dispatch.key),
            request.max_candidates,
            ordering,
        );
        if let Some(iree_opt) = &iree_opt {
            let (all, generated) = gpu_candidates(
                (tools, iree_opt),
                request,
                (&dispatch, candidates),
                (&text, whole.as_deref()),
                work.path(),
            )?;
            candidates = all;
            generations.extend(generated);
        }
        let candidates: Vec<(Candidate, String)> = candidates
            .into_iter()
            .map(|candidate| {
                let spec = space::spec(&dispatch, &candidate);
                (candidate, spec)
            })
            .collect();
        let matcher = space::matcher_name(&dispatch);
        let verified = crate::verify::verify_bytes(&mlir, candidates[0].1.as_bytes(), &matcher);
        let key = verified
            .snapshot
            .as_ref()
            .and_then(|module| {
                crate::measured::tuner_import::keyed_matchers(module)
                    .into_iter()
                    .find(|keyed| keyed.name == matcher)
            })
            .map(|keyed| keyed.key)
            .ok_or_else(|| format!("the spec written for {} has no matcher key", dispatch.key))?;
        let (payload, function) = space::payload(&dispatch)?;
        searches.push(Search {
            dispatch,
            matcher,
            key,
            payload,
            function,
            candidates,
        });
    }
    Ok(Generated {
        searches,
        skipped,
        generations,
        order: if gpu {
            request.order.name()
        } else {
            ordering.name()
        },
    })
}

/// How a dispatch's candidates are taken: the request's order; on llvm-cpu, on the machine
/// read from IREE's configured `text` (its vector size) with the device's worker threads.
fn cpu_ordering(request: &Request, text: &str, gpu: bool) -> space::Ordering {
    let machine = (!gpu).then(|| {
        let threads = crate::bench::measured::DeviceName::of(&request.options.device)
            .threads
            .map_or(1, i64::from);
        super::cpu_order::Machine::of(text, threads)
    });
    space::Ordering {
        order: request.order,
        // A GPU's model is IREE's constraints' ([`gpu::candidates`]), not the CPU's.
        machine: machine.flatten(),
    }
}

/// Keeps the dispatches `only` selects (`--dispatch`: a pattern each, contained in the key or
/// one of the dispatch functions' names; every dispatch when empty). A pattern that selects
/// nothing is an error naming the dispatches there are: a mistyped pattern must not turn into
/// a run that tunes nothing, or everything.
fn select(found: &mut Vec<dispatches::Dispatch>, only: &[String]) -> Result<(), String> {
    if only.is_empty() {
        return Ok(());
    }
    let selects = |pattern: &str, dispatch: &dispatches::Dispatch| {
        dispatch.key.contains(pattern) || dispatch.functions.iter().any(|f| f.contains(pattern))
    };
    if let Some(unmatched) = only
        .iter()
        .find(|pattern| !found.iter().any(|dispatch| selects(pattern, dispatch)))
    {
        let there: Vec<&str> = found.iter().map(|dispatch| dispatch.key.as_str()).collect();
        return Err(format!(
            "--dispatch '{unmatched}' selects no dispatch; the model's tunable dispatches: {}",
            if there.is_empty() {
                "none".to_string()
            } else {
                there.join("; ")
            }
        ));
    }
    found.retain(|dispatch| only.iter().any(|pattern| selects(pattern, dispatch)));
    Ok(())
}

/// A dispatch's GPU candidates: IREE's constraints in the model's `text`, else in the
/// dispatch's own module ([`space_apart`]); `whole` is why the model's own had none.
fn gpu_candidates(
    (tools, iree_opt): (&Tools, &Path),
    request: &Request,
    (dispatch, candidates): (&dispatches::Dispatch, Vec<Candidate>),
    (text, whole): (&str, Option<&str>),
    work: &Path,
) -> Result<(Vec<Candidate>, Vec<gpu::Generation>), String> {
    let apart = space_apart(tools, request, dispatch, text, work)?;
    let source = match &apart {
        Some((text, surrogate)) => gpu::Source {
            text,
            function: None,
            surrogate: surrogate.clone(),
        },
        None => gpu::Source {
            text,
            function: dispatch.functions.first().map(String::as_str),
            surrogate: None,
        },
    };
    let (all, mut generated) = gpu::candidates(
        iree_opt,
        work,
        &source,
        (dispatch, candidates),
        (&request.target, request.max_candidates, request.solutions),
        request.order,
    )?;
    let room = all.len() < request.max_candidates;
    if generated.is_empty() && room {
        let why = whole.unwrap_or("not for this op, in the model or alone");
        generated.push(gpu::Generation::none(&dispatch.key, why));
    }
    Ok((all, generated))
}

/// The space of a dispatch whose constraints are not in the model's `text`: IREE's configured
/// module of the dispatch alone (without its batch dimensions, whose constraints IREE 3.13
/// cannot emit) and the note that it is a surrogate; `None` when `text` has them.
fn space_apart(
    tools: &Tools,
    request: &Request,
    dispatch: &dispatches::Dispatch,
    text: &str,
    work: &Path,
) -> Result<Option<(String, Option<String>)>, String> {
    let own = crate::iree::constraints::read(text)
        .iter()
        .any(|space| dispatch.functions.first() == Some(&space.function));
    if own {
        return Ok(None);
    }
    let batched = !dispatch.shape.batch.is_empty();
    let alone = dispatches::Dispatch {
        shape: dispatch.shape.without_batch(),
        ..dispatch.clone()
    };
    let (payload, _) = space::payload(&alone)?;
    let name = format!("{}.alone.mlir", space::matcher_name(&alone));
    let path = work.join(&name);
    std::fs::write(&path, payload)
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    let alone_request = Request {
        name: name.clone(),
        ..request.clone()
    };
    match configure(tools, &alone_request, &path, true) {
        Ok(text) => Ok(Some((
            text,
            batched.then(|| {
                "IREE 3.13 emits no constraints for a batched contraction (its constraint generator crashes on batch dimensions): the space is the same contraction's without its batch dimension, each solution lifted with batch tile 1".to_string()
            }),
        ))),
        Err(error) => Ok(Some((
            String::new(),
            Some(format!(
                "IREE emitted no constraints for the dispatch alone either: {}",
                error.lines().next().unwrap_or(&error)
            )),
        ))),
    }
}

/// Stage 1's outcome.
pub(super) struct Generated {
    /// Each tunable dispatch's search.
    pub searches: Vec<Search>,
    /// The configured ops that are not tuned, and why.
    pub skipped: Vec<dispatches::Skipped>,
    /// What generating the GPU spaces did (none on llvm-cpu).
    pub generations: Vec<gpu::Generation>,
    /// The order the candidates were taken in ([`space::Ordering::name`]).
    pub order: &'static str,
}

/// Whether `flags` compile for a GPU (IREE's constraints are the space) rather than llvm-cpu.
pub(super) fn is_gpu(flags: &[String]) -> bool {
    flags.iter().any(|flag| {
        matches!(
            flag.as_str(),
            "--iree-hal-target-device=cuda"
                | "--iree-hal-target-device=hip"
                | "--iree-hal-target-backends=cuda"
                | "--iree-hal-target-backends=rocm"
        )
    })
}

/// IREE's `executable-configurations` of `source` (the request's payload, or it with a library
/// attached), as text.
/// With `constraints`, IREE keeps each GPU root op's pipeline constraints (the space).
fn configure(
    tools: &Tools,
    request: &Request,
    source: &Path,
    constraints: bool,
) -> Result<String, String> {
    let configured = source.with_extension("configured.mlir");
    let mut flags = request.options.flags.clone();
    flags.push("--compile-to=executable-configurations".to_string());
    if constraints {
        flags.push("--iree-codegen-emit-pipeline-constraints".to_string());
    }
    tools
        .compile(
            source,
            &flags,
            &configured,
            None,
            request.options.compile_timeout,
        )
        .map_err(|error| {
            // IREE names the work copy; the user knows the file they gave.
            let error = error.replace(&source.display().to_string(), &request.name);
            format!("IREE cannot configure {}: {error}", request.name)
        })?;
    std::fs::read_to_string(&configured)
        .map_err(|error| format!("cannot read IREE's configs: {error}"))
}

/// The config (lowering, translation) the linked `library` gives each dispatch, by key: the
/// payload configured by IREE with the library attached, as `bench` attaches it.
fn linked_configs(
    (iree, tools): (&Iree, &Tools),
    request: &Request,
    library: &str,
    work: &Path,
) -> Result<HashMap<String, (String, String)>, String> {
    let attached = iree
        .attach(
            &request.payload,
            &request.name,
            crate::apply::ATTR_NAME,
            library.as_bytes(),
            false,
        )
        .map_err(|failure| format!("attaching the linked library failed: {}", failure.summary()))?;
    let source = work.join("linked.mlir");
    std::fs::write(&source, &attached)
        .map_err(|error| format!("cannot write {}: {error}", source.display()))?;
    let gpu = is_gpu(&request.options.flags);
    let text = configure(tools, request, &source, false)?;
    let (found, _) = dispatches::read(&text, gpu);
    Ok(found
        .into_iter()
        .map(|dispatch| {
            (
                dispatch.key,
                (dispatch.lowering_config, dispatch.translation_info),
            )
        })
        .collect())
}
