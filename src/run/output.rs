//! The output folder of a run: checked before anything is computed or written, so a path
//! that is a file, or a folder that cannot be written, is reported as bad input naming
//! the output folder rather than as an I/O failure halfway through.

use std::path::{Path, PathBuf};

/// Why a path cannot serve as an output folder.
#[derive(Debug, thiserror::Error)]
#[error("output folder `{}`: {reason}; choose another folder with --out", path.display())]
pub struct OutputFolderError {
    /// The output folder as given.
    pub path: PathBuf,
    /// What is wrong with it, in words.
    pub reason: String,
}

/// Whether a file can be created in the existing folder `dir` (a probe file is created
/// and removed at once).
fn writable(dir: &Path) -> Result<(), std::io::Error> {
    let probe = dir.join(format!(".dp-repro-write-probe-{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)?;
    std::fs::remove_file(&probe)
}

/// Checks that `out` can be used as an output folder, without creating it: an existing
/// `out` must be a folder in which files can be created; a missing one must lie under an
/// existing folder in which it can be created.
///
/// # Errors
/// [`OutputFolderError`] saying that `out` (or the ancestor in the way) is not a folder,
/// or that it cannot be written, with the system's reason.
pub fn check_output_folder(out: &Path) -> Result<(), OutputFolderError> {
    let fail = |reason: String| OutputFolderError {
        path: out.to_path_buf(),
        reason,
    };
    // The nearest ancestor that exists (the folder itself when it exists).
    let mut existing = out;
    while !existing.as_os_str().is_empty() && !existing.exists() {
        existing = existing.parent().unwrap_or(Path::new(""));
    }
    let (existing, shown) = if existing.as_os_str().is_empty() {
        (Path::new("."), "the current folder".to_string())
    } else {
        (existing, format!("`{}`", existing.display()))
    };
    if !existing.is_dir() {
        return Err(fail(if existing == out {
            "it exists and is not a folder (a file has this name)".to_string()
        } else {
            format!("{shown} is a file, so no folder can be created inside it")
        }));
    }
    writable(existing).map_err(|e| {
        fail(if existing == out {
            format!("cannot write into it: {e}")
        } else {
            format!("cannot create it inside {shown}: {e}")
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_paths_under_files_are_not_output_folders() {
        let dir = std::env::temp_dir().join(format!("dp-repro-out-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a-file");
        std::fs::write(&file, "x").unwrap();
        let e = check_output_folder(&file).unwrap_err().to_string();
        assert!(e.contains("not a folder") && e.contains("--out"), "{e}");
        let e = check_output_folder(&file.join("sub/out"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("is a file"), "{e}");
        assert!(check_output_folder(&dir).is_ok());
        assert!(check_output_folder(&dir.join("new/deeper")).is_ok());
        assert!(!dir.join("new").exists(), "the check creates nothing");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no probe left behind"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
