//! The one binding table: it dispatches keys, and the footer and the `?`
//! help are generated from it, so they can never disagree. Keys can be
//! rebound in `[dashboard.keys]` of handover.toml (`command = "key"` or a
//! list of keys).

use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::command::{Command, View};

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Everywhere.
    Global,
    /// Only in one view.
    In(View),
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// Name used in `[dashboard.keys]`.
    pub name: &'static str,
    /// What it does.
    pub command: Command,
    /// Default keys (first one is shown).
    pub keys: &'static [&'static str],
    /// Short footer label (empty: not in the footer).
    pub label: &'static str,
    /// Help text.
    pub help: &'static str,
    /// Where it applies.
    pub scope: Scope,
}

const fn b(
    name: &'static str,
    command: Command,
    keys: &'static [&'static str],
    label: &'static str,
    help: &'static str,
    scope: Scope,
) -> Binding {
    Binding {
        name,
        command,
        keys,
        label,
        help,
        scope,
    }
}

/// The default bindings, in help order.
#[rustfmt::skip]
pub const BINDINGS: &[Binding] = &[
    b("pause", Command::TogglePause, &["p"], "pause", "toggle PAUSE (stops all automation)", Scope::Global),
    b("resume", Command::Resume, &["r"], "resume", "resume the interrupted handover", Scope::Global),
    b("abandon", Command::Abandon, &["a"], "abandon", "abandon the interrupted handover (asks to confirm)", Scope::Global),
    b("retry", Command::Retry, &["R"], "retry", "retry the failed step (the selected one in Run)", Scope::Global),
    b("mark-read", Command::MarkRead, &["m"], "read", "mark the selected message read", Scope::In(View::Inbox)),
    b("prev-queue", Command::PrevQueue, &["["], "", "previous agent's inbox", Scope::In(View::Inbox)),
    b("next-queue", Command::NextQueue, &["]"], "agent", "next agent's inbox", Scope::In(View::Inbox)),
    b("diff", Command::DiffSelected, &["enter"], "diff", "diff the selected version with the one before", Scope::In(View::State)),
    b("side-by-side", Command::ToggleSideBySide, &["s"], "split", "unified / side-by-side diff", Scope::In(View::State)),
    b("next-tab", Command::NextTab, &["tab", "l", "right"], "", "next tab", Scope::Global),
    b("prev-tab", Command::PrevTab, &["backtab", "h", "left"], "", "previous tab", Scope::Global),
    b("tab-1", Command::Tab(1), &["1"], "", "tab 1", Scope::Global),
    b("tab-2", Command::Tab(2), &["2"], "", "tab 2", Scope::Global),
    b("tab-3", Command::Tab(3), &["3"], "", "tab 3", Scope::Global),
    b("tab-4", Command::Tab(4), &["4"], "", "tab 4", Scope::Global),
    b("tab-5", Command::Tab(5), &["5"], "", "tab 5", Scope::Global),
    b("tab-6", Command::Tab(6), &["6"], "", "tab 6", Scope::Global),
    b("up", Command::Up, &["k", "up"], "", "move up", Scope::Global),
    b("down", Command::Down, &["j", "down"], "", "move down", Scope::Global),
    b("page-up", Command::PageUp, &["ctrl-u", "pageup"], "", "page up", Scope::Global),
    b("page-down", Command::PageDown, &["ctrl-d", "pagedown"], "", "page down", Scope::Global),
    b("top", Command::Top, &["g", "home"], "", "top", Scope::Global),
    b("bottom", Command::Bottom, &["G", "end"], "", "bottom", Scope::Global),
    b("refresh", Command::Refresh, &["ctrl-r"], "", "reload everything now", Scope::Global),
    b("help", Command::Help, &["?"], "help", "this help", Scope::Global),
    b("quit", Command::Quit, &["q", "ctrl-c"], "quit", "quit", Scope::Global),
];

