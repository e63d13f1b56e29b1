//! Layer rules: each persistence layer holds its own kind of text. Volatile
//! status (progress, "today", "in progress", test counts) in the identity
//! layer makes it go stale; a standing policy ("Always …", "Never …",
//! "Policy: …") in the current state is overwritten by the next handover.
//! The layer is told by the memory header the text starts with.

use std::sync::LazyLock;

use regex::Regex;

use super::{Finding, POLICY_IN_STATE, VOLATILE_IDENTITY};
use crate::base::patterns::pattern;
use crate::domain::handoff::document::{HandoffDocument, SectionKind};
use crate::domain::handoff::text::snippet;

static VOLATILE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:in progress|wip|next step|blocked on|currently|right now|today|yesterday|this session|so far|\d+\s*/\s*\d+\s+tests?|tests? (?:pass|fail)(?:es|ed|ing)?|heute|gerade|bisher)\b",
    )
});
static POLICY: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)^(?:always|never|policy:|rule:|immer|niemals|grundsatz:)\s"));

/// Whether `doc` is the identity file (its `<!-- agent-handover | identity | … -->` header).
pub(super) fn is_identity(doc: &HandoffDocument<'_>) -> bool {
    doc.text.starts_with("<!-- agent-handover | identity |")
}

/// Volatile status in the identity layer.
pub(super) fn check_identity(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    for line in doc.lines.iter().filter(|l| !l.fenced) {
        if let Some(m) = VOLATILE.find(line.text) {
            out.push(VOLATILE_IDENTITY.at(
                Some(line.number),
                format!(
                    "\"{}\" is volatile status ({:?}) in the identity layer, which changes rarely: move it to the current state (the handoff)",
                    snippet(line.text.trim(), 60),
                    m.as_str()
                ),
            ));
        }
    }
}

/// Standing policy in the current state.
pub(super) fn check_state(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    if !doc.text.starts_with("<!-- agent-handover | layer2 |") {
        return;
    }
    for section in doc
        .sections
        .iter()
        .filter(|s| s.kind != Some(SectionKind::FailedApproaches))
    {
        for item in section.items.iter().filter(|i| POLICY.is_match(&i.text)) {
            out.push(POLICY_IN_STATE.at(
                Some(item.line),
                format!(
                    "\"{}\" is a standing policy in the current state, which the next handover replaces: keep it in the identity layer (`agent-handover identity set Policies ...`)",
                    snippet(&item.text, 60)
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Vec<&'static str> {
        let doc = HandoffDocument::parse(text);
        let mut out = Vec::new();
        if is_identity(&doc) {
            check_identity(&doc, &mut out);
        }
        check_state(&doc, &mut out);
        out.iter().map(|f| f.rule).collect()
    }

    #[test]
    fn status_in_identity_and_policy_in_state_are_flagged() {
        let identity = "<!-- agent-handover | identity | 2026-11-23 -->\n# Identity\n## Policies\n- Never force-push\n## Goals\n- Parser in progress, 30/90 tests pass\n";
        assert_eq!(ids(identity), ["volatile-identity"]);
        let state = "<!-- agent-handover | layer2 | 2026-11-23 -->\n## Done\n- Always run clippy before pushing\n- Shipped the lexer\n## Failed approaches\n- Never again: a PEG generator\n";
        assert_eq!(ids(state), ["policy-in-state"]);
        assert!(
            ids("## Done\n- Always run clippy\n").is_empty(),
            "a note, not the state"
        );
    }
}
