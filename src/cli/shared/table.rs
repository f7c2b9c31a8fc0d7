//! Plain tables for `targets` and `explain` (comfy-table): a header row, columns two spaces
//! apart, no borders. On a terminal the table fits its width: the columns marked
//! [`Align::Wrap`] (descriptions, locations, configs) wrap inside themselves, the others
//! (names, counts, hashes) stay whole; anywhere else every row is one line, so `grep` and `awk`
//! see whole rows and captured output does not depend on a width.

use comfy_table::{presets, CellAlignment, ColumnConstraint, ContentArrangement, Table, Width};

/// How a column's cells are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Left-aligned, never wrapped (names, numbers as text, hashes).
    Left,
    /// Right-aligned, never wrapped (counts).
    Right,
    /// Left-aligned; wraps inside its column to fit a terminal (descriptions, paths, configs).
    Wrap,
}

/// The narrowest a wrapping column gets (unless its content is narrower).
const MIN_WRAP_WIDTH: usize = 16;

/// Renders `rows` under `headers`; `width`: the terminal's width to fit, or `None` (not a
/// terminal) for rows that are never wrapped. Lines carry no trailing spaces.
pub fn render(headers: &[(&str, Align)], rows: &[Vec<String>], width: Option<usize>) -> String {
    let mut table = Table::new();
    table.load_preset(presets::NOTHING);
    match width {
        Some(width) => {
            table.set_content_arrangement(ContentArrangement::Dynamic);
            table.set_width(u16::try_from(width).unwrap_or(u16::MAX));
        }
        None => {
            table.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
    table.set_header(headers.iter().map(|(name, _)| *name));
    for row in rows {
        table.add_row(row);
    }
    let last = headers.len().saturating_sub(1);
    for (index, (_, align)) in headers.iter().enumerate() {
        let content = std::iter::once(headers[index].0.chars().count())
            .chain(rows.iter().filter_map(|row| row.get(index)).map(|cell| {
                cell.lines()
                    .map(|line| line.chars().count())
                    .max()
                    .unwrap_or(0)
            }))
            .max()
            .unwrap_or(0);
        if let Some(column) = table.column_mut(index) {
            column.set_padding((0, if index == last { 0 } else { 2 }));
            column.set_cell_alignment(match align {
                Align::Left | Align::Wrap => CellAlignment::Left,
                Align::Right => CellAlignment::Right,
            });
            column.set_constraint(match align {
                Align::Left | Align::Right => ColumnConstraint::ContentWidth,
                Align::Wrap => ColumnConstraint::LowerBoundary(Width::Fixed(
                    u16::try_from(content.min(MIN_WRAP_WIDTH)).unwrap_or(u16::MAX),
                )),
            });
        }
    }
    let mut out = String::new();
    for line in table.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The width tables on stdout fit: the terminal's (or `TUNESPEC_TERM_WIDTH`) when stdout is a
/// terminal; `None` otherwise.
pub fn stdout_width() -> Option<usize> {
    use std::io::IsTerminal;
    std::io::stdout()
        .is_terminal()
        .then(|| crate::diagnostics::Style::detect().width)
}

/// The same for tables on stderr (`apply --explain`).
pub fn stderr_width() -> Option<usize> {
    use std::io::IsTerminal;
    std::io::stderr()
        .is_terminal()
        .then(|| crate::diagnostics::Style::detect_stderr().width)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<Vec<String>> {
        vec![
            vec![
                "gfx942".into(),
                "2".into(),
                "AMD CDNA3 (MI300X, MI300A, MI325X)".into(),
            ],
            vec!["sm_90".into(), "12".into(), "NVIDIA Hopper (H100)".into()],
        ]
    }

    const HEADERS: [(&str, Align); 3] = [
        ("target", Align::Left),
        ("specs", Align::Right),
        ("description", Align::Wrap),
    ];

    #[test]
    fn off_a_terminal_every_row_is_one_plain_line() {
        assert_eq!(
            render(&HEADERS, &rows(), None),
            "target  specs  description\n\
             gfx942      2  AMD CDNA3 (MI300X, MI300A, MI325X)\n\
             sm_90      12  NVIDIA Hopper (H100)\n"
        );
    }

    #[test]
    fn on_a_terminal_the_table_fits_its_width() {
        let text = render(&HEADERS, &rows(), Some(40));
        assert!(
            text.lines().all(|line| line.chars().count() <= 40),
            "{text}"
        );
        assert!(
            text.lines().count() > 3,
            "the long description wraps: {text}"
        );
        assert!(text.contains("MI325X"), "{text}");
        // Wide enough: the same as off a terminal.
        assert_eq!(
            render(&HEADERS, &rows(), Some(200)),
            render(&HEADERS, &rows(), None)
        );
    }
}
