//! A line diff of two versions of `current-state.md`, built for views that
//! show a window of a long file.
//!
//! [`StateDiff::new`] runs the line diff once (with a deadline, so
//! pathological input degrades to a coarser diff instead of hanging) and
//! keeps only owned texts, line offsets and [`DiffOp`]s. Rows are built on
//! demand: [`StateDiff::rows`] and [`StateDiff::side_by_side_rows`] build
//! exactly the rows asked for, word-level emphasis included, so a dashboard
//! scrolling a 10,000-line file pays only for the lines on screen.
//!
//! Lines compare exactly, terminator included (as `git diff` does): a line
//! whose ending changed from `\n` to `\r\n`, or that lost its final newline,
//! is a changed line. The terminator is not part of a row's text; it is
//! reported as [`Eol`], and [`StateDiff::unified`] writes it back (with
//! `\ No newline at end of file` where there is none).

use std::collections::HashMap;
use std::ops::Range;
use std::time::{Duration, Instant};

use serde::Serialize;
use similar::{Algorithm, ChangeTag, DiffOp, DiffTag, TextDiff};

/// Time allowed for the line diff before it settles for a coarser result.
const LINE_DIFF_TIMEOUT: Duration = Duration::from_millis(500);
/// Time allowed for the word diff of one pair of lines.
const WORD_DIFF_TIMEOUT: Duration = Duration::from_millis(20);
/// Pairs of lines longer than this together get no word-level emphasis.
const WORD_DIFF_MAX_BYTES: usize = 16 * 1024;

/// What a row shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RowKind {
    /// A line both versions have.
    Equal,
    /// A line only the old version has.
    Delete,
    /// A line only the new version has.
    Insert,
}

impl RowKind {
    /// The unified-diff prefix: ` `, `-` or `+`.
    pub fn prefix(self) -> char {
        match self {
            RowKind::Equal => ' ',
            RowKind::Delete => '-',
            RowKind::Insert => '+',
        }
    }
}

/// How a line ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Eol {
    /// `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
    /// Nothing: the last line of a file without a final newline.
    None,
}

impl Eol {
    fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::CrLf => "\r\n",
            Eol::None => "",
        }
    }
}

/// A run of a row's text; `emphasized` marks words that changed within a
/// line paired with its counterpart (the i-th deleted line of a replaced
/// block with the i-th inserted one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Segment {
    /// The text (never contains the line terminator).
    pub text: String,
    /// True for words that differ from the paired line.
    pub emphasized: bool,
}

/// One line of the diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffRow {
    /// Equal, deleted or inserted.
    pub kind: RowKind,
    /// 1-based line number in the old version (none for an insertion).
    pub old_line: Option<usize>,
    /// 1-based line number in the new version (none for a deletion).
    pub new_line: Option<usize>,
    /// The line's text in runs; empty for an empty line.
    pub segments: Vec<Segment>,
    /// How the line ends.
    pub eol: Eol,
}

impl DiffRow {
    /// The line's text, without its terminator.
    pub fn text(&self) -> String {
        self.segments.iter().map(|s| s.text.as_str()).collect()
    }
}

/// One row of a two-column view: the old line on the left, the new on the right.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SideBySideRow {
    /// The old side (none where lines were only inserted).
    pub old: Option<DiffRow>,
    /// The new side (none where lines were only deleted).
    pub new: Option<DiffRow>,
}

/// How much changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DiffStats {
    /// Lines only the new version has.
    pub added: usize,
    /// Lines only the old version has.
    pub removed: usize,
}

/// A group of changes with their context, as in a unified diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hunk {
    /// 0-based index of the first old line shown.
    pub old_start: usize,
    /// Old lines shown.
    pub old_len: usize,
    /// 0-based index of the first new line shown.
    pub new_start: usize,
    /// New lines shown.
    pub new_len: usize,
    /// Its rows, for [`StateDiff::rows`].
    pub rows: Range<usize>,
    /// Its rows, for [`StateDiff::side_by_side_rows`].
    pub side_by_side_rows: Range<usize>,
}

