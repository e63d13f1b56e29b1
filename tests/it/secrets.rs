//! Secrets stop at the door: a secret (an AWS-style key, a PEM private key
//! block, a password written out in prose) in a run's note, in an inbox
//! message, or in a hand-edited memory file that a git publish would commit
//! is refused with exit code 8 and a message that names the kind and line
//! with the secret redacted, and nothing is written, sent or committed.
//! Afterwards every command's output, every file under `.agent-handover/`,
//! `memory/` and `messages/`, and `git log -p --all` of the clone and of
//! the bare remote are searched: the raw secret is nowhere. `--allow-secret`
//! lets one through and the run's record says so; a secret already on disk
//! is redacted by `brief`, `inbox list/read` and `state list/diff`.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{self, Project, config, git, json, read_dir_sorted, stderr, stdout};
use crate::secret_corpus;

/// Exit code of a refused secret (README's table, `exit_code::SECRET_FOUND`).
const SECRET_FOUND: i32 = 8;

/// A secret as it is written into a note, and what of it must never show.
struct Secret {
    /// What the detector calls it.
    kind: &'static str,
    /// The line(s) written; the secret starts on the first one.
    text: String,
    /// Parts of the raw secret that no output or file may contain.
    raw: Vec<String>,
}

/// The three secrets, assembled at run time so this source holds no
/// token-shaped string.
fn secrets() -> Vec<Secret> {
    let aws = format!("{}{}", "AKIA", "Q3ZT7VXW2N8RJ5KD");
    let pem_body = [
        format!("{}{}", "MIIEowIBAAKCAQEAx9kq3Zp7Lr2Wv8Tn", "Yb0cPq"),
        format!("{}{}", "bmQ4Yk1sZXRtZWluNDI0MjQyNDI0Mg", "=="),
    ];
    let (begin, end) = (
        format!("-----BEGIN RSA {}-----", "PRIVATE KEY"),
        format!("-----END RSA {}-----", "PRIVATE KEY"),
    );
    let password = format!("{}{}", "Gr4ss-Hop", "per!");
    vec![
        Secret {
            kind: "AWS access key ID",
            text: format!("Deploy with {aws} for now."),
            raw: vec![aws.clone()],
        },
        Secret {
            kind: "private key",
            text: format!("{begin}\n{}\n{}\n{end}", pem_body[0], pem_body[1]),
            raw: pem_body.to_vec(),
        },
        Secret {
            kind: "password",
            text: format!("The staging password is {password}"),
            raw: vec![password.clone(), password.trim_end_matches('!').to_string()],
        },
    ]
}

/// A handoff with `secret` on line 4.
fn note_with(secret: &Secret) -> String {
    format!(
        "# Session\n## Status\nDeployed the parser.\n{}\n## Next step\nReview the parser.\n",
        secret.text
    )
}

/// The project, everything its commands printed, and the repositories to search.
struct Door {
    project: Project,
    /// Every stdout and stderr of every command run, labelled.
    transcript: Vec<(String, String)>,
    /// The bare remote, when the project publishes with git.
    remote: Option<tempfile::TempDir>,
}

impl Door {
    fn new(config_text: &str) -> Self {
        Door {
            project: Project::new(config_text),
            transcript: Vec::new(),
            remote: None,
        }
    }

    /// A clone of a bare remote, publishing `memory/` with git.
    fn with_git(extra_config: &str) -> Self {
        let remote = tempfile::tempdir().unwrap();
        git(
            remote.path(),
            &["init", "-q", "--bare", "--initial-branch=main"],
        );
        let config = format!(
            "[handover]\nmemory_dir = \"memory\"\ntag = \"t\"\n{extra_config}\n[backend]\ntype = \"git\"\nmessage = \"handover\"\n"
        );
        let mut door = Door::new(&config);
        let d = door.project.dir.path();
        git(d, &["init", "-q", "--initial-branch=main"]);
        git(d, &["config", "user.name", "Agent"]);
        git(d, &["config", "user.email", "agent@example.com"]);
        std::fs::write(d.join(".gitignore"), ".agent-handover/\nhome/\n").unwrap();
        let url = format!("file://{}", remote.path().display());
        git(d, &["remote", "add", "origin", &url]);
        git(d, &["add", ".gitignore", "handover.toml"]);
        git(d, &["commit", "-qm", "init"]);
        git(d, &["push", "-q", "origin", "main"]);
        door.remote = Some(remote);
        door
    }

    /// Run `agent-handover <args>`, keeping its output for the final search.
    fn run(&mut self, args: &[&str]) -> Output {
        let o = self.project.run(args);
        self.keep(args, &o);
        o
    }

    /// Run it with `input` on stdin.
    fn run_with_stdin(&mut self, args: &[&str], input: &str) -> Output {
        let o = self
            .project
            .cmd()
            .args(args)
            .write_stdin(input)
            .output()
            .unwrap();
        self.keep(args, &o);
        o
    }

