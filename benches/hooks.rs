//! Hook latency against `check`, in the same run: the hooks an agent waits
//! for, with Claude Code's documented stdin, in a git repository where
//! `install claude` ran and a session works (a baseline of 40 uncommitted
//! files at its start, one more file changed before its second stop).
//! Target: session start and stop each ≤ 3× `check` (medians); the stop is
//! measured on its three paths: nothing done yet, work done (the one that
//! saves a draft and asks, once a session), and asked already; and the
//! progress hook that runs after every tool call (the context read from
//! the agent's transcript, a 4 MB one here). The commands are
//! interleaved so machine noise hits each equally. `cargo bench --bench
//! hooks` (`BENCH_ITERS`, default 41); writes `target/bench-hooks.md`.

mod support;

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{iterations, our_binary, stats};

const TARGET_RATIO: f64 = 3.0;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=b", "-c", "user.email=b@example.com"])
        .args(args)
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}");
}

/// One run of `bin args` in `dir` with `stdin`, timed from spawn to exit.
fn time(bin: &Path, dir: &Path, args: &[&str], stdin: &str) -> Duration {
    let start = Instant::now();
    let mut child = Command::new(bin)
        .args(args)
        .current_dir(dir)
        .env("HOME", dir.join("home"))
        .env("CLAUDE_PROJECT_DIR", dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes());
    let status = child.wait().expect("wait");
    let elapsed = start.elapsed();
    assert!(status.code().is_some(), "{args:?} was killed");
    elapsed
}

