//! Metric probes: the `[[metric]]` commands of the project, run by the
//! `metrics` step, and the named numbers their patterns extract from the
//! output ([`MetricsSample`], kept in the step's record). Reporting them
//! across sessions is [`super::metrics`].

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use regex::Regex;
use serde::{Deserialize, Serialize};

use super::process::{self, DEFAULT_COMMAND_TIMEOUT_SECS, Streams};
use crate::base::fsx;
use crate::workspace::config::MetricSection;

/// Output of a probe's command kept for matching: its last 8 MiB.
pub const MAX_OUTPUT_BYTES: usize = 8 * 1024 * 1024;

/// One command to run and the numbers to extract from its output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetricProbe {
    /// Name of the probe (e.g. `tests`).
    pub name: String,
    /// Program and arguments; no shell.
    pub argv: Vec<String>,
    /// Kill it after this long.
    pub timeout_secs: u64,
    /// Whether a failing command fails the handover (default: it is recorded only).
    pub required: bool,
    /// The numbers to extract.
    pub values: Vec<MetricPattern>,
}

/// A named number and the pattern that finds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetricPattern {
    /// Name of the number (unique across all probes).
    pub name: String,
    /// A regex; its first capture group (or the group named `value`) is the number.
    pub pattern: String,
    /// How several matches combine.
    pub combine: Combine,
}

/// How the matches of one pattern become one number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Combine {
    /// The first match.
    First,
    /// The last match (the default: summaries come last).
    #[default]
    Last,
    /// The sum of all matches (e.g. one `test result:` line per test binary).
    Sum,
    /// The largest match.
    Max,
    /// The smallest match.
    Min,
    /// How many lines match (no capture group needed), e.g. `^error`; 0
    /// when none does (never missing once the command started).
    Count,
}

/// The numbers one `metrics` step recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct MetricsSample {
    /// Extracted numbers, in configuration order; a number whose pattern did
    /// not match is absent.
    pub values: IndexMap<String, f64>,
    /// What each command did.
    pub probes: Vec<ProbeOutcome>,
}

impl MetricsSample {
    /// The sample as shown: each command's error (its output's tail) with
    /// its secrets redacted.
    pub fn redacted(mut self) -> Self {
        for error in self.probes.iter_mut().filter_map(|p| p.error.as_mut()) {
            crate::base::secrets::redact_in_place(error);
        }
        self
    }

    /// One line for the step's output, e.g. `passed=30 failed=60; tests failed (exit 1)`.
    pub fn describe(&self) -> String {
        let values: Vec<String> = self
            .values
            .iter()
            .map(|(name, v)| format!("{name}={}", format_value(*v)))
            .collect();
        let mut line = if values.is_empty() {
            "no numbers found".to_string()
        } else {
            values.join(" ")
        };
        for failure in self.probes.iter().filter_map(ProbeOutcome::failure) {
            line.push_str("; ");
            line.push_str(&failure);
        }
        line
    }
}

pub use crate::base::text::number as format_value;

/// How one probe's command went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeOutcome {
    /// The probe's name.
    pub name: String,
    /// Whether the command exited 0.
    pub ok: bool,
    /// Its exit code, when it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Why it failed (cannot start, timed out, killed, exit status), with its output's tail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
    /// Names of the numbers whose pattern did not match.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

impl ProbeOutcome {
    /// `None` when its command succeeded; else e.g. `tests failed (exit 1)`
    /// or `tests failed: timed out after 600s and was killed`.
    pub fn failure(&self) -> Option<String> {
        if self.ok {
            return None;
        }
        Some(match (self.exit_code, &self.error) {
            (Some(code), _) => format!("{} failed (exit {code})", self.name),
            (None, Some(e)) => format!("{} failed: {}", self.name, e.lines().next().unwrap_or("")),
            (None, None) => format!("{} failed", self.name),
        })
    }
}

