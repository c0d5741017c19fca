//! Merging the output folders of shards (`dp-repro merge`).

use super::keys::sha256_hex;
use super::results::{open_for_append, read_runs};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Combines the runs.csv of several output folders of the same spec into `out`: rows are
/// deduplicated by task key; `spec.yaml` and a `run.json` naming the merged folders are
/// written. Returns the spec text and the largest repetition count recorded by the shards.
///
/// # Errors
/// A folder without spec.yaml or runs.csv, folders of different specs (their spec.yaml
/// differ), or an I/O error; each names the folder.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<(String, Option<usize>), String> {
    if dirs.is_empty() {
        return Err("merge needs at least one results folder".into());
    }
    let mut spec: Option<(String, &Path)> = None;
    let mut repetitions: Option<usize> = None;
    for d in dirs {
        let p = d.join("spec.yaml");
        let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        match &spec {
            None => spec = Some((text, d)),
            Some((first, fd)) if *first != text => {
                return Err(format!(
                    "{} and {} hold results of different specs (their spec.yaml differ); refusing to merge",
                    fd.display(),
                    d.display()
                ))
            }
            _ => {}
        }
        if let Ok(rec) = std::fs::read_to_string(d.join("run.json")) {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&rec) {
                if let Some(r) = v["repetitions"].as_u64() {
                    repetitions = Some(repetitions.unwrap_or(0).max(r as usize));
                }
            }
        }
    }
    let (spec_text, _) = spec.expect("at least one folder");
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    std::fs::write(out.join("spec.yaml"), &spec_text)
        .map_err(|e| format!("{}: {e}", out.display()))?;
    let runs_path = out.join("runs.csv");
    let (existing, _, mut w) = open_for_append(&runs_path)?;
    let mut seen: HashSet<String> = existing.into_iter().map(|r| r.task).collect();
    for d in dirs {
        if d.canonicalize().ok() == out.canonicalize().ok() {
            continue;
        }
        for row in read_runs(&d.join("runs.csv"))? {
            if seen.insert(row.task.clone()) {
                w.serialize(&row)
                    .map_err(|e| format!("{}: {e}", runs_path.display()))?;
            }
        }
    }
    w.flush()
        .map_err(|e| format!("{}: {e}", runs_path.display()))?;
    let record = serde_json::json!({
        "spec_hash": sha256_hex(&spec_text),
        "merged_from": dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>(),
        "repetitions": repetitions,
        "dp_repro_version": env!("CARGO_PKG_VERSION"),
        "finished": chrono::Utc::now().to_rfc3339(),
    });
    std::fs::write(
        out.join("run.json"),
        serde_json::to_string_pretty(&record).expect("json") + "\n",
    )
    .map_err(|e| format!("{}: {e}", out.display()))?;
    Ok((spec_text, repetitions))
}