/// A key, as written in the table and in config: `q`, `R`, `?`, `ctrl-c`,
/// `enter`, `tab`, `backtab`, `up`, `down`, `left`, `right`, `pageup`,
/// `pagedown`, `home`, `end`, `esc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeySpec {
    code: KeyCode,
    ctrl: bool,
}

impl KeySpec {
    /// Parse a key name; `None` if it is not one.
    pub fn parse(name: &str) -> Option<Self> {
        let (ctrl, rest) = match name.strip_prefix("ctrl-") {
            Some(rest) => (true, rest),
            None => (false, name),
        };
        let code = match rest {
            "enter" => KeyCode::Enter,
            "tab" => KeyCode::Tab,
            "backtab" => KeyCode::BackTab,
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "pageup" => KeyCode::PageUp,
            "pagedown" => KeyCode::PageDown,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "esc" => KeyCode::Esc,
            s if s.chars().count() == 1 => KeyCode::Char(s.chars().next()?),
            _ => return None,
        };
        Some(KeySpec { code, ctrl })
    }

    fn matches(&self, key: &KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        self.code == key.code && self.ctrl == ctrl
    }
}

/// The effective key map: the table with the user's overrides.
#[derive(Debug, Clone)]
pub struct KeyMap {
    entries: Vec<(Binding, Vec<String>)>,
}

impl Default for KeyMap {
    fn default() -> Self {
        KeyMap {
            entries: BINDINGS
                .iter()
                .map(|b| (*b, b.keys.iter().map(|k| k.to_string()).collect()))
                .collect(),
        }
    }
}

impl KeyMap {
    /// The table with `overrides` (binding name → keys); unknown names or keys
    /// are returned as warnings and ignored.
    pub fn with_overrides(overrides: &BTreeMap<String, Vec<String>>) -> (Self, Vec<String>) {
        let mut map = KeyMap::default();
        let mut warnings = Vec::new();
        for (name, keys) in overrides {
            let Some(entry) = map.entries.iter_mut().find(|(b, _)| b.name == name) else {
                warnings.push(format!("[dashboard.keys]: no command named {name:?}"));
                continue;
            };
            let valid: Vec<String> = keys
                .iter()
                .filter(|k| {
                    let ok = KeySpec::parse(k).is_some();
                    if !ok {
                        warnings.push(format!("[dashboard.keys].{name}: unknown key {k:?}"));
                    }
                    ok
                })
                .cloned()
                .collect();
            if !valid.is_empty() {
                entry.1 = valid;
            }
        }
        (map, warnings)
    }

    /// The command `key` means in `view`; view-scoped bindings win.
    pub fn command_for(&self, key: &KeyEvent, view: View) -> Option<Command> {
        let pressed = |keys: &[String]| {
            keys.iter()
                .filter_map(|k| KeySpec::parse(k))
                .any(|k| k.matches(key))
        };
        let find = |scope: Scope| {
            self.entries
                .iter()
                .find(|(b, keys)| b.scope == scope && pressed(keys))
                .map(|(b, _)| b.command)
        };
        find(Scope::In(view)).or_else(|| find(Scope::Global))
    }

    /// Footer hints for `view`: (first key, label): the view's own keys, then
    /// help (the way to everything else, so it survives a narrow footer),
    /// then the global ones.
    pub fn footer(&self, view: View) -> Vec<(String, &'static str)> {
        let (mut local, mut help, mut global) = (Vec::new(), Vec::new(), Vec::new());
        for (b, keys) in &self.entries {
            if b.label.is_empty() {
                continue;
            }
            let hint = (keys[0].clone(), b.label);
            match b.scope {
                _ if b.command == Command::Help => help.push(hint),
                Scope::In(v) if v == view => local.push(hint),
                Scope::Global => global.push(hint),
                Scope::In(_) => {}
            }
        }
        local.append(&mut help);
        local.append(&mut global);
        local
    }

