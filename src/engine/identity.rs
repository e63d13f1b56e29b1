//! Who and when, for records: this host, the acting user and process, run
//! ids and timestamps. The bottom of the engine: it imports nothing of it.

use chrono::{DateTime, Local, Utc};
use serde::{Deserialize, Serialize};

/// This machine's host name.
pub fn host_name() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// `user@host (pid N)`: who is acting, for records.
pub fn who() -> String {
    let user = std::env::var("USER")
        .unwrap_or_else(|_| format!("uid{}", rustix::process::getuid().as_raw()));
    format!("{user}@{} (pid {})", host_name(), std::process::id())
}

/// A new, time-sortable run id: `YYYYMMDD-HHMMSS-xxxx`.
pub fn new_run_id() -> String {
    let now = Local::now();
    let salt = (u64::from(std::process::id()) << 20) ^ u64::from(now.timestamp_subsec_nanos());
    format!("{}-{:04x}", now.format("%Y%m%d-%H%M%S"), salt % 0xffff)
}

/// Now, as Python's `datetime.now(timezone.utc).isoformat()` writes it (0.5.1's format).
pub fn iso_now() -> String {
    Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, false)
}

/// The process that executes (or executed) a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owner {
    /// Process id.
    pub pid: u32,
    /// Host name.
    pub host: String,
}

impl Owner {
    /// This process.
    pub fn current() -> Self {
        Owner {
            pid: std::process::id(),
            host: host_name(),
        }
    }

    /// Whether the owner is still running (only knowable on this host).
    /// A process killed but not yet reaped by its parent (a zombie) has
    /// ended: it answers signals but runs nothing and holds no lock.
    pub fn is_alive(&self) -> Option<bool> {
        if self.host != host_name() {
            return None;
        }
        let pid = rustix::process::Pid::from_raw(self.pid as i32)?;
        Some(rustix::process::test_kill_process(pid).is_ok() && !is_zombie(self.pid))
    }
}

/// Whether `pid` has exited but not been reaped (its state as the system
/// says it, [`crate::base::procs`]; where it does not, `false`).
fn is_zombie(pid: u32) -> bool {
    crate::base::procs::get(pid).is_some_and(|p| p.zombie)
}

/// Now, by the clock the kernel stamps files with (on Linux the coarse
/// real-time clock, which lags the precise one by up to a tick), so that a
/// file written after this moment never carries an earlier time.
pub fn file_clock_now() -> DateTime<Utc> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::RealtimeCoarse);
        if let Some(at) = DateTime::from_timestamp(t.tv_sec, t.tv_nsec as u32) {
            return at;
        }
    }
    Utc::now()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_sort_by_time_and_owners_know_if_they_live() {
        let id = new_run_id();
        assert_eq!(id.len(), "YYYYMMDD-HHMMSS-xxxx".len(), "{id}");
        assert!(Owner::current().is_alive() == Some(true));
        let gone = Owner {
            pid: i32::MAX as u32,
            host: host_name(),
        };
        assert_eq!(gone.is_alive(), Some(false));
    }

    #[test]
    fn a_killed_but_unreaped_owner_is_not_alive() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let owner = Owner {
            pid: child.id(),
            host: host_name(),
        };
        assert_eq!(owner.is_alive(), Some(true));
        rustix::process::kill_process(
            rustix::process::Pid::from_raw(child.id() as i32).unwrap(),
            rustix::process::Signal::KILL,
        )
        .unwrap();
        // Not reaped yet: a zombie until `wait`.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while owner.is_alive() != Some(false) {
            assert!(std::time::Instant::now() < deadline, "still alive");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        child.wait().unwrap();
    }
}