impl Hunk {
    /// The `@@ -a,b +c,d @@` line (git's conventions for empty and one-line ranges).
    pub fn header(&self) -> String {
        fn range(start: usize, len: usize) -> String {
            match len {
                0 => format!("{start},0"),
                1 => format!("{}", start + 1),
                _ => format!("{},{len}", start + 1),
            }
        }
        format!(
            "@@ -{} +{} @@",
            range(self.old_start, self.old_len),
            range(self.new_start, self.new_len)
        )
    }
}

/// A text split into lines, kept as offsets into the owned text.
#[derive(Debug, Clone)]
struct Lines {
    text: String,
    /// Per line: the byte range of its content (terminator excluded) and its ending.
    lines: Vec<(Range<usize>, Eol)>,
}

impl Lines {
    fn new(text: String) -> Self {
        let mut lines = Vec::new();
        let mut start = 0;
        for piece in text.split_inclusive('\n') {
            let end = start + piece.len();
            let (content, eol) = if let Some(p) = piece.strip_suffix("\r\n") {
                (p, Eol::CrLf)
            } else if let Some(p) = piece.strip_suffix('\n') {
                (p, Eol::Lf)
            } else {
                (piece, Eol::None)
            };
            lines.push((start..start + content.len(), eol));
            start = end;
        }
        Lines { text, lines }
    }

    fn len(&self) -> usize {
        self.lines.len()
    }

    fn content(&self, i: usize) -> &str {
        &self.text[self.lines[i].0.clone()]
    }

    fn eol(&self, i: usize) -> Eol {
        self.lines[i].1
    }

    /// The line with its terminator: what lines are compared by.
    fn full(&self, i: usize) -> &str {
        let (range, eol) = &self.lines[i];
        &self.text[range.start..range.end + eol.as_str().len()]
    }
}

/// The diff of two texts; see the module docs.
#[derive(Debug, Clone)]
pub struct StateDiff {
    old: Lines,
    new: Lines,
    ops: Vec<DiffOp>,
    /// First unified row of each op, plus the total at the end.
    row_starts: Vec<usize>,
    /// First side-by-side row of each op, plus the total at the end.
    side_starts: Vec<usize>,
}

impl StateDiff {
    /// Diff `old` against `new` by lines.
    pub fn new(old: impl Into<String>, new: impl Into<String>) -> Self {
        let old = Lines::new(old.into());
        let new = Lines::new(new.into());
        // Intern lines so the diff compares integers, not strings.
        let mut ids: HashMap<&str, u32> = HashMap::with_capacity(old.len() + new.len());
        let (old_ids, new_ids) = (intern(&old, &mut ids), intern(&new, &mut ids));
        let ops = renumber(similar::capture_diff_slices_deadline(
            Algorithm::Myers,
            &old_ids,
            &new_ids,
            Some(Instant::now() + LINE_DIFF_TIMEOUT),
        ));
        let starts = |count: fn(&DiffOp) -> usize| {
            let mut acc = 0;
            let mut v: Vec<usize> = ops
                .iter()
                .map(|op| {
                    let s = acc;
                    acc += count(op);
                    s
                })
                .collect();
            v.push(acc);
            v
        };
        let row_starts = starts(|op| match op.tag() {
            DiffTag::Equal => op.old_range().len(),
            _ => op.old_range().len() + op.new_range().len(),
        });
        let side_starts = starts(|op| op.old_range().len().max(op.new_range().len()));
        StateDiff {
            old,
            new,
            ops,
            row_starts,
            side_starts,
        }
    }

    /// Rows of the unified view (each deleted line, then each inserted one).
    pub fn len(&self) -> usize {
        *self.row_starts.last().expect("never empty")
    }

