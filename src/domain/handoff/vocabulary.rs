//! The section vocabulary, as data: for each [`SectionKind`], the phrases
//! handoffs use for its heading, per language (English, German, French,
//! Spanish, Portuguese, Italian, Japanese, Korean, Chinese, Russian).
//!
//! Phrases are lowercase and apostrophe-free, as [`normalize`] leaves a
//! heading. Phrases in scripts written with spaces match whole words;
//! Japanese, Korean and Chinese phrases match anywhere in the heading. The
//! longest matching phrase wins, so "Tried and abandoned" is a failed
//! approach although it contains no "failed", and "External blocker" is a
//! wait although "blocker" alone is a problem.

use std::sync::LazyLock;

use serde::Serialize;

use SectionKind::{
    CanWait, Commands, Decisions, Done, FailedApproaches, Goal, NextStep, NotWorking, Status,
    WaitingOn,
};

/// The sections practitioners converge on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SectionKind {
    /// What this line of work is for.
    Goal,
    /// What is finished and must not be redone.
    Done,
    /// What is broken and why, with the real error.
    NotWorking,
    /// What was tried and failed, so nobody retries it.
    FailedApproaches,
    /// Decisions taken and why.
    Decisions,
    /// The ONE thing to do next.
    NextStep,
    /// Who or what we are waiting on.
    WaitingOn,
    /// What can safely wait.
    CanWait,
    /// Where we stand, measurably ("30/90 tests pass").
    Status,
    /// The commands to build, test and run.
    Commands,
}

impl SectionKind {
    /// Every kind, in the order a handoff presents them.
    pub const ALL: [SectionKind; 10] = [
        SectionKind::Goal,
        SectionKind::Status,
        SectionKind::Done,
        SectionKind::NotWorking,
        SectionKind::FailedApproaches,
        SectionKind::Decisions,
        SectionKind::NextStep,
        SectionKind::WaitingOn,
        SectionKind::CanWait,
        SectionKind::Commands,
    ];

    /// The canonical heading, as the templates write it.
    pub fn heading(self) -> &'static str {
        match self {
            SectionKind::Goal => "Goal",
            SectionKind::Done => "Done (don't redo)",
            SectionKind::NotWorking => "Not working (and why)",
            SectionKind::FailedApproaches => "Failed approaches (DO NOT retry)",
            SectionKind::Decisions => "Key decisions (and why)",
            SectionKind::NextStep => "Next step",
            SectionKind::WaitingOn => "Waiting on",
            SectionKind::CanWait => "Can safely wait",
            SectionKind::Status => "Current status",
            SectionKind::Commands => "Commands",
        }
    }

    /// Whether every handoff needs it (the rest are recommended).
    pub fn is_required(self) -> bool {
        matches!(
            self,
            SectionKind::Goal
                | SectionKind::Done
                | SectionKind::FailedApproaches
                | SectionKind::NextStep
        )
    }
}

