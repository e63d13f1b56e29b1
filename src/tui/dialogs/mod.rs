//! The dashboard's dialogs, one module each behind [`Dialog`](super::dialog::Dialog):
//! the key help, the message log, a message read whole, a confirmation, a
//! reason typed before an action, the `/` filter and a message being
//! written. Adding one is a module here, its line below, and the key or
//! reply that opens it (see ARCHITECTURE.md).

pub mod compose;
pub mod confirm;
pub mod filter;
pub mod help;
pub mod log;
pub mod reader;
pub mod reason;
pub mod text;

#[cfg(test)]
mod tests {
    /// A dialog is one file here and its `pub mod` line above
    /// (ARCHITECTURE.md): every file is declared.
    #[test]
    fn every_dialog_file_is_declared() {
        let files = crate::tui::fixtures::module_files("dialogs");
        let declared: Vec<String> = include_str!("mod.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("pub mod "))
            .map(|m| m.trim_end_matches(';').to_string())
            .collect();
        assert_eq!(files, declared);
    }
}
