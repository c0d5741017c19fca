//! Nothing outside the results folder is written: a spec `name` that is
//! not one plain folder name (`.`, `..`, a slash) is refused before anything runs, and a
//! non-empty `--out` that is not a dp-repro results folder is left untouched unless
//! `--force`. Each case checks the exit code (2), the words that name the field or the
//! folder, and that every file around stays as it was.

mod common;

use std::path::Path;

/// A tiny synthetic spec named `name` (no data file needed).
fn spec(dir: &Path, file: &str, name: &str) -> std::path::PathBuf {
    let text = format!(
        "name: {name}\nseed: 1\nrepetitions: 1\ndatasets:\n  - {{name: sine, synthetic: lpdt_sine, sizes: {{public: 20, private: 60, test: 20}}}}\nepsilons: [1]\nmethods:\n  - {{method: DT, params: {{max_depth: 2}}}}\n"
    );
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    path
}

/// Every file under `dir`, with its bytes (hidden files included).
fn snapshot(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in walkdir(dir) {
        out.push((entry.clone(), std::fs::read(&entry).unwrap()));
    }
    out.sort();
    out
}

fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walkdir(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_name_that_is_not_one_plain_folder_name_is_refused_and_nothing_is_written() {
    for name in ["..", ".", "a/b", "'a\\b'", "' '"] {
        let tmp = tempfile::tempdir().unwrap();
        let work = tmp.path().join("work");
        std::fs::create_dir(&work).unwrap();
        std::fs::write(work.join("summary.csv"), "mine\n").unwrap();
        let path = spec(&work, "s.yaml", name);
        let before = snapshot(tmp.path());
        let (code, _, err) = common::dp_repro_in(&work, &["run", path.to_str().unwrap()]);
        assert_eq!(code, 2, "name {name}: {err}");
        assert!(err.contains("field `name`"), "name {name}: {err}");
        assert_eq!(snapshot(tmp.path()), before, "name {name} wrote files");
    }
}

#[test]
fn a_non_empty_folder_that_is_not_a_results_folder_is_left_alone_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let path = spec(tmp.path(), "s.yaml", "safe");
    let mine = tmp.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("summary.csv"), "my own numbers\n").unwrap();
    std::fs::write(mine.join("notes.txt"), "keep\n").unwrap();
    let before = snapshot(&mine);
    let (code, _, err) = common::into_folder(tmp.path(), "run", &path, &mine, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a dp-repro results folder"), "{err}");
    assert!(err.contains("`notes.txt`, `summary.csv`"), "{err}");
    assert!(err.contains("--force"), "{err}");
    assert_eq!(
        snapshot(&mine),
        before,
        "the folder was written into (a lock file, or more)"
    );
    // `--out .` from inside that folder: the same refusal.
    let (code, _, err) = common::dp_repro_in(&mine, &["run", path.to_str().unwrap(), "--out", "."]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(snapshot(&mine), before);
    // An empty folder, or a new one, is taken.
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let (code, _, err) = common::into_folder(tmp.path(), "run", &path, &empty, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(empty.join("summary.csv").exists());
    // With --force the user asked for it.
    let (code, _, err) = common::into_folder(tmp.path(), "run", &path, &mine, &["--force"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(mine.join("notes.txt")).unwrap(),
        "keep\n"
    );
}
