//! The machine's processes, as the engine asks about them: a process
//! group's members, whether a process is a zombie, which git processes work
//! in a directory. Linux reads `/proc`; macOS has none and asks `ps` (BSD
//! `ps`: `-o pid=,pgid=,stat=,ucomm=`, `-ww -o args=`) and `lsof` (`-d cwd
//! -Fn`), as it prints them (ps(1) and lsof(8) of macOS; the parsers below
//! are tested on that output). Elsewhere nothing is known: every answer is
//! `None`, and the callers say what they do without it.

use std::path::{Path, PathBuf};

/// One process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proc {
    /// Its id.
    pub pid: u32,
    /// Its process group.
    pub pgid: u32,
    /// Whether it has exited but was not reaped (`Z`; Linux also `X`).
    pub zombie: bool,
    /// Its command's name (Linux `comm`, macOS `ucomm`: at most 15 or 16
    /// characters).
    pub name: String,
}

/// Every process, or `None` when the system does not say.
pub fn all() -> Option<Vec<Proc>> {
    imp::all()
}

/// Process `pid`, or `None` when it is gone or the system does not say.
pub fn get(pid: u32) -> Option<Proc> {
    imp::get(pid)
}

/// Whether process `pid` works in `root`: its working directory, or a word
/// of its command line, is inside it (`root` canonical).
pub fn works_in(pid: u32, root: &Path) -> bool {
    imp::works_in(pid, root)
}

/// A `/proc/<pid>/stat` line: `pid (comm) S ppid pgrp ...`, where comm may
/// hold spaces and parentheses (the state follows the last `)`).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn parse_stat(stat: &str) -> Option<Proc> {
    let (head, rest) = stat.rsplit_once(')')?;
    let (pid, name) = head.split_once(" (")?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    let pgid = fields.nth(1)?.parse().ok()?;
    Some(Proc {
        pid: pid.trim().parse().ok()?,
        pgid,
        zombie: matches!(state.chars().next(), Some('Z' | 'X' | 'x')),
        name: name.to_string(),
    })
}

/// The lines of `ps -o pid=,pgid=,stat=,ucomm=` (macOS): right-aligned
/// numbers, the state letters (`Ss`, `R+`, `Z`, `U`...), the name last (it
/// may hold spaces). A line that does not read so is skipped.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
fn parse_ps(text: &str) -> Vec<Proc> {
    text.lines()
        .filter_map(|line| {
            let mut rest = line.trim_start();
            let mut word = || {
                let (w, r) = rest.split_once(char::is_whitespace)?;
                rest = r.trim_start();
                Some(w)
            };
            let pid = word()?.parse().ok()?;
            let pgid = word()?.parse().ok()?;
            let state = word()?;
            let name = rest.trim_end();
            (!name.is_empty()).then(|| Proc {
                pid,
                pgid,
                zombie: state.starts_with('Z'),
                name: name.to_string(),
            })
        })
        .collect()
}

/// The working directory in `lsof -a -p PID -d cwd -Fn`'s output (macOS):
/// one field a line, `p<pid>`, `f<fd>`, `n<path>`.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
fn parse_lsof_cwd(text: &str) -> Option<PathBuf> {
    let mut in_cwd = false;
    for line in text.lines() {
        match line.split_at_checked(1) {
            Some(("f", fd)) => in_cwd = fd == "cwd",
            Some(("n", path)) if in_cwd => return Some(PathBuf::from(path)),
            _ => {}
        }
    }
    None
}

#[cfg(target_os = "linux")]
mod imp {
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    use super::{Proc, parse_stat};

    fn stat(pid: u32) -> Option<Proc> {
        parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
    }

    pub fn all() -> Option<Vec<Proc>> {
        let entries = std::fs::read_dir("/proc").ok()?;
        Some(
            entries
                .flatten()
                .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
                .filter_map(stat)
                .collect(),
        )
    }

    pub fn get(pid: u32) -> Option<Proc> {
        stat(pid)
    }

    pub fn works_in(pid: u32, root: &Path) -> bool {
        let dir = Path::new("/proc").join(pid.to_string());
        std::fs::read_link(dir.join("cwd")).is_ok_and(|cwd| cwd.starts_with(root))
            || std::fs::read(dir.join("cmdline")).is_ok_and(|cmd| {
                cmd.split(|b| *b == 0)
                    .any(|arg| Path::new(std::ffi::OsStr::from_bytes(arg)).starts_with(root))
            })
    }
}

#[cfg(target_os = "macos")]
mod imp {
    use std::path::Path;
    use std::process::{Command, Stdio};

