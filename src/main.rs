//! The `agent-handover` binary: parse arguments, dispatch, exit.

mod cli;
mod tui;

fn main() -> std::process::ExitCode {
    let _ = color_eyre::install();
    cli::main()
}