fn main() {
    let iters = iterations(41);
    let (bin, target) = our_binary();
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("repo");
    std::fs::create_dir_all(dir.join("home")).unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    for i in 0..200 {
        std::fs::write(
            dir.join(format!("src/m{i}.rs")),
            format!("pub fn f{i}() {{}}\n"),
        )
        .unwrap();
    }
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-qm", "code"]);
    let install = Command::new(&bin)
        .args(["install", "claude"])
        .current_dir(&dir)
        .env("HOME", dir.join("home"))
        .output()
        .expect("install");
    assert!(install.status.success());
    for i in 0..40 {
        std::fs::write(dir.join(format!("src/wip{i}.rs")), "// work in progress\n").unwrap();
    }
    // As in a repository in use: the index is older than the files it
    // describes were last written, and git refreshed it (else every status
    // re-hashes the "racily clean" files written in the index's second).
    std::thread::sleep(Duration::from_millis(1100));
    git(&dir, &["status", "--porcelain"]);
    let root = dir.display().to_string();
    // A long session's transcript, as Claude Code writes it: 4 MB of
    // messages and tool results, the last reply's usage near the end
    // (60,000 of a 200K window: nothing to say).
    let transcript = dir.join("home/transcript.jsonl");
    let filler = format!(
        "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"content\":\"{}\"}}]}}}}\n",
        "x".repeat(2000)
    );
    let reply = "{\"type\":\"assistant\",\"message\":{\"model\":\"claude-sonnet-4-5\",\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_bench\"}],\"usage\":{\"input_tokens\":60000,\"cache_read_input_tokens\":0,\"cache_creation_input_tokens\":0,\"output_tokens\":9}}}\n";
    std::fs::write(&transcript, filler.repeat(2000) + reply + &filler).unwrap();
    let path = transcript.display().to_string();
    let input = |event: &str, extra: &str| {
        format!(
            r#"{{"session_id": "bench", "transcript_path": "{path}", "cwd": "{root}", "hook_event_name": "{event}"{extra}}}"#
        )
    };
    let start_in = input("SessionStart", r#", "source": "startup""#);
    // Not a continuation: the stop reads the session, measures its work,
    // saves the draft and asks (the costly path).
    let stop_in = input("Stop", r#", "stop_hook_active": false"#);
    let check = ["check"];
    let start = ["hook", "session-start", "--agent", "claude"];
    let stop = ["hook", "stop", "--agent", "claude"];
    // After a tool call: the context read from the transcript, nothing said.
    // The reply that made the call is in the transcript already: no wait.
    let progress_in = input(
        "PostToolUse",
        r#", "tool_name": "Bash", "tool_use_id": "toolu_bench""#,
    );
    let progress = ["hook", "progress", "--agent", "claude"];
    // Before the reply that made the call is written (Claude Code writes
    // every 100 ms): the last reading plus all written after it stays
    // under warn_at, so it is not waited for.
    let unwritten_in = progress_in.replace("toolu_bench", "toolu_not_yet_written");
    // The same hook with no transcript to read: what reading it costs is
    // the difference. (With no call named: a young session's transcript
    // not written yet would be waited for.)
    let unread_in = input("PostToolUse", r#", "tool_name": "Bash""#)
        .replace(&path, "/nonexistent/transcript.jsonl");
    let mut samples: [Vec<Duration>; 8] = Default::default();
    for i in 0..iters + 3 {
        // A fresh session each round (its record and draft gone, their
        // folders kept, as in a project that has seen sessions): the start
        // takes its baseline, work follows, and the stop has something to
        // measure (and asks).
        for folder in ["sessions", "drafts"] {
            for entry in std::fs::read_dir(dir.join(".agent-handover").join(folder))
                .into_iter()
                .flatten()
                .flatten()
            {
                if entry
                    .path()
                    .extension()
                    .is_some_and(|e| e == "json" || e == "md")
                {
                    std::fs::remove_file(entry.path()).unwrap();
                }
            }
        }
        let round = [
            time(&bin, &dir, &check, ""),
            time(&bin, &dir, &start, &start_in),
            // Nothing done yet: measured, quiet.
            time(&bin, &dir, &stop, &stop_in),
            {
                std::fs::write(dir.join("src/changed.rs"), format!("// {i}\n")).unwrap();
                time(&bin, &dir, &stop, &stop_in)
            },
            // Asked already: quiet at once (every later turn of the session).
            time(&bin, &dir, &stop, &stop_in),
            time(&bin, &dir, &progress, &progress_in),
            time(&bin, &dir, &progress, &unread_in),
            time(&bin, &dir, &progress, &unwritten_in),
        ];
        if i >= 3 {
            for (all, one) in samples.iter_mut().zip(round) {
                all.push(one);
            }
        }
    }
    let [check, rest @ ..] = samples.map(|s| stats(&s));
    let mut report = format!(
        "## Hook latency (release build, {iters} interleaved runs, ms)\n\n\
         | command | median | p90 | × check (median) | target |\n|---|---:|---:|---:|---|\n\
         | `check` | {:.2} | {:.2} | 1.00 | |\n",
        check.0, check.1
    );
    let names = [
        "`hook session-start` (brief + baseline of 40 uncommitted files)",
        "`hook stop`, nothing done yet (work measured: none)",
        "`hook stop` after work (measured; draft, then session record saved; asked)",
        "`hook stop` once asked (every later turn)",
        "`hook progress` after a tool call (context read from a 4 MB transcript: 30%, nothing said)",
        "`hook progress`, no transcript to read",
        "`hook progress` before the reply that made the call is written (not waited for: 30% plus what was written since stays under 75%)",
    ];
    for (name, (median, p90)) in names.into_iter().zip(rest) {
        let ratio = median / check.0;
        let verdict = if ratio <= TARGET_RATIO {
            "PASS"
        } else {
            "FAIL"
        };
        report += &format!(
            "| {name} | {median:.2} | {p90:.2} | {ratio:.2} | ≤ {TARGET_RATIO}×: {verdict} |\n"
        );
    }
    let read_cost = rest[4].0 - rest[5].0;
    report += &format!(
        "\nReading the context from the transcript adds {read_cost:.2} ms to the progress hook (median against median; target ≤ 2 ms: {}).\n",
        if read_cost <= 2.0 { "PASS" } else { "FAIL" }
    );
    print!("{report}");
    let out = target.join("bench-hooks.md");
    std::fs::write(&out, &report).expect("target/ is writable");
    println!("bench: wrote {}", out.display());
}