    fn keep(&mut self, args: &[&str], o: &Output) {
        let label = format!("agent-handover {}", args.join(" "));
        self.transcript
            .push((format!("{label} (stdout)"), stdout(o)));
        self.transcript
            .push((format!("{label} (stderr)"), stderr(o)));
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.project.path(rel)
    }

    /// Search every output, every file under `.agent-handover/`, `memory/`
    /// and `messages/`, and the git history of the clone and the remote for
    /// any part of `secret`.
    fn assert_never_leaked(&self, secret: &Secret) {
        let mut haystacks = self.transcript.clone();
        for dir in [".agent-handover", "memory", "messages"] {
            for file in files_under(&self.path(dir)) {
                let bytes = std::fs::read(&file).unwrap();
                haystacks.push((
                    file.display().to_string(),
                    String::from_utf8_lossy(&bytes).into_owned(),
                ));
            }
        }
        if let Some(remote) = &self.remote {
            let clone = self.project.dir.path();
            haystacks.push(("git log -p --all (clone)".into(), git_log_all(clone)));
            haystacks.push((
                "git log -p --all (remote)".into(),
                git_log_all(remote.path()),
            ));
        }
        for raw in &secret.raw {
            for (what, text) in &haystacks {
                assert!(
                    !text.contains(raw.as_str()),
                    "the {} leaked into {what}:\n{text}",
                    secret.kind
                );
            }
        }
    }
}

/// Every commit of every ref with its patch (empty history is no error).
fn git_log_all(dir: &Path) -> String {
    git(dir, &["log", "-p", "--all", "--format=%H %s%n%b"])
}

/// Every regular file under `dir`, recursively (none if it does not exist).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in read_dir_sorted(&d) {
            if e.is_dir() {
                stack.push(e);
            } else {
                found.push(e);
            }
        }
    }
    found
}

/// The refusal says what holds the secret, its kind and line, redacted.
fn assert_refused(o: &Output, what: &str, secret: &Secret, line: usize) {
    assert_eq!(
        o.status.code(),
        Some(SECRET_FOUND),
        "stdout: {}\nstderr: {}",
        stdout(o),
        stderr(o)
    );
    let err = stderr(o);
    let expected = format!("{what} holds a secret ({}) on line {line}", secret.kind);
    assert!(err.contains(&expected), "expected {expected:?} in: {err}");
    assert!(err.contains("[REDACTED]"), "{err}");
}

#[test]
fn a_secret_in_a_run_note_is_refused_and_nothing_is_written() {
    for secret in secrets() {
        let mut door = Door::with_git("");
        let note = note_with(&secret);
        let o = door.run(&["run", "--config", "handover.toml", "--note", &note]);
        assert_refused(&o, "the session note", &secret, 4);
        assert!(stderr(&o).contains("--allow-secret"), "{}", stderr(&o));
        // The same through --json (stdout gets the error object) and stdin.
        let o = door.run(&["--json", "run", "--note", &note]);
        assert_eq!(o.status.code(), Some(SECRET_FOUND));
        let answer = json(&o);
        assert_eq!(answer["kind"], "secret_found");
        assert_eq!(answer["exit_code"], SECRET_FOUND);
        let o = door.run_with_stdin(&["run", "--note-file", "-"], &note);
        assert_refused(&o, "the session note", &secret, 4);
        // A secret in --current-state alone is refused as well.
        let o = door.run(&["run", "--note", "clean", "--current-state", &note]);
        assert_refused(&o, "the current state", &secret, 4);

        assert!(
            !door.path(".agent-handover").exists(),
            "nothing staged, no history, not even run.lock"
        );
        assert!(!door.path("memory").exists(), "no note, no current state");
        assert_eq!(door.project.check(), 0, "no handover in progress");
        door.assert_never_leaked(&secret);
    }
}

#[test]
fn a_secret_in_an_inbox_message_is_refused_and_nothing_is_sent() {
    for secret in secrets() {
        let mut door = Door::new(&config(""));
        let body = note_with(&secret);
        let o = door.run(&[
            "inbox", "send", "--from", "codex", "--to", "claude", "--body", &body,
        ]);
        assert_refused(&o, "the message body", &secret, 4);
        let o = door.run_with_stdin(
            &["inbox", "send", "--from", "codex", "--to", "shared"],
            &body,
        );
        assert_refused(&o, "the message body", &secret, 4);
        // A subject is one line, and a key's BEGIN line alone holds no key
        // (the blind-labelled corpus rates it so).
        if secret.kind != "private key" {
            let subject = format!("--subject={}", secret.text.lines().next().unwrap());
            let o = door.run(&[
                "--json",
                "inbox",
                "send",
                "--from",
                "codex",
                "--to",
                "claude",
                &subject,
                "--body",
                "see the subject",
            ]);
            assert_eq!(o.status.code(), Some(SECRET_FOUND), "{}", stderr(&o));
            assert_eq!(json(&o)["kind"], "secret_found");
            assert!(
                !door.path("messages").exists(),
                "nothing sent, no queue created"
            );
        }
        let o = door.run(&["inbox", "list", "--all"]);
        assert!(stdout(&o).contains("no messages"), "{}", stdout(&o));
        door.assert_never_leaked(&secret);
    }
}

