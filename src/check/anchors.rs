//! Anchors of a table of ratios: the baseline's absolute metric against another paper's
//! printed value on the same data sets ([`Anchor`]).

use std::collections::HashMap;
use std::path::Path;

use super::reported::{our_dataset, RowIndex};
use super::{CellCheck, CheckError, CsvTable, SelectedRow, Verdict};
use crate::spec::reported::{Anchor, ReportedSpec};

/// Compares every row of each anchor's file naming its baseline (rows without ε) with
/// our selected row of the baseline on the same data set (names mapped as the reported
/// files', [`ReportedSpec::dataset_names`]). Rows of data sets we did not run, or not in
/// the anchor's `datasets`, are left out; a row we ran is `ok` inside the anchor's band
/// and a regression outside it, its note naming the anchor's reason.
///
/// # Errors
/// [`CheckError::Table`] for a file that does not read (file, line and column).
pub fn anchor_checks(
    spec: &ReportedSpec,
    spec_dir: &Path,
    selected: &[SelectedRow],
    abbreviations: &HashMap<String, String>,
) -> Result<Vec<CellCheck>, CheckError> {
    let index = RowIndex::absolute(selected);
    let mut out = Vec::new();
    for anchor in &spec.anchors {
        out.extend(one_anchor(spec, anchor, spec_dir, &index, abbreviations)?);
    }
    Ok(out)
}

fn one_anchor(
    spec: &ReportedSpec,
    anchor: &Anchor,
    spec_dir: &Path,
    index: &RowIndex,
    abbreviations: &HashMap<String, String>,
) -> Result<Vec<CellCheck>, CheckError> {
    let path = spec_dir.join(&anchor.file);
    let t = CsvTable::read(&path, &["dataset", "method", "value"])?;
    let name = anchor.method_in_file.as_deref().unwrap_or(&anchor.method);
    let file_name = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out = Vec::new();
    for (line, r) in &t.records {
        let line = *line;
        // A missing column reads as empty.
        let has_epsilon = !t.get(r, "epsilon").trim().is_empty();
        if t.get(r, "method") != name || has_epsilon {
            continue;
        }
        let reported = t.text(line, r, "dataset")?;
        if anchor
            .datasets
            .as_ref()
            .is_some_and(|d| !d.contains(&reported))
        {
            continue;
        }
        let dataset = our_dataset(spec, &reported, abbreviations);
        let Some(row) = index.get(&dataset, &anchor.method, None) else {
            continue;
        };
        let paper = t.f64(line, r, "value")?;
        let ok = anchor.band.contains(row.mean, paper);
        out.push(CellCheck {
            dataset,
            reported_dataset: reported,
            method: anchor.method.clone(),
            epsilon: None,
            paper: Some(paper),
            paper_halfwidth: None,
            ours: Some((row.mean, row.std_error(), row.reps)),
            ratio: (paper != 0.0).then(|| row.mean / paper),
            verdict: if ok { Verdict::Ok } else { Verdict::Regression },
            allowed: None,
            band: Some(anchor.band),
            note: (!ok).then(|| {
                format!(
                    "the baseline's absolute metric left its anchor ({}): an error shared by every method of a ratio table",
                    anchor.reason
                )
            }),
            source: format!("{file_name}:{line}"),
            authors: None,
        });
    }
    Ok(out)
}
