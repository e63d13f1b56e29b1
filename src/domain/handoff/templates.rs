//! Handoff templates for kinds of work, shipped in the binary from
//! `assets/templates/*.md`. Each has every section, with hints specific to
//! the kind of work, marked `TODO:` so the linter shows what is left.

use std::str::FromStr;

use chrono::NaiveDate;
use serde::Serialize;

/// A kind of work a handoff template is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TemplateKind {
    /// Code implementation: features, endpoints, bug fixes.
    Code,
    /// Test development and debugging.
    Tests,
    /// Writing and updating documentation.
    Docs,
    /// Linting, refactoring, clean-ups.
    CodeQuality,
    /// Infrastructure and DevOps.
    Infrastructure,
    /// Planning and architecture.
    Planning,
}

impl TemplateKind {
    /// Every kind.
    pub const ALL: [TemplateKind; 6] = [
        TemplateKind::Code,
        TemplateKind::Tests,
        TemplateKind::Docs,
        TemplateKind::CodeQuality,
        TemplateKind::Infrastructure,
        TemplateKind::Planning,
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            TemplateKind::Code => "code",
            TemplateKind::Tests => "tests",
            TemplateKind::Docs => "docs",
            TemplateKind::CodeQuality => "code-quality",
            TemplateKind::Infrastructure => "infrastructure",
            TemplateKind::Planning => "planning",
        }
    }

    /// One line on what it is for.
    pub fn description(self) -> &'static str {
        match self {
            TemplateKind::Code => "code implementation: features, endpoints, bug fixes",
            TemplateKind::Tests => "test development and debugging: pass rates, failure patterns",
            TemplateKind::Docs => "documentation: coverage, missing areas, style rules",
            TemplateKind::CodeQuality => "code quality: lints, refactoring, clean-ups",
            TemplateKind::Infrastructure => "infrastructure and DevOps: environments, pipelines",
            TemplateKind::Planning => {
                "planning and architecture: options, decisions, open questions"
            }
        }
    }

    fn source(self) -> &'static str {
        match self {
            TemplateKind::Code => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/assets/templates/code.md"
            )),
            TemplateKind::Tests => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/assets/templates/tests.md"
            )),
            TemplateKind::Docs => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/assets/templates/docs.md"
            )),
            TemplateKind::CodeQuality => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/assets/templates/code-quality.md"
            )),
            TemplateKind::Infrastructure => {
                include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/assets/templates/infrastructure.md"
                ))
            }
            TemplateKind::Planning => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/assets/templates/planning.md"
            )),
        }
    }

    /// The template, dated `date`.
    pub fn render(self, date: NaiveDate) -> String {
        self.source()
            .replace("{date}", &date.format("%Y-%m-%d").to_string())
    }
}

/// How the comments a template and `agent-handover draft` write for the
/// writer begin: instructions for completing the draft, not part of the
/// handoff, so [`without_drafting_comments`] drops them from what is handed
/// over.
pub const DRAFTING_COMMENTS: [&str; 2] = [
    "<!-- Drafted by `agent-handover draft`",
    "<!-- A briefing for the next session",
];

/// `text` without the drafting comments (whole lines beginning with one of
/// [`DRAFTING_COMMENTS`] and ending with `-->`) and the blank line after
/// each: the next session would otherwise read "replace every TODO, then
/// hand over" in its brief. Everything else is kept byte for byte.
pub fn without_drafting_comments(text: &str) -> std::borrow::Cow<'_, str> {
    crate::base::text::without_lines(text, |line| {
        let line = line.trim_end();
        DRAFTING_COMMENTS.iter().any(|c| line.starts_with(c)) && line.ends_with("-->")
    })
}

impl std::fmt::Display for TemplateKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TemplateKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TemplateKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = TemplateKind::ALL.iter().map(|k| k.name()).collect();
                format!("no template {s:?}; kinds: {}", names.join(", "))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::handoff::document::{HandoffDocument, SectionKind};
    use crate::domain::handoff::{LintContext, lint};

    fn day() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()
    }

    /// Issue 25: the draft's own instructions were stored in the note, so
    /// the next brief told the agent to "replace every TODO, then hand over".
    #[test]
    fn drafting_comments_are_dropped_and_nothing_else() {
        let draft = "# Handoff — code — 2026-11-26\n\n<!-- Drafted by `agent-handover draft` for claude: Replace every TODO. -->\n\n<!-- A briefing for the next session, 500-1,500 tokens. -->\n\n## Goal\nShip it <!-- mine -->\n\n<!-- my own note -->\n";
        assert_eq!(
            without_drafting_comments(draft),
            "# Handoff — code — 2026-11-26\n\n## Goal\nShip it <!-- mine -->\n\n<!-- my own note -->\n"
        );
        let plain =
            "# Handoff\n\nA line quoting <!-- Drafted by `agent-handover draft` mid-line -->\n";
        assert!(matches!(
            without_drafting_comments(plain),
            std::borrow::Cow::Borrowed(_)
        ));
        for kind in TemplateKind::ALL {
            let rendered = kind.render(day());
            assert!(
                !without_drafting_comments(&rendered).contains("<!-- A briefing"),
                "{kind}: the template's hint comment is recognised"
            );
        }
    }

    #[test]
    fn names_round_trip() {
        for kind in TemplateKind::ALL {
            assert_eq!(kind.name().parse::<TemplateKind>(), Ok(kind));
        }
        assert!(
            "nope"
                .parse::<TemplateKind>()
                .unwrap_err()
                .contains("code-quality")
        );
    }

    #[test]
    fn every_template_has_every_section_and_unfilled_fails_as_a_template() {
        for kind in TemplateKind::ALL {
            let text = kind.render(day());
            assert!(text.contains("2026-11-21") && !text.contains("{date}"));
            let doc = HandoffDocument::parse(&text);
            for section in SectionKind::ALL {
                assert_eq!(doc.sections_of(section).count(), 1, "{kind}: {section:?}");
            }
            let report = lint(&text, &LintContext::default());
            let rules: Vec<_> = report.findings.iter().map(|f| f.rule).collect();
            assert_eq!(rules[0], "unfilled-template", "{kind}: {rules:?}");
            assert!(rules.contains(&"placeholder"), "{kind}: {rules:?}");
            assert!(report.score < 40, "{kind}: {}", report.score);
        }
    }
}
