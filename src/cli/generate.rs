//! `completions` and `man`: shell completion scripts and man pages, generated
//! from the same clap definitions that parse the command line, so they never
//! drift from it.

use std::io::Write;
use std::path::{Path, PathBuf};

use agent_handover::base::fsx;
use agent_handover::{Error, Result};
use clap::{Args, CommandFactory};
use clap_complete::Shell;
use serde_json::json;

use super::Cli;
use super::exit;
use super::output::Output;

/// Where each shell reads a user's completions; `completions --help` shows it.
pub const COMPLETIONS_HELP: &str = "Print the completion script of a shell for agent-handover on stdout \
    (its commands and options).\n\n\
    Write it where the shell looks for it, then open a new shell:\n  \
    bash        ~/.local/share/bash-completion/completions/agent-handover\n  \
    zsh         ~/.zfunc/_agent-handover (and `fpath=(~/.zfunc $fpath)` before compinit in ~/.zshrc)\n  \
    fish        ~/.config/fish/completions/agent-handover.fish\n  \
    powershell  append it to $PROFILE\n  \
    elvish      append it to ~/.config/elvish/rc.elv\n\n\
    For example:\n  \
    agent-handover completions fish > ~/.config/fish/completions/agent-handover.fish";

/// What `man --help` shows.
pub const MAN_HELP: &str = "Print the man page of agent-handover (roff) on stdout, or with --dir write \
    one page per command (agent-handover.1, agent-handover-brief.1, ...).\n\n\
    Read it at once:  agent-handover man | man -l -\n\
    Install it:       agent-handover man --dir ~/.local/share/man/man1";

/// Arguments of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    shell: Shell,
}

/// Arguments of `man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write every command's page into DIR (created if missing) instead of printing the top one.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// The whole command tree, as parsed (with `help` as a subcommand when
/// `completing`; a man page documents `--help` instead).
fn command(completing: bool) -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(!completing);
    cmd.build();
    cmd
}

/// `completions SHELL`: print the shell's completion script.
pub fn completions(args: &CompletionsArgs, out: Output) -> Result<u8> {
    let mut cmd = command(true);
    let name = cmd.get_name().to_string();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, &name, &mut script);
    if args.shell == Shell::Bash {
        script = fix_bash_states(&String::from_utf8_lossy(&script), &name).into_bytes();
    }
    if out.json {
        let script = String::from_utf8_lossy(&script);
        out.emit(
            &json!({ "ok": true, "shell": args.shell.to_string(), "script": script }),
            || (),
        );
    } else {
        print_raw(&script)?;
    }
    Ok(exit::OK)
}

/// clap_complete (up to at least 4.6.11) spells the bash states of a hyphenated
/// program's subcommands two ways: `agent__handover__subcmd__brief` when it
/// walks the words typed, `agent__subcmd__handover__subcmd__brief` in the
/// arms that complete them, so nothing after a subcommand completed
/// (clap-rs/clap#6421). Spell the arms as the walk does; a clap_complete
/// with the fix leaves nothing here to replace.
fn fix_bash_states(script: &str, name: &str) -> String {
    let walked = format!("{}__subcmd__", name.replace('-', "__"));
    let armed = format!("{}__subcmd__", name.replace('-', "__subcmd__"));
    script.replace(&armed, &walked)
}

/// `man`: print the top command's page, or write every page into `--dir`.
pub fn man(args: &ManArgs, out: Output) -> Result<u8> {
    let cmd = command(false);
    let Some(dir) = &args.dir else {
        let page = render(&clap_mangen::Man::new(cmd))?;
        if out.json {
            out.emit(&json!({ "ok": true, "page": page }), || ());
        } else {
            print_raw(page.as_bytes())?;
        }
        return Ok(exit::OK);
    };
    fsx::create_dir_durable(dir)?;
    let mut written = Vec::new();
    write_pages(cmd, dir, &mut written)?;
    out.emit(&json!({ "ok": true, "written": written }), || {
        println!("{} man pages written to {}", written.len(), dir.display());
    });
    Ok(exit::OK)
}

/// The page of `cmd` and of each visible subcommand below it, written into `dir`.
fn write_pages(cmd: clap::Command, dir: &Path, written: &mut Vec<PathBuf>) -> Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub.clone(), dir, written)?;
    }
    let man = clap_mangen::Man::new(cmd);
    let path = dir.join(man.get_filename());
    fsx::write_atomic(&path, render(&man)?.as_bytes())?;
    written.push(path);
    Ok(())
}

/// One page's roff.
fn render(man: &clap_mangen::Man) -> Result<String> {
    let mut page = Vec::new();
    man.render(&mut page)
        .map_err(|e| Error::io("render", "man page", e))?;
    Ok(String::from_utf8_lossy(&page).into_owned())
}

/// `bytes` on stdout as they are.
fn print_raw(bytes: &[u8]) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .map_err(|e| Error::io("write", "stdout", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_arms_are_spelled_as_the_walk_spells_the_states() {
        let script = "cmd=\"agent__handover__subcmd__brief\"\n        agent__subcmd__handover__subcmd__brief)\n        agent__handover)";
        assert_eq!(
            fix_bash_states(script, "agent-handover"),
            "cmd=\"agent__handover__subcmd__brief\"\n        agent__handover__subcmd__brief)\n        agent__handover)"
        );
        // No hyphen in the name: nothing to respell.
        let plain = "cmd=\"ah__subcmd__brief\"\n        ah__subcmd__brief)";
        assert_eq!(fix_bash_states(plain, "ah"), plain);
    }

    #[test]
    fn every_visible_command_gets_a_man_page_and_help_none() {
        let dir = tempfile::tempdir().unwrap();
        let mut written = Vec::new();
        write_pages(command(false), dir.path(), &mut written).unwrap();
        let names: Vec<String> = written
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        let top = Cli::command();
        for sub in top.get_subcommands().filter(|s| !s.is_hide_set()) {
            let page = format!("agent-handover-{}.1", sub.get_name());
            assert!(names.contains(&page), "{page} missing: {names:?}");
        }
        assert!(names.contains(&"agent-handover.1".to_string()));
        assert!(!names.iter().any(|n| n.contains("-help")), "{names:?}");
    }
}
