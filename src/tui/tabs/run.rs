//! The run panel: status, each step (state, attempts, duration), the selected
//! step's error and output, and the resume / abandon / pause buttons. Its
//! own tab when the terminal is narrow, the sidebar beside every tab when
//! it is wide. It also answers retry, since the step to retry is the one it
//! has selected.

use agent_handover::{AfterCrash, RunStatus};
use agent_handover::read::{RunSnapshot, StepView};
use agent_handover::engine::StepState;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::tui::command::{Command, TabId};
use crate::tui::layout::button_rects;
use crate::tui::model::{Action, Shared};
use crate::tui::plan;
use crate::tui::tab::{Cursor, Reply, Tab};
use crate::tui::widgets::{ago, fit, panel};

/// The run tab's id.
pub const ID: TabId = TabId::new("Run");

/// The run panel's state: which step is selected.
#[derive(Debug, Default)]
pub struct RunTab {
    /// The selected step.
    step: Cursor,
    /// The row the panel put the cursor on itself (the step that stopped
    /// the run, or the first): while the cursor is still there, it follows
    /// the run's problem step as the run goes on.
    placed: Option<usize>,
}

impl Tab for RunTab {
    fn id(&self) -> TabId {
        ID
    }

    fn is_sidebar_when_wide(&self) -> bool {
        true
    }

    /// Retry, from any tab: the focused step, if it failed or was interrupted.
    fn update(&mut self, command: Command, shared: &Shared, selected: bool) -> Reply {
        if command != Command::Retry {
            return Reply::Unhandled;
        }
        let step = shared
            .snapshot()
            .and_then(|snap| snap.steps.get(self.focused_step(snap, selected)?))
            .filter(|s| matches!(s.state, StepState::Failed | StepState::Interrupted));
        match step {
            Some(step) if step.retry_needs_confirmation() => {
                Reply::Confirm(Action::Retry(step.name.clone()))
            }
            Some(step) => Reply::Act(Action::Retry(step.name.clone())),
            None => Reply::Note("select a failed or interrupted step to retry".into()),
        }
    }

    fn cursor_mut(&mut self) -> &mut Cursor {
        &mut self.step
    }

    /// A step the user selected stays selected by name when the plan
    /// changes; a run seen for the first time starts on the step that
    /// stopped it (or is running), and the cursor keeps following that
    /// step until the user moves it.
    fn run_reloaded(&mut self, previous: Option<&RunSnapshot>, shared: &Shared) {
        let Some(now) = shared.snapshot() else { return };
        let same_run = previous.is_some_and(|p| p.run_id == now.run_id);
        let chosen = same_run && self.placed != Some(self.step.row());
        let name = previous
            .filter(|_| chosen)
            .and_then(|p| p.steps.get(self.step.row()).map(|s| &s.name));
        if let Some(at) = name.and_then(|name| now.steps.iter().position(|s| s.name == *name)) {
            self.step.set(at);
        } else if !chosen {
            let at = problem_step(now).unwrap_or(0);
            self.step.set(at);
            self.placed = Some(at);
        }
    }

    fn rows(&self, shared: &Shared) -> usize {
        shared.snapshot().map_or(0, |s| s.steps.len())
    }

    /// Only the buttons that act now: resume while a handover is in
    /// progress or queued, abandon while one is in progress (never on a
    /// workspace where none ran), pause always.
    fn buttons(&self, shared: &Shared) -> Vec<(Command, &'static str)> {
        let paused = shared.snapshot().is_some_and(|s| s.paused.is_some());
        let in_progress = shared.snapshot().is_some_and(|s| s.state.in_progress());
        let resumes = shared
            .snapshot()
            .is_some_and(|s| in_progress || s.state.next_action().unpaused().is_resume());
        let mut buttons = Vec::new();
        if resumes {
            buttons.push((Command::Resume, " r Resume "));
        }
        if in_progress {
            buttons.push((Command::Abandon, " a Abandon "));
        }
        buttons.push((
            Command::TogglePause,
            if paused { " p Unpause " } else { " p Pause " },
        ));
        buttons
    }

