//! Reported cells: the paper's numbers against ours, cell by cell.
//!
//! A reported file is a tidy CSV with at least the columns `dataset,method,epsilon,value`
//! (the files of `specs/reported/`, e.g. LPDT Table 2: `dataset,method,epsilon,value,best,
//! second,significant`); `epsilon` is empty for non-private methods (DT) and `value` is
//! empty (or `-`, `−`, `—`) where the paper prints "−". Our side is `selected.csv`: the
//! mean over repetitions of the selected grid point, with its standard error
//! std / √reps.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::reported_rows::{method_key, ratio_rows};
use super::{eps_text, CheckError, CsvTable, SelectedRow};
use crate::spec::reported::{Band, DatasetNames, ReportedSpec, Verdict};

/// Our rows as the reported cells are compared with them: ratios to
/// `reported.value.ratio_to` when the paper reports ratios ([`ratio_rows`]), indexed by
/// data set, method and ε.
pub struct RowIndex {
    rows: Vec<SelectedRow>,
    index: HashMap<(String, String, String), usize>,
}

impl RowIndex {
    /// Indexes `selected` for the cells of `spec` (the first row of a key wins).
    pub fn new(spec: &ReportedSpec, selected: &[SelectedRow]) -> RowIndex {
        match spec.ratio_to() {
            Some(d) => RowIndex::of(ratio_rows(selected, d)),
            None => RowIndex::absolute(selected),
        }
    }

    /// Indexes `selected` as they are (absolute values, whatever the spec's cells are).
    pub fn absolute(selected: &[SelectedRow]) -> RowIndex {
        RowIndex::of(selected.to_vec())
    }

    fn of(rows: Vec<SelectedRow>) -> RowIndex {
        let mut index = HashMap::new();
        for (i, r) in rows.iter().enumerate() {
            let e = r.epsilon.map(eps_text).unwrap_or_default();
            index
                .entry((r.dataset.clone(), r.method.clone(), e))
                .or_insert(i);
        }
        RowIndex { rows, index }
    }

    /// Our row for a reported cell of `dataset`, `method`, `epsilon`. A non-private
    /// method the paper's file carries with an ε (LPCT's CT-W and CT-Q) is our ε-less
    /// row.
    pub fn get(&self, dataset: &str, method: &str, epsilon: Option<f64>) -> Option<&SelectedRow> {
        let key = |e: String| (dataset.to_string(), method.to_string(), e);
        let et = epsilon.map(eps_text).unwrap_or_default();
        self.index
            .get(&key(et))
            .or_else(|| epsilon.and_then(|_| self.index.get(&key(String::new()))))
            .map(|&i| &self.rows[i])
    }
}

/// One reported cell compared with ours.
#[derive(Debug, Clone, PartialEq)]
pub struct CellCheck {
    /// Our data set name (manifest name, e.g. `abalone`).
    pub dataset: String,
    /// The data set as the reported file names it (e.g. `ABA`).
    pub reported_dataset: String,
    /// Method label.
    pub method: String,
    /// ε; `None` for non-private methods.
    pub epsilon: Option<f64>,
    /// The paper's value; `None` where it prints "−".
    pub paper: Option<f64>,
    /// The paper's 95 % interval half-width of `paper` (`reported.halfwidth_column`), when
    /// the files give one.
    pub paper_halfwidth: Option<f64>,
    /// Ours: (mean over repetitions, its standard error std/√reps, reps); `None` when we
    /// have no selected row for this data set, method and ε.
    pub ours: Option<(f64, f64, usize)>,
    /// ours / paper, when both exist and the paper's value is not 0.
    pub ratio: Option<f64>,
    /// The outcome.
    pub verdict: Verdict,
    /// The largest |ours − paper| the tolerance accepts for this cell
    /// ([`Tolerance::allowed`]), when both values exist.
    pub allowed: Option<f64>,
    /// The band of the known deviation that matches the cell, if one does.
    pub band: Option<Band>,
    /// Why the cell is not run ([`NOT_IN_SPEC`], "the paper prints −", …), or, for a
    /// regression that a known deviation matches, that ours left its band; `None`
    /// otherwise.
    pub note: Option<String>,
    /// Where the reported value comes from: `<file name>:<line>`.
    pub source: String,
    /// The authors' code's value of the cell and whom it agrees with
    /// (`reported.authors_code`; [`super::authors_code`]), when their code was run on it.
    pub authors: Option<super::authors_code::AuthorsCell>,
}