/// A `[[metric]]` section that cannot be a probe: which section (and
/// value), and what to change.
#[derive(Debug, thiserror::Error)]
pub enum MetricConfigError {
    /// The metric's name is unsafe.
    #[error("[[metric]] {metric:?}: {source}")]
    Name {
        /// The name.
        metric: String,
        /// Why it is refused.
        source: Box<crate::Error>,
    },
    /// Two metrics have the same name.
    #[error("[[metric]] {metric:?} appears twice; give each [[metric]] its own name")]
    Duplicate {
        /// The name.
        metric: String,
    },
    /// The metric has no program.
    #[error("[[metric]] {metric:?} has an empty argv; e.g. argv = [\"cargo\", \"test\"]")]
    EmptyArgv {
        /// The metric.
        metric: String,
    },
    /// Its timeout is out of range.
    #[error("[[metric]] {metric:?}: {source}")]
    Timeout {
        /// The metric.
        metric: String,
        /// The timeout.
        source: process::TimeoutOutOfRange,
    },
    /// It has no `[[metric.value]]`.
    #[error(
        "[[metric]] {metric:?} extracts no numbers; add a [[metric.value]] with a name and a pattern, e.g. name = \"passed\", pattern = '(\\d+) passed'"
    )]
    NoValues {
        /// The metric.
        metric: String,
    },
    /// A value's name is unsafe.
    #[error("[[metric]] {metric:?}, value {value:?}: {source}")]
    ValueName {
        /// The metric.
        metric: String,
        /// The value's name.
        value: String,
        /// Why it is refused.
        source: Box<crate::Error>,
    },
    /// Two values (of any metrics) have the same name.
    #[error(
        "[[metric]] {metric:?}, value {value:?}: the name is taken by another value; value names are unique across all metrics"
    )]
    DuplicateValue {
        /// The metric.
        metric: String,
        /// The value's name.
        value: String,
    },
    /// A `combine` that is none of the modes.
    #[error(
        "[[metric]] {metric:?}, value {value:?}: combine = {combine:?} is not one of first, last, sum, max, min, count"
    )]
    Combine {
        /// The metric.
        metric: String,
        /// The value's name.
        value: String,
        /// The mode as written.
        combine: String,
    },
    /// A value's pattern is not usable.
    #[error("[[metric]] {metric:?}, value {value:?}: {source}")]
    Pattern {
        /// The metric.
        metric: String,
        /// The value's name.
        value: String,
        /// What is wrong with the pattern.
        source: PatternError,
    },
}

/// A metric value's pattern that cannot read a number.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PatternError {
    /// It does not compile.
    #[error("pattern {pattern:?} is not a valid regex: {source}")]
    Invalid {
        /// The pattern.
        pattern: String,
        /// The regex crate's error.
        source: regex::Error,
    },
    /// It has no group to read the number from (and does not only count).
    #[error(
        "pattern {pattern:?} has no capture group for the number; wrap it in parentheses, e.g. '(\\d+) passed' (or use combine = \"count\" to count matching lines)"
    )]
    NoGroup {
        /// The pattern.
        pattern: String,
    },
}

/// Turn the `[[metric]]` sections into probes, checking names and patterns.
///
/// The error names the section and says what to change.
pub fn probes_from_config(
    sections: &[MetricSection],
) -> Result<Vec<MetricProbe>, MetricConfigError> {
    let mut probe_names = HashSet::new();
    let mut value_names = HashSet::new();
    let mut probes = Vec::with_capacity(sections.len());
    for section in sections {
        let name = &section.name;
        let metric = || name.clone();
        fsx::check_name("metric name", name).map_err(|e| MetricConfigError::Name {
            metric: metric(),
            source: Box::new(e),
        })?;
        if !probe_names.insert(name.as_str()) {
            return Err(MetricConfigError::Duplicate { metric: metric() });
        }
        if section.argv.first().is_none_or(String::is_empty) {
            return Err(MetricConfigError::EmptyArgv { metric: metric() });
        }
        if let Some(secs) = section.timeout_secs {
            process::check_timeout(secs).map_err(|source| MetricConfigError::Timeout {
                metric: metric(),
                source,
            })?;
        }
        if section.values.is_empty() {
            return Err(MetricConfigError::NoValues { metric: metric() });
        }
        let mut values = Vec::with_capacity(section.values.len());
        for v in &section.values {
            let value = || v.name.clone();
            fsx::check_name("metric value name", &v.name).map_err(|e| {
                MetricConfigError::ValueName {
                    metric: metric(),
                    value: value(),
                    source: Box::new(e),
                }
            })?;
            if !value_names.insert(v.name.as_str()) {
                return Err(MetricConfigError::DuplicateValue {
                    metric: metric(),
                    value: value(),
                });
            }
            let combine = match v.combine.as_deref() {
                None => Combine::default(),
                Some(c) => Combine::parse(c).ok_or_else(|| MetricConfigError::Combine {
                    metric: metric(),
                    value: value(),
                    combine: c.to_string(),
                })?,
            };
            let pattern = MetricPattern {
                name: v.name.clone(),
                pattern: v.pattern.clone(),
                combine,
            };
            pattern
                .regex()
                .map_err(|source| MetricConfigError::Pattern {
                    metric: metric(),
                    value: value(),
                    source,
                })?;
            values.push(pattern);
        }
        probes.push(MetricProbe {
            name: name.clone(),
            argv: section.argv.clone(),
            timeout_secs: section.timeout_secs.unwrap_or(DEFAULT_COMMAND_TIMEOUT_SECS),
            required: section.required,
            values,
        });
    }
    Ok(probes)
}

