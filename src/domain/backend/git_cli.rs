//! Fetch and push through the user's own `git` program, so that their
//! credential helpers, ssh config, proxies and hooks work unchanged and a
//! server's refusal is shown in its own words. (Local work, staging,
//! committing and merging, stays on git2.) Prompts are turned off: a
//! handover never waits for a password.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::git_error::GitError;

/// How a push went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pushed {
    /// The remote branch now holds our commit (or already did).
    Done,
    /// The remote moved on: fetch, integrate, push again.
    Behind,
    /// The server refused it (a hook, a protected branch): its words.
    Refused(String),
    /// It could not be pushed (network, credentials, no such remote).
    Failed(String),
}

/// A `git` command in `dir`, never prompting, with slow transfers given up.
fn git(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.arg("-C")
        .arg(dir)
        .args(["-c", "http.lowSpeedLimit=1", "-c", "http.lowSpeedTime=60"])
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C");
    cmd
}

/// What git printed, for a message: its stderr (or stdout), trimmed.
fn said(out: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
    if err.is_empty() {
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    } else {
        err
    }
}

/// The error of a `git` that could not run at all.
fn cannot_run(e: &std::io::Error) -> GitError {
    GitError::CannotRun {
        error: e.to_string(),
    }
}

/// `git fetch <remote> +refs/heads/<branch>:refs/remotes/<remote>/<branch>`,
/// given up (git ended) after `limit` ([`GitError::TimedOut`]), whatever
/// the transport; git's refusal is [`GitError::FetchFailed`] in its words.
pub fn fetch_within(
    dir: &Path,
    remote: &str,
    branch: &str,
    limit: Duration,
) -> Result<(), GitError> {
    let refspec = format!("+refs/heads/{branch}:refs/remotes/{remote}/{branch}");
    fetch_refspec_within(dir, remote, &refspec, limit)
}

/// `git fetch <remote> <refspec>`, as [`fetch_within`] runs it.
pub fn fetch_refspec_within(
    dir: &Path,
    remote: &str,
    refspec: &str,
    limit: Duration,
) -> Result<(), GitError> {
    let mut cmd = git(dir);
    cmd.args(["fetch", "--quiet", "--no-tags", remote, refspec]);
    let (out, timed_out) = output_within(cmd, limit)?;
    if timed_out {
        return Err(GitError::TimedOut { limit });
    }
    if out.status.success() {
        Ok(())
    } else {
        Err(GitError::FetchFailed {
            remote: remote.to_string(),
            said: said(&out),
        })
    }
}

