//! The output folder of a run: checked before anything is computed or written, so a path
//! that is a file, or a folder that cannot be written, is reported as bad input naming
//! the output folder rather than as an I/O failure halfway through.

use std::path::{Path, PathBuf};

/// Why a path cannot serve as an output folder.
#[derive(Debug, thiserror::Error)]
#[error("output folder `{}`: {reason}", path.display())]
pub struct OutputFolderError {
    /// The output folder as given.
    pub path: PathBuf,
    /// What is wrong with it and what to do, in words.
    pub reason: String,
}

/// The advice [`check_output_folder`] ends its reasons with.
const CHOOSE_ANOTHER: &str = "choose another folder with --out";

impl OutputFolderError {
    /// The same error for a command whose results folder is given by `--results`
    /// (`check`) rather than `--out`: the advice names that flag.
    pub fn for_results_flag(mut self) -> Self {
        self.reason = self.reason.replace("--out", "--results");
        self
    }

    /// The same error for `dp-repro table`, which renders a results folder where it is
    /// and has no `--out`: the advice says what it can do instead.
    pub fn for_table(mut self) -> Self {
        self.reason = self.reason.replace(
            CHOOSE_ANOTHER,
            "`dp-repro table` writes into the results folder itself (it has no --out): \
             make the folder writable, or copy it to a folder you can write into and run \
             `dp-repro table` on the copy",
        );
        self
    }
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

/// Why `path` is a symbolic link that leads nowhere, if it is one: it loops (following
/// it comes back to a link already followed) or its target does not exist.
fn unresolved_link(path: &Path) -> Option<String> {
    let target = std::fs::read_link(path).ok()?;
    match std::fs::metadata(path) {
        Ok(_) => None,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(format!(
            "is a symbolic link that does not resolve: it points to `{}`, which does not \
             exist (create that folder first, or remove the link)",
            target.display()
        )),
        Err(_) => Some(format!(
            "is a symbolic link that loops: it points to `{}`, and following the links \
             comes back to a link already followed, never to a folder",
            target.display()
        )),
    }
}

/// Checks that `out` can be used as an output folder, without creating it: an existing
/// `out` must be a folder in which files can be created; a missing one must lie under an
/// existing folder in which it can be created.
///
/// # Errors
/// [`OutputFolderError`] saying that `out` (or the ancestor in the way) is not a folder,
/// is a symbolic link that loops or points nowhere, or cannot be written, with the
/// system's reason.
pub fn check_output_folder(out: &Path) -> Result<(), OutputFolderError> {
    let fail = |reason: String| OutputFolderError {
        path: out.to_path_buf(),
        reason: format!("{reason}; {CHOOSE_ANOTHER}"),
    };
    // The nearest ancestor that exists (the folder itself when it exists).
    let mut existing = out;
    while !existing.as_os_str().is_empty() && !existing.exists() {
        if let Some(why) = unresolved_link(existing) {
            return Err(fail(if existing == out {
                format!("it {why}")
            } else {
                format!("`{}` {why}", existing.display())
            }));
        }
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

/// The lock file of a results folder (held with an advisory exclusive lock while a
/// process writes into the folder).
pub const LOCK_FILE: &str = ".dp-repro.lock";

/// Files and folders a run, `table`, `check` or `merge` writes into a results folder;
/// `--force` removes these (and nothing else) before replacing a folder's results.
fn is_result_entry(name: &str) -> bool {
    const EXACT: [&str; 12] = [
        "runs.csv",
        "run.json",
        "spec.yaml",
        "spec.source.yaml",
        "check.md",
        "check.tex",
        "figures",
        "datasets",
        "reported",
        "summary.csv",
        "selected.csv",
        "tests.csv",
    ];
    let prefixed =
        |p: &str, ext: &[&str]| name.starts_with(p) && ext.iter().any(|e| name.ends_with(e));
    EXACT.contains(&name)
        || prefixed("summary-", &[".csv"])
        || prefixed("selected-", &[".csv"])
        || prefixed("tests-", &[".csv"])
        || prefixed("table-", &[".md", ".tex"])
        || prefixed("notes-", &[".md"])
}

/// The entries of `out` (besides the lock) named in words, when it exists and has any: a
/// folder that is not a results folder and holds files is not written into without
/// `--force`.
fn foreign_entries(out: &Path) -> Option<String> {
    let mut names: Vec<String> = std::fs::read_dir(out)
        .ok()?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != LOCK_FILE)
        .collect();
    if names.is_empty() {
        return None;
    }
    names.sort();
    let shown: Vec<String> = names.iter().take(3).map(|n| format!("`{n}`")).collect();
    let more = names.len().saturating_sub(3);
    Some(if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    })
}

/// A results folder held by this process: an advisory exclusive lock on its
/// [`LOCK_FILE`] (released when the value is dropped), so two processes never write one
/// runs.csv or render one folder at the same time.
#[derive(Debug)]
pub struct OutputFolder {
    path: PathBuf,
    _lock: std::fs::File,
}

impl OutputFolder {
    /// Creates `out` if needed and takes its lock without waiting.
    ///
    /// # Errors
    /// [`OutputFolderError`] when `out` cannot be created or written, or when another
    /// process holds the lock (the folder is in use).
    pub fn lock(out: &Path) -> Result<Self, OutputFolderError> {
        use fs4::fs_std::FileExt;
        check_output_folder(out)?;
        let fail = |reason: String| OutputFolderError {
            path: out.to_path_buf(),
            reason,
        };
        std::fs::create_dir_all(out).map_err(|e| fail(format!("cannot create it: {e}")))?;
        let lock_path = out.join(LOCK_FILE);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| fail(format!("cannot open its lock file {LOCK_FILE}: {e}")))?;
        match file.try_lock_exclusive() {
            Ok(true) => Ok(Self {
                path: out.to_path_buf(),
                _lock: file,
            }),
            Ok(false) => Err(fail(format!(
                "it is in use by another dp-repro process (it holds the lock {}); wait \
                 for that process to finish, or choose another folder",
                lock_path.display()
            ))),
            Err(e) => Err(fail(format!("cannot lock {}: {e}", lock_path.display()))),
        }
    }