impl CellCheck {
    /// Whether the spec runs the cell's data set (false for a cell listed only as
    /// [`NOT_IN_SPEC`]).
    pub fn in_spec(&self) -> bool {
        self.note.as_deref() != Some(NOT_IN_SPEC)
    }
}

/// The note of a reported cell whose data set this spec does not run (a CI spec running
/// a subset of a paper's data sets): listed as not run, never left out silently.
pub const NOT_IN_SPEC: &str = "data set not run by this spec";

/// The verdict of a reported cell with a value `paper` and ours `row`, under `spec`'s
/// tolerance and known deviations; the band of the matching known deviation and, for a
/// regression outside it, the note saying so. A private cell (ε given) whose repetitions
/// all agree is a regression whatever its mean: its run is damaged.
pub fn cell_verdict(
    spec: &ReportedSpec,
    row: &SelectedRow,
    paper: f64,
    paper_halfwidth: Option<f64>,
    names: (&str, &str, &str, Option<f64>),
) -> (Verdict, Option<Band>, Option<String>) {
    let (dataset, reported, method, epsilon) = names;
    let known = spec
        .known_deviations
        .iter()
        .find(|k| k.matches(dataset, reported, method, epsilon));
    let band = known.map(|k| k.band);
    // A private method draws fresh noise at every repetition: repetitions that all agree
    // are a copied or damaged run, whose standard error of 0 would claim a precision no
    // run has.
    if epsilon.is_some() && row.reps >= 2 && row.std == 0.0 {
        return (
            Verdict::Regression,
            band,
            Some(format!(
                "all {} repetitions give the same value (standard deviation 0): a private method draws fresh noise at every repetition, so the run is damaged or its repetitions copied",
                row.reps
            )),
        );
    }
    if spec.tolerance.accepts_cell(
        row.mean,
        row.std_error(),
        row.std,
        row.reps,
        paper,
        paper_halfwidth,
    ) {
        return (Verdict::Ok, band, None);
    }
    match known {
        Some(k) if k.band.contains(row.mean, paper) => {
            (Verdict::KnownDeviation(k.note()), band, None)
        }
        Some(k) => (
            Verdict::Regression,
            band,
            Some(format!(
                "outside the {} of the known deviation: {}",
                k.band.text(),
                k.reason
            )),
        ),
        None => (Verdict::Regression, None, None),
    }
}

/// One row of a reported file as the checks read it: the data set as the file names it,
/// our method label, the ε (read rather than printed under `epsilon_reading`), the paper's
/// value (None for "−") and its half-width.
struct ReportedRow {
    reported: String,
    method: String,
    epsilon: Option<f64>,
    paper: Option<f64>,
    paper_halfwidth: Option<f64>,
}

/// The columns a reported file of `spec` must have.
fn required_columns(spec: &ReportedSpec) -> Vec<&str> {
    let mut required = vec![
        "dataset",
        spec.epsilon_column.as_str(),
        spec.value_column.as_str(),
    ];
    required.extend(spec.method_columns.iter().map(String::as_str));
    required.extend(spec.halfwidth_column.as_deref());
    required.extend(spec.epsilon_reading.as_ref().map(|e| e.column.as_str()));
    required
}

