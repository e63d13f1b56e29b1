//! Genre rules: whether the document is a session handoff at all. Long
//! documents that read well can be something else: a README or an ops
//! runbook titled "handover" (architecture, setup, commands, contacts; no
//! current state, no open task), a changelog of finished phases (a list of
//! completed phases or versions, nothing open), or a handoff with addenda
//! stacked on it, each with its own "next steps", so no one of them is the
//! next step.

use std::sync::LazyLock;

use regex::Regex;

use super::{COMPETING_NEXT, Finding, NOT_A_HANDOFF};
use crate::base::patterns::pattern;
use crate::domain::handoff::document::{HandoffDocument, LineRole, Section, SectionKind};
use crate::domain::handoff::text::snippet;
use crate::domain::handoff::vocabulary::is_cjk;

/// A heading over reference material, which holds whatever the state of
/// the work: what the project is and how to run it, in the ten languages.
static REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:architecture|overview|project (?:overview|structure|layout|description|summary)|(?:directory|folder|file|repo(?:sitory)?|code ?base|project) (?:structure|layout|map|tree)|structure|tech(?:nology|nical)? stack|stack|setup|set ?up|installation|install(?:ing)?|getting started|quick ?start|usage|how to (?:use|run|deploy|build|install)|configuration|config|contacts?|who to (?:ask|contact)|api|endpoints?|key (?:files|paths|constants|concepts|components|modules)|important (?:files|paths|links)|dependencies|features?|environment(?: variables)?|env(?:ironment)? vars|deploy(?:ment|ing)?|troubleshooting|faq|glossary|conventions?|coding (?:standards|style)|workflows?|reference|runbook|playbook|services|infrastructure|schema|data ?model|database|components|modules|design(?: notes)?|patterns|resources|links|credentials|access|ports|requirements|prerequisites|scripts|available (?:skills|commands|scripts|tools)|tools|skills|about|introduction|purpose|background|context|documentation|docs|license|contributing|support|monitoring|maintenance|operations|backup|security|testing strategy|project info(?:rmation)?)\b|architektur|überblick|übersicht|einrichtung|konfiguration|kontakte?|verzeichnis|aperçu|présentation|arborescence|arquitectura|descripción general|instalación|configuración|contactos|estructura|arquitetura|visão geral|instalação|configuração|estrutura|contatos|architettura|panoramica|installazione|configurazione|struttura|contatti|архитектур|обзор|структура|установка|настройка|конфигурац|контакты|アーキテクチャ|概要|構成|セットアップ|インストール|設定|ディレクトリ|技術スタック|아키텍처|개요|구조|설치|설정|기술 스택|架构|架構|概览|概述|概況|项目结构|目录结构|技术栈|安装|配置|部署|环境",
    )
});

/// A heading over a finished phase or version: what a changelog lists
/// ("Phase 2 — complete ✅", "v1.4.0 (2026-03-02)", "[0.3.0] - 2026-01-10").
static FINISHED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^\W*(?:\[?v?\d+\.\d+(?:\.\d+)?\]?(?:\s|$|[:(—–-])|(?:phase|milestone|stage|sprint|step|part|fase|étape|etappe|этап|фаза|阶段|フェーズ|단계)\s*[0-9ivx]+\b.*(?:✅|✔|☑|\b(?:complete[d]?|done|finished|shipped|delivered|merged|released|abgeschlossen|erledigt|terminée?|terminad[oa]|completad[oa]|concluíd[oa]|completat[oa]|заверш\w*|готов\w*)\b|完成|完了|완료))",
    )
});

/// A heading that opens an addendum to a handoff: "Addendum", "Update
/// 2026-03-04", "UPDATE (later that day)", "Nachtrag", "追記".
static ADDENDUM: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:addend(?:um|a)|update[sd]?\b|later (?:that|the same) day|post-?script|p\.s\.|follow-?up|nachtrag|ergänzung|mise à jour|actualización|atualização|aggiornamento|дополнение|обновление)|追記|追加|更新|补充|추가|\b\d{4}-\d{2}-\d{2}\b",
    )
});

/// A heading that announces what comes next (as `structure` reads one).
static NEXT_MARK: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bnext (?:steps?|tasks?|actions?|session|priorit\w*|up|moves?)\b|\bnext\s*(?::|$)|\bwhat'?s next\b|\bimmediate (?:priorit\w*|next|actions?)\b|nächste schritte|prochaines? étapes?|(?:siguientes|próximos) pasos|próximos passos|prossimi passi|次のステップ|次にやること|次回|다음 단계|下一步|接下来|следующие шаги|следующий шаг",
    )
});

