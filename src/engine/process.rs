//! Running a program with arguments (no shell) in its own process group that
//! is killed whole after a timeout, and — on Linux — killed with its parent,
//! so a crashed handover does not leave a step running while a resumer starts
//! it again. (Only the direct child gets that parent-death signal: a step that
//! forks long-lived grandchildren should be marked non-idempotent.)
//!
//! [`capture`] returns how the process ended and the tail of its output, up
//! to a bound per stream (both streams through one pipe with
//! [`Streams::Merged`], so their lines keep their order); [`run`] is the
//! `command` step on top of it, keeping the last 4 KiB of each stream.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::base::outcome::StepError;
use crate::workspace::Workspace;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Default timeout of a command step and of a metric probe.
pub const DEFAULT_COMMAND_TIMEOUT_SECS: u64 = 600;
/// The longest timeout a command or metric may have: a week.
pub const MAX_TIMEOUT_SECS: u64 = 7 * 24 * 3600;

/// A timeout agent-handover does not accept (see [`check_timeout`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("timeout_secs = {secs} is out of range: use 1 to {MAX_TIMEOUT_SECS} (a week)")]
pub struct TimeoutOutOfRange {
    /// The timeout asked for.
    pub secs: u64,
}

/// Whether `secs` is a timeout agent-handover accepts; `Err` says the range.
pub fn check_timeout(secs: u64) -> Result<(), TimeoutOutOfRange> {
    if (1..=MAX_TIMEOUT_SECS).contains(&secs) {
        Ok(())
    } else {
        Err(TimeoutOutOfRange { secs })
    }
}

/// Why a command could not be run, or did not succeed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ProcessError {
    /// No program was given.
    #[error("empty argv")]
    EmptyArgv,
    /// The program could not be started (not found, not executable, no
    /// such working directory, no pipe).
    #[error("cannot start {program:?} in {}: {source}", cwd.display())]
    Spawn {
        /// The program.
        program: String,
        /// The working directory.
        cwd: PathBuf,
        /// The OS error.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// Waiting for it failed.
    #[error("waiting for {program:?}: {source}")]
    Wait {
        /// The program.
        program: String,
        /// The OS error.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// It outlived its timeout and its process group was killed.
    #[error("timed out after {secs}s and was killed")]
    TimedOut {
        /// The timeout, in seconds.
        secs: u64,
    },
    /// It exited non-zero, or was killed by a signal other than ours.
    #[error(
        "{}{}",
        code.map_or_else(|| "killed by a signal".to_string(), |c| format!("exit status {c}")),
        if tail.is_empty() { String::new() } else { format!(": {tail}") }
    )]
    Exited {
        /// Its exit code (none when a signal killed it).
        code: Option<i32>,
        /// The last [`TAIL_BYTES`] of its stderr (or of its stdout when
        /// stderr is blank), trimmed.
        tail: String,
    },
}

impl From<ProcessError> for StepError {
    fn from(e: ProcessError) -> Self {
        StepError::failed(e.to_string())
    }
}
/// Bytes of each stream a `command` step keeps (and an error message quotes).
pub const TAIL_BYTES: usize = 4096;
/// Bytes of each stream written to its live file: enough to see what a
/// killed step was doing, never a disk filled by a chatty command.
const LIVE_LIMIT: u64 = 1024 * 1024;

/// Files a command's output is written to as it comes (not kept in memory
/// only), so what a step printed before the handover was killed can still
/// be read (`status -v`, the dashboard's retry dialog).
#[derive(Debug, Clone)]
pub struct LiveOutput {
    /// Where stdout goes.
    pub stdout: PathBuf,
    /// Where stderr goes.
    pub stderr: PathBuf,
}

impl LiveOutput {
    /// The files of step `step` of run `run_id` in `ws`.
    pub fn of_step(ws: &Workspace, run_id: &str, step: &str) -> Self {
        LiveOutput {
            stdout: ws.step_output_file(run_id, step, "stdout"),
            stderr: ws.step_output_file(run_id, step, "stderr"),
        }
    }