    /// True when there are no rows at all: both texts are empty. (Equal
    /// texts have rows, all [`RowKind::Equal`]; to ask "did anything change",
    /// see [`stats`](Self::stats) or [`hunks`](Self::hunks).)
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Rows of the two-column view.
    pub fn side_by_side_len(&self) -> usize {
        *self.side_starts.last().expect("never empty")
    }

    /// Lines added and removed.
    pub fn stats(&self) -> DiffStats {
        let mut stats = DiffStats {
            added: 0,
            removed: 0,
        };
        for op in self.ops.iter().filter(|op| op.tag() != DiffTag::Equal) {
            stats.added += op.new_range().len();
            stats.removed += op.old_range().len();
        }
        stats
    }

    /// Unified rows `range` (clamped to [`len`](Self::len)), built on demand.
    pub fn rows(&self, range: Range<usize>) -> Vec<DiffRow> {
        let range = clamp(range, self.len());
        let mut rows = Vec::with_capacity(range.len());
        let mut r = range.start;
        while r < range.end {
            let i = op_at(&self.row_starts, r);
            let op = self.ops[i];
            let end = range.end.min(self.row_starts[i + 1]);
            for k in r - self.row_starts[i]..end - self.row_starts[i] {
                rows.push(self.unified_row(op, k));
            }
            r = end;
        }
        rows
    }

    /// Side-by-side rows `range` (clamped to
    /// [`side_by_side_len`](Self::side_by_side_len)), built on demand.
    pub fn side_by_side_rows(&self, range: Range<usize>) -> Vec<SideBySideRow> {
        let range = clamp(range, self.side_by_side_len());
        let mut rows = Vec::with_capacity(range.len());
        let mut r = range.start;
        while r < range.end {
            let i = op_at(&self.side_starts, r);
            let op = self.ops[i];
            let end = range.end.min(self.side_starts[i + 1]);
            for k in r - self.side_starts[i]..end - self.side_starts[i] {
                rows.push(self.side_row(op, k));
            }
            r = end;
        }
        rows
    }

    /// The first row of each change (a run of deleted and inserted lines),
    /// in the unified view or the two-column one: where "next change" jumps.
    pub fn change_starts(&self, side_by_side: bool) -> Vec<usize> {
        let starts = if side_by_side {
            &self.side_starts
        } else {
            &self.row_starts
        };
        self.ops
            .iter()
            .enumerate()
            .filter(|&(i, op)| {
                op.tag() != DiffTag::Equal && (i == 0 || self.ops[i - 1].tag() == DiffTag::Equal)
            })
            .map(|(i, _)| starts[i])
            .collect()
    }

    /// The changes grouped with `context` unchanged lines around each, as in
    /// a unified diff (groups closer than `2 * context` lines merge).
    pub fn hunks(&self, context: usize) -> Vec<Hunk> {
        let mut spans: Vec<Range<usize>> = Vec::new();
        for (i, op) in self.ops.iter().enumerate() {
            if op.tag() == DiffTag::Equal {
                continue;
            }
            let start = self.row_starts[i].saturating_sub(context);
            let end = (self.row_starts[i + 1] + context).min(self.len());
            match spans.last_mut() {
                Some(last) if start <= last.end => last.end = end,
                _ => spans.push(start..end),
            }
        }
        spans.into_iter().map(|rows| self.hunk(rows)).collect()
    }

    /// A unified diff with `context` lines of context: hunk headers and
    /// ` `/`-`/`+` lines, each with its original terminator. Empty when the
    /// texts are equal.
    pub fn unified(&self, context: usize) -> String {
        self.unified_with(context, |row| {
            format!("{}{}", row.kind.prefix(), row.text())
        })
    }