/// Record `r` at `line` of `t`, read as [`ReportedRow`]; None when its method key maps to
/// no label of ours (`reported.methods` leaves it out).
///
/// # Errors
/// A field that does not read (an empty method key, a non-numeric ε or value), naming the
/// file, the line and the column.
fn read_row(
    spec: &ReportedSpec,
    t: &CsvTable,
    line: u64,
    r: &csv::StringRecord,
) -> Result<Option<ReportedRow>, CheckError> {
    let value = spec.value_column.as_str();
    let reported = t.text(line, r, "dataset")?;
    let key = method_key(t, r, &spec.method_columns);
    if key.is_empty() {
        return Err(t
            .field_error(
                line,
                &spec.method_columns.join("/"),
                "",
                "a method key (a non-empty field)",
            )
            .into());
    }
    let Some(method) = spec.method_label(&key) else {
        return Ok(None);
    };
    let epsilon = t.epsilon(line, r, &spec.epsilon_column)?;
    // A table's ε read rather than printed (private cells only).
    let epsilon = match (&spec.epsilon_reading, epsilon) {
        (Some(er), Some(e)) => Some(er.epsilons.get(t.get(r, &er.column)).copied().unwrap_or(e)),
        (_, e) => e,
    };
    let raw = t.get(r, value);
    let paper = if matches!(raw, "" | "-" | "−" | "—") {
        None
    } else {
        Some(t.f64(line, r, value)?)
    };
    let paper_halfwidth = match &spec.halfwidth_column {
        Some(c) => t.opt_f64(line, r, c)?,
        None => None,
    };
    Ok(Some(ReportedRow {
        reported,
        method,
        epsilon,
        paper,
        paper_halfwidth,
    }))
}

/// The data set a reported name stands for: the spec's `reported.datasets` map, else the
/// abbreviation (under `dataset_names: abbreviation`), else the name itself.
pub(crate) fn our_dataset(
    spec: &ReportedSpec,
    reported: &str,
    abbreviations: &HashMap<String, String>,
) -> String {
    match (spec.datasets.get(reported), spec.dataset_names) {
        (Some(ours), _) => ours.clone(),
        (None, DatasetNames::Abbreviation) => abbreviations
            .get(reported)
            .cloned()
            .unwrap_or_else(|| reported.to_string()),
        (None, DatasetNames::Name) => reported.to_string(),
    }
}

