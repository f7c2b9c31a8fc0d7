//! `tunespec attach | extract | apply | explain | coverage`: the library on the payload, and
//! config materialization with an account of what configured each op.

use std::path::PathBuf;

use serde_json::json;

use super::link::LibraryArgs;
use super::{tool_error, ExitStatus, Format};
use crate::apply::{self, Explanation, ATTR_NAME};
use crate::diagnostics::{self, Style};
use crate::link::LinkOptions;
use crate::mlir::{BlobForm, Mlir, OwnedOp};
use crate::output::{write_output, Emit};
use crate::problem::Problem;

impl LibraryArgs {
    /// Links the library and returns it as bytecode; prints link warnings to stderr.
    fn link(&self, mlir: &Mlir) -> Result<Vec<u8>, ExitStatus> {
        let inputs = self.inputs().map_err(|message| {
            tool_error(message);
            ExitStatus::Usage
        })?;
        // Through the cache of linked libraries, like `link`: a compile after the first only
        // pays for copying the bytes.
        let cache = super::cache::open().ok_or(ExitStatus::Usage)?;
        let target = super::link::cache_target(self.target.as_deref());
        let result = cache.link(mlir, &target, &inputs, LinkOptions::default());
        report(&cache.take_warnings(), None);
        match result {
            Ok(library) => {
                report(&library.problems, None);
                Ok(library.bytecode)
            }
            Err(problems) => {
                report(&problems, None);
                Err(ExitStatus::Problems)
            }
        }
    }
}

fn report(problems: &[Problem], source: Option<&[u8]>) {
    let style = Style::detect_stderr();
    for problem in problems {
        // A problem in the library attached to a payload is located in `PAYLOAD[ATTR]`, bytes
        // that are not the payload's text: no snippet of the payload for it.
        let in_attached = problem
            .loc
            .as_ref()
            .is_some_and(|loc| loc.file.ends_with(']'));
        let source = source.filter(|_| !in_attached);
        super::emit_stderr(&diagnostics::render(problem, source, style));
    }
}

/// Reads an input file, as a usage error when it cannot be read.
fn read(path: &PathBuf) -> Result<Vec<u8>, ExitStatus> {
    crate::files::read_input(path).map_err(|error| {
        tool_error(format!("cannot read {}: {error}", path.display()));
        ExitStatus::Usage
    })
}

/// Writes an output; an I/O failure is a usage error (exit 2).
fn write(path: &std::path::Path, bytes: &[u8]) -> ExitStatus {
    match write_output(path, bytes) {
        Ok(()) => ExitStatus::Ok,
        Err(message) => {
            tool_error(message);
            ExitStatus::Usage
        }
    }
}

/// Reads and parses a payload file: its bytes (for snippets), display name and module.
fn load_payload<'c>(
    mlir: &'c Mlir,
    path: &PathBuf,
) -> Result<(Vec<u8>, String, OwnedOp<'c>), ExitStatus> {
    let bytes = read(path)?;
    let name = path.display().to_string();
    match apply::parse_payload(mlir, &bytes, &name) {
        Ok(payload) => Ok((bytes, name, payload)),
        Err(problems) => Err(fail(problems, &bytes)),
    }
}