    /// [`unified`](Self::unified), with each row rendered (prefix included,
    /// terminator excluded) by `render`, e.g. to color it or mark changed words.
    pub fn unified_with(
        &self,
        context: usize,
        mut render: impl FnMut(&DiffRow) -> String,
    ) -> String {
        let mut out = String::new();
        for hunk in self.hunks(context) {
            out += &hunk.header();
            out.push('\n');
            for row in self.rows(hunk.rows) {
                out += &render(&row);
                match row.eol {
                    Eol::None => out += "\n\\ No newline at end of file\n",
                    eol => out += eol.as_str(),
                }
            }
        }
        out
    }

    fn hunk(&self, rows: Range<usize>) -> Hunk {
        let (old_start, new_start) = self.position(rows.start);
        let (old_end, new_end) = self.position(rows.end);
        Hunk {
            old_start,
            old_len: old_end - old_start,
            new_start,
            new_len: new_end - new_start,
            side_by_side_rows: self.side_row_of(rows.start)..self.side_row_of(rows.end),
            rows,
        }
    }

    /// Old and new lines before unified row `r`.
    fn position(&self, r: usize) -> (usize, usize) {
        if r >= self.len() {
            return (self.old.len(), self.new.len());
        }
        let i = op_at(&self.row_starts, r);
        let (tag, old, new) = self.ops[i].as_tag_tuple();
        let k = r - self.row_starts[i];
        match tag {
            DiffTag::Equal => (old.start + k, new.start + k),
            DiffTag::Insert => (old.start, new.start + k),
            _ if k < old.len() => (old.start + k, new.start),
            _ => (old.end, new.start + k - old.len()),
        }
    }

    /// The side-by-side row showing unified row `r`.
    fn side_row_of(&self, r: usize) -> usize {
        if r >= self.len() {
            return self.side_by_side_len();
        }
        let i = op_at(&self.row_starts, r);
        let k = r - self.row_starts[i];
        let old_len = self.ops[i].old_range().len();
        let k = match self.ops[i].tag() {
            DiffTag::Replace if k >= old_len => k - old_len,
            _ => k,
        };
        self.side_starts[i] + k
    }

    fn unified_row(&self, op: DiffOp, k: usize) -> DiffRow {
        let (tag, old, new) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => self.equal_row(old.start + k, new.start + k),
            DiffTag::Delete => self.plain_row(RowKind::Delete, old.start + k),
            DiffTag::Insert => self.plain_row(RowKind::Insert, new.start + k),
            DiffTag::Replace if k < old.len() => self.changed_row(op, k, RowKind::Delete),
            DiffTag::Replace => self.changed_row(op, k - old.len(), RowKind::Insert),
        }
    }

    fn side_row(&self, op: DiffOp, k: usize) -> SideBySideRow {
        let (tag, old, new) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {
                let row = self.equal_row(old.start + k, new.start + k);
                SideBySideRow {
                    old: Some(row.clone()),
                    new: Some(row),
                }
            }
            DiffTag::Delete => SideBySideRow {
                old: Some(self.plain_row(RowKind::Delete, old.start + k)),
                new: None,
            },
            DiffTag::Insert => SideBySideRow {
                old: None,
                new: Some(self.plain_row(RowKind::Insert, new.start + k)),
            },
            DiffTag::Replace if k < old.len() && k < new.len() => {
                let (old_segments, new_segments) = word_diff(
                    self.old.content(old.start + k),
                    self.new.content(new.start + k),
                );
                SideBySideRow {
                    old: Some(self.row(RowKind::Delete, old.start + k, old_segments)),
                    new: Some(self.row(RowKind::Insert, new.start + k, new_segments)),
                }
            }
            DiffTag::Replace => SideBySideRow {
                old: (k < old.len()).then(|| self.plain_row(RowKind::Delete, old.start + k)),
                new: (k < new.len()).then(|| self.plain_row(RowKind::Insert, new.start + k)),
            },
        }
    }

    fn equal_row(&self, old: usize, new: usize) -> DiffRow {
        DiffRow {
            kind: RowKind::Equal,
            old_line: Some(old + 1),
            new_line: Some(new + 1),
            segments: plain(self.old.content(old)),
            eol: self.old.eol(old),
        }
    }

    /// The `k`-th deleted or inserted line of a replace op, with its words
    /// emphasized against its counterpart when it has one.
    fn changed_row(&self, op: DiffOp, k: usize, kind: RowKind) -> DiffRow {
        let (old, new) = (op.old_range(), op.new_range());
        if k >= old.len().min(new.len()) {
            let line = if kind == RowKind::Delete {
                old.start + k
            } else {
                new.start + k
            };
            return self.plain_row(kind, line);
        }
        let (old_segments, new_segments) = word_diff(
            self.old.content(old.start + k),
            self.new.content(new.start + k),
        );
        match kind {
            RowKind::Delete => self.row(kind, old.start + k, old_segments),
            _ => self.row(kind, new.start + k, new_segments),
        }
    }

    fn plain_row(&self, kind: RowKind, line: usize) -> DiffRow {
        let lines = if kind == RowKind::Delete {
            &self.old
        } else {
            &self.new
        };
        self.row(kind, line, plain(lines.content(line)))
    }

    fn row(&self, kind: RowKind, line: usize, segments: Vec<Segment>) -> DiffRow {
        let (lines, old_line, new_line) = match kind {
            RowKind::Delete => (&self.old, Some(line + 1), None),
            _ => (&self.new, None, Some(line + 1)),
        };
        DiffRow {
            kind,
            old_line,
            new_line,
            segments,
            eol: lines.eol(line),
        }
    }
}