/// Reads every row of the reported files of `spec` before anything runs, so that a bad
/// file fails at once rather than after every task: each number parsed as the
/// check parses it, and each name resolved. A method label read from the file as it is
/// (no `reported.methods` map, not a registered method name) that is not one of `methods`
/// (the spec's labels) but close to one (`lpdt-m`, `LPDT-MM`), or a data set that is
/// neither one of `datasets` (every data set a manifest describes, and the spec's) nor
/// listed in `reported.not_available` but close to a name we know (`ABAA`), is an error
/// naming the file, the line and the nearest name. Names far from every one of ours are
/// what the paper ran and this spec does not: they stay, listed as not run. Returns how many rows name a method of the spec.
///
/// # Errors
/// [`CheckError::Table`] for an unreadable file, a field that does not read, or a name that
/// does not resolve; [`CheckError::Invalid`] for an invalid section.
pub fn preflight_reported(
    spec: &ReportedSpec,
    spec_dir: &Path,
    methods: &[&str],
    datasets: &[&str],
    abbreviations: &HashMap<String, String>,
) -> Result<usize, CheckError> {
    spec.validate()?;
    let mut names: Vec<&str> = datasets.to_vec();
    names.extend(abbreviations.keys().map(String::as_str));
    names.extend(spec.datasets.keys().map(String::as_str));
    let mut matched = 0;
    // The data sets and methods the paper's files name, as ours: the authors' code's file
    // may name them too, even where this spec does not run them (a CI subset).
    let (mut file_datasets, mut file_methods) = (HashSet::new(), HashSet::new());
    for file in &spec.files {
        let t = CsvTable::read(&spec_dir.join(file), &required_columns(spec))?;
        for (line, r) in &t.records {
            let Some(row) = read_row(spec, &t, *line, r)? else {
                continue;
            };
            let dataset = our_dataset(spec, &row.reported, abbreviations);
            file_datasets.insert(dataset.clone());
            file_methods.insert(row.method.clone());
            let unavailable = spec.not_available.iter().any(|n| {
                n.datasets
                    .iter()
                    .any(|d| d == &row.reported || d == &dataset)
            });
            // A name no manifest knows is a data set the paper ran and we have no data for
            // (listed as not run); one close to a name we know is a misspelling.
            let known = unavailable || datasets.contains(&dataset.as_str());
            let near = (!known)
                .then(|| crate::suggest::closest(&row.reported, names.iter().copied()))
                .flatten();
            if let Some(near) = near {
                return Err(t
                    .field_error(
                        *line,
                        "dataset",
                        &row.reported,
                        &format!("the name of a data set this tool knows (did you mean `{near}`?)"),
                    )
                    .into());
            }
            // A label the spec's own `reported.methods` map gives, or a method's registered
            // name, is deliberate even when the spec does not run it; a label taken from
            // the file as it is and close to one of ours is a misspelling.
            let deliberate = spec.methods.is_some() || crate::methods::find(&row.method).is_ok();
            let near = (!deliberate)
                .then(|| crate::suggest::closest(&row.method, methods.iter().copied()))
                .flatten();
            if methods.contains(&row.method.as_str()) {
                matched += 1;
            } else if let Some(near) = near {
                let column = spec.method_columns.join("/");
                return Err(t
                    .field_error(
                        *line,
                        &column,
                        &row.method,
                        &format!(
                            "a method label of this spec (did you mean `{near}`?); a method the spec does not run needs a name far from every label, or `reported.methods` to map it"
                        ),
                    )
                    .into());
            }
        }
    }
    // The authors' code's file reads, and its names are ours or far from every one of ours.
    if let Some(a) = &spec.authors_code {
        for ((dataset, method, _), v) in super::authors_code::read_authors_code(a, spec_dir)? {
            if file_datasets.contains(&dataset) && file_methods.contains(&method) {
                continue;
            }
            let source = v.source();
            let near_method = (!methods.contains(&method.as_str()))
                .then(|| crate::suggest::closest(&method, methods.iter().copied()))
                .flatten();
            let near_dataset = (!datasets.contains(&dataset.as_str()))
                .then(|| crate::suggest::closest(&dataset, datasets.iter().copied()))
                .flatten();
            if let Some((what, name, near)) = near_method
                .map(|n| ("method", &method, n))
                .or(near_dataset.map(|n| ("dataset", &dataset, n)))
            {
                return Err(CheckError::Invalid {
                    field: "reported.authors_code.file".into(),
                    message: format!(
                        "{source}: {what} `{name}` is not one of this spec's (did you mean `{near}`?); the file must use our data set names and method labels"
                    ),
                });
            }
        }
    }
    Ok(matched)
}

