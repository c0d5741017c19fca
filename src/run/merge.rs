//! Merging the output folders of shards (`dp-repro merge`).

use super::results::{open_for_append, read_runs};
use super::{coverage, Coverage};
use crate::spec::resolve::{computed_hash, content_hash, differing_fields};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// What [`merge`] did.
#[derive(Debug)]
pub struct MergeOutcome {
    /// The largest repetition count the shards recorded in run.json (None: none did).
    pub repetitions: Option<usize>,
    /// The shard each folder was run as (`--shard I/N`), as recorded in its run.json.
    pub shards: Vec<Option<(usize, usize)>>,
    /// Rows appended to the merged runs.csv.
    pub rows_added: usize,
    /// Files written into the merged folder, in order.
    pub files: Vec<PathBuf>,
    /// Which task rows of the spec the merged runs.csv covers.
    pub coverage: Coverage,
}

impl MergeOutcome {
    /// Shard numbers (of the largest shard count recorded) whose folder was not among the
    /// merged ones, and those that were but lack rows; empty when no folder recorded a
    /// shard.
    pub fn shard_report(&self) -> Option<(usize, Vec<usize>, Vec<usize>)> {
        let n = self.shards.iter().flatten().map(|&(_, n)| n).max()?;
        let present: HashSet<usize> = self
            .shards
            .iter()
            .flatten()
            .filter(|&&(_, m)| m == n)
            .map(|&(i, _)| i)
            .collect();
        let lacking = self.coverage.shards_lacking(n);
        let absent = lacking
            .iter()
            .copied()
            .filter(|i| !present.contains(i))
            .collect();
        let incomplete = lacking
            .into_iter()
            .filter(|i| present.contains(i))
            .collect();
        Some((n, absent, incomplete))
    }
}

/// A shard folder's spec.yaml, parsed; an error when it has none.
fn read_spec(dir: &Path) -> Result<serde_yaml::Value, String> {
    super::output::held_spec(dir)?.ok_or_else(|| {
        format!(
            "{}: no spec.yaml (is it a results folder of dp-repro run?)",
            dir.display()
        )
    })
}

