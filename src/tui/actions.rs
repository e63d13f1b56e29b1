//! The dashboard's actions, carried out exactly as the CLI does them (same
//! lock, same PAUSE rules), never on the UI thread. Those that may run a
//! handover or wait on its lock (resume, retry, abandon, pause, send) run
//! as the binary's own subcommand in a process of their own, in a session
//! of its own: the dashboard answers every key meanwhile, quits at once,
//! and closing its pane (SIGHUP to its process group) never interrupts
//! them. The rest (unpause, mark read, the jump to a pane) are quick and
//! run on a thread.

use std::ffi::OsString;
use std::io::{Read, Seek};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, PoisonError};

use agent_handover::Workspace;
use agent_handover::agent::hooks::session;
use agent_handover::domain::inbox::Inbox;
use agent_handover::engine::pause;

use super::model::{Action, Draft};

/// What an action says when it is over: what happened, or what went wrong.
pub type Outcome = Result<String, String>;

/// The detached actions still running: (process id, what it does, where).
static GOING: Mutex<Vec<(u32, String, PathBuf)>> = Mutex::new(Vec::new());

/// Start `action` on `ws`; `reply` is called with its outcome, on another
/// thread, when it is over.
pub fn start(ws: &Workspace, action: Action, reply: impl FnOnce(Outcome) + Send + 'static) {
    let label = action.label();
    let (verb, tail): (&[&str], Vec<OsString>) = match action {
        Action::Resume => (&["resume"], Vec::new()),
        Action::Retry(step) => (&["retry"], vec!["--".into(), step.into()]),
        Action::Abandon(reason) => (&["abandon"], reason_args(reason)),
        Action::Pause(reason) => (&["pause"], reason_args(reason)),
        Action::Send(draft) => (&["inbox", "send"], send_args(&draft)),
        Action::Unpause => return on_a_thread(ws, reply, unpause),
        Action::JumpToPane => return on_a_thread(ws, reply, jump_to_pane),
        Action::MarkRead { agent, id } => {
            return on_a_thread(ws, reply, move |ws| {
                Inbox::new(ws)
                    .mark_read(&agent, std::slice::from_ref(&id))
                    .map_err(|e| e.to_string())?;
                Ok(format!("marked read for {agent}"))
            });
        }
    };
    let mut command = match std::env::current_exe() {
        Ok(exe) => Command::new(exe),
        Err(e) => return reply(Err(format!("{label}: this program's path: {e}"))),
    };
    command.args(verb).args(workspace_args(ws)).args(tail);
    detach(command, &ws.root, label, reply);
}

/// The workspace's config and checkpoint, as the dashboard resolved them.
fn workspace_args(ws: &Workspace) -> Vec<OsString> {
    let mut args = Vec::new();
    if let Some(config) = &ws.config_path {
        args.extend(["--config".into(), config.clone().into_os_string()]);
    }
    args.extend([
        "--checkpoint".into(),
        ws.checkpoint.clone().into_os_string(),
    ]);
    args
}

fn reason_args(reason: Option<String>) -> Vec<OsString> {
    reason
        .map(|r| format!("--reason={r}").into())
        .into_iter()
        .collect()
}

/// `inbox send` with the draft's fields (trimmed, an empty subject left to
/// the body's first line, as the CLI does).
fn send_args(draft: &Draft) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![
        format!("--to={}", draft.to.trim()).into(),
        format!("--from={}", draft.from.trim()).into(),
        format!("--body={}", draft.body).into(),
    ];
    if !draft.subject.trim().is_empty() {
        args.push(format!("--subject={}", draft.subject.trim()).into());
    }
    if let Some(id) = &draft.reply_to {
        args.push(format!("--reply-to={id}").into());
    }
    args
}

/// Run `work` on a thread of its own; its outcome goes to `reply`.
fn on_a_thread(
    ws: &Workspace,
    reply: impl FnOnce(Outcome) + Send + 'static,
    work: impl FnOnce(&Workspace) -> Outcome + Send + 'static,
) {
    let ws = ws.clone();
    std::thread::spawn(move || reply(work(&ws)));
}

/// Start `command` in `dir` in a session of its own, its input empty and
/// its output kept in unlinked files (nothing is left behind, and it never
/// writes to a pipe that could close under it); a thread waits for it and
/// calls `reply` with what it said.
fn detach(
    mut command: Command,
    dir: &Path,
    label: String,
    reply: impl FnOnce(Outcome) + Send + 'static,
) {
    let started = (|| {
        let (out, err) = (tempfile::tempfile()?, tempfile::tempfile()?);
        command
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(err.try_clone()?);
        own_session(&mut command);
        Ok::<_, std::io::Error>((command.spawn()?, out, err))
    })();
    let (mut child, out, err) = match started {
        Ok(started) => started,
        Err(e) => return reply(Err(format!("{label}: could not start: {e}"))),
    };
    let pid = child.id();
    going().push((pid, label.clone(), dir.to_path_buf()));
    std::thread::spawn(move || {
        let status = child.wait();
        going().retain(|(p, ..)| *p != pid);
        let (out, err) = (read_back(out), read_back(err));
        reply(match status {
            Ok(s) if s.success() => Ok(said(&out).unwrap_or_else(|| format!("{label}: done"))),
            Ok(s) => Err(said(&err)
                .or_else(|| said(&out))
                .unwrap_or_else(|| format!("{label}: {s}"))),
            Err(e) => Err(format!("{label}: {e}")),
        });
    });
}

