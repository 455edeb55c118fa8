//! Writing generated files and lockfiles without touching unchanged ones.

use std::path::Path;

/// Writes `contents` unless the file already holds them, so that unchanged
/// output keeps its mtime (and a read-only tree stays untouched). Returns
/// whether it wrote. Creates missing parent directories.
pub fn write_file_if_changed(path: &Path, contents: &[u8]) -> std::io::Result<bool> {
    if std::fs::read(path).is_ok_and(|old| old == contents) {
        return Ok(false);
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, contents)?;
    Ok(true)
}