impl Combine {
    /// The mode named as in the config (`"sum"`), if it is one.
    fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "first" => Combine::First,
            "last" => Combine::Last,
            "sum" => Combine::Sum,
            "max" => Combine::Max,
            "min" => Combine::Min,
            "count" => Combine::Count,
            _ => return None,
        })
    }

    /// One number from the matches, in output order; `None` when there is none.
    fn apply(self, found: &[f64]) -> Option<f64> {
        match self {
            Combine::First => found.first().copied(),
            Combine::Last => found.last().copied(),
            Combine::Sum => (!found.is_empty()).then(|| found.iter().sum()),
            Combine::Max => found.iter().copied().reduce(f64::max),
            Combine::Min => found.iter().copied().reduce(f64::min),
            Combine::Count => Some(found.len() as f64),
        }
    }
}

impl MetricPattern {
    /// The compiled pattern; an error when it does not compile, or when it
    /// has no group to read the number from (unless it only counts).
    fn regex(&self) -> Result<Regex, PatternError> {
        let re = Regex::new(&self.pattern).map_err(|source| PatternError::Invalid {
            pattern: self.pattern.clone(),
            source,
        })?;
        let has_group = re.captures_len() > 1;
        if self.combine != Combine::Count && !has_group {
            return Err(PatternError::NoGroup {
                pattern: self.pattern.clone(),
            });
        }
        Ok(re)
    }

    /// The numbers `re` finds in `output`, one per match (for `count`: one
    /// per matching line), in output order.
    fn find(&self, re: &Regex, output: &str) -> Vec<f64> {
        let lines = output.lines();
        if self.combine == Combine::Count {
            return lines.filter(|l| re.is_match(l)).map(|_| 1.0).collect();
        }
        lines
            .flat_map(|line| re.captures_iter(line))
            .filter_map(|caps| {
                let group = caps.name("value").or_else(|| caps.get(1))?;
                parse_number(group.as_str())
            })
            .collect()
    }
}

/// A number as commands print it: `30`, `-2`, `0.25`, `1,234`, `1_234.5`,
/// `1e3`; `None` for anything else (and for infinities and NaN).
fn parse_number(text: &str) -> Option<f64> {
    let text = text.trim();
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits = int.trim_start_matches(['+', '-']);
    let grouped = digits.contains([',', '_']);
    if grouped {
        let mut groups = digits.split([',', '_']);
        let head = groups.next().unwrap_or_default();
        let well_formed = (1..=3).contains(&head.len())
            && groups.all(|g| g.len() == 3)
            && digits
                .bytes()
                .all(|b| b.is_ascii_digit() || b == b',' || b == b'_');
        if !well_formed || frac.contains([',', '_']) {
            return None;
        }
    }
    let plain: String = text.chars().filter(|c| !matches!(c, ',' | '_')).collect();
    plain
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && plain.bytes().any(|b| b.is_ascii_digit()))
}

