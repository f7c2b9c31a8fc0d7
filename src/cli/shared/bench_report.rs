//! What `bench` reads and prints besides its options: the library's specs as text (matcher
//! mode), the date of a measurement, the human table.

use tunespec::bench::{Options, Row, Status};
use tunespec::ir;
use tunespec::mlir::Mlir;

use super::common::{emit, emit_stderr, tool_error, ExitStatus, Format, LibraryArgs};
use super::table::{self, Align};

/// What a report says beside its rows: how the rows were timed, by which IREE.
pub struct Report<'a> {
    /// The timing options (device, rounds, rule).
    pub options: &'a Options,
    /// The IREE compiler's revision.
    pub iree: &'a str,
    /// The runtime's version.
    pub runtime: &'a str,
}

/// Prints a bench's rows in `format` (`bench` and `decide`), then the notes of what `--write`
/// wrote into `output`.
pub fn render(
    mlir: &Mlir,
    format: Format,
    rows: &[Row],
    report: &Report<'_>,
    (written, output): (Option<&[String]>, Option<&std::path::Path>),
) {
    let options = report.options;
    if format == Format::Json {
        // The library's entries as they now are: which device each was measured on.
        let entries = output
            .filter(|output| output.exists())
            .and_then(|output| tunespec::bench::measured::library_json(mlir, output).ok());
        let document = serde_json::json!({
            "version": 1,
            "device": options.reported_device(),
            "iree": report.iree,
            "runtime": report.runtime,
            "flags": options.flags,
            "rule": options.rule,
            "rounds": options.rounds,
            "max_rounds": options.max_rounds,
            "repetitions": options.repetitions,
            "rows": rows,
            "written": written,
            "entries": entries,
        });
        emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&document).unwrap_or_default()
        ));
        return;
    }
    match format {
        Format::Short => emit(&short(rows)),
        _ => emit(&table(rows, options, super::table::stdout_width())),
    }
    for note in written.unwrap_or_default() {
        emit_stderr(&format!("note: {note}\n"));
    }
}

/// Exit 1 when a row failed or computed a wrong output, else 0.
pub fn exit_status(rows: &[Row]) -> ExitStatus {
    if rows
        .iter()
        .any(|row| matches!(row.status, Status::Failed | Status::WrongOutput))
    {
        ExitStatus::Problems
    } else {
        ExitStatus::Ok
    }
}

/// The progress callback of a timing command: on a terminal only, one line rewritten in place
/// at each step (an empty line clears it when the run is done), cut to the terminal's width: a
/// line that wrapped could not be rewritten.
pub fn progress_line(command: &'static str) -> impl Fn(&str) + Sync {
    move |line: &str| {
        use std::io::IsTerminal;
        if !super::common::quiet() && std::io::stderr().is_terminal() {
            let width = super::table::stderr_width().unwrap_or(80).max(20);
            let line: String = format!("{command}: {line}")
                .chars()
                .take(width - 1)
                .collect();
            if line.len() == command.len() + 2 {
                emit_stderr("\r\x1b[2K");
            } else {
                emit_stderr(&format!("\r\x1b[2K{line}"));
            }
        }
    }
}

/// The library's specs, highest priority first, as (name, text, snapshot): embedded defaults
/// (bytecode) printed as text, so each matcher can be cut out as written.
pub fn library_specs(
    settings: &tunespec::settings::Settings,
    library: &LibraryArgs,
    mlir: &Mlir,
) -> Result<Vec<(String, String, ir::Module)>, ExitStatus> {
    let inputs = library
        .resolve(settings)
        .map(|resolved| resolved.inputs)
        .map_err(|error| crate::cli::resolve::report_error(&error))?;
    let mut specs = Vec::new();
    for input in inputs {
        let text = if input.bytes.starts_with(tunespec::verify::BYTECODE_MAGIC) {
            match mlir.parse(&input.bytes, &input.name).module {
                Some(module) => module.print_file(),
                None => {
                    tool_error(format!("{}: the spec does not parse", input.name));
                    return Err(ExitStatus::Problems);
                }
            }
        } else {
            String::from_utf8_lossy(&input.bytes).into_owned()
        };
        let verified = tunespec::verify::verify_bytes(mlir, text.as_bytes(), &input.name);
        if verified.has_errors() {
            super::common::report(&verified.problems, Some(text.as_bytes()));
            return Err(ExitStatus::Problems);
        }
        if let Some(module) = verified.snapshot {
            specs.push((input.name, text, module));
        }
    }
    Ok(specs)
}