    /// Locks `out` and makes it the results folder of `resolved` (the spec at `source`,
    /// whose original text is `source_text`): a folder holding results of a spec with
    /// another [`computed_hash`](crate::spec::resolve::computed_hash) is refused, or with
    /// `force` emptied of its results first (only the runs.csv rows whose task keys are in
    /// `keep()`, the new spec's tasks, computed only then, stay: a task key fixes everything its row depends
    /// on, so those rows are exactly what the new spec would compute); then `spec.yaml` (resolved),
    /// `spec.source.yaml`, the copied reported files and the data sets' manifests are
    /// written. A folder without results, or with results of a spec that computes the same
    /// rows (differing only in tables, figures, claims, repetitions and the like), is
    /// taken as it is, keeping its rows.
    ///
    /// # Errors
    /// [`OutputFolderError`] naming the folder: in use, holding another spec's results
    /// (with the differing fields), or a file that cannot be read, copied or written.
    pub fn claim(
        out: &Path,
        resolved: &crate::spec::ResolvedSpec,
        source: &Path,
        source_text: &str,
        force: bool,
        keep: impl FnOnce() -> std::collections::HashSet<String>,
    ) -> Result<Self, OutputFolderError> {
        let fail = |reason: String| OutputFolderError {
            path: out.to_path_buf(),
            reason,
        };
        // A folder that is not a results folder is left as it is (not even locked) unless
        // --force says to write into it.
        let results_like = out.join("spec.yaml").exists() || out.join("runs.csv").exists();
        if !force && !results_like {
            if let Some(held) = foreign_entries(out) {
                return Err(fail(format!(
                    "it is not a dp-repro results folder (no spec.yaml) and is not empty: it \
                     holds {held}, which a run would overwrite or mix with; nothing was \
                     changed. Choose an empty or new folder with --out, or pass --force to \
                     write into it anyway"
                )));
            }
        }
        let folder = Self::lock(out)?;
        let held = folder.held_spec()?;
        let has_rows = out.join("runs.csv").exists();
        let conflict = match &held {
            Some(old) if crate::spec::resolve::computed_hash(old) != resolved.computed_hash() => {
                let fields = crate::spec::resolve::differing_fields(old, &resolved.value, true);
                let name = old.get("name").and_then(|n| n.as_str()).unwrap_or("?");
                Some(format!(
                    "it holds the results of another spec (`{name}`; differing fields: {})",
                    fields.join(", ")
                ))
            }
            None if has_rows => Some(
                "it holds a runs.csv but no spec.yaml, so its rows cannot be told apart"
                    .to_string(),
            ),
            _ => None,
        };
        if let Some(conflict) = conflict {
            if !force {
                return Err(fail(format!(
                    "{conflict}; nothing was changed. Choose another folder with --out, or \
                     pass --force to replace those results (the rows of tasks this spec \
                     shares are kept)"
                )));
            }
            let (kept, dropped) = folder.remove_results(&keep())?;
            eprintln!(
                "--force: {}: {conflict}; removed its outputs and {dropped} rows of runs.csv, \
                 kept the {kept} rows of this spec's tasks",
                out.display()
            );
        }
        folder.write_spec(resolved, source, source_text)?;
        Ok(folder)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The spec.yaml the folder holds, parsed, if any.
    fn held_spec(&self) -> Result<Option<serde_yaml::Value>, OutputFolderError> {
        held_spec(&self.path).map_err(|reason| OutputFolderError {
            path: self.path.clone(),
            reason,
        })
    }

    /// Removes the result files and folders dp-repro writes (see `is_result_entry`), but
    /// rewrites runs.csv with the rows whose task keys are in `keep`; returns the rows
    /// kept and dropped.
    fn remove_results(
        &self,
        keep: &std::collections::HashSet<String>,
    ) -> Result<(usize, usize), OutputFolderError> {
        let fail = |p: &Path, e: &dyn std::fmt::Display| OutputFolderError {
            path: self.path.clone(),
            reason: format!("--force: cannot remove {}: {e}", p.display()),
        };
        let runs = self.path.join("runs.csv");
        let (mut kept, mut dropped) = (0, 0);
        if runs.exists() {
            let mut rows = super::results::read_runs(&runs).map_err(|e| fail(&runs, &e))?;
            dropped = rows.len();
            rows.retain(|r| keep.contains(&r.task));
            kept = rows.len();
            dropped -= kept;
            super::results::rewrite_runs(&runs, &rows).map_err(|e| fail(&runs, &e))?;
        }
        let entries = std::fs::read_dir(&self.path).map_err(|e| fail(&self.path, &e))?;
        for entry in entries {
            let entry = entry.map_err(|e| fail(&self.path, &e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if !is_result_entry(&name) || name == "runs.csv" {
                continue;
            }
            let p = entry.path();
            if p.is_dir() {
                std::fs::remove_dir_all(&p).map_err(|e| fail(&p, &e))?;
            } else {
                std::fs::remove_file(&p).map_err(|e| fail(&p, &e))?;
            }
        }
        Ok((kept, dropped))
    }

    /// Writes spec.yaml, spec.source.yaml (unless the source is this folder's own
    /// spec.yaml), the reported copies and the manifests.
    fn write_spec(
        &self,
        resolved: &crate::spec::ResolvedSpec,
        source: &Path,
        source_text: &str,
    ) -> Result<(), OutputFolderError> {
        let fail = |p: &Path, e: String| OutputFolderError {
            path: self.path.clone(),
            reason: format!("cannot write {}: {e}", p.display()),
        };
        let same = |a: &Path, b: &Path| matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y);
        let spec_path = self.path.join("spec.yaml");
        let from_here = same(source, &spec_path);
        for (src, rel) in &resolved.copies {
            let dest = self.path.join(rel);
            if same(src, &dest) {
                continue;
            }
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent).map_err(|e| fail(parent, e.to_string()))?;
            }
            std::fs::copy(src, &dest)
                .map_err(|e| fail(&dest, format!("copying {}: {e}", src.display())))?;
        }
        if !resolved.manifests.is_empty() {
            let dir = self.path.join("datasets");
            std::fs::create_dir_all(&dir).map_err(|e| fail(&dir, e.to_string()))?;
            for m in &resolved.manifests {
                let p = dir.join(format!("{}.yaml", m.name));
                let text = format!(
                    "# The data set manifest this results folder was run with (copied by dp-repro).\n{}",
                    serde_yaml::to_string(m).expect("a manifest serializes")
                );
                std::fs::write(&p, text).map_err(|e| fail(&p, e.to_string()))?;
            }
        }
        if !from_here {
            let p = self.path.join("spec.source.yaml");
            std::fs::write(&p, source_text).map_err(|e| fail(&p, e.to_string()))?;
        }
        std::fs::write(&spec_path, resolved.text(source))
            .map_err(|e| fail(&spec_path, e.to_string()))
    }
}

