//! `explain --exact`: IREE's own configuration phase, in the user's IREE, with the linked
//! library attached, beside tunespec's prediction.
//!
//! Why: tunespec predicts on MLIR 22 what IREE (another MLIR, another release) will do. The
//! prediction is only worth something if it is checked where it matters: each op the library
//! configures in tunespec's explanation must carry exactly that `lowering_config` and
//! `translation_info` in IREE's compile. A difference is tunespec's bug, reported as such
//! (exit 3), never smoothed over.

use tunespec::apply::{self, ExplainRow, Explanation};
use tunespec::ir::Loc;
use tunespec::iree::configs::{self, Configured};
use tunespec::iree::Iree;
use tunespec::mlir::Mlir;
use tunespec::problem::Problem;
use tunespec::settings::Settings;

use crate::cli::common::{emit, report, ExitStatus, Format};

/// The code of a difference between tunespec's prediction and IREE's compile.
pub const MISMATCH: &str = "tunespec::explain::exact-mismatch";
/// The phase after which each dispatch carries its configs.
const CONFIG_PHASE: &str = "executable-configurations";

/// What `--exact` needs from `explain`.
pub struct Exact<'a> {
    /// The run's settings (which IREE).
    pub settings: &'a Settings,
    pub mlir: &'a Mlir,
    /// The payload as the user gave it (a model or linalg IR).
    pub raw: &'a [u8],
    pub name: &'a str,
    /// The library flags (the target and its backend).
    pub args: &'a crate::cli::common::LibraryArgs,
    /// The linked library (tunespec's bytecode).
    pub library: &'a [u8],
    pub attr: &'a str,
    pub format: Format,
}

/// Runs IREE's configuration phase and compares; prints the comparison.
pub fn run(exact: &Exact<'_>, explanation: &Explanation) -> ExitStatus {
    let (iree, text) = match configure(exact) {
        Ok(configured) => configured,
        Err(status) => return status,
    };
    let configured = configs::read_configured(&String::from_utf8_lossy(&text));
    let mut lines = Vec::new();
    let mut problems = Vec::new();
    let mut checked = 0;
    for row in &explanation.rows {
        let Some(predicted) = Predicted::of(row, iree) else {
            continue;
        };
        checked += 1;
        let (line, problem) = compare_row(iree, explanation, row, &predicted, &configured);
        lines.push(line);
        problems.extend(problem);
    }
    let summary = format!(
        "exact: IREE {} configured {} op(s) in its compile; {} of {checked} predicted config(s) checked equal, {} differ",
        iree.revision,
        configured.len(),
        checked - problems.len(),
        problems.len()
    );
    if matches!(exact.format, Format::Human | Format::Short | Format::Github) {
        let mut text = String::new();
        for line in &lines {
            text.push_str(line);
            text.push('\n');
        }
        if let Some(why) = crate::cli::model::substitution(exact.args) {
            text.push_str(&format!("note: {why}\n"));
        }
        text.push_str(&summary);
        text.push('\n');
        emit(&text);
    }
    if problems.is_empty() {
        ExitStatus::Ok
    } else {
        report(&problems, None);
        ExitStatus::Mismatch
    }
}

/// IREE's configuration phase on the payload's dispatches with the library attached: the IREE
/// that ran it and its output (generic IR). Its own function because every step can fail with a
/// status already reported, and the comparison needs none of the steps' inputs.
fn configure<'a>(exact: &Exact<'a>) -> Result<(&'a Iree, Vec<u8>), ExitStatus> {
    let why = format!("explain --exact of {}", exact.name);
    let iree = crate::cli::model::iree_in(exact.settings, &why)?;
    let flags = crate::cli::model::flags_in(exact.settings, exact.args, &why)?;
    // In the found IREE's syntax, as `attach` writes it for that IREE.
    let mut left_out = Vec::new();
    let library = crate::cli::attach::library_text(exact.mlir, exact.library)?;
    let library = crate::cli::attach::for_release(iree, &library, &mut left_out).into_bytes();
    report(&left_out, None);
    // From the dispatches IREE formed (cached per model, IREE and flags): only the
    // configuration phase runs for each edit of the specs.
    let sources = crate::cli::model::sources(iree, exact.raw, exact.name, &flags)?;
    // IREE's configuration phase is a function of the dispatches, the library and the
    // attribute it is attached under (and IREE's revision and flags, in every key): cached, a
    // rerun of the same check asks IREE nothing; an edited spec runs the phase again.
    let mut keyed = Vec::with_capacity(sources.len() + library.len() + 64);
    for part in [&sources[..], exact.attr.as_bytes(), &library[..]] {
        keyed.extend_from_slice(&(part.len() as u64).to_le_bytes());
        keyed.extend_from_slice(part);
    }
    let phase = format!("{CONFIG_PHASE} with the library attached");
    let text = crate::cli::model::cached_as(
        iree,
        (&keyed, exact.raw),
        exact.name,
        &flags,
        &phase,
        |iree| {
            let _phase = tracing::info_span!("iree.configure").entered();
            iree.executables(
                &sources,
                exact.name,
                &flags,
                (Some(crate::cli::model::SOURCES_PHASE), CONFIG_PHASE),
                Some((exact.attr, &library)),
            )
            .map(|(text, _)| text)
        },
    )?;
    Ok((iree, text))
}