fn going() -> std::sync::MutexGuard<'static, Vec<(u32, String, PathBuf)>> {
    GOING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The actions this dashboard started that are still running, in words:
/// they go on after it quits.
pub fn going_on() -> Vec<String> {
    going()
        .iter()
        .map(|(pid, label, dir)| {
            format!(
                "{label} in {} goes on without the dashboard (process {pid}); `agent-handover status` there follows it",
                dir.display()
            )
        })
        .collect()
}

/// Its own session (and so its own process group, and no terminal): the
/// terminal's signals and the pane's closing never reach it.
fn own_session(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure makes one async-signal-safe syscall (setsid).
    unsafe {
        command.pre_exec(|| rustix::process::setsid().map(drop).map_err(Into::into));
    }
}

/// What a finished process wrote into `file` (at most 64 KiB).
fn read_back(mut file: std::fs::File) -> String {
    let mut bytes = Vec::new();
    let _ = file.rewind();
    let _ = file.take(64 * 1024).read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A command's words on one line (its `error: ` prefix dropped), if any.
fn said(text: &str) -> Option<String> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| l.strip_prefix("error: ").unwrap_or(l))
        .collect();
    (!lines.is_empty()).then(|| lines.join("; "))
}

fn unpause(ws: &Workspace) -> Outcome {
    pause::unpause(ws, false).map_err(|e| e.to_string())?;
    match pause::active_pause(&ws.pause_files()) {
        Some(still) => Err(format!(
            "still paused by {} (agent-handover unpause --global)",
            still.file.display()
        )),
        None => Ok("unpaused".into()),
    }
}

/// Make the tmux pane of the agent working in `ws` the current one: the
/// pane of the newest session whose start hook recorded `$TMUX_PANE`
/// (`tmux switch-client` when inside tmux, then `select-window` and
/// `select-pane`).
pub fn jump_to_pane(ws: &Workspace) -> Outcome {
    let Some(record) = session::newest(ws, |r| r.tmux_pane.is_some()) else {
        return Err(format!(
            "no tmux pane known for {}: an agent's session-start hook records $TMUX_PANE when it runs in tmux",
            ws.root.display()
        ));
    };
    let pane = record.tmux_pane.unwrap_or_default();
    let tmux = |verb: &str| {
        std::process::Command::new("tmux")
            .args([verb, "-t", &pane])
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("tmux: {e}"))
    };
    if std::env::var_os("TMUX").is_some() {
        // Another session's pane: move this client there first (best effort).
        let _ = tmux("switch-client");
    }
    for verb in ["select-window", "select-pane"] {
        let out = tmux(verb)?;
        if !out.status.success() {
            return Err(format!(
                "tmux {verb} -t {pane}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    Ok(format!("{}'s pane {pane} selected", record.agent))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// Issue 44, item 1: a detached action returns at once, runs in a
    /// session of its own (not the dashboard's process group, so the
    /// pane's signals never reach it), and its words come back when it is
    /// over; while it runs it is listed as going on.
    #[test]
    fn a_detached_action_returns_at_once_in_its_own_session_and_reports_its_words() {
        let dir = tempfile::tempdir().unwrap();
        let mut command = Command::new("sh");
        command.args([
            "-c",
            "sleep 0.5; cut -d' ' -f1,6 /proc/$$/stat; echo all done",
        ]);
        let (tx, rx) = std::sync::mpsc::channel();
        let started = Instant::now();
        detach(command, dir.path(), "testing".into(), move |o| {
            tx.send(o).unwrap()
        });
        assert!(
            started.elapsed() < Duration::from_millis(300),
            "returned at once"
        );
        let listed = going_on();
        assert!(
            listed
                .iter()
                .any(|l| l.starts_with("testing in ") && l.contains("goes on")),
            "{listed:?}"
        );
        let said = rx.recv_timeout(Duration::from_secs(10)).unwrap().unwrap();
        let (ids, words) = said.split_once("; ").unwrap();
        // A session leader's session id is its own pid; the dashboard's own
        // session id is not asked for, as inside a container it may read 0.
        let (pid, sid) = ids.split_once(' ').unwrap();
        assert_eq!(pid, sid, "its own session: {ids}");
        assert_eq!(words, "all done");
        assert!(!going_on().iter().any(|l| l.starts_with("testing in ")));
    }

    #[test]
    fn a_failed_action_says_its_error_without_the_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let mut command = Command::new("sh");
        command.args([
            "-c",
            "echo 'error: nothing to abandon' >&2; echo '  fix: run' >&2; exit 1",
        ]);
        let (tx, rx) = std::sync::mpsc::channel();
        detach(command, dir.path(), "abandoning".into(), move |o| {
            tx.send(o).unwrap()
        });
        let said = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!(said, Err("nothing to abandon; fix: run".into()));
    }
}