    /// The last [`TAIL_BYTES`] of each file, stderr after stdout, if any
    /// was written.
    pub fn tail(&self) -> Option<String> {
        let read = |path: &Path| -> Option<String> {
            let mut file = std::fs::File::open(path).ok()?;
            let len = file.metadata().ok()?.len();
            let start = len.saturating_sub(TAIL_BYTES as u64);
            std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(start)).ok()?;
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes).ok()?;
            let text = String::from_utf8_lossy(&bytes).trim_end().to_string();
            (!text.is_empty()).then_some(text)
        };
        match (read(&self.stdout), read(&self.stderr)) {
            (None, None) => None,
            (Some(out), None) => Some(out),
            (None, Some(err)) => Some(format!("stderr:\n{err}")),
            (Some(out), Some(err)) => Some(format!("{out}\nstderr:\n{err}")),
        }
    }

    /// Remove both files (the command ended and its tail is recorded).
    pub fn remove(&self) {
        for path in [&self.stdout, &self.stderr] {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Where a command's stdout and stderr go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Streams {
    /// Each into its own buffer.
    Separate,
    /// Both into [`Captured::stdout`], interleaved as written.
    Merged,
}

/// How a command ended.
#[derive(Debug)]
pub enum Ended {
    /// It exited (or was killed by a signal other than ours).
    Exited(ExitStatus),
    /// It outlived its timeout and its process group was killed.
    TimedOut(Duration),
    /// Waiting for it failed ([`ProcessError::Wait`]).
    WaitFailed(ProcessError),
}

/// A finished command: how it ended and the tail of its output.
#[derive(Debug)]
pub struct Captured {
    /// How it ended.
    pub ended: Ended,
    /// The last bytes of its stdout (of both streams with [`Streams::Merged`]).
    pub stdout: Vec<u8>,
    /// The last bytes of its stderr (empty with [`Streams::Merged`]).
    pub stderr: Vec<u8>,
    /// Whether the start of a stream was dropped to keep within the bound.
    pub truncated: bool,
}

impl Captured {
    /// Its exit code, when it exited normally.
    pub fn exit_code(&self) -> Option<i32> {
        match &self.ended {
            Ended::Exited(status) => status.code(),
            _ => None,
        }
    }

    /// `None` when it exited 0; otherwise why it failed, with the last
    /// 4 KiB of its stderr (or stdout) so the error is actionable.
    pub fn failure(&self) -> Option<ProcessError> {
        let status = match &self.ended {
            Ended::Exited(s) if s.success() => return None,
            Ended::Exited(s) => s,
            Ended::TimedOut(t) => return Some(ProcessError::TimedOut { secs: t.as_secs() }),
            Ended::WaitFailed(e) => return Some(e.clone()),
        };
        let stream = if self.stderr.iter().all(u8::is_ascii_whitespace) {
            &self.stdout
        } else {
            &self.stderr
        };
        let tail = String::from_utf8_lossy(&stream[stream.len().saturating_sub(TAIL_BYTES)..]);
        Some(ProcessError::Exited {
            code: status.code(),
            tail: tail.trim().to_string(),
        })
    }
}

/// Run `argv` in `cwd` with extra environment `env`, keeping the last
/// `max_bytes` of each stream; `Err` only when it cannot be started.
pub fn capture(
    argv: &[String],
    cwd: &Path,
    timeout: Duration,
    env: &[(&str, &str)],
    streams: Streams,
    max_bytes: usize,
) -> Result<Captured, ProcessError> {
    let watch = Watch {
        on_spawn: &|_| {},
        live: None,
    };
    capture_group(argv, cwd, timeout, env, streams, max_bytes, &watch)
}

/// What is told of a command while it runs.
pub struct Watch<'a> {
    /// Its process group, as soon as it is known (to record it: a resumer
    /// must not start the step again while any process of the group lives).
    pub on_spawn: &'a dyn Fn(u32),
    /// Files its output is written to as it comes.
    pub live: Option<&'a LiveOutput>,
}