/// `git push --porcelain <remote> <from>:<to>` (full ref names), its
/// output read into a [`Pushed`]; given up (git ended) after `limit` with
/// [`GitError::PushTimedOut`], whatever the transport, so a remote that
/// accepts the connection and never answers cannot hold a handover (and
/// its run lock) forever. An error too when git cannot run.
pub fn push_ref(
    dir: &Path,
    remote: &str,
    from: &str,
    to: &str,
    limit: Duration,
) -> Result<Pushed, GitError> {
    let refspec = format!("{from}:{to}");
    let mut cmd = git(dir);
    cmd.args(["push", "--porcelain", remote, &refspec]);
    let (out, timed_out) = output_within(cmd, limit)?;
    if timed_out {
        let said = said(&out);
        return Err(GitError::PushTimedOut {
            remote: remote.to_string(),
            limit,
            said: if said.is_empty() {
                "(nothing)".into()
            } else {
                said
            },
        });
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    // Porcelain: one line per ref, `<flag>\t<from>:<to>\t<summary> (<reason>)`.
    let line = stdout.lines().find(|l| l.contains(&format!(":{to}\t")));
    Ok(match line {
        _ if out.status.success() => Pushed::Done,
        Some(l) if l.starts_with('!') && l.contains("[rejected]") => Pushed::Behind,
        Some(l) if l.starts_with('!') => Pushed::Refused(server_words(&out, l)),
        _ => Pushed::Failed(said(&out)),
    })
}

/// The rule that makes git ignore `path` (relative to the work tree of
/// `dir`), as `git check-ignore -v --no-index` names it:
/// `<source>:<line>:<pattern>`; `None` when no rule does, or git could not
/// say within `limit`.
pub fn ignore_rule(dir: &Path, path: &str, limit: Duration) -> Option<String> {
    let mut cmd = git(dir);
    cmd.args(["check-ignore", "-v", "--no-index", "--", path]);
    let (out, timed_out) = output_within(cmd, limit).ok()?;
    if timed_out || !out.status.success() {
        return None;
    }
    // `<source>:<line>:<pattern>\t<path>` (the path quoted when unusual).
    let line = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()?
        .to_string();
    line.rsplit_once('\t')
        .map(|(rule, _)| rule.to_string())
        .filter(|rule| !rule.is_empty())
}

/// The blob git stores for `bytes` at `path` (relative to the work tree of
/// `dir`), written to the object database by `git hash-object -w --path`,
/// so the path's clean filter (`filter=` in .gitattributes: its `clean`
/// command or its long-running `process`) runs exactly as `git add` runs
/// it, as if `required` (its failure never lets the text through
/// unfiltered); given up after `limit`. Its failure is [`GitError::FilterFailed`].
pub fn hash_object_filtered(
    dir: &Path,
    path: &str,
    filter: &str,
    bytes: &[u8],
    limit: Duration,
) -> Result<git2::Oid, GitError> {
    use std::io::Write;
    let mut cmd = git(dir);
    // A failing filter is fatal, never a fall back to the unfiltered text.
    cmd.arg("-c")
        .arg(format!("filter.{filter}.required=true"))
        .args(["hash-object", "-w", "--stdin"])
        .arg(format!("--path={path}"));
    let mut child = cmd
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| cannot_run(&e))?;
    let leader = child.id();
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let input = bytes.to_vec();
    // Written from a thread: a filter that reads nothing cannot block us.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let (out, timed_out) = wait_within(child, leader, limit)?;
    let _ = writer.join();
    let stdout = filtered(out, timed_out, filter, path, limit)?;
    let text = String::from_utf8_lossy(&stdout);
    git2::Oid::from_str(text.trim()).map_err(|_| GitError::FilterFailed {
        filter: filter.to_string(),
        path: path.to_string(),
        said: format!("git printed {:?}", text.trim()),
    })
}

/// What a filter run through git printed on stdout, or why it failed.
fn filtered(
    out: std::process::Output,
    timed_out: bool,
    filter: &str,
    path: &str,
    limit: Duration,
) -> Result<Vec<u8>, GitError> {
    let failed = |said: String| GitError::FilterFailed {
        filter: filter.to_string(),
        path: path.to_string(),
        said,
    };
    if timed_out {
        return Err(failed(format!(
            "it did not finish within {} s",
            limit.as_secs()
        )));
    }
    if !out.status.success() {
        return Err(failed(said(&out)));
    }
    Ok(out.stdout)
}

/// The blob `id` as a checkout of `path` writes it (`git cat-file
/// --filters --path`: through the path's smudge filter), given up after `limit`.
pub fn cat_file_filtered(
    dir: &Path,
    path: &str,
    id: git2::Oid,
    limit: Duration,
) -> Result<Vec<u8>, GitError> {
    let mut cmd = git(dir);
    cmd.args(["cat-file", "--filters"])
        .arg(format!("--path={path}"))
        .arg(id.to_string());
    let (out, timed_out) = output_within(cmd, limit)?;
    filtered(out, timed_out, "smudge", path, limit)
}

/// Run `cmd` (no input, its output captured), ending it after `limit`:
/// what it printed, and whether it ran out of time. git runs in a process
/// group of its own and the whole group is ended, so a transport helper
/// (`git-remote-http` holds git's stderr) cannot keep the pipes open and
/// the caller waiting after git itself is gone.
fn output_within(
    mut cmd: Command,
    limit: Duration,
) -> Result<(std::process::Output, bool), GitError> {
    let child = cmd
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| cannot_run(&e))?;
    let leader = child.id();
    wait_within(child, leader, limit)
}

