//! Stage 1 of a tune: IREE's own configs of the payload, the config the user's linked library
//! gives each dispatch (when there is one), and each dispatch's candidates, specs and payload.

use std::collections::HashMap;
use std::path::Path;

use super::dispatches;
use super::space::{self, Candidate};
use super::{Request, Search};
use crate::bench;
use crate::iree::runtime::Tools;
use crate::iree::Iree;

/// Stage 1: IREE's configs of the payload, and each dispatch's candidates, specs and payload.
pub(super) fn generate(
    (iree, tools): (&Iree, &Tools),
    request: &Request,
) -> Result<(Vec<Search>, Vec<dispatches::Skipped>), String> {
    let work = tempfile::Builder::new()
        .prefix(&bench::work_dir_prefix(std::process::id()))
        .tempdir()
        .map_err(|error| format!("cannot create a work directory: {error}"))?;
    let bytecode = request.payload.starts_with(crate::verify::BYTECODE_MAGIC);
    let source = work.path().join(if bytecode {
        "payload.mlirbc"
    } else {
        "payload.mlir"
    });
    std::fs::write(&source, &request.payload)
        .map_err(|error| format!("cannot write {}: {error}", source.display()))?;
    let text = configure(tools, request, &source)?;
    let (found, skipped) = dispatches::read(&text);
    let linked = match &request.linked {
        Some(library) => linked_configs((iree, tools), request, library, work.path())?,
        None => HashMap::new(),
    };
    let mlir = crate::mlir::Mlir::new();
    let mut searches = Vec::new();
    for dispatch in found {
        let candidates: Vec<(Candidate, String)> =
            space::candidates(&dispatch, linked.get(&dispatch.key), request.max_candidates)
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
                crate::tuner_import::keyed_matchers(module)
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
    Ok((searches, skipped))
}

/// IREE's `executable-configurations` of `source` (the request's payload, or it with a library
/// attached), as text.
fn configure(tools: &Tools, request: &Request, source: &Path) -> Result<String, String> {
    let configured = source.with_extension("configured.mlir");
    let mut flags = request.options.flags.clone();
    flags.push("--compile-to=executable-configurations".to_string());
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
    let text = configure(tools, request, &source)?;
    let (found, _) = dispatches::read(&text);
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