/// A folder's run.json, parsed (Null when absent or unreadable).
fn read_record(dir: &Path) -> serde_json::Value {
    std::fs::read_to_string(dir.join("run.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null)
}

fn same_folder(a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

/// Copies the spec files of results folder `from` (spec.yaml, spec.source.yaml and the
/// files of `datasets/` and `reported/`) into `to`, returning the files written.
fn copy_spec_files(from: &Path, to: &Path) -> Result<Vec<PathBuf>, String> {
    let io = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    let mut written = Vec::new();
    for name in ["spec.yaml", "spec.source.yaml"] {
        let src = from.join(name);
        if src.exists() {
            let dest = to.join(name);
            std::fs::copy(&src, &dest).map_err(|e| io(&dest, e))?;
            written.push(dest);
        }
    }
    for sub in ["datasets", "reported"] {
        let dir = from.join(sub);
        if !dir.is_dir() {
            continue;
        }
        let dest_dir = to.join(sub);
        std::fs::create_dir_all(&dest_dir).map_err(|e| io(&dest_dir, e))?;
        for entry in std::fs::read_dir(&dir).map_err(|e| io(&dir, e))? {
            let entry = entry.map_err(|e| io(&dir, e))?;
            if entry.path().is_file() {
                let dest = dest_dir.join(entry.file_name());
                std::fs::copy(entry.path(), &dest).map_err(|e| io(&dest, e))?;
                written.push(dest);
            }
        }
    }
    Ok(written)
}

/// Combines the runs.csv of several results folders of the same spec into `out` (which
/// the caller has locked; it may be one of `dirs`): rows are deduplicated by task key; the
/// first folder's spec files (resolved spec.yaml, spec.source.yaml, `datasets/`,
/// `reported/`) and a run.json naming the merged folders are written. Specs are compared
/// by content ([`content_hash`]: comments and layout do not matter). The merged spec is
/// then validated (manifests from `out/datasets` first, then `manifest_dirs`) and the rows
/// are checked against every task of the spec with the largest recorded repetition count:
/// the outcome's [`Coverage`] lists what is missing; the merged runs.csv is written
/// either way, so nothing is lost.
///
/// # Errors
/// No folders, a folder without spec.yaml or runs.csv, folders of different specs (naming
/// the two folders and the differing fields), an `out` holding results of another spec,
/// a merged spec that does not validate, or an I/O error; each names the file or folder.
pub fn merge(
    dirs: &[PathBuf],
    out: &Path,
    manifest_dirs: &[PathBuf],
) -> Result<MergeOutcome, String> {
    if dirs.is_empty() {
        return Err("merge needs at least one results folder".into());
    }
    let mut first: Option<(serde_yaml::Value, &Path)> = None;
    let mut repetitions: Option<usize> = None;
    let mut shards = Vec::new();
    let mut dropped_rows = serde_json::Value::Null;
    for d in dirs {
        let value = read_spec(d)?;
        if !d.join("runs.csv").exists() {
            return Err(format!(
                "{}: no runs.csv (has this folder's run started?)",
                d.display()
            ));
        }
        match &first {
            None => first = Some((value, d)),
            Some((v, fd)) if content_hash(v) != content_hash(&value) => {
                return Err(format!(
                    "{} and {} hold results of different specs (differing fields: {}); refusing to merge",
                    fd.display(),
                    d.display(),
                    differing_fields(v, &value, false).join(", ")
                ))
            }
            _ => {}
        }
        let rec = read_record(d);
        if dropped_rows.is_null() {
            // The same data sets load the same way in every shard.
            dropped_rows = rec["dropped_rows"].clone();
        }
        if let Some(r) = rec["repetitions"].as_u64() {
            repetitions = Some(repetitions.unwrap_or(0).max(r as usize));
        }
        shards.push(rec["shard"].as_str().and_then(|s| {
            let (i, n) = s.split_once('/')?;
            Some((i.parse().ok()?, n.parse().ok()?))
        }));
    }
    let (spec_value, first_dir) = first.expect("at least one folder");
    let out_is_shard = dirs.iter().any(|d| same_folder(d, out));
    if !out_is_shard && out.join("spec.yaml").exists() {
        let held = read_spec(out)?;
        if computed_hash(&held) != computed_hash(&spec_value) {
            return Err(format!(
                "{} holds results of another spec (differing fields: {}); choose another --out",
                out.display(),
                differing_fields(&held, &spec_value, true).join(", ")
            ));
        }
    }
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut files = if same_folder(first_dir, out) {
        Vec::new()
    } else {
        copy_spec_files(first_dir, out)?
    };
    let runs_path = out.join("runs.csv");
    let appending = open_for_append(&runs_path)?;
    let mut w = appending.writer;
    let mut seen: HashSet<String> = appending.rows.into_iter().map(|r| r.task).collect();
    let mut rows_added = 0;
    for d in dirs {
        if same_folder(d, out) {
            continue;
        }
        for row in read_runs(&d.join("runs.csv"))? {
            if seen.insert(row.task.clone()) {
                w.serialize(&row)
                    .map_err(|e| format!("{}: {e}", runs_path.display()))?;
                rows_added += 1;
            }
        }
    }
    w.flush()
        .map_err(|e| format!("{}: {e}", runs_path.display()))?;
    files.push(runs_path.clone());

    let spec_path = out.join("spec.yaml");
    let (parsed, _) = crate::spec::parse_file(&spec_path).map_err(|e| e.to_string())?;
    let mut search = vec![out.join("datasets")];
    search.extend(manifest_dirs.iter().cloned());
    let mut exp = crate::spec::validate(parsed, &spec_path, &search).map_err(|e| e.to_string())?;
    if let Some(r) = repetitions {
        exp.repetitions = r;
    }
    let coverage = coverage(&exp, &seen);

    let record = serde_json::json!({
        "spec_hash": content_hash(&spec_value),
        "computed_hash": computed_hash(&spec_value),
        "merged_from": dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>(),
        "shards": shards.iter().map(|s| s.map(|(i, n)| format!("{i}/{n}"))).collect::<Vec<_>>(),
        "repetitions": exp.repetitions,
        "task_rows_expected": coverage.expected_rows,
        "task_rows_missing": coverage.missing_rows(),
        "dropped_rows": dropped_rows,
        "dp_repro_version": env!("CARGO_PKG_VERSION"),
        "finished": chrono::Utc::now().to_rfc3339(),
    });
    let record_path = out.join("run.json");
    std::fs::write(
        &record_path,
        serde_json::to_string_pretty(&record).expect("json") + "\n",
    )
    .map_err(|e| format!("{}: {e}", record_path.display()))?;
    files.push(record_path);
    Ok(MergeOutcome {
        repetitions,
        shards,
        rows_added,
        files,
        coverage,
    })
}
