//! The plan panel: the active task of `.agent-handover/tasks/` (the most
//! recently updated one not done) with each step's status, output, blocker
//! or reason, and the approaches not to retry (redacted by the library). The run panel shows it under
//! the handover's steps whenever a task is in progress.

use agent_handover::domain::task::{StepStatus, Task, TaskStatus};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::model::Shared;
use super::widgets::{ago, fit};

/// The panel's lines, `width` columns wide: nothing when no task is in
/// progress, the error when the task files cannot be read.
pub fn lines(shared: &Shared, width: usize) -> Vec<Line<'static>> {
    let t = &shared.theme;
    let tasks = match &shared.full.tasks {
        Some(Ok(tasks)) => tasks,
        Some(Err(e)) => {
            return vec![
                Line::raw(""),
                Line::styled(fit(&format!("Tasks: {e}"), width), t.error),
            ];
        }
        None => return Vec::new(),
    };
    // The list is most recently updated first, so the first one not done is active.
    let Some(task) = tasks.iter().find(|t| t.status != TaskStatus::Done) else {
        return Vec::new();
    };
    plan(task, shared, width)
}

fn plan(task: &Task, shared: &Shared, width: usize) -> Vec<Line<'static>> {
    let t = &shared.theme;
    let (done, all) = task.progress();
    let mut lines = vec![
        Line::raw(""),
        Line::from(vec![
            Span::styled(fit(&format!("Task {}", task.task), width / 2), t.accent),
            Span::styled(
                format!(
                    "  {done}/{all} steps · {} ago",
                    ago(shared, task.updated_at)
                ),
                t.muted,
            ),
        ]),
    ];
    for (i, step) in task.plan.iter().enumerate() {
        let (mark, style) = match step.status {
            StepStatus::Done => ("[x]", t.ok),
            StepStatus::InProgress => ("[>]", t.accent),
            StepStatus::Blocked => ("[!]", t.warn),
            StepStatus::Pending => ("[ ]", t.muted),
        };
        let mut text = format!(" {}. {}", i + 1, step.step);
        for (label, value) in [
            ("→", &step.output),
            ("blocker:", &step.blocker),
            ("reason:", &step.reason),
        ] {
            if let Some(v) = value {
                text.push_str(&format!("  {label} {v}"));
            }
        }
        lines.push(Line::from(vec![
            Span::styled(mark, style),
            Span::raw(fit(&text, width.saturating_sub(3))),
        ]));
    }
    for f in &task.failed_approaches {
        lines.push(Line::from(vec![
            Span::styled("do not retry:", t.warn),
            Span::styled(
                fit(&format!(" {f}"), width.saturating_sub(13)),
                Style::new(),
            ),
        ]));
    }
    lines
}

#[cfg(test)]
mod tests {
    use crate::tui::fixtures::{self, draw};

    /// The run panel with an active task, at every size.
    #[test]
    fn the_run_panel_shows_the_active_task_plan() {
        for size in [(60, 20), (100, 30), (160, 48)] {
            let mut app = fixtures::loaded(size);
            app.shared.full.tasks = Some(Ok(fixtures::tasks()));
            let screen = draw(&app);
            assert!(screen.contains("Task stripe-v3"), "{size:?}\n{screen}");
            assert!(
                screen.contains("[x] 1. schema migration"),
                "{size:?}\n{screen}"
            );
            insta::assert_snapshot!(format!("plan_{}x{}", size.0, size.1), screen);
        }
    }

    /// Task files written by another process are loaded and drawn as they are.
    #[test]
    fn a_task_on_disk_is_loaded_and_drawn() {
        use agent_handover::domain::task::{Notes, StepChange, StepStatus, TaskStore};
        use agent_handover::{Workspace, WorkspaceOptions};
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::resolve(WorkspaceOptions {
            cwd: Some(dir.path().into()),
            home: Some(dir.path().into()),
            ..Default::default()
        })
        .unwrap();
        let store = TaskStore::new(ws.tasks_dir());
        let now = chrono::Utc::now();
        let steps = ["lexer", "grammar", "tests"].map(String::from);
        store
            .start("parser", &steps, Notes::default(), now)
            .unwrap();
        let done = StepChange {
            status: Some(StepStatus::Done),
            output: Some("src/lexer.rs".into()),
            ..Default::default()
        };
        store
            .step("parser", "1", done, Notes::default(), now)
            .unwrap();
        let mut app = fixtures::loaded((100, 30));
        app.shared.full.tasks = crate::tui::load::full(&ws, &Default::default()).tasks;
        let screen = draw(&app);
        assert!(screen.contains("Task parser"), "{screen}");
        assert!(screen.contains("[x] 1. lexer  → src/lexer.rs"), "{screen}");
        assert!(screen.contains("[>] 2. grammar"), "{screen}");
        assert!(screen.contains("[ ] 3. tests"), "{screen}");
    }

    #[test]
    fn no_active_task_no_panel_and_an_unreadable_one_says_so() {
        let mut app = fixtures::loaded((100, 30));
        app.shared.full.tasks = Some(Ok(fixtures::tasks().split_off(1)));
        assert!(!draw(&app).contains("Task "), "a done task is not shown");
        app.shared.full.tasks = Some(Err("tasks/t.json is unreadable".into()));
        assert!(draw(&app).contains("Tasks: tasks/t.json is unreadable"));
    }
}
