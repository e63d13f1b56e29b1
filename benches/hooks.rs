//! Hook latency against `check`, in the same run: the hooks an agent waits
//! for, with Claude Code's documented stdin, in a git repository where
//! `install claude` ran, one handover completed, and a session works (a
//! baseline of 40 uncommitted files at its start, one more file changed
//! before its second stop).
//! Target: session start and stop each ≤ 3× `check` (medians); the stop is
//! measured on its three paths: nothing done yet, work done (the one that
//! saves a draft and asks, once a session), and asked already; and the
//! progress hook that runs after every tool call (the context read from
//! the agent's transcript, a 4 MB one here). With `BENCH_PREVIOUS_BIN` (a
//! build of an older commit), its `check` and session start are measured in
//! the same rounds: they must not be slower now.
//!
//! Then the asking stop on a repository of 50,000 tracked files, against
//! `git status` there in the same rounds (target ≤ 1.5×): the first ask of
//! a session (its work since its start), and the ask after the session's
//! own handover (its work since what that handover covered).
//!
//! The commands are interleaved so machine noise hits each equally. `cargo
//! bench --bench hooks` (`BENCH_ITERS`, default 41; `BENCH_BIG_ITERS` for
//! the large repository, default 15); writes `target/bench-hooks.md`.

mod support;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::{iterations, our_binary, previous_binary, stats};

const TARGET_RATIO: f64 = 3.0;
/// The asking stop on a large repository, against `git status` there.
const BIG_TARGET_RATIO: f64 = 1.5;
/// Tracked files of the large repository.
const BIG_FILES: usize = 50_000;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=b", "-c", "user.email=b@example.com"])
        .args(args)
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}");
}

/// One run of `bin args` in `dir` with `stdin`, timed from spawn to exit,
/// with what it printed.
fn timed_run(bin: &Path, dir: &Path, args: &[&str], stdin: &str) -> (Duration, Output) {
    let start = Instant::now();
    let mut child = Command::new(bin)
        .args(args)
        .current_dir(dir)
        .env("HOME", dir.join("home"))
        .env("CLAUDE_PROJECT_DIR", dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes());
    let out = child.wait_with_output().expect("wait");
    let elapsed = start.elapsed();
    assert!(out.status.code().is_some(), "{args:?} was killed");
    (elapsed, out)
}

/// [`timed_run`]'s time.
fn time(bin: &Path, dir: &Path, args: &[&str], stdin: &str) -> Duration {
    timed_run(bin, dir, args, stdin).0
}

/// [`time`], checking that the hook asked.
fn time_asking(bin: &Path, dir: &Path, args: &[&str], stdin: &str) -> Duration {
    let (elapsed, out) = timed_run(bin, dir, args, stdin);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("\"decision\":\"block\"") || said.contains("\"decision\": \"block\""),
        "the stop did not ask: {said} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    elapsed
}

/// What a small repository has seen before the session starts.
#[derive(Clone, Copy, PartialEq)]
enum History {
    /// `install claude`, nothing handed over.
    Installed,
    /// One handover completed; nothing committed since.
    HandedOver,
    /// One handover completed, then a commit touching the file its next
    /// step names (the brief looks at the commits since).
    CommittedSince,
}

/// A git repository of 200 files at `dir` where `install claude` ran, with
/// `history`, and 40 uncommitted files when the session starts.
fn small_repo(bin: &Path, dir: &Path, history: History) {
    std::fs::create_dir_all(dir.join("home")).unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
    for i in 0..200 {
        std::fs::write(
            dir.join(format!("src/m{i}.rs")),
            format!("pub fn f{i}() {{}}\n"),
        )
        .unwrap();
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "code"]);
    let ours = |args: &[&str]| {
        let out = Command::new(bin)
            .args(args)
            .current_dir(dir)
            .env("HOME", dir.join("home"))
            .output()
            .expect("agent-handover");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    ours(&["install", "claude"]);
    if history != History::Installed {
        ours(&[
            "run",
            "--note",
            "# Handoff\n\n## Next step\nWire `src/m1.rs` into the parser.\n",
        ]);
    }
    if history == History::CommittedSince {
        std::fs::write(dir.join("src/m1.rs"), "pub fn f1() { }\n").unwrap();
        git(dir, &["commit", "-qam", "wire m1"]);
    }
    for i in 0..40 {
        std::fs::write(dir.join(format!("src/wip{i}.rs")), "// work in progress\n").unwrap();
    }
    // As in a repository in use: the index is older than the files it
    // describes were last written, and git refreshed it (else every status
    // re-hashes the "racily clean" files written in the index's second).
    std::thread::sleep(Duration::from_millis(1100));
    git(dir, &["status", "--porcelain"]);
}