#[test]
fn a_hand_edited_memory_file_holding_a_secret_is_not_published() {
    for secret in secrets() {
        // Current state kept by hand: the handover writes the session note and publishes.
        let mut door = Door::with_git("steps = [\"session_note\", \"publish\"]\n");
        let state = door.path("memory/layer2/current-state.md");
        std::fs::create_dir_all(state.parent().unwrap()).unwrap();
        std::fs::write(&state, "# Current state\n\nParser done.\n").unwrap();
        let o = door.run(&["run", "--note", "first session"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let published = git(door.project.dir.path(), &["rev-parse", "HEAD"]);

        std::fs::write(&state, note_with(&secret)).unwrap();
        let o = door.run(&["run", "--note", "second session"]);
        assert_refused(&o, "memory/layer2/current-state.md", &secret, 4);
        assert!(
            stderr(&o).contains("nothing was committed"),
            "{}",
            stderr(&o)
        );
        let d = door.project.dir.path().to_path_buf();
        let d = d.as_path();
        assert_eq!(git(d, &["rev-parse", "HEAD"]), published, "no commit");
        assert_eq!(
            git(d, &["diff", "--cached", "--name-only"]),
            "",
            "nothing staged"
        );
        let remote = door.remote.as_ref().unwrap().path();
        assert_eq!(git(remote, &["rev-parse", "main"]), published, "no push");

        // The run waits, its publish step failed with the redacted reason.
        assert_eq!(door.project.check(), 1);
        let o = door.run(&["--json", "status", "-v"]);
        let publish = json(&o)["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "publish")
            .cloned()
            .unwrap();
        assert_eq!(publish["state"], "failed");
        assert!(
            publish["last_error"]
                .as_str()
                .unwrap()
                .contains("[REDACTED]"),
            "{publish}"
        );
        door.run(&["status", "-v"]);
        door.run(&["history"]);
        // Resuming with the secret still there is refused again.
        let o = door.run(&["resume"]);
        assert_refused(&o, "memory/layer2/current-state.md", &secret, 4);

        // Take it out: the handover finishes and publishes.
        std::fs::write(&state, "# Current state\n\nParser done; key rotated.\n").unwrap();
        let o = door.run(&["resume"]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_ne!(git(d, &["rev-parse", "HEAD"]), published);
        assert_eq!(door.project.check(), 2);
        door.assert_never_leaked(&secret);
    }
}

#[test]
fn allow_secret_lets_a_run_through_and_the_record_says_so() {
    let secrets = secrets();
    let secret = &secrets[2];
    let mut door = Door::new(&config(""));
    let note = note_with(secret);
    let o = door.run(&["run", "--note", &note, "--allow-secret"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let cp = door.project.checkpoint_json();
    assert_eq!(cp["allow_secret"], true, "{cp}");
    let run_id = cp["run_id"].as_str().unwrap().to_string();
    let record: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(door.path(&format!(".agent-handover/runs/{run_id}.record.json")))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(record["allow_secret"], true);
    let o = door.run(&["history"]);
    assert!(
        stdout(&o).contains("secrets allowed (--allow-secret)"),
        "{}",
        stdout(&o)
    );
    let o = door.run(&["--json", "history"]);
    assert_eq!(json(&o)["runs"][0]["allow_secret"], true);
    let o = door.run(&["status", "-v"]);
    assert!(stdout(&o).contains("secrets allowed"), "{}", stdout(&o));
    // It is on disk as written; every view of it is redacted.
    assert!(
        door.project
            .current_state()
            .unwrap()
            .contains(&secret.raw[0])
    );
    let views: &[&[&str]] = &[
        &["brief", "--agent", "claude"],
        &["--json", "brief", "--agent", "claude"],
        &["lint"],
        &["--json", "lint"],
    ];
    for args in views {
        let o = door.run(args);
        assert!(
            stdout(&o).contains("[REDACTED]"),
            "{args:?}: {}",
            stdout(&o)
        );
        for raw in &secret.raw {
            assert!(
                !stdout(&o).contains(raw.as_str()),
                "{args:?}: {}",
                stdout(&o)
            );
        }
    }

    // The next run, clean, is not held back by the earlier one; it allows nothing.
    let o = door.run(&["run", "--note", "key rotated, note clean"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(door.project.checkpoint_json().get("allow_secret"), None);
    let o = door.run(&["--json", "history"]);
    let runs = json(&o)["runs"].clone();
    assert_eq!(runs[0].get("allow_secret"), None);
    assert_eq!(runs[1]["allow_secret"], true);

    // A message with --allow-secret is sent as written and listed redacted.
    let body = note_with(secret);
    let o = door.run(&[
        "--json",
        "inbox",
        "send",
        "--from",
        "codex",
        "--to",
        "claude",
        "--body",
        &body,
        "--allow-secret",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let sent = json(&o);
    assert!(
        sent["preview"].as_str().unwrap().contains("[REDACTED]"),
        "{sent}"
    );
    let queue = files_under(&door.path("messages/for_claude"));
    assert_eq!(queue.len(), 1);
    assert!(
        std::fs::read_to_string(&queue[0])
            .unwrap()
            .contains(&secret.raw[0])
    );
    let o = door.run(&["inbox", "list", "--agent", "claude"]);
    assert!(!stdout(&o).contains(&secret.raw[0]), "{}", stdout(&o));
}

#[test]
fn secrets_already_on_disk_are_redacted_wherever_memory_is_shown() {
    let mut door = Door::new(&config(""));
    let o = door.run(&["run", "--note", "# Current state\n\nAll clean.\n"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Written by hand, past every door: the current state (as failed
    // approaches, which `draft` carries over) and two messages.
    let secrets = secrets();
    let hand: String = secrets.iter().map(|s| format!("- {}\n", s.text)).collect();
    std::fs::write(
        door.path("memory/layer2/current-state.md"),
        format!("# Current state\n\nAll clean.\n\n## Failed approaches\n{hand}"),
    )
    .unwrap();
    std::fs::create_dir_all(door.path("messages/for_claude")).unwrap();
    std::fs::write(
        door.path("messages/for_claude/creds.md"),
        format!("---\nfrom: ops\nsubject: {}\n---\n{hand}", secrets[0].text),
    )
    .unwrap();
    std::fs::write(door.path("messages/for_claude/dropped.txt"), &hand).unwrap();

    // (command, whether it shows memory text: then it shows the redaction)
    let views: &[(&[&str], bool)] = &[
        (&["brief", "--agent", "claude"], true),
        (&["--json", "brief", "--agent", "claude"], true),
        (&["inbox", "list", "--agent", "claude"], true),
        (&["--json", "inbox", "list", "--agent", "claude"], true),
        (&["inbox", "read", "creds"], true),
        (&["--json", "inbox", "read", "creds"], true),
        (&["inbox", "read", "dropped.txt"], true),
        (&["--json", "inbox", "read", "dropped.txt"], true),
        (&["state", "list"], false),
        (&["--json", "state", "list"], false),
        (&["state", "diff"], true),
        (&["state", "diff", "--side-by-side"], true),
        (&["--json", "state", "diff"], true),
        (&["--json", "state", "diff", "--side-by-side"], true),
        (&["draft", "--agent", "claude"], true),
    ];
    for &(args, shows_text) in views {
        let o = door.run(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(
            !shows_text || stdout(&o).contains("[REDACTED]"),
            "{args:?} shows the redaction: {}",
            stdout(&o)
        );
        for secret in &secrets {
            for raw in &secret.raw {
                assert!(
                    !stdout(&o).contains(raw.as_str()) && !stderr(&o).contains(raw.as_str()),
                    "{args:?} shows the {}: {}",
                    secret.kind,
                    stdout(&o)
                );
            }
        }
    }
}

/// The remote's branch and whether any of `raw` is in its history (file
/// names, messages, authors and contents).
fn remote_holds(door: &Door, raw: &str) -> (String, bool) {
    let remote = door.remote.as_ref().unwrap().path();
    let log = git(
        remote,
        &[
            "log",
            "--all",
            "-p",
            "--format=%H %an <%ae> %s%n%b",
            "--name-only",
        ],
    );
    (git(remote, &["rev-parse", "main"]), log.contains(raw))
}

/// Issue 26, items 1 to 3: a secret in the config's tag or commit message,
/// in a file's name, in a UTF-16 file, or in a compressed file, never
/// reaches the remote: the tag and message are refused at the `run` door
/// (exit 8, nothing written), the rest at the publish door (nothing
/// committed or pushed); each comes through once taken out.
#[test]
fn a_secret_in_a_name_a_message_an_encoding_or_an_archive_never_reaches_the_remote() {
    let token = format!("{}{}", "ghp_", "u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d");
    let key = format!("{}{}", "AKIA", "Q3ZT7VXW2N8RJ5KD");

    // 1 and 2: the config's tag, then its commit message.
    for (from, to, what) in [
        (
            "tag = \"t\"",
            format!("tag = \"{token}\""),
            "[handover].tag",
        ),
        (
            "message = \"handover\"",
            format!("message = \"handover {key}\""),
            "[backend].message",
        ),
    ] {
        let mut door = Door::with_git("");
        let published = remote_holds(&door, "x").0;
        let config = std::fs::read_to_string(door.path("handover.toml")).unwrap();
        std::fs::write(door.path("handover.toml"), config.replace(from, &to)).unwrap();
        let o = door.run(&["run", "--note", "a clean note"]);
        assert_eq!(o.status.code(), Some(SECRET_FOUND), "{}", stderr(&o));
        assert!(stderr(&o).contains(what), "{}", stderr(&o));
        assert!(!stderr(&o).contains(&token) && !stderr(&o).contains(&key));
        assert!(!door.path("memory").exists(), "nothing was written");
        let raw = if what.contains("tag") { &token } else { &key };
        assert_eq!(remote_holds(&door, raw), (published, false));
    }

    // 3: a file name, a UTF-16 file, a gzip file under memory/.
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(
            format!("deploy key {key}\n")
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        )
        .collect();
    let gzip = vec![0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03, 0x4b, 0x04, 0];
    for (file, bytes, code, says) in [
        (
            format!("memory/{key}.md"),
            b"notes".to_vec(),
            SECRET_FOUND,
            "the file name",
        ),
        (
            "memory/keys.txt".to_string(),
            utf16,
            SECRET_FOUND,
            "memory/keys.txt holds a secret",
        ),
        ("memory/old.tar.gz".to_string(), gzip, 1, "gzip-compressed"),
    ] {
        let mut door = Door::with_git("");
        let o = door.run(&["run", "--note", "first session"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let published = remote_holds(&door, "x").0;
        std::fs::write(door.path(&file), &bytes).unwrap();
        let o = door.run(&["run", "--note", "second session"]);
        assert_eq!(o.status.code(), Some(code), "{file}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{file}: {}", stderr(&o));
        assert!(!stderr(&o).contains(&key), "{}", stderr(&o));
        assert_eq!(
            remote_holds(&door, &key),
            (published.clone(), false),
            "{file}"
        );
        assert_eq!(door.project.check(), 1, "the handover waits, its note safe");
        // Taken out, the same handover finishes and publishes.
        std::fs::remove_file(door.path(&file)).unwrap();
        let o = door.run(&["resume"]);
        assert!(o.status.success(), "{file}: {}", stderr(&o));
        assert_ne!(remote_holds(&door, &key).0, published);
        assert!(!remote_holds(&door, &key).1);
    }
}

/// `bytes` as git's zlib stream (a loose object: `blob N\0` + `bytes`),
/// made by git in a throwaway repository, so no compressor is needed here.
fn zlib_stream(bytes: &[u8]) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    let file = dir.path().join("input");
    std::fs::write(&file, bytes).unwrap();
    let id = git(dir.path(), &["hash-object", "-w", "input"]);
    let id = id.trim();
    std::fs::read(
        dir.path()
            .join(".git/objects")
            .join(&id[..2])
            .join(&id[2..]),
    )
    .unwrap()
}

/// CRC-32 (IEEE), for the gzip trailer and PNG chunks.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for b in bytes {
        crc ^= u32::from(*b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A PNG chunk: length, type, data, CRC.
fn png_chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut chunk = (data.len() as u32).to_be_bytes().to_vec();
    chunk.extend(kind);
    chunk.extend(data);
    chunk.extend(crc32(&[kind.as_slice(), data].concat()).to_be_bytes());
    chunk
}

/// Issue 41, item 1: a key carried in a zlib or raw deflate stream, an
/// LZMA-alone file, a gzip stream after a text prefix, a PNG's zTXt chunk,
/// or a symlink's target never reaches the remote: each file the detector
/// cannot read through is refused by name (exit 1, a link's target holding
/// a key exit 8), nothing is committed or pushed, and the handover goes
/// through once it is taken out. A harmless compressed file is refused too.
#[test]
fn a_key_in_a_stream_an_image_or_a_link_target_never_reaches_the_remote() {
    let key = format!("{}{}", "AKIA", "Q3ZT7VXW2N8RJ5KD");
    let text = format!("deploy key {key}\n");
    let zlib = zlib_stream(text.as_bytes());
    let raw = zlib[2..zlib.len() - 4].to_vec();
    let mut gzip_after_text = b"see the attached log\n".to_vec();
    gzip_after_text.extend([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03]);
    // git's stream holds `blob N\0` first: the trailer is that stream's.
    let inflated = [format!("blob {}\0", text.len()).as_bytes(), text.as_bytes()].concat();
    gzip_after_text.extend(&raw);
    gzip_after_text.extend(crc32(&inflated).to_le_bytes());
    gzip_after_text.extend((inflated.len() as u32).to_le_bytes());
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend(png_chunk(b"IHDR", &[0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]));
    png.extend(png_chunk(
        b"zTXt",
        &[b"Comment\0\0".as_slice(), &zlib].concat(),
    ));
    png.extend(png_chunk(b"IEND", b""));
    let mut cases = vec![
        (
            "memory/state.z",
            zlib.clone(),
            1,
            "memory/state.z is a zlib-compressed file",
        ),
        (
            "memory/state.deflate",
            raw,
            1,
            "memory/state.deflate is a binary file",
        ),
        (
            "memory/log.txt",
            gzip_after_text,
            1,
            "memory/log.txt is a binary file",
        ),
        (
            "memory/shot.png",
            png,
            1,
            "memory/shot.png is a binary file",
        ),
        (
            "memory/harmless.z",
            zlib_stream(b"nothing secret here\n"),
            1,
            "memory/harmless.z is a zlib-compressed file",
        ),
    ];
    // LZMA-alone, when xz is here to make one.
    let lzma = std::process::Command::new("xz")
        .args(["--format=lzma", "-c"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(text.as_bytes())?;
            child.wait_with_output()
        });
    match lzma {
        Ok(out) if out.status.success() => cases.push((
            "memory/state.lzma",
            out.stdout,
            1,
            "memory/state.lzma is a lzma-compressed file",
        )),
        _ => eprintln!("xz not found: the LZMA-alone case is not run"),
    }
    for (file, bytes, code, says) in cases {
        let mut door = Door::with_git("");
        let o = door.run(&["run", "--note", "first session"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let published = remote_holds(&door, "x").0;
        std::fs::write(door.path(file), &bytes).unwrap();
        let o = door.run(&["run", "--note", "second session"]);
        assert_eq!(o.status.code(), Some(code), "{file}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{file}: {}", stderr(&o));
        assert!(stderr(&o).contains("fix: keep it out"), "{}", stderr(&o));
        assert_eq!(
            remote_holds(&door, &key),
            (published.clone(), false),
            "{file}"
        );
        assert_eq!(door.project.check(), 1, "the handover waits, its note safe");
        std::fs::remove_file(door.path(file)).unwrap();
        let o = door.run(&["resume"]);
        assert!(o.status.success(), "{file}: {}", stderr(&o));
        assert_ne!(remote_holds(&door, &key).0, published);
        let tree = git(
            door.remote.as_ref().unwrap().path(),
            &["ls-tree", "-r", "main"],
        );
        assert!(!tree.contains(file.trim_start_matches("memory/")), "{tree}");
    }

    // A symlink whose target is a key: git sends the target as the blob.
    let mut door = Door::with_git("");
    let o = door.run(&["run", "--note", "first session"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let published = remote_holds(&door, "x").0;
    std::os::unix::fs::symlink(format!("creds/{key}"), door.path("memory/link")).unwrap();
    let o = door.run(&["run", "--note", "second session"]);
    assert_eq!(o.status.code(), Some(SECRET_FOUND), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the link target of memory/link holds a secret (AWS access key ID)"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains(&key), "{}", stderr(&o));
    assert_eq!(remote_holds(&door, &key), (published.clone(), false));
    std::fs::remove_file(door.path("memory/link")).unwrap();
    std::os::unix::fs::symlink("notes", door.path("memory/link")).unwrap();
    let o = door.run(&["resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_ne!(remote_holds(&door, &key).0, published);
    assert!(!remote_holds(&door, &key).1);
}

/// Issue 26, item 4: a sender's name holding a token is refused at the
/// inbox (it was caught only at publish), and task texts are refused before
/// they are stored (they were stored raw): exit 8, nothing written.
#[test]
fn names_and_task_texts_are_doors_too() {
    let token = format!("{}{}", "ghp_", "u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d");
    let key = format!("{}{}", "AKIA", "Q3ZT7VXW2N8RJ5KD");
    let mut door = Door::new(&config(""));
    let o = door.run(&[
        "inbox",
        "send",
        "--to",
        "codex",
        "--from",
        &token,
        "--subject",
        "hi",
        "--body",
        "hello",
    ]);
    assert_eq!(o.status.code(), Some(SECRET_FOUND), "{}", stderr(&o));
    assert!(stderr(&o).contains("the sender's name"), "{}", stderr(&o));
    assert!(!door.path("messages").exists(), "nothing sent");

    let o = door.run(&[
        "task", "start", "deploy", "--step", "push", "--step", "verify",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = std::fs::read(door.path(".agent-handover/tasks/deploy.json")).unwrap();
    for args in [
        vec![
            "task",
            "step",
            "deploy",
            "1",
            "--done",
            "--output",
            key.as_str(),
        ],
        vec!["task", "block", "deploy", "2", "--reason", key.as_str()],
        vec!["task", "done", "deploy", "--finding", key.as_str()],
    ] {
        let o = door.run(&args);
        assert_eq!(
            o.status.code(),
            Some(SECRET_FOUND),
            "{args:?}: {}",
            stderr(&o)
        );
        assert_eq!(
            std::fs::read(door.path(".agent-handover/tasks/deploy.json")).unwrap(),
            before,
            "{args:?}: nothing written"
        );
    }
    door.assert_never_leaked(&Secret {
        kind: "GitHub token",
        text: String::new(),
        raw: vec![token, key],
    });
}

/// Issue 26, "every input door": `identity set` and `identity edit` stored a
/// key in identity.md, which every brief reads and every publish sends
/// (it was caught only at publish). Refused with exit 8, identity.md and
/// its versions untouched; an edit's text is kept for the user to fix.
#[test]
fn identity_is_a_door_too() {
    let key = format!("{}{}", "AKIA", "Q3ZT7VXW2N8RJ5KD");
    let mut door = Door::new(&config(""));
    let o = door.run(&["identity", "set", "Policies", "- Tests before every push"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let identity = door.path("memory/identity.md");
    let history = door.path(".agent-handover/history/identity");
    let before = std::fs::read(&identity).unwrap();
    let versions = common::read_dir_sorted(&history);
    let line = format!("- Deploy with {key}");
    let o = door.run(&["identity", "set", "Parameters", &line]);
    assert_eq!(o.status.code(), Some(SECRET_FOUND), "{}", stderr(&o));
    assert!(stderr(&o).contains("the identity text"), "{}", stderr(&o));
    let o = door.run_with_stdin(&["identity", "set", "Goals"], &format!("{line}\n"));
    assert_eq!(o.status.code(), Some(SECRET_FOUND), "{}", stderr(&o));
    // An editor that adds the key: refused, and the edit is not lost.
    let editor = door.path("add-key.sh");
    std::fs::write(&editor, format!("#!/bin/sh\necho '{line}' >> \"$1\"\n")).unwrap();
    let o = door
        .project
        .cmd()
        .args(["identity", "edit"])
        .env("VISUAL", format!("sh {}", editor.display()))
        .output()
        .unwrap();
    door.keep(&["identity", "edit"], &o);
    assert_eq!(o.status.code(), Some(SECRET_FOUND), "{}", stderr(&o));
    let kept = door.path(".agent-handover/identity.edit.md");
    assert!(stderr(&o).contains("identity.edit.md"), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&kept).unwrap().contains(&line));
    std::fs::remove_file(kept).unwrap();
    assert_eq!(std::fs::read(&identity).unwrap(), before, "nothing written");
    assert_eq!(common::read_dir_sorted(&history), versions);
    door.assert_never_leaked(&Secret {
        kind: "AWS access key id",
        text: String::new(),
        raw: vec![key],
    });
}

/// Issue 26, item 4: `draft` copied a commit subject holding a key as it
/// was, so the documented loop (draft, complete, `run --note-file`) was
/// refused at the door. The draft carries it redacted, and the loop works.
#[test]
fn a_draft_carries_a_commit_subject_redacted_so_the_loop_goes_through() {
    let key = format!("{}{}", "AKIA", "Q3ZT7VXW2N8RJ5KD");
    let mut door = Door::with_git("");
    let d = door.project.dir.path().to_path_buf();
    std::fs::write(d.join("deploy.sh"), "echo deploy\n").unwrap();
    git(&d, &["add", "deploy.sh"]);
    git(&d, &["commit", "-qm", &format!("deploy with {key}")]);
    let o = door.run(&["draft", "-o", ".agent-handover/handoff.md"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let draft = std::fs::read_to_string(door.path(".agent-handover/handoff.md")).unwrap();
    assert!(draft.contains("deploy with [REDACTED]"), "{draft}");
    assert!(!draft.contains(&key));
    // Completed, as an agent would (an untouched draft is refused as a template).
    std::fs::write(
        door.path(".agent-handover/handoff.md"),
        draft.replace("TODO: ", ""),
    )
    .unwrap();
    let o = door.run(&["run", "--note-file", ".agent-handover/handoff.md"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(door.project.check(), 2);
}

/// The detector on texts nobody here wrote (`tests/fixtures/secrets/`,
/// rated blind by two raters): on the held-out repositories, never read
/// item by item while the detector changed, it finds at least 60 % of the
/// secrets and flags at most 10 % of the look-alikes (before the tuning
/// part was read: 58.8 % and 15.5 %); on 3,098 lines of real public
/// handoffs it flags under 1 % (issue 26's target). `cargo bench --bench
/// secrets` prints every figure.
#[test]
fn the_detector_holds_on_blind_labelled_texts_and_real_handoffs() {
    use secret_corpus::{Split, TARGET_HANDOFF_FALSE_POSITIVES, items, score, split_of};
    let items = items();
    assert_eq!(items.len(), 431);
    let held_out = items.iter().filter(|i| i.split == Split::HeldOut).count();
    assert!(3 * held_out >= items.len(), "a third held out: {held_out}");
    // Whole repositories: no repository on both sides.
    for item in &items {
        assert_eq!(item.split, split_of(&item.repo));
    }
    let s = score(&items, Some(Split::HeldOut));
    assert!(
        s.recall() >= 0.60,
        "held-out recall {:.3}: missed {:?}",
        s.recall(),
        s.missed
    );
    assert!(
        s.false_positive_rate() <= 0.10,
        "held-out false positives {:.3}: {:?}",
        s.false_positive_rate(),
        s.false_positives
    );
    let lines = secret_corpus::public_handoff_lines();
    assert!(lines.len() >= 1_000, "{} lines", lines.len());
    let flagged: Vec<_> = lines
        .iter()
        .filter(|(_, l)| !agent_handover::base::secrets::scan(l).is_empty())
        .map(|(id, _)| id)
        .collect();
    assert!(
        (flagged.len() as f64) < TARGET_HANDOFF_FALSE_POSITIVES * lines.len() as f64,
        "{flagged:?}"
    );
}

/// Every string of a JSON value, at any depth.
fn strings_of(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|v| strings_of(v, out)),
        serde_json::Value::Object(map) => map.values().for_each(|v| strings_of(v, out)),
        _ => {}
    }
}

/// Issue 38: `--json` printed a stored key raw where the text form redacted
/// it (knowledge, draft, task, metrics). Every command that prints memory
/// shows a secret on disk redacted, and the same redacted words in its
/// text and its `--json`.
#[test]
fn every_json_output_shows_a_stored_secret_redacted_as_its_text_form() {
    let secrets = secrets();
    // One-line secrets: each shows in one line of text and one JSON string.
    let lines: Vec<&Secret> = secrets.iter().filter(|s| !s.text.contains('\n')).collect();
    let leaking_probe = format!(
        "[[metric]]\nname = \"tests\"\nargv = [\"sh\", \"-c\", \"echo '{}'; exit 1\"]\n[[metric.value]]\nname = \"passed\"\npattern = '(\\d+) passed'\n",
        lines[0].text
    );
    let mut door = Door::with_git(&leaking_probe);
    let d = door.project.dir.path().to_path_buf();
    // A handover learns a fact; then its detail file is edited by hand to
    // hold secrets (learning never keeps one).
    let note = "# Session\n## Status\nDeployed.\n## Findings\n- [DECISION] Deploy the parser with the staging profile\n## Next step\nReview.\n";
    let o = door.run(&["run", "--no-push", "--note", note]);
    assert!(o.status.success(), "{}", stderr(&o));
    let decisions = door.path("memory/knowledge/decisions.md");
    let facts = std::fs::read_to_string(&decisions).unwrap();
    let hand: String = lines
        .iter()
        .enumerate()
        .map(|(i, s)| format!("- [0000aaaa0{i}] 2026-12-01 {}\n", s.text))
        .collect();
    std::fs::write(&decisions, facts + &hand).unwrap();
    // After the handover (the clock has a second's grain: wait it out), a
    // commit whose subject holds a secret: the draft lists it as new work.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(d.join("deploy.sh"), "echo deploy\n").unwrap();
    git(&d, &["add", "deploy.sh"]);
    git(&d, &["commit", "-qm", &lines[1].text]);
    // A task and identity.md edited by hand, past every door.
    let o = door.run(&["task", "start", "deploy", "--step", "placeholder"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let task_file = door.path(".agent-handover/tasks/deploy.json");
    let task = std::fs::read_to_string(&task_file).unwrap();
    let escaped = serde_json::to_string(&lines[1].text).unwrap();
    std::fs::write(&task_file, task.replace("\"placeholder\"", &escaped)).unwrap();
    std::fs::write(
        door.path("memory/identity.md"),
        format!("# Identity\n\n## Policies\n- {}\n", lines[0].text),
    )
    .unwrap();
    let id = "0000aaaa00";

    // (command, whether its text shows the secret's line: `metrics` shows
    // a failed probe as "tests failed (exit 1)", its --json the output too)
    let commands: Vec<(Vec<&str>, bool)> = vec![
        (vec!["knowledge", "list"], true),
        (vec!["knowledge", "show", id], true),
        (vec!["knowledge", "search", "Deploy"], true),
        (vec!["draft", "--no-metrics"], true),
        (vec!["task", "show", "deploy"], true),
        (vec!["task", "list"], true),
        (vec!["metrics"], false),
        (vec!["identity", "show"], true),
    ];
    for (args, text_shows_it) in &commands {
        let text = door.run(args);
        assert!(text.status.success(), "{args:?}: {}", stderr(&text));
        let json_args: Vec<&str> = std::iter::once("--json")
            .chain(args.iter().copied())
            .collect();
        let as_json = door.run(&json_args);
        assert!(
            as_json.status.success(),
            "{json_args:?}: {}",
            stderr(&as_json)
        );
        let mut strings = Vec::new();
        strings_of(&json(&as_json), &mut strings);
        let shown_redacted = lines.iter().any(|secret| {
            let redacted = agent_handover::base::secrets::redact(&secret.text).into_owned();
            (!text_shows_it || stdout(&text).contains(&redacted))
                && strings.iter().any(|s| s.contains(&redacted))
        });
        assert!(
            shown_redacted,
            "{args:?} shows a stored secret redacted alike in text and --json:\n{}\n{}",
            stdout(&text),
            stdout(&as_json)
        );
        for secret in &secrets {
            for raw in &secret.raw {
                for (form, o) in [("text", &text), ("--json", &as_json)] {
                    assert!(
                        !stdout(o).contains(raw.as_str()),
                        "{args:?} ({form}) shows the {}: {}",
                        secret.kind,
                        stdout(o)
                    );
                }
            }
        }
    }
}