/// Each line of `lines` as a small integer, equal lines getting the same one.
fn intern<'a>(lines: &'a Lines, ids: &mut HashMap<&'a str, u32>) -> Vec<u32> {
    (0..lines.len())
        .map(|i| {
            let next = ids.len() as u32;
            *ids.entry(lines.full(i)).or_insert(next)
        })
        .collect()
}

/// Give every op the positions its predecessors imply. similar's compaction
/// can leave a stale index on the side an op does not touch (the new index
/// of a `Delete`, the old index of an `Insert`); the touched ranges are right.
fn renumber(ops: Vec<DiffOp>) -> Vec<DiffOp> {
    let (mut old_index, mut new_index) = (0, 0);
    ops.into_iter()
        .map(|op| {
            let (tag, old, new) = op.as_tag_tuple();
            let (old_len, new_len) = (old.len(), new.len());
            let op = match tag {
                DiffTag::Equal => DiffOp::Equal {
                    old_index,
                    new_index,
                    len: old_len,
                },
                DiffTag::Delete => DiffOp::Delete {
                    old_index,
                    old_len,
                    new_index,
                },
                DiffTag::Insert => DiffOp::Insert {
                    old_index,
                    new_index,
                    new_len,
                },
                DiffTag::Replace => DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                },
            };
            debug_assert!(tag == DiffTag::Insert || old.start == old_index, "{op:?}");
            debug_assert!(tag == DiffTag::Delete || new.start == new_index, "{op:?}");
            old_index += old_len;
            new_index += new_len;
            op
        })
        .collect()
}

/// Index of the op whose rows (per `starts`) hold row `r`.
fn op_at(starts: &[usize], r: usize) -> usize {
    starts.partition_point(|&s| s <= r) - 1
}

fn clamp(range: Range<usize>, len: usize) -> Range<usize> {
    let end = range.end.min(len);
    range.start.min(end)..end
}

fn plain(text: &str) -> Vec<Segment> {
    if text.is_empty() {
        return Vec::new();
    }
    vec![Segment {
        text: text.to_string(),
        emphasized: false,
    }]
}