/// Problems in inputs: exit 1 (2 when the problem is an I/O one).
fn fail(problems: Vec<Problem>, source: &[u8]) -> ExitStatus {
    report(&problems, Some(source));
    ExitStatus::Problems
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Blob {
    /// `dense<"0x..."> : vector<N x i8>` (IREE's default)
    #[default]
    Dense,
    /// `dense_resource<...>` with the bytes in the file's resource section
    Resource,
}

#[derive(Debug, clap::Args)]
#[command(after_help = super::EXIT_STATUS_HELP)]
pub struct AttachOpts {
    #[command(flatten)]
    pub library: LibraryArgs,
    /// The payload (MLIR text or bytecode)
    pub payload: PathBuf,
    /// Output file, or `-` for stdout (written atomically)
    #[arg(long, short, default_value = "-")]
    pub output: PathBuf,
    /// Attribute that carries the library
    #[arg(long, default_value = ATTR_NAME)]
    pub attr: String,
    /// How the bytes are stored
    #[arg(long, value_enum, default_value_t)]
    pub blob: Blob,
}

impl AttachOpts {
    pub fn run(self) -> ExitStatus {
        let mlir = Mlir::new_threaded();
        let (payload_bytes, _name, payload) = match load_payload(&mlir, &self.payload) {
            Ok(loaded) => loaded,
            Err(status) => return status,
        };
        let library = match self.library.link(&mlir) {
            Ok(library) => library,
            Err(status) => return status,
        };
        let form = match self.blob {
            Blob::Dense => BlobForm::Dense,
            Blob::Resource => BlobForm::Resource,
        };
        if let Err(problems) = apply::attach(&payload, &library, &self.attr, form) {
            return fail(problems, &payload_bytes);
        }
        write(&self.output, payload.print_file().as_bytes())
    }
}

#[derive(Debug, clap::Args)]
#[command(after_help = super::EXIT_STATUS_HELP)]
pub struct ExtractOpts {
    /// The payload carrying a library
    pub payload: PathBuf,
    /// Output file, or `-` for stdout (written atomically)
    #[arg(long, short, default_value = "-")]
    pub output: PathBuf,
    /// Output form
    #[arg(long, value_enum, default_value_t)]
    pub emit: Emit,
    /// Attribute that carries the library
    #[arg(long, default_value = ATTR_NAME)]
    pub attr: String,
}

impl ExtractOpts {
    pub fn run(self) -> ExitStatus {
        let mlir = Mlir::new_threaded();
        let (payload_bytes, name, payload) = match load_payload(&mlir, &self.payload) {
            Ok(loaded) => loaded,
            Err(status) => return status,
        };
        let library = match apply::extract(&mlir, &payload, &self.attr, &name) {
            Ok(library) => library,
            Err(problems) => return fail(problems, &payload_bytes),
        };
        let bytes = match self.emit {
            Emit::Mlirbc => library,
            Emit::Mlir => match mlir.parse(&library, "<library>").module {
                Some(module) => module.print_file().into_bytes(),
                None => return fail(vec![], &payload_bytes),
            },
        };
        write(&self.output, &bytes)
    }
}

#[derive(Debug, clap::Args)]
#[command(after_help = super::EXIT_STATUS_HELP)]
pub struct ApplyOpts {
    #[command(flatten)]
    pub library: LibraryArgs,
    /// The payload
    pub payload: PathBuf,
    /// Output file, or `-` for stdout (written atomically)
    #[arg(long, short, default_value = "-")]
    pub output: PathBuf,
    /// Keep the library attribute on the payload
    #[arg(long)]
    pub keep_attr: bool,
    /// Attribute that carries the library
    #[arg(long, default_value = ATTR_NAME)]
    pub attr: String,
    /// Also print (to stderr) what configured each candidate op
    #[arg(long)]
    pub explain: bool,
    /// Format of the explanation
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// How the library runs: natively when it can (auto), or always in MLIR's interpreter
    #[arg(long, value_enum, default_value_t)]
    pub engine: apply::Engine,
    /// Materialize on the payload as iree-compile's config materialization sees it (named
    /// linalg ops generalized, as IREE's dispatch formation does) and write that: tunespec's
    /// prediction of the configs a real compile puts on each dispatch
    #[arg(long)]
    pub as_dispatch: bool,
}

/// The library to apply: the one attached to the payload, or one linked from `args` when given
/// (or when none is attached).
fn library_for(
    mlir: &Mlir,
    args: &LibraryArgs,
    payload_bytes: &[u8],
    name: &str,
    attr: &str,
) -> Result<Vec<u8>, ExitStatus> {
    if args.given() {
        return args.link(mlir);
    }
    let payload = apply::parse_payload(mlir, payload_bytes, name)
        .map_err(|problems| fail(problems, payload_bytes))?;
    apply::extract(mlir, &payload, attr, name).map_err(|problems| fail(problems, payload_bytes))
}

impl ApplyOpts {
    pub fn run(self) -> ExitStatus {
        let mlir = Mlir::new_threaded();
        let (payload_bytes, name, payload) = match load_payload(&mlir, &self.payload) {
            Ok(loaded) => loaded,
            Err(status) => return status,
        };
        // The payload and the library are each parsed once; the library is verified only if it
        // has to go through the interpreter (see `apply::apply`).
        let (library_bytes, library_name, trusted) = if self.library.given() {
            match self.library.link(&mlir) {
                Ok(bytes) => (bytes, "<linked library>".to_string(), true),
                Err(status) => return status,
            }
        } else {
            match apply::attached_bytes(&payload, &self.attr, &name) {
                Ok(bytes) => (bytes, format!("{name}[{}]", self.attr), false),
                Err(problems) => return fail(problems, &payload_bytes),
            }
        };
        let library = match apply::load_library(&mlir, &library_bytes, &library_name, trusted) {
            Ok(library) => library,
            Err(problems) => return fail(problems, &payload_bytes),
        };
        if self.as_dispatch {
            payload.tag_ops();
            if let Err(message) = payload.generalize_like_iree() {
                return fail(
                    vec![Problem::error(apply::codes::PAYLOAD, message, None)],
                    &payload_bytes,
                );
            }
        }
        match apply::apply(
            &mlir,
            &payload,
            &library,
            &self.attr,
            self.keep_attr,
            self.engine,
        ) {
            Ok(problems) => report(&problems, Some(&payload_bytes)),
            Err(problems) => return fail(problems, &payload_bytes),
        }
        if self.as_dispatch {
            payload.untag_ops();
        }
        if let Err(message) = write_output(&self.output, payload.print_file().as_bytes()) {
            tool_error(message);
            return ExitStatus::Usage;
        }
        if self.explain {
            match apply::explain(
                &mlir,
                &payload_bytes,
                &name,
                &library_bytes,
                &self.attr,
                self.engine,
                apply::View::Dispatch,
            ) {
                Ok(explanation) => {
                    let text = render_explanation(&explanation, self.format);
                    super::emit_stderr(&text);
                }
                Err(problems) => return fail(problems, &payload_bytes),
            }
        }
        ExitStatus::Ok
    }
}

#[derive(Debug, clap::Args)]
#[command(after_help = super::EXIT_STATUS_HELP)]
pub struct ExplainOpts {
    #[command(flatten)]
    pub library: LibraryArgs,
    /// The payload
    pub payload: PathBuf,
    /// Attribute that carries the library
    #[arg(long, default_value = ATTR_NAME)]
    pub attr: String,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// How the library runs: natively when it can (auto), or always in MLIR's interpreter
    #[arg(long, value_enum, default_value_t)]
    pub engine: apply::Engine,
    /// Which IR to match: as iree-compile sees it at dispatch level (marking ops where that
    /// differs from matching the op as written), or as written
    #[arg(long, value_enum, default_value_t)]
    pub view: apply::View,
}

impl ExplainOpts {
    pub fn run(self) -> ExitStatus {
        let mlir = Mlir::new_threaded();
        let payload_bytes = match read(&self.payload) {
            Ok(bytes) => bytes,
            Err(status) => return status,
        };
        let name = self.payload.display().to_string();
        let library_bytes =
            match library_for(&mlir, &self.library, &payload_bytes, &name, &self.attr) {
                Ok(bytes) => bytes,
                Err(status) => return status,
            };
        match apply::explain(
            &mlir,
            &payload_bytes,
            &name,
            &library_bytes,
            &self.attr,
            self.engine,
            self.view,
        ) {
            Ok(explanation) => {
                super::emit(&render_explanation(&explanation, self.format));
                ExitStatus::Ok
            }
            Err(problems) => fail(problems, &payload_bytes),
        }
    }
}

fn loops_text(loops: &Option<Vec<i64>>) -> String {
    match loops {
        None => "-".to_string(),
        Some(loops) => loops
            .iter()
            .map(|&extent| {
                if extent < 0 {
                    "?".to_string()
                } else {
                    extent.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("x"),
    }
}

/// The short form of each added attribute, `; `-separated.
fn short_configs(config: &[(String, String)]) -> String {
    config
        .iter()
        .map(|(name, value)| {
            if name == "compilation_info" {
                apply::short_config(value)
            } else {
                format!("{name}={}", apply::short_config(value))
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn loc_text(loc: &Option<crate::ir::Loc>) -> String {
    loc.as_ref()
        .map_or_else(|| "-".to_string(), ToString::to_string)
}

/// The explanation as a table (one row per candidate op) or as one JSON document.
pub fn render_explanation(explanation: &Explanation, format: Format) -> String {
    let pair_of = |row: &apply::ExplainRow| row.pair.and_then(|index| explanation.pairs.get(index));
    match format {
        Format::Json => {
            let ops: Vec<_> = explanation
                .rows
                .iter()
                .map(|row| {
                    let pair = pair_of(row);
                    let config_json = |config: &[(String, String)]| {
                        config
                            .iter()
                            .map(|(name, value)| json!({"name": name, "value": value}))
                            .collect::<Vec<_>>()
                    };
                    let written = row.written.as_ref().map(|written| {
                        let pair = written.pair.and_then(|index| explanation.pairs.get(index));
                        json!({
                            "matcher": pair.map(|p| p.matcher.clone()),
                            "matcher_location": pair.and_then(|p| p.matcher_loc.as_ref().map(ToString::to_string)),
                            "config": config_json(&written.config),
                        })
                    });
                    json!({
                        "op": row.op,
                        "dispatch_op": row.dispatch_op,
                        "location": row.loc.as_ref().map(ToString::to_string),
                        "loops": row.loops,
                        "element_types": row.element_types,
                        "matcher": pair.map(|p| p.matcher.clone()),
                        "action": pair.map(|p| p.action.clone()),
                        "matcher_location": pair.and_then(|p| p.matcher_loc.as_ref().map(ToString::to_string)),
                        "provenance": pair.and_then(|p| p.provenance.clone()),
                        "config": config_json(&row.config),
                        "as_written": written,
                    })
                })
                .collect();
            let matched = explanation
                .rows
                .iter()
                .filter(|row| row.pair.is_some())
                .count();
            format!(
                "{}\n",
                json!({
                    "version": 2,
                    "view": match explanation.view {
                        apply::View::Dispatch => "dispatch",
                        apply::View::Written => "written",
                    },
                    "ops": ops,
                    "differs_as_written": explanation.differing(),
                    "matched": matched,
                    "unmatched": explanation.rows.len() - matched,
                    "pairs": explanation.pairs.len(),
                })
            )
        }
        Format::Human => {
            let mut rows: Vec<[String; 6]> = vec![[
                "op".into(),
                "location".into(),
                "loops".into(),
                "types".into(),
                "matcher (spec)".into(),
                "config".into(),
            ]];
            for row in &explanation.rows {
                let pair = pair_of(row);
                let mut config = short_configs(&row.config);
                if let Some(written) = &row.written {
                    let matcher = written
                        .pair
                        .and_then(|index| explanation.pairs.get(index))
                        .map_or_else(|| "no match".to_string(), |p| format!("@{}", p.matcher));
                    let as_written = short_configs(&written.config);
                    config = format!(
                        "{} [* as written: {matcher}{}]",
                        if config.is_empty() { "-" } else { &config },
                        if as_written.is_empty() {
                            String::new()
                        } else {
                            format!(", {as_written}")
                        }
                    );
                }
                rows.push([
                    match &row.dispatch_op {
                        Some(dispatch) => format!("{} -> {dispatch}", row.op),
                        None => row.op.clone(),
                    },
                    loc_text(&row.loc),
                    loops_text(&row.loops),
                    row.element_types.join(","),
                    pair.map_or_else(
                        || "(no match)".to_string(),
                        |p| format!("@{} ({})", p.matcher, loc_text(&p.matcher_loc)),
                    ),
                    if config.is_empty() {
                        "-".into()
                    } else {
                        config
                    },
                ]);
            }
            let widths: Vec<usize> = (0..6)
                .map(|column| {
                    rows.iter()
                        .map(|row| row[column].chars().count())
                        .max()
                        .unwrap_or(0)
                })
                .collect();
            let mut out = String::new();
            for row in &rows {
                let line: Vec<String> = row
                    .iter()
                    .zip(&widths)
                    .enumerate()
                    .map(|(column, (cell, width))| {
                        if column == 5 {
                            cell.clone()
                        } else {
                            format!("{cell:<width$}")
                        }
                    })
                    .collect();
                out.push_str(line.join("  ").trim_end());
                out.push('\n');
            }
            let matched = explanation
                .rows
                .iter()
                .filter(|row| row.pair.is_some())
                .count();
            out.push_str(&format!(
                "{matched} of {} candidate op(s) configured by {} matcher(s)",
                explanation.rows.len(),
                explanation.pairs.len()
            ));
            match explanation.view {
                apply::View::Dispatch => {
                    out.push_str(
                        " in IREE's dispatches (named ops generalized as iree-compile does)",
                    );
                    let differing = explanation.differing();
                    if differing > 0 {
                        out.push_str(&format!(
                            "\n* {differing} op(s) would be configured differently if matched as written (`apply` without --as-dispatch); iree-compile does what the table says"
                        ));
                    }
                }
                apply::View::Written => out.push_str(" (matched as written)"),
            }
            out.push('\n');
            // Where the configs that apply come from, as the specs say.
            let mut provenances: std::collections::BTreeMap<&str, usize> = Default::default();
            for row in &explanation.rows {
                if let Some(pair) = pair_of(row) {
                    *provenances
                        .entry(
                            pair.provenance
                                .as_deref()
                                .unwrap_or("not stated by the spec"),
                        )
                        .or_default() += 1;
                }
            }
            for (provenance, count) in &provenances {
                out.push_str(&format!("provenance: {count} config(s) {provenance}\n"));
            }
            out
        }
    }
}

#[derive(Debug, clap::Args)]
#[command(after_help = super::EXIT_STATUS_HELP)]
pub struct CoverageOpts {
    #[command(flatten)]
    pub library: LibraryArgs,
    /// Payloads (a corpus)
    #[arg(required = true)]
    pub payloads: Vec<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Which IR to match: as iree-compile sees it at dispatch level, or as written
    #[arg(long, value_enum, default_value_t)]
    pub view: apply::View,
}

impl CoverageOpts {
    pub fn run(self) -> ExitStatus {
        let mlir = Mlir::new_threaded();
        let library_bytes = match self.library.link(&mlir) {
            Ok(bytes) => bytes,
            Err(status) => return status,
        };
        let mut explanations = Vec::new();
        for path in &self.payloads {
            let bytes = match read(path) {
                Ok(bytes) => bytes,
                Err(status) => return status,
            };
            match apply::explain(
                &mlir,
                &bytes,
                &path.display().to_string(),
                &library_bytes,
                ATTR_NAME,
                apply::Engine::Auto,
                self.view,
            ) {
                Ok(explanation) => explanations.push(explanation),
                Err(problems) => return fail(problems, &bytes),
            }
        }
        let fired = apply::fired_pairs(&explanations);
        let pairs = explanations
            .first()
            .map(|e| e.pairs.clone())
            .unwrap_or_default();
        let dead: Vec<(usize, &apply::PairInfo)> = pairs
            .iter()
            .enumerate()
            .filter(|(index, _)| !fired.contains(index))
            .collect();
        match self.format {
            Format::Json => super::emit(&format!(
                "{}\n",
                json!({
                    "version": 1,
                    "payloads": self.payloads.len(),
                    "matchers": pairs.len(),
                    "fired": fired.len(),
                    "never_fired": dead.iter().map(|(_, pair)| json!({
                        "matcher": pair.matcher,
                        "action": pair.action,
                        "location": pair.matcher_loc.as_ref().map(ToString::to_string),
                    })).collect::<Vec<_>>(),
                })
            )),
            Format::Human => {
                let mut out = String::new();
                for (_, pair) in &dead {
                    out.push_str(&format!(
                        "never fired: @{} ({})\n",
                        pair.matcher,
                        loc_text(&pair.matcher_loc)
                    ));
                }
                out.push_str(&format!(
                    "{} of {} matcher(s) fired across {} payload(s); {} never fired\n",
                    fired.len(),
                    pairs.len(),
                    self.payloads.len(),
                    dead.len()
                ));
                super::emit(&out);
            }
        }
        ExitStatus::Ok
    }
}
