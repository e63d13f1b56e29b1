//! The real dashboard, driven as a person would: tmux runs it, send-keys
//! types, capture-pane reads the screen. On a workspace with an interrupted
//! handover: resume it and see it complete; toggle PAUSE and see the file
//! appear and vanish; abandon with confirmation; see a run started from the
//! CLI appear live; shrink the pane to 60x20 and still work; panic and get
//! the terminal back; edit the handoff from the review view and see it
//! re-scored.
//!
//! Skipped (with a message) when tmux is not installed, unless
//! `AGENT_HANDOVER_REQUIRE_TMUX=1`.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{self, Project, config};

struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(p: &Project, size: (u16, u16)) -> Option<Tmux> {
        Tmux::start_with(p, size, "", "")
    }

    /// The pane runs `env HOME=.. TERM=.. <env> agent-handover dashboard <then>`
    /// in a shell (`then` may redirect and go on with more commands).
    fn start_with(p: &Project, size: (u16, u16), env: &str, then: &str) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            assert!(
                std::env::var("AGENT_HANDOVER_REQUIRE_TMUX").is_err(),
                "tmux is required but not installed"
            );
            eprintln!("SKIPPED: tmux is not installed");
            return None;
        }
        let socket = format!("ah-e2e-{}-{}", std::process::id(), fastrand::u32(..));
        let bin = assert_cmd::cargo::cargo_bin("agent-handover");
        let command = format!(
            "env HOME={} TERM=xterm-256color {env} {} dashboard {then}",
            p.path("home").display(),
            bin.display()
        );
        let ok = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", &size.0.to_string(), "-y", &size.1.to_string()])
            .args(["-c", p.dir.path().to_str().unwrap(), &command])
            .status()
            .unwrap()
            .success();
        assert!(ok, "tmux new-session failed");
        Some(Tmux { socket })
    }

    fn tmux(&self, args: &[&str]) -> String {
        let o = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "0"])
    }

    fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.tmux(&["send-keys", "-t", "0", k]);
        }
    }

    /// Wait until the screen satisfies `cond`; panics with the screen if it never does.
    fn wait_for(&self, what: &str, cond: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let screen = self.screen();
            if cond(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn session_alive(&self) -> bool {
        Command::new("tmux")
            .args(["-L", &self.socket, "has-session"])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .stderr(std::process::Stdio::null())
            .status();
    }
}

/// `inbox send` a message, which must succeed.
fn send(p: &Project, to: &str, from: &str, subject: &str, body: &str) {
    let o = p.run(&[
        "inbox",
        "send",
        "--to",
        to,
        "--from",
        from,
        "--subject",
        subject,
        "--body",
        body,
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
}

fn wait_until(what: &str, cond: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A project whose `gate` step fails until the file `open` exists.
fn gated_project() -> Project {
    let p = Project::new(&config(
        "[[command]]\nname = \"gate\"\nargv = [\"sh\", \"-c\", \"test -f open\"]\nidempotent = true\n",
    ));
    assert_eq!(
        p.handover("session one").status.code(),
        Some(1),
        "the gate fails first"
    );
    p
}

#[test]
fn resume_pause_and_abandon_from_the_dashboard() {
    let p = gated_project();
    let Some(t) = Tmux::start(&p, (100, 30)) else {
        return;
    };
    t.wait_for("the resume alert", |s| {
        s.contains("RESUME NEEDED") && s.contains("gate")
    });

    // Resume: fix the cause, press r, see it complete.
    std::fs::write(p.path("open"), "").unwrap();
    t.keys(&["r"]);
    t.wait_for("the run to complete", |s| {
        s.contains("completed") && !s.contains("RESUME NEEDED")
    });
    assert_eq!(p.check(), 2);

    // PAUSE on with one key, then why, and off.
    t.keys(&["p"]);
    wait_until("the PAUSE file at once", || {
        p.path(".agent-handover/PAUSE").exists()
    });
    t.wait_for("the reason dialog", |s| s.contains("Why? (optional)"));
    t.keys(&["-l", "lunch"]);
    t.keys(&["Enter"]);
    t.wait_for("the PAUSED badge", |s| s.contains("PAUSED: lunch"));
    assert!(
        std::fs::read_to_string(p.path(".agent-handover/PAUSE"))
            .unwrap()
            .starts_with("lunch\n")
    );
    t.keys(&["p"]);
    t.wait_for("the unpause confirmation", |s| s.contains("Unpause?"));
    assert!(p.path(".agent-handover/PAUSE").exists(), "asked first");
    t.keys(&["Escape"]);
    t.wait_for("the dialog to close", |s| !s.contains("Unpause?"));
    assert!(
        p.path(".agent-handover/PAUSE").exists(),
        "Esc keeps the brake"
    );
    t.keys(&["p"]);
    t.wait_for("the unpause confirmation", |s| s.contains("Unpause?"));
    t.keys(&["Enter"]);
    t.wait_for("the dialog to close", |s| !s.contains("Unpause?"));
    assert!(
        p.path(".agent-handover/PAUSE").exists(),
        "Enter keeps the brake: only y releases it"
    );
    t.keys(&["p"]);
    t.wait_for("the unpause confirmation", |s| s.contains("Unpause?"));
    t.keys(&["y"]);
    wait_until("the PAUSE file to go", || {
        !p.path(".agent-handover/PAUSE").exists()
    });
    t.wait_for("the badge to go", |s| !s.contains("PAUSED"));

    // A handover interrupted from outside shows up live.
    std::fs::remove_file(p.path("open")).unwrap();
    assert_eq!(p.handover("session two").status.code(), Some(1));
    t.wait_for("the new interruption", |s| s.contains("RESUME NEEDED"));

    // Abandon asks first; Esc keeps the run.
    t.keys(&["a"]);
    t.wait_for("the confirmation", |s| s.contains("Abandon the handover?"));
    t.keys(&["Escape"]);
    t.wait_for("the dialog to close", |s| {
        !s.contains("Abandon the handover?")
    });
    assert_eq!(p.check(), 1, "Esc must not abandon");
    t.keys(&["a"]);
    t.wait_for("the confirmation", |s| s.contains("Abandon the handover?"));
    t.keys(&["-l", "superseded"]);
    t.keys(&["Enter"]);
    t.wait_for("the last question", |s| s.contains("Press y to abandon"));
    assert_eq!(p.check(), 1, "Enter alone does not abandon");
    t.keys(&["y"]);
    wait_until("the abandonment", || p.check() == 0);
    t.wait_for("abandoned status", |s| s.contains("abandoned"));
    assert_eq!(p.checkpoint_json()["abandoned"]["reason"], "superseded");

    // q quits and the process ends.
    t.keys(&["q"]);
    wait_until("the dashboard to exit", || !t.session_alive());
}

#[test]
fn narrow_pane_collapses_panels_into_tabs() {
    let p = gated_project();
    let Some(t) = Tmux::start(&p, (60, 20)) else {
        return;
    };
    let screen = t.wait_for("the narrow layout", |s| {
        s.contains("1 Run") && s.contains("RESUME NEEDED")
    });
    assert!(screen.contains("5 Timeline"), "{screen}");
    t.keys(&["5"]);
    t.wait_for("the timeline tab", |s| s.contains("Timeline · 1 runs"));
    t.keys(&["?"]);
    t.wait_for("the help", |s| s.contains("other keys close"));
    t.keys(&["x"]);
    t.wait_for("help closed", |s| !s.contains("other keys close"));
    // Widen the pane: the run panel becomes a sidebar beside the timeline,
    // and the number keys keep their meaning (issue 14, seen 9).
    t.tmux(&["resize-window", "-t", "0", "-x", "120", "-y", "32"]);
    t.wait_for("the wide layout", |s| {
        s.contains("1 Run")
            && s.contains("2 Inbox")
            && s.contains("Run · failed")
            && s.contains("Timeline · 1 runs")
    });
    t.keys(&["3"]);
    t.wait_for("3 is State at every width", |s| s.contains("versions"));
    t.keys(&["q"]);
    wait_until("the dashboard to exit", || !t.session_alive());
}

/// A panic with the dashboard up (a debug-build failpoint after its first
/// frame) gives the terminal back (raw mode off, main screen, cursor shown,
/// mouse released) and reports it without colour under NO_COLOR.
#[test]
fn a_panic_restores_the_terminal_and_reports_in_plain_text() {
    let p = gated_project();
    let Some(t) = Tmux::start_with(
        &p,
        (100, 30),
        "NO_COLOR=1 AGENT_HANDOVER_FAILPOINT=panic:dashboard-drawn",
        "2>panic.txt; echo $? >code.txt; stty -a >stty.txt; echo >done.txt; exec sleep 600",
    ) else {
        return;
    };
    wait_until("the dashboard to end", || p.path("done.txt").exists());
    let read = |name: &str| std::fs::read_to_string(p.path(name)).unwrap();
    assert_eq!(read("code.txt").trim(), "101");
    let modes = || {
        t.tmux(&[
            "display-message",
            "-p",
            "-t",
            "0",
            "alternate #{alternate_on} cursor #{cursor_flag} mouse #{mouse_any_flag}",
        ])
    };
    wait_until("the main screen, the cursor and no mouse mode", || {
        modes().trim() == "alternate 0 cursor 1 mouse 0"
    });
    let stty = read("stty.txt");
    let flags: Vec<&str> = stty.split_whitespace().collect();
    assert!(
        flags.contains(&"icanon") && flags.contains(&"echo"),
        "still in raw mode: {stty}"
    );
    let report = read("panic.txt");
    assert!(
        report.contains("failpoint dashboard-drawn reached"),
        "{report}"
    );
    assert!(!report.contains('\x1b'), "escape codes in {report:?}");
}

#[test]
fn refuses_politely_without_a_terminal() {
    let p = Project::new(&config(""));
    let o = p.run(&["dashboard"]);
    assert_eq!(o.status.code(), Some(64));
    assert!(
        common::stderr(&o).contains("needs a terminal"),
        "{}",
        common::stderr(&o)
    );
}

/// Measured numbers appear in the Metrics tab, and a new session's numbers
/// appear live while the tab is open.
#[test]
fn metrics_tab_shows_the_numbers_live() {
    let p = Project::new(&config(
        "[[metric]]\nname = \"suite\"\nargv = [\"sh\", \"-c\", \"cat count\"]\n[[metric.value]]\nname = \"passed\"\npattern = '(\\d+) passed'\n",
    ));
    std::fs::write(p.path("count"), "30 passed\n").unwrap();
    assert!(p.handover("session one").status.success());
    let Some(t) = Tmux::start(&p, (60, 20)) else {
        return;
    };
    t.wait_for("the dashboard", |s| s.contains("Metrics"));
    t.keys(&["6"]);
    t.wait_for("the first session's number", |s| {
        s.contains("passed") && s.contains("30") && s.contains("1 session")
    });
    std::fs::write(p.path("count"), "42 passed\n").unwrap();
    assert!(p.handover("session two").status.success());
    let screen = t.wait_for("the second session, live", |s| {
        s.contains("42") && s.contains("+12")
    });
    assert!(screen.contains("2 sessions"), "{screen}");
}

#[test]
fn the_review_view_edits_the_handoff_and_re_scores_it() {
    let p = Project::new(&config(""));
    std::fs::write(p.path("thin.md"), "# notes\n## Next step\nTODO\n").unwrap();
    let o = p.handover_with_state_file("one", "thin.md");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The "editor" writes a good handoff over the file it is given, after
    // checking it was asked to open it at a line.
    std::fs::write(
        p.path("good.md"),
        "# Handoff 2026-11-20 — config parser\n## Goal\nParse nested tables in the config loader.\n## Status\n- 41/44 parser tests pass\n## Done (don't redo)\n- Tokenizer with error spans, tested with `cargo test lexer` (12/12)\n## Not working (and why)\n- Nested tables: `expected '=' at 3:7`, the lexer drops the dot\n## Failed approaches (DO NOT retry)\n- Regex-based lexer -> cannot express nested quotes\n## Key decisions (and why)\n- Hand-written lexer: better error positions\n## Next step\nHandle the dot in `lex_key` and rerun `cargo test parser`.\n## Waiting on\n- Nobody.\n## Can safely wait\n- Coloured errors.\n## Commands\n- `cargo test parser`\n",
    )
    .unwrap();
    let editor = p.path("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\ncase \"$1\" in +[0-9]*) ;; *) exit 3 ;; esac\ncp good.md \"$2\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    let env = format!("EDITOR={}", editor.display());
    let Some(t) = Tmux::start_with(&p, (100, 30), &env, "") else {
        return;
    };
    t.keys(&["4"]);
    let before = t.wait_for("the review view", |s| {
        s.contains("Review: the current state") && s.contains("/100")
    });
    let score = |screen: &str| -> Option<u32> {
        let at = screen.find("/100")?;
        let digits: String = screen[..at]
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        digits.parse().ok()
    };
    let low = score(&before).expect("a score");
    assert!(low < 50, "{before}");
    assert!(
        before.contains("TODO"),
        "the handoff's text is shown: {before}"
    );
    t.keys(&["n", "e"]);
    // The re-scored text and its score arrive together; wait for both.
    let after = t.wait_for("the new score", |s| {
        score(s).is_some_and(|v| v >= low + 30) && s.contains("lex_key")
    });
    assert!(
        after.contains("edited") || after.contains("Review"),
        "{after}"
    );
    assert!(
        after.contains("lex_key"),
        "the edited text is shown: {after}"
    );
    let written = std::fs::read_to_string(p.path("memory/layer2/current-state.md")).unwrap();
    assert!(written.contains("Regex-based lexer"));
    assert!(t.session_alive(), "still running after the editor");
}

/// A project whose `slow` step (a command that is not idempotent) runs for
/// a while, started in the background; returns the running `run` process
/// once its `slow` step is marked running.
fn slow_handover() -> (Project, std::process::Child) {
    let p = Project::new(&config(
        "[[command]]\nname = \"slow\"\nargv = [\"sh\", \"-c\", \"echo copied half the files; exec sleep 30\"]\nidempotent = false\n",
    ));
    let child = p
        .std_cmd()
        .args(["run", "--config", "handover.toml", "--note", "one"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_until("the slow step to run", || {
        std::fs::read_to_string(p.checkpoint_path())
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|cp| cp["step_records"]["slow"]["state"] == "running")
    });
    (p, child)
}

/// Issue 28, item 6: at 60×20 the Run tab of a handover killed mid-step
/// opens on the interrupted step: what happened and the key that goes on
/// come first, and the step's whole story (its output) is there.
#[test]
fn a_killed_step_is_explained_first_at_sixty_by_twenty() {
    let (p, mut child) = slow_handover();
    // Killed once it has printed: what it did is part of its story.
    let outputs = p.path(".agent-handover/output");
    wait_until("the slow step's output", || {
        std::fs::read_dir(&outputs)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".slow.stdout"))
            .any(|e| std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains("copied half")))
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let Some(t) = Tmux::start(&p, (60, 20)) else {
        return;
    };
    // The whole story on the screen (a capture may catch a frame half drawn)...
    let screen = t.wait_for("the interruption explained", |s| {
        s.contains("RESUME NEEDED")
            && s.contains("its effects, then R retries it")
            && s.contains("copied half the files")
    });
    // ...and what happened first, at the top of the panel.
    let body: Vec<&str> = screen.lines().skip(3).collect();
    assert!(
        body[..2]
            .iter()
            .any(|l| l.contains("! slow died mid-step: check, then R")),
        "not first:\n{screen}"
    );
}

/// Issue 14, seen 1: a handover killed with SIGKILL (and not yet reaped by
/// its parent, as a shell or a test harness leaves it) shows as interrupted
/// within 2 s, in a dashboard already open and in one just started, with
/// one wording everywhere (no "running" or "in progress" beside RESUME
/// NEEDED), and `R` agrees with `r` about the interrupted step.
#[test]
fn a_handover_killed_with_sigkill_shows_as_interrupted_within_two_seconds() {
    let (p, mut child) = slow_handover();
    let Some(t) = Tmux::start(&p, (100, 30)) else {
        let _ = child.kill();
        return;
    };
    t.wait_for("the running step", |s| {
        s.contains("running as pid") && s.contains("slow")
    });
    let killed = Instant::now();
    child.kill().unwrap(); // SIGKILL; the child stays unreaped (a zombie) until `wait`
    let screen = t.wait_for("the interruption", |s| {
        s.contains("slow") && s.contains("interrupted") && s.contains("RESUME NEEDED")
    });
    let open = killed.elapsed();
    for stale in ["running as pid", "in progress", "▶", "running ("] {
        assert!(
            !screen.contains(stale),
            "{stale:?} beside RESUME NEEDED:\n{screen}"
        );
    }
    assert!(
        screen.contains("Run · interrupted ·"),
        "the run panel's title says interrupted:\n{screen}"
    );

    // A dashboard started after the kill says the same at once.
    let started = Instant::now();
    let Some(t2) = Tmux::start(&p, (100, 30)) else {
        return;
    };
    let screen2 = t2.wait_for("the interruption in a new dashboard", |s| {
        s.contains("interrupted") && s.contains("RESUME NEEDED")
    });
    let fresh = started.elapsed();
    assert!(!screen2.contains("running as pid"), "{screen2}");
    eprintln!(
        "kill -9 -> \"interrupted\" on screen: open dashboard {open:?}, new dashboard {fresh:?}"
    );
    assert!(open < Duration::from_secs(2), "took {open:?}:\n{screen}");
    assert!(fresh < Duration::from_secs(2), "took {fresh:?}:\n{screen2}");

    // `R` and `r` agree: the interrupted step can be retried (after a
    // confirmation, since it is not idempotent).
    t.keys(&["R"]);
    let screen = t.wait_for("R to answer", |s| {
        s.contains("Retry slow?") || s.contains("select a failed")
    });
    assert!(screen.contains("Retry slow?"), "{screen}");
    // Issue 14, seen 2: what the killed step printed is there to check its
    // effects before running it again.
    assert!(screen.contains("copied half the files"), "{screen}");
    t.keys(&["Escape"]);
    child.wait().unwrap();
    assert_eq!(p.check(), 1, "Esc must not retry");
}

/// Issue 14, seen 7: at 60x20 a status message never pushes `q` and `?` out
/// of the footer and clears after a few seconds (it stays in the message
/// log, `L`); the help scrolls to its last key; a dialog keeps its
/// Enter/Esc line.
#[test]
fn the_footer_keeps_q_and_help_and_messages_clear_into_the_log() {
    let p = gated_project();
    let Some(t) = Tmux::start(&p, (60, 20)) else {
        return;
    };
    t.wait_for("the dashboard", |s| s.contains("RESUME NEEDED"));
    let footer = |s: &str| s.lines().last().unwrap_or("").to_string();
    // Issue 28, item 6: a message too long for the footer is shown whole
    // on the row above it, never cut.
    let whole = "select a failed or interrupted step to retry";
    let above = |s: &str| s.lines().rev().nth(1).unwrap_or("").to_string();
    // `p` while pausing is refused nowhere; `R` on a done step says why
    // (the Run tab opens on the failed step: `g` goes to the first).
    t.keys(&["g"]);
    t.keys(&["R"]);
    let screen = t.wait_for("the note", |s| above(s).contains("select a failed"));
    assert!(above(&screen).contains(whole), "cut: {screen}");
    let last = footer(&screen);
    assert!(
        last.contains("q quit") && last.contains("? help"),
        "q and ? pushed out: {last:?}"
    );
    let shown = Instant::now();
    t.wait_for("the note to clear", |s| !s.contains("select a failed"));
    let cleared = shown.elapsed();
    assert!(
        cleared >= Duration::from_secs(2) && cleared < Duration::from_secs(10),
        "cleared after {cleared:?}"
    );
    t.keys(&["L"]);
    t.wait_for("the message log", |s| {
        s.contains("Messages") && s.contains("select a failed")
    });
    t.keys(&["Escape"]);
    t.wait_for("the log to close", |s| !s.contains("Messages"));

    // The help scrolls to its last row (quit: q ctrl-c).
    t.keys(&["?"]);
    let help = t.wait_for("the help", |s| s.contains("Keys"));
    assert!(!help.contains("ctrl-c"), "fits at 60x20 already?\n{help}");
    t.keys(&["G"]);
    t.wait_for("the end of the help", |s| {
        s.contains("Keys") && s.contains("ctrl-c")
    });
    t.keys(&["Escape"]);
    t.wait_for("the help to close", |s| !s.contains("ctrl-c"));

    // A dialog keeps its Enter/Esc line.
    t.keys(&["a"]);
    t.wait_for("the abandon dialog with its choices", |s| {
        s.contains("Abandon the handover?") && s.contains("Enter") && s.contains("Esc")
    });
    t.keys(&["Escape"]);
    assert_eq!(p.check(), 1);
}

/// Issue 14, seen 3: the inbox selection follows the message, not its row:
/// a message arriving above the selected one does not move the highlight,
/// and `m` marks the message that was selected.
#[test]
fn the_inbox_selection_follows_the_message_when_a_new_one_arrives() {
    let p = Project::new(&config(""));
    let send = |subject: &str| {
        let o = p.run(&[
            "inbox",
            "send",
            "--to",
            "claude",
            "--from",
            "lead",
            "--subject",
            subject,
            "--body",
            "text",
        ]);
        assert!(o.status.success(), "{}", common::stderr(&o));
    };
    send("alpha message");
    send("bravo message");
    let Some(t) = Tmux::start(&p, (160, 48)) else {
        return;
    };
    t.wait_for("both messages", |s| {
        s.contains("alpha message") && s.contains("bravo message")
    });
    // Newest first: bravo, alpha. Select alpha.
    t.keys(&["j"]);
    t.wait_for("alpha in the preview", |s| {
        s.contains("from lead to claude") && {
            let preview = s.split("from lead to claude").nth(1).unwrap_or("");
            preview.contains("alpha message")
        }
    });
    send("charlie message");
    t.wait_for("the new message", |s| s.contains("charlie message"));
    let screen = t.screen();
    let preview = screen.split("from lead to claude").nth(1).unwrap_or("");
    assert!(
        preview.contains("alpha message"),
        "the preview moved off alpha:\n{screen}"
    );
    t.keys(&["m"]);
    let read = || -> Vec<String> {
        let o = p.run(&["--json", "inbox", "list", "--agent", "claude"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["read"] == true)
            .map(|m| m["subject"].as_str().unwrap().to_string())
            .collect()
    };
    wait_until("a message marked read", || !read().is_empty());
    assert_eq!(read(), vec!["alpha message".to_string()]);
}

/// Issue 14, seen 8: a secret let through (`--allow-secret`) is shown
/// redacted in every view, as `lint` shows it: the State diff, the Inbox
/// (list and preview) and the Quality tab's text.
#[test]
fn secrets_are_redacted_in_the_state_diff_the_inbox_and_the_review() {
    let token = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5";
    let p = Project::new(&config(""));
    std::fs::write(p.path("s1.md"), "# State\n## Next step\nRun tests.\n").unwrap();
    std::fs::write(
        p.path("s2.md"),
        format!(
            "# State\n## Next step\nRun tests with {token} now.\npassword = \"hunter2hunter2\"\n"
        ),
    )
    .unwrap();
    for (note, file, allow) in [("one", "s1.md", false), ("two", "s2.md", true)] {
        let mut args = vec![
            "run",
            "--config",
            "handover.toml",
            "--note",
            note,
            "--current-state-file",
            file,
        ];
        if allow {
            args.push("--allow-secret");
        }
        let o = p.run(&args);
        assert!(o.status.success(), "{}", common::stderr(&o));
    }
    let subject = format!("creds {token}");
    let o = p.run(&[
        "inbox",
        "send",
        "--to",
        "claude",
        "--from",
        "lead",
        "--subject",
        &subject,
        "--body",
        "use password = \"hunter2hunter2\" please",
        "--allow-secret",
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let Some(t) = Tmux::start(&p, (160, 48)) else {
        return;
    };
    let clear = |s: &str| s.contains("ghp_") || s.contains("hunter2");
    let inbox = t.wait_for("the inbox", |s| s.contains("creds") && s.contains("please"));
    assert!(!clear(&inbox), "{inbox}");
    t.keys(&["3"]);
    let state = t.wait_for("the state diff", |s| s.contains("Run tests with"));
    assert!(!clear(&state), "{state}");
    assert!(state.contains("[REDACTED]"), "{state}");
    t.keys(&["4"]);
    let review = t.wait_for("the review", |s| {
        s.contains("Review: the current state") && s.contains("Run tests with")
    });
    assert!(!clear(&review), "{review}");
    assert!(review.contains("[REDACTED]"), "{review}");
}

/// Issue 14, seen 5: a long message can be read whole: `enter` opens it
/// with its id and header, and it scrolls to its last line.
#[test]
fn a_long_inbox_message_opens_whole_with_its_id_and_scrolls() {
    let p = Project::new(&config(""));
    let body: String = (1..=60)
        .map(|i| format!("body line {i:02}\n"))
        .collect::<String>()
        + "THE END\n";
    let o = p.run(&[
        "--json",
        "inbox",
        "send",
        "--to",
        "claude",
        "--from",
        "lead",
        "--subject",
        "long report",
        "--body",
        &body,
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let sent: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let id = sent["id"].as_str().unwrap().to_string();
    let Some(t) = Tmux::start(&p, (100, 30)) else {
        return;
    };
    t.wait_for("the message", |s| s.contains("long report"));
    t.keys(&["Enter"]);
    let screen = t.wait_for("the reader", |s| {
        s.contains("body line 01") && s.contains("from:")
    });
    assert!(
        screen.contains(&id),
        "the id for `inbox read` is shown:\n{screen}"
    );
    assert!(!screen.contains("THE END"), "{screen}");
    t.keys(&["G"]);
    t.wait_for("the end of the message", |s| s.contains("THE END"));
    t.keys(&["Escape"]);
    t.wait_for("the reader to close", |s| !s.contains("THE END"));
}

/// Issue 14, seen 6: relative times tick every second (they lagged up to 30 s).
#[test]
fn relative_times_tick_every_second() {
    let p = Project::new(&config(""));
    send(&p, "claude", "lead", "tick", "x");
    let Some(t) = Tmux::start(&p, (100, 30)) else {
        return;
    };
    let age = |s: &str| -> Option<String> {
        let line = s
            .lines()
            .find(|l| l.contains("lead") && l.contains("tick"))?;
        line.split_whitespace()
            .find(|w| w.ends_with('s') && w[..w.len() - 1].chars().all(|c| c.is_ascii_digit()))
            .map(str::to_string)
    };
    let first = t.wait_for("the message's age", |s| age(s).is_some());
    let first = age(&first).unwrap();
    let seen = Instant::now();
    t.wait_for("the age to change", |s| age(s).is_some_and(|a| a != first));
    let took = seen.elapsed();
    assert!(
        took < Duration::from_millis(2500),
        "the age changed after {took:?}"
    );
}

/// Issue 14, seen 4 and build 3: on a narrow pane the version list is
/// reachable (`v`), and any two versions are compared (`space` marks one,
/// `enter` compares it with the selected one).
#[test]
fn any_two_versions_are_compared_at_sixty_columns() {
    let p = Project::new(&config(""));
    for (n, line) in ["alpha one", "beta two", "gamma three"].iter().enumerate() {
        let file = format!("s{n}.md");
        std::fs::write(p.path(&file), format!("# State\n## Status\n{line}\n")).unwrap();
        let note = format!("session {n}");
        let o = p.handover_with_state_file(&note, &file);
        assert!(o.status.success(), "{}", common::stderr(&o));
    }
    let Some(t) = Tmux::start(&p, (60, 20)) else {
        return;
    };
    t.wait_for("the dashboard", |s| s.contains("State"));
    t.keys(&["3"]);
    // The newest change first: beta -> gamma.
    t.wait_for("the latest diff", |s| {
        s.contains("+ gamma three") && s.contains("- beta two")
    });
    t.keys(&["v"]);
    t.wait_for("the version list", |s| s.contains("versions"));
    // Mark the newest, select the oldest, compare.
    t.keys(&["Space", "j", "j", "Enter"]);
    let screen = t.wait_for("the oldest against the newest", |s| {
        s.contains("- alpha one") && s.contains("+ gamma three")
    });
    assert!(screen.contains("#2") && screen.contains("#0"), "{screen}");
    assert!(!screen.contains("beta two"), "{screen}");
}

/// Issue 14, build 4: a message written in the dashboard (`c`, Tab to the
/// body, ctrl-s) arrives in the agent's queue, as `inbox send` would put it.
#[test]
fn a_message_composed_in_the_dashboard_arrives_in_the_queue() {
    let p = Project::new(&config(""));
    send(&p, "claude", "lead", "hello", "hi");
    let Some(t) = Tmux::start(&p, (100, 30)) else {
        return;
    };
    t.wait_for("the inbox", |s| s.contains("hello"));
    t.keys(&["c"]);
    t.wait_for("the new message", |s| s.contains("New message"));
    t.tmux(&["send-keys", "-t", "0", "-l", "Stop the deploy"]);
    t.keys(&["Tab"]);
    t.tmux(&["send-keys", "-t", "0", "-l", "The release is frozen."]);
    t.keys(&["Enter"]);
    t.tmux(&["send-keys", "-t", "0", "-l", "Wait for my word."]);
    t.keys(&["C-s"]);
    t.wait_for("the message sent", |s| {
        !s.contains("New message") && s.contains("Stop the deploy")
    });
    // The send runs in a process of its own: the message lands soon after.
    wait_until("the message in the queue", || {
        std::fs::read_dir(p.path("messages/for_claude")).is_ok_and(|d| d.count() >= 2)
    });
    let o = p.run(&["inbox", "list", "--agent", "claude", "--json"]);
    let listed = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(listed.contains("Stop the deploy"), "{listed}");
    let queue = std::fs::read_dir(p.path("messages/for_claude")).unwrap();
    let texts: Vec<String> = queue
        .filter_map(|e| std::fs::read_to_string(e.unwrap().path()).ok())
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t.contains("The release is frozen.\nWait for my word.")),
        "{texts:?}"
    );
    assert!(listed.contains("\"from\": \"human\""), "{listed}");
}

/// Issue 14, build 6: `y` copies the selected item through OSC 52; tmux
/// (with `set-clipboard on`) takes it into its paste buffer.
#[test]
fn y_copies_the_selected_run_id_to_the_clipboard() {
    let p = Project::new(&config(""));
    let o = p.handover("one");
    assert!(o.status.success(), "{}", common::stderr(&o));
    let checkpoint: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(p.path(".agent-handover/checkpoint.json")).unwrap(),
    )
    .unwrap();
    let run_id = checkpoint["run_id"].as_str().unwrap().to_string();
    let Some(t) = Tmux::start(&p, (100, 30)) else {
        return;
    };
    t.tmux(&["set-option", "-g", "set-clipboard", "on"]);
    t.wait_for("the dashboard", |s| s.contains("Timeline"));
    t.keys(&["5"]);
    t.wait_for("the timeline", |s| s.contains(&run_id));
    t.keys(&["y"]);
    t.wait_for("the copy said", |s| s.contains("copied:"));
    wait_until("tmux's buffer to hold the run id", || {
        t.tmux(&["show-buffer"]).trim() == run_id
    });
}

/// Issue 14, item 5: the fleet view over two workspaces. A handover killed
/// with SIGKILL in one shows as interrupted in its row within 2 s, the bell
/// rings (tmux's `window_bell_flag`, set for a session nobody is attached
/// to), the pane's title says why and `[dashboard] notify` runs with the
/// event; `enter` opens the workspace in the single-workspace dashboard and
/// `esc` comes back to the fleet.
#[test]
fn the_fleet_rings_when_a_workspace_is_interrupted_and_drills_in_and_out() {
    let (p, mut child) = slow_handover();
    let mut toml = std::fs::read_to_string(p.path("handover.toml")).unwrap();
    toml.push_str("\n[dashboard]\nnotify = \"echo $AGENT_HANDOVER_EVENT: $AGENT_HANDOVER_DETAIL > notified\"\n");
    std::fs::write(p.path("handover.toml"), toml).unwrap();
    let other = Project::new(&config(""));
    assert!(other.handover("all quiet").status.success());
    let dirs = format!("{} {}", p.dir.path().display(), other.dir.path().display());
    let Some(t) = Tmux::start_with(&p, (100, 30), "", &dirs) else {
        let _ = child.kill();
        return;
    };
    let bell = || t.tmux(&["display-message", "-p", "-t", "0", "#{window_bell_flag}"]);
    t.wait_for("both rows", |s| {
        s.contains("fleet · 2 workspaces") && s.contains("running") && s.contains("completed")
    });
    assert_eq!(bell().trim(), "0", "no bell before anything happened");
    let killed = Instant::now();
    child.kill().unwrap();
    // The row itself (the detail pane under it may say so first).
    let screen = t.wait_for("the interrupted row", |s| {
        s.lines()
            .any(|l| l.starts_with('▸') && l.contains("interrupted"))
    });
    let took = killed.elapsed();
    eprintln!("kill -9 -> \"interrupted\" in the fleet: {took:?}");
    assert!(took < Duration::from_secs(2), "took {took:?}:\n{screen}");
    assert!(screen.contains("1 NEED YOU"), "{screen}");
    wait_until("the bell", || bell().trim() == "1");
    let title = t.tmux(&["display-message", "-p", "-t", "0", "#{pane_title}"]);
    assert!(title.contains("interrupted"), "pane title: {title}");
    wait_until("[dashboard].notify to run", || {
        std::fs::read_to_string(p.path("notified"))
            .is_ok_and(|n| n.starts_with("interrupted: ") && n.contains("handover interrupted"))
    });

    // enter opens the selected (first) workspace; esc comes back.
    t.keys(&["Enter"]);
    t.wait_for("the single-workspace view", |s| s.contains("RESUME NEEDED"));
    t.keys(&["Escape"]);
    let screen = t.wait_for("the fleet again", |s| s.contains("fleet · 2 workspaces"));
    assert!(
        screen.contains("interrupted") && screen.contains("completed"),
        "{screen}"
    );
    t.keys(&["q"]);
    wait_until("the dashboard to quit", || !t.session_alive());
    child.wait().unwrap();
}

/// Issue 14, item 5: `t` jumps to the agent's tmux pane, which its
/// session-start hook recorded from `$TMUX_PANE`; before any is known it
/// says so.
#[test]
fn t_jumps_to_the_agents_tmux_pane_recorded_at_session_start() {
    let p = Project::new(&config(""));
    assert!(p.handover("one").status.success());
    let Some(t) = Tmux::start(&p, (100, 30)) else {
        return;
    };
    t.wait_for("the dashboard", |s| s.contains("q quit"));
    t.keys(&["t"]);
    t.wait_for("no pane known", |s| s.contains("no tmux pane known"));

    let pane = t
        .tmux(&["new-window", "-d", "-P", "-F", "#{pane_id}", "sleep 60"])
        .trim()
        .to_string();
    let o = p
        .cmd()
        .env("TMUX_PANE", &pane)
        .args(["hook", "session-start", "--agent", "claude"])
        .write_stdin(r#"{"session_id": "s1", "source": "startup"}"#)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert_ne!(
        t.tmux(&["display-message", "-p", "#{pane_id}"]).trim(),
        pane
    );
    t.keys(&["t"]);
    wait_until("the agent's pane to be selected", || {
        t.tmux(&["display-message", "-p", "#{pane_id}"]).trim() == pane
    });
}

/// Issue 14, seen 9: one wording for the pause key (the footer said "p pause"
/// beside the button "p Unpause"), and at 40×12 every tab stays on the bar
/// and the header keeps PAUSED and RESUME NEEDED.
#[test]
fn the_pause_key_reads_unpause_while_paused_and_40_by_12_keeps_the_essentials() {
    let p = gated_project();
    let Some(t) = Tmux::start(&p, (100, 30)) else {
        return;
    };
    t.wait_for("the dashboard", |s| s.contains("RESUME NEEDED"));
    t.keys(&["p"]);
    t.wait_for("the pause reason", |s| s.contains("Why? (optional)"));
    t.keys(&["Enter"]);
    // Once the status message clears (4 s), the footer has room for `p`.
    let footer = |s: &str| s.lines().last().unwrap_or_default().to_string();
    let screen = t.wait_for("paused, the footer's p", |s| {
        s.contains("PAUSED") && footer(s).contains(" p ")
    });
    assert!(footer(&screen).contains("p unpause"), "{screen}");
    assert!(!footer(&screen).contains("p pause "), "{screen}");
    t.tmux(&["resize-window", "-t", "0", "-x", "40", "-y", "12"]);
    let small = t.wait_for("the 40x12 layout", |s| {
        s.lines().count() <= 12 && s.lines().nth(1).is_some_and(|bar| bar.contains(" 6"))
    });
    let header = small.lines().next().unwrap_or_default();
    assert!(header.contains("PAUSED"), "{small}");
    t.keys(&["1"]);
    t.wait_for("the run panel with its pending steps", |s| {
        s.contains("gate") && s.contains("Run")
    });
}

/// Issue 14, build 6 (no temp paths): the demo's header names the demo,
/// not the temporary directory it lives in; `q` ends it.
#[test]
fn the_demo_names_itself_not_its_temp_directory() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIPPED: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let socket = format!("ah-e2e-demo-{}-{}", std::process::id(), fastrand::u32(..));
    let bin = assert_cmd::cargo::cargo_bin("agent-handover");
    let command = format!(
        "env HOME={} TERM=xterm-256color {} demo --dir {}",
        dir.path().display(),
        bin.display(),
        dir.path().join("demo").display()
    );
    let ok = Command::new("tmux")
        .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d"])
        .args(["-x", "100", "-y", "30", &command])
        .status()
        .unwrap()
        .success();
    assert!(ok, "tmux new-session failed");
    let t = Tmux { socket };
    let screen = t.wait_for("the demo", |s| s.contains("1 Run"));
    let header = screen.lines().next().unwrap_or_default();
    assert!(header.contains("demo (a throwaway workspace)"), "{screen}");
    assert!(
        !header.contains("/tmp") && !header.contains(".tmp"),
        "{screen}"
    );
    t.keys(&["q"]);
    wait_until("the demo to end", || !t.session_alive());
}

/// Issue 24: the fleet's rows say the run state every other face says
/// (`status --json`, which `tests/it/run_state.rs` holds every face to), over
/// the combinations of checkpoint state, run lock, queue and PAUSE; and a
/// run agent-handover 0.5.1 left with every step done is completed in the
/// dashboard too (title, header, `r`), as `check` (exit 2) says.
#[test]
fn the_fleet_and_the_dashboard_say_the_state_every_face_says() {
    use crate::common::run_states::{Base, Case, Owner, build};
    let cases: Vec<Case> = Case::all()
        .into_iter()
        .filter(|c| c.owner == Owner::Dead && !(c.queued && c.paused))
        .collect();
    let built: Vec<_> = cases.iter().map(build).collect();
    let expected: Vec<(String, &str)> = cases
        .iter()
        .zip(&built)
        .map(|(case, b)| {
            let o = b.project.run(&["status", "--json"]);
            let word = common::json(&o)["state"]["word"]
                .as_str()
                .unwrap()
                .to_string();
            assert_eq!(word, case.expected_word(), "{case:?}");
            let name = b.project.dir.path().file_name().unwrap();
            let fleet_word = match case.expected_word() {
                "none" => "never",
                w => w,
            };
            (name.to_string_lossy().into_owned(), fleet_word)
        })
        .collect();
    let dirs: Vec<String> = built
        .iter()
        .map(|b| b.project.dir.path().display().to_string())
        .collect();
    // The list gets half the screen (the detail pane the rest): every
    // row fits.
    let Some(t) = Tmux::start_with(
        &built[0].project,
        (160, 2 * cases.len() as u16 + 12),
        "",
        &dirs.join(" "),
    ) else {
        return;
    };
    let screen = t.wait_for("every row read", |s| {
        expected.iter().all(|(name, _)| {
            s.lines()
                .any(|l| l.contains(name.as_str()) && !l.contains('…'))
        })
    });
    for ((name, word), case) in expected.iter().zip(&cases) {
        let row = screen.lines().find(|l| l.contains(name.as_str())).unwrap();
        let words: Vec<&str> = row.split_whitespace().collect();
        assert!(
            words.contains(word),
            "{case:?}: the fleet says {row:?}, not {word}"
        );
    }
    drop(t);

    let legacy = cases
        .iter()
        .position(|c| c.base == Base::LegacyAllDone && !c.lock_held && !c.queued && !c.paused)
        .unwrap();
    let Some(t) = Tmux::start(&built[legacy].project, (100, 30)) else {
        return;
    };
    let screen = t.wait_for("the run panel", |s| s.contains("Run · "));
    assert!(screen.contains("Run · completed"), "{screen}");
    assert!(!screen.contains("RESUME NEEDED"), "{screen}");
    assert!(!screen.contains("interrupted"), "{screen}");
    t.keys(&["r"]);
    t.wait_for("r's answer", |s| s.contains("nothing to resume"));
}

/// Issue 28, item 1: `dashboard beta` (a relative path) opened an empty
/// workspace titled `/beta` while beta had a handover waiting; a path that
/// is no directory opened without an error. Each DIR is taken from the
/// working directory, and one that is not a directory is exit 64.
#[test]
fn a_relative_dir_opens_that_workspace_and_a_missing_one_is_an_error() {
    let p = Project::new(&config(""));
    let beta = p.path("beta");
    std::fs::create_dir_all(&beta).unwrap();
    std::fs::write(
        beta.join("handover.toml"),
        config("[[command]]\nname = \"gate\"\nargv = [\"sh\", \"-c\", \"test -f open\"]\nidempotent = true\n"),
    )
    .unwrap();
    let o = p
        .cmd()
        .current_dir(&beta)
        .args(["run", "--note", "session one"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "the gate fails: interrupted");
    for missing in ["nope", "/nonexistent/xyz"] {
        let o = p.run(&["dashboard", missing]);
        assert_eq!(o.status.code(), Some(64), "{missing}");
        assert!(
            common::stderr(&o).contains("is not a directory"),
            "{}",
            common::stderr(&o)
        );
    }
    let Some(t) = Tmux::start_with(&p, (100, 30), "", "beta") else {
        return;
    };
    let screen = t.wait_for("beta's interrupted handover", |s| {
        s.contains("RESUME NEEDED")
    });
    assert!(screen.contains("beta"), "{screen}");
    assert!(!screen.contains("No handover yet"), "{screen}");
}

/// Issue 28, item 2: pasting `see tests/api.rs and abandon⏎the old
/// approach` into the dashboard ran it as keys: `t` jumped panes, `/`
/// filtered, `a` opened the abandon dialog and the rest became its reason.
/// With bracketed paste (tmux `paste-buffer -p`), a paste with no text
/// field open is ignored, and one into the abandon reason never confirms.
#[test]
fn pasted_text_never_runs_as_keys() {
    let p = gated_project();
    let Some(t) = Tmux::start(&p, (100, 30)) else {
        return;
    };
    t.wait_for("the dashboard", |s| s.contains("RESUME NEEDED"));
    let paste = |text: &str| {
        t.tmux(&["set-buffer", "--", text]);
        t.tmux(&["paste-buffer", "-p", "-t", "0"]);
    };
    paste("see tests/api.rs and abandon\nthe old approach\ny\n");
    t.wait_for("the paste to be ignored", |s| {
        s.contains("pasted text ignored")
    });
    let screen = t.screen();
    assert!(!screen.contains("Abandon the handover?"), "{screen}");
    assert_eq!(p.check(), 1, "nothing abandoned");
    t.keys(&["a"]);
    t.wait_for("the abandon dialog", |s| {
        s.contains("Abandon the handover?")
    });
    paste("superseded\ny\n");
    t.wait_for("the pasted reason", |s| s.contains("superseded y"));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(p.check(), 1, "a pasted line break and y do not abandon");
    t.keys(&["Escape"]);
    t.wait_for("the dialog to close", |s| {
        !s.contains("Abandon the handover?")
    });
    assert_eq!(p.check(), 1);
}

/// Issue 29: the fleet shows how full each live agent session's context is
/// (read from the agent's own transcript) and rings once when one crosses
/// `[capacity] warn_at` with no handover since it started.
#[test]
fn the_fleet_shows_an_agents_context_and_rings_once_when_it_runs_low() {
    let p = Project::new(&config(
        "[dashboard]\nnotify = \"echo $AGENT_HANDOVER_EVENT >> notified\"\n",
    ));
    let other = Project::new(&config(""));
    let transcript = p.path("claude-session.jsonl");
    // Claude Code's transcript line for a reply of `used` tokens of a
    // 200K model (the format its 2.1.197 writes; tests/fixtures/capacity).
    let reply = |used: u64| {
        let line = serde_json::json!({"type": "assistant", "isSidechain": false,
            "message": {"model": "claude-sonnet-4-5", "role": "assistant",
                        "usage": {"input_tokens": used, "cache_read_input_tokens": 0,
                                  "cache_creation_input_tokens": 0, "output_tokens": 9}}});
        std::fs::write(&transcript, line.to_string() + "\n").unwrap();
    };
    reply(80_000);
    let start = serde_json::json!({"session_id": "s1", "source": "startup",
        "transcript_path": transcript, "hook_event_name": "SessionStart"});
    let o = p
        .cmd()
        .args(["hook", "session-start", "--agent", "claude"])
        .write_stdin(start.to_string())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::stderr(&o));
    let dirs = format!("{} {}", p.dir.path().display(), other.dir.path().display());
    let Some(t) = Tmux::start_with(&p, (120, 30), "", &dirs) else {
        return;
    };
    let bell = || t.tmux(&["display-message", "-p", "-t", "0", "#{window_bell_flag}"]);
    t.wait_for("the context column at 40 %", |s| {
        s.contains("context") && s.contains("40%")
    });
    assert_eq!(bell().trim(), "0", "no bell at 40 %");

    reply(164_000);
    // The row and then its detail pane (read behind it) say 82 %; nothing
    // is left saying 40 %.
    t.wait_for("82 % within the fingerprint's period", |s| {
        s.contains("82%") && !s.contains("40%")
    });
    wait_until("the bell", || bell().trim() == "1");
    let title = t.tmux(&["display-message", "-p", "-t", "0", "#{pane_title}"]);
    assert!(title.contains("82% full"), "pane title: {title}");
    reply(170_000);
    t.wait_for("85 %", |s| s.contains("85%"));
    std::thread::sleep(Duration::from_millis(500));
    let notified = std::fs::read_to_string(p.path("notified")).unwrap_or_default();
    assert_eq!(
        notified, "context\n",
        "rang once, not again while it stays low"
    );
}

/// Issue 28, the cockpit, on the real binary: three workspaces, one killed
/// mid-handover, one with mail for the human, one quiet. The killed one
/// sorts first with its next action in the detail pane (160×48 and
/// 100×30); `a` asks and only `y` abandons (a paste never confirms);
/// Enter on the one with mail opens the human's queue; `q` comes back to
/// the fleet and `Q` quits.
#[test]
fn the_cockpit_sorts_by_urgency_details_the_selected_row_and_acts_on_it() {
    let (killed, mut child) = slow_handover();
    let mail = Project::new(&config(""));
    assert!(mail.handover("all quiet").status.success());
    send(
        &mail,
        "human",
        "codex",
        "Which currency wins?",
        "On a split invoice.",
    );
    let quiet = Project::new(&config(""));
    assert!(quiet.handover("all quiet").status.success());
    // Listed quiet first: the order on screen is the fleet's own.
    let dirs = format!(
        "{} {} {}",
        quiet.dir.path().display(),
        mail.dir.path().display(),
        killed.dir.path().display()
    );
    let Some(t) = Tmux::start_with(&killed, (160, 48), "", &dirs) else {
        let _ = child.kill();
        return;
    };
    t.wait_for("three rows", |s| s.contains("fleet · 3 workspaces"));
    child.kill().unwrap();
    child.wait().unwrap();
    let name = |p: &Project| {
        p.dir
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    let order = |s: &str| -> Vec<usize> {
        [&killed, &mail, &quiet]
            .iter()
            .map(|p| {
                let n = name(p);
                s.lines()
                    .position(|l| {
                        (l.starts_with("▸ ") || l.starts_with("  "))
                            && l.contains(&n[..n.len().min(18)])
                    })
                    .unwrap_or(usize::MAX)
            })
            .collect()
    };
    let screen = t.wait_for("the killed handover first, its decision in the pane", |s| {
        let o = order(s);
        o[0] < o[1]
            && o[1] < o[2]
            && s.contains("next action")
            && s.contains("decide about step slow")
    });
    assert!(screen.contains("by urgency"), "{screen}");
    assert!(screen.contains("a abandon"), "{screen}");
    t.tmux(&["resize-window", "-t", "0", "-x", "100", "-y", "30"]);
    t.wait_for("the pane at 100×30", |s| {
        s.lines().count() <= 30 && s.contains("next action") && s.contains("decide about")
    });

    // Abandon asks; a paste and Enter do not confirm; y does.
    t.keys(&["a"]);
    t.wait_for("the question", |s| s.contains("y abandons"));
    t.tmux(&["set-buffer", "--", "y\ny\n"]);
    t.tmux(&["paste-buffer", "-p", "-t", "0"]);
    t.keys(&["Enter"]);
    t.wait_for("cancelled", |s| s.contains("cancelled"));
    assert_eq!(killed.check(), 1, "nothing abandoned yet");
    t.keys(&["a"]);
    t.wait_for("the question again", |s| s.contains("y abandons"));
    t.keys(&["y"]);
    t.wait_for("abandoned", |s| s.contains("abandoned"));
    wait_until("the checkpoint to say abandoned", || killed.check() == 0);

    // Now the mail sorts first; Enter opens the human's queue.
    t.wait_for("the mail first", |s| {
        let o = order(s);
        o[1] < o[0] && o[1] < o[2]
    });
    t.keys(&["g", "Enter"]);
    // The fleet's detail pane quotes the message too: wait for the queue.
    let screen = t.wait_for("the human's queue", |s| {
        s.contains("Which currency wins?") && s.contains("q back")
    });
    assert!(
        screen.contains("q back") && screen.contains("Q quit"),
        "{screen}"
    );
    t.keys(&["q"]);
    t.wait_for("the fleet again", |s| s.contains("fleet · 3 workspaces"));
    assert!(t.session_alive());
    t.keys(&["Q"]);
    wait_until("the dashboard to quit", || !t.session_alive());
}

/// Issue 28, item 3: `dashboard --all` follows the registry while it is
/// open: a workspace that registers (its first handover) appears, one
/// forgotten goes, each within 2 s.
#[test]
fn the_fleet_follows_the_registry_while_open() {
    let first = Project::new(&config(""));
    let config_home = first.path("xdg");
    std::fs::create_dir_all(&config_home).unwrap();
    let xdg = config_home.display().to_string();
    let handover = |p: &Project| {
        let o = p
            .cmd()
            .env("XDG_CONFIG_HOME", &xdg)
            .args(["run", "--config", "handover.toml", "--note", "one"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", common::stderr(&o));
    };
    handover(&first);
    let env = format!("XDG_CONFIG_HOME={xdg}");
    let Some(t) = Tmux::start_with(&first, (100, 30), &env, "--all") else {
        return;
    };
    t.wait_for("one workspace", |s| s.contains("fleet · 1 workspaces"));
    let second = Project::new(&config(""));
    let started = Instant::now();
    handover(&second);
    let n = second
        .dir
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let screen = t.wait_for("the new workspace", |s| {
        s.contains("fleet · 2 workspaces") && s.contains(&n[..n.len().min(18)])
    });
    let appeared = started.elapsed();
    let forgotten = Instant::now();
    let o = second
        .cmd()
        .env("XDG_CONFIG_HOME", &xdg)
        .args(["workspaces", "forget", second.dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::stderr(&o));
    t.wait_for("the forgotten workspace gone", |s| {
        s.contains("fleet · 1 workspaces")
    });
    let gone = forgotten.elapsed();
    eprintln!("registry -> fleet: appeared in {appeared:?}, gone in {gone:?}");
    assert!(appeared < Duration::from_secs(2), "{appeared:?}\n{screen}");
    assert!(gone < Duration::from_secs(2), "{gone:?}");
}

/// The dashboard's process (the pane's pid: the shell `exec`s it).
fn dashboard_pid(t: &Tmux) -> u32 {
    t.tmux(&["display-message", "-p", "-t", "0", "#{pane_pid}"])
        .trim()
        .parse()
        .unwrap()
}

/// A field of `/proc/PID/status`, in kB.
fn proc_kb(pid: u32, field: &str) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix(field))?
        .trim()
        .trim_end_matches(" kB")
        .parse()
        .ok()
}

/// Issue 28, item 2: a stream of input (NUL bytes piped into the pane
/// without end) queued without bound (758 MB) and SIGTERM waited behind
/// it. Input is read in bounded batches: memory stays bounded and SIGTERM
/// ends the program promptly, the terminal restored.
#[test]
fn an_input_flood_stays_bounded_and_sigterm_still_quits() {
    let p = Project::new(&config(""));
    assert!(p.handover("all quiet").status.success());
    let Some(t) = Tmux::start_with(&p, (100, 30), "", "; echo dashboard-exited-$?; sleep 10")
    else {
        return;
    };
    t.wait_for("the dashboard", |s| s.contains("completed"));
    let pid = std::process::Command::new("pgrep")
        .args(["-P", &dashboard_pid(&t).to_string()])
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .parse::<u32>()
                .ok()
        })
        .unwrap_or_else(|| dashboard_pid(&t));
    let before = proc_kb(pid, "VmRSS:").unwrap();
    t.tmux(&["pipe-pane", "-I", "-t", "0", "exec cat /dev/zero"]);
    std::thread::sleep(Duration::from_secs(3));
    let peak = proc_kb(pid, "VmHWM:").unwrap();
    let sent = Instant::now();
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    wait_until("the dashboard to end after SIGTERM", || {
        !std::path::Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|s| s.contains(") Z "))
    });
    let took = sent.elapsed();
    t.tmux(&["pipe-pane", "-t", "0"]);
    eprintln!("input flood: RSS {before} kB before, peak {peak} kB; SIGTERM -> exit in {took:?}");
    assert!(peak < before + 50_000, "peak {peak} kB (was {before} kB)");
    assert!(took < Duration::from_secs(2), "{took:?}");
    t.wait_for("the shell after it", |s| s.contains("dashboard-exited-0"));
}

/// Issue 44, item 1: `r` on an interrupted handover whose step takes 12 s
/// runs the resume in a process of its own: `?` answers within 1 s while
/// it runs, `q` quits within 1 s and says the resume goes on, keys typed
/// after `q` are not left for the shell, and the resume completes on its
/// own once the pane is closed.
#[test]
fn r_runs_detached_help_answers_and_q_quits_at_once_while_the_resume_goes_on() {
    let p = Project::new(&config(
        "[[command]]\nname = \"slow\"\nargv = [\"sh\", \"-c\", \"test -f open && sleep 12\"]\nidempotent = true\n",
    ));
    assert_eq!(p.handover("one").status.code(), Some(1), "fails first");
    std::fs::write(p.path("open"), "").unwrap();
    // After the dashboard, the shell reads what is left for it for 2 s.
    let then = "2>said; stty -icanon min 0 time 20; dd bs=1 count=16 2>/dev/null >left; sleep 60";
    let Some(t) = Tmux::start_with(&p, (100, 30), "", then) else {
        return;
    };
    t.wait_for("the resume alert", |s| s.contains("RESUME NEEDED"));
    t.keys(&["r"]);
    let step_state = || {
        std::fs::read_to_string(p.checkpoint_path())
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .map(|cp| cp["step_records"]["slow"]["state"].clone())
    };
    wait_until("the slow step to run", || {
        step_state().is_some_and(|s| s == "running")
    });
    let asked = Instant::now();
    t.keys(&["?"]);
    t.wait_for("the help", |s| s.contains("Keys —"));
    assert!(
        asked.elapsed() < Duration::from_secs(1),
        "help after {:?}",
        asked.elapsed()
    );
    t.keys(&["Escape"]);
    // (Esc and q close together would read as alt-q.)
    t.wait_for("the help closed", |s| !s.contains("Keys —"));
    let quit = Instant::now();
    // Typed at once, as a person typing ahead does: one write to the pane.
    t.tmux(&["send-keys", "-t", "0", "q", "z", "z", "Enter"]);
    wait_until("the dashboard to quit and say the resume goes on", || {
        std::fs::read_to_string(p.path("said")).is_ok_and(|s| s.contains("goes on"))
    });
    assert!(
        quit.elapsed() < Duration::from_secs(1),
        "quit after {:?}",
        quit.elapsed()
    );
    let said = std::fs::read_to_string(p.path("said")).unwrap();
    assert!(
        said.contains("resuming the handover in") && said.contains("agent-handover status"),
        "{said}"
    );
    // The shell's read is over 2 s after the dashboard's end.
    std::thread::sleep(Duration::from_millis(2500));
    let left = std::fs::read_to_string(p.path("left")).unwrap();
    assert!(!left.contains('z'), "keys left for the shell: {left:?}");
    assert_eq!(step_state().unwrap(), "running", "still running");
    drop(t); // the pane closes
    let deadline = Instant::now() + Duration::from_secs(30);
    while p.check() != 2 {
        assert!(Instant::now() < deadline, "the resume never completed");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Issue 44, item 2, on the real binary: a global PAUSE pulled and lifted
/// from the CLI shows in the fleet's header within 2 s; the supervisor's
/// own `p` and `P` set no "paused by someone else" title and ring no bell;
/// unpause-all lifts only the fleet's pauses and names the one it leaves.
#[test]
fn the_fleet_pauses_honestly_beside_someone_elses_pause_and_the_global_brake() {
    let billing = Project::new(&config(""));
    assert!(billing.handover("one").status.success());
    let o = billing.run(&["pause", "--reason", "reviewing the billing rewrite"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let quiet = Project::new(&config(""));
    assert!(quiet.handover("one").status.success());
    let dirs = format!(
        "{} {}",
        billing.dir.path().display(),
        quiet.dir.path().display()
    );
    let Some(t) = Tmux::start_with(&billing, (120, 30), "", &dirs) else {
        return;
    };
    t.wait_for("two rows", |s| s.contains("fleet · 2 workspaces"));
    // The dashboard's HOME is billing's: its global brake.
    let pulled = Instant::now();
    let o = billing.run(&["pause", "--global", "--reason", "lunch"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    t.wait_for("the global brake in the header", |s| {
        s.contains("GLOBAL PAUSE: lunch") && s.contains("held·global")
    });
    assert!(
        pulled.elapsed() < Duration::from_secs(2),
        "{:?}",
        pulled.elapsed()
    );
    let lifted = Instant::now();
    let o = billing.run(&["unpause", "--global"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    t.wait_for("the brake gone", |s| {
        !s.contains("GLOBAL PAUSE") && !s.contains("held·global")
    });
    assert!(
        lifted.elapsed() < Duration::from_secs(2),
        "{:?}",
        lifted.elapsed()
    );

    let title = || t.tmux(&["display-message", "-p", "-t", "0", "#{pane_title}"]);
    let bell = || t.tmux(&["display-message", "-p", "-t", "0", "#{window_bell_flag}"]);
    let quiet_pause = quiet.path(".agent-handover/PAUSE");
    // The quiet workspace sorts below the paused one: select it, pause it.
    t.keys(&["G", "p"]);
    wait_until("the fleet's own PAUSE", || quiet_pause.exists());
    t.wait_for("both paused", |s| s.matches("paused").count() >= 2);
    std::thread::sleep(Duration::from_millis(500));
    assert!(!title().contains("someone else"), "title: {}", title());
    assert_eq!(bell().trim(), "0", "no bell for the supervisor's own pause");

    // Every workspace is paused: P asks to lift the fleet's alone.
    t.keys(&["P"]);
    let screen = t.wait_for("the unpause-all question", |s| {
        s.contains("Unpause the 1 workspace the fleet paused?")
    });
    assert!(screen.contains("reviewing the billing"), "{screen}");
    t.keys(&["y"]);
    wait_until("the fleet's PAUSE lifted", || !quiet_pause.exists());
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        billing.path(".agent-handover/PAUSE").exists(),
        "someone else's pause stays"
    );
    // P again pauses the quiet one (all at once), still no alert.
    t.keys(&["P"]);
    wait_until("the fleet's own PAUSE again", || quiet_pause.exists());
    std::thread::sleep(Duration::from_millis(500));
    assert!(!title().contains("someone else"), "title: {}", title());
    assert_eq!(bell().trim(), "0");
}

/// Issue 44, item 3, on the real binary: an agent session at 85 % context
/// drives the fleet's next action (hand over now, with the command) and
/// counts in NEED YOU, and the workspace's own dashboard shows it in its
/// header.
#[test]
fn a_session_at_85_percent_drives_the_next_action_and_shows_in_the_header() {
    let p = Project::new(&config(""));
    let other = Project::new(&config(""));
    let transcript = p.path("claude-session.jsonl");
    let line = serde_json::json!({"type": "assistant", "isSidechain": false,
        "message": {"model": "claude-sonnet-4-5", "role": "assistant",
                    "usage": {"input_tokens": 170_000, "cache_read_input_tokens": 0,
                              "cache_creation_input_tokens": 0, "output_tokens": 9}}});
    std::fs::write(&transcript, line.to_string() + "\n").unwrap();
    let start = serde_json::json!({"session_id": "s1", "source": "startup",
        "transcript_path": transcript, "hook_event_name": "SessionStart"});
    let o = p
        .cmd()
        .args(["hook", "session-start", "--agent", "claude"])
        .write_stdin(start.to_string())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::stderr(&o));
    let dirs = format!("{} {}", p.dir.path().display(), other.dir.path().display());
    let Some(t) = Tmux::start_with(&p, (120, 30), "", &dirs) else {
        return;
    };
    let screen = t.wait_for("the next action for the low context", |s| {
        s.contains("85%") && s.contains("hand over now (claude at 85%)")
    });
    assert!(screen.contains("1 NEED YOU"), "{screen}");
    assert!(screen.contains("run --note-file"), "{screen}");
    t.keys(&["Enter"]);
    let screen = t.wait_for("the workspace's header", |s| {
        s.contains("claude 85% full: hand over")
    });
    assert!(
        screen.lines().next().unwrap().contains("claude 85%"),
        "{screen}"
    );
}

/// Issue 44, item 4: tmux pastes line breaks as CR; in the message
/// dialog one becomes a space in the subject ("please abandon then y",
/// not "please abandonthen y") and stays a line break in the body.
#[test]
fn a_cr_separated_paste_is_a_space_in_the_subject_and_a_line_in_the_body() {
    let p = Project::new(&config(""));
    send(&p, "claude", "lead", "hello", "hi");
    let Some(t) = Tmux::start(&p, (100, 30)) else {
        return;
    };
    t.wait_for("the inbox", |s| s.contains("hello"));
    t.keys(&["c"]);
    t.wait_for("the new message", |s| s.contains("New message"));
    // `paste-buffer` without -r turns each LF into CR, as a terminal would.
    let paste = |text: &str| {
        t.tmux(&["set-buffer", "--", text]);
        t.tmux(&["paste-buffer", "-p", "-t", "0"]);
    };
    paste("please abandon\nthen y");
    t.wait_for("the subject on one line", |s| {
        s.contains("please abandon then y")
    });
    t.keys(&["Tab"]);
    paste("line one\nline two");
    t.wait_for("the body's two lines", |s| s.contains("line two"));
    t.keys(&["C-s"]);
    t.wait_for("the message sent", |s| !s.contains("New message"));
    // The send runs in a process of its own: the message lands soon after.
    wait_until("the message in the queue", || {
        std::fs::read_dir(p.path("messages/for_claude"))
            .into_iter()
            .flatten()
            .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
            .any(|t| t.contains("please abandon then y") && t.contains("line one\nline two"))
    });
}

/// Issue 44, item 4: at 60×20 a step that may have taken effect waits for
/// a decision, and the footer keeps `R retry` (the key that settles it)
/// in every tab.
#[test]
fn the_sixty_by_twenty_footer_keeps_r_retry_for_a_decision() {
    let (p, mut child) = slow_handover();
    child.kill().unwrap();
    child.wait().unwrap();
    let Some(t) = Tmux::start(&p, (60, 20)) else {
        return;
    };
    t.wait_for("the decision", |s| s.contains("RESUME NEEDED"));
    for tab in ["1", "2", "3", "4", "5", "6"] {
        t.keys(&[tab]);
        std::thread::sleep(Duration::from_millis(150));
        t.wait_for("R retry in the footer", |s| {
            s.lines().last().is_some_and(|l| l.contains("R retry"))
        });
    }
}

/// Issue 44, item 4: `demo --fleet` shows the fleet the README sells (two
/// simulated workspaces), and a demo without `--dir` removes its temp
/// folder when it ends.
#[test]
fn demo_fleet_shows_two_workspaces_and_cleans_up_its_temp_folder() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIPPED: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let socket = format!("ah-e2e-demo-{}-{}", std::process::id(), fastrand::u32(..));
    let bin = assert_cmd::cargo::cargo_bin("agent-handover");
    let command = format!(
        "env HOME={} TMPDIR={} TERM=xterm-256color {} demo --fleet; sleep 30",
        dir.path().display(),
        tmp.display(),
        bin.display(),
    );
    let ok = Command::new("tmux")
        .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d"])
        .args(["-x", "120", "-y", "30", &command])
        .status()
        .unwrap()
        .success();
    assert!(ok, "tmux new-session failed");
    let t = Tmux { socket };
    let demos = || {
        std::fs::read_dir(&tmp)
            .unwrap()
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("agent-handover-demo-")
            })
            .count()
    };
    t.wait_for("the fleet of two", |s| {
        s.contains("fleet · 2 workspaces") && s.contains("parser") && s.contains("billing")
    });
    assert_eq!(demos(), 1, "built in the temp folder");
    t.keys(&["Q"]);
    t.wait_for("the demo's last words", |s| {
        s.contains("demo workspace removed")
    });
    assert_eq!(demos(), 0, "the temp folder is removed");
}

/// Issue 44, item 2: the dashboard shows a global PAUSE pulled from the
/// CLI within 2 s, and its end within 2 s, though the global brake's
/// folder did not exist (to be watched) when it started.
#[test]
fn the_dashboard_shows_a_global_pause_within_two_seconds() {
    let p = Project::new(&config(""));
    assert!(p.handover("one").status.success());
    assert!(!p.path("home/.agent_handover").exists());
    let Some(t) = Tmux::start(&p, (100, 30)) else {
        return;
    };
    t.wait_for("the dashboard", |s| s.contains("1 Run"));
    let pulled = Instant::now();
    let o = p.run(&["pause", "--global", "--reason", "lunch"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    t.wait_for("GLOBAL PAUSE in the header", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.contains("GLOBAL PAUSE: lunch"))
    });
    assert!(
        pulled.elapsed() < Duration::from_secs(2),
        "{:?}",
        pulled.elapsed()
    );
    let lifted = Instant::now();
    let o = p.run(&["unpause", "--global"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    t.wait_for("the brake gone", |s| !s.contains("GLOBAL PAUSE"));
    assert!(
        lifted.elapsed() < Duration::from_secs(2),
        "{:?}",
        lifted.elapsed()
    );
}