/// Segments of `old` and `new` with the words that differ emphasized.
fn word_diff(old: &str, new: &str) -> (Vec<Segment>, Vec<Segment>) {
    if old.len() + new.len() > WORD_DIFF_MAX_BYTES {
        return (plain(old), plain(new));
    }
    let diff = TextDiff::configure()
        .timeout(WORD_DIFF_TIMEOUT)
        .diff_unicode_words(old, new);
    let (mut old_side, mut new_side) = (Vec::new(), Vec::new());
    for change in diff.iter_all_changes() {
        let (side, emphasized) = match change.tag() {
            ChangeTag::Equal => {
                push_segment(&mut old_side, change.value(), false);
                (&mut new_side, false)
            }
            ChangeTag::Delete => (&mut old_side, true),
            ChangeTag::Insert => (&mut new_side, true),
        };
        push_segment(side, change.value(), emphasized);
    }
    (join_gaps(old_side), join_gaps(new_side))
}

fn push_segment(segments: &mut Vec<Segment>, text: &str, emphasized: bool) {
    match segments.last_mut() {
        Some(last) if last.emphasized == emphasized => last.text += text,
        _ => segments.push(Segment {
            text: text.to_string(),
            emphasized,
        }),
    }
}

/// Fold whitespace between two emphasized runs into one run, so
/// `[-a-] [-b-]` reads `[-a b-]`.
fn join_gaps(segments: Vec<Segment>) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::with_capacity(segments.len());
    let mut iter = segments.into_iter().peekable();
    while let Some(seg) = iter.next() {
        let is_gap = !seg.emphasized
            && seg.text.chars().all(char::is_whitespace)
            && out.last().is_some_and(|s| s.emphasized)
            && iter.peek().is_some_and(|s| s.emphasized);
        if is_gap {
            let next = iter.next().expect("peeked");
            let last = out.last_mut().expect("checked");
            last.text += &seg.text;
            last.text += &next.text;
        } else {
            out.push(seg);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(row: &DiffRow) -> String {
        let mut s = String::from(row.kind.prefix());
        for seg in &row.segments {
            match (seg.emphasized, row.kind) {
                (true, RowKind::Delete) => s += &format!("[-{}-]", seg.text),
                (true, _) => s += &format!("{{+{}+}}", seg.text),
                (false, _) => s += &seg.text,
            }
        }
        s
    }

    #[test]
    fn each_change_starts_once_in_either_view() {
        // Rows: a, -c, +C, d, e, -x (x removed), f, +i.
        let d = StateDiff::new("a\nc\nd\ne\nx\nf\n", "a\nC\nd\ne\nf\ni\n");
        assert_eq!(d.change_starts(false), [1, 5, 7]);
        // Two columns: a, c|C, d, e, x|, f, |i.
        assert_eq!(d.change_starts(true), [1, 4, 6]);
        assert!(
            StateDiff::new("same\n", "same\n")
                .change_starts(false)
                .is_empty()
        );
    }

    #[test]
    fn unified_diff_matches_git() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nC\nd\ne\nf\ng\nh\ni\n";
        let d = StateDiff::new(old, new);
        assert_eq!(
            d.unified(1),
            "@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n@@ -8 +8,2 @@\n h\n+i\n"
        );
        assert_eq!(d.unified(2).matches("@@ -").count(), 2);
        assert_eq!(d.unified(3).matches("@@ -").count(), 1);
        assert_eq!(
            d.stats(),
            DiffStats {
                added: 2,
                removed: 1
            }
        );
    }

    #[test]
    fn changed_words_are_emphasized_in_paired_lines() {
        let d = StateDiff::new(
            "# State\nthe parser is done and tested\nnext: CLI\n",
            "# State\nthe lexer is done and fully tested\nnext: CLI wiring\nextra line\n",
        );
        let rows = d.rows(0..d.len());
        let lines: Vec<String> = rows.iter().map(marked).collect();
        assert_eq!(
            lines,
            [
                " # State",
                "-the [-parser-] is done and tested",
                "-next: CLI",
                "+the {+lexer+} is done and {+fully +}tested",
                "+next: CLI{+ wiring+}",
                "+extra line",
            ]
        );
        // Line numbers: old on deletions, new on insertions.
        assert_eq!((rows[1].old_line, rows[1].new_line), (Some(2), None));
        assert_eq!((rows[5].old_line, rows[5].new_line), (None, Some(4)));
        // The unpaired insertion has no emphasis.
        assert!(rows[5].segments.iter().all(|s| !s.emphasized));
    }

    #[test]
    fn whitespace_between_changed_words_joins_them() {
        let d = StateDiff::new("keep foo bar keep\n", "keep FOO BAR keep\n");
        let lines: Vec<String> = d.rows(0..d.len()).iter().map(marked).collect();
        assert_eq!(lines, ["-keep [-foo bar-] keep", "+keep {+FOO BAR+} keep"]);
    }

    #[test]
    fn missing_final_newline_is_a_change_and_is_marked() {
        let d = StateDiff::new("a\nb\n", "a\nb");
        assert_eq!(
            d.unified(3),
            "@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n"
        );
        let rows = d.rows(0..d.len());
        assert_eq!(rows[2].eol, Eol::None);
        assert_eq!(rows[2].text(), "b");
        // Appending to a file without a final newline.
        let d = StateDiff::new("x", "x\ny");
        assert_eq!(
            d.unified(0),
            "@@ -1 +1,2 @@\n-x\n\\ No newline at end of file\n+x\n+y\n\\ No newline at end of file\n"
        );
    }

    #[test]
    fn crlf_is_kept_out_of_the_text_and_written_back() {
        let d = StateDiff::new("a\r\nb\r\n", "a\r\nB\r\n");
        let rows = d.rows(0..d.len());
        assert_eq!(rows.len(), 3);
        assert!(rows.iter().all(|r| r.eol == Eol::CrLf));
        assert!(rows.iter().all(|r| !r.text().contains('\r')));
        assert_eq!(d.unified(3), "@@ -1,2 +1,2 @@\n a\r\n-b\r\n+B\r\n");
        // A line-ending change alone is a change (as in git), with no word emphasis.
        let d = StateDiff::new("a\n", "a\r\n");
        assert_eq!(
            d.stats(),
            DiffStats {
                added: 1,
                removed: 1
            }
        );
        assert!(
            d.rows(0..2)
                .iter()
                .all(|r| r.segments.iter().all(|s| !s.emphasized))
        );
    }

    #[test]
    fn hunk_positions_survive_compaction() {
        // similar's compaction leaves a stale new index on this `Delete`.
        let d = StateDiff::new("a\nc\nd\n", "a\nd\nb\nd\n");
        assert_eq!(d.unified(0), "@@ -2 +1,0 @@\n-c\n@@ -3,0 +3,2 @@\n+b\n+d\n");
        assert_eq!(d.rows(0..d.len())[1].old_line, Some(2));
    }

    #[test]
    fn identical_and_empty_texts() {
        let d = StateDiff::new("same\ntext\n", "same\ntext\n");
        assert_eq!(d.unified(3), "");
        assert!(d.hunks(3).is_empty());
        assert_eq!(
            d.stats(),
            DiffStats {
                added: 0,
                removed: 0
            }
        );
        assert_eq!(d.len(), 2);
        assert_eq!(d.rows(0..2)[1].kind, RowKind::Equal);

        let d = StateDiff::new("", "");
        assert!(d.is_empty());
        assert_eq!(d.unified(3), "");
        assert!(d.rows(0..10).is_empty());

        let d = StateDiff::new("", "new\n");
        assert_eq!(d.unified(3), "@@ -0,0 +1 @@\n+new\n");
        let d = StateDiff::new("old\n", "");
        assert_eq!(d.unified(3), "@@ -1 +0,0 @@\n-old\n");
    }

    fn sample_pair() -> (String, String) {
        let old: String = (0..60).map(|i| format!("line {i} alpha beta\n")).collect();
        let new: String = (0..60)
            .filter(|i| i % 17 != 3)
            .map(|i| match i % 11 {
                0 => format!("line {i} alpha GAMMA\n"),
                5 => format!("inserted {i}\nline {i} alpha beta\n"),
                _ => format!("line {i} alpha beta\n"),
            })
            .collect();
        (old, new)
    }

    #[test]
    fn lazy_rows_equal_full_rows() {
        let (old, new) = sample_pair();
        let d = StateDiff::new(old, new);
        let all = d.rows(0..d.len());
        assert_eq!(all.len(), d.len());
        let sbs = d.side_by_side_rows(0..d.side_by_side_len());
        for start in 0..=d.len() {
            for len in [0, 1, 2, 7, 50] {
                let end = (start + len).min(d.len());
                assert_eq!(d.rows(start..end), all[start..end], "rows {start}..{end}");
                let end = (start + len).min(d.side_by_side_len());
                let start = start.min(end);
                assert_eq!(d.side_by_side_rows(start..end), sbs[start..end]);
            }
        }
        assert!(d.rows(d.len() + 5..d.len() + 9).is_empty());
    }

    #[test]
    fn side_by_side_pairs_replaced_lines_and_matches_unified() {
        let d = StateDiff::new("a\nold 1\nold 2\nz\n", "a\nnew 1\nz\n");
        let rows = d.side_by_side_rows(0..d.side_by_side_len());
        assert_eq!(rows.len(), 4);
        let (l, r) = (rows[1].old.as_ref().unwrap(), rows[1].new.as_ref().unwrap());
        assert_eq!((l.text(), r.text()), ("old 1".into(), "new 1".into()));
        assert!(l.segments.iter().any(|s| s.emphasized && s.text == "old"));
        assert!(rows[2].new.is_none());
        assert_eq!(rows[2].old.as_ref().unwrap().text(), "old 2");
        // Both views hold the same deleted and inserted rows.
        let unified = d.rows(0..d.len());
        let from_sbs: Vec<&DiffRow> = rows
            .iter()
            .flat_map(|r| [r.old.as_ref(), r.new.as_ref()])
            .flatten()
            .filter(|r| r.kind != RowKind::Equal)
            .collect();
        let changed: Vec<&DiffRow> = unified
            .iter()
            .filter(|r| r.kind != RowKind::Equal)
            .collect();
        assert_eq!(from_sbs.len(), changed.len());
        for row in changed {
            assert!(from_sbs.contains(&row));
        }
    }

    #[test]
    fn hunks_map_to_both_views() {
        let (old, new) = sample_pair();
        let d = StateDiff::new(old, new);
        let hunks = d.hunks(2);
        assert!(hunks.len() > 1);
        for h in &hunks {
            let rows = d.rows(h.rows.clone());
            assert_eq!(
                rows.iter().filter(|r| r.kind != RowKind::Insert).count(),
                h.old_len
            );
            assert_eq!(
                rows.iter().filter(|r| r.kind != RowKind::Delete).count(),
                h.new_len
            );
            let first_old = rows.iter().find_map(|r| r.old_line).unwrap();
            assert_eq!(first_old, h.old_start + 1);
            let sbs = d.side_by_side_rows(h.side_by_side_rows.clone());
            assert_eq!(sbs.iter().filter(|r| r.old.is_some()).count(), h.old_len);
            assert_eq!(sbs.iter().filter(|r| r.new.is_some()).count(), h.new_len);
        }
    }

    #[test]
    fn pathological_input_finishes() {
        let old: String = (0..20_000).map(|i| format!("{}\n", i % 7)).collect();
        let new: String = (0..20_000)
            .map(|i| format!("{}\n", (i * 13) % 11))
            .collect();
        let start = Instant::now();
        let d = StateDiff::new(old, new);
        assert!(start.elapsed() < Duration::from_secs(5));
        // Whatever the diff found, both sides have as many lines left unchanged.
        let s = d.stats();
        assert_eq!(s.added, s.removed);
    }
}