    fn render(&self, frame: &mut Frame<'_>, area: Rect, shared: &Shared, selected: bool) {
        draw(frame, area, shared, self, selected);
    }

    /// The selected step: its name, then its error and output.
    fn copy_text(&self, shared: &Shared) -> Option<String> {
        let snap = shared.snapshot()?;
        let step = &snap.steps[self.focused_step(snap, true)?];
        let mut text = step.name.clone();
        for part in [&step.last_error, &step.output].into_iter().flatten() {
            text = format!("{text}\n{part}");
        }
        Some(text)
    }
}

impl RunTab {
    /// The step the panel details: the selected one when the tab is
    /// `selected`, else the first failed, interrupted or running one.
    fn focused_step(&self, snap: &RunSnapshot, selected: bool) -> Option<usize> {
        if selected {
            let at = self.step.row();
            return (at < snap.steps.len()).then_some(at);
        }
        problem_step(snap)
    }
}

/// The first step that failed, was interrupted or is running.
fn problem_step(snap: &RunSnapshot) -> Option<usize> {
    snap.steps.iter().position(|s| {
        matches!(
            s.state,
            StepState::Failed | StepState::Interrupted | StepState::Running
        )
    })
}

/// One line on the step that stopped the run and the key that goes on:
/// it comes first, so the shortest pane shows it (the whole story is in
/// the step's detail below the list).
fn headline(step: &StepView, shared: &Shared, width: usize) -> Option<Line<'static>> {
    let t = &shared.theme;
    let (what, style) = match step.state {
        StepState::Interrupted if step.needs_human => ("died mid-step: check, then R", t.warn),
        StepState::Interrupted => ("died mid-step: r resumes", t.warn),
        StepState::Failed => ("failed: R retries", t.error),
        _ => return None,
    };
    Some(Line::styled(fit(&format!("! {} {what}", step.name), width), style))
}

/// What happened to `step` and what a key does about it.
fn what_happened(step: &StepView, shared: &Shared) -> Vec<Line<'static>> {
    let t = &shared.theme;
    let mut lines = Vec::new();
    if step.state == StepState::Interrupted {
        let what = if step.needs_human {
            "its process died mid-step and it is not idempotent: check its effects, then R retries it"
        } else {
            "its process died mid-step: r resumes and runs it again"
        };
        lines.push(Line::styled(what, t.warn));
    }
    if let Some(e) = &step.last_error {
        lines.extend(each_line(&format!("error: {e}"), t.error));
    }
    lines
}

/// One line drawn per line of `text` (a step's output printed on several
/// lines is never joined into one).
fn each_line(text: &str, style: Style) -> impl Iterator<Item = Line<'static>> + '_ {
    text.lines().map(move |l| Line::styled(l.to_string(), style))
}

/// Draw the run panel of `tab` into `area` (`selected`: as the selected tab,
/// not the sidebar).
fn draw(frame: &mut Frame<'_>, area: Rect, shared: &Shared, tab: &RunTab, selected: bool) {
    let title = match shared.snapshot() {
        Some(s) if s.status == RunStatus::None => " Run ".to_string(),
        // The state first: a narrow sidebar cuts the id, never the state.
        Some(s) => fit(
            &format!(
                " Run · {} · {} ",
                s.state_word(),
                s.run_id
                    .as_deref()
                    .unwrap_or("a run agent-handover 0.5.x started (no id)"),
            ),
            usize::from(area.width.saturating_sub(2)),
        ),
        None => " Run ".to_string(),
    };
    let block = panel(title, shared);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let lines = match &shared.run {
        None => vec![Line::styled("loading…", shared.theme.muted)],
        Some(Err(e)) => e
            .lines()
            .map(|l| Line::styled(l.to_string(), shared.theme.error))
            .collect(),
        Some(Ok(snap)) => {
            let mut lines = body(snap, shared, tab, selected, inner.width);
            lines.extend(plan::lines(shared, usize::from(inner.width)));
            lines
        }
    };
    let text_area = Rect {
        height: inner.height.saturating_sub(1),
        ..inner
    };
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), text_area);
    let enabled = |c: Command| match c {
        Command::Resume => shared
            .snapshot()
            .is_some_and(|s| s.state.next_action().is_resume()),
        Command::Abandon => shared.snapshot().is_some_and(|s| s.state.in_progress()),
        _ => true,
    };
    let buttons = tab.buttons(shared);
    for (rect, (command, label)) in button_rects(area, &buttons).into_iter().zip(&buttons) {
        let style = if enabled(*command) {
            shared.theme.button
        } else {
            shared.theme.muted
        };
        frame.render_widget(Paragraph::new(Span::styled(*label, style)), rect);
    }
}

