//! Links the `agent-handover` binary at a fixed address on Linux (not as a
//! position-independent executable). `check` runs at every session start and
//! is held to 1.5x a minimal Rust program (benches/cli.rs); a PIE has its
//! ~17,000 pointers in static tables relocated by the loader at every start,
//! writing ~75 pages that were otherwise never touched, which was a third of
//! `check`'s page faults. The code itself stays position-independent.
//!
//! Also gives `--version` the git commit the binary was built from, as
//! `AGENT_HANDOVER_VERSION` ("0.6.0 (commit 0123456789ab)", or the bare
//! version when no commit is known).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let linux_gnu = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if linux_gnu {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
    println!("cargo::rerun-if-changed=build.rs");

    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let commit = git_commit(&manifest_dir).or_else(|| packaged_commit(&manifest_dir));
    match commit {
        Some(commit) => {
            println!("cargo::rustc-env=AGENT_HANDOVER_VERSION={version} (commit {commit})")
        }
        None => println!("cargo::rustc-env=AGENT_HANDOVER_VERSION={version}"),
    }
}

/// The commit checked out, when the crate is the top of a git checkout (not
/// when it is an unpacked .crate that merely lies inside some repository,
/// such as target/package/ or a home directory under git). Asks cargo to run
/// this again when HEAD moves: HEAD itself and the branch it points to, only
/// through paths that exist (a missing one would rerun every build).
fn git_commit(dir: &Path) -> Option<String> {
    let toplevel = git(dir, &["rev-parse", "--show-toplevel"])?;
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same(Path::new(&toplevel), dir) {
        return None;
    }
    let commit = git(dir, &["rev-parse", "--short=12", "HEAD"])?;
    let git_path = |name: &str| git(dir, &["rev-parse", "--git-path", name]).map(|p| dir.join(p));
    let mut watched = vec![git_path("HEAD")];
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        let loose = git_path(&branch);
        if loose.as_deref().is_some_and(Path::exists) {
            watched.push(loose);
        } else {
            // A packed branch: its loose file appears at the next commit,
            // in a folder that exists (refs/heads/ at least).
            watched.push(git_path("packed-refs"));
            watched.push(loose.and_then(|p| {
                p.ancestors()
                    .skip(1)
                    .find(|a| a.is_dir())
                    .map(Path::to_path_buf)
            }));
        }
    }
    for path in watched.into_iter().flatten().filter(|p| p.exists()) {
        println!("cargo::rerun-if-changed={}", path.display());
    }
    Some(commit)
}

/// The commit `cargo package` recorded in .cargo_vcs_info.json, when building
/// from a .crate (`cargo install agent-handover`).
fn packaged_commit(dir: &Path) -> Option<String> {
    let info = std::fs::read_to_string(dir.join(".cargo_vcs_info.json")).ok()?;
    let rest = &info[info.find("\"sha1\"")? + "\"sha1\"".len()..];
    let start = rest.find('"')? + 1;
    let sha: String = rest[start..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    (sha.len() >= 12).then(|| sha[..12].to_string())
}

/// `git ARGS` run in `dir`: its trimmed stdout, or None if git is missing or fails.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}