/// Wait for `child` (the leader of its own process group) at most `limit`,
/// then end its group: what it printed, and whether it ran out of time.
fn wait_within(
    mut child: std::process::Child,
    leader: u32,
    limit: Duration,
) -> Result<(std::process::Output, bool), GitError> {
    let deadline = Instant::now() + limit;
    let mut timed_out = false;
    while child.try_wait().ok().flatten().is_none() {
        if Instant::now() >= deadline {
            end_group(leader);
            timed_out = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = child.wait_with_output().map_err(|e| cannot_run(&e))?;
    Ok((out, timed_out))
}

/// SIGKILL every process in the group led by `leader`.
fn end_group(leader: u32) {
    if let Some(group) = rustix::process::Pid::from_raw(leader as i32) {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
}

/// The server's own lines (`remote: ...`) and git's verdict for the ref.
fn server_words(out: &std::process::Output, verdict: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut lines: Vec<String> = stderr
        .lines()
        .filter(|l| l.starts_with("remote:"))
        .map(str::to_string)
        .collect();
    let verdict = verdict.split('\t').nth(2).unwrap_or(verdict).trim();
    lines.push(verdict.to_string());
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: Duration = Duration::from_secs(60);

    fn run(dir: &Path, args: &[&str]) {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", said(&out));
    }

    fn push_main(dir: &Path, remote: &str) -> Result<Pushed, GitError> {
        push_ref(dir, remote, "refs/heads/main", "refs/heads/main", LIMIT)
    }

    #[test]
    fn pushes_reports_behind_and_shows_a_hooks_refusal_verbatim() {
        let dir = tempfile::tempdir().unwrap();
        let (remote, a, b) = (
            dir.path().join("r.git"),
            dir.path().join("a"),
            dir.path().join("b"),
        );
        run(
            dir.path(),
            &[
                "init",
                "-q",
                "--bare",
                "-b",
                "main",
                remote.to_str().unwrap(),
            ],
        );
        for clone in [&a, &b] {
            run(
                dir.path(),
                &[
                    "clone",
                    "-q",
                    remote.to_str().unwrap(),
                    clone.to_str().unwrap(),
                ],
            );
            run(clone, &["config", "user.email", "t@example.com"]);
            run(clone, &["config", "user.name", "t"]);
            run(clone, &["checkout", "-q", "-b", "main"]);
        }
        run(&a, &["commit", "-q", "--allow-empty", "-m", "a1"]);
        assert_eq!(push_main(&a, "origin").unwrap(), Pushed::Done);
        assert_eq!(
            push_main(&a, "origin").unwrap(),
            Pushed::Done,
            "nothing new is fine"
        );
        run(&b, &["commit", "-q", "--allow-empty", "-m", "b1"]);
        assert_eq!(push_main(&b, "origin").unwrap(), Pushed::Behind);
        fetch_within(&b, "origin", "main", LIMIT).unwrap();
        run(&b, &["rebase", "-q", "origin/main"]);
        let hook = remote.join("hooks/pre-receive");
        std::fs::write(
            &hook,
            "#!/bin/sh\necho 'main is protected: open a pull request' >&2\nexit 1\n",
        )
        .unwrap();
        std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        match push_main(&b, "origin").unwrap() {
            Pushed::Refused(words) => {
                assert!(
                    words.contains("main is protected: open a pull request"),
                    "{words}"
                );
                assert!(words.contains("pre-receive hook declined"), "{words}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            push_main(&b, "nowhere").unwrap(),
            Pushed::Failed(_)
        ));
        let failed = fetch_within(&b, "nowhere", "main", LIMIT).unwrap_err();
        assert!(
            matches!(&failed, GitError::FetchFailed { remote, .. } if remote == "nowhere"),
            "{failed:?}"
        );
        assert!(failed.to_string().contains("nowhere"), "{failed}");
    }
}
