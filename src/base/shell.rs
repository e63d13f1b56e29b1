//! Text for a POSIX shell: one word quoted, and how the running binary is
//! named in a command an agent or a person will type.

use std::borrow::Cow;

/// `text` as one single-quoted shell word.
pub fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// `text` as one shell word: as it is when it needs no quoting (letters,
/// digits, `/._-+:@%=,`), else single-quoted.
pub fn word(text: &str) -> Cow<'_, str> {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%=,".contains(c));
    if plain {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(quote(text))
    }
}

/// This binary as a command word that works in any shell: its absolute
/// path as this process was started (a login shell, as Codex runs its
/// commands in, may not have it on `PATH`), or `agent-handover` when that
/// path cannot be told (or the file was replaced since it started).
pub fn own_command() -> String {
    std::env::current_exe()
        .ok()
        .filter(|p| p.is_file())
        .map(|p| word(&p.to_string_lossy()).into_owned())
        .unwrap_or_else(|| "agent-handover".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_when_a_shell_would_split_or_expand_them() {
        assert_eq!(
            word("/usr/local/bin/agent-handover"),
            "/usr/local/bin/agent-handover"
        );
        assert_eq!(word("/home/a b/bin/x"), "'/home/a b/bin/x'");
        assert_eq!(word("it's"), "'it'\\''s'");
        assert_eq!(word("$HOME"), "'$HOME'");
        assert_eq!(word(""), "''");
    }

    #[test]
    fn the_own_command_is_this_binary() {
        let own = own_command();
        assert!(
            std::path::Path::new(own.trim_matches('\'')).is_absolute(),
            "{own}"
        );
    }
}