/// A language code (ISO 639-1) and the phrases naming one kind in it.
type Phrases = (&'static str, &'static [&'static str]);

/// Every kind with its phrases, per language. Ties between equally long
/// phrases go to the kind listed first.
pub const VOCABULARY: &[(SectionKind, &[Phrases])] = &[
    (
        FailedApproaches,
        &[
            (
                "en",
                &[
                    "failed approach",
                    "failed approaches",
                    "failed attempt",
                    "failed attempts",
                    "what failed",
                    "dead end",
                    "dead ends",
                    "tried and failed",
                    "tried and abandoned",
                    "do not retry",
                    "dont retry",
                    "do not revisit",
                    "didnt work",
                    "did not work",
                    "what didnt work",
                    "approaches that failed",
                    "rejected option",
                    "rejected options",
                    "rejected approach",
                    "rejected approaches",
                    "rejected alternatives",
                    "known walls",
                    "walls",
                    "traps",
                    "landmines",
                    "gotchas",
                    "pitfalls",
                    "do not",
                    "dont",
                    "abandoned",
                    "what we tried",
                    "negative results",
                    "what not to do",
                    "donts",
                    "lessons",
                    "ruled out",
                    "watch outs",
                    "mistakes",
                ],
            ),
            (
                "de",
                &[
                    "gescheiterte ansätze",
                    "gescheiterte versuche",
                    "fehlgeschlagene ansätze",
                    "was nicht funktioniert hat",
                    "sackgassen",
                    "verworfen",
                    "verworfene ansätze",
                    "nicht wiederholen",
                    "stolpersteine",
                    "fallstricke",
                ],
            ),
            (
                "fr",
                &[
                    "approches abandonnées",
                    "approches échouées",
                    "tentatives échouées",
                    "ce qui na pas marché",
                    "ce qui na pas fonctionné",
                    "impasses",
                    "pièges",
                    "ne pas réessayer",
                    "à ne pas refaire",
                ],
            ),
            (
                "es",
                &[
                    "enfoques fallidos",
                    "intentos fallidos",
                    "lo que no funcionó",
                    "callejones sin salida",
                    "descartado",
                    "descartados",
                    "no reintentar",
                    "trampas",
                ],
            ),
            (
                "pt",
                &[
                    "abordagens que falharam",
                    "tentativas que falharam",
                    "o que não funcionou",
                    "becos sem saída",
                    "não repetir",
                    "descartadas",
                    "armadilhas",
                ],
            ),
            (
                "it",
                &[
                    "approcci falliti",
                    "tentativi falliti",
                    "cosa non ha funzionato",
                    "vicoli ciechi",
                    "scartati",
                    "non ritentare",
                    "trappole",
                ],
            ),
            (
                "ja",
                &[
                    "失敗",
                    "うまくいかなかった",
                    "試したが",
                    "やらないこと",
                    "落とし穴",
                    "ハマりどころ",
                    "再試行しない",
                ],
            ),
            (
                "ko",
                &["실패", "시도했지만", "하지 말 것", "함정", "재시도 금지"],
            ),
            ("zh", &["失败", "踩坑", "不要再试", "弃用的方案", "走不通"]),
            (
                "ru",
                &[
                    "неудачные подходы",
                    "что не сработало",
                    "не сработало",
                    "тупики",
                    "не повторять",
                    "подводные камни",
                    "грабли",
                ],
            ),
        ],
    ),
    (
        NotWorking,
        &[
            (
                "en",
                &[
                    "not working",
                    "doesnt work",
                    "does not work",
                    "broken",
                    "whats broken",
                    "blocker",
                    "blockers",
                    "current blockers",
                    "known issues",
                    "open issues",
                    "open problem",
                    "open problems",
                    "issues",
                    "problems",
                    "bugs",
                    "failing",
                    "errors",
                    "risks",
                ],
            ),
            (
                "de",
                &[
                    "was nicht funktioniert",
                    "probleme",
                    "bekannte probleme",
                    "fehler",
                    "offene punkte",
                    "blocker",
                ],
            ),
            (
                "fr",
                &[
                    "ce qui ne marche pas",
                    "ce qui ne fonctionne pas",
                    "problèmes",
                    "erreurs",
                    "bloquants",
                ],
            ),
            (
                "es",
                &[
                    "qué no funciona",
                    "que no funciona",
                    "problemas",
                    "errores",
                    "bloqueos",
                ],
            ),
            (
                "pt",
                &["o que não funciona", "problemas", "erros", "bloqueios"],
            ),
            (
                "it",
                &["cosa non funziona", "problemi", "errori", "blocchi"],
            ),
            (
                "ja",
                &["うまくいかないこと", "問題", "課題", "不具合", "エラー"],
            ),
            ("ko", &["안 되는 것", "문제", "이슈", "오류"]),
            ("zh", &["问题", "错误", "阻塞"]),
            ("ru", &["что не работает", "проблемы", "ошибки", "блокеры"]),
        ],
    ),
    (
        Decisions,
        &[
            (
                "en",
                &[
                    "decision",
                    "decisions",
                    "decided",
                    "rationale",
                    "tradeoffs",
                    "design record",
                    "key choices",
                ],
            ),
            ("de", &["entscheidungen", "entscheidung", "begründung"]),
            ("fr", &["décisions", "décision", "choix"]),
            ("es", &["decisiones", "decisión"]),
            ("pt", &["decisões", "decisão"]),
            ("it", &["decisioni", "decisione"]),
            ("ja", &["決定", "決めたこと", "方針"]),
            ("ko", &["결정"]),
            ("zh", &["决定", "决策"]),
            ("ru", &["решения", "решение"]),
        ],
    ),
    (
        WaitingOn,
        &[
            (
                "en",
                &[
                    "waiting",
                    "blocked on",
                    "blocked by",
                    "dependencies",
                    "depends on",
                    "external blocker",
                ],
            ),
            (
                "de",
                &[
                    "wartet auf",
                    "warten auf",
                    "abhängigkeiten",
                    "blockiert durch",
                ],
            ),
            (
                "fr",
                &["en attente", "en attente de", "dépendances", "bloqué par"],
            ),
            (
                "es",
                &["esperando", "esperando a", "en espera", "bloqueado por"],
            ),
            ("pt", &["aguardando", "bloqueado por"]),
            ("it", &["in attesa", "in attesa di", "bloccato da"]),
            ("ja", &["待ち", "ブロッカー"]),
            ("ko", &["대기"]),
            ("zh", &["等待"]),
            ("ru", &["ждём", "ждем", "ожидание", "блокирует"]),
        ],
    ),
    (
        CanWait,
        &[
            (
                "en",
                &[
                    "can wait",
                    "safely wait",
                    "later",
                    "deferred",
                    "backlog",
                    "parking lot",
                    "not now",
                    "out of scope",
                    "nice to have",
                    "someday",
                    "future work",
                ],
            ),
            ("de", &["kann warten", "später", "zurückgestellt"]),
            ("fr", &["peut attendre", "plus tard", "reporté"]),
            ("es", &["puede esperar", "más tarde"]),
            ("pt", &["pode esperar", "mais tarde"]),
            ("it", &["può aspettare", "più tardi", "rimandato"]),
            ("ja", &["後回し", "後で"]),
            ("ko", &["나중에", "보류"]),
            ("zh", &["以后", "暂缓", "可以等"]),
            ("ru", &["может подождать", "позже", "отложено"]),
        ],
    ),
    (
        NextStep,
        &[
            (
                "en",
                &[
                    "next",
                    "start here",
                    "resume with",
                    "resume here",
                    "first action",
                    "immediate actions",
                    "action items",
                    "what to do",
                    "where to start",
                    "how to continue",
                    "pick up",
                    "follow ups",
                    "followups",
                    "resume",
                    "do these first",
                    "do this first",
                    "first thing",
                    "priorities",
                    "you are here",
                    // What is left is where the next step comes from.
                    "remaining",
                    "remaining work",
                    "remaining steps",
                    "left to do",
                    "whats left",
                    "todo",
                    "todos",
                    "to do",
                    "outstanding",
                    "open tasks",
                    "pending",
                    "queue",
                ],
            ),
            (
                "de",
                &[
                    "nächster schritt",
                    "nächste schritte",
                    "als nächstes",
                    "weiter mit",
                    "zu tun",
                    "tun soll",
                    "noch offen",
                    "offene aufgaben",
                    "verbleibend",
                    "nächste session",
                ],
            ),
            (
                "fr",
                &[
                    "prochaine étape",
                    "prochaines étapes",
                    "à faire",
                    "reprendre",
                    "reste à faire",
                    "tâches restantes",
                    "ce qui reste",
                    "prochaine session",
                ],
            ),
            (
                "es",
                &[
                    "siguiente paso",
                    "siguientes pasos",
                    "próximo paso",
                    "próximos pasos",
                    "proximos pasos",
                    "pendiente",
                    "pendientes",
                    "por hacer",
                ],
            ),
            (
                "pt",
                &[
                    "próximo passo",
                    "próximos passos",
                    "pendente",
                    "pendentes",
                    "a fazer",
                    "próximas tarefas",
                ],
            ),
            (
                "it",
                &[
                    "prossimo passo",
                    "prossimi passi",
                    "da fare",
                    "in sospeso",
                    "rimanente",
                    "prossimi check",
                ],
            ),
            (
                "ja",
                &[
                    "次",
                    "次の一手",
                    "次のステップ",
                    "次にやること",
                    "残タスク",
                    "残作業",
                    "やること",
                ],
            ),
            (
                "ko",
                &[
                    "다음 단계",
                    "다음",
                    "시작하려면",
                    "우선순위",
                    "남은 작업",
                    "할 일",
                ],
            ),
            ("zh", &["下一步", "接下来", "待办", "剩余工作", "待执行"]),
            (
                "ru",
                &[
                    "следующий шаг",
                    "следующие шаги",
                    "дальше",
                    "осталось",
                    "что осталось",
                    "немедленные действия",
                    "план на сегодня",
                ],
            ),
        ],
    ),
    (
        Done,
        &[
            (
                "en",
                &[
                    "done",
                    "completed",
                    "complete",
                    "accomplishments",
                    "accomplished",
                    "finished",
                    "what works",
                    "whats working",
                    "shipped",
                    "landed",
                    "what landed",
                    "what was built",
                    "what has been built",
                    "what has been done",
                    "what was done",
                    "recent changes",
                    "changes made",
                    "delivered",
                    "what changed",
                    "verified results",
                    "implemented",
                    "current implementation",
                    "verified milestones",
                    "recent milestones",
                    "what happened",
                    "fixes",
                ],
            ),
            (
                "de",
                &[
                    "erledigt",
                    "fertig",
                    "abgeschlossen",
                    "umgesetzt",
                    "was erreicht wurde",
                ],
            ),
            (
                "fr",
                &[
                    "fait",
                    "déjà fait",
                    "terminé",
                    "réalisé",
                    "travail accompli",
                ],
            ),
            ("es", &["hecho", "completado", "terminado"]),
            ("pt", &["feito", "concluído", "pronto"]),
            ("it", &["fatto", "completato", "finito"]),
            ("ja", &["完了", "やったこと", "済み"]),
            ("ko", &["완료", "한 일", "작업 내용"]),
            ("zh", &["已完成", "完成"]),
            ("ru", &["сделано", "готово", "выполнено"]),
        ],
    ),
    (
        Status,
        &[
            (
                "en",
                &[
                    "status",
                    "in progress",
                    "metrics",
                    "progress",
                    "where we are",
                    "where things stand",
                    "where it stands",
                    "health",
                    "current state",
                    "state",
                    "snapshot",
                    "checkpoint",
                    "verification",
                    "active work",
                    "current work",
                    "current focus",
                ],
            ),
            ("de", &["stand", "aktueller stand", "zustand"]),
            (
                "fr",
                &["état", "état actuel", "statut", "avancement", "etat"],
            ),
            ("es", &["estado", "estado actual", "progreso"]),
            ("pt", &["status atual", "situação", "progresso"]),
            ("it", &["stato", "stato attuale", "avanzamento"]),
            ("ja", &["現状", "状況", "ステータス", "進捗"]),
            ("ko", &["현재 상태", "상태", "진행", "테스트 결과"]),
            ("zh", &["当前状态", "状态", "进度", "现状"]),
            ("ru", &["текущий статус", "статус", "состояние", "прогресс"]),
        ],
    ),
    (
        Commands,
        &[
            (
                "en",
                &[
                    "commands",
                    "command",
                    "how to run",
                    "how to test",
                    "how to build",
                    "environment",
                    "setup",
                    "reproduce",
                    "runbook",
                    "testing",
                ],
            ),
            ("de", &["befehle", "kommandos"]),
            ("fr", &["commandes"]),
            ("es", &["comandos"]),
            ("pt", &["comandos"]),
            ("it", &["comandi"]),
            ("ja", &["コマンド", "実行方法"]),
            ("ko", &["명령어"]),
            ("zh", &["命令"]),
            ("ru", &["команды"]),
        ],
    ),
    (
        Goal,
        &[
            (
                "en",
                &[
                    "goal",
                    "goals",
                    "task",
                    "objective",
                    "objectives",
                    "mission",
                    "purpose",
                    "outcome",
                    "project intent",
                ],
            ),
            ("de", &["ziel", "ziele", "aufgabe"]),
            ("fr", &["objectif", "objectifs"]),
            ("es", &["objetivo", "objetivos"]),
            ("pt", &["objetivo", "objetivos"]),
            ("it", &["obiettivo", "obiettivi"]),
            ("ja", &["目的", "目標", "ゴール"]),
            ("ko", &["목표", "작업 목적"]),
            ("zh", &["目标"]),
            ("ru", &["цель", "цели", "задача"]),
        ],
    ),
];

/// Headings that look like a kind by keyword but are not ("Not done yet").
const NOT_A_SECTION: &[&str] = &[
    // Addressed to the next session, not its next step ("Notes for the
    // next session", "Quick start for the next AI").
    "notes for the next",
    "context for the next",
    "quick start for the next",
    "information for the next",
    "not done",
    "not implemented",
    "not yet implemented",
    // The state of the repository (branch, pushed or not), not of the work.
    "git state",
    "git status",
    "repo state",
    "repository state",
    "branch status",
    // Next.js, the framework: "Next.js dashboard handoff".
    "next js",
    // "All the …" in Portuguese and Spanish, not English TODOs.
    "todos os",
    "todos los",
    "todas as",
    "todas las",
];

/// One phrase of [`VOCABULARY`], prepared for matching.
struct Entry {
    kind: SectionKind,
    language: &'static str,
    phrase: &'static str,
    /// Its order in the vocabulary (ties go to the first).
    order: usize,
}

/// The vocabulary indexed for matching: spaced phrases in buckets by the
/// first byte of their first word, and the phrases matched anywhere
/// (Japanese, Chinese, Korean). Built once per process, and cheaply (no
/// sort, no allocation per phrase): every hook that reads a handoff pays
/// for it (benches/hooks.rs).
struct Index {
    by_first_byte: Vec<Vec<(&'static str, Entry)>>,
    anywhere: Vec<Entry>,
}

static INDEX: LazyLock<Index> = LazyLock::new(|| {
    let mut index = Index {
        by_first_byte: (0..256).map(|_| Vec::new()).collect(),
        anywhere: Vec::new(),
    };
    let mut order = 0;
    for (kind, languages) in VOCABULARY {
        for (language, phrases) in *languages {
            for phrase in *phrases {
                order += 1;
                let entry = Entry {
                    kind: *kind,
                    language,
                    phrase,
                    order,
                };
                if spaced_script(phrase) {
                    let first = phrase.split(' ').next().unwrap_or(phrase);
                    let bucket = usize::from(first.as_bytes().first().copied().unwrap_or(0));
                    index.by_first_byte[bucket].push((first, entry));
                } else {
                    index.anywhere.push(entry);
                }
            }
        }
    }
    index
});

/// The kind and language a normalized heading names, if any: the longest
/// phrase of [`VOCABULARY`] it contains.
pub fn classify(norm: &str) -> Option<(SectionKind, &'static str)> {
    if NOT_A_SECTION.iter().any(|p| has_phrase(norm, p)) {
        return None;
    }
    let index = &*INDEX;
    let owned: Vec<&str> = norm.split(' ').collect();
    let words = owned.as_slice();
    let spaced = words.iter().enumerate().flat_map(|(i, word)| {
        let bucket = usize::from(word.as_bytes().first().copied().unwrap_or(0));
        index.by_first_byte[bucket]
            .iter()
            .filter(move |(first, _)| first == word)
            .map(|(_, e)| e)
            .filter(move |e| {
                let mut rest = words[i..].iter();
                e.phrase.split(' ').all(|w| rest.next() == Some(&w))
            })
    });
    let anywhere = index
        .anywhere
        .iter()
        .filter(|_| norm.chars().any(is_cjk))
        .filter(|e| norm.contains(e.phrase));
    spaced
        .chain(anywhere)
        .min_by_key(|e| (std::cmp::Reverse(e.phrase.chars().count()), e.order))
        .map(|e| (e.kind, e.language))
}

/// Whether `phrase` is matched on word boundaries: it has no Japanese,
/// Chinese or Korean character (those are matched anywhere).
fn spaced_script(phrase: &str) -> bool {
    !phrase.chars().any(is_cjk)
}

/// A Japanese, Chinese or Korean character.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30ff   // hiragana, katakana
        | 0x3400..=0x4dbf // CJK extension A
        | 0x4e00..=0x9fff // CJK unified ideographs
        | 0xac00..=0xd7af // Hangul syllables
        | 0x1100..=0x11ff // Hangul jamo
    )
}

/// Lowercase words of a heading, parentheticals dropped (unless that leaves
/// nothing), apostrophes removed ("don't" -> "dont"), leading numbering
/// ("2.1 Status") and symbols (emoji) dropped.
pub fn normalize(heading: &str) -> String {
    let mut outside = String::with_capacity(heading.len());
    let mut depth = 0u32;
    for c in heading.chars() {
        match c {
            '(' | '[' | '（' => depth += 1,
            ')' | ']' | '）' => depth = depth.saturating_sub(1),
            _ if depth == 0 => outside.push(c),
            _ => {}
        }
    }
    let source = if outside.chars().any(char::is_alphabetic) {
        outside.as_str()
    } else {
        heading
    };
    let mut norm = String::with_capacity(source.len());
    for c in source.chars().filter(|c| !matches!(c, '\'' | '’')) {
        if c.is_alphanumeric() {
            norm.extend(c.to_lowercase());
        } else if !norm.ends_with(' ') && !norm.is_empty() {
            norm.push(' ');
        }
    }
    let trimmed = norm.trim_end();
    let numbered = trimmed
        .split(' ')
        .take_while(|w| w.chars().all(|c| c.is_ascii_digit()))
        .count();
    trimmed
        .split(' ')
        .skip(numbered)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `phrase` occurs in `words` on word boundaries (both are
/// space-separated lowercase words).
pub fn has_phrase(words: &str, phrase: &str) -> bool {
    words.match_indices(phrase).any(|(at, _)| {
        let before = at == 0 || words.as_bytes()[at - 1] == b' ';
        let end = at + phrase.len();
        let after = end == words.len() || words.as_bytes()[end] == b' ';
        before && after
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_all_ten_languages() {
        for (kind, languages) in VOCABULARY {
            let codes: Vec<_> = languages.iter().map(|(l, _)| *l).collect();
            assert_eq!(
                codes,
                ["en", "de", "fr", "es", "pt", "it", "ja", "ko", "zh", "ru"],
                "{kind:?}"
            );
        }
    }

    #[test]
    fn phrases_are_normalized_and_classify_as_their_kind() {
        for (kind, languages) in VOCABULARY {
            for (_, phrases) in *languages {
                for phrase in *phrases {
                    assert_eq!(normalize(phrase), *phrase, "{phrase} is not normalized");
                    let found = classify(phrase).map(|(k, _)| k);
                    assert_eq!(found, Some(*kind), "{phrase}");
                }
            }
        }
    }

    #[test]
    fn the_longest_phrase_wins() {
        assert_eq!(classify("external blocker"), Some((WaitingOn, "en")));
        assert_eq!(classify("blocker"), Some((NotWorking, "en")));
        assert_eq!(
            classify("tried and abandoned"),
            Some((FailedApproaches, "en"))
        );
        assert_eq!(
            classify("was nicht funktioniert hat"),
            Some((FailedApproaches, "de"))
        );
        assert_eq!(
            classify("試して失敗したこと 再試行しない"),
            Some((FailedApproaches, "ja"))
        );
        assert_eq!(classify("not done yet"), None);
    }

    #[test]
    fn normalize_drops_numbers_symbols_and_parentheticals() {
        assert_eq!(normalize("2.1 Status"), "status");
        assert_eq!(normalize("🎯 Next step"), "next step");
        assert_eq!(
            normalize("Failed approaches (DO NOT retry)"),
            "failed approaches"
        );
        assert_eq!(normalize("(Don't redo)"), "dont redo");
        assert_eq!(normalize("次の一手（重要）"), "次の一手");
    }
}