/// Today's date (UTC), `YYYY-MM-DD`: the date of a measurement.
pub fn today() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    let (year, month, day) = civil_from_days((seconds / 86_400) as i64);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

fn ms(us: f64) -> String {
    format!("{:.3}", us / 1000.0)
}

/// What one row shows: its name (and for a dispatch row, what it holds), its numbers, its
/// verdict, and the message a note below the table gives.
struct Shown {
    /// The name; a dispatch row's is indented under its payload's.
    name: String,
    /// What it measured, one line per op (`linalg.matmul 128x128x128 f32,f32,f32 by @m (spec:5:3)`).
    ops: Vec<String>,
    /// IREE ms, library ms, ratio [interval], p, rounds, outputs.
    numbers: [String; 6],
    verdict: String,
    note: Option<String>,
}

/// `linalg.matmul 128x128x128 f32,f32,f32 by @m (spec.mlir:5:3)`: an op of a row.
pub fn op_text(op: &tunespec::bench::ops::RowOp) -> String {
    let loops = op.loops.as_ref().map(|loops| {
        loops
            .iter()
            .map(|&extent| {
                if extent < 0 {
                    "?".to_string()
                } else {
                    extent.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("x")
    });
    let mut text = op.op.clone();
    if let Some(loops) = loops {
        text.push_str(&format!(" {loops}"));
    }
    if !op.element_types.is_empty() {
        text.push_str(&format!(" {}", op.element_types.join(",")));
    }
    match (&op.matcher, &op.matcher_location) {
        (Some(matcher), Some(at)) => text.push_str(&format!(" by @{matcher} ({at})")),
        (Some(matcher), None) => text.push_str(&format!(" by @{matcher}")),
        (None, _) => text.push_str(" (no matcher)"),
    }
    text
}

/// The most ops a function row lists (a model's function may hold hundreds; its dispatch rows,
/// with `--dispatches`, list each).
const FUNCTION_OPS: usize = 3;

fn shown(rows: &[Row]) -> Vec<Shown> {
    rows.iter()
        .map(|row| {
            let functions = rows
                .iter()
                .filter(|other| other.case == row.case && other.kind == "function")
                .count();
            let name = match row.kind {
                "dispatch" => format!("  {}", row.name),
                _ if functions > 1 => format!("{} @{}", row.case, row.name),
                _ => row.case.clone(),
            };
            let mut ops: Vec<String> = row.ops.iter().map(op_text).collect();
            if row.kind != "dispatch" && ops.len() > FUNCTION_OPS {
                let more = ops.len() - FUNCTION_OPS;
                ops.truncate(FUNCTION_OPS);
                ops.push(format!("and {more} more op(s)"));
            }
            let numbers = match &row.timing {
                Some(t) => [
                    ms(t.baseline.median_us),
                    ms(t.tuned.median_us),
                    match (t.ci_low, t.ci_high) {
                        (Some(low), Some(high)) => format!("{:.3} [{low:.3}, {high:.3}]", t.ratio),
                        _ => format!("{:.3} [unbounded]", t.ratio),
                    },
                    format!("{:.1e}", t.p_value),
                    format!("{}{}", t.rounds, if t.settled { "" } else { "*" }),
                    String::new(),
                ],
                None => Default::default(),
            };
            let mut numbers = numbers;
            numbers[5] = match &row.outputs {
                Some(check) if check.ok => "equal".to_string(),
                Some(_) => "differ".to_string(),
                None => String::new(),
            };
            let note = match (&row.outputs, &row.message) {
                (Some(check), Some(message)) if !check.ok => Some(format!(
                    "{message} (largest difference {:.3e})",
                    check.max_abs_diff
                )),
                (_, Some(message)) if row.timing.is_none() => Some(message.clone()),
                _ => None,
            };
            Shown {
                name,
                ops,
                numbers,
                verdict: row.status.words().to_string(),
                note,
            }
        })
        .collect()
}

const HEADERS: [(&str, Align); 8] = [
    ("payload", Align::Left),
    ("IREE ms", Align::Right),
    ("library ms", Align::Right),
    ("ratio [interval]", Align::Left),
    ("p", Align::Right),
    ("rounds", Align::Right),
    ("outputs", Align::Left),
    ("verdict", Align::Left),
];

/// The human table: one row per timed function or dispatch, the notes of rows that say why
/// (failures, unchanged payloads, wrong outputs), then the rule. `width`: the terminal's, or
/// `None` (every row one line). A table wider than the terminal is stacked instead: each
/// row's name and ops on lines of their own, wrapped between words and path or name parts
/// (never inside one), its numbers on the line below.
pub fn table(rows: &[Row], options: &Options, width: Option<usize>) -> String {
    let shown = shown(rows);
    let mut notes = Vec::new();
    let mut verdict = |row: &Shown| match &row.note {
        Some(note) => {
            notes.push(note.clone());
            format!("{} [{}]", row.verdict, notes.len())
        }
        None => row.verdict.clone(),
    };
    let cells: Vec<Vec<String>> = shown
        .iter()
        .map(|row| {
            let mut name = row.name.clone();
            for op in &row.ops {
                name.push_str(&format!("; {op}"));
            }
            let mut cells = vec![name];
            cells.extend(row.numbers.iter().cloned());
            cells.push(verdict(row));
            cells
        })
        .collect();
    let one_line = table::render(&HEADERS, &cells, None);
    let fits = |text: &str| {
        width.is_none_or(|width| text.lines().all(|line| line.chars().count() <= width))
    };
    let mut text = if fits(&one_line) {
        one_line
    } else {
        stacked(&shown, &cells, width.unwrap_or(80))
    };
    for (index, note) in notes.iter().enumerate() {
        text.push_str(&wrap(&format!("[{}] {note}", index + 1), width, "    "));
    }
    // The footer is prose: wrapped between words like the notes.
    text.push('\n');
    text.push_str(&wrap(&footer(rows, options), width, ""));
    text
}

/// The stacked table: the timed rows' numbers aligned under their headers (outputs left out:
/// a timed row's were equal, `wrong output` says when not), each row's name and ops on lines
/// of their own above its numbers, an untimed row's verdict alone.
fn stacked(shown: &[Shown], cells: &[Vec<String>], width: usize) -> String {
    let numbered: Vec<Vec<String>> = cells
        .iter()
        .filter(|row| !row[1].is_empty())
        .map(|row| {
            let mut numbers = row[1..6].to_vec();
            numbers.push(row[7].clone());
            numbers
        })
        .collect();
    let headers: Vec<(&str, Align)> = HEADERS[1..6].iter().chain(&HEADERS[7..]).copied().collect();
    let rendered = table::render(&headers, &numbered, None);
    let mut lines = rendered.lines();
    let mut text = String::new();
    if let Some(header) = lines.next() {
        text.push_str(&format!("  {header}\n"));
    }
    for (row, cells) in shown.iter().zip(cells) {
        let indent = if row.name.starts_with("  ") { "  " } else { "" };
        text.push_str(&wrap(row.name.trim_start(), Some(width), indent));
        for op in &row.ops {
            text.push_str(&wrap(op, Some(width), &format!("{indent}    ")));
        }
        let numbers = if cells[1].is_empty() {
            cells[7].clone()
        } else {
            lines.next().unwrap_or_default().trim_end().to_string()
        };
        text.push_str(&format!("  {numbers}\n"));
    }
    text
}

/// `text` in lines of at most `width` characters (none: one line), each starting with
/// `indent`, broken only after a space or a path's `/`: a name never breaks inside itself,
/// unless it is longer than a line, and then after one of its `_`, `:` or `,`.
fn wrap(text: &str, width: Option<usize>, indent: &str) -> String {
    let Some(width) = width else {
        return format!("{indent}{text}\n");
    };
    let room = width.saturating_sub(indent.chars().count()).max(16);
    let mut parts = Vec::new();
    for part in split_after(text, &[' ', '/']) {
        if part.trim_end().chars().count() > room {
            parts.extend(split_after(&part, &['_', ':', ',']));
        } else {
            parts.push(part);
        }
    }
    let mut out = String::new();
    let mut line = String::new();
    for part in parts {
        let fits = line.chars().count() + part.trim_end().chars().count() <= room;
        if !line.is_empty() && !fits {
            out.push_str(&format!("{indent}{}\n", line.trim_end()));
            line.clear();
        }
        line.push_str(&part);
    }
    if !line.trim().is_empty() || out.is_empty() {
        out.push_str(&format!("{indent}{}\n", line.trim_end()));
    }
    out
}

/// `text` in parts, each ending after one of `breaks` (the last: wherever the text ends).
fn split_after(text: &str, breaks: &[char]) -> Vec<String> {
    let mut parts = Vec::new();
    let mut part = String::new();
    for c in text.chars() {
        part.push(c);
        if breaks.contains(&c) {
            parts.push(std::mem::take(&mut part));
        }
    }
    if !part.is_empty() {
        parts.push(part);
    }
    parts
}

/// The device the rows were timed on, or the devices (`cuda (cuda://0, cuda://1)`).
fn devices_words(options: &Options) -> String {
    if options.also.is_empty() {
        return options.device.to_string();
    }
    let all: Vec<String> = options.devices().iter().map(ToString::to_string).collect();
    format!("{} ({})", options.reported_device(), all.join(", "))
}

/// The rule the verdicts follow, after the table.
fn footer(rows: &[Row], options: &Options) -> String {
    let looks = tunespec::bench::stats::looks(options.rounds, options.max_rounds).len();
    format!(
        "{} on {}: {} paired round(s) of {} repetition(s); ratio: the median of the rounds' ratios, interval at {}% (sign test, --alpha {} over {looks} look(s)); faster/slower: the interval excludes 1 and the ratio is {:.0}% from 1; else no difference{}",
        rows.len(),
        devices_words(options),
        if options.max_rounds > options.rounds {
            format!("{} to {}", options.rounds, options.max_rounds)
        } else {
            options.rounds.to_string()
        },
        options.repetitions,
        tunespec::bench::stats::percent(1.0 - options.rule.alpha / looks as f64),
        options.rule.alpha,
        options.rule.min_effect * 100.0,
        if rows
            .iter()
            .any(|row| row.timing.as_ref().is_some_and(|t| !t.settled))
        {
            "; * unsettled: more rounds (--max-rounds, --budget) could decide it"
        } else {
            ""
        }
    )
}

/// `--format short`: one line per row, nothing else: `case name: verdict ratio [interval] p
/// rounds`, a dispatch row's op, a note's first line.
pub fn short(rows: &[Row]) -> String {
    let mut text = String::new();
    for row in rows {
        text.push_str(&format!(
            "{} {}: {}",
            row.case,
            row.name,
            row.status.words()
        ));
        if let Some(t) = &row.timing {
            let interval = match (t.ci_low, t.ci_high) {
                (Some(low), Some(high)) => format!("[{low:.3}, {high:.3}]"),
                _ => "[unbounded]".to_string(),
            };
            text.push_str(&format!(
                " {:.3} {interval} p={:.1e} rounds={}",
                t.ratio, t.p_value, t.rounds
            ));
        }
        if row.kind == "dispatch" {
            if let Some(op) = row.ops.first() {
                text.push_str(&format!(" ({})", op_text(op)));
            }
        }
        if let (None, Some(message)) = (&row.timing, &row.message) {
            text.push_str(&format!(": {}", message.lines().next().unwrap_or_default()));
        }
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use tunespec::bench::ops::RowOp;
    use tunespec::bench::{stats, Options, Row, Status};

    fn options() -> Options {
        Options {
            also: Vec::new(),
            device: tunespec::device::Device::parse("local-task").unwrap(),
            flags: Vec::new(),
            jobs: 1,
            rounds: 10,
            max_rounds: 40,
            budget: None,
            repetitions: 3,
            min_time: 0.2,
            rule: stats::Rule::default(),
            tolerance: None,
            dispatches: true,
            time_unchanged: false,
            keep: None,
            compile_timeout: std::time::Duration::from_secs(1),
            run_timeout: std::time::Duration::from_secs(1),
        }
    }

    fn rows() -> Vec<Row> {
        let rounds: Vec<stats::Round> = (0..10)
            .map(|i| (vec![100.0 + f64::from(i)], vec![2500.0 + f64::from(i)]))
            .collect();
        let timing = stats::compare_rounds(&rounds, stats::Rule::default(), 0.005);
        let op = RowOp {
            op: "linalg.matmul".into(),
            loops: Some(vec![128, 128, 128]),
            element_types: vec!["f32".into(); 3],
            location: Some("models/two_matmuls_model.mlir:8:11".into()),
            matcher: Some("two_matmuls::match_mm_128_tiny_tiles".into()),
            matcher_location: Some("cpu_lib/specs/two_matmuls.mlir:5:3".into()),
        };
        let row = |kind: &'static str, name: &str, status: Status| Row {
            case: "tests/fixtures/bench/two_matmuls_model.mlir".into(),
            kind,
            name: name.into(),
            matcher: None,
            status,
            message: None,
            timing: Some(timing.clone()),
            outputs: None,
            samples_us: None,
            ops: vec![op.clone()],
        };
        let mut unchanged = row("function", "main", Status::Unchanged);
        unchanged.case = "tests/fixtures/models/linalg_matmul_256_f32.mlir".into();
        unchanged.timing = None;
        unchanged.ops = Vec::new();
        unchanged.message = Some(
            "the library gives none of its 1 dispatch(es) another config than IREE's own".into(),
        );
        vec![
            row("function", "main", Status::Slower),
            row(
                "dispatch",
                "two_matmuls_main_dispatch_0_embedded_elf_x86_64",
                Status::Slower,
            ),
            unchanged,
        ]
    }

    #[test]
    fn at_80_columns_no_line_is_wider_and_no_name_breaks() {
        let text = super::table(&rows(), &options(), Some(80));
        assert!(
            text.lines().all(|line| line.chars().count() <= 80),
            "{text}"
        );
        for name in [
            "two_matmuls_main_dispatch_0_embedded_elf_x86_64",
            "two_matmuls::match_mm_128_tiny_tiles",
            "tests/fixtures/models/linalg_matmul_256_f32.mlir",
            "linalg.matmul 128x128x128 f32,f32,f32",
        ] {
            assert!(
                text.lines().any(|line| line.contains(name)),
                "{name}: {text}"
            );
        }
        // The interval and p are shown; the unchanged row's reason is a note.
        assert!(
            text.contains("ratio [interval]") && text.contains(" p "),
            "{text}"
        );
        assert!(text.contains("unchanged [1]") && text.contains("[1] the library gives"));
    }

    #[test]
    fn off_a_terminal_each_row_is_one_line_and_short_is_shorter() {
        let rows = rows();
        let human = super::table(&rows, &options(), None);
        assert!(
            human.lines().any(|line| line.starts_with(
                "  two_matmuls_main_dispatch_0_embedded_elf_x86_64; linalg.matmul 128x128x128"
            )),
            "{human}"
        );
        let short = super::short(&rows);
        assert_eq!(short.lines().count(), rows.len(), "{short}");
        assert!(short.len() < human.len(), "{short}\n{human}");
        assert!(short.contains("slower 23.967 [23.018, 25.000]"), "{short}");
        assert!(short.contains("(linalg.matmul 128x128x128 f32,f32,f32 by @two_matmuls::match_mm_128_tiny_tiles (cpu_lib/specs/two_matmuls.mlir:5:3))"), "{short}");
    }

    #[test]
    fn wrapping_breaks_between_words_and_path_parts() {
        assert_eq!(
            super::wrap("aaaa bbbb/cccc dddd", Some(16), "  "),
            "  aaaa bbbb/cccc\n  dddd\n"
        );
        // A name longer than a line breaks after its own separators.
        let long = super::wrap("x_aaaaaaaaaaaaaaaa_bbbbbbbbbbbbbbb", Some(20), "");
        assert_eq!(long, "x_aaaaaaaaaaaaaaaa_\nbbbbbbbbbbbbbbb\n");
        assert_eq!(super::wrap("one line", None, "> "), "> one line\n");
    }

    #[test]
    fn days_become_dates() {
        assert_eq!(super::civil_from_days(0), (1970, 1, 1));
        assert_eq!(super::civil_from_days(20_783), (2026, 11, 26));
        assert_eq!(super::civil_from_days(11_016), (2000, 2, 29));
    }
}
