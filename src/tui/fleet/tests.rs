use std::path::PathBuf;

use agent_handover::domain::handoff::usefulness::Usefulness;
use agent_handover::domain::handoff::verdict::SessionVerdict;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::tui::fixtures::now;
use crate::tui::model::Action;
use agent_handover::engine::pause::PauseInfo;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn row(name: &str, health: Health) -> Row {
    let mut r = Row::loading(PathBuf::from(format!("/home/dev/src/{name}")));
    r.health = health;
    r.run = match health {
        Health::Run(StateKind::Paused) => StateKind::Completed,
        Health::Run(kind) => kind,
        _ => StateKind::None,
    };
    if health == Health::Run(StateKind::Paused) {
        r.pause = pause("reviewing the billing rewrite", false);
    }
    r.agent = Some("claude".into());
    r.details = true;
    r.activity = Some(now() - chrono::TimeDelta::minutes(3));
    r
}

/// A PAUSE with `reason`, by a person (the global brake if `global`).
fn pause(reason: &str, global: bool) -> Option<PauseInfo> {
    Some(PauseInfo {
        file: PathBuf::from(if global {
            "~/.agent_handover/PAUSE"
        } else {
            ".agent-handover/PAUSE"
        }),
        reason: Some(reason.into()),
        by: Some("ann@laptop at 2026-05-04T10:00:00Z".into()),
        global,
    })
}

/// Six workspaces in every state, as the snapshots show them.
fn fleet(size: (u16, u16)) -> Fleet {
    let names = [
        ("parser", Health::Run(StateKind::Running)),
        ("billing-service", Health::Run(StateKind::Interrupted)),
        ("docs", Health::Run(StateKind::Paused)),
        ("infra", Health::Run(StateKind::Completed)),
        (
            "mobile-app-with-a-long-name",
            Health::Run(StateKind::Failed),
        ),
        ("scratch", Health::Run(StateKind::None)),
        ("old-prototype", Health::Missing),
    ];
    let dirs = names
        .iter()
        .map(|(n, _)| PathBuf::from(format!("/home/dev/src/{n}")))
        .collect();
    let mut f = Fleet::new(dirs, Theme::monochrome(), size, now());
    f.home = "/home/dev".into();
    for (i, (name, health)) in names.iter().enumerate() {
        let mut r = row(name, *health);
        r.unread = i % 3;
        r.for_human = usize::from(i == 1);
        r.drift = i == 3;
        // The running agent is past the threshold; another is at 41 %.
        r.context = match i {
            0 => Some(82),
            3 => Some(41),
            _ => None,
        };
        r.context_low = i == 0;
        if *health == Health::Missing {
            r.agent = None;
            r.activity = None;
        }
        f.row_loaded(i, r);
        f.scores[i] = match i {
            0 => Some(Score {
                score: Some(86),
                low_confidence: false,
                outcome: Some(Usefulness {
                    score: 70,
                    next_step_acted_on: Some(true),
                    failed_retried: Vec::new(),
                    waits_resolved: 0,
                    waits: 0,
                    numbers_moved: None,
                    verdict: Some(SessionVerdict {
                        score: 6,
                        note: "the failing test was not named".into(),
                    }),
                }),
            }),
            1 => Some(Score {
                score: Some(42),
                low_confidence: false,
                outcome: None,
            }),
            3 => Some(Score {
                score: Some(64),
                low_confidence: true,
                outcome: None,
            }),
            5 => None,
            _ => Some(Score::default()),
        };
    }
    f.select_top();
    f
}

fn draw(f: &Fleet) -> String {
    crate::tui::fixtures::render_text(f.size, |frame| view::render(frame, f))
}

#[test]
fn the_fleet_at_every_size() {
    for size in [(60, 20), (100, 30), (160, 48)] {
        let f = fleet(size);
        let screen = draw(&f);
        for must in [
            "billing-service",
            "interrupted",
            "paused",
            "q quit",
            "? help",
        ] {
            assert!(screen.contains(must), "{must:?} at {size:?}:\n{screen}");
        }
        insta::assert_snapshot!(format!("fleet_{}x{}", size.0, size.1), screen);
    }
}