/// What tunespec predicts for one row: its `compilation_info` and the two configs in it,
/// squashed as IREE's are read. Rows without both configs are not checked.
struct Predicted<'a> {
    info: &'a str,
    lowering: String,
    translation: String,
    /// Both as written (in the release's spelling), for IREE to print back.
    texts: (String, String),
}

impl<'a> Predicted<'a> {
    /// `row`'s prediction spelled as `iree`'s release prints it (the library IREE read was
    /// written in that release's syntax).
    fn of(row: &'a ExplainRow, iree: &Iree) -> Option<Predicted<'a>> {
        let (_, info) = row
            .config
            .iter()
            .find(|(name, _)| name == "compilation_info")?;
        let (Some(lowering), Some(translation)) = (
            configs::attribute_named(info, "lowering_config"),
            configs::attribute_named(info, "translation_info"),
        ) else {
            return None;
        };
        let spelled = |text: &str| tunespec::iree::release::spelled_for(text, iree.release());
        Some(Predicted {
            info,
            lowering: configs::squash(&spelled(&lowering)),
            translation: configs::squash(&spelled(&translation)),
            texts: (spelled(&lowering), spelled(&translation)),
        })
    }
}

/// Whether IREE's configured op is at `loc` (file, line and column).
fn located_at(loc: &Option<Loc>, op: &Configured) -> bool {
    loc.as_ref()
        .is_some_and(|loc| loc.line == op.line && loc.col == op.col && loc.file == op.file)
}

/// IREE's configured ops for `row`, and a note when they are its twin's: iree-compile keeps one
/// executable of identical dispatches (the k and v projections of a layer), located at one of
/// the ops, so an op without a dispatch of its own is checked against its twin's.
fn configured_for<'c>(
    explanation: &Explanation,
    row: &ExplainRow,
    configured: &'c [Configured],
) -> (Vec<&'c Configured>, String) {
    let here: Vec<&Configured> = configured
        .iter()
        .filter(|op| located_at(&row.loc, op))
        .collect();
    if !here.is_empty() {
        return (here, String::new());
    }
    let twin = explanation.rows.iter().find(|other| {
        other.id != row.id
            && other.op == row.op
            && other.loops == row.loops
            && other.element_types == row.element_types
            && other.config == row.config
            && configured.iter().any(|op| located_at(&other.loc, op))
    });
    match twin {
        Some(twin) => (
            configured
                .iter()
                .filter(|op| located_at(&twin.loc, op))
                .collect(),
            format!(
                " (one dispatch with its twin at {})",
                super::loc_text(&twin.loc)
            ),
        ),
        None => (here, String::new()),
    }
}

/// One row's comparison: its line, and the mismatch problem when IREE's config differs.
fn compare_row(
    iree: &Iree,
    explanation: &Explanation,
    row: &ExplainRow,
    predicted: &Predicted<'_>,
    configured: &[Configured],
) -> (String, Option<Problem>) {
    let (here, twin_note) = configured_for(explanation, row, configured);
    let same = here
        .iter()
        .find(|op| {
            op.lowering_config == predicted.lowering
                && op.translation_info.as_deref() == Some(&predicted.translation)
        })
        .copied()
        .or_else(|| printed_same(iree, predicted, &here));
    let matcher = row
        .pair
        .and_then(|pair| explanation.pairs.get(pair))
        .map_or_else(|| "-".to_string(), |pair| format!("@{}", pair.matcher));
    let location = super::loc_text(&row.loc);
    let info = predicted.info;
    if let Some(op) = same {
        let line = format!(
            "{location}: {} in {}{twin_note}: as predicted ({matcher}: {})",
            op.op,
            op.function,
            apply::short_config(info)
        );
        return (line, None);
    }
    let got = here.first().map_or_else(
        || "no configured op there".to_string(),
        |op| format!("lowering_config = {}", op.lowering_config),
    );
    let line = format!("{location}: DIFFERS: predicted {matcher}; IREE: {got}");
    let problem = Problem::error(
        MISMATCH,
        format!(
            "IREE {} set a different config than tunespec predicts ({matcher}, {}): {got}",
            tunespec::iree::release(&iree.revision),
            apply::short_config(info)
        ),
        row.loc.clone(),
    )
    .with_help("this is a tunespec bug (its prediction differs from IREE's compile): please report it with the payload and specs");
    (line, Some(problem))
}

/// The first of `ops` whose configs are the prediction's once IREE has printed both sides
/// (`Iree::canonical_attributes`, as `check` compares): a spec's own spelling (an older
/// release's parameters, integers with or without their type, dictionary entries in any order)
/// is not a difference. `None` when none is, or IREE cannot print them.
fn printed_same<'c>(
    iree: &Iree,
    predicted: &Predicted<'_>,
    ops: &[&'c Configured],
) -> Option<&'c Configured> {
    if ops.is_empty() {
        return None;
    }
    let mut texts: Vec<&str> = vec![&predicted.texts.0, &predicted.texts.1];
    for op in ops {
        texts.push(&op.lowering_config_text);
        texts.push(op.translation_info_text.as_deref().unwrap_or(""));
    }
    let printed = iree.canonical_attributes(&texts).ok()?;
    let want = (printed[0].as_ref()?, printed[1].as_ref()?);
    ops.iter().enumerate().find_map(|(index, op)| {
        let got = (&printed[2 + 2 * index], &printed[3 + 2 * index]);
        (got.0.as_ref() == Some(want.0) && got.1.as_ref() == Some(want.1)).then_some(*op)
    })
}
