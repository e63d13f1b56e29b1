//! Secrets in a handoff: precise patterns for common API keys, tokens and
//! private keys, and redaction. A handoff is published (often to git), so a
//! pasted key there is a leak; nothing we print may repeat it.
//!
//! Patterns are specific formats (an AWS key id is `AKIA` + 16 upper-case
//! letters or digits), plus one generic `NAME=value` rule that needs a
//! secret-like name *and* a 12+ character value with letters and digits, so
//! prose about passwords, tokens or task-management does not match.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use regex::{Regex, RegexSet};

use super::text::{ascii_boundaries, pattern};

/// What replaces a secret in any output.
pub const REDACTED: &str = "[REDACTED]";

/// A secret found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretMatch {
    /// What it looks like ("AWS access key ID", ...).
    pub kind: &'static str,
    /// Its byte range in the text (what [`redact`] replaces).
    pub range: Range<usize>,
}

struct Pattern {
    kind: &'static str,
    regex: &'static str,
    /// Capture group holding the secret itself (0: the whole match).
    group: usize,
    /// Whether the captured value is checked by [`looks_random`].
    check_value: bool,
}

const fn exact(kind: &'static str, regex: &'static str) -> Pattern {
    Pattern {
        kind,
        regex,
        group: 0,
        check_value: false,
    }
}

