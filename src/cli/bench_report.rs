//! What `bench` reads and prints besides its options: the library's specs as text (matcher
//! mode), the date of a measurement, the human table.

use tunespec::bench::{Options, Row};
use tunespec::ir;
use tunespec::mlir::Mlir;

use super::common::{tool_error, ExitStatus, LibraryArgs};
use super::table::{self, Align};

/// The library's specs, highest priority first, as (name, text, snapshot): embedded defaults
/// (bytecode) printed as text, so each matcher can be cut out as written.
pub fn library_specs(
    library: &LibraryArgs,
    mlir: &Mlir,
) -> Result<Vec<(String, String, ir::Module)>, ExitStatus> {
    let inputs = library
        .inputs()
        .map_err(|error| super::resolve::report_error(&error))?;
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

/// The human table: one row per timed function or dispatch, then the rule.
pub fn table(rows: &[Row], options: &Options) -> String {
    let headers = [
        ("payload", Align::Wrap),
        ("kind", Align::Left),
        ("IREE ms", Align::Right),
        ("library ms", Align::Right),
        ("ratio [interval]", Align::Left),
        ("p", Align::Right),
        ("rounds", Align::Right),
        ("outputs", Align::Left),
        ("verdict", Align::Left),
    ];
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            let name = if row.kind == "dispatch" {
                format!("  {}", row.name)
            } else {
                row.case.clone()
            };
            let (base, tuned, ratio, p, rounds) = match &row.timing {
                Some(t) => (
                    ms(t.baseline.median_us),
                    ms(t.tuned.median_us),
                    match (t.ci_low, t.ci_high) {
                        (Some(low), Some(high)) => format!("{:.3} [{low:.3}, {high:.3}]", t.ratio),
                        _ => format!("{:.3} [unbounded]", t.ratio),
                    },
                    format!("{:.1e}", t.p_value),
                    format!("{}{}", t.rounds, if t.settled { "" } else { "*" }),
                ),
                None => Default::default(),
            };
            let outputs = match &row.outputs {
                Some(check) if check.ok => "equal".to_string(),
                Some(check) => format!("differ (max {:.3e})", check.max_abs_diff),
                None => String::new(),
            };
            let verdict = match &row.message {
                Some(message) if row.timing.is_none() => {
                    format!("{}: {message}", row.status.words())
                }
                _ => row.status.words().to_string(),
            };
            vec![
                name,
                row.kind.to_string(),
                base,
                tuned,
                ratio,
                p,
                rounds,
                outputs,
                verdict,
            ]
        })
        .collect();
    let mut text = table::render(&headers, &cells, table::stdout_width());
    let looks = tunespec::bench::stats::looks(options.rounds, options.max_rounds).len();
    text.push_str(&format!(
        "\n{} on {}: {} paired round(s) of {} repetition(s); ratio: the median of the rounds' ratios, interval at {}% (sign test, --alpha {} over {looks} look(s)); faster/slower: the interval excludes 1 and the ratio is {:.0}% from 1; else no difference{}\n",
        rows.len(),
        options.device,
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
    ));
    text
}

#[cfg(test)]
mod tests {
    #[test]
    fn days_become_dates() {
        assert_eq!(super::civil_from_days(0), (1970, 1, 1));
        assert_eq!(super::civil_from_days(20_783), (2026, 11, 26));
        assert_eq!(super::civil_from_days(11_016), (2000, 2, 29));
    }
}
