//! The dashboard: supervise agents' handovers live from a tmux pane.
//!
//! From the bottom up (each module uses only those above it):
//!
//! * [`theme`]: colours, NO_COLOR; [`command`]: commands, tab ids and
//!   binding rows; [`model`]: the shared data, events, effects and actions;
//! * [`widgets`]: drawing helpers; [`tab`]: the [`tab::Tab`] trait;
//!   [`layout`]: named breakpoints and hit-testing;
//! * [`tabs`]: one module per tab (its state, keys, update and drawing)
//!   and the registry that lists them;
//! * [`keys`]: the one binding table (dispatch, footer, help);
//! * [`app`]: the state around the tabs and its pure update function;
//!   [`view`]: pure rendering of the frame around the tabs;
//! * [`runtime`]: the tokio event loop; [`load`], [`actions`] and [`watch`]
//!   are its I/O, all through the engine library (the actions that may
//!   run a handover through the binary's own subcommands, detached);
//! * [`fleet`]: several workspaces in one list (its own state, view and
//!   loop), each opened in the single-workspace dashboard above.

pub mod actions;
pub mod app;
pub mod command;
pub mod dialog;
pub mod dialogs;
#[cfg(test)]
pub mod fixtures;
pub mod fleet;
pub mod keys;
pub mod layout;
pub mod load;
pub mod model;
pub mod plan;
pub mod runtime;
pub mod tab;
pub mod tabs;
pub mod theme;
pub mod view;
pub mod watch;
pub mod widgets;

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

use agent_handover::Workspace;
use crossterm::cursor::Show;
use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::DefaultTerminal;
use ratatui::backend::CrosstermBackend;

use app::App;
use keys::KeyMap;
use theme::Theme;

/// Whether the dashboard holds the terminal (raw mode, alternate screen, mouse capture).
static TERMINAL_TAKEN: AtomicBool = AtomicBool::new(false);

/// Start the dashboard on `ws`; returns when the user quits.
///
/// Refuses politely when stdin or stdout is not a terminal. The terminal is
/// restored on quit and on a terminating signal; on panic the binary's panic
/// hook restores it with [`restore_terminal`].
pub fn run(ws: Workspace, opts: runtime::LoopOptions) -> Result<(), String> {
    need_a_terminal()?;
    let (w, h) = crossterm::terminal::size().map_err(|e| e.to_string())?;
    let mut app = new_app(&ws, (w, h));
    if let Some(label) = &opts.label {
        app.label = label.clone();
    }
    in_terminal(|mut terminal| async move {
        let input = runtime::Input::start();
        runtime::run(&mut terminal, ws, app, opts, &input)
            .await
            .map(drop)
    })
}

/// Start the fleet view on the workspaces of `source` (one row each, the
/// registry's followed while it runs); `enter` opens one as [`run`] does,
/// `esc` comes back. Returns when the user quits.
pub fn run_fleet(source: fleet::runtime::Source, opts: runtime::LoopOptions) -> Result<(), String> {
    need_a_terminal()?;
    let (w, h) = crossterm::terminal::size().map_err(|e| e.to_string())?;
    let (theme, _) = Theme::new(theme::no_color_requested(), &Default::default());
    let fleet = fleet::Fleet::new(source.dirs(), theme, (w, h), chrono::Utc::now());
    in_terminal(|mut terminal| async move {
        fleet::runtime::run(&mut terminal, fleet, source, opts).await
    })
}

fn need_a_terminal() -> Result<(), String> {
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return Err("the dashboard needs a terminal (run it in a terminal or tmux pane); for scripts use `agent-handover status --json`".into());
    }
    Ok(())
}

/// Take the terminal, run `body` on a single-threaded tokio runtime, give
/// the terminal back.
fn in_terminal<F, Fut>(body: F) -> Result<(), String>
where
    F: FnOnce(DefaultTerminal) -> Fut,
    Fut: std::future::Future<Output = std::io::Result<()>>,
{
    let result = take_terminal()
        .and_then(|terminal| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let result = runtime.block_on(body(terminal));
            // Quit now: a load under way is not waited for.
            runtime.shutdown_background();
            result
        })
        .map_err(|e| e.to_string());
    restore_terminal();
    for going in actions::going_on() {
        eprintln!("agent-handover: {going}");
    }
    result
}

/// The single-workspace dashboard's state for `ws` on a `size` screen: its
/// keys and colours from its config, their warnings in the status line.
pub fn new_app(ws: &Workspace, size: (u16, u16)) -> App {
    let overrides = ws
        .config
        .dashboard
        .keys
        .iter()
        .map(|(k, v)| (k.clone(), v.to_vec()))
        .collect();
    let (keys, mut warnings) = KeyMap::with_overrides(&overrides);
    let (theme, theme_warnings) =
        Theme::new(theme::no_color_requested(), &ws.config.dashboard.colors);
    warnings.extend(theme_warnings);
    warnings.extend(ws.warnings.iter().cloned());
    let home = std::env::var("HOME").unwrap_or_default();
    let label = ws.root.display().to_string();
    let label = match label.strip_prefix(&home) {
        Some(rest) if !home.is_empty() => format!("~{rest}"),
        _ => label,
    };
    let mut app = App::new(
        ws.root.clone(),
        label,
        keys,
        theme,
        size,
        chrono::Utc::now(),
    );
    if !warnings.is_empty() {
        app.say(warnings.join("; "), true);
    }
    app
}

/// Raw mode, the alternate screen and mouse capture, and a terminal drawing on stdout.
fn take_terminal() -> std::io::Result<DefaultTerminal> {
    retake_terminal()?;
    ratatui::Terminal::new(CrosstermBackend::new(std::io::stdout()))
}

/// Raw mode, the alternate screen and mouse capture (again, after
/// [`restore_terminal`] lent the terminal to an editor).
pub fn retake_terminal() -> std::io::Result<()> {
    TERMINAL_TAKEN.store(true, Ordering::SeqCst);
    enable_raw_mode()?;
    // Bracketed paste: pasted text arrives as one event, never as keys.
    execute!(
        std::io::stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste
    )
}

/// Give the terminal back if the dashboard holds it: raw mode off, mouse
/// capture off, the alternate screen left, the cursor shown. Returns whether
/// it held it. Safe from a panic hook, on any thread, and more than once.
pub fn restore_terminal() -> bool {
    if !TERMINAL_TAKEN.swap(false, Ordering::SeqCst) {
        return false;
    }
    let _ = disable_raw_mode();
    let _ = execute!(
        std::io::stdout(),
        DisableMouseCapture,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        Show
    );
    true
}