const PATTERNS: &[Pattern] = &[
    exact(
        "private key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z)",
    ),
    exact(
        "AWS access key ID",
        r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b",
    ),
    Pattern {
        kind: "AWS secret access key",
        regex: r#"(?i)aws_?secret_?access_?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b"#,
        group: 1,
        check_value: false,
    },
    exact("GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{36,251}\b"),
    exact(
        "GitHub fine-grained token",
        r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b",
    ),
    exact("GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,}"),
    exact("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    exact(
        "Slack webhook URL",
        r"https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+",
    ),
    exact(
        "Stripe key",
        r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{24,}\b",
    ),
    exact("Anthropic API key", r"\bsk-ant-[A-Za-z0-9_-]{32,}"),
    exact(
        "OpenAI API key",
        r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|\bsk-[A-Za-z0-9]{48}\b",
    ),
    exact("Google API key", r"\bAIza[0-9A-Za-z_-]{35}"),
    exact("Hugging Face token", r"\bhf_[A-Za-z0-9]{34,}\b"),
    exact("npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    exact("PyPI token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
    exact(
        "JSON web token",
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    Pattern {
        kind: "password in a URL",
        regex: r"\b[a-z][a-z0-9+.-]*://[^\s/:@]+:([^\s/@]{3,})@",
        group: 1,
        check_value: false,
    },
    Pattern {
        kind: "secret assignment",
        regex: r#"(?i)\b(?:[a-z0-9]+[_-])*(?:password|passwd|pwd|secret|api[_-]?key|apikey|access[_-]?key|auth[_-]?token|access[_-]?token|token|client[_-]?secret|private[_-]?key)["']?\s*[:=]\s*["']?([^\s"'`,;]{12,})"#,
        group: 1,
        check_value: true,
    },
];

struct Compiled {
    set: RegexSet,
    each: Vec<Regex>,
}

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| Compiled {
    set: RegexSet::new(PATTERNS.iter().map(|p| ascii_boundaries(p.regex)))
        .expect("valid secret patterns"),
    each: PATTERNS.iter().map(|p| pattern(p.regex)).collect(),
});

/// Every secret in `text`, in order, without overlaps.
pub fn scan(text: &str) -> Vec<SecretMatch> {
    let compiled = &*COMPILED;
    let mut found: Vec<SecretMatch> = Vec::new();
    for i in compiled.set.matches(text).iter() {
        let pattern = &PATTERNS[i];
        for caps in compiled.each[i].captures_iter(text) {
            let Some(m) = caps.get(pattern.group) else {
                continue;
            };
            if pattern.check_value && !looks_random(m.as_str()) || is_placeholder(m.as_str()) {
                continue;
            }
            found.push(SecretMatch {
                kind: pattern.kind,
                range: m.range(),
            });
        }
    }
    found.sort_by_key(|m| (m.range.start, std::cmp::Reverse(m.range.end)));
    let mut kept: Vec<SecretMatch> = Vec::with_capacity(found.len());
    for m in found {
        match kept.last_mut() {
            Some(last) if m.range.start < last.range.end => {
                last.range.end = last.range.end.max(m.range.end);
            }
            _ => kept.push(m),
        }
    }
    kept
}

/// `text` with every secret replaced by [`REDACTED`] (borrowed when there is none).
pub fn redact(text: &str) -> Cow<'_, str> {
    let found = scan(text);
    if found.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for m in found {
        out.push_str(&text[last..m.range.start]);
        out.push_str(REDACTED);
        last = m.range.end;
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// A value for a secret-like name that looks like a real secret: letters and
/// digits mixed, not a variable reference.
fn looks_random(value: &str) -> bool {
    value.chars().any(|c| c.is_ascii_alphabetic()) && value.chars().any(|c| c.is_ascii_digit())
}

/// `$VAR`, `${VAR}`, `<your-key>`, `***`: documentation, not a secret.
fn is_placeholder(value: &str) -> bool {
    value.starts_with(['$', '<', '{', '%', '*']) || value == REDACTED
}

#[cfg(test)]
mod tests {
    use super::*;

    // Fakes are assembled at run time so this source holds no token-shaped string.
    fn fake(prefix: &str, body: &str) -> String {
        format!("{prefix}{body}")
    }

    #[test]
    fn finds_common_key_formats() {
        let cases = [
            (fake("AKIA", "ZDOC9IS0J8HT9LGM"), "AWS access key ID"),
            (
                fake("ghp_", "u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"),
                "GitHub token",
            ),
            (fake("sk_live_", "xgJTeKdNnFRIBXuDL7DxtpYl"), "Stripe key"),
            (
                fake("xoxb-", "319487574911-GAkWvj7FAc9QeWJKY40uvSwM"),
                "Slack token",
            ),
            (
                fake("AIza", "-6ilI8ihN5KXSc7Tvo-hBKqFYY-kv5ZJr3J"),
                "Google API key",
            ),
            (
                fake("sk-ant-", "api03-abcdefghijklmnopqrstuvwxyz012345"),
                "Anthropic API key",
            ),
        ];
        for (secret, kind) in cases {
            let text = format!("the key is {secret} for now");
            let found = scan(&text);
            assert_eq!(found.len(), 1, "{text}");
            assert_eq!(found[0].kind, kind);
            assert_eq!(&text[found[0].range.clone()], secret);
            assert_eq!(redact(&text), "the key is [REDACTED] for now");
        }
    }

    #[test]
    fn private_key_blocks_are_redacted_whole() {
        let begin = fake("-----BEGIN OPENSSH ", "PRIVATE KEY-----");
        let end = fake("-----END OPENSSH ", "PRIVATE KEY-----");
        let text = format!("before\n{begin}\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAABG5vbmU=\n{end}\nafter");
        assert_eq!(redact(&text), "before\n[REDACTED]\nafter");
        let unterminated = format!("{begin}\nb3BlbnNzaC1r");
        assert_eq!(redact(&unterminated), "[REDACTED]");
    }

    #[test]
    fn assignments_need_a_secret_like_value() {
        let value = fake("s3cr3tV4lue", "Xy9Zq");
        assert_eq!(
            redact(&format!("DB_PASSWORD={value} in .env")),
            "DB_PASSWORD=[REDACTED] in .env"
        );
        assert_eq!(
            redact(&format!("postgres://app:{value}@db:5432/app")),
            "postgres://app:[REDACTED]@db:5432/app"
        );
        for prose in [
            "The password reset flow sends one email.",
            "password: see the team vault",
            "Set API_KEY=$OPENAI_API_KEY before running.",
            "token: roughly 1500 of them",
            "task-management board, risk-assessment doc",
            "the secret sauce is the retry loop",
            "password = correcthorsebatterystaple",
            "postgres://app:${DB_PASS}@db/app",
            "A token budget of 1,500 tokens.",
        ] {
            assert!(scan(prose).is_empty(), "{prose}");
        }
    }

    #[test]
    fn overlapping_matches_merge() {
        let value = fake("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY");
        let text = format!("AWS_SECRET_ACCESS_KEY={value}");
        // The AWS pattern and the generic assignment find the same value: one redaction.
        assert_eq!(scan(&text).len(), 1);
        assert_eq!(redact(&text), "AWS_SECRET_ACCESS_KEY=[REDACTED]");
    }
}
