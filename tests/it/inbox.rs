//! The inbox through the real binary: concurrent senders and a racing
//! reader, ordering, read state across processes, bad names, oversized and
//! hand-dropped files.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::common::{self, Project, config, json, stderr, stdout};

const SENDERS: usize = 4;
const PER_SENDER: usize = 100;
/// Large enough that a torn write would show (header and body span pages).
const FILLER: usize = 6000;

fn body(sender: usize, n: usize) -> String {
    format!(
        "begin {sender}/{n}\n{}\nend {sender}/{n}\n",
        "x".repeat(FILLER)
    )
}

fn send(p: &Project, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--json", "inbox", "send"];
    all.extend_from_slice(args);
    let o = p.run(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)
}

fn list(p: &Project, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--json", "inbox", "list", "--limit", "0"];
    all.extend_from_slice(args);
    let o = p.run(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)
}

fn subjects(listing: &serde_json::Value) -> Vec<String> {
    listing["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["subject"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn concurrent_senders_lose_nothing_and_a_racing_reader_never_sees_a_torn_message() {
    let p = Project::new(&config(""));
    let bin = assert_cmd::cargo::cargo_bin("agent-handover");
    // Each sender is one shell process delivering its 100 messages in order,
    // one `inbox send` process each; the four run at once.
    let senders: Vec<_> = (0..SENDERS)
        .map(|s| {
            let script = format!(
                "for n in $(seq 1 {PER_SENDER}); do \
                   {{ printf 'begin {s}/%s\\n' $n; head -c {FILLER} /dev/zero | tr '\\0' x; printf '\\nend {s}/%s\\n' $n; }} \
                   | \"$BIN\" inbox send --from s{s} --to dest --subject \"s{s} #$n\" || exit 1; \
                 done"
            );
            std::process::Command::new("bash")
                .args(["-c", &script])
                .current_dir(p.dir.path())
                .env("BIN", &bin)
                .env("HOME", p.path("home"))
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();

    let done = AtomicBool::new(false);
    let queue = p.path("messages/for_dest");
    let (polls, file_reads) = std::thread::scope(|scope| {
        // A reader process polling `inbox list --json` throughout.
        let lister = scope.spawn(|| {
            let mut polls = 0;
            while !done.load(Ordering::SeqCst) {
                let listing = list(&p, &["--agent", "dest"]);
                for m in listing["messages"].as_array().unwrap() {
                    assert_eq!(
                        m["flags"],
                        serde_json::json!([]),
                        "partial message listed: {m}"
                    );
                    let subject = m["subject"].as_str().unwrap();
                    let (s, n) = subject[1..].split_once(" #").unwrap();
                    assert_eq!(m["from"], format!("s{s}"));
                    assert_eq!(
                        m["preview"].as_str().unwrap(),
                        format!("begin {s}/{n} {}…", "x".repeat(200 - 8 - n.len() - s.len()))
                    );
                }
                polls += 1;
            }
            polls
        });
        // And a plain reader of the files themselves.
        let reader = scope.spawn(|| {
            let mut reads = 0;
            while !done.load(Ordering::SeqCst) {
                for path in common::read_dir_sorted(&queue) {
                    let name = path.file_name().unwrap().to_string_lossy().into_owned();
                    if name.starts_with('.') {
                        continue; // a sender's temp file, not a message
                    }
                    let text = std::fs::read_to_string(&path).unwrap();
                    let (header, rest) = text.split_once("\n---\n").expect("whole header");
                    let from = header
                        .lines()
                        .nth(1)
                        .unwrap()
                        .strip_prefix("from: s")
                        .unwrap();
                    let n = rest.lines().next().unwrap().rsplit('/').next().unwrap();
                    assert_eq!(
                        rest,
                        body(from.parse().unwrap(), n.parse().unwrap()),
                        "{name} torn"
                    );
                    reads += 1;
                }
            }
            reads
        });
        for mut s in senders {
            assert!(s.wait().unwrap().success(), "a sender failed");
        }
        done.store(true, Ordering::SeqCst);
        (lister.join().unwrap(), reader.join().unwrap())
    });
    assert!(
        polls >= 2 && file_reads > 0,
        "the readers did not race ({polls} polls)"
    );

    let listing = list(&p, &["--agent", "dest"]);
    assert_eq!(listing["total"], SENDERS * PER_SENDER);
    let ids: HashSet<_> = listing["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), SENDERS * PER_SENDER, "ids are unique");
    // Newest first; each sender's messages in the order it sent them.
    let mut per_sender: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for subject in subjects(&listing).iter().rev() {
        let (s, n) = subject.split_once(" #").unwrap();
        per_sender
            .entry(s.into())
            .or_default()
            .push(n.parse().unwrap());
    }
    for (s, ns) in &per_sender {
        assert_eq!(*ns, (1..=PER_SENDER).collect::<Vec<_>>(), "order of {s}");
    }
    assert_eq!(per_sender.len(), SENDERS);
    assert_eq!(list(&p, &["--agent", "dest"]), listing, "order is stable");
    let leftovers: Vec<_> = common::read_dir_sorted(&queue)
        .into_iter()
        .filter(|f| f.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "temp files left: {leftovers:?}");
}

#[test]
fn messages_list_newest_first_with_headers_and_read_shows_them_whole() {
    let p = Project::new(&config(""));
    let first = send(
        &p,
        &[
            "--from",
            "codex",
            "--to",
            "claude",
            "--subject",
            "one",
            "--body",
            "first",
        ],
    );
    let second = send(
        &p,
        &[
            "--from",
            "gemini",
            "--to",
            "shared",
            "--body",
            "# Standup\nat ten",
        ],
    );
    let reply = send(
        &p,
        &[
            "--from",
            "claude",
            "--to",
            "codex",
            "--subject",
            "re: one",
            "--body",
            "done",
            "--reply-to",
            first["id"].as_str().unwrap(),
        ],
    );
    assert_eq!(second["subject"], "Standup");
    let claude = list(&p, &["--agent", "claude"]);
    assert_eq!(subjects(&claude), ["Standup", "one"]);
    let all = list(&p, &["--all"]);
    assert_eq!(subjects(&all), ["re: one", "Standup", "one"]);

    let file = std::fs::read_to_string(first["path"].as_str().unwrap()).unwrap();
    assert!(
        file.starts_with("---\nfrom: codex\nto: claude\nsubject: one\ncreated: "),
        "{file}"
    );
    assert!(file.ends_with("\n---\nfirst"), "{file}");

    let o = p.run(&["inbox", "read", reply["id"].as_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("from:     claude\n") && text.contains("reply-to: "),
        "{text}"
    );
    assert!(text.ends_with("\ndone\n"), "{text}");
    let o = p.run(&["--json", "inbox", "read", reply["id"].as_str().unwrap()]);
    assert_eq!(json(&o)["reply_to"], first["id"]);

    let o = p.run(&["inbox", "list", "--agent", "claude"]);
    assert_eq!(stdout(&o).lines().count(), 2);
    assert!(stdout(&o).starts_with("* "), "{}", stdout(&o));
    let o = p.run(&["inbox", "list", "--agent", "claude", "--limit", "1"]);
    assert!(
        stdout(&o).ends_with("... 1 older (--limit 0 shows all)\n"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn read_marks_hold_across_processes_and_concurrent_acks_keep_each_other() {
    let p = Project::new(&config(""));
    let ids: Vec<String> = (0..8)
        .map(|i| {
            let m = send(
                &p,
                &[
                    "--from",
                    "codex",
                    "--to",
                    "claude",
                    "--body",
                    &format!("m{i}"),
                ],
            );
            m["id"].as_str().unwrap().to_string()
        })
        .collect();
    let shared = send(&p, &["--from", "codex", "--to", "shared", "--body", "all"]);
    // Reading marks nothing.
    assert!(p.run(&["inbox", "read", &ids[0]]).status.success());
    assert_eq!(list(&p, &["--agent", "claude", "--unread"])["total"], 9);

    // Eight processes ack one id each, all at once.
    let mut ackers: Vec<_> = ids
        .iter()
        .map(|id| {
            p.std_cmd()
                .args(["inbox", "ack", "--agent", "claude", id])
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for a in &mut ackers {
        assert!(a.wait().unwrap().success());
    }
    let unread = list(&p, &["--agent", "claude", "--unread"]);
    assert_eq!(subjects(&unread), ["all"], "every ack kept");
    // The shared message is still unread for another agent.
    assert_eq!(list(&p, &["--agent", "gemini", "--unread"])["total"], 1);

    let o = p.run(&["--json", "inbox", "ack", "--agent", "claude"]);
    assert_eq!(json(&o)["marked"], 1);
    assert_eq!(list(&p, &["--agent", "claude", "--unread"])["total"], 0);
    let o = p
        .cmd()
        .args(["inbox", "ack"])
        .env("AGENT_HANDOVER_AGENT", "gemini")
        .output()
        .unwrap();
    assert_eq!(stdout(&o), "marked 1 message(s) read for gemini\n");
    assert!(
        std::fs::read_to_string(p.path("messages/.read/claude.json"))
            .unwrap()
            .contains(&format!("shared/{}", shared["id"].as_str().unwrap()))
    );
    // The senders' files are all still there.
    assert_eq!(
        common::read_dir_sorted(&p.path("messages/for_claude")).len(),
        8
    );

    let o = p.run(&["--json", "inbox", "queues"]);
    let queues = &json(&o)["queues"];
    assert_eq!(
        queues[0],
        serde_json::json!({"agent": "claude", "total": 8, "unread": 0})
    );
    assert_eq!(
        queues[1],
        serde_json::json!({"agent": "shared", "total": 1, "unread": 0})
    );
}

#[test]
fn bad_names_are_refused_and_nothing_is_written() {
    let p = Project::new(&config(""));
    for (flag, name) in [
        ("--to", "../x"),
        ("--to", "a/b"),
        ("--to", "a\u{1}b"),
        ("--to", ".."),
        ("--from", "../../etc"),
        ("--from", "a b"),
    ] {
        let mut args = vec!["inbox", "send", "--body", "x", flag, name];
        if flag == "--from" {
            args.extend(["--to", "claude"]);
        } else {
            args.extend(["--from", "codex"]);
        }
        let o = p.run(&args);
        assert_eq!(o.status.code(), Some(78), "{flag} {name:?}");
        assert!(stderr(&o).contains("invalid agent name"), "{}", stderr(&o));
    }
    let o = p.run(&["inbox", "list", "--agent", "../x"]);
    assert_eq!(o.status.code(), Some(78));
    let o = p.run(&["--json", "inbox", "ack", "--agent", "a/b"]);
    assert_eq!(json(&o)["kind"], "unsafe_name");
    let o = p.run(&["inbox", "read", "../handover.toml"]);
    assert_eq!(o.status.code(), Some(64), "{}", stderr(&o));
    let o = p.run(&["inbox", "read", "nope"]);
    assert_eq!(o.status.code(), Some(64));
    assert!(
        stderr(&o).contains("agent-handover inbox list"),
        "{}",
        stderr(&o)
    );
    assert!(!p.path("messages").exists());
}

#[test]
fn oversized_messages_are_refused_on_send() {
    let p = Project::new(&config(""));
    let mut child = p
        .std_cmd()
        .args(["inbox", "send", "--from", "codex", "--to", "claude"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // More than the limit, more than a pipe holds: the sender stops reading early.
    let _ = child
        .stdin
        .take()
        .unwrap()
        .write_all(&vec![b'x'; 1024 * 1024]);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    assert!(
        err.contains("262144-byte limit") && err.contains("send its path"),
        "{err}"
    );
    std::fs::write(p.path("big.md"), "y".repeat(300 * 1024)).unwrap();
    let o = p.run(&[
        "inbox",
        "send",
        "--from",
        "codex",
        "--to",
        "claude",
        "--body-file",
        "big.md",
    ]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("big.md"), "{}", stderr(&o));
    assert!(common::read_dir_sorted(&p.path("messages/for_claude")).is_empty());
}

#[test]
fn hand_dropped_files_list_flagged_and_never_crash() {
    let p = Project::new(&config(""));
    let q = p.path("messages/for_claude");
    std::fs::create_dir_all(&q).unwrap();
    std::fs::write(
        q.join("20260101T000000.000000000Z-note.md"),
        "\n# Old note\nbody",
    )
    .unwrap();
    std::fs::write(q.join("plain.txt"), "Please look at the logs").unwrap();
    std::fs::write(q.join("binary.md"), [0xff, 0xfe, b'h', b'i', 0x80]).unwrap();
    std::fs::write(q.join("huge.md"), "z".repeat(2 * 1024 * 1024)).unwrap();
    std::fs::write(q.join(".partial.md.tmp"), "---\nfrom: x").unwrap();
    std::fs::create_dir(q.join("subdir")).unwrap();

    let listing = list(&p, &["--agent", "claude"]);
    let by_id: BTreeMap<String, serde_json::Value> = listing["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["id"].as_str().unwrap().to_string(), m.clone()))
        .collect();
    assert_eq!(
        by_id.keys().collect::<Vec<_>>(),
        [
            "20260101T000000.000000000Z-note",
            "binary",
            "huge",
            "plain.txt"
        ]
    );
    let note = &by_id["20260101T000000.000000000Z-note"];
    assert_eq!(
        (note["from"].as_str(), note["subject"].as_str()),
        (Some("unknown"), Some("Old note"))
    );
    assert_eq!(
        note["created"], "2026-01-01T00:00:00Z",
        "time from the name"
    );
    assert_eq!(
        subjects(&listing).last().unwrap(),
        "Old note",
        "oldest by name"
    );
    assert_eq!(by_id["plain.txt"]["subject"], "Please look at the logs");
    assert_eq!(
        by_id["binary"]["flags"],
        serde_json::json!(["no_header", "not_utf8"])
    );
    assert_eq!(
        by_id["huge"]["flags"],
        serde_json::json!(["no_header", "oversized"])
    );

    let o = p.run(&["inbox", "list", "--agent", "claude"]);
    assert!(
        stdout(&o).contains("(not UTF-8: shown lossily)"),
        "{}",
        stdout(&o)
    );
    let o = p.run(&["inbox", "read", "huge"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("note:     over 256 KiB"));
    let o = p.run(&["--json", "inbox", "read", "binary"]);
    assert_eq!(json(&o)["body"], "\u{fffd}\u{fffd}hi\u{fffd}");
    let o = p.run(&["--json", "inbox", "ack", "--agent", "claude", "plain.txt"]);
    assert_eq!(json(&o)["marked"], 1);
}

/// Hidden temp files in `dir`, by name.
fn temps(dir: &std::path::Path) -> Vec<String> {
    common::read_dir_sorted(dir)
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') && n.ends_with(".tmp"))
        .collect()
}

/// Run `agent-handover <args>` killed by the `temp-written` failpoint: after
/// its temp file is durable, before it is linked into place.
fn killed_after_temp(p: &Project, args: &[&str]) {
    use std::os::unix::process::ExitStatusExt;
    let o = p
        .cmd()
        .args(args)
        .env("AGENT_HANDOVER_FAILPOINT", "temp-written")
        .output()
        .unwrap();
    assert_eq!(o.status.signal(), Some(9), "{args:?}: {}", stderr(&o));
}

#[test]
fn temp_files_of_killed_senders_and_ackers_are_swept_by_the_next_write() {
    let p = Project::new(&config(""));
    let to_claude = [
        "inbox", "send", "--from", "codex", "--to", "claude", "--body",
    ];
    send(&p, &["--from", "codex", "--to", "claude", "--body", "one"]);
    killed_after_temp(&p, &["inbox", "ack", "--agent", "claude"]);
    killed_after_temp(&p, &[&to_claude[..], &["lost"]].concat());
    let queue = p.path("messages/for_claude");
    let marks = p.path("messages/.read");
    assert_eq!((temps(&queue).len(), temps(&marks).len()), (1, 1));

    // Leftovers of other writers: swept once old, kept while fresh.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    for path in [
        queue.join(".old.md.Ab12Cd.tmp"),
        marks.join(".x.json.Ef34Gh.tmp"),
    ] {
        std::fs::File::create(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    std::fs::write(queue.join(".fresh.md.Ij56Kl.tmp"), "another tool's").unwrap();
    // A live writer's temp file (it holds the lock on it) is never touched.
    let live = queue.join(".live.md.Mn78Op.agent-handover.tmp");
    std::fs::write(&live, "being written").unwrap();
    let held = std::fs::File::open(&live).unwrap();
    held.lock().unwrap();

    send(&p, &["--from", "codex", "--to", "claude", "--body", "two"]);
    assert_eq!(
        temps(&queue),
        [".fresh.md.Ij56Kl.tmp", ".live.md.Mn78Op.agent-handover.tmp"]
    );
    assert_eq!(temps(&marks).len(), 2, "send leaves the read marks alone");
    let o = p.run(&["inbox", "ack", "--agent", "claude"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(temps(&marks), Vec::<String>::new());

    drop(held);
    let o = p.run(&["inbox", "ack", "--agent", "claude"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(temps(&queue), [".fresh.md.Ij56Kl.tmp"]);
    assert_eq!(
        list(&p, &["--agent", "claude"])["total"],
        2,
        "no torn message"
    );
}

#[test]
fn an_empty_message_is_refused_unless_asked_for() {
    let p = Project::new(&config(""));
    let o = p
        .cmd()
        .args(["inbox", "send", "--from", "codex", "--to", "claude"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(64), "{}", stderr(&o));
    assert!(stderr(&o).contains("--allow-empty"), "{}", stderr(&o));
    assert!(!p.path("messages").exists(), "nothing written");
    let o = p
        .cmd()
        .args([
            "inbox",
            "send",
            "--from",
            "codex",
            "--to",
            "claude",
            "--subject",
            "ping",
        ])
        .write_stdin("")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "a subject alone is a message: {}",
        stderr(&o)
    );
    let o = p
        .cmd()
        .args([
            "inbox",
            "send",
            "--from",
            "codex",
            "--to",
            "claude",
            "--allow-empty",
        ])
        .write_stdin("")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Issue 41, item 4: a message that only looks like text (a zero-width
/// space, a byte-order mark, an HTML comment, as its body or subject) is
/// empty: refused without --allow-empty, nothing written.
#[test]
fn a_message_that_only_looks_like_text_is_empty() {
    for blank in [
        "\u{200B}",
        "\u{FEFF}",
        "<!-- -->",
        "\u{FEFF}<!-- x -->\n\u{2060}",
    ] {
        let p = Project::new(&config(""));
        for args in [
            vec![
                "inbox", "send", "--from", "codex", "--to", "claude", "--body", blank,
            ],
            vec![
                "inbox",
                "send",
                "--from",
                "codex",
                "--to",
                "claude",
                "--subject",
                blank,
                "--body",
                blank,
            ],
        ] {
            let o = p.run(&args);
            assert_eq!(o.status.code(), Some(64), "{blank:?}: {}", stderr(&o));
            assert!(stderr(&o).contains("--allow-empty"), "{}", stderr(&o));
            assert!(!p.path("messages").exists(), "{blank:?}: written");
        }
        let o = p.run(&[
            "inbox",
            "send",
            "--from",
            "codex",
            "--to",
            "claude",
            "--body",
            blank,
            "--allow-empty",
        ]);
        assert!(o.status.success(), "{blank:?}: {}", stderr(&o));
    }
}

/// Issue 41, item 3b: lookalike names made separate queues that one
/// macOS or Windows folder would merge: the Kelvin sign (U+212A) beside
/// `K`, the Angstrom sign (U+212B) beside `Å`, and `Claude` beside
/// `claude`. A name not in Unicode normal form C is refused as any bad name
/// is (exit 78), and so is a recipient that differs from an existing queue
/// only in case; nothing is written.
#[test]
fn lookalike_names_are_refused_and_make_no_second_queue() {
    let p = Project::new(&config(""));
    let o = p.run(&[
        "inbox", "send", "--from", "codex", "--to", "claude", "--body", "x",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for (flag, name, says) in [
        ("--to", "\u{212A}ate", "normal form C"),
        ("--to", "\u{212B}sa", "normal form C"),
        ("--from", "\u{212A}ate", "normal form C"),
        ("--to", "Claude", "only in case"),
        ("--to", "CLAUDE", "only in case"),
    ] {
        let mut args = vec!["inbox", "send", "--body", "x", flag, name];
        if flag == "--from" {
            args.extend(["--to", "claude"]);
        } else {
            args.extend(["--from", "codex"]);
        }
        let o = p.run(&args);
        assert_eq!(o.status.code(), Some(78), "{flag} {name:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{name:?}: {}", stderr(&o));
    }
    let queues: Vec<String> = common::read_dir_sorted(&p.path("messages"))
        .iter()
        .map(|q| q.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(queues, ["for_claude"], "one queue");
    let listed = list(&p, &["--agent", "claude"]);
    assert_eq!(subjects(&listed).len(), 1, "{listed}");
    // The usual spellings still work: Å as one letter, K as K.
    for name in ["\u{C5}sa", "Kate"] {
        let o = p.run(&[
            "inbox", "send", "--from", "codex", "--to", name, "--body", "x",
        ]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
    }
}