fn main() {
    let iters = iterations(41);
    let (built, target) = our_binary();
    let tmp = tempfile::tempdir().expect("tempdir");
    // Both builds run from copies side by side: a binary just written by
    // cargo (in target/, hard-linked) started measurably slower than the
    // same bytes copied elsewhere.
    let copy = |from: &Path, name: &str| {
        let to = tmp.path().join(name);
        std::fs::copy(from, &to).expect("copy the binary");
        to
    };
    let bin = copy(&built, "agent-handover-now");
    let previous = previous_binary().map(|old| copy(&old, "agent-handover-before"));
    let dir = tmp.path().join("repo");
    small_repo(&bin, &dir, History::CommittedSince);
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
    // The same start, in repositories that have seen less. Each build runs
    // in repositories it set up itself (its own `install`, its own
    // handover): a checkpoint or config written by a newer build is not
    // one an older build can read, and its error path would be timed.
    let set_up = |old: &Path, name: &str, history: History| {
        let at = |who: &str| {
            tmp.path()
                .join(format!("{who}-{}", name.replace([' ', ','], "-")))
        };
        let (now, before) = (at("now"), at("before"));
        small_repo(&bin, &now, history);
        small_repo(old, &before, history);
        (now, before)
    };
    let dir_before = previous.as_ref().map(|old| {
        let before = tmp.path().join("repo-before");
        small_repo(old, &before, History::CommittedSince);
        before
    });
    let others: Vec<(&str, (PathBuf, PathBuf))> = previous
        .iter()
        .flat_map(|old| {
            [
                ("installed, no handover", History::Installed),
                ("one handover, nothing committed since", History::HandedOver),
            ]
            .map(|(name, history)| (name, set_up(old, name, history)))
        })
        .collect();
    let start_in_at = |at: &Path| {
        let root = at.display().to_string();
        format!(
            r#"{{"session_id": "bench", "cwd": "{root}", "hook_event_name": "SessionStart", "source": "startup"}}"#
        )
    };
    let mut samples: [Vec<Duration>; 8] = Default::default();
    // Per repository (this one first): old and new `check`, old and new start.
    let mut before: Vec<[Vec<Duration>; 4]> = vec![Default::default(); others.len() + 1];
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
        let earlier: Vec<[Duration; 4]> = previous
            .iter()
            .zip(&dir_before)
            .flat_map(|(old, dir_before)| {
                let repos = std::iter::once((dir.clone(), dir_before.clone()))
                    .chain(others.iter().map(|(_, pair)| pair.clone()));
                repos
                    .map(|(now, before)| {
                        // A `startup` begins a new session record each time.
                        [
                            time(old, &before, &check, ""),
                            time(&bin, &now, &check, ""),
                            time(old, &before, &start, &start_in_at(&before)),
                            time(&bin, &now, &start, &start_in_at(&now)),
                        ]
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
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
            for (repo, round) in before.iter_mut().zip(earlier) {
                for (all, one) in repo.iter_mut().zip(round) {
                    all.push(one);
                }
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
    if let Some(old) = &previous {
        let verdict = |new: f64, old: f64| if new <= old * 1.05 { "PASS" } else { "FAIL" };
        report += &format!(
            "\nAgainst the previous build (`{}`), in the same rounds (ms; target: no slower, within 5 %):\n\n\
             | repository | `check` now | before | | `hook session-start` now | before | |\n|---|---:|---:|---|---:|---:|---|\n",
            previous_binary().unwrap_or_else(|| old.clone()).display()
        );
        let names =
            std::iter::once("one handover, then a commit touching the file its next step names")
                .chain(others.iter().map(|(name, _)| *name));
        for (name, repo) in names.zip(&before) {
            let [old_check, new_check, old_start, new_start] = repo.clone().map(|s| stats(&s).0);
            report += &format!(
                "| {name} | {new_check:.2} | {old_check:.2} | {} | {new_start:.2} | {old_start:.2} | {} |\n",
                verdict(new_check, old_check),
                verdict(new_start, old_start),
            );
        }
    }
    report += &big_repository(&bin, tmp.path());
    print!("{report}");
    let out = target.join("bench-hooks.md");
    std::fs::write(&out, &report).expect("target/ is writable");
    println!("bench: wrote {}", out.display());
}

/// The asking stop on a repository of [`BIG_FILES`] tracked files, against
/// `git status` there, in the same rounds: its report section.
fn big_repository(bin: &Path, tmp: &Path) -> String {
    let iters = std::env::var("BENCH_BIG_ITERS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(15);
    let dir = tmp.join("big");
    std::fs::create_dir_all(dir.join("home")).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    for d in 0..BIG_FILES / 200 {
        let sub = dir.join(format!("src/d{d}"));
        std::fs::create_dir_all(&sub).unwrap();
        for f in 0..200 {
            std::fs::write(
                sub.join(format!("f{f}.rs")),
                format!("pub fn f{d}_{f}() {{}}\n"),
            )
            .unwrap();
        }
    }
    let run = |args: &[&str]| {
        let out = Command::new(bin)
            .args(args)
            .current_dir(&dir)
            .env("HOME", dir.join("home"))
            .output()
            .expect("agent-handover");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&["install", "claude"]);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-qm", "a large project"]);
    run(&[
        "run",
        "--note",
        "# Handoff\n\n## Next step\nWire `src/d0/f0.rs` in.\n",
    ]);
    std::thread::sleep(Duration::from_millis(1100));
    git(&dir, &["status", "--porcelain"]);
    let root = dir.display().to_string();
    let input = |event: &str, extra: &str| {
        format!(r#"{{"session_id": "big", "cwd": "{root}", "hook_event_name": "{event}"{extra}}}"#)
    };
    let start_in = input("SessionStart", r#", "source": "startup""#);
    let stop_in = input("Stop", r#", "stop_hook_active": false"#);
    let start = ["hook", "session-start", "--agent", "claude"];
    let stop = ["hook", "stop", "--agent", "claude"];
    let git_status = |dir: &Path| {
        let begin = Instant::now();
        let out = Command::new("git")
            .args(["status"])
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("git status");
        assert!(out.success());
        begin.elapsed()
    };
    let mut samples: [Vec<Duration>; 4] = Default::default();
    for i in 0..iters + 2 {
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
        // A fresh session: its start, work, and its first stop asks.
        time(bin, &dir, &start, &start_in);
        std::fs::write(
            dir.join(format!("src/d1/f{}.rs", i % 200)),
            format!("// {i}\n"),
        )
        .unwrap();
        let first = [git_status(&dir), time_asking(bin, &dir, &stop, &stop_in)];
        // It hands over, commits more, and its next stop asks again.
        run(&[
            "run",
            "--note",
            &format!("# Handoff\n\n## Next step\nRound {i}: wire `src/d2/f0.rs` in.\n"),
        ]);
        std::fs::write(
            dir.join(format!("src/d3/f{}.rs", i % 200)),
            format!("// {i}\n"),
        )
        .unwrap();
        git(&dir, &["commit", "-qam", &format!("round {i}")]);
        let again = [git_status(&dir), time_asking(bin, &dir, &stop, &stop_in)];
        if i >= 2 {
            for (all, one) in samples.iter_mut().zip(first.into_iter().chain(again)) {
                all.push(one);
            }
        }
    }
    let [status_1, stop_1, status_2, stop_2] = samples.map(|s| stats(&s));
    let row = |name: &str, (median, p90): (f64, f64), base: f64| {
        let ratio = median / base;
        let verdict = if ratio <= BIG_TARGET_RATIO {
            "PASS"
        } else {
            "FAIL"
        };
        format!(
            "| {name} | {median:.2} | {p90:.2} | {ratio:.2} | ≤ {BIG_TARGET_RATIO}×: {verdict} |\n"
        )
    };
    format!(
        "\n## The asking stop on {BIG_FILES} tracked files (release build, {iters} interleaved runs, ms)\n\n\
         | command | median | p90 | × `git status` (median) | target |\n|---|---:|---:|---:|---|\n\
         | `git status` (one file changed) | {:.2} | {:.2} | 1.00 | |\n{}\
         | `git status` (after a handover and a commit) | {:.2} | {:.2} | 1.00 | |\n{}",
        status_1.0,
        status_1.1,
        row(
            "`hook stop`, the session's first ask (work since its start; draft and record saved)",
            stop_1,
            status_1.0
        ),
        status_2.0,
        status_2.1,
        row(
            "`hook stop` after the session's own handover and a commit (work since what it covered; asked again)",
            stop_2,
            status_2.0
        ),
    )
}
