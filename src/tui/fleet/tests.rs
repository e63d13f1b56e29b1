use std::path::PathBuf;

use agent_handover::domain::handoff::usefulness::Usefulness;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::tui::fixtures::now;

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
    r.paused = health == Health::Run(StateKind::Paused);
    r.agent = Some("claude".into());
    r.details = true;
    r.activity = Some(now() - chrono::TimeDelta::minutes(3));
    r
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
                outcome: Some(Usefulness {
                    score: 70,
                    next_step_acted_on: Some(true),
                    failed_retried: Vec::new(),
                    waits_resolved: 0,
                    waits: 0,
                    numbers_moved: None,
                }),
            }),
            1 => Some(Score {
                score: Some(42),
                outcome: None,
            }),
            5 => None,
            _ => Some(Score::default()),
        };
    }
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
    f.on_key(key(KeyCode::Char('x')));
    assert!(!f.help);
}

#[test]
fn enter_opens_the_selected_workspace_but_not_a_missing_one() {
    let mut f = fleet((100, 30));
    f.on_key(key(KeyCode::Char('j')));
    assert_eq!(f.on_key(key(KeyCode::Enter)), vec![FleetEffect::Open(1)]);
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
    next.paused = true;
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
    r.paused = true;
    r.for_human = 3;
    assert!(f.row_loaded(0, r.clone()).is_empty(), "first reading");
    f.quiet = Some(0);
    r.paused = false;
    let mut again = r.clone();
    again.paused = true;
    f.row_loaded(0, r);
    assert_eq!(f.quiet, None);
    assert_eq!(f.row_loaded(0, again).len(), 1, "quiet only once");
}

#[test]
fn the_clock_rereads_running_rows_and_clears_old_messages() {
    let mut f = fleet((100, 30));
    f.say("hello", false);
    assert_eq!(f.clock(now()), vec![FleetEffect::Reload(0)]);
    assert!(f.toast.is_some());
    f.clock(now() + crate::tui::app::TOAST_FOR);
    assert!(f.toast.is_none());
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
        assert_eq!(f.on_key(key(KeyCode::Enter)), vec![FleetEffect::Open(1)]);
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
