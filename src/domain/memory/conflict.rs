//! Unresolved merge conflicts in a memory text: the `<<<<<<< ` and
//! `>>>>>>> ` lines git leaves where two versions could not be merged. A
//! memory file holding them was merged by hand and not settled, and an agent
//! reading it would take both sides as the truth. One detector, and one way
//! to say it and its fix, for every face: `doctor` flags the files, `brief`
//! shows the warning in place of the text, `lint` scores it, and `run`
//! refuses a note that holds them.
//!
//! A marker counts only at the start of a line, as git writes it: a handoff
//! that quotes one (about a conflict it resolved) indents it or puts it
//! after other text. `=======` alone is no marker: it underlines a
//! Markdown heading too.

use std::path::Path;

/// The conflict markers of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The lines (1-based) that open or close a conflict, in order.
    pub lines: Vec<usize>,
}

impl Conflict {
    /// The conflict markers in `text`, if it has any.
    pub fn find(text: &str) -> Option<Conflict> {
        let lines = marker_lines(text);
        (!lines.is_empty()).then_some(Conflict { lines })
    }

    /// The first marker's line.
    pub fn first(&self) -> usize {
        self.lines[0]
    }

    /// The last marker's line.
    pub fn last(&self) -> usize {
        self.lines[self.lines.len() - 1]
    }

    /// "lines 3–9" (or "line 3").
    pub fn span(&self) -> String {
        if self.first() == self.last() {
            format!("line {}", self.first())
        } else {
            format!("lines {}–{}", self.first(), self.last())
        }
    }

    /// "`<file>` holds an unresolved merge conflict (lines 3–9)".
    pub fn describe(&self, file: &Path) -> String {
        format!(
            "{} holds an unresolved merge conflict ({})",
            file.display(),
            self.span()
        )
    }
}

/// What resolves a conflict in the memory file `file`.
pub fn fix(file: &Path) -> String {
    format!(
        "edit {} (`${{EDITOR:-vi}} {}`): keep what is true and delete the <<<<<<<, ======= and >>>>>>> lines",
        file.display(),
        crate::base::shell::word(&file.to_string_lossy())
    )
}

/// Lines that open or close an unresolved merge conflict (`<<<<<<< `,
/// `>>>>>>> `, or the bare markers), by line number.
pub fn marker_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.trim_end_matches('\r');
            l.starts_with("<<<<<<< ")
                || l.starts_with(">>>>>>> ")
                || l == "<<<<<<<"
                || l == ">>>>>>>"
        })
        .map(|(i, _)| i + 1)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_count_at_the_start_of_a_line_only() {
        let text = "# State\n<<<<<<< HEAD\n- a\n=======\n- b\n>>>>>>> theirs\nTitle\n=======\n";
        let c = Conflict::find(text).unwrap();
        assert_eq!(c.lines, [2, 6]);
        assert_eq!(c.span(), "lines 2–6");
        assert_eq!(
            c.describe(Path::new("current-state.md")),
            "current-state.md holds an unresolved merge conflict (lines 2–6)"
        );
        assert_eq!(
            Conflict::find("We resolved it:\n    <<<<<<< HEAD\nsee `>>>>>>> x`\nTitle\n=======\n"),
            None,
            "quoted markers and a heading's underline are no conflict"
        );
        assert_eq!(Conflict::find("<<<<<<<\r\nx\r\n").unwrap().span(), "line 1");
    }
}