    /// Help rows: (keys joined, help text, scope label); the numbered tab
    /// keys share one row.
    pub fn help(&self) -> Vec<(String, &'static str, &'static str)> {
        let mut rows = Vec::new();
        let mut tab_keys = Vec::new();
        for (b, keys) in &self.entries {
            if let Command::Tab(_) = b.command {
                tab_keys.push(keys[0].clone());
                if tab_keys.len() == 1 {
                    rows.push((String::new(), "jump to a tab", ""));
                }
                let at = rows.len() - 1;
                rows[at].0 = tab_keys.join(" ");
                continue;
            }
            let scope = match b.scope {
                Scope::Global => "",
                Scope::In(v) => v.title(),
            };
            rows.push((keys.join(" "), b.help, scope));
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn table_dispatches_and_scopes() {
        let m = KeyMap::default();
        assert_eq!(
            m.command_for(&key(KeyCode::Char('p')), View::Inbox),
            Some(Command::TogglePause)
        );
        assert_eq!(
            m.command_for(&key(KeyCode::Char('R')), View::Run),
            Some(Command::Retry)
        );
        assert_eq!(
            m.command_for(&key(KeyCode::Char('m')), View::Run),
            None,
            "mark-read is Inbox-only"
        );
        assert_eq!(
            m.command_for(&key(KeyCode::Char('j')), View::Run),
            Some(Command::Down)
        );
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(m.command_for(&ctrl_c, View::Run), Some(Command::Quit));
        assert_eq!(m.command_for(&key(KeyCode::Char('c')), View::Run), None);
    }

    #[test]
    fn every_default_key_parses_and_none_is_bound_twice_in_a_scope() {
        let mut seen = std::collections::HashSet::new();
        for b in BINDINGS {
            for k in b.keys {
                let spec = KeySpec::parse(k).unwrap_or_else(|| panic!("{k} does not parse"));
                let scope = format!("{:?}", b.scope);
                assert!(seen.insert((format!("{spec:?}"), scope)), "{k} bound twice");
            }
        }
    }

    #[test]
    fn every_view_has_its_numbered_tab_key() {
        let m = KeyMap::default();
        for n in 1..=View::ALL.len() {
            let digit = char::from_digit(n as u32, 10).unwrap();
            assert_eq!(
                m.command_for(&key(KeyCode::Char(digit)), View::Run),
                Some(Command::Tab(n as u8)),
                "tab {n}"
            );
        }
    }

    #[test]
    fn overrides_rebind_and_report_mistakes() {
        let overrides = BTreeMap::from([
            ("pause".to_string(), vec!["P".to_string()]),
            ("nope".to_string(), vec!["x".to_string()]),
            ("quit".to_string(), vec!["ctrl-nonsense".to_string()]),
        ]);
        let (m, warnings) = KeyMap::with_overrides(&overrides);
        assert_eq!(
            m.command_for(&key(KeyCode::Char('P')), View::Run),
            Some(Command::TogglePause)
        );
        assert_eq!(m.command_for(&key(KeyCode::Char('p')), View::Run), None);
        assert_eq!(
            m.command_for(&key(KeyCode::Char('q')), View::Run),
            Some(Command::Quit)
        );
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(m.footer(View::Run).contains(&("P".to_string(), "pause")));
    }

    #[test]
    fn footer_and_help_come_from_the_table() {
        let m = KeyMap::default();
        let footer = m.footer(View::State);
        assert_eq!(footer[0], ("enter".to_string(), "diff"));
        assert_eq!(
            footer[2],
            ("?".to_string(), "help"),
            "help right after the view's own keys"
        );
        assert!(
            footer.iter().all(|(_, label)| *label != "read"),
            "Inbox-only keys stay out of other footers"
        );
        let help = m.help();
        assert_eq!(
            help.len(),
            BINDINGS.len() - (View::ALL.len() - 1),
            "the numbered tab keys share a row"
        );
        assert!(help.contains(&("1 2 3 4 5 6".to_string(), "jump to a tab", "")));
    }
}