/// The panel's text for `snap`, `width` columns wide.
fn body(
    snap: &RunSnapshot,
    shared: &Shared,
    tab: &RunTab,
    selected: bool,
    width: u16,
) -> Vec<Line<'static>> {
    let t = &shared.theme;
    let mut lines = Vec::new();
    if snap.status == RunStatus::None {
        lines.push(Line::raw("No handover yet."));
        for hint in [
            "Set an agent up: agent-handover install claude (or codex, gemini, ...).",
            "At session end its hooks save a draft; the agent completes it and hands over with",
            "agent-handover run --note-file DRAFT.",
        ] {
            lines.push(Line::styled(hint, t.muted));
        }
        return lines;
    }
    let done = snap
        .steps
        .iter()
        .filter(|s| s.state == StepState::Done)
        .count();
    let started = snap
        .started_at
        .as_deref()
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
        .map(|d| format!("started {} ago", ago(shared, d.to_utc())))
        .unwrap_or_default();
    lines.push(Line::from(vec![
        Span::raw(format!("{done}/{} steps done", snap.steps.len())),
        Span::styled(format!("  {started}"), t.muted),
    ]));
    // Only while the handover is in progress: on an abandoned run no key
    // goes on from its interrupted step.
    let headline = problem_step(snap)
        .filter(|_| snap.state.in_progress())
        .and_then(|i| snap.steps.get(i))
        .and_then(|step| headline(step, shared, usize::from(width)));
    if let Some(a) = &snap.abandoned {
        let reason = a
            .reason
            .as_ref()
            .map(|r| format!(": {r}"))
            .unwrap_or_default();
        lines.push(Line::styled(
            format!("abandoned by {}{reason}", a.by),
            t.warn,
        ));
    }
    // A headline takes the blank line's place: the list stays whole.
    lines.push(headline.unwrap_or_default());
    let name_width = snap
        .steps
        .iter()
        .map(|s| s.name.len())
        .max()
        .unwrap_or(4)
        .min(usize::from(width) / 2);
    for (i, step) in snap.steps.iter().enumerate() {
        let (mark, style) = marker(step.state, shared);
        let mut text = format!(
            " {:w$}  {:<11}",
            fit(&step.name, name_width),
            step.state.as_str(),
            w = name_width
        );
        if step.attempts > 1 {
            text += &format!(" {}×", step.attempts);
        }
        if let Some(ms) = step.duration_ms {
            text += &format!(" {ms}ms");
        }
        let row_style = if selected && i == tab.step.row() {
            t.selected
        } else {
            Style::new()
        };
        lines.push(Line::from(vec![
            Span::styled(mark, style),
            Span::styled(text, row_style),
        ]));
    }
    let focused = tab.focused_step(snap, selected);
    if let Some(step) = focused.and_then(|i| snap.steps.get(i)) {
        lines.push(Line::raw(""));
        let mut about = vec![step.name.clone()];
        match &step.kind {
            Some(kind) if *kind != step.name => about.push(kind.clone()),
            None => about.push("0.5.x step".into()),
            _ => {}
        }
        if let Some(rule) = step.after_crash.filter(|r| *r != AfterCrash::Rerun) {
            about.push(rule.describe().into());
        }
        lines.push(Line::styled(about.join(" · "), t.accent));
        if let Some(owner) = step
            .owner
            .as_ref()
            .filter(|_| step.state == StepState::Running)
        {
            lines.push(Line::raw(format!(
                "running as pid {} on {}",
                owner.pid, owner.host
            )));
        }
        lines.extend(what_happened(step, shared));
        if let Some(o) = &step.output {
            let root = format!("{}/", shared.workspace.display());
            lines.extend(each_line(&o.replace(&root, ""), t.muted).collect::<Vec<_>>());
        }
    }
    if let Some(git_ref) = &snap.memory.on_ref {
        let others: Vec<&str> = snap
            .memory
            .workstreams
            .iter()
            .map(String::as_str)
            .filter(|w| Some(*w) != snap.memory.workstream.as_deref())
            .collect();
        let also = match others.as_slice() {
            [] => String::new(),
            some => format!(" · also: {}", some.join(", ")),
        };
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            format!(
                "memory on {git_ref} · workstream {}{also}",
                snap.memory.workstream.as_deref().unwrap_or("?")
            ),
            t.muted,
        ));
    }
    if let Some(pending) = snap.memory.pending_advice() {
        lines.push(Line::styled(pending, t.warn));
    }
    lines
}

