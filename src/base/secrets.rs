//! Secrets in memory: precise patterns for common API keys, tokens and
//! private keys, passwords written out in prose, in URLs and on command
//! lines, and redaction. A handoff is published (often to git), so a pasted
//! key there is a leak; nothing we print may repeat it.
//!
//! This is the one detector: `lint` reports what [`scan`] finds, the doors
//! (a run's note, an inbox message, a git publish) refuse it with [`check`],
//! and every view of memory shows [`redact`]ed text.
//!
//! Patterns are specific formats (an AWS key id is `AKIA` + 16 upper-case
//! letters or digits), plus rules that need a secret-like name *and* a
//! secret-like value, so prose about passwords, tokens or task-management
//! does not match:
//! * `NAME=value` with a secret-like name needs a 12+ character value with
//!   letters and digits;
//! * a password in prose (`the password is hunter2`, `password: X`,
//!   `passwd=X`) needs a value of 4+ characters mixing letters and digits or
//!   holding a symbol (`!@#%^&*+=?~|$`), or a quoted one; a path, a URL, a
//!   code expression (`getpass()`, `os.environ[...]`) or a placeholder word
//!   is not one;
//! * `user:password@` in a URL, and `-u user:password` / `--user
//!   user:password` on a command line (not `-u 1000:1000` or `-u app:app`,
//!   which are users and groups).

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use regex::{Captures, Regex, RegexSet};

use crate::base::error::SecretFound;
use crate::base::patterns::{ascii_boundaries, pattern};

/// What replaces a secret in any output.
pub const REDACTED: &str = "[REDACTED]";

/// Characters of a refused line quoted (redacted) in a [`SecretFound`].
const EXCERPT_CHARS: usize = 100;

/// A secret found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretMatch {
    /// What it looks like ("AWS access key ID", ...).
    pub kind: &'static str,
    /// Its byte range in the text (what [`redact`] replaces).
    pub range: Range<usize>,
}

impl SecretMatch {
    /// Its 1-based line in `text` (the text it was found in).
    pub fn line(&self, text: &str) -> usize {
        text[..self.range.start].matches('\n').count() + 1
    }
}

struct Pattern {
    kind: &'static str,
    regex: &'static str,
    /// The secret's range in a match, or `None` when the match is not one.
    secret: fn(&Captures<'_>) -> Option<Range<usize>>,
    /// Whether it is found too when a line break cuts its secret in two (a
    /// hard-wrapped line): see [`wrapped_secrets`].
    wraps: Wrap,
}

/// When a pattern is looked for across a line break.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wrap {
    /// Never: it spans lines by itself (a private key block).
    Never,
    /// Always: a token of a fixed format is unmistakable joined.
    Always,
    /// Only where the lines alone show no secret: a value that a line holds
    /// whole is not run on into the next line (`DB_PASSWORD=x` then
    /// `NEXT_VAR=y` are two lines, not one value).
    Unseen,
}

const fn exact(kind: &'static str, regex: &'static str) -> Pattern {
    Pattern {
        kind,
        regex,
        secret: whole,
        wraps: Wrap::Always,
    }
}

/// The whole match is the secret.
fn whole(caps: &Captures<'_>) -> Option<Range<usize>> {
    caps.get(0).map(|m| m.range())
}

/// Group 1 is the secret.
fn group1(caps: &Captures<'_>) -> Option<Range<usize>> {
    caps.get(1).map(|m| m.range())
}

/// The first group that took part in the match (one alternative per
/// form), if it looks like a password ([`looks_like_password`]): "the
/// --password flag is deprecated" names no password.
fn flag_password(caps: &Captures<'_>) -> Option<Range<usize>> {
    caps.iter()
        .skip(1)
        .flatten()
        .next()
        .filter(|m| looks_like_password(m.as_str()))
        .map(|m| m.range())
}

/// Characters of code, not of a password: a value holding one is an
/// expression.
const CODE: &[char] = &['(', ')', '[', ']', '{', '}', '<', '>'];