/// The message for a results folder `out` whose runs.csv holds `rows` rows and none of
/// them a task of `exp` (rendering it would print a table of dashes): the spec the rows
/// belong to, as its run.json records it, and the two ways out.
pub(crate) fn foreign_rows(exp: &crate::spec::Experiment, out: &Path, rows: usize) -> String {
    let record = std::fs::read_to_string(out.join("run.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
    let whose = match record
        .as_ref()
        .and_then(|v| Some((v["spec_name"].as_str()?, v["spec"].as_str()?)))
    {
        Some((name, path)) => {
            format!("its run.json says they were computed by spec `{name}` ({path})")
        }
        None => "the folder has no run.json saying which spec computed them".to_string(),
    };
    format!(
        "results folder {}: none of the {rows} rows of its runs.csv is a task of spec `{}` ({}); {whose}. Pass that spec's own results folder, or run `dp-repro run {} --out {}` to compute this spec's rows",
        out.display(),
        exp.spec.name,
        exp.path.display(),
        exp.path.display(),
        out.display()
    )
}

/// Checks, without locking or writing anything, that the results folder `dir` holds
/// results of the spec `resolved` (one that computes the same rows), for commands that
/// only read a folder (`check --sensitivity`). A folder without spec.yaml passes.
///
/// # Errors
/// [`OutputFolderError`] naming the folder, the spec it holds and the differing fields,
/// or a spec.yaml that cannot be read.
pub fn check_results_belong(
    dir: &Path,
    resolved: &crate::spec::ResolvedSpec,
) -> Result<(), OutputFolderError> {
    let fail = |reason: String| OutputFolderError {
        path: dir.to_path_buf(),
        reason,
    };
    match held_spec(dir).map_err(fail)? {
        Some(old) if crate::spec::resolve::computed_hash(&old) != resolved.computed_hash() => {
            let fields = crate::spec::resolve::differing_fields(&old, &resolved.value, true);
            let name = old.get("name").and_then(|n| n.as_str()).unwrap_or("?");
            Err(fail(format!(
                "it holds the results of another spec (`{name}`; differing fields: {}); pass this spec's results folder with --results",
                fields.join(", ")
            )))
        }
        _ => Ok(()),
    }
}

/// The spec.yaml a results folder holds, parsed; None when it has none.
///
/// # Errors
/// A message naming the file that cannot be read or is not YAML.
pub(crate) fn held_spec(dir: &Path) -> Result<Option<serde_yaml::Value>, String> {
    let p = dir.join("spec.yaml");
    if !p.exists() {
        return Ok(None);
    }
    let text =
        std::fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
    serde_yaml::from_str(&text)
        .map(Some)
        .map_err(|e| format!("{} is not YAML: {e}", p.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_not_told_to_use_a_flag_it_lacks() {
        let e = OutputFolderError {
            path: PathBuf::from("res"),
            reason: format!("cannot write into it: denied; {CHOOSE_ANOTHER}"),
        };
        let table = e.for_table().to_string();
        assert!(!table.contains(CHOOSE_ANOTHER), "{table}");
        assert!(
            table.contains("make the folder writable")
                && table.contains("run `dp-repro table` on the copy"),
            "{table}"
        );
    }

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