/// [`capture`], telling `watch` the command's process group as soon as it
/// is known (before the command starts when a watcher leads it) and
/// writing its output to `watch`'s live files as it comes.
fn capture_group(
    argv: &[String],
    cwd: &Path,
    timeout: Duration,
    env: &[(&str, &str)],
    streams: Streams,
    max_bytes: usize,
    watch: &Watch<'_>,
) -> Result<Captured, ProcessError> {
    let on_spawn = watch.on_spawn;
    let (program, args) = argv.split_first().ok_or(ProcessError::EmptyArgv)?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .envs(env.iter().copied());
    let cannot_start = |e: std::io::Error| ProcessError::Spawn {
        program: program.clone(),
        cwd: cwd.to_path_buf(),
        source: Arc::new(e),
    };
    // With a merged pipe, `cmd` holds the write ends until it is dropped.
    let merged = match streams {
        Streams::Separate => {
            cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
            None
        }
        Streams::Merged => {
            let (reader, writer) = std::io::pipe().map_err(cannot_start)?;
            let writer2 = writer.try_clone().map_err(cannot_start)?;
            cmd.stdout(writer).stderr(writer2);
            Some(reader)
        }
    };
    // The group watcher comes first and leads the group the command joins,
    // so no moment exists in which the command runs unwatched.
    let guard = GroupGuard::start();
    let pgid_to_join = guard.as_ref().map_or(0, |g| g.pgid as i32);
    std::os::unix::process::CommandExt::process_group(&mut cmd, pgid_to_join);
    die_with_parent(&mut cmd);
    // With a watcher the group is known before the command starts: record
    // it first, so no moment exists in which the command runs unrecorded.
    if let Some(g) = &guard {
        on_spawn(g.pgid);
    }
    let spawned = cmd.spawn();
    drop(cmd);
    let mut child = spawned.map_err(cannot_start)?;
    let pgid = match &guard {
        Some(g) => g.pgid,
        None => {
            on_spawn(child.id());
            child.id()
        }
    };
    let live = |pick: fn(&LiveOutput) -> &PathBuf| watch.live.map(|l| pick(l).clone());
    let stdout = match merged {
        Some(reader) => tail_reader(Some(reader), max_bytes, live(|l| &l.stdout)),
        None => tail_reader(child.stdout.take(), max_bytes, live(|l| &l.stdout)),
    };
    let stderr = tail_reader(child.stderr.take(), max_bytes, live(|l| &l.stderr));
    let ended = wait_with_timeout(&mut child, pgid, timeout).unwrap_or_else(|e| {
        Ended::WaitFailed(ProcessError::Wait {
            program: program.clone(),
            source: Arc::new(e),
        })
    });
    let (stdout, cut_out) = join_tail(stdout);
    let (stderr, cut_err) = join_tail(stderr);
    Ok(Captured {
        ended,
        stdout,
        stderr,
        truncated: cut_out || cut_err,
    })
}

/// Run `argv` in `cwd` with extra environment `env`.
///
/// `Ok` carries a one-line summary; `Err` the reason it failed, with the tail
/// of its stderr (or stdout) so the error is actionable.
pub fn run(
    argv: &[String],
    cwd: &Path,
    timeout: Duration,
    env: &[(&str, &str)],
    watch: &Watch<'_>,
) -> Result<String, ProcessError> {
    let captured = capture_group(
        argv,
        cwd,
        timeout,
        env,
        Streams::Separate,
        TAIL_BYTES,
        watch,
    )?;
    match captured.failure() {
        None => Ok(format!("{} exited 0", argv[0])),
        Some(why) => Err(why),
    }
}

fn wait_with_timeout(child: &mut Child, pgid: u32, timeout: Duration) -> std::io::Result<Ended> {
    // A deadline the clock cannot hold means no deadline, never a panic.
    let deadline = Instant::now().checked_add(timeout);
    let mut nap = Duration::from_micros(500);
    loop {
        match child.try_wait()? {
            Some(status) => return Ok(Ended::Exited(status)),
            None if deadline.is_some_and(|d| Instant::now() >= d) => {
                kill_group(child, pgid);
                let _ = child.wait();
                return Ok(Ended::TimedOut(timeout));
            }
            None => {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(20));
            }
        }
    }
}