/// `self.password`, `args.db_password`: a dotted path of identifiers, the
/// code that reads a password rather than one.
fn is_code_path(value: &str) -> bool {
    let ident = |part: &str| {
        part.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    value.contains('.') && value.split('.').all(ident)
}

/// The first group that took part in the match is the secret unless it
/// is a code expression or a URL (variables and placeholders are judged by
/// [`scan`]).
fn literal_group(caps: &Captures<'_>) -> Option<Range<usize>> {
    caps.iter()
        .skip(1)
        .flatten()
        .next()
        .filter(|m| {
            let value = m.as_str();
            !value.contains(CODE) && !value.contains("://") && !is_code_path(value)
        })
        .map(|m| m.range())
}

/// `scheme://user:password@`: group 2, unless it repeats the user name
/// (`guest:guest@`, the demo logins of documentation).
fn url_password(caps: &Captures<'_>) -> Option<Range<usize>> {
    let (user, password) = (caps.get(1)?, caps.get(2)?);
    (user.as_str() != password.as_str()).then(|| password.range())
}

/// A private key block with key material in it (a run of 12 or more
/// base64 characters): a BEGIN line alone, or `...` between the lines,
/// holds no key.
fn key_block(caps: &Captures<'_>) -> Option<Range<usize>> {
    let body = caps.get(1)?.as_str();
    let material = body
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=')))
        .any(|run| run.len() >= 12);
    material.then(|| caps.get(0).expect("whole match").range())
}

/// Group 1 is the secret if it looks random (see [`looks_random`]).
fn random_group1(caps: &Captures<'_>) -> Option<Range<usize>> {
    caps.get(1)
        .filter(|m| looks_random(m.as_str()))
        .map(|m| m.range())
}

/// Characters a `KEY=value` assignment's value needs to be a secret.
const MIN_ASSIGNED: usize = 12;

/// A `KEY=value` assignment's value (group 1) if it is a secret: it is
/// [`MIN_ASSIGNED`] characters long and looks random. A value its author
/// cut (`sk-or-v1-[...]`, `sk-ant-api03-...`, `abc…`) is judged by what is
/// left after its vendor tags ([`VENDOR_TAG`]): a key shown by its prefix
/// is no secret; a whole one, or most of one, followed by "..." still is.
fn assigned_secret(caps: &Captures<'_>) -> Option<Range<usize>> {
    let m = caps.get(1)?;
    let value = m.as_str();
    let judged = ["[...]", "[…]", "...", "…"]
        .iter()
        .find_map(|cut| value.strip_suffix(cut))
        .map_or(value, without_vendor_tags);
    (judged.chars().count() >= MIN_ASSIGNED && looks_random(judged)).then(|| m.range())
}

/// A key's leading tag, then a separator: a short lowercase word (`sk`,
/// `ant`, `proj`, `or`, `github`) or a version (`api03`, `v1`). A group of
/// letters and digits (`ab12-`) is the key's body, not a tag.
static VENDOR_TAG: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^(?:[a-z]{1,8}|api[0-9]{1,2}|v[0-9]{1,2})[-_.:]"));

/// `value` without up to three leading vendor tags (a key's prefix, never
/// its random body).
fn without_vendor_tags(value: &str) -> &str {
    let mut rest = value;
    for _ in 0..3 {
        match VENDOR_TAG.find(rest) {
            Some(tag) => rest = &rest[tag.end()..],
            None => break,
        }
    }
    rest
}

/// A password in prose: group 1 quoted (any word but a placeholder), or
/// group 2 bare, without the sentence's trailing punctuation, if it looks
/// like a password (see [`looks_like_password`]).
fn prose_password(caps: &Captures<'_>) -> Option<Range<usize>> {
    if let Some(quoted) = caps.get(1) {
        return Some(quoted.range());
    }
    let bare = caps.get(2)?;
    let value = bare.as_str().trim_end_matches(['.', ',', ';', ':', ')']);
    looks_like_password(value).then(|| bare.start()..bare.start() + value.len())
}

/// `-u user:password`: group 2, unless it is a `user:group` pair (numeric
/// ids, or the same name twice).
fn command_line_password(caps: &Captures<'_>) -> Option<Range<usize>> {
    let (user, password) = (caps.get(1)?, caps.get(2)?);
    let ids = password.as_str().chars().all(|c| c.is_ascii_digit());
    (!ids && user.as_str() != password.as_str()).then(|| password.range())
}

const PATTERNS: &[Pattern] = &[
    Pattern {
        kind: "private key",
        regex: r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----([\s\S]*?)(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z)",
        secret: key_block,
        wraps: Wrap::Never,
    },
    exact("age secret key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b"),
    exact(
        "SendGrid API key",
        r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b",
    ),
    exact(
        "AWS access key ID",
        r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b",
    ),
    Pattern {
        kind: "AWS secret access key",
        regex: r#"(?i)aws_?secret_?access_?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b"#,
        secret: group1,
        wraps: Wrap::Unseen,
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
        // `scheme://user:pw@host`, and `redis://:pw@host` (no user).
        regex: r"\b[a-z][a-z0-9+.-]*://([^\s/:@]*):([^\s/@]{2,})@",
        secret: url_password,
        wraps: Wrap::Unseen,
    },
    Pattern {
        kind: "Azure storage account key",
        regex: r"(?i)\bAccountKey=([A-Za-z0-9+/]{40,}={0,2})",
        secret: group1,
        wraps: Wrap::Unseen,
    },
    exact("Django secret key", r#"\bdjango-insecure-[^\s'"`]{20,}"#),
    Pattern {
        kind: "authorization header",
        // `Authorization: Bearer <token>` (or `Token`).
        regex: r#"(?i)\bauthorization["']?\s*:\s*["']?(?:bearer|token)\s+([A-Za-z0-9._~+/=-]{8,})"#,
        secret: random_group1,
        wraps: Wrap::Unseen,
    },
    Pattern {
        kind: "authorization header",
        // `Authorization: Basic <base64 of user:password>`.
        regex: r#"(?i)\bauthorization["']?\s*:\s*["']?basic\s+([A-Za-z0-9+/]{8,}={0,2})"#,
        secret: group1,
        wraps: Wrap::Unseen,
    },
    Pattern {
        kind: "password on a command line",
        // mysql/mariadb `-pSECRET` (a bare `-p` prompts for it), `sshpass -p X`,
        // `docker login -p X`, any `--password=X` / `--password X`.
        regex: r#"(?:^|[\s;|&(])(?:(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]*?\s-p['"]?([^\s'"`$<{-][^\s'"`]{2,})|sshpass\s+-p\s*['"]?([^\s'"`$<{-][^\s'"`]*)|docker\s+login\b[^\n]*?\s-p\s+['"]?([^\s'"`$<{-][^\s'"`]*)|[^\n]*?\s--password(?:=|\s+)['"]?([^\s'"`$<{-][^\s'"`]{2,}))"#,
        secret: flag_password,
        wraps: Wrap::Unseen,
    },
    Pattern {
        kind: "password on a command line",
        regex: r#"(?:^|\s)(?:-u|--user)(?:\s+|=)["']?([^\s:"'`$<{]+):([^\s"'`]+)"#,
        secret: command_line_password,
        wraps: Wrap::Unseen,
    },
    Pattern {
        kind: "password",
        // `password is X`, `password for the staging db: X`, `passwd=X`, `"password": "X"`.
        regex: r#"(?i)\b[a-z0-9_-]*?(?:password|passwd|passphrase|pwd)(?:\s+(?:for|of|on|to)\s+[^\n.:=]{1,40}?)?(?:\s+(?:is|was)\b\s*:?|["']?\s*:?=|["']?\s*:)\s*(?:["'`]([^"'`\s]{4,})["'`]|([^\s"'`]+))"#,
        secret: prose_password,
        wraps: Wrap::Unseen,
    },
    Pattern {
        kind: "password",
        // `DB_PASSWORD=value`, `os.environ["PGPASSWORD"] = "value"`,
        // `password == "value"`: a literal assigned to (or compared with) a
        // password-named variable is one, whatever it looks like.
        // Unquoted only when glued to the `=` (prose puts spaces around it).
        regex: r#"\b[A-Za-z0-9_]*(?:PASSWORD|PASSWD|PASSPHRASE|[Pp]assword|[Pp]asswd|[Pp]assphrase)["'\]]*(?:={1,2}([^\s"'`,;)]{4,})|\s*={1,2}\s*["']([^\s"'`]{4,})["'])"#,
        secret: literal_group,
        wraps: Wrap::Unseen,
    },
    Pattern {
        kind: "password",
        // `<password>value</password>` in XML configs.
        regex: r"(?i)<(?:password|passwd|secret)>([^<\s]{4,})</(?:password|passwd|secret)>",
        secret: literal_group,
        wraps: Wrap::Unseen,
    },
    Pattern {
        kind: "password",
        // A `.netrc` entry: `machine HOST login USER password VALUE`.
        regex: r"(?i)\bmachine\s+\S+\s+login\s+\S+\s+password\s+(\S+)",
        secret: literal_group,
        wraps: Wrap::Unseen,
    },
    Pattern {
        kind: "secret assignment",
        regex: r#"(?i)\b[a-z0-9_-]*?(?:password|passwd|pwd|secret|secret[_-]?key|signing[_-]?key|encryption[_-]?key|account[_-]?key|api[_-]?key|apikey|app[_-]?key|access[_-]?key|auth[_-]?token|access[_-]?token|token|client[_-]?secret|private[_-]?key)(?:\*\*|__|["'*`])?\s*[:=]\s*(?:\*\*|["'*`])?([^\s"'`,;*]{12,})"#,
        secret: assigned_secret,
        wraps: Wrap::Unseen,
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

/// Lower-case text that every pattern's match contains at least one of (a
/// pattern added to [`PATTERNS`] adds its own here; a test checks each
/// pattern's samples get through).
const NEEDLES: &[&str] = &[
    "private key",
    "akia",
    "asia",
    "abia",
    "acca",
    "secret",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xox",
    "hooks.slack.com",
    "sk_",
    "rk_",
    "sk-",
    "aiza",
    "hf_",
    "npm_",
    "pypi-",
    "eyj",
    "://",
    "-u",
    "pass",
    "pwd",
    "accountkey",
    "sg.",
    "django-insecure",
    "authorization",
    "mysql",
    "mariadb",
    "docker",
    "api",
    "key",
    "token",
];

/// Whether `text` could hold a secret at all: the patterns are only
/// compiled (a few milliseconds, once per process) for a text that has one
/// of their literal parts, so `status` on a checkpoint of paths stays fast.
fn could_hold_secret(text: &str) -> bool {
    let lower = text.to_lowercase();
    NEEDLES.iter().any(|n| lower.contains(n))
}

/// Every secret in `text`, in order, without overlaps.
pub fn scan(text: &str) -> Vec<SecretMatch> {
    if !could_hold_secret(text) {
        return Vec::new();
    }
    let compiled = &*COMPILED;
    let mut found: Vec<SecretMatch> = Vec::new();
    for i in compiled.set.matches(text).iter() {
        let pattern = &PATTERNS[i];
        for caps in compiled.each[i].captures_iter(text) {
            let Some(range) = (pattern.secret)(&caps) else {
                continue;
            };
            if range.is_empty() || is_placeholder(&text[range.clone()]) {
                continue;
            }
            found.push(SecretMatch {
                kind: pattern.kind,
                range,
            });
        }
    }
    let wrapped = wrapped_secrets(text, &found);
    found.extend(wrapped);
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

/// A line that assigns a value of its own (`NEXT_VAR=value`, the `=`
/// glued to both): it starts a new value, it does not continue the line
/// before. A wrapped token has `=` only as padding at its end, followed by
/// nothing, a space, a quote or punctuation (`…ZWY=",`, `…ZWY= # note`).
static NEW_ASSIGNMENT: LazyLock<Regex> =
    LazyLock::new(|| pattern(r#"^[A-Za-z_][A-Za-z0-9_]*=[^\s="'`,;)\]#]"#));

/// Secrets that a line break cuts in two (a token `AKIA…` on one line and
/// its rest on the next, a `PASSWORD=` value or a password in prose wrapped
/// mid-word, as a hard wrap leaves them): the text is read again with each
/// break between two token characters (or a password symbol and a token
/// character) taken out (with the next line's
/// indentation), and a secret that spans one is a secret spanning both
/// lines, each pattern judging its value as it does on one line.
fn wrapped_secrets(text: &str, seen: &[SecretMatch]) -> Vec<SecretMatch> {
    let token = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '/' | '+' | '=');
    // A password may end a line with a symbol; sentence punctuation ends
    // words, not secrets.
    let cut_after = |c: char| {
        token(c)
            || matches!(
                c,
                '!' | '@' | '#' | '$' | '%' | '^' | '&' | '*' | '?' | '~' | '|'
            )
    };
    if !text.contains('\n') {
        return Vec::new();
    }
    // The joined text, and for each of its bytes the byte of `text` it is.
    let mut joined = String::with_capacity(text.len());
    let mut at: Vec<usize> = Vec::with_capacity(text.len());
    let mut cut = false;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\n' && joined.chars().last().is_some_and(cut_after) {
            let mut skipped = vec![(i, c)];
            while let Some(&(j, d)) = chars.peek() {
                if d == ' ' || d == '\t' {
                    skipped.push((j, d));
                    chars.next();
                } else {
                    break;
                }
            }
            if chars
                .peek()
                .is_some_and(|&(j, d)| token(d) && !NEW_ASSIGNMENT.is_match(&text[j..]))
            {
                cut = true;
                continue;
            }
            for (j, d) in skipped {
                joined.push(d);
                at.extend(std::iter::repeat_n(j, d.len_utf8()));
            }
            continue;
        }
        joined.push(c);
        at.extend(std::iter::repeat_n(i, c.len_utf8()));
    }
    if !cut {
        return Vec::new();
    }
    let compiled = &*COMPILED;
    let mut found = Vec::new();
    for i in compiled.set.matches(&joined).iter() {
        let pattern = &PATTERNS[i];
        if pattern.wraps == Wrap::Never {
            continue;
        }
        for caps in compiled.each[i].captures_iter(&joined) {
            let Some(range) = (pattern.secret)(&caps).filter(|r| !r.is_empty()) else {
                continue;
            };
            let (start, end) = (at[range.start], at[range.end - 1] + 1);
            let unseen = || {
                !seen
                    .iter()
                    .any(|m| m.range.start < end && start < m.range.end)
            };
            if text[start..end].contains('\n')
                && !is_placeholder(&joined[range])
                && (pattern.wraps == Wrap::Always || unseen())
            {
                found.push(SecretMatch {
                    kind: pattern.kind,
                    range: start..end,
                });
            }
        }
    }
    found
}

/// `text` with every secret replaced by [`REDACTED`] (borrowed when there is none).
pub fn redact(text: &str) -> Cow<'_, str> {
    replace_secrets(text, false)
}

/// [`redact`] `text` where it is.
pub fn redact_in_place(text: &mut String) {
    if let Cow::Owned(clean) = redact(text) {
        *text = clean;
    }
}

/// Every string in `value` (keys kept, values at any depth) [`redact`]ed:
/// for fields someone else wrote into a file of ours, shown as they are.
pub fn redact_json(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(text) => redact_in_place(text),
        serde_json::Value::Array(items) => items.iter_mut().for_each(redact_json),
        serde_json::Value::Object(map) => map.values_mut().for_each(redact_json),
        _ => {}
    }
}

/// `text` with every secret replaced by [`REDACTED`], keeping its lines: a
/// secret spanning lines (a private key block) leaves as many line breaks,
/// so line numbers (findings, an editor's `+N`) still point at the same
/// lines. What the review view shows beside its findings.
pub fn redact_keeping_lines(text: &str) -> Cow<'_, str> {
    replace_secrets(text, true)
}

/// [`redact`], and with `keep_lines` each secret's line breaks kept after it.
fn replace_secrets(text: &str, keep_lines: bool) -> Cow<'_, str> {
    let found = scan(text);
    if found.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for m in found {
        out.push_str(&text[last..m.range.start]);
        out.push_str(REDACTED);
        if keep_lines {
            let breaks = text[m.range.clone()].matches('\n').count();
            out.extend(std::iter::repeat_n('\n', breaks));
        }
        last = m.range.end;
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// Refuse `text` if it holds a secret: the error names `what` holds it, the
/// kind and line of the first one, that line redacted, how many more there
/// are, and `fix`. The policy of every door (a run's note, an inbox message,
/// a file a publish would send) is this one function.
pub fn check(what: &str, text: &str, fix: &str) -> Result<(), SecretFound> {
    let found = scan(text);
    let Some(first) = found.first() else {
        return Ok(());
    };
    let line = first.line(text);
    let redacted = redact(text);
    let shown = redacted.lines().nth(line - 1).unwrap_or("").trim();
    let mut excerpt: String = shown.chars().take(EXCERPT_CHARS).collect();
    if excerpt.len() < shown.len() {
        excerpt.push('…');
    }
    Err(SecretFound {
        what: what.to_string(),
        kind: first.kind,
        line,
        excerpt,
        more: found.len() - 1,
        fix: fix.to_string(),
    })
}

/// A file's bytes as the detector reads them (see [`decode`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded<'a> {
    /// Its text: UTF-8 as it is, UTF-16 and UTF-32 (with a byte-order mark,
    /// or UTF-16 without one) decoded.
    Text(Cow<'a, str>),
    /// A compressed file or stream (its format): its content cannot be read here.
    Compressed(&'static str),
    /// Not text in any encoding read here (an image, an archive, a
    /// compressed stream with no magic of its own such as raw deflate): what
    /// it carries cannot be read through, so it cannot be checked.
    Binary,
}

/// Compressed formats by their magic: at the start of a file, or anywhere
/// in one read as UTF-16 or UTF-32 (where those bytes can hide between
/// characters). LZMA-alone's weak header is only looked for at the start,
/// and zlib's (two bytes, one of them ASCII: `x^`) only at the start of a
/// file that is not text; a binary file is refused whatever it holds.
const COMPRESSED: &[(&[u8], &str, bool)] = &[
    (&[0x1f, 0x8b, 0x08], "gzip", true),
    (&[0x1f, 0x8b], "gzip", false),
    (b"PK\x03\x04", "zip", true),
    (b"BZh", "bzip2", false),
    (&[0xfd, b'7', b'z', b'X', b'Z', 0x00], "xz", true),
    (&[0x28, 0xb5, 0x2f, 0xfd], "zstd", true),
    (&[b'7', b'z', 0xbc, 0xaf, 0x27, 0x1c], "7z", true),
    (&[0x5d, 0x00, 0x00], "lzma", false),
    (b"zTXt", "PNG zTXt", true),
    (b"iTXt", "PNG iTXt", true),
];

/// The compressed format whose magic `bytes` start with; with `anywhere`,
/// the first whose strong magic shows at any offset.
fn compressed_format(bytes: &[u8], anywhere: bool) -> Option<&'static str> {
    if let Some(&(_, format, _)) = COMPRESSED.iter().find(|(magic, format, _)| {
        bytes.starts_with(magic) && (*format != "bzip2" || bzip2_header(bytes))
    }) {
        return Some(format);
    }
    if !anywhere {
        return None;
    }
    COMPRESSED
        .iter()
        .filter(|(_, _, strong)| *strong)
        .find(|(magic, _, _)| bytes.windows(magic.len()).any(|w| w == *magic))
        .map(|&(_, format, _)| format)
        .or_else(|| {
            (0..bytes.len())
                .any(|i| bzip2_header(&bytes[i..]))
                .then_some("bzip2")
        })
}

/// `BZh` + a block size digit + the block magic `1AY&SY` (or the end-of-stream
/// magic of an empty stream).
fn bzip2_header(bytes: &[u8]) -> bool {
    bytes.len() >= 10
        && bytes.starts_with(b"BZh")
        && (b'1'..=b'9').contains(&bytes[3])
        && (&bytes[4..10] == b"1AY&SY" || bytes[4..10] == [0x17, 0x72, 0x45, 0x38, 0x50, 0x90])
}

/// Decode `bytes` for [`check`]: a secret in a UTF-16 file is a secret too,
/// and what cannot be read as text (a compressed file, a stream of one at
/// any offset, anything binary) cannot be looked into.
pub fn decode(bytes: &[u8]) -> Decoded<'_> {
    if let Some(format) = compressed_format(bytes, false) {
        return Decoded::Compressed(format);
    }
    let units16 = |le: bool, skip: usize| -> Option<String> {
        let units: Vec<u16> = bytes[skip..]
            .chunks(2)
            .map(|c| match (c, le) {
                ([a, b], true) => Some(u16::from_le_bytes([*a, *b])),
                ([a, b], false) => Some(u16::from_be_bytes([*a, *b])),
                _ => None,
            })
            .collect::<Option<_>>()?;
        String::from_utf16(&units).ok()
    };
    let units32 = |le: bool| -> Option<String> {
        bytes[4..]
            .chunks(4)
            .map(|c| {
                let c: [u8; 4] = c.try_into().ok()?;
                let n = if le {
                    u32::from_le_bytes(c)
                } else {
                    u32::from_be_bytes(c)
                };
                char::from_u32(n)
            })
            .collect()
    };
    // Text in a wide encoding: strictly decoded (garbage after a mark is
    // binary), and searched for a compressed stream between its characters.
    let wide = |text: Option<String>| match text {
        None => Decoded::Binary,
        Some(text) => match compressed_format(bytes, true) {
            Some(format) => Decoded::Compressed(format),
            None => Decoded::Text(Cow::Owned(text)),
        },
    };
    if bytes.starts_with(&[0xff, 0xfe, 0, 0]) {
        return wide(units32(true));
    }
    if bytes.starts_with(&[0, 0, 0xfe, 0xff]) {
        return wide(units32(false));
    }
    if bytes.starts_with(&[0xff, 0xfe]) {
        return wide(units16(true, 2));
    }
    if bytes.starts_with(&[0xfe, 0xff]) {
        return wide(units16(false, 2));
    }
    let utf8 = std::str::from_utf8(bytes).ok();
    if let Some(text) = utf8 {
        // Valid UTF-8 may still be UTF-16 without a mark (ASCII text with a
        // zero byte beside each character).
        if !text.contains('\0') {
            return Decoded::Text(Cow::Borrowed(text));
        }
    }
    // UTF-16 without a mark: a zero byte at most odd (little-endian) or
    // even (big-endian) places, and few at the others. A file with long
    // runs of zeros (a tar of text files) can look like that too, so its
    // bytes are read both ways.
    let pairs = bytes.len() / 2;
    if pairs >= 2 {
        let zero_at = |parity: usize| {
            bytes
                .iter()
                .skip(parity)
                .step_by(2)
                .filter(|b| **b == 0)
                .count()
        };
        let (odd, even) = (zero_at(1), zero_at(0));
        let le = odd * 10 >= pairs * 6 && even * 10 <= pairs;
        let be = even * 10 >= pairs * 6 && odd * 10 <= pairs;
        if le || be {
            let wide_text = units16(le, 0);
            return match (utf8, wide_text) {
                (Some(text), Some(wide_text)) => {
                    Decoded::Text(Cow::Owned(format!("{wide_text}\n{text}")))
                }
                (Some(text), None) => Decoded::Text(Cow::Borrowed(text)),
                (None, wide_text) => wide(wide_text),
            };
        }
    }
    // UTF-8 with zero bytes (a tar of text files) is read as it is; anything
    // else is binary.
    match utf8 {
        Some(text) => Decoded::Text(Cow::Borrowed(text)),
        None if zlib_header(bytes) => Decoded::Compressed("zlib"),
        None => Decoded::Binary,
    }
}

/// A zlib header (RFC 1950): deflate with a window of at most 32 KiB, and
/// the two bytes a multiple of 31.
fn zlib_header(bytes: &[u8]) -> bool {
    matches!(bytes, [cmf, flg, ..] if cmf & 0x0f == 8 && cmf >> 4 <= 7
        && u16::from_be_bytes([*cmf, *flg]) % 31 == 0)
}

/// A value for a secret-like name that looks like a real secret: letters and
/// digits mixed, not a variable reference.
fn looks_random(value: &str) -> bool {
    value.chars().any(|c| c.is_ascii_alphabetic()) && value.chars().any(|c| c.is_ascii_digit())
}

/// A bare word after "password is" / "password:" that is one: 4+
/// characters, letters mixed with digits or a symbol; not a path, a URL or
/// a code expression.
fn looks_like_password(value: &str) -> bool {
    const SYMBOLS: &[char] = &[
        '!', '@', '#', '$', '%', '^', '&', '*', '+', '=', '?', '~', '|',
    ];
    let letters = value.chars().any(|c| c.is_alphabetic());
    let digits = value.chars().any(|c| c.is_ascii_digit());
    let symbols = value.contains(SYMBOLS);
    value.chars().count() >= 4
        && (letters && digits || (letters || digits) && symbols)
        && !value.contains(CODE)
        && !value.contains("://")
        && !value.starts_with(['/', '.', '~'])
}

/// Words that stand for a secret rather than being one.
const PLACEHOLDER_WORDS: &[&str] = &[
    "password",
    "passwd",
    "secret",
    "string",
    "redacted",
    "changeme",
    "example",
    "hidden",
    "required",
    "optional",
    "none",
    "null",
    "empty",
    "todo",
    "tbd",
    "1password",
    "pass",
    "mypass",
    "mypassword",
    "yourpassword",
    "username",
];

/// `$VAR`, `${VAR}`, `<your-key>`, `[password]`, `***`, `xxxx`,
/// `password`, `changeme1`, `AKIADEADBEEFDEADBEEF`, a SOPS `ENC[…]` value, a
/// YAML tag (`!Ref`): documentation, encrypted or fake, not a secret.
fn is_placeholder(value: &str) -> bool {
    let mut chars = value.chars();
    let first = chars.next().unwrap_or('*');
    value.starts_with(['$', '<', '{', '%', '*'])
        || (value.starts_with('[') && value.ends_with(']'))
        || value == REDACTED
        || (matches!(first, 'x' | 'X' | '.' | '*') && chars.all(|c| c == first))
        || PLACEHOLDER_WORDS
            .iter()
            .any(|w| value.eq_ignore_ascii_case(w))
        || value.to_ascii_lowercase().starts_with("changeme")
        || value.starts_with("ENC[")
        || is_yaml_tag(value)
        || is_repeated(value)
}

/// CloudFormation's YAML tags, which stand where a value will be.
const YAML_TAGS: &[&str] = &[
    "!Ref",
    "!Sub",
    "!GetAtt",
    "!ImportValue",
    "!Join",
    "!Select",
    "!Split",
    "!FindInMap",
    "!Base64",
    "!If",
    "!Condition",
];

/// `!Ref`, `!Sub`, `!GetAtt`: a YAML tag standing where a value will be.
fn is_yaml_tag(value: &str) -> bool {
    YAML_TAGS.contains(&value)
}

/// A fake made by repeating a short pattern: its last 16 characters (all
/// of a shorter value) repeat a period of at most 8 (`0000…`,
/// `DEADBEEFDEADBEEF`, `abcabcabc`); a value this short is repeated only
/// when it is one character over and over. Trailing blanks are not part of
/// a value (a key block cut off before blank lines is no fake).
fn is_repeated(value: &str) -> bool {
    let chars: Vec<char> = value.trim_end().chars().collect();
    let tail = &chars[chars.len().saturating_sub(16)..];
    let longest_period = if chars.len() >= 16 { 8 } else { 1 };
    tail.len() >= 4
        && (1..=longest_period)
            .any(|period| (period..tail.len()).all(|i| tail[i] == tail[i - period]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacting_keeping_lines_keeps_every_line_where_it_was() {
        let key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1c7+9z5Pad7OejecsQ0bu3aozN3tihPmljnnudb9G3HcTq\nRrE5cyQvWpmVd6fLdZXEb+MiuR9ChbbVFX+p5N+g1W7BEL/RZUqhm7iiCL2YPXzX\n-----END RSA PRIVATE KEY-----";
        let text = format!(
            "line 1\ntoken ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5 here\n{key}\nlast line\n"
        );
        let shown = redact_keeping_lines(&text);
        assert_eq!(shown.lines().count(), text.lines().count(), "{shown}");
        assert!(
            !shown.contains("ghp_") && !shown.contains("MIIE"),
            "{shown}"
        );
        assert_eq!(shown.lines().nth(1), Some("token [REDACTED] here"));
        assert_eq!(shown.lines().last(), Some("last line"));
        assert!(matches!(
            redact_keeping_lines("clean"),
            Cow::Borrowed("clean")
        ));
    }

    // Fakes are assembled at run time so this source holds no token-shaped string.
    fn fake(prefix: &str, body: &str) -> String {
        format!("{prefix}{body}")
    }

    /// The kinds found in `text` and what each covers.
    fn found(text: &str) -> Vec<(&'static str, &str)> {
        scan(text)
            .into_iter()
            .map(|m| (m.kind, &text[m.range]))
            .collect()
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
    fn every_pattern_gets_past_the_prefilter_with_nothing_around_it() {
        let samples = [
            fake(
                "-----BEGIN RSA ",
                "PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1c7\n-----END RSA PRIVATE KEY-----",
            ),
            fake("AKIA", "ZDOC9IS0J8HT9LGM"),
            fake(
                "aws_secret_access_key=",
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            ),
            fake("ghp_", "u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"),
            fake("github_pat_", "11ABCDEFG0123456789_abcdefghijklmnop"),
            fake("glpat-", "abcdefghij0123456789xyz"),
            fake("xoxb-", "319487574911-GAkWvj7FAc9QeWJKY40uvSwM"),
            fake("https://hooks.slack.com/services/", "T0001/B0002/XyZabc123"),
            fake("sk_live_", "xgJTeKdNnFRIBXuDL7DxtpYl"),
            fake("sk-ant-", "api03-abcdefghijklmnopqrstuvwxyz012345"),
            fake("sk-proj-", "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH"),
            fake("AIza", "-6ilI8ihN5KXSc7Tvo-hBKqFYY-kv5ZJr3J"),
            fake("hf_", "abcdefghijklmnopqrstuvwxyz01234567"),
            fake("npm_", "abcdefghijklmnopqrstuvwxyz0123456789"),
            fake(
                "pypi-AgEIcHlwaS5vcmc",
                "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnop",
            ),
            fake(
                "eyJhbGciOiJIUzI1NiJ9.",
                "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            ),
            fake("https://deploy:", "Sup3rS3cret@example.com/repo.git"),
            fake("curl -u bob:", "Tr0ub4dor3x https://example.com"),
            fake("PASSWORD is ", "hunter2x!"),
            fake("TOKEN=", "abcDEF123456ghiJKL789"),
            fake(
                "AccountKey=",
                "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3A=",
            ),
            fake("django-insecure-", "k8#x2!m9@qz7v$w4p0n3b6c1d5"),
            fake("Authorization: Bearer ", "eyJ0eXAiOi4a7b9c2d1e0f"),
            fake("mysql -uroot -p", "S3cr3tPw"),
            fake("sshpass -p ", "hunter2x ssh host"),
            fake("docker login -u bob -p ", "Tr0ub4dor3x"),
        ];
        for sample in samples {
            assert!(could_hold_secret(&sample), "{sample}");
            assert!(!scan(&sample).is_empty(), "found alone: {sample}");
        }
        assert!(!could_hold_secret(
            "/home/dev/src/parser/memory/layer1/2026-11/codex-2026-11-21.md"
        ));
    }

    /// Issue 26, item 4: the forms that passed the doors and were pushed.
    #[test]
    fn finds_the_forms_that_were_pushed_and_spares_their_look_alikes() {
        let pushed = [
            (fake("export PGPASSWORD=", "Xk9#mQ2vLp8z"), "Xk9#mQ2vLp8z"),
            (fake("redis://:", "s3cr3tpw@cache:6379/0"), "s3cr3tpw"),
            (
                fake("SECRET_KEY = 'django-insecure-", "k8x2m9qz7vw4p0n3b6c1d5'"),
                "",
            ),
            (
                fake(
                    "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=",
                    "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3A=;",
                ),
                "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3A=",
            ),
            (
                fake(
                    "curl -H 'Authorization: Bearer ",
                    "4f9a8b7c6d5e4f3a2b1c' api",
                ),
                "4f9a8b7c6d5e4f3a2b1c",
            ),
            (fake("mysql -h db -u app -p", "Pa55word9 app"), "Pa55word9"),
            (fake("sshpass -p ", "Hunter2x ssh deploy@host"), "Hunter2x"),
            (
                fake("docker login registry.io -u bot -p ", "Tr0ub4dor3x"),
                "Tr0ub4dor3x",
            ),
            (fake("psql --password=", "Q7w8e9r0t"), "Q7w8e9r0t"),
            (fake("mysql -u app -p'", "S3cr3tPw' db"), "S3cr3tPw"),
            (
                fake("Authorization: Basic ", "dXNlcjpwYXNzd29yZA=="),
                "dXNlcjpwYXNzd29yZA==",
            ),
        ];
        for (text, secret) in &pushed {
            let hits = scan(text);
            assert!(!hits.is_empty(), "missed: {text}");
            if !secret.is_empty() {
                assert!(
                    hits.iter().any(|m| &text[m.range.clone()] == *secret),
                    "{text}: {:?}",
                    found(text)
                );
            }
            assert!(!redact(text).contains(secret) || secret.is_empty());
        }
        let spared = [
            "mysql -u root -p mydb",
            "mysql -h db -P 3306 -u app -p",
            "docker login --password-stdin registry.io",
            "sshpass -f ~/.pass ssh host",
            "psql --password",
            "the --password flag is deprecated",
            "sshpass -p is insecure, use -f",
            "docker login without -p prompts for it",
            "Authorization: Bearer $TOKEN",
            "Authorization: Bearer <token>",
            "redis://cache:6379/0",
            "https://host:8443/path",
            "SECRET_KEY = os.environ['SECRET_KEY']",
            "AccountKey=<your-key>",
            "git commit -m 'fix password reset' -p",
        ];
        for text in spared {
            assert!(scan(text).is_empty(), "{text}: {:?}", found(text));
        }
    }

    /// Issue 26, item 3: a key in a UTF-16 file (with or without a mark)
    /// is found; a compressed file is said to be one.
    #[test]
    fn decodes_utf16_and_utf32_and_knows_a_compressed_file() {
        let text = fake("key = ", &fake("AKIA", "ZDOC9IS0J8HT9LGM"));
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let mut le_bom = vec![0xff, 0xfe];
        le_bom.extend(&le);
        let mut be_bom = vec![0xfe, 0xff];
        be_bom.extend(&be);
        let mut utf32 = vec![0xff, 0xfe, 0, 0];
        utf32.extend(text.chars().flat_map(|c| (c as u32).to_le_bytes()));
        for bytes in [le, be, le_bom, be_bom, utf32] {
            let Decoded::Text(decoded) = decode(&bytes) else {
                panic!("not text");
            };
            // Without a mark, the bytes are read both ways: the text first.
            assert!(decoded.starts_with(text.as_str()), "{decoded:?}");
            assert!(!scan(&decoded).is_empty());
        }
        assert_eq!(decode(&[0x1f, 0x8b, 8, 0]), Decoded::Compressed("gzip"));
        assert_eq!(decode(b"PK\x03\x04rest"), Decoded::Compressed("zip"));
        assert!(matches!(decode(b"BZh is a prefix"), Decoded::Text(_)));
        assert!(matches!(decode(b"x^2 + y^2"), Decoded::Text(_)));
        // A binary file with long runs of zeros is read both ways: an ASCII
        // key inside it is still found.
        let mut tar = vec![0u8; 512];
        tar.extend(format!(".env\n{text}\n").as_bytes());
        tar.extend(vec![0u8; 1024]);
        let Decoded::Text(read) = decode(&tar) else {
            panic!("not text");
        };
        assert!(!scan(&read).is_empty(), "the key in the tar");
        assert!(matches!(
            decode(b"plain"),
            Decoded::Text(Cow::Borrowed("plain"))
        ));
    }

    /// Issue 41, item 1: what the detector cannot read through is never
    /// text: a zlib or raw deflate stream, LZMA-alone, gzip after other
    /// bytes, a PNG; a wide encoding is decoded strictly, and a compressed
    /// stream hidden between its characters is found; a tar of text files
    /// is still read as text.
    #[test]
    fn what_cannot_be_read_through_is_compressed_or_binary() {
        assert_eq!(
            decode(&[0x78, 0x9c, 0x4b, 0x04]),
            Decoded::Compressed("zlib")
        );
        assert_eq!(
            decode(&[0x5d, 0, 0, 0x80, 0, 0xff, 0xff]),
            Decoded::Compressed("lzma")
        );
        assert_eq!(decode(b"BZh91AY&SY\x00\x01"), Decoded::Compressed("bzip2"));
        // Raw deflate has no magic: binary is enough.
        assert_eq!(
            decode(&[0x4b, 0xcc, 0xf4, 0x74, 0x0c, 0xf4, 0x2b]),
            Decoded::Binary
        );
        // gzip after a text prefix.
        let mut prefixed = b"notes\n".to_vec();
        prefixed.extend([0x1f, 0x8b, 0x08, 0x00, 0xff, 0x03]);
        assert_eq!(decode(&prefixed), Decoded::Binary);
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend(b"\0\0\0\x0dzTXtkey\0\0\x78\x9c");
        assert_eq!(decode(&png), Decoded::Binary);
        // A byte-order mark before garbage: not text.
        assert_eq!(
            decode(&[0xff, 0xfe, 0x00, 0xd8, 0x41, 0x00]),
            Decoded::Binary
        );
        assert_eq!(decode(&[0xff, 0xfe, 0x41]), Decoded::Binary);
        // A gzip stream between UTF-16 characters.
        let mut wide = vec![0xff, 0xfe, b'a', 0];
        wide.extend([0x1f, 0x8b, 0x08, 0x00]);
        assert_eq!(decode(&wide), Decoded::Compressed("gzip"));
        let mut wide = vec![0xfe, 0xff, 0, b'a'];
        wide.extend(b"zTXt");
        assert_eq!(decode(&wide), Decoded::Compressed("PNG zTXt"));
        // Text with zero bytes in it (a tar of text files) is read as it is.
        let mut tar = b"notes.md".to_vec();
        tar.extend([0u8; 100]);
        tar.extend(b"key = x");
        assert!(matches!(decode(&tar), Decoded::Text(_)));
    }

    /// Issue 26, item 4: a key a hard wrap cut across two lines is found
    /// (both parts redacted); prose lines that happen to join are not.
    #[test]
    fn a_token_cut_by_a_line_break_is_found_whole() {
        let key = fake("AKIA", "Q3ZT7VXW2N8RJ5KD");
        let text = format!(
            "deploy key {}\n   {} for the bucket\n",
            &key[..10],
            &key[10..]
        );
        let found = scan(&text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].kind, "AWS access key ID");
        let shown = redact(&text);
        assert!(
            !shown.contains(&key[..10]) && !shown.contains(&key[10..]),
            "{shown}"
        );
        let token = fake("ghp_", "u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d");
        let wrapped = format!("{}\n{}", &token[..20], &token[20..]);
        assert!(!scan(&wrapped).is_empty());
        for prose in [
            "the key is\nin the vault",
            "AKIA is the prefix\nof AWS key ids",
            "sk-\nproj",
        ] {
            assert!(scan(prose).is_empty(), "{prose:?}");
        }
    }

    /// A password or `KEY=value` assignment that a hard wrap cut: found
    /// when its first part says nothing alone, and redacted on both lines
    /// when it does.
    #[test]
    fn an_assignment_or_password_cut_by_a_line_break_is_found_whole() {
        for (text, first, rest) in [
            ("API_KEY=abc\ndef1234567890\n", "abc", "def1234567890"),
            (
                "The staging password is Gr4\nss-Hopper! Use it.",
                "Gr4",
                "ss-Hopper",
            ),
            ("postgres://app:Pa55\nw0rd9@db:5432/app", "Pa55", "w0rd9"),
        ] {
            assert!(!scan(text).is_empty(), "{text:?}");
            let shown = redact(text);
            assert!(
                !shown.contains(first) && !shown.contains(rest),
                "{text:?} shown as {shown:?}"
            );
        }
        // A value its own line holds is found there and not run on into
        // the next line: consecutive lines of a `.env` stay apart.
        for (text, shown) in [
            (
                "DB_PASSWORD=s3cr3tV4\nNEXT_VAR=foo",
                "DB_PASSWORD=[REDACTED]\nNEXT_VAR=foo",
            ),
            (
                "export PGPASSWORD=Xk9#\n  mQ2vLp8z\n",
                "export PGPASSWORD=[REDACTED]\n  mQ2vLp8z\n",
            ),
            (
                "The password is Xk9#mQ2v\nThen restart.",
                "The password is [REDACTED]\nThen restart.",
            ),
        ] {
            assert_eq!(redact(text), shown, "{text:?}");
        }
        for prose in [
            "the password is\nin the vault",
            "password for\nthe staging db is in 1Password",
            "set API_KEY=\n$FROM_ENV before the run",
            "the token\nexpires after 30 days",
            "rotate the secret\nkey every 90 days",
            // A `.env` of placeholders: each line a value of its own, none
            // the tail of the line before (a real handoff's setup notes).
            "GOOGLE_API_KEY=required\nGOOGLE_SEARCH_ENGINE_ID=required\nMAX_CONCURRENT_BROWSERS=3\n",
        ] {
            assert!(scan(prose).is_empty(), "{prose:?}");
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

    /// Seen in a real public handoff: a key written in Markdown, its name in
    /// bold and its value in backticks (`- **ZAI_API_KEY**: `…``).
    #[test]
    fn an_assignment_written_in_markdown_is_found() {
        let value = fake("aa8e1ccdcb48463aa3def6939a959a5c", ".GK2rlnuBm76aHRaI");
        for form in [
            format!("- **ZAI_API_KEY**: `{value}`"),
            format!("- `OPENAI_API_KEY`: `{value}`"),
            format!("__api_key__ = *{value}*"),
        ] {
            assert!(!redact(&form).contains(&value), "{form}");
        }
        assert!(scan("- **API_KEY**: set in the team vault, never here").is_empty());
    }

    #[test]
    fn passwords_written_out_in_prose_are_found() {
        let cases = [
            ("The staging password is hunter2.", "hunter2"),
            ("the password is hunter2", "hunter2"),
            ("Password was Tr0ub4dor&3 until Monday", "Tr0ub4dor&3"),
            ("password: s3cr3t!", "s3cr3t!"),
            ("Admin password: letmein! (rotate it)", "letmein!"),
            ("passwd=qwerty99", "qwerty99"),
            ("DB_PASSWORD=hunter22", "hunter22"),
            ("pwd = Winter2026", "Winter2026"),
            (r#"{"password": "swordfish"}"#, "swordfish"),
            ("password: `opensesame`", "opensesame"),
            (
                "the password for the staging db is pa55word, ok?",
                "pa55word",
            ),
            ("The password is: Zebra#12", "Zebra#12"),
            ("MYSQL_ROOT_PASSWORD: rootpw2026", "rootpw2026"),
        ];
        for (text, secret) in cases {
            let found = found(text);
            assert_eq!(found.len(), 1, "{text}: {found:?}");
            assert_eq!(found[0].1, secret, "{text}");
            assert!(!redact(text).contains(secret), "{text}");
        }
        assert_eq!(
            redact("The staging password is hunter2."),
            "The staging password is [REDACTED]."
        );
    }

    #[test]
    fn prose_about_passwords_is_not_a_password() {
        for prose in [
            "The password reset flow sends one email.",
            "Fixed the password field: it lost focus on submit.",
            "the password field is required",
            "The password is stored in the vault.",
            "The password is in 1Password under staging.",
            "password: 1Password, item 'staging db'",
            "Password is required (min 12 chars).",
            "password: hashed with argon2id",
            "the password is not logged any more",
            "password = getpass()",
            "password = os.environ['DB_PASSWORD']",
            "password: process.env.DB_PASS",
            "password: ${{ secrets.DB_PASSWORD }}",
            "password: \"{{ vault_db_password }}\"",
            "password: $PGPASSWORD",
            "password: <your password>",
            "password: ********",
            "password: xxxx",
            "\"password\": \"string\"",
            "passwd: /etc/passwd",
            "pwd: ~/src/app",
            "password: https://vault.example.com/staging",
            "Passwords must be 12+ characters.",
            "password-protected zip, password hashing, passwordless login",
            "the password isn't rotated yet",
            "password is 8 chars minimum",
            "the password for the admin account is unknown; ask ops",
            "password: [REDACTED]",
        ] {
            assert!(scan(prose).is_empty(), "{prose}: {:?}", found(prose));
        }
    }

    /// What the placeholder rules must not swallow: a value that only opens
    /// a bracket, a password starting with `!`, a key block cut off before
    /// trailing blanks.
    #[test]
    fn placeholders_do_not_swallow_real_values() {
        let key = fake(
            "-----BEGIN RSA ",
            "PRIVATE KEY-----\nMIIEpAIBAAKCAQEAx9kq3Zp7Lr2Wv8Tn",
        );
        for text in [
            "DB_PASSWORD=[Xk9#mQ2vLp8z".to_string(),
            "PASSWORD=!Welcome2026".to_string(),
            format!("{key}\n{}", " ".repeat(40)),
        ] {
            assert!(!scan(&text).is_empty(), "{text:?}");
        }
    }

    /// A token wrapped so that its tail looks like `NAME=` is still joined:
    /// base64 padding is followed by a quote, punctuation or a comment.
    #[test]
    fn a_wrapped_token_ending_in_padding_is_found() {
        let tail = fake("xMzRhYjEy", "Y2Q0ZWY1Njc4OTBhYmNkZWY=");
        for text in [
            format!("client_secret: \"abcdefghij\n{tail}\","),
            format!("\"signing_key\": \"Qk9v\n{tail}\","),
            format!("SIGNING_KEY=Qk9v\n{tail} # rotate monthly"),
            format!("api_key: `Ab3\n{tail}`"),
        ] {
            let shown = redact(&text);
            assert!(!shown.contains(&tail[..10]), "{text:?} shown as {shown:?}");
        }
    }

    /// A key its author cut to its prefix is no secret; a whole one
    /// followed by "..." still is.
    #[test]
    fn a_key_cut_to_its_prefix_is_no_secret() {
        for shown in [
            "OPENROUTER_API_KEY=sk-or-v1-[...]",
            "API_KEY=sk-proj-abc…",
            "ANTHROPIC_API_KEY=sk-ant-api03-...",
            "export OPENAI_API_KEY=sk-proj-AbCd1234...",
        ] {
            assert!(scan(shown).is_empty(), "{shown}");
        }
        let key = fake("sk-or-v1-", "9f8e7d6c5b4a39281706");
        for whole in [
            format!("OPENROUTER_API_KEY={key}..."),
            format!("API_KEY={key}[...]"),
            // Most of a key in short groups, cut: still a secret.
            fake("HEROKU_API_KEY=", "3f2b8c1e-9a7d-4e5f-8b6c-1d2e3f4a5b..."),
            fake("SECRET_KEY=", "A3-ASWWYB-798JRY-LJVD4-23DC2-86TVM-H43EJ..."),
            fake("RECOVERY_TOKEN=", "ab12-cd34-ef56-gh78-ij90-kl12..."),
            fake("AUTH_TOKEN=", "ab12-cd34-ef56-gh78-ij90..."),
            fake("CLIENT_SECRET=", "Wq38Q~B3n.Xk-4fRa_z9YHqO.mLx2…"),
        ] {
            assert!(!scan(&whole).is_empty(), "{whole}");
        }
    }

    /// Forms and look-alikes of the blind-labelled corpus's tuning part
    /// (`tests/fixtures/secrets/`; the held-out part was not looked at).
    #[test]
    fn config_forms_of_passwords_and_keys_are_found_and_fakes_are_not() {
        let age = fake(
            "AGE-SECRET-KEY-1",
            "Y5JDPF0K03KJV5ZPVMGESWF8JQZR8AU7ZWPMRQMM2D9Y8G0QRNZSZVU0ZN",
        );
        let sendgrid = fake(
            "SG.",
            "dbawh5BrTlKPwEEKEUF5jA.Wa9EAZnn0zvgcM7UgEYCf9954qWIKpmXil6X5RL2KjQ",
        );
        for (text, secret) in [
            ("PASSWORD=123456".to_string(), "123456"),
            ("REACT_APP_AUTH_PASSWORD=whiteduke".into(), "whiteduke"),
            (
                "os.environ[\"PGPASSWORD\"] = \"very_secure\"".into(),
                "very_secure",
            ),
            ("if password == \"hardcoded3\":".into(), "hardcoded3"),
            (
                "<password>jjGY0Zn8kPrX2aP3</password>".into(),
                "jjGY0Zn8kPrX2aP3",
            ),
            (
                "machine api.github.com login z password 012345abcdef".into(),
                "012345abcdef",
            ),
            ("APP_KEY = \"iftkeq2y4qj0nbt\"".into(), "iftkeq2y4qj0nbt"),
            (format!("key: {age}"), age.as_str()),
            (format!("sendgrid('{sendgrid}')"), sendgrid.as_str()),
        ] {
            let got: Vec<&str> = scan(&text).iter().map(|m| &text[m.range.clone()]).collect();
            assert_eq!(got, [secret], "{text}");
        }
        let aws_fake = fake("AKIA", "DEADBEEFDEADBEEF");
        let webhook_fake = fake("whsec_", &"0".repeat(64));
        let empty_block = fake(
            "-----BEGIN ENCRYPTED SIGSTORE ",
            "PRIVATE KEY-----\n...\n-----END ENCRYPTED SIGSTORE PRIVATE KEY-----",
        );
        for text in [
            aws_fake.as_str(),
            webhook_fake.as_str(),
            empty_block.as_str(),
            "aws_secret_access_key:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "password: ENC[AES256_GCM,data:8Ll+TDCgzQ==,iv:aao0OSVdFwaB9EGZ0O+Wn5bRJ6do7hgiQioqiwDi1w0=,type:str]",
            "MasterUserPassword: !Ref 'MasterUserPassword'",
            "ADMIN_PASSWORD=changeme123",
            "password = correcthorsebatterystaple",
            "DB_PASSWORD=$DB_PASSWORD",
            "PASSWORD=os.getenv('PASSWORD')",
            "password=self.password",
            "connect(password=args.db_password)",
        ] {
            assert!(scan(text).is_empty(), "{text}: {:?}", found(text));
        }
    }

    #[test]
    fn credentials_in_urls_are_found() {
        for (text, secret) in [
            (
                "clone https://deploy:gh0st-Rider@git.example.com/repo.git",
                "gh0st-Rider",
            ),
            ("https://user:hunter22@host/path", "hunter22"),
            ("redis://default:Xk29sLq@cache:6379", "Xk29sLq"),
            ("amqp://guest:s3cret@rabbit//", "s3cret"),
        ] {
            assert_eq!(found(text), [("password in a URL", secret)], "{text}");
        }
        for text in [
            "http://localhost:8080/path@v2",
            "git@github.com:org/repo.git",
            "ssh://git@host:22/repo",
            "postgres://user:password@localhost/app (the .env.example)",
            "https://user@host/only-a-user",
            "postgres://app:${DB_PASS}@db/app",
            // Documentation's demo logins: the placeholder word, the user
            // name again, a bracketed placeholder.
            "https://user:pass@host/path",
            "amqp://guest:guest@localhost:5672//",
            "redis://[[username]:[password]]@localhost:6379/0",
        ] {
            assert!(scan(text).is_empty(), "{text}: {:?}", found(text));
        }
    }

    #[test]
    fn command_line_user_passwords_are_found() {
        for (text, secret) in [
            ("curl -u admin:hunter2 https://api.example.com", "hunter2"),
            ("`curl -u ci:Tr0ub4dor https://x`", "Tr0ub4dor"),
            ("curl --user deploy:s3cret! -X POST", "s3cret!"),
            ("curl --user=bot:letmein https://x", "letmein"),
            ("-u jenkins:0pen-sesame", "0pen-sesame"),
            ("curl -u \"me:pw2\" x", "pw2"),
        ] {
            assert_eq!(
                found(text),
                [("password on a command line", secret)],
                "{text}"
            );
        }
        for text in [
            "git push -u origin main",
            "curl -u admin https://x (prompts for the password)",
            "docker run -u 1000:1000 image",
            "docker exec -u www-data:www-data app",
            "curl -u $USER:$TOKEN https://x",
            "curl -u \"$CREDS\" https://x",
            "sort -u file.txt",
            "gcc -undef -u:x",
        ] {
            assert!(scan(text).is_empty(), "{text}: {:?}", found(text));
        }
    }

    #[test]
    fn check_names_the_kind_and_line_and_never_the_secret() {
        assert_eq!(check("the note", "all clear\n", "fix"), Ok(()));
        let key = fake("AKIA", "ZDOC9IS0J8HT9LGM");
        let text = format!("# Handoff\n\nDeploy with {key} then\nthe password is hunter2\n");
        let err = check("the session note", &text, "remove it").unwrap_err();
        assert_eq!(err.kind, "AWS access key ID");
        assert_eq!(err.line, 3);
        assert_eq!(err.excerpt, "Deploy with [REDACTED] then");
        assert_eq!(err.more, 1);
        let message = err.to_string();
        assert!(
            !message.contains(&key) && !message.contains("hunter2"),
            "{message}"
        );
        assert!(
            message.starts_with("the session note holds a secret (AWS access key ID) on line 3"),
            "{message}"
        );
        // A private key's line is its first; the block is cut from the excerpt.
        let pem = format!(
            "a\nkey: {}\nMIIEvQIBADANBg\n{}\n",
            fake("-----BEGIN RSA ", "PRIVATE KEY-----"),
            fake("-----END RSA ", "PRIVATE KEY-----")
        );
        let err = check("f", &pem, "x").unwrap_err();
        assert_eq!((err.kind, err.line), ("private key", 2));
        assert_eq!(err.excerpt, "key: [REDACTED]");
        let long = format!("{} the password is hunter2", "word ".repeat(40));
        let err = check("f", &long, "x").unwrap_err();
        assert!(err.excerpt.ends_with('…') && !err.excerpt.contains("hunter2"));
    }

    #[test]
    fn overlapping_matches_merge() {
        let value = fake("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY");
        let text = format!("AWS_SECRET_ACCESS_KEY={value}");
        // The AWS pattern and the generic assignment find the same value: one redaction.
        assert_eq!(scan(&text).len(), 1);
        assert_eq!(redact(&text), "AWS_SECRET_ACCESS_KEY=[REDACTED]");
        // A long password is both a password and a secret assignment.
        assert_eq!(
            redact("DB_PASSWORD=hunter2Xk9mQ2vLp8z"),
            "DB_PASSWORD=[REDACTED]"
        );
    }

    #[test]
    fn redacting_twice_changes_nothing() {
        let text = "the password is hunter2, curl -u a:b0b https://u:p4ss@h";
        let once = redact(text).into_owned();
        assert_eq!(redact(&once), once);
        assert!(scan(&once).is_empty(), "{once}");
    }
}
