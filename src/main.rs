//! The `agent-handover` binary: parse arguments, dispatch, exit.

mod cli;
#[cfg(feature = "mcp")]
mod mcp;
#[cfg(feature = "dashboard")]
mod tui;

fn main() -> std::process::ExitCode {
    // Like any Unix tool, end quietly when the reader of our output goes away
    // (`agent-handover status | head -1`) instead of panicking on EPIPE.
    // SAFETY: first thing in main, before any thread exists.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    set_panic_hook();
    cli::main()
}

/// The binary's one panic hook. It gives the terminal back first if the
/// dashboard holds it (else the report would vanish with the alternate
/// screen), then reports with Rust's standard hook: plain text, never colour,
/// so NO_COLOR holds and agents reading stderr get no escape codes. A panic
/// on any thread ends the dashboard: it cannot go on drawing on a restored
/// terminal.
fn set_panic_hook() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        #[cfg(feature = "dashboard")]
        let dashboard_was_up = tui::restore_terminal();
        report(info);
        eprintln!(
            "note: this is a bug in agent-handover; `agent-handover check` tells whether a handover was interrupted (`resume` finishes it)"
        );
        #[cfg(feature = "dashboard")]
        if dashboard_was_up {
            std::process::exit(101);
        }
    }));
}