/// A step state's mark and its style.
fn marker(state: StepState, shared: &Shared) -> (&'static str, Style) {
    let t = &shared.theme;
    match state {
        StepState::Done => ("✓", t.ok),
        StepState::Failed => ("✗", t.error),
        StepState::Interrupted => ("!", t.error),
        StepState::Running => ("▶", t.warn),
        StepState::Pending => ("·", t.muted),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::dialogs::confirm::Confirm;
    use crate::tui::fixtures::open;
    use crate::tui::fixtures::{self, code, key};
    use crossterm::event::KeyCode;
    use crate::tui::model::{Effect, Event};
    use crate::tui::tabs::inbox;

    #[test]
    fn retry_needs_a_failed_step_selected() {
        let mut app = fixtures::app((60, 20));
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::interrupted_run()))));
        assert_eq!(
            app.update(key('R')),
            vec![Effect::Act(Action::Retry("tests".into()))],
            "the cursor starts on the step that stopped the run"
        );
        app.update(key('k'));
        app.update(key('k'));
        assert!(app.update(key('R')).is_empty(), "step 0 is done");
    }

    /// Issue 44, item 4: a step's output printed on several lines is
    /// drawn on several lines, never joined ("running 90 parser teststest
    /// lexer … ok").
    #[test]
    fn a_steps_output_lines_are_not_joined() {
        let mut snap = fixtures::interrupted_run();
        for step in &mut snap.steps {
            if step.name == "tests" {
                step.output = Some("running 90 parser tests\ntest lexer ... ok\n".into());
            }
        }
        let mut app = fixtures::app((100, 30));
        app.update(Event::RunLoaded(Box::new(Ok(snap.restated()))));
        let screen = fixtures::draw(&app);
        assert!(!screen.contains("teststest"), "{screen}");
        let at = |text: &str| screen.lines().position(|l| l.contains(text));
        let (first, second) = (at("running 90 parser tests"), at("test lexer ... ok"));
        assert!(first.is_some() && second == first.map(|n| n + 1), "{screen}");
    }

    /// Issue 28, item 6: a 60×20 Run tab opens on the interrupted step and
    /// says first what happened and which key goes on; a new run starts
    /// again on its own problem step.
    #[test]
    fn a_short_pane_shows_the_interrupted_step_first() {
        let mut app = fixtures::app((60, 20));
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::interrupted_run()))));
        let screen = fixtures::draw(&app);
        let body: Vec<&str> = screen.lines().skip(3).collect();
        assert!(body[1].contains("! tests died mid-step: r resumes"), "{screen}");
        assert!(screen.contains("its process died mid-step: r resumes and runs it again"), "{screen}");
        assert!(screen.contains("error: exit status 1"), "{screen}");
        let run: &RunTab = fixtures::tab(&app);
        assert_eq!(run.step.row(), 2);
        app.update(key('g'));
        let mut next = fixtures::interrupted_run();
        next.run_id = Some("20261122-080000-aaaa".into());
        next.steps[2].state = StepState::Done;
        next.steps[3].state = StepState::Failed;
        app.update(Event::RunLoaded(Box::new(Ok(next.restated()))));
        let run: &RunTab = fixtures::tab(&app);
        assert_eq!(run.step.row(), 3, "a new run: on its failed step");
        assert!(fixtures::draw(&app).contains("! publish failed: R retries"));
        // A run that has not stopped yet starts on its first step, and the
        // cursor follows the step that stops it until the user moves it.
        let mut starting = fixtures::interrupted_run();
        starting.run_id = Some("20261123-080000-bbbb".into());
        for step in &mut starting.steps {
            step.state = StepState::Pending;
        }
        app.update(Event::RunLoaded(Box::new(Ok(starting.clone().restated()))));
        assert_eq!(fixtures::tab::<RunTab>(&app).step.row(), 0);
        starting.steps[0].state = StepState::Done;
        starting.steps[1].state = StepState::Interrupted;
        app.update(Event::RunLoaded(Box::new(Ok(starting.clone().restated()))));
        assert_eq!(fixtures::tab::<RunTab>(&app).step.row(), 1, "followed");
        app.update(key('j'));
        starting.steps[1].state = StepState::Done;
        starting.steps[2].state = StepState::Failed;
        app.update(Event::RunLoaded(Box::new(Ok(starting.restated()))));
        assert_eq!(fixtures::tab::<RunTab>(&app).step.row(), 2, "the user's choice kept");
    }

    /// An abandoned run's interrupted step gets no headline: no key goes on
    /// from it.
    #[test]
    fn an_abandoned_run_offers_no_resume_in_its_headline() {
        let mut app = fixtures::app((60, 20));
        let mut snap = fixtures::interrupted_run();
        snap.status = RunStatus::Abandoned;
        snap.abandoned = Some(agent_handover::engine::checkpoint::Abandonment {
            by: "human".into(),
            at: fixtures::now(),
            reason: None,
        });
        app.update(Event::RunLoaded(Box::new(Ok(snap.restated()))));
        let screen = fixtures::draw(&app);
        assert!(screen.contains("abandoned by human"), "{screen}");
        assert!(!screen.contains("! tests died mid-step"), "{screen}");
    }

    #[test]
    fn retrying_a_step_that_is_not_idempotent_asks_first() {
        let mut app = fixtures::app((160, 48));
        let mut snap = fixtures::interrupted_run();
        snap.steps[2].needs_human = true;
        app.update(Event::RunLoaded(Box::new(Ok(snap.restated()))));
        assert!(app.update(key('R')).is_empty(), "nothing runs yet");
        let retry = Action::Retry("tests".into());
        assert_eq!(open::<Confirm>(&app), Some(&Confirm::new(retry.clone())));
        assert!(app.update(code(KeyCode::Esc)).is_empty());
        assert!(app.modal.is_none());
        app.update(key('R'));
        assert!(app.update(code(KeyCode::Enter)).is_empty(), "Enter cancels");
        app.update(key('R'));
        assert_eq!(app.update(key('y')), vec![Effect::Act(retry)]);
    }

    #[test]
    fn the_selected_step_follows_its_name_when_the_plan_changes() {
        let mut app = fixtures::app((60, 20));
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::interrupted_run()))));
        let mut snap = fixtures::interrupted_run();
        let first = snap.steps.remove(0);
        snap.steps.push(first);
        app.update(Event::RunLoaded(Box::new(Ok(snap))));
        let run: &RunTab = fixtures::tab(&app);
        assert_eq!(run.step.row(), 1, "still on tests");
        assert_eq!(
            app.update(key('R')),
            vec![Effect::Act(Action::Retry("tests".into()))]
        );
    }

    #[test]
    fn in_the_wide_layout_retry_takes_the_first_problem_step() {
        let mut app = fixtures::app((160, 48));
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::interrupted_run()))));
        assert_eq!(app.selected, inbox::ID);
        let run: &RunTab = fixtures::tab(&app);
        let snap = app.shared.snapshot().unwrap();
        assert_eq!(run.focused_step(snap, app.selected == ID), Some(2));
        assert_eq!(
            app.update(key('R')),
            vec![Effect::Act(Action::Retry("tests".into()))]
        );
    }

    #[test]
    fn an_interrupted_step_shows_the_engines_answer_on_resuming_it() {
        let screen_with = |snap: RunSnapshot, step: usize| {
            let mut app = fixtures::app((100, 30));
            app.selected = ID;
            app.update(Event::RunLoaded(Box::new(Ok(snap))));
            app.update(key('g'));
            for _ in 0..step {
                app.update(key('j'));
            }
            fixtures::draw(&app)
        };
        // An interrupted git publish reconciles: resuming is safe.
        let mut snap = fixtures::interrupted_run();
        snap.steps[3].state = StepState::Interrupted;
        let screen = screen_with(snap.restated(), 3);
        assert!(
            screen.contains("publish · reconciled on resume")
                && screen.contains("r resumes and runs it again"),
            "{screen}"
        );
        assert!(!screen.contains("check its effects"), "{screen}");
        // A command that is not idempotent needs a human.
        let mut snap = fixtures::interrupted_run();
        snap.steps[2].after_crash = Some(AfterCrash::AskHuman);
        snap.steps[2].needs_human = true;
        let screen = screen_with(snap.restated(), 2);
        assert!(
            screen.contains("needs a human after a crash") && screen.contains("check its effects"),
            "{screen}"
        );
    }

    #[test]
    fn a_memory_on_its_ref_names_the_workstream_and_the_others() {
        let mut snap = fixtures::completed_run();
        snap.memory = agent_handover::read::MemoryPlace {
            dir: "/r/.git/agent-handover/memory".into(),
            on_ref: Some("refs/agent-handover/memory".into()),
            workstream: Some("feature/parser".into()),
            workstreams: vec!["docs".into(), "feature/parser".into()],
            push_pending: None,
            on_code_branch: false,
        };
        let mut app = fixtures::app((100, 30));
        app.selected = ID;
        app.update(Event::RunLoaded(Box::new(Ok(snap))));
        let screen = fixtures::draw(&app);
        assert!(
            screen.contains("memory on refs/agent-handover/memory · workstream feature/parser · also: docs"),
            "{screen}"
        );
        let mut app = fixtures::app((100, 30));
        app.selected = ID;
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::completed_run()))));
        assert!(!fixtures::draw(&app).contains("memory on"), "in the project: no line");
    }

    #[test]
    fn a_pending_push_is_said_in_the_run_panel_as_every_face_says_it() {
        let mut snap = fixtures::completed_run();
        snap.memory.push_pending = Some("main holds commits origin/main was not seen to receive (offline): push pending".into());
        let advice = snap.memory.pending_advice().unwrap();
        let mut app = fixtures::app((200, 30));
        app.selected = ID;
        app.update(Event::RunLoaded(Box::new(Ok(snap))));
        let screen = fixtures::draw(&app);
        assert!(screen.contains(&advice), "{screen}");
        assert!(advice.ends_with("(`agent-handover sync` sends it)"), "{advice}");
        let mut app = fixtures::app((200, 30));
        app.selected = ID;
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::completed_run()))));
        assert!(!fixtures::draw(&app).contains("push pending"), "nothing pending: no line");
    }

    #[test]
    fn unreadable_checkpoint_is_shown_not_crashed_on() {
        let mut app = fixtures::loaded((60, 20));
        app.selected = ID;
        app.update(Event::RunLoaded(Box::new(Err(
            ".agent-handover/checkpoint.json is unreadable: invalid JSON\n  fix: move it aside"
                .into(),
        ))));
        let screen = fixtures::draw(&app);
        assert!(
            screen.contains("CHECKPOINT UNREADABLE") && screen.contains("fix: move it aside"),
            "{screen}"
        );
    }
}