/// Compares every cell of the reported files of `spec` (paths relative to `spec_dir`)
/// with our selected rows.
///
/// Reported data set names are mapped to ours with `abbreviations` (abbreviation →
/// manifest name, see [`super::abbreviation_map`]) when `dataset_names` is
/// `abbreviation` (the `datasets` map first). Cells of data sets listed in
/// `not_available` get [`Verdict::NotAvailable`]; cells of other data sets absent from
/// `selected` altogether are [`Verdict::NotRun`] with the note [`NOT_IN_SPEC`] (the spec
/// ran a subset of the paper's data sets). A cell without a reported value, or without
/// our row for its method and ε (a non-private method's ε-less row stands for every ε
/// the paper's file gives it), is [`Verdict::NotRun`] with the reason in
/// [`CellCheck::note`]; otherwise [`cell_verdict`] decides: [`Verdict::Ok`] within
/// tolerance, else [`Verdict::KnownDeviation`] inside the band of the first matching
/// selector, else [`Verdict::Regression`]. Cells are returned in file order; identical duplicates (same data set, method, ε and value) are kept once.
///
/// # Errors
/// [`CheckError::Invalid`] for an invalid section ([`ReportedSpec::validate`]),
/// [`CheckError::Table`] ([`super::CsvError`]) for unreadable files (with file and line), and
/// [`CheckError::NoOverlap`] when the files have rows but none names a data set of
/// `selected` (names that do not match).
pub fn compare_reported(
    spec: &ReportedSpec,
    spec_dir: &Path,
    selected: &[SelectedRow],
    abbreviations: &HashMap<String, String>,
) -> Result<Vec<CellCheck>, CheckError> {
    spec.validate()?;
    let ours_ds: HashSet<&str> = selected.iter().map(|r| r.dataset.as_str()).collect();
    let index = RowIndex::new(spec, selected);

    let mut cells = Vec::new();
    let mut seen: HashSet<(String, String, String, Option<u64>)> = HashSet::new();
    let mut reported_names: Vec<String> = Vec::new();
    let mut any_rows = false;
    for file in &spec.files {
        let path = spec_dir.join(file);
        let t = CsvTable::read(&path, &required_columns(spec))?;
        let file_name = path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        for (line, r) in &t.records {
            let line = *line;
            any_rows = true;
            let Some(ReportedRow {
                reported,
                method,
                epsilon,
                paper,
                paper_halfwidth,
            }) = read_row(spec, &t, line, r)?
            else {
                continue;
            };
            if !reported_names.contains(&reported) {
                reported_names.push(reported.clone());
            }
            let dataset = our_dataset(spec, &reported, abbreviations);
            let unavailable = spec
                .not_available
                .iter()
                .find(|n| n.datasets.iter().any(|d| d == &reported || d == &dataset));
            let cell = CellCheck {
                dataset,
                reported_dataset: reported,
                method,
                epsilon,
                paper,
                paper_halfwidth,
                ours: None,
                ratio: None,
                verdict: Verdict::NotRun,
                allowed: None,
                band: None,
                note: None,
                source: format!("{file_name}:{line}"),
                authors: None,
            };
            if let Some(n) = unavailable {
                cells.push(CellCheck {
                    verdict: Verdict::NotAvailable(n.reason.clone()),
                    note: Some(n.reason.clone()),
                    ..cell
                });
                continue;
            }
            let (dataset, reported, method) = (&cell.dataset, &cell.reported_dataset, &cell.method);
            let in_spec = ours_ds.contains(dataset.as_str());
            let et = epsilon.map(eps_text).unwrap_or_default();
            if !seen.insert((
                dataset.clone(),
                method.clone(),
                et.clone(),
                paper.map(f64::to_bits),
            )) {
                continue;
            }
            let row = index.get(dataset, method, epsilon);
            let ours = row.map(|s| (s.mean, s.std_error(), s.reps));
            let ratio = match (paper, ours) {
                (Some(p), Some((m, _, _))) if p != 0.0 => Some(m / p),
                _ => None,
            };
            let allowed = match (paper, row) {
                (Some(p), Some(r)) => {
                    Some(
                        spec.tolerance
                            .allowed(r.std_error(), r.std, r.reps, p, paper_halfwidth),
                    )
                }
                _ => None,
            };
            let (verdict, band, note) = match (paper, row) {
                (Some(p), Some(row)) => cell_verdict(
                    spec,
                    row,
                    p,
                    paper_halfwidth,
                    (dataset, reported, method, epsilon),
                ),
                (None, _) => (
                    Verdict::NotRun,
                    None,
                    Some("the paper prints no value".to_string()),
                ),
                (Some(_), None) if !in_spec => {
                    (Verdict::NotRun, None, Some(NOT_IN_SPEC.to_string()))
                }
                (Some(_), None) => (
                    Verdict::NotRun,
                    None,
                    Some(format!(
                        "no result of this spec for {method} at {}",
                        epsilon.map_or("no ε".to_string(), |e| format!("ε = {e}"))
                    )),
                ),
            };
            cells.push(CellCheck {
                ours,
                ratio,
                verdict,
                allowed,
                band,
                note,
                ..cell
            });
        }
    }
    if any_rows && !cells.iter().any(CellCheck::in_spec) {
        let mut ours: Vec<&str> = ours_ds.into_iter().collect();
        ours.sort_unstable();
        return Err(CheckError::NoOverlap {
            files: spec
                .files
                .iter()
                .map(|f| spec_dir.join(f).display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            reported: reported_names.join(", "),
            ours: ours.join(", "),
        });
    }
    super::authors_code::attach_authors_code(spec, spec_dir, &mut cells)?;
    Ok(cells)
}