/// Kill the step's whole process group (a shell's children too), so the
/// output pipes close and nothing of a timed-out step lingers.
fn kill_group(child: &mut Child, pgid: u32) {
    if let Some(group) = rustix::process::Pid::from_raw(pgid as i32) {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
}

/// A watcher that kills a step's whole process group if this process dies
/// first. The parent-death signal reaches only the direct child; what it
/// started (`sh -c "sleep 20; deploy"`) would live on and could run beside
/// a resumer's second copy. The watcher is a shell that leads a new process
/// group (the command then joins it), ignores hang-ups, and blocks reading a
/// pipe only this process holds: when this process dies the pipe closes and
/// it kills its group. Dropping the guard (the step ended) kills the
/// watcher alone.
struct GroupGuard {
    watcher: Child,
    /// The group: the watcher's pid.
    pgid: u32,
    _alive: std::io::PipeWriter,
}

impl GroupGuard {
    /// Start a watcher leading a new group; `None` if it could not start
    /// (the command then gets a group of its own, guarded by the
    /// parent-death signal only).
    fn start() -> Option<GroupGuard> {
        let (reader, writer) = std::io::pipe().ok()?;
        let mut cmd = Command::new("/bin/sh");
        cmd.args([
            "-c",
            "trap '' HUP INT TERM; read _ignored; kill -KILL -$$ 2>/dev/null",
            "agent-handover-group-guard",
        ])
        .stdin(reader)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let watcher = cmd.spawn().ok()?;
        Some(GroupGuard {
            pgid: watcher.id(),
            watcher,
            _alive: writer,
        })
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        let _ = self.watcher.kill();
        let _ = self.watcher.wait();
    }
}

/// The live processes of process group `pgid` (empty when none is left).
pub fn live_group_members(pgid: u32) -> Vec<u32> {
    let Some(group) = rustix::process::Pid::from_raw(pgid as i32) else {
        return Vec::new();
    };
    match rustix::process::test_kill_process_group(group) {
        Ok(()) => {}
        // A member we may not signal (another user's, e.g. through sudo)
        // is alive all the same.
        Err(rustix::io::Errno::PERM) => {}
        Err(_) => return Vec::new(),
    }
    // When the system does not list its processes, the group is alive but
    // its members unknown: name the group.
    group_members(pgid).unwrap_or_else(|| vec![pgid])
}

/// Processes (not zombies) whose process group is `pgid`, as the system
/// lists them ([`crate::base::procs`]); `None` when it does not.
fn group_members(pgid: u32) -> Option<Vec<u32>> {
    let mut pids: Vec<u32> = crate::base::procs::all()?
        .into_iter()
        .filter(|p| p.pgid == pgid && !p.zombie)
        .map(|p| p.pid)
        .collect();
    pids.sort_unstable();
    Some(pids)
}

/// Read `stream` to its end on a thread, keeping its last `max_bytes` and
/// whether anything before them was dropped; each chunk is also written to
/// `live` (its first [`LIVE_LIMIT`] bytes) as soon as it is read.
fn tail_reader<R: Read + Send + 'static>(
    stream: Option<R>,
    max_bytes: usize,
    live: Option<PathBuf>,
) -> Option<JoinHandle<(Vec<u8>, bool)>> {
    let mut stream = stream?;
    Some(std::thread::spawn(move || {
        let mut tail = Vec::new();
        let mut dropped = false;
        let mut buf = [0u8; 8192];
        // A diagnostic copy, not state: written without fsync, and a file
        // that cannot be written only loses the copy.
        let mut live = live.and_then(|path| std::fs::File::create(path).ok());
        let mut written = 0u64;
        while let Ok(n) = stream.read(&mut buf) {
            if n == 0 {
                break;
            }
            if let Some(file) = &mut live {
                let room = LIVE_LIMIT.saturating_sub(written).min(n as u64) as usize;
                if std::io::Write::write_all(file, &buf[..room]).is_err() || room < n {
                    let _ =
                        std::io::Write::write_all(file, b"\n[output beyond 1 MiB not kept here]\n");
                    live = None;
                }
                written += room as u64;
            }
            tail.extend_from_slice(&buf[..n]);
            if tail.len() > 2 * max_bytes {
                tail.drain(..tail.len() - max_bytes);
                dropped = true;
            }
        }
        let start = tail.len().saturating_sub(max_bytes);
        (tail.split_off(start), dropped || start > 0)
    }))
}

fn join_tail(handle: Option<JoinHandle<(Vec<u8>, bool)>>) -> (Vec<u8>, bool) {
    handle.and_then(|h| h.join().ok()).unwrap_or_default()
}