/// Share of the words (percent) under reference and changelog sections
/// from which the document reads as no handoff...
const GENRE_FROM: usize = 30;
/// ...at full strength from this share on.
const GENRE_FULL: usize = 90;
/// Reference sections weigh this share (percent) when the document also
/// holds the current state or an open task (a status, what is broken, what
/// we wait on, a next step): a handoff may well carry its setup.
const WITH_STATE: usize = 50;
/// Fewest words before the genre is judged: a short note is judged by the
/// size rules.
const MIN_WORDS: usize = 150;
/// Fewest sections before the genre is judged.
const MIN_SECTIONS: usize = 3;
/// Next-step markers a document may hold without them competing.
const FREE_MARKERS: usize = 1;

pub(super) fn check(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    check_genre(doc, out);
    check_competing(doc, out);
}

/// Words in `section`'s body (CJK characters count half a word each).
fn words_of(doc: &HandoffDocument<'_>, section: &Section<'_>) -> usize {
    doc.lines[section.body.clone()]
        .iter()
        .map(|l| {
            let cjk = l.text.chars().filter(|c| is_cjk(*c)).count();
            l.text.split_whitespace().count() + cjk / 2
        })
        .sum()
}

/// What a section holds, as the genre sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Genre {
    /// The state of the work: a recognised section other than the commands.
    State,
    /// Reference material: what the project is, how to run it.
    Reference,
    /// A finished phase or version.
    Finished,
    /// Anything else.
    Other,
}

fn genre_of(section: &Section<'_>) -> Genre {
    let heading = section.heading;
    if FINISHED.is_match(heading) && !NEXT_MARK.is_match(heading) {
        return Genre::Finished;
    }
    match section.kind {
        Some(SectionKind::Commands) => Genre::Reference,
        Some(_) => Genre::State,
        None if REFERENCE.is_match(heading) => Genre::Reference,
        None => Genre::Other,
    }
}

/// A README, runbook or changelog: most of the words are under reference
/// or finished-phase sections. Graded by that share; reference weighs half
/// as much when the document also says where things stand or what is open.
fn check_genre(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    let current: Vec<&Section<'_>> = doc.sections.iter().filter(|s| !s.past).collect();
    if current.len() < MIN_SECTIONS {
        return;
    }
    let (mut total, mut reference, mut finished) = (0, 0, 0);
    let mut first: Option<&Section<'_>> = None;
    for section in &current {
        let words = words_of(doc, section);
        total += words;
        match genre_of(section) {
            Genre::Reference => reference += words,
            Genre::Finished => finished += words,
            _ => continue,
        }
        first.get_or_insert(section);
    }
    if total < MIN_WORDS {
        return;
    }
    let open = [
        SectionKind::Status,
        SectionKind::NotWorking,
        SectionKind::WaitingOn,
        SectionKind::NextStep,
    ]
    .iter()
    .any(|k| doc.sections_of(*k).any(|s| !s.items.is_empty()))
        || current
            .iter()
            .any(|s| s.kind.is_none() && NEXT_MARK.is_match(s.heading) && !s.items.is_empty());
    let weighed = if open {
        reference * WITH_STATE / 100
    } else {
        reference
    };
    // A changelog's finished phases tell nothing open even beside a status.
    let share = (weighed + finished) * 100 / total;
    if share < GENRE_FROM {
        return;
    }
    let strength =
        (share - GENRE_FROM).min(GENRE_FULL - GENRE_FROM) * 100 / (GENRE_FULL - GENRE_FROM) + 1;
    let points = (usize::from(NOT_A_HANDOFF.cap) * strength.min(100)).div_ceil(100);
    let what = if finished > reference {
        "a changelog of finished phases"
    } else {
        "reference material (a README or runbook)"
    };
    let first = first.expect("a share above 0 has a section");
    out.push(NOT_A_HANDOFF.scaled(
        Some(first.line),
        u8::try_from(points).unwrap_or(u8::MAX),
        format!(
            "{share}% of the words are {what}, under headings such as \"{}\"{}: a handoff says where the work stands, what is open and what to do next; move the reference to the project's docs",
            snippet(first.heading, 40),
            if open {
                ""
            } else {
                ", and nothing says where things stand or what is open"
            }
        ),
    ));
}

