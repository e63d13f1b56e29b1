//! Crash points for the crash tests, active in debug builds only.
//!
//! `AGENT_HANDOVER_FAILPOINT=<name>` kills the process with SIGKILL when it
//! reaches the named point ([`hit`]); `AGENT_HANDOVER_FAILPOINT=after-op:N`
//! kills it right after its N-th durable file-system operation ([`after_op`]),
//! so a test can crash a handover at every step of its work in turn. With a
//! `panic:` prefix (`panic:<name>`, `panic:after-op:N`) the process panics
//! there instead, for tests of what a user sees after a bug;
//! `stall:<name>:<millis>` holds it at the named point for a while (so a test
//! can act, e.g. pull the PAUSE brake, meanwhile); `io-error:<name>:<errno>`
//! makes the operation at the named point fail with that OS error
//! ([`io_error`]), for tests of a full or read-only disk. Release builds
//! compile all of it to nothing.

use std::sync::atomic::{AtomicU64, Ordering};

const ENV: &str = "AGENT_HANDOVER_FAILPOINT";

static OPS: AtomicU64 = AtomicU64::new(0);

/// Die (or panic) here when the failpoint variable names this point; with
/// `stall:<name>:<millis>`, wait here that long instead.
pub fn hit(name: &str) {
    if !cfg!(debug_assertions) {
        return;
    }
    fail_if(|point| point == name);
    let Ok(value) = std::env::var(ENV) else {
        return;
    };
    let stall = value.strip_prefix("stall:").and_then(|rest| {
        rest.strip_prefix(name)?
            .strip_prefix(':')?
            .parse::<u64>()
            .ok()
    });
    if let Some(millis) = stall {
        std::thread::sleep(std::time::Duration::from_millis(millis));
    }
}

/// Fail with the OS error that `io-error:<name>:<errno>` names for this
/// point; `Ok` everywhere else.
pub fn io_error(name: &str) -> std::io::Result<()> {
    if !cfg!(debug_assertions) {
        return Ok(());
    }
    let errno = std::env::var(ENV).ok().and_then(|value| {
        value
            .strip_prefix("io-error:")?
            .strip_prefix(name)?
            .strip_prefix(':')?
            .parse::<i32>()
            .ok()
    });
    match errno {
        Some(errno) => Err(std::io::Error::from_raw_os_error(errno)),
        None => Ok(()),
    }
}

/// Count one durable operation (a write made durable, a removal, a directory
/// sync); die (or panic) if it is the one `after-op:N` names.
pub fn after_op() {
    if !cfg!(debug_assertions) {
        return;
    }
    let n = OPS.fetch_add(1, Ordering::SeqCst) + 1;
    fail_if(|point| {
        point
            .strip_prefix("after-op:")
            .and_then(|v| v.parse::<u64>().ok())
            == Some(n)
    });
}

/// SIGKILL the process if the variable names a point `is_here` accepts;
/// panic if it names one with the `panic:` prefix.
fn fail_if(is_here: impl Fn(&str) -> bool) {
    let Ok(value) = std::env::var(ENV) else {
        return;
    };
    match value.strip_prefix("panic:") {
        Some(point) if is_here(point) => panic!("failpoint {point} reached"),
        None if is_here(&value) => die(),
        _ => {}
    }
}

fn die() -> ! {
    let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
    std::process::abort()
}