#[test]
fn the_help_lists_the_fleet_keys_and_any_key_closes_it() {
    let mut f = fleet((60, 20));
    f.on_key(key(KeyCode::Char('?')));
    let screen = draw(&f);
    assert!(
        screen.contains("Fleet keys") && screen.contains("tmux pane"),
        "{screen}"
    );
    insta::assert_snapshot!("fleet_help_60x20", screen);
    // Taller than 20 rows: j scrolls to the legend of the columns.
    assert!(!screen.contains("outcome"));
    for _ in 0..40 {
        f.on_key(key(KeyCode::Char('j')));
    }
    assert!(f.help);
    let end = draw(&f);
    assert!(
        end.contains("outcome") && end.contains("bell rings"),
        "{end}"
    );
    f.on_key(key(KeyCode::Char('x')));
    assert!(!f.help);
}

#[test]
fn enter_opens_the_selected_workspace_but_not_a_missing_one() {
    let mut f = fleet((100, 30));
    f.on_key(key(KeyCode::Char('j')));
    assert_eq!(
        f.on_key(key(KeyCode::Enter)),
        vec![FleetEffect::Open(1, Focus::HumanQueue)]
    );
    assert_eq!(
        f.on_key(key(KeyCode::Char('t'))),
        vec![FleetEffect::JumpToPane(1)]
    );
    f.on_key(key(KeyCode::Char('G')));
    assert_eq!(f.cursor, 6);
    assert!(f.on_key(key(KeyCode::Enter)).is_empty());
    assert!(
        f.toast
            .as_ref()
            .is_some_and(|(t, e, _)| *e && t.contains("missing"))
    );
    assert_eq!(f.on_key(key(KeyCode::Char('q'))), vec![FleetEffect::Quit]);
}

#[test]
fn the_selection_scrolls_with_the_list_on_a_short_screen() {
    let mut f = fleet((60, 6));
    for _ in 0..5 {
        f.on_key(key(KeyCode::Down));
    }
    assert_eq!(f.cursor, 5);
    assert_eq!(f.offset, 5 + 1 - f.page());
    assert!(draw(&f).contains("▸ scratch"));
}

#[test]
fn alerts_ring_on_transitions_only() {
    let mut f = fleet((100, 30));
    // Same reading again: nothing.
    let same = f.rows[0].clone();
    assert!(f.row_loaded(0, same).is_empty());
    // Running -> interrupted rings once.
    let mut next = f.rows[0].clone();
    next.run = StateKind::Interrupted;
    next.health = Health::Run(StateKind::Interrupted);
    let rung = f.row_loaded(0, next.clone());
    assert!(
        matches!(&rung[..], [FleetEffect::Alert(a)] if a.event == "interrupted" && a.row == 0),
        "{rung:?}"
    );
    assert!(f.row_loaded(0, next.clone()).is_empty(), "not again");
    // A PAUSE appearing, and mail for the human.
    next.pause = pause("lunch", false);
    next.for_human = 2;
    let rung = f.row_loaded(0, next.clone());
    let events: Vec<_> = rung
        .iter()
        .map(|e| match e {
            FleetEffect::Alert(a) => a.event,
            _ => "?",
        })
        .collect();
    assert_eq!(events, ["paused", "mail"]);
    // Failed is its own event.
    next.run = StateKind::Failed;
    assert!(matches!(&f.row_loaded(0, next)[..], [FleetEffect::Alert(a)] if a.event == "failed"));
}

#[test]
fn mail_already_there_when_first_counted_does_not_ring() {
    let mut f = Fleet::new(vec!["/w".into()], Theme::monochrome(), (60, 20), now());
    let mut state_only = row("w", Health::Run(StateKind::Completed));
    state_only.details = false;
    f.row_loaded(0, state_only);
    assert!(draw(&f).contains("…"), "mail not counted yet");
    let mut counted = row("w", Health::Run(StateKind::Completed));
    counted.for_human = 4;
    assert!(f.row_loaded(0, counted.clone()).is_empty());
    counted.for_human = 5;
    assert_eq!(f.row_loaded(0, counted).len(), 1, "a new one rings");
}