#[cfg(target_os = "linux")]
fn die_with_parent(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = rustix::process::getpid();
    // SAFETY: the closure only makes async-signal-safe syscalls (prctl, getppid).
    unsafe {
        cmd.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
            if rustix::process::getppid() != Some(parent) {
                return Err(std::io::Error::other(
                    "parent exited before the step started",
                ));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_cmd: &mut Command) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    /// Nothing watched.
    const QUIET: Watch<'static> = Watch {
        on_spawn: &|_| {},
        live: None,
    };

    #[test]
    fn a_timeout_no_clock_can_hold_is_no_deadline_not_a_panic() {
        let cwd = std::env::temp_dir();
        let seen = std::cell::Cell::new(0);
        let out = run(
            &sh("true"),
            &cwd,
            Duration::from_secs(u64::MAX),
            &[],
            &Watch {
                on_spawn: &|pgid| seen.set(pgid),
                live: None,
            },
        );
        assert!(out.is_ok(), "{out:?}");
        assert_ne!(seen.get(), 0, "the process group is reported");
        assert!(check_timeout(0).is_err() && check_timeout(MAX_TIMEOUT_SECS + 1).is_err());
        assert!(check_timeout(600).is_ok());
    }

    #[test]
    fn success_failure_and_timeout() {
        let cwd = std::env::temp_dir();
        let t = Duration::from_secs(10);
        assert!(run(&sh("echo hi"), &cwd, t, &[], &QUIET).is_ok());
        let err = run(
            &sh("echo out; echo 'real error' >&2; exit 3"),
            &cwd,
            t,
            &[],
            &QUIET,
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "exit status 3: real error");
        assert!(matches!(err, ProcessError::Exited { code: Some(3), .. }));
        let err = run(
            &sh("sleep 5"),
            &cwd,
            Duration::from_millis(100),
            &[],
            &QUIET,
        )
        .unwrap_err();
        assert!(matches!(err, ProcessError::TimedOut { secs: 0 }), "{err}");
        assert!(err.to_string().contains("timed out"), "{err}");
        let err = run(&["/no/such/program".into()], &cwd, t, &[], &QUIET).unwrap_err();
        assert!(matches!(err, ProcessError::Spawn { .. }), "{err}");
        assert!(err.to_string().contains("cannot start"), "{err}");
    }

    #[test]
    fn passes_environment_and_keeps_only_the_tail() {
        let cwd = std::env::temp_dir();
        let err = run(
            &sh("head -c 100000 /dev/zero | tr '\\0' x >&2; echo \"$STEP\" >&2; exit 1"),
            &cwd,
            Duration::from_secs(10),
            &[("STEP", "tests")],
            &QUIET,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.len() < TAIL_BYTES + 64 && err.ends_with("tests"),
            "{}",
            &err[err.len() - 20..]
        );
    }

    #[test]
    fn output_is_written_to_the_live_files_as_it_comes_up_to_a_bound() {
        let dir = tempfile::tempdir().unwrap();
        let live = LiveOutput {
            stdout: dir.path().join("s.stdout"),
            stderr: dir.path().join("s.stderr"),
        };
        let watch = Watch {
            on_spawn: &|_| {},
            live: Some(&live),
        };
        let t = Duration::from_secs(10);
        // Still running: what it printed is on disk already.
        let started = std::thread::scope(|scope| {
            let running = scope.spawn(|| {
                let watch = Watch {
                    on_spawn: &|_| {},
                    live: Some(&live),
                };
                run(
                    &sh("echo half done; echo warn >&2; sleep 1"),
                    dir.path(),
                    t,
                    &[],
                    &watch,
                )
            });
            let deadline = Instant::now() + Duration::from_secs(5);
            while live.tail().is_none_or(|t| !t.contains("warn")) {
                assert!(Instant::now() < deadline, "nothing written while it runs");
                std::thread::sleep(Duration::from_millis(20));
            }
            let seen = live.tail().unwrap();
            assert!(running.join().unwrap().is_ok());
            seen
        });
        assert_eq!(started, "half done\nstderr:\nwarn");
        live.remove();
        assert!(live.tail().is_none() && !live.stdout.exists());
        // A chatty command fills no disk.
        run(
            &sh("head -c 3000000 /dev/zero | tr '\\0' x"),
            dir.path(),
            t,
            &[],
            &watch,
        )
        .unwrap();
        let size = std::fs::metadata(&live.stdout).unwrap().len();
        assert!(size > LIVE_LIMIT && size < LIVE_LIMIT + 100, "{size}");
    }

    #[test]
    fn merged_output_keeps_its_order_and_its_bound() {
        let cwd = std::env::temp_dir();
        let t = Duration::from_secs(10);
        let c = capture(
            &sh("echo one; echo two >&2; echo three; exit 4"),
            &cwd,
            t,
            &[],
            Streams::Merged,
            1 << 20,
        )
        .unwrap();
        assert_eq!(String::from_utf8_lossy(&c.stdout), "one\ntwo\nthree\n");
        assert!(c.stderr.is_empty() && !c.truncated);
        assert_eq!(c.exit_code(), Some(4));
        assert_eq!(
            c.failure().unwrap().to_string(),
            "exit status 4: one\ntwo\nthree"
        );

        let c = capture(&sh("seq 1 100000"), &cwd, t, &[], Streams::Merged, 1000).unwrap();
        assert!(c.truncated && c.stdout.len() == 1000 && c.failure().is_none());
        assert!(c.stdout.ends_with(b"99999\n100000\n"));

        let c = capture(
            &sh("echo partial; sleep 5"),
            &cwd,
            Duration::from_millis(200),
            &[],
            Streams::Merged,
            1000,
        )
        .unwrap();
        assert!(matches!(c.ended, Ended::TimedOut(_)) && c.exit_code().is_none());
        assert_eq!(c.stdout, b"partial\n");
    }
}
