//! The `agent-handover` binary: parse arguments, dispatch, exit.

mod cli;
#[cfg(feature = "dashboard")]
mod tui;

fn main() -> std::process::ExitCode {
    // Like any Unix tool, end quietly when the reader of our output goes away
    // (`agent-handover status | head -1`) instead of panicking on EPIPE.
    // SAFETY: first thing in main, before any thread exists.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let _ = color_eyre::install();
    cli::main()
}
