//! Text rendering of a diff: changed words marked `[-old-]` / `{+new+}`, or,
//! on a terminal without `NO_COLOR`, deleted lines red, inserted lines green
//! and changed words in reverse video (plain ANSI escapes).

use std::io::IsTerminal;

use agent_handover::domain::memory::diff::{DiffRow, Hunk, RowKind, Segment, StateDiff};

const RESET: &str = "\x1b[0m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const REVERSE: &str = "\x1b[7m";
const NO_REVERSE: &str = "\x1b[27m";
/// Width of a side-by-side line when `$COLUMNS` does not say.
const DEFAULT_COLUMNS: usize = 160;
/// Line-number gutter of a side-by-side column: `1234 - `.
const GUTTER: usize = 7;
const DIVIDER: &str = " │ ";

/// How changed lines and words are shown.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    color: bool,
}

impl Style {
    /// Color when stdout is a terminal and `NO_COLOR` is unset or empty
    /// (<https://no-color.org>); word markers otherwise.
    pub fn detect() -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            color: std::io::stdout().is_terminal() && !no_color,
        }
    }

    /// One unified-diff line: prefix and text, without the terminator.
    pub fn row(&self, row: &DiffRow) -> String {
        let mut pieces = vec![Segment {
            text: row.kind.prefix().to_string(),
            emphasized: false,
        }];
        pieces.extend(self.pieces(row));
        self.paint(row.kind, &pieces)
    }

    /// The hunks as two columns, old on the left, each with its header.
    pub fn side_by_side(&self, diff: &StateDiff, hunks: &[Hunk]) -> String {
        let columns = std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.parse::<usize>().ok())
            .unwrap_or(DEFAULT_COLUMNS);
        let width = (columns.saturating_sub(DIVIDER.chars().count()) / 2).max(GUTTER + 8);
        let mut out = String::new();
        for hunk in hunks {
            out += &hunk.header();
            out.push('\n');
            for row in diff.side_by_side_rows(hunk.side_by_side_rows.clone()) {
                out += &self.cell(row.old.as_ref(), width);
                out += DIVIDER;
                out += self.cell(row.new.as_ref(), width).trim_end();
                out.push('\n');
            }
        }
        out
    }

    /// One column of a side-by-side line, `width` characters wide.
    fn cell(&self, row: Option<&DiffRow>, width: usize) -> String {
        let Some(row) = row else {
            return " ".repeat(width);
        };
        let line = row.old_line.or(row.new_line).unwrap_or(0);
        let mut pieces = vec![Segment {
            text: format!("{line:>4} {} ", row.kind.prefix()),
            emphasized: false,
        }];
        pieces.extend(self.pieces(row));
        let (pieces, used) = clip(pieces, width);
        self.paint(row.kind, &pieces) + &" ".repeat(width - used)
    }

    /// The row's segments as shown: as they are for color, with changed
    /// words wrapped in markers otherwise.
    fn pieces(&self, row: &DiffRow) -> Vec<Segment> {
        if self.color {
            return row.segments.clone();
        }
        row.segments
            .iter()
            .map(|s| Segment {
                text: match (s.emphasized, row.kind) {
                    (false, _) => s.text.clone(),
                    (true, RowKind::Delete) => format!("[-{}-]", s.text),
                    (true, _) => format!("{{+{}+}}", s.text),
                },
                emphasized: false,
            })
            .collect()
    }

    fn paint(&self, kind: RowKind, pieces: &[Segment]) -> String {
        if !self.color {
            return pieces.iter().map(|p| p.text.as_str()).collect();
        }
        let color = match kind {
            RowKind::Equal => return pieces.iter().map(|p| p.text.as_str()).collect(),
            RowKind::Delete => RED,
            RowKind::Insert => GREEN,
        };
        let mut out = String::from(color);
        for p in pieces {
            if p.emphasized {
                out += &format!("{REVERSE}{}{NO_REVERSE}", p.text);
            } else {
                out += &p.text;
            }
        }
        out + RESET
    }
}

/// The first `width` characters of `pieces` (the last one `…` if cut), and
/// how many characters that is.
fn clip(pieces: Vec<Segment>, width: usize) -> (Vec<Segment>, usize) {
    let total: usize = pieces.iter().map(|p| p.text.chars().count()).sum();
    if total <= width {
        return (pieces, total);
    }
    let mut left = width - 1;
    let mut out = Vec::new();
    for p in pieces {
        let n = p.text.chars().count();
        if n >= left {
            out.push(Segment {
                text: p.text.chars().take(left).collect::<String>() + "…",
                emphasized: p.emphasized,
            });
            break;
        }
        left -= n;
        out.push(p);
    }
    (out, width)
}