    use super::{Proc, parse_lsof_cwd, parse_ps};

    /// What `program args` printed, when it ran and succeeded.
    fn output(program: &str, args: &[&str]) -> Option<String> {
        let out = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    const COLUMNS: &str = "pid=,pgid=,stat=,ucomm=";

    pub fn all() -> Option<Vec<Proc>> {
        Some(parse_ps(&output("/bin/ps", &["-A", "-o", COLUMNS])?))
    }

    pub fn get(pid: u32) -> Option<Proc> {
        let pid = pid.to_string();
        // `ps -p` of a pid that is gone exits 1: `None`, as wanted.
        parse_ps(&output("/bin/ps", &["-o", COLUMNS, "-p", &pid])?)
            .into_iter()
            .next()
    }

    pub fn works_in(pid: u32, root: &Path) -> bool {
        let pid = pid.to_string();
        let cwd = output("/usr/sbin/lsof", &["-a", "-p", &pid, "-d", "cwd", "-Fn"]);
        if cwd
            .as_deref()
            .and_then(parse_lsof_cwd)
            .is_some_and(|cwd| cwd.starts_with(root))
        {
            return true;
        }
        // The command line comes back as one string, its words joined by
        // spaces: a path inside `root` is in it when `root` is.
        let root = root.to_string_lossy();
        output("/bin/ps", &["-ww", "-o", "args=", "-p", &pid])
            .is_some_and(|args| args.contains(root.as_ref()))
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
mod imp {
    use std::path::Path;

    use super::Proc;

    pub fn all() -> Option<Vec<Proc>> {
        None
    }

    pub fn get(_pid: u32) -> Option<Proc> {
        None
    }

    pub fn works_in(_pid: u32, _root: &Path) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_linux_stat_line_reads_with_spaces_and_parentheses_in_its_name() {
        let p = parse_stat("4242 (tmux: server (1)) S 1 4240 4240 0 -1 4194560 12 0").unwrap();
        assert_eq!(
            p,
            Proc {
                pid: 4242,
                pgid: 4240,
                zombie: false,
                name: "tmux: server (1)".into(),
            }
        );
        assert!(parse_stat("77 (sleep) Z 1 77 77 0").unwrap().zombie);
        assert!(parse_stat("78 (sleep) X 1 78 78 0").unwrap().zombie);
        assert_eq!(parse_stat("garbage"), None);
    }

    /// `ps -A -o pid=,pgid=,stat=,ucomm=` as macOS 15 prints it: numbers
    /// right-aligned to the widest, BSD state letters, names with spaces.
    #[test]
    fn macos_ps_output_reads_pid_group_state_and_name() {
        let text = "    1     1 Ss   launchd\n  412   412 S    WindowServer\n 5120  5120 Ss   zsh\n 5231  5231 S+   git\n 5232  5231 Z+   git-remote-https\n 6001  6001 S    Google Chrome He\n\n   garbage line\n";
        let procs = parse_ps(text);
        assert_eq!(procs.len(), 6, "{procs:?}");
        assert_eq!(
            procs[3],
            Proc {
                pid: 5231,
                pgid: 5231,
                zombie: false,
                name: "git".into(),
            }
        );
        assert_eq!(procs[4].pgid, 5231);
        assert!(procs[4].zombie, "Z+ is a zombie");
        assert_eq!(procs[5].name, "Google Chrome He");
        assert!(procs.iter().filter(|p| p.pid != 5232).all(|p| !p.zombie));
    }

    /// `lsof -a -p PID -d cwd -Fn` as macOS prints it (a path with spaces).
    #[test]
    fn macos_lsof_output_names_the_working_directory() {
        let text = "p5231\nfcwd\nn/Users/me/My Projects/app\n";
        assert_eq!(
            parse_lsof_cwd(text),
            Some(PathBuf::from("/Users/me/My Projects/app"))
        );
        assert_eq!(parse_lsof_cwd("p5231\nftxt\nn/usr/bin/git\n"), None);
        assert_eq!(parse_lsof_cwd(""), None);
    }

    /// On this machine's own system, the answers are its processes.
    #[test]
    fn this_process_is_found_in_its_group() {
        let me = std::process::id();
        let mine = get(me).expect("this process is known");
        assert!(!mine.zombie);
        let group = rustix::process::getpgrp().as_raw_nonzero().get() as u32;
        assert_eq!(mine.pgid, group);
        assert!(all().unwrap().iter().any(|p| p.pid == me));
    }
}
