//! The secret detector measured: recall on secrets in the forms handoffs
//! hold them (every class the README names), false positives on their
//! look-alikes (hashes, UUIDs, commit ids, base64 data, prose about
//! passwords and tokens, prompting password flags) and on every line of the
//! real and written handoffs of the lint corpus (the two that hold a secret
//! on purpose left out), and throughput over that corpus. `cargo bench
//! --bench secrets`; writes `target/bench-secrets.md`. Secrets are
//! assembled at run time, so this source holds none.

#[path = "support/secret_corpus.rs"]
mod secret_corpus;
mod support;

use std::time::Instant;

use agent_handover::base::secrets::scan;
use secret_corpus::{Split, agreement, items, public_handoff_lines, score};
use support::stats;

/// Secrets as handoffs hold them.
fn secrets() -> Vec<String> {
    let f = |a: &str, b: &str| format!("{a}{b}");
    vec![
        f("Deploy with ", &f("AKIA", "Q3ZT7VXW2N8RJ5KD")),
        f(
            "aws_secret_access_key = ",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYq7Zp2KEY0",
        ),
        f(
            "token: ",
            &f("ghp_", "u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"),
        ),
        f(
            "use ",
            &f("github_pat_", "11ABCDEFG0123456789_abcdefghijklmnop"),
        ),
        f("GITLAB=", &f("glpat-", "abcdefghij0123456789xyz")),
        f(
            "slack bot ",
            &f("xoxb-", "319487574911-GAkWvj7FAc9QeWJKY40uvSwM"),
        ),
        f("stripe ", &f("sk_live_", "xgJTeKdNnFRIBXuDL7DxtpYl")),
        f(
            "ANTHROPIC_API_KEY=",
            &f("sk-ant-", "api03-abcdefghijklmnopqrstuvwxyz012345"),
        ),
        f(
            "openai ",
            &f("sk-proj-", "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH"),
        ),
        f(
            "maps key ",
            &f("AIza", "-6ilI8ihN5KXSc7Tvo-hBKqFYY-kv5ZJr3J"),
        ),
        f("HF_TOKEN=", &f("hf_", "abcdefghijklmnopqrstuvwxyz01234567")),
        f(
            "//registry.npmjs.org/:_authToken=",
            &f("npm_", "abcdefghijklmnopqrstuvwxyz0123456789"),
        ),
        f(
            "jwt ",
            &f(
                "eyJhbGciOiJIUzI1NiJ9.",
                "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            ),
        ),
        f(
            "-----BEGIN RSA ",
            "PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1c7\n-----END RSA PRIVATE KEY-----",
        ),
        f(
            "git remote set-url origin https://deploy:",
            "Sup3rS3cret@example.com/repo.git",
        ),
        f("redis://:", "s3cr3tpw@cache:6379/0"),
        f("postgres://app:", "Pa55w0rd9@db:5432/app"),
        f("curl -u bob:", "Tr0ub4dor3x https://example.com"),
        f("The staging password is ", "Gr4ss-Hopper!"),
        f("export PGPASSWORD=", "Xk9#mQ2vLp8z"),
        f("DB_PASSWORD=", "s3cr3tV4lueXy9Zq"),
        f("SECRET_KEY = 'django-insecure-", "k8x2m9qz7vw4p0n3b6c1d5'"),
        f(
            "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=",
            "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3A=;",
        ),
        f("curl -H 'Authorization: Bearer ", "4f9a8b7c6d5e4f3a2b1c'"),
        f("Authorization: Basic ", "dXNlcjpwYXNzd29yZA=="),
        f("mysql -h db -u app -p", "Pa55word9 app"),
        f("sshpass -p ", "Hunter2x ssh deploy@host"),
        f("docker login -u bot -p ", "Tr0ub4dor3x registry.io"),
        f("psql --password=", "Q7w8e9r0t"),
        f("\"password\": \"", "c0rrect-h0rse\""),
        f(
            "a key cut by a hard wrap: AKIAQ3ZT7V\n    ",
            "XW2N8RJ5KD in the old notes",
        ),
    ]
}

/// What looks like a secret and is not.
fn look_alikes() -> Vec<&'static str> {
    vec![
        "Fixed in commit 3f2a9c0d1e2b3a4f5a6b7c8d9e0f1a2b3c4d5e6f (see the PR).",
        "The run id is 20261126-053100-4f2a; the version 9b1c77e0a4d25c10.",
        "UUID 123e4567-e89b-12d3-a456-426614174000 names the session.",
        "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "The fixture holds base64 data: aGVsbG8gd29ybGQsIHRoaXMgaXMgdGVzdCBkYXRh",
        "The password reset flow sends a mail; the password field is validated.",
        "The password is stored in the vault, never in the repo.",
        "Tokens: the budget is 1,500 tokens per brief.",
        "Rotate the API key monthly (docs/keys.md explains how).",
        "Set DB_PASSWORD=$DB_PASSWORD in the CI environment.",
        "password: ${{ secrets.DB_PASSWORD }}",
        "Use <your-api-key> in the example config.",
        "git push -u origin main",
        "docker run -u 1000:1000 image",
        "mysql -u root -p mydb (it prompts)",
        "docker login --password-stdin registry.io",
        "sshpass -f ~/.pass ssh host",
        "the --password flag is deprecated",
        "Authorization: Bearer $TOKEN",
        "https://user@example.com/repo.git",
        "redis://cache:6379/0",
        "SECRET_KEY = os.environ['SECRET_KEY']",
        "token = getpass()",
        "api_key = config.get('api_key')",
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ public key, not a secret",
        "The checksum is 0x1f8b08000000; offset 0xdeadbeef.",
        "See https://example.com/path?token=<token> for the format.",
        "Password policy: at least 12 characters.",
        "We hashed passwords with argon2id (m=65536, t=3).",
        "The key rotation job runs at 03:00 UTC.",
    ]
}