/// Run every probe in `cwd` and extract its numbers. `Err` (with the sample
/// so far) only when a `required` probe's command failed.
///
/// Each pattern is matched against every line of the command's stdout and
/// stderr together (in the order they were written), also when the command
/// failed: a test suite with failures still prints its counts.
pub fn run_probes(
    probes: &[MetricProbe],
    cwd: &Path,
    env: &[(&str, &str)],
) -> Result<MetricsSample, (String, MetricsSample)> {
    let mut sample = MetricsSample::default();
    let mut required_failures = Vec::new();
    for probe in probes {
        let outcome = run_probe(probe, cwd, env, &mut sample.values);
        if probe.required && !outcome.ok {
            required_failures.push(format!(
                "required metric {:?} failed: {}",
                probe.name,
                outcome.error.as_deref().unwrap_or("unknown error")
            ));
        }
        sample.probes.push(outcome);
    }
    if required_failures.is_empty() {
        Ok(sample)
    } else {
        Err((required_failures.join("\n"), sample))
    }
}

/// Run one probe, add the numbers it found to `values`, and say how it went.
fn run_probe(
    probe: &MetricProbe,
    cwd: &Path,
    env: &[(&str, &str)],
    values: &mut IndexMap<String, f64>,
) -> ProbeOutcome {
    let started = Instant::now();
    let timeout = Duration::from_secs(probe.timeout_secs);
    let captured = process::capture(
        &probe.argv,
        cwd,
        timeout,
        env,
        Streams::Merged,
        MAX_OUTPUT_BYTES,
    );
    let (output, exit_code, mut errors) = match &captured {
        Ok(c) => {
            let text = String::from_utf8_lossy(&c.stdout);
            // A line cut at the start of the kept output could misread a number.
            let text = if c.truncated {
                text.split_once('\n')
                    .map_or("", |(_, rest)| rest)
                    .to_string()
            } else {
                text.into_owned()
            };
            let failure = c.failure().map(|e| e.to_string());
            (text, c.exit_code(), failure.into_iter().collect())
        }
        Err(e) => (String::new(), None, vec![e.to_string()]),
    };
    let mut missing = Vec::new();
    for pattern in &probe.values {
        let found = match pattern.regex() {
            Ok(re) if captured.is_ok() => pattern.combine.apply(&pattern.find(&re, &output)),
            Ok(_) => None,
            Err(e) => {
                errors.push(format!("value {:?}: {e}", pattern.name));
                None
            }
        };
        match found {
            Some(v) => {
                values.insert(pattern.name.clone(), v);
            }
            None => missing.push(pattern.name.clone()),
        }
    }
    ProbeOutcome {
        name: probe.name.clone(),
        ok: errors.is_empty(),
        exit_code,
        error: (!errors.is_empty()).then(|| errors.join("; ")),
        duration_ms: started.elapsed().as_millis() as u64,
        missing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sections(toml_text: &str) -> Vec<MetricSection> {
        toml::from_str::<crate::workspace::config::Config>(toml_text)
            .unwrap()
            .metrics
    }

    fn probes(toml_text: &str) -> Result<Vec<MetricProbe>, String> {
        probes_from_config(&sections(toml_text)).map_err(|e| e.to_string())
    }

    /// One probe running `script` with `sh -c`, extracting `values`
    /// (`(name, pattern, combine)`).
    fn probe(script: &str, values: &[(&str, &str, Combine)]) -> MetricProbe {
        MetricProbe {
            name: "probe".into(),
            argv: vec!["sh".into(), "-c".into(), script.into()],
            timeout_secs: 10,
            required: false,
            values: values
                .iter()
                .map(|(name, pattern, combine)| MetricPattern {
                    name: (*name).into(),
                    pattern: (*pattern).into(),
                    combine: *combine,
                })
                .collect(),
        }
    }

    fn run(probes: &[MetricProbe]) -> Result<MetricsSample, (String, MetricsSample)> {
        run_probes(probes, &std::env::temp_dir(), &[])
    }

    #[test]
    fn numbers_as_commands_print_them() {
        for (text, want) in [
            ("30", Some(30.0)),
            (" -2 ", Some(-2.0)),
            ("+7", Some(7.0)),
            ("0.25", Some(0.25)),
            ("1,234", Some(1234.0)),
            ("12,345,678.5", Some(12_345_678.5)),
            ("1_000", Some(1000.0)),
            ("1e3", Some(1000.0)),
            ("1,23", None),
            ("1234,567", None),
            (",", None),
            ("", None),
            ("abc", None),
            ("inf", None),
            ("NaN", None),
            ("1.2.3", None),
        ] {
            assert_eq!(parse_number(text), want, "{text:?}");
        }
    }

    #[test]
    fn config_is_checked_with_clear_messages() {
        let ok = probes(
            "[[metric]]\nname = \"tests\"\nargv = [\"cargo\", \"test\"]\n\
             [[metric.value]]\nname = \"passed\"\npattern = '(\\d+) passed'\ncombine = \"sum\"\n\
             [[metric.value]]\nname = \"errors\"\npattern = '^error'\ncombine = \"count\"\n\
             [[metric.value]]\nname = \"secs\"\npattern = 'took (\\w+ )?(?<value>[\\d.]+)s'\n",
        )
        .unwrap();
        assert_eq!(ok.len(), 1);
        assert_eq!(ok[0].timeout_secs, DEFAULT_COMMAND_TIMEOUT_SECS);
        assert!(!ok[0].required);
        let combines: Vec<Combine> = ok[0].values.iter().map(|v| v.combine).collect();
        assert_eq!(combines, [Combine::Sum, Combine::Count, Combine::Last]);

        let value = "[[metric.value]]\nname = \"n\"\npattern = '(\\d+)'\n";
        for (toml_text, expected) in [
            ("[[metric]]\nname = \"t\"\nargv = []\n".to_string() + value, "empty argv"),
            ("[[metric]]\nname = \"t\"\nargv = [\"x\"]\n".to_string(), "extracts no numbers; add a [[metric.value]]"),
            ("[[metric]]\nname = \"../t\"\nargv = [\"x\"]\n".to_string() + value, "[[metric]] \"../t\""),
            (
                "[[metric]]\nname = \"t\"\nargv = [\"x\"]\n[[metric.value]]\nname = \"n\"\npattern = '('\n".to_string(),
                "is not a valid regex",
            ),
            (
                "[[metric]]\nname = \"t\"\nargv = [\"x\"]\n[[metric.value]]\nname = \"n\"\npattern = 'passed'\n".to_string(),
                "has no capture group",
            ),
            (
                "[[metric]]\nname = \"t\"\nargv = [\"x\"]\n[[metric.value]]\nname = \"n\"\npattern = '(\\d+)'\ncombine = \"avg\"\n".to_string(),
                "combine = \"avg\" is not one of",
            ),
            (
                format!("[[metric]]\nname = \"a\"\nargv = [\"x\"]\n{value}[[metric]]\nname = \"b\"\nargv = [\"y\"]\n{value}"),
                "value \"n\": the name is taken",
            ),
            (
                format!("[[metric]]\nname = \"a\"\nargv = [\"x\"]\n{value}[[metric]]\nname = \"a\"\nargv = [\"y\"]\n"),
                "appears twice",
            ),
            (
                "[[metric]]\nname = \"t\"\nargv = [\"x\"]\ntimeout_secs = 0\n".to_string() + value,
                "timeout_secs = 0 is out of range",
            ),
        ] {
            let err = probes(&toml_text).unwrap_err();
            assert!(err.contains(expected), "{err}\nfor\n{toml_text}");
        }
    }

    #[test]
    fn every_combine_mode() {
        let out = "printf 'test result: ok. 30 passed; 2 failed\\nnoise 99\\ntest result: FAILED. 1,200 passed; 5 failed\\nerror: x\\nerror: y\\n'";
        let p = probe(
            out,
            &[
                ("first", r"(\d[\d,]*) passed", Combine::First),
                ("last", r"(\d[\d,]*) passed", Combine::Last),
                ("sum", r"(\d[\d,]*) passed", Combine::Sum),
                ("max", r"(\d+) failed", Combine::Max),
                ("min", r"(\d+) failed", Combine::Min),
                ("errors", r"^error:", Combine::Count),
                ("none", r"^warning:", Combine::Count),
            ],
        );
        let sample = run(&[p]).unwrap();
        let got: Vec<(&str, f64)> = sample
            .values
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect();
        assert_eq!(
            got,
            [
                ("first", 30.0),
                ("last", 1200.0),
                ("sum", 1230.0),
                ("max", 5.0),
                ("min", 2.0),
                ("errors", 2.0),
                ("none", 0.0),
            ]
        );
        assert!(sample.probes[0].ok && sample.probes[0].missing.is_empty());
        assert_eq!(sample.probes[0].exit_code, Some(0));
    }

    #[test]
    fn every_match_on_a_line_counts_and_stderr_is_read_in_order() {
        let p = probe(
            "echo 'a=1 a=2'; echo 'a=3' >&2; echo 'a=x'",
            &[
                ("sum", r"a=(\d+)", Combine::Sum),
                ("last", r"a=(\d+)", Combine::Last),
            ],
        );
        let sample = run(&[p]).unwrap();
        assert_eq!(sample.values["sum"], 6.0);
        assert_eq!(sample.values["last"], 3.0);
    }

    #[test]
    fn a_failing_command_is_recorded_with_its_numbers_and_missing_ones_listed() {
        let p = probe(
            "echo '3 passed; 4 failed'; echo 'boom' >&2; exit 1",
            &[
                ("passed", r"(\d+) passed", Combine::Last),
                ("skipped", r"(\d+) skipped", Combine::Last),
            ],
        );
        let sample = run(&[p]).unwrap();
        assert_eq!(sample.values.get("passed"), Some(&3.0));
        let o = &sample.probes[0];
        assert!(!o.ok);
        assert_eq!(o.exit_code, Some(1));
        assert_eq!(
            o.error.as_deref(),
            Some("exit status 1: 3 passed; 4 failed\nboom")
        );
        assert_eq!(o.missing, ["skipped"]);
        assert_eq!(sample.describe(), "passed=3; probe failed (exit 1)");
        assert_eq!(o.failure().as_deref(), Some("probe failed (exit 1)"));
    }

    #[test]
    fn a_command_that_cannot_start_or_times_out_is_recorded() {
        let mut missing = probe("", &[("n", r"(\d+)", Combine::Last)]);
        missing.argv = vec!["/no/such/program".into()];
        let mut slow = probe("echo 7; sleep 5", &[("m", r"(\d+)", Combine::Last)]);
        slow.name = "slow".into();
        slow.timeout_secs = 1;
        let sample = run(&[missing, slow]).unwrap();
        let [cannot, timed_out] = &sample.probes[..] else {
            panic!("{sample:?}")
        };
        assert!(!cannot.ok && cannot.exit_code.is_none());
        assert!(
            cannot.error.as_deref().unwrap().contains("cannot start"),
            "{cannot:?}"
        );
        assert_eq!(cannot.missing, ["n"]);
        assert!(
            cannot
                .failure()
                .unwrap()
                .starts_with("probe failed: cannot start")
        );
        assert!(!timed_out.ok && timed_out.exit_code.is_none());
        assert!(
            timed_out
                .error
                .as_deref()
                .unwrap()
                .contains("timed out after 1s"),
            "{timed_out:?}"
        );
        assert!(timed_out.duration_ms < 4000, "{timed_out:?}");
        // What it printed before it was killed still counts.
        assert_eq!(sample.values.get("m"), Some(&7.0));
    }

    #[test]
    fn only_a_required_probe_fails_the_step() {
        let mut required = probe("echo 1 >&2; exit 2", &[("a", r"(\d+)", Combine::Last)]);
        required.required = true;
        let mut fine = probe("echo 5", &[("b", r"(\d+)", Combine::Last)]);
        fine.name = "fine".into();
        let (message, sample) = run(&[required.clone(), fine.clone()]).unwrap_err();
        assert_eq!(
            message,
            "required metric \"probe\" failed: exit status 2: 1"
        );
        assert_eq!(sample.probes.len(), 2, "every probe still runs");
        assert_eq!(sample.values.get("a"), Some(&1.0));
        assert_eq!(sample.values.get("b"), Some(&5.0));
        required.argv[2] = "echo 1".into();
        assert!(run(&[required, fine]).is_ok());
    }
}
