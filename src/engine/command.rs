//! Running a `command` step: a program with arguments (no shell), its output
//! captured (last 4 KiB of each stream), run in its own process group that is
//! killed whole after a timeout, and — on Linux — killed with its parent, so a
//! crashed handover does not leave the step running while a resumer starts it
//! again. (Only the direct child gets that parent-death signal: a step that
//! forks long-lived grandchildren should be marked non-idempotent.)

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const TAIL_BYTES: usize = 4096;

/// Run `argv` in `cwd` with extra environment `env`.
///
/// `Ok` carries a one-line summary; `Err` the reason it failed, with the tail
/// of its stderr (or stdout) so the error is actionable.
pub fn run(
    argv: &[String],
    cwd: &Path,
    timeout: Duration,
    env: &[(&str, &str)],
) -> Result<String, String> {
    let (program, args) = argv.split_first().ok_or("empty argv")?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .envs(env.iter().copied());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    die_with_parent(&mut cmd);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {program:?} in {}: {e}", cwd.display()))?;
    let stdout = tail_reader(child.stdout.take());
    let stderr = tail_reader(child.stderr.take());
    let status = wait_with_timeout(&mut child, timeout);
    let (out, err) = (join_tail(stdout), join_tail(stderr));
    match status {
        None => Err(format!(
            "timed out after {}s and was killed",
            timeout.as_secs()
        )),
        Some(Ok(s)) if s.success() => Ok(format!("{program} exited 0")),
        Some(Ok(s)) => {
            let detail = if err.trim().is_empty() { out } else { err };
            let detail = detail.trim();
            let code = s.code().map_or_else(
                || "killed by a signal".to_string(),
                |c| format!("exit status {c}"),
            );
            Err(if detail.is_empty() {
                code
            } else {
                format!("{code}: {detail}")
            })
        }
        Some(Err(e)) => Err(format!("waiting for {program:?}: {e}")),
    }
}

fn wait_with_timeout(
    child: &mut Child,
    timeout: Duration,
) -> Option<std::io::Result<std::process::ExitStatus>> {
    let deadline = Instant::now() + timeout;
    let mut nap = Duration::from_micros(500);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(Ok(status)),
            Ok(None) if Instant::now() >= deadline => {
                kill_group(child);
                let _ = child.wait();
                return None;
            }
            Ok(None) => {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(20));
            }
            Err(e) => return Some(Err(e)),
        }
    }
}

/// Kill the step's whole process group (a shell's children too), so the
/// output pipes close and nothing of a timed-out step lingers.
fn kill_group(child: &mut Child) {
    if let Some(pgid) = rustix::process::Pid::from_raw(child.id() as i32) {
        let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
}

fn tail_reader<R: Read + Send + 'static>(stream: Option<R>) -> Option<JoinHandle<Vec<u8>>> {
    let mut stream = stream?;
    Some(std::thread::spawn(move || {
        let mut tail = Vec::new();
        let mut buf = [0u8; 8192];
        while let Ok(n) = stream.read(&mut buf) {
            if n == 0 {
                break;
            }
            tail.extend_from_slice(&buf[..n]);
            if tail.len() > 2 * TAIL_BYTES {
                tail.drain(..tail.len() - TAIL_BYTES);
            }
        }
        let start = tail.len().saturating_sub(TAIL_BYTES);
        tail.split_off(start)
    }))
}

fn join_tail(handle: Option<JoinHandle<Vec<u8>>>) -> String {
    handle
        .and_then(|h| h.join().ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
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

    #[test]
    fn success_failure_and_timeout() {
        let cwd = std::env::temp_dir();
        let t = Duration::from_secs(10);
        assert!(run(&sh("echo hi"), &cwd, t, &[]).is_ok());
        let err = run(&sh("echo out; echo 'real error' >&2; exit 3"), &cwd, t, &[]).unwrap_err();
        assert_eq!(err, "exit status 3: real error");
        let err = run(&sh("sleep 5"), &cwd, Duration::from_millis(100), &[]).unwrap_err();
        assert!(err.contains("timed out"), "{err}");
        let err = run(&["/no/such/program".into()], &cwd, t, &[]).unwrap_err();
        assert!(err.contains("cannot start"), "{err}");
    }

    #[test]
    fn passes_environment_and_keeps_only_the_tail() {
        let cwd = std::env::temp_dir();
        let err = run(
            &sh("head -c 100000 /dev/zero | tr '\\0' x >&2; echo \"$STEP\" >&2; exit 1"),
            &cwd,
            Duration::from_secs(10),
            &[("STEP", "tests")],
        )
        .unwrap_err();
        assert!(
            err.len() < TAIL_BYTES + 64 && err.ends_with("tests"),
            "{}",
            &err[err.len() - 20..]
        );
    }
}