#[test]
fn the_first_reading_and_the_row_just_left_raise_nothing() {
    let mut f = Fleet::new(vec!["/w".into()], Theme::monochrome(), (60, 20), now());
    let mut r = row("w", Health::Run(StateKind::Interrupted));
    r.pause = pause("lunch", false);
    r.for_human = 3;
    assert!(f.row_loaded(0, r.clone()).is_empty(), "first reading");
    f.quiet = Some(0);
    r.pause = None;
    let mut again = r.clone();
    again.pause = pause("lunch", false);
    f.row_loaded(0, r);
    assert_eq!(f.quiet, None);
    assert_eq!(f.row_loaded(0, again).len(), 1, "quiet only once");
}

#[test]
fn the_clock_rereads_running_rows_and_clears_old_messages() {
    let mut f = fleet((100, 30));
    f.say("hello", false);
    assert_eq!(f.clock(now()).reread, vec![FleetEffect::Reload(0)]);
    assert!(f.toast.is_some());
    assert!(f.clock(now() + crate::tui::app::TOAST_FOR).redraw);
    assert!(f.toast.is_none());
}

/// Idle, the fleet draws again only when what it shows changed with the
/// time: a "seen 3m" or "seen <1m" row does not, every second (issue 28:
/// idle CPU).
#[test]
fn a_second_passing_redraws_only_when_a_shown_time_changes() {
    let mut f = fleet((100, 30));
    let mut r = f.rows[0].clone();
    r.health = Health::Run(StateKind::Completed);
    r.details = true;
    r.activity = Some(now() - chrono::Duration::seconds(185));
    f.row_loaded(0, r);
    f.now = now();
    let tick = f.clock(now() + chrono::Duration::seconds(1));
    assert_eq!(
        tick,
        Tick {
            redraw: false,
            reread: vec![]
        },
        "3m ago still"
    );
    assert!(
        f.clock(now() + chrono::Duration::seconds(55)).redraw,
        "now 4m ago"
    );
    // Under a minute the column says "<1m": no redraw every second.
    let mut r = f.rows[0].clone();
    r.activity = Some(now() + chrono::Duration::seconds(50));
    f.row_loaded(0, r);
    assert!(
        !f.clock(now() + chrono::Duration::seconds(56)).redraw,
        "<1m still"
    );
    assert!(
        f.clock(now() + chrono::Duration::seconds(111)).redraw,
        "now 1m"
    );
    assert_eq!(seen(now(), now() - chrono::Duration::seconds(59)), "<1m");
    assert_eq!(seen(now(), now() - chrono::Duration::seconds(60)), "1m");
}

/// Issue 14, build 6: `/` filters the workspaces as it is typed (by name,
/// state or path); the selection, `enter` and the "more" count follow the
/// rows shown; Esc clears it.
#[test]
fn slash_filters_the_workspaces_and_enter_opens_the_one_shown() {
    for size in [(60, 20), (100, 30), (160, 48)] {
        let mut f = fleet(size);
        f.on_key(key(KeyCode::Char('/')));
        for c in "interr".chars() {
            f.on_key(key(KeyCode::Char(c)));
        }
        let typing = draw(&f);
        assert!(typing.contains("/interr▏"), "{typing}");
        f.on_key(key(KeyCode::Enter));
        let screen = draw(&f);
        let all = f.rows.len();
        assert!(
            screen.contains(&format!("1 of {all} workspaces /interr")),
            "{screen}"
        );
        assert!(
            screen.contains("billing") && !screen.contains("parser"),
            "{screen}"
        );
        insta::assert_snapshot!(format!("fleet_filtered_{}x{}", size.0, size.1), screen);
        // j stays on the one row shown; enter opens it, not row 0.
        f.on_key(key(KeyCode::Char('j')));
        assert_eq!(
            f.on_key(key(KeyCode::Enter)),
            vec![FleetEffect::Open(1, Focus::HumanQueue)]
        );
        f.on_key(key(KeyCode::Char('/')));
        f.on_key(key(KeyCode::Esc));
        assert!(draw(&f).contains(&format!(" {all} workspaces")));
        assert_eq!(f.cursor, 1, "the selection stays on its workspace");
    }
}

#[test]
fn an_agent_whose_context_runs_low_rings_once() {
    let old = row("parser", Health::Run(StateKind::Running));
    let mut new = old.clone();
    new.context = Some(80);
    new.context_low = true;
    let alerts = alerts(0, &old, &new);
    assert_eq!(alerts.len(), 1);
    assert_eq!(alerts[0].event, "context");
    assert!(alerts[0].detail.contains("80% full"), "{:?}", alerts[0]);
    assert!(
        super::alerts(0, &new, &new).is_empty(),
        "not again while it stays low"
    );
}