/// Next-step markers in several places: the current next-step sections and
/// headings that announce what comes next, each not nested in the one
/// before, counted once per addendum they sit in.
fn check_competing(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    let mut markers: Vec<(usize, &str, usize)> = Vec::new();
    let mut part = 0;
    let mut last_level: Option<u8> = None;
    // Bold labels that name a next step ("**Next steps:**") mark one too.
    let labels: Vec<(usize, &str)> = doc
        .sections
        .iter()
        .filter(|s| s.level > 6 && s.kind == Some(SectionKind::NextStep))
        .map(|s| (s.line, s.heading))
        .collect();
    for line in doc.lines.iter().filter(|l| !l.fenced) {
        let (level, text) = match line.role {
            LineRole::Heading(level) => (level, line.text.trim_start_matches('#').trim()),
            _ => match labels.iter().find(|(at, _)| *at == line.number) {
                Some((_, heading)) => (7, *heading),
                None => continue,
            },
        };
        if ADDENDUM.is_match(text) && !NEXT_MARK.is_match(text) {
            part += 1;
        }
        if let Some(l) = last_level
            && level <= l
        {
            last_level = None;
        }
        let is_next =
            SectionKind::classify(text) == Some(SectionKind::NextStep) || NEXT_MARK.is_match(text);
        if is_next && last_level.is_none() {
            markers.push((line.number, text, part));
            last_level = Some(level);
        }
    }
    let past_lines: Vec<std::ops::Range<usize>> = doc
        .sections
        .iter()
        .filter(|s| s.past)
        .map(|s| s.line..s.body.end + 1)
        .collect();
    // What an append-only log's older entries say is not current: the
    // parser keeps only the newest, so those compete with nothing.
    markers.retain(|(line, _, _)| !past_lines.iter().any(|r| r.contains(line)));
    let parts: std::collections::BTreeSet<usize> = markers.iter().map(|m| m.2).collect();
    // In one part, several next-step headings read together (a plan's
    // "Next steps" and its "Next session"); across addenda they compete.
    if markers.len() <= FREE_MARKERS || parts.len() < 2 {
        return;
    }
    let extra = markers.len() - FREE_MARKERS;
    out.push(COMPETING_NEXT.scaled(
        Some(markers[1].0),
        u8::try_from(extra)
            .unwrap_or(u8::MAX)
            .saturating_mul(COMPETING_NEXT.weight),
        format!(
            "{} places, in {} parts (the handoff and the addenda or dated parts stacked on it), say what comes next (\"{}\" at line {}, \"{}\" at line {}): keep ONE next step, the current one, and fold or delete the others",
            markers.len(),
            parts.len(),
            snippet(markers[0].1, 30),
            markers[0].0,
            snippet(markers[1].1, 30),
            markers[1].0,
        ),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(text: &str) -> Vec<Finding> {
        let doc = HandoffDocument::parse(text);
        let mut out = Vec::new();
        check(&doc, &mut out);
        out
    }

    fn fired(text: &str) -> Vec<&'static str> {
        findings(text).iter().map(|f| f.rule).collect()
    }

    /// A few lines of prose, `n` times.
    fn prose(n: usize) -> String {
        "The service reads its settings from `config/app.toml` and writes logs to the journal. "
            .repeat(n)
    }

    const GOOD: &str = "# Handoff — parser rewrite — 2026-11-20\n\n## Status\n18/21 tests pass; 3 fail in `resume_with_missing_closure`.\n\n## Done (don't redo)\n- Closures are registered per step name in `Engine::with_library_step`, tested in tests/it/library.rs\n- The checkpoint records `kind: library` for closure steps\n\n## Not working (and why)\n- Resuming without the closure panics: `called Option::unwrap() on a None value`.\n\n## Failed approaches (DO NOT retry)\n- A registry macro -> needs global state, and tests run in parallel\n\n## Architecture notes\nThe executor owns the registry; the checkpoint only names steps. The lookup is in src/engine/executor.rs.\n\n## Next step\nReplace the `unwrap()` in src/engine/executor.rs with `Error::NeedsHuman`, then rerun `cargo test --test library`.\n";

    #[test]
    fn a_handoff_fires_nothing() {
        assert!(fired(GOOD).is_empty(), "{:?}", findings(GOOD));
    }

    #[test]
    fn a_runbook_titled_handover_is_no_handoff() {
        let text = format!(
            "# Ops handover\n\n## Architecture\n{}\n\n## Setup\n{}\n\n## Deployment\n{}\n\n## Contacts\n- On call: the platform team, #ops channel\n\n## Troubleshooting\n{}\n",
            prose(4),
            prose(4),
            prose(4),
            prose(4)
        );
        let out = findings(&text);
        let f = out
            .iter()
            .find(|f| f.rule == "not-a-handoff")
            .expect("a runbook");
        assert_eq!(f.line, Some(3));
        assert!(f.message.contains("reference material"), "{}", f.message);
        assert!(f.message.contains("\"Architecture\""), "{}", f.message);
        assert_eq!(f.points, NOT_A_HANDOFF.cap, "all reference, nothing open");
    }

    #[test]
    fn reference_in_other_languages_is_seen() {
        let text = format!(
            "# Übergabe\n\n## Architektur\n{}\n\n## Einrichtung\n{}\n\n## Konfiguration\n{}\n",
            prose(4),
            prose(4),
            prose(4)
        );
        assert!(fired(&text).contains(&"not-a-handoff"));
        let text = format!(
            "# 交接\n\n## 架构\n{}\n\n## 项目结构\n{}\n\n## 部署\n{}\n",
            prose(4),
            prose(4),
            prose(4)
        );
        assert!(fired(&text).contains(&"not-a-handoff"));
    }

    #[test]
    fn a_changelog_of_finished_phases_is_no_handoff() {
        let text = format!(
            "# Project progress\n\n## Phase 1 — complete ✅\n{}\n\n## Phase 2: done\n{}\n\n## v0.3.0 (2026-01-10)\n{}\n",
            prose(4),
            prose(4),
            prose(4)
        );
        let out = findings(&text);
        let f = out
            .iter()
            .find(|f| f.rule == "not-a-handoff")
            .expect("a changelog");
        assert!(f.message.contains("changelog"), "{}", f.message);
    }

    #[test]
    fn a_handoff_with_its_setup_beside_the_state_is_one() {
        // The state and an open task halve what the reference weighs.
        let text = format!(
            "# Handoff\n\n## Status\n3/9 tests pass.\n\n## Setup\n{}\n\n## Architecture\n{}\n\n## Next step\nFix `parse_header` in src/lib.rs.\n\n## Notes\n{}\n",
            prose(4),
            prose(3),
            prose(8)
        );
        assert!(!fired(&text).contains(&"not-a-handoff"), "{text}");
    }

    #[test]
    fn next_steps_in_several_addenda_compete() {
        let text = "# Handoff\n\n## Status\n3/9\n\n## Next steps\n- Port `cli.rs`\n\n## Addendum 2026-03-04\nThe port is blocked.\n\n### Next steps\n- Fix the build first\n\n## Update (later that day)\n\n### Next steps\n- Revert `a1b2c3d`\n";
        let out = findings(text);
        let f = out
            .iter()
            .find(|f| f.rule == "competing-next")
            .expect("three next steps");
        assert_eq!(f.line, Some(12));
        assert!(
            f.message.starts_with("3 places, in 3 parts"),
            "{}",
            f.message
        );
        assert_eq!(f.points, 2 * COMPETING_NEXT.weight);
    }

    #[test]
    fn one_next_step_section_with_sub_headings_does_not_compete() {
        let text = "## Status\n3/9\n\n## Next steps\n\n### Next step 1: port `cli.rs`\n- details\n\n### Next step 2: wire `retry`\n- details\n\n## Notes\n- `a.rs`\n";
        assert!(!fired(text).contains(&"competing-next"));
        // Markers in one document with no addendum: a plan and its
        // "next session" note read together.
        let text = "## Next steps\n- Port `cli.rs`\n\n## Notes\n- `a.rs`\n\n## Next session\n- Start with `cli.rs`\n\n## Immediate priorities\n- `b.rs`\n";
        assert!(!fired(text).contains(&"competing-next"));
    }

    #[test]
    fn an_append_only_logs_older_entries_do_not_compete() {
        let text = "# Session log\n\n## 2026-03-05\n### Done\n- Ported `cli.rs`\n### Next step\n- Wire `retry` into src/net.rs\n\n## 2026-03-04\n### Done\n- Started the port\n### Next step\n- Port `cli.rs`\n";
        assert!(
            !fired(text).contains(&"competing-next"),
            "{:?}",
            findings(text)
        );
    }
}
