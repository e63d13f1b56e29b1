//! A workspace with a history, for the dashboard and fleet benches: layer-1
//! notes (ten a day), state versions, inbox messages and one completed
//! handover, all written through the library.

use std::path::Path;

use agent_handover::domain::inbox::{Inbox, NewMessage};
use agent_handover::domain::memory::history::StateHistory;
use agent_handover::{Engine, RunOverrides, Workspace, WorkspaceOptions, plan_from_config};
use chrono::{Duration as Days, NaiveDate, TimeZone, Utc};

/// How much history a generated workspace holds.
pub struct History {
    /// Layer-1 notes.
    pub notes: usize,
    /// Versions of current-state.md.
    pub versions: usize,
    /// Inbox messages.
    pub messages: usize,
}

/// Write a workspace with `history` into `dir`, message `m` sent to
/// `recipient(m)`, and hand over once.
pub fn generate(dir: &Path, history: &History, recipient: impl Fn(usize) -> String) -> Workspace {
    std::fs::write(
        dir.join("handover.toml"),
        "[handover]\ntag = \"bench\"\n[backend]\ntype = \"null\"\n",
    )
    .unwrap();
    let ws = Workspace::resolve(WorkspaceOptions {
        cwd: Some(dir.to_path_buf()),
        home: Some(dir.join("home")),
        ..Default::default()
    })
    .unwrap();
    std::fs::create_dir_all(dir.join("home")).unwrap();
    let start = NaiveDate::from_ymd_opt(2024, 1, 1).unwrap();
    for i in 0..history.notes {
        let date = start + Days::days((i / 10) as i64);
        let month = ws.memory.layer1_month_dir(date);
        std::fs::create_dir_all(&month).unwrap();
        let path = ws.memory.layer1_note("bench", date, (i % 10) as u32 + 1);
        std::fs::write(
            path,
            format!("<!-- agent-handover | layer1 | {date} -->\n# Session {i}\nDid thing {i}.\n"),
        )
        .unwrap();
    }
    let states = StateHistory::new(ws.state_history_dir());
    let t0 = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    for v in 0..history.versions {
        let text: String = (0..120)
            .map(|l| format!("- item {l}: {}\n", if l == v % 120 { v } else { l }))
            .collect();
        states
            .save(
                &format!("# State {v}\n{text}"),
                &format!("run-{v}"),
                Some(t0 + Days::hours(v as i64)),
            )
            .unwrap();
    }
    let inbox = Inbox::new(&ws);
    for m in 0..history.messages {
        let message = NewMessage {
            from: format!("peer{}", m % 7),
            to: recipient(m),
            subject: Some(format!("message {m}")),
            body: format!("Body of message {m}.\n"),
            reply_to: None,
            allow_secret: false,
            allow_empty: false,
        };
        inbox.send(&message).unwrap();
    }
    let overrides = RunOverrides {
        note: Some("# Session\n## Status\n1/1 tests pass\n".into()),
        ..Default::default()
    };
    let request = plan_from_config(&ws, &overrides, Utc::now().date_naive()).unwrap();
    Engine::new(ws.clone()).start(request).unwrap();
    ws
}
