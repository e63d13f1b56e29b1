//! Crash points for the crash tests, active in debug builds only.
//!
//! `AGENT_HANDOVER_FAILPOINT=<name>` kills the process with SIGKILL when it
//! reaches the named point ([`hit`]); `AGENT_HANDOVER_FAILPOINT=after-op:N`
//! kills it right after its N-th durable file-system operation ([`after_op`]),
//! so a test can crash a handover at every step of its work in turn;
//! `stall:<name>:<millis>` holds it at the named point for a while. Release
//! builds compile all of them to nothing.

use std::sync::atomic::{AtomicU64, Ordering};

const ENV: &str = "AGENT_HANDOVER_FAILPOINT";

static OPS: AtomicU64 = AtomicU64::new(0);

/// Die here when the failpoint variable names this point; with
/// `stall:<name>:<millis>`, wait here that long instead (so a test can act,
/// e.g. pull the PAUSE brake, while the process stands at this point).
pub fn hit(name: &str) {
    if !cfg!(debug_assertions) {
        return;
    }
    let Ok(value) = std::env::var(ENV) else {
        return;
    };
    if value == name {
        die();
    }
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

/// Count one durable operation (a write made durable, a removal, a directory
/// sync); die if it is the one `after-op:N` names.
pub fn after_op() {
    if !cfg!(debug_assertions) {
        return;
    }
    let n = OPS.fetch_add(1, Ordering::SeqCst) + 1;
    let target = std::env::var(ENV)
        .ok()
        .and_then(|v| v.strip_prefix("after-op:")?.parse::<u64>().ok());
    if target == Some(n) {
        die();
    }
}

fn die() -> ! {
    let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
    std::process::abort()
}