fn main() {
    let secrets = secrets();
    let found = secrets.iter().filter(|s| !scan(s).is_empty()).count();
    let missed: Vec<&String> = secrets.iter().filter(|s| scan(s).is_empty()).collect();
    let alikes = look_alikes();
    let flagged: Vec<&&str> = alikes.iter().filter(|s| !scan(s).is_empty()).collect();

    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/handoffs/corpus"
    );
    let mut corpus = String::new();
    let (mut lines, mut hits) = (0usize, Vec::new());
    for entry in std::fs::read_dir(dir).expect("the corpus") {
        let path = entry.expect("a corpus file").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        // The two handoffs that hold a secret on purpose (labelled so).
        if !name.ends_with(".md")
            || name.contains("bad-db-password")
            || name.contains("bad-private-key")
        {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("utf-8");
        for line in text.lines() {
            lines += 1;
            if !scan(line).is_empty() {
                hits.push(format!("{name}: {line}"));
            }
        }
        corpus.push_str(&text);
    }
    let mut samples = Vec::new();
    for _ in 0..21 {
        let t = Instant::now();
        std::hint::black_box(scan(std::hint::black_box(&corpus)));
        samples.push(t.elapsed());
    }
    // Milliseconds, median and p90.
    let (median, p90) = stats(&samples);
    let mb = corpus.len() as f64 / 1e6;
    let report = format!(
        "## Secret detector\n\n\
         | measure | value |\n|---|---:|\n\
         | recall on {} secrets in 31 forms | {:.1} % ({found}/{}) |\n\
         | false positives on {} look-alikes | {} |\n\
         | false positives on {lines} lines of real and written handoffs | {} ({:.3} %) |\n\
         | throughput over the corpus ({:.2} MB), median of 21 | {:.1} MB/s (p90 {:.1}) |\n\n\
         Missed: {missed:?}\nFlagged look-alikes: {flagged:?}\nFlagged corpus lines: {hits:?}\n",
        secrets.len(),
        100.0 * found as f64 / secrets.len() as f64,
        secrets.len(),
        alikes.len(),
        flagged.len(),
        hits.len(),
        100.0 * hits.len() as f64 / lines.max(1) as f64,
        mb,
        mb / (median / 1000.0),
        mb / (p90 / 1000.0),
    );
    let report = report + &blind_corpus_report();
    print!("{report}");
    let out = concat!(env!("CARGO_MANIFEST_DIR"), "/target/bench-secrets.md");
    std::fs::write(out, &report).expect("target/ is writable");
    println!("bench: wrote {out}");
}

/// The figures on texts nobody here wrote: the blind-labelled corpus (by
/// split) and the lines of the public handoffs.
fn blind_corpus_report() -> String {
    let items = items();
    let (same, kappa) = agreement(&items);
    let mut out = format!(
        "\n## Blind-labelled corpus ({} items, two raters: same label on {:.1} %, Cohen's kappa {kappa:.3})\n\n\
         | part | items (repositories) | secrets found | recall | false positives | precision |\n|---|---:|---:|---:|---:|---:|\n",
        items.len(),
        100.0 * same
    );
    let mut lists = String::new();
    for (name, split) in [
        ("tuning", Some(Split::Tuning)),
        ("held out", Some(Split::HeldOut)),
        ("all", None),
    ] {
        let s = score(&items, split);
        out += &format!(
            "| {name} | {} ({}) | {}/{} | {:.1} % | {}/{} ({:.1} %) | {:.1} % |\n",
            s.items,
            s.repos,
            s.found,
            s.secrets,
            100.0 * s.recall(),
            s.flagged,
            s.clean,
            100.0 * s.false_positive_rate(),
            100.0 * s.precision(),
        );
        if split.is_some() {
            lists += &format!(
                "{name}: missed {:?}; flagged {:?}\n",
                s.missed, s.false_positives
            );
        }
    }
    let lines = public_handoff_lines();
    let hits: Vec<&(String, String)> = lines.iter().filter(|(_, l)| !scan(l).is_empty()).collect();
    out += &format!(
        "\nReal handoff lines (the quality corpus's public documents): {} of {} flagged ({:.3} %): {:?}\n\n{lists}",
        hits.len(),
        lines.len(),
        100.0 * hits.len() as f64 / lines.len() as f64,
        hits.iter().map(|(id, _)| id).collect::<Vec<_>>()
    );
    out
}