/// Issue 28, the cockpit: rows by urgency (a failed step first, then the
/// interrupted handover with mail for the human, the agent running low,
/// PAUSE, idle, missing); `s` cycles the orders and the selection stays on
/// its workspace.
#[test]
fn rows_are_sorted_by_urgency_and_s_cycles_the_order() {
    let mut f = fleet((100, 30));
    let names =
        |f: &Fleet| -> Vec<String> { f.shown().iter().map(|&i| f.rows[i].name.clone()).collect() };
    assert_eq!(
        names(&f),
        [
            "mobile-app-with-a-long-name",
            "billing-service",
            "parser",
            "docs",
            "infra",
            "scratch",
            "old-prototype"
        ]
    );
    assert_eq!(f.cursor, 4, "the most urgent row is selected");
    f.on_key(key(KeyCode::Char('j')));
    f.on_key(key(KeyCode::Char('s')));
    assert_eq!(f.sort, Sort::Name);
    assert_eq!(names(&f)[0], "billing-service");
    assert_eq!(f.cursor, 1, "the selection follows its workspace");
    assert!(draw(&f).contains("by name"));
    f.on_key(key(KeyCode::Char('s')));
    f.on_key(key(KeyCode::Char('s')));
    assert_eq!(f.sort, Sort::Score);
    assert_eq!(names(&f)[0], "billing-service", "42 is the lowest score");
    f.on_key(key(KeyCode::Char('s')));
    assert_eq!(names(&f)[..2], ["parser", "infra"], "82 % and 41 % full");
    f.on_key(key(KeyCode::Char('s')));
    assert_eq!(f.sort, Sort::Urgency);
}

/// Select the row named `name`.
fn select(f: &mut Fleet, name: &str) -> usize {
    f.on_key(key(KeyCode::Char('g')));
    while f.rows[f.cursor].name != name {
        let before = f.cursor;
        f.on_key(key(KeyCode::Char('j')));
        assert_ne!(before, f.cursor, "no row {name}");
    }
    f.cursor
}

#[test]
fn p_pauses_at_once_and_only_y_unpauses() {
    let mut f = fleet((100, 30));
    let infra = select(&mut f, "infra");
    assert_eq!(
        f.on_key(key(KeyCode::Char('p'))),
        vec![FleetEffect::Act(
            infra,
            Action::Pause(Some(FLEET_PAUSE.into()))
        )]
    );
    let docs = select(&mut f, "docs");
    assert!(f.on_key(key(KeyCode::Char('p'))).is_empty(), "asks first");
    assert!(draw(&f).contains("Unpause docs?"), "{}", draw(&f));
    f.on_key(key(KeyCode::Esc));
    for cancel in [KeyCode::Enter, KeyCode::Esc, KeyCode::Char('n')] {
        f.on_key(key(KeyCode::Char('p')));
        assert!(f.on_key(key(cancel)).is_empty(), "{cancel:?} cancels");
        assert!(f.confirm.is_none());
    }
    f.on_key(key(KeyCode::Char('p')));
    assert_eq!(
        f.on_key(key(KeyCode::Char('y'))),
        vec![FleetEffect::Act(docs, Action::Unpause)]
    );
}

