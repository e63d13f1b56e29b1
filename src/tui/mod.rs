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
//!   are its I/O, all through the engine library.

pub mod actions;
pub mod app;
pub mod command;
#[cfg(test)]
pub mod fixtures;
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
use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
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
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return Err("the dashboard needs a terminal (run it in a terminal or tmux pane); for scripts use `agent-handover status --json`".into());
    }
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
    let (w, h) = crossterm::terminal::size().map_err(|e| e.to_string())?;
    let mut app = App::new(
        ws.root.clone(),
        label,
        keys,
        theme,
        (w, h),
        chrono::Utc::now(),
    );
    if !warnings.is_empty() {
        app.say(warnings.join("; "), true);
    }

    let result = take_terminal()
        .and_then(|mut terminal| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?
                .block_on(runtime::run(&mut terminal, ws, app, opts))
        })
        .map_err(|e| e.to_string());
    restore_terminal();
    result
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
    execute!(std::io::stdout(), EnterAlternateScreen, EnableMouseCapture)
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
        LeaveAlternateScreen,
        Show
    );
    true
}