/// Issue 44, item 2: `P` pauses every running workspace with the fleet's
/// own reason; the second `P` asks to unpause only those, naming the
/// pause it leaves (someone else's, with its reason and who set it).
#[test]
fn capital_p_pauses_every_running_workspace_then_unpauses_only_its_own() {
    let mut f = fleet((100, 30));
    let paused: Vec<usize> = f
        .on_key(key(KeyCode::Char('P')))
        .into_iter()
        .map(|e| match e {
            FleetEffect::Act(i, Action::Pause(Some(reason))) if reason == FLEET_PAUSE => i,
            other => panic!("{other:?}"),
        })
        .collect();
    // Every listed workspace but the paused docs and the missing one.
    assert_eq!(paused.len(), 5, "{paused:?}");
    for &i in &paused {
        let mut row = f.rows[i].clone();
        row.pause = pause(FLEET_PAUSE, false);
        row.health = Health::Run(StateKind::Paused);
        assert!(
            f.row_loaded(i, row).is_empty(),
            "the fleet's own pause rings nothing"
        );
    }
    let docs = f.rows.iter().position(|r| r.name == "docs").unwrap();
    assert!(f.on_key(key(KeyCode::Char('P'))).is_empty());
    let screen = draw(&f);
    assert!(
        screen.contains("Unpause the 5 workspaces the fleet paused?"),
        "{screen}"
    );
    assert!(screen.contains("docs: reviewing the billing"), "{screen}");
    let lifted: Vec<usize> = f
        .on_key(key(KeyCode::Char('y')))
        .into_iter()
        .map(|e| match e {
            FleetEffect::Act(i, Action::Unpause) => i,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(lifted.len(), 5);
    assert!(!lifted.contains(&docs), "someone else's pause stays");
    // With only someone else's pause left, P lifts nothing and says whose.
    for &i in &paused {
        f.rows[i].pause = None;
        f.rows[i].health = Health::Run(f.rows[i].run);
    }
    f.rows.retain(|r| r.name == "docs");
    f.scores.truncate(1);
    f.cursor = 0;
    assert!(f.on_key(key(KeyCode::Char('P'))).is_empty());
    assert!(f.confirm.is_none());
    let said = &f.toast.as_ref().unwrap().0;
    assert!(
        said.contains("no pause here is the fleet's")
            && said.contains("docs: reviewing the billing rewrite (ann@laptop"),
        "{said}"
    );
}

/// Issue 44, item 2: the supervisor's own pauses raise no alert and do not
/// count as NEED YOU; someone else's does, saying why and who.
#[test]
fn the_fleets_own_pause_is_no_alert_and_not_need_you() {
    let mut f = Fleet::new(vec!["/w".into()], Theme::monochrome(), (100, 30), now());
    let quiet = row("w", Health::Run(StateKind::Completed));
    f.row_loaded(0, quiet.clone());
    let mut ours = quiet.clone();
    ours.pause = pause(FLEET_PAUSE, false);
    ours.health = Health::Run(StateKind::Paused);
    assert!(f.row_loaded(0, ours.clone()).is_empty());
    assert!(!ours.needs_you());
    // An interrupted handover under the fleet's pause still needs you.
    let mut stopped = ours.clone();
    stopped.run = StateKind::Interrupted;
    assert!(stopped.needs_you());
    assert!(!draw(&f).contains("NEED YOU"), "{}", draw(&f));
    f.row_loaded(0, quiet);
    let mut theirs = ours.clone();
    theirs.pause = pause("reviewing the billing rewrite", false);
    let rung = f.row_loaded(0, theirs.clone());
    assert!(
        matches!(&rung[..], [FleetEffect::Alert(a)]
            if a.detail == "w: paused by someone else: reviewing the billing rewrite (ann@laptop at 2026-05-04T10:00:00Z)"),
        "{rung:?}"
    );
    assert!(theirs.needs_you());
}

/// Issue 44, item 2: the global brake is in the header at once, every
/// row says it holds it, and `p` on a row it holds says how to lift it.
#[test]
fn the_global_brake_shows_in_the_header_and_holds_every_row() {
    let mut f = fleet((100, 30));
    f.global = pause("lunch", true);
    let screen = draw(&f);
    assert!(
        screen.contains("4 NEED YOU  · 1 for you ·  GLOBAL PAUSE: lunch"),
        "{screen}"
    );
    let held = screen.lines().filter(|l| l.contains("held·global")).count();
    // Every workspace but the missing one, and docs, paused on its own.
    assert_eq!(held, 5, "{screen}");
    insta::assert_snapshot!("fleet_global_brake_100x30", screen);
    let infra = select(&mut f, "infra");
    let mut row = f.rows[infra].clone();
    row.pause = pause("lunch", true);
    row.health = Health::Run(StateKind::Paused);
    assert!(
        f.row_loaded(infra, row).is_empty(),
        "the brake rings no row"
    );
    assert!(f.on_key(key(KeyCode::Char('p'))).is_empty());
    let said = &f.toast.as_ref().unwrap().0;
    assert!(
        said.contains("held by the global brake (lunch") && said.contains("unpause --global"),
        "{said}"
    );
    // Lifted: the row shows its own state until it is read again.
    f.global = None;
    let screen = draw(&f);
    assert!(
        !screen.contains("held·global") && !screen.contains("GLOBAL PAUSE"),
        "{screen}"
    );
}

#[test]
fn resume_and_abandon_act_only_where_a_handover_waits() {
    let mut f = fleet((100, 30));
    let billing = select(&mut f, "billing-service");
    assert_eq!(
        f.on_key(key(KeyCode::Char('r'))),
        vec![FleetEffect::Act(billing, Action::Resume)]
    );
    assert!(f.on_key(key(KeyCode::Char('a'))).is_empty(), "asks first");
    assert!(draw(&f).contains("Abandon billing-service's interrupted handover?"));
    let acted = f.on_key(key(KeyCode::Char('y')));
    assert!(
        matches!(&acted[..], [FleetEffect::Act(i, Action::Abandon(_))] if *i == billing),
        "{acted:?}"
    );
    assert_eq!(
        f.on_key(key(KeyCode::Char('c'))),
        vec![FleetEffect::Open(billing, Focus::WriteToAgent)]
    );
    // A workspace where no handover ran: no resume, no abandon, not offered.
    select(&mut f, "scratch");
    assert!(f.on_key(key(KeyCode::Char('r'))).is_empty());
    assert!(f.on_key(key(KeyCode::Char('a'))).is_empty());
    assert!(f.confirm.is_none());
    let keys: Vec<&str> = f.row_keys().iter().map(|(k, _)| *k).collect();
    assert_eq!(keys, ["enter", "p", "c"]);
    assert!(!draw(&f).contains(" r resume"));
    select(&mut f, "old-prototype");
    assert!(f.row_keys().is_empty(), "nothing acts on a missing one");
}

#[test]
fn a_paste_or_enter_never_confirms() {
    let mut f = fleet((100, 30));
    select(&mut f, "billing-service");
    f.on_key(key(KeyCode::Char('a')));
    assert!(f.on_key(key(KeyCode::Enter)).is_empty());
    assert!(f.confirm.is_none());
}

#[test]
fn the_registry_changing_keeps_what_was_read() {
    let mut f = fleet((100, 30));
    let billing = select(&mut f, "billing-service");
    let kept = f.rows[billing].clone();
    let dirs = vec![PathBuf::from("/home/dev/src/new-one"), kept.path.clone()];
    f.set_dirs(dirs);
    assert_eq!(f.rows.len(), 2);
    assert_eq!(f.rows[1], kept);
    assert_eq!(f.rows[0].health, Health::Loading);
    assert_eq!(f.cursor, 1, "the selection stays on its workspace");
}

/// The detail pane under the list from 100 columns: state and next action,
/// the step and its output, PAUSE, mail, next step, score, drift, sessions.
#[test]
fn the_detail_pane_says_everything_of_the_selected_row() {
    for size in [(100, 30), (160, 48)] {
        let mut f = fleet(size);
        let billing = select(&mut f, "billing-service");
        f.detail = Some(Detail {
            path: f.rows[billing].path.clone(),
            state: "the last handover (run-20261126T101500Z) was interrupted; pending: tests, publish".into(),
            next: Some("run `agent-handover resume` (done steps are not redone)".into()),
            step: Some("tests: its process died mid-step (pid 4242 is gone); the step is idempotent, so resume runs it again".into()),
            output: vec!["running 212 tests".into(), "test api::proration ... ok".into()],
            next_step: Some("Fix the rounding in `src/billing/proration.rs:88` and run `cargo test proration`".into()),
            workstreams: vec!["invoices-pdf: render the totals table with the new fonts".into()],
            for_human: Some("from codex 12m ago: Which currency wins on a split invoice?".into()),
            pause: None,
            score: Some("42/100; costs most: failed-approaches-missing (-15) add what was tried and failed".into()),
            outcome: Some("previous handoff useful 70/100: next step acted on, verdict 6/10: the failing test was not named".into()),
            drift: Vec::new(),
            sessions: vec!["claude started 2h ago: 151,200 of 200,000 tokens (76%), compacted once, no handover yet".into()],
            last_handover: Some("1d ago".into()),
        });
        let screen = draw(&f);
        for must in [
            "next action",
            "agent-handover resume",
            "proration.rs:88",
            "Which currency",
            "invoices-pdf: render the totals",
            "76%",
            "verdict 6/10",
            "r resume",
            "a abandon",
        ] {
            assert!(screen.contains(must), "{must:?} at {size:?}:\n{screen}");
        }
        insta::assert_snapshot!(format!("fleet_detail_{}x{}", size.0, size.1), screen);
    }
    // No pane below 100 columns: the list has the screen.
    let f = fleet((99, 30));
    assert!(!draw(&f).contains("next action"));
}

#[test]
fn the_selected_row_is_one_even_bar_in_colour() {
    use ratatui::style::{Color, Modifier};
    let mut f = fleet((100, 30));
    f.theme = Theme::new(false, &Default::default()).0;
    let buffer = crate::tui::fixtures::render_buffer(f.size, |frame| view::render(frame, &f));
    let y = (0..buffer.area.height)
        .find(|&y| buffer[(0, y)].symbol() == "▸")
        .expect("a selected row");
    let row: String = (0..buffer.area.width)
        .map(|x| buffer[(x, y)].symbol())
        .collect();
    let end = row.trim_end().chars().count() as u16;
    // Its state is drawn in colour elsewhere (the detail pane), not here.
    assert!(row.contains("failed"), "{row}");
    for x in 0..end {
        let cell = &buffer[(x, y)];
        assert_eq!(
            (cell.fg, cell.bg),
            (Color::Reset, Color::Reset),
            "cell {x} ({:?}) of {row:?}",
            cell.symbol()
        );
        assert!(
            cell.modifier.contains(Modifier::REVERSED),
            "cell {x} of {row:?}"
        );
    }
    // The rows not selected keep their colours.
    let coloured = (0..buffer.area.height)
        .filter(|&r| r != y)
        .any(|r| (0..buffer.area.width).any(|x| buffer[(x, r)].fg == Color::Yellow));
    assert!(coloured);
}

/// Issue 44, item 3: the context column (what explains a row's rank at
/// low context) is kept down to 80 columns, and a low context counts in
/// NEED YOU.
#[test]
fn the_context_column_survives_to_80_columns_and_low_context_needs_you() {
    for width in [80, 90, 99] {
        let f = fleet((width, 24));
        let screen = draw(&f);
        let titles = screen.lines().nth(1).unwrap();
        assert!(titles.contains("context"), "{width}:\n{screen}");
        assert!(screen.contains("82%"), "{width}:\n{screen}");
    }
    let mut r = row("w", Health::Run(StateKind::Running));
    assert!(!r.needs_you());
    r.context = Some(85);
    r.context_low = true;
    assert!(r.needs_you());
}

/// Issue 44, item 4: the fleet opens on the most urgent row even when what
/// makes it urgent (a context running low, mail) is read after the first
/// frame; once the user moves, the selection is theirs.
#[test]
fn the_selection_follows_the_most_urgent_row_until_the_user_moves() {
    let dirs = vec!["/w/a-quiet".into(), "/w/b-low".into(), "/w/c-mail".into()];
    let mut f = Fleet::new(dirs, Theme::monochrome(), (100, 30), now());
    for (i, name) in ["a-quiet", "b-low", "c-mail"].iter().enumerate() {
        let mut r = row(name, Health::Run(StateKind::Completed));
        r.details = false;
        f.row_loaded(i, r);
    }
    f.select_top();
    assert_eq!(f.cursor, 0, "by name while the states tie");
    let mut low = row("b-low", Health::Run(StateKind::Completed));
    low.context = Some(85);
    low.context_low = true;
    f.row_loaded(1, low);
    assert_eq!(f.cursor, 1, "the low context is the most urgent now");
    let mut mail = row("c-mail", Health::Run(StateKind::Completed));
    mail.for_human = 1;
    f.row_loaded(2, mail);
    assert_eq!(f.cursor, 2, "mail for you comes before it");
    f.on_key(key(KeyCode::Char('j')));
    let chosen = f.cursor;
    let mut quiet = row("a-quiet", Health::Run(StateKind::Interrupted));
    quiet.run = StateKind::Interrupted;
    f.row_loaded(0, quiet);
    assert_eq!(f.cursor, chosen, "the user's choice stays");
}
