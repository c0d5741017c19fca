//! From runs.csv to summaries, selected grid points, paired tests and tables. Everything
//! here reads runs.csv only, so `dp-repro table` rebuilds the same outputs without
//! rerunning, and outputs are byte-identical whatever the thread count of the run.

pub mod marks;
pub mod table;

use self::table::{build_table, Selected, SelectedMap};
use crate::report::{render_latex, render_markdown, render_notes};
use crate::run::read_runs;
use crate::run::seeds::epsilon_text;
use crate::spec::raw::Selection;
use crate::spec::Experiment;
use crate::stats::{summarize, wilcoxon_signed_rank, Alternative};
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

/// (data set, method label, ε text ("" for non-private), params key).
pub type GroupKey = (String, String, String, String);

/// A grid point's place in the spec's order: data set, method, (0 for no ε | 1, ε), grid
/// point (`usize::MAX` for names the spec does not list); ties go by the params text.
type SortKey = (usize, usize, (u8, f64), usize);

/// Outputs of [`finish`].
#[derive(Debug, Clone)]
pub struct Finished {
    /// (table name, Markdown) of every rendered table, in spec order.
    pub markdown: Vec<(String, String)>,
    /// Number of runs.csv rows read.
    pub rows: usize,
    /// Figure files written (`figures/<name>-<dataset>.svg`, `.png`, `.csv`), in order.
    pub figures: Vec<std::path::PathBuf>,
    /// Every file written (summary, selections, tests, tables, then the figures), in order.
    pub files: Vec<std::path::PathBuf>,
}

/// Reads `out/runs.csv` and writes `summary.csv` (every grid point), `selected.csv` (the
/// selected grid point per data set × method × ε), `tests.csv` (one-sided Wilcoxon
/// signed-rank tests between the selected methods of every data set × ε block) and
/// `table-<name>.tex` / `.md` for every table of the spec, with the LaTeX table's full
/// notes in `notes-<name>.md`, and `marks.csv` (every table cell's marks, [`marks`]); the
/// files of a selection after the first carry its name (`selected-public.csv`).
///
/// # Errors
/// A message naming the file that could not be read, written or rendered.
pub fn finish(exp: &Experiment, out: &Path) -> Result<Finished, String> {
    // Only the rows of this experiment's tasks count (a grid shrunk since the run, for
    // instance, leaves rows that belong to no task any more).
    // The key set is hashed while runs.csv is read (both take a while on large specs).
    let (keys, runs) = rayon::join(
        || crate::run::keys::all_task_keys(exp),
        || read_runs(&out.join("runs.csv")),
    );
    let mut runs = runs?;
    let read = runs.len();
    let keep: Vec<bool> = {
        use rayon::prelude::*;
        runs.par_iter().map(|r| keys.contains(&r.task)).collect()
    };
    let mut keep = keep.into_iter();
    runs.retain(|_| keep.next().unwrap_or(false));
    drop(keys);
    if read > 0 && runs.is_empty() {
        return Err(crate::run::output::foreign_rows(exp, out, read));
    }
    let lower = exp.lower_is_better();

    // Canonical orders from the spec: data sets, methods, ε, grid points.
    let ds_order: HashMap<&str, usize> = exp
        .datasets
        .iter()
        .enumerate()
        .map(|(i, d)| (d.name.as_str(), i))
        .collect();
    let m_order: HashMap<&str, usize> = exp
        .methods
        .iter()
        .enumerate()
        .map(|(i, m)| (m.label.as_str(), i))
        .collect();
    let mut grid_order: HashMap<(&str, String), usize> = HashMap::new();
    for m in &exp.methods {
        let mut i = 0;
        for s in &m.structural {
            for q in &m.mechanism {
                grid_order.insert((m.label.as_str(), s.join(q).key()), i);
                i += 1;
            }
        }
    }

    // Rows by metric: the test metric, and the rows of the honest selection modes
    // (`cv_<metric>`: mean held-out metric over folds; `pv_<metric>`: test metric of the
    // fit on the training users; `pv_score`: the validation users' mean noisy loss).
    let metric = exp
        .datasets
        .first()
        .map(|d| d.task.metric_name())
        .unwrap_or("mse");
    // Each grid point's key is built once (rows borrow their strings until then), with
    // its position in the canonical order.
    type RowKey<'r> = (&'r str, &'r str, Option<u64>, &'r str);
    let mut group_of: FxHashMap<RowKey<'_>, usize> = FxHashMap::default();
    let mut group_keys: Vec<(GroupKey, SortKey)> = Vec::new();
    let mut per_metric: FxHashMap<&str, Vec<BTreeMap<usize, f64>>> = FxHashMap::default();
    // Seconds of one fit + predict per grid point and repetition (the test metric's rows).
    let mut seconds_of: Vec<BTreeMap<usize, f64>> = Vec::new();
    for r in &runs {
        let row_key = (
            r.dataset.as_str(),
            r.method.as_str(),
            r.epsilon.map(f64::to_bits),
            r.params.as_str(),
        );
        let g = *group_of.entry(row_key).or_insert_with(|| {
            let eps = r.epsilon.map(epsilon_text).unwrap_or_default();
            let sort = (
                ds_order
                    .get(r.dataset.as_str())
                    .copied()
                    .unwrap_or(usize::MAX),
                m_order
                    .get(r.method.as_str())
                    .copied()
                    .unwrap_or(usize::MAX),
                r.epsilon.map_or((0, 0.0), |e| (1, e)),
                grid_order
                    .get(&(r.method.as_str(), r.params.clone()))
                    .copied()
                    .unwrap_or(usize::MAX),
            );
            group_keys.push((
                (r.dataset.clone(), r.method.clone(), eps, r.params.clone()),
                sort,
            ));
            seconds_of.push(BTreeMap::new());
            group_keys.len() - 1
        });
        if r.metric == metric {
            seconds_of[g].insert(r.repetition, r.seconds);
        }
        let groups = per_metric.entry(r.metric.as_str()).or_default();
        if groups.len() <= g {
            groups.resize_with(g + 1, BTreeMap::new);
        }
        groups[g].insert(r.repetition, r.value);
    }
    let by_metric: HashMap<String, HashMap<GroupKey, BTreeMap<usize, f64>>> = per_metric
        .into_iter()
        .map(|(m, groups)| {
            let map = groups
                .into_iter()
                .enumerate()
                .filter(|(_, values)| !values.is_empty())
                .map(|(g, values)| (group_keys[g].0.clone(), values))
                .collect();
            (m.to_string(), map)
        })
        .collect();
    let seconds: HashMap<GroupKey, BTreeMap<usize, f64>> = seconds_of
        .into_iter()
        .enumerate()
        .filter(|(_, s)| !s.is_empty())
        .map(|(g, s)| (group_keys[g].0.clone(), s))
        .collect();
    let sort_of: FxHashMap<&GroupKey, &SortKey> = group_keys.iter().map(|(k, s)| (k, s)).collect();
    let empty = HashMap::new();
    let of = |m: &str| by_metric.get(m).unwrap_or(&empty);
    let sorted = |groups: &HashMap<GroupKey, BTreeMap<usize, f64>>| -> Vec<GroupKey> {
        let mut keys: Vec<(&SortKey, &GroupKey)> = groups.keys().map(|k| (sort_of[k], k)).collect();
        keys.sort_by(|(x, a), (y, b)| {
            x.0.cmp(&y.0)
                .then(x.1.cmp(&y.1))
                .then(x.2 .0.cmp(&y.2 .0))
                .then(x.2 .1.total_cmp(&y.2 .1))
                .then(x.3.cmp(&y.3))
                .then(a.3.cmp(&b.3))
        });
        keys.into_iter().map(|(_, k)| k.clone()).collect()
    };
    let groups = of(metric);
    let keys = sorted(groups);

    let mut summary_csv = String::from("dataset,method,epsilon,params,mean,std,median,reps\n");
    for k in &keys {
        let s = summarize(&groups[k].values().cloned().collect::<Vec<_>>());
        writeln!(
            summary_csv,
            "{},{},{},{},{},{},{},{}",
            k.0,
            k.1,
            k.2,
            csv_field(&k.3),
            s.mean,
            s.std,
            s.median,
            s.n
        )
        .unwrap();
    }
    write(out, "summary.csv", &summary_csv)?;
    let mut files = vec![out.join("summary.csv")];

    let mut markdown = Vec::new();
    for (i, mode) in exp.selection.iter().enumerate() {
        let suffix = if i == 0 {
            String::new()
        } else {
            format!("-{}", mode.name())
        };
        let (selected, selected_order) = match mode {
            Selection::BestMean => select_best_mean(&keys, groups, &seconds, lower),
            Selection::Cv => {
                select_per_repetition(&keys, groups, of(&format!("cv_{metric}")), &seconds, lower)
            }
            Selection::PrivateValidation => {
                let values = of(&format!("pv_{metric}"));
                select_per_repetition(&sorted(values), values, of("pv_score"), &seconds, true)
            }
            // The reported fit is the grid point's own fit on every private user (the
            // test metric's rows); only the choice comes from the public mock fits.
            Selection::Public => {
                select_per_repetition(&keys, groups, of("pub_score"), &seconds, lower)
            }
            Selection::UserSplit => {
                let values = of(&format!("us_{metric}"));
                select_per_repetition(&sorted(values), values, of("us_score"), &seconds, true)
            }
            Selection::RandomStopping => {
                let values = of(&format!("rs_{metric}"));
                select_per_repetition(&sorted(values), values, of("rs_score"), &seconds, true)
            }
        };
        write_selection(exp, out, &suffix, &selected, &selected_order, lower)?;
        files.push(out.join(format!("selected{suffix}.csv")));
        files.push(out.join(format!("tests{suffix}.csv")));
        let names: Vec<String> = exp.datasets.iter().map(|d| d.name.clone()).collect();
        let mut marks = Vec::new();
        for t in &exp.spec.tables {
            let mut table = build_table(exp, t, &selected, *mode)?;
            let name = format!("{}{suffix}", t.name);
            // The LaTeX table keeps a short note; the full notes go beside it.
            let notes_file = format!("notes-{name}.md");
            table.notes_file = Some(notes_file.clone());
            let md = render_markdown(&table).map_err(|e| format!("table {name}: {e}"))?;
            let tex = render_latex(&table).map_err(|e| format!("table {name}: {e}"))?;
            write(out, &format!("table-{name}.md"), &md)?;
            write(out, &format!("table-{name}.tex"), &tex)?;
            write(out, &notes_file, &render_notes(&table))?;
            files.push(out.join(format!("table-{name}.md")));
            files.push(out.join(format!("table-{name}.tex")));
            files.push(out.join(&notes_file));
            marks.extend(marks::marks_rows(&name, &table, &names));
            markdown.push((name, md));
        }
        let marks_file = format!("marks{suffix}.csv");
        let text = marks::marks_csv(&marks).map_err(|e| format!("{marks_file}: {e}"))?;
        write(out, &marks_file, &text)?;
        files.push(out.join(&marks_file));
    }
    // Figures plot the test metric only.
    runs.retain(|r| r.metric == metric);
    let figures = crate::report::figure::render_figures(
        &exp.spec.figures,
        &runs,
        out,
        &crate::report::figure::FigureContext::from_experiment(exp),
    )
    .map_err(|e| e.to_string())?;
    files.extend(figures.iter().cloned());
    Ok(Finished {
        markdown,
        rows: runs.len(),
        figures,
        files,
    })
}

type Selections = (SelectedMap, Vec<(String, String, String)>);

/// Oracle selection (docs/methods/lpdt.md §8.1(b)): per data set × method × ε the grid point with the
/// best mean over repetitions; complete grid points first; ties keep the earlier one.
fn select_best_mean(
    keys: &[GroupKey],
    groups: &HashMap<GroupKey, BTreeMap<usize, f64>>,
    seconds: &HashMap<GroupKey, BTreeMap<usize, f64>>,
    lower: bool,
) -> Selections {
    let mut selected: SelectedMap = BTreeMap::new();
    let mut order = Vec::new();
    for k in keys {
        let values = &groups[k];
        let s = summarize(&values.values().cloned().collect::<Vec<_>>());
        let sel_key = (k.0.clone(), k.1.clone(), k.2.clone());
        let better = match selected.get(&sel_key) {
            None => {
                order.push(sel_key.clone());
                true
            }
            Some(cur) => {
                (s.n > cur.summary.n)
                    || (s.n == cur.summary.n
                        && if lower {
                            s.mean < cur.summary.mean
                        } else {
                            s.mean > cur.summary.mean
                        })
            }
        };
        if better {
            selected.insert(
                sel_key,
                Selected {
                    params: k.3.clone(),
                    summary: s,
                    values: values.clone(),
                    seconds: seconds.get(k).cloned().unwrap_or_default(),
                },
            );
        }
    }
    (selected, order)
}

/// Per-repetition selection (cv, private_validation): in every repetition the grid point
/// with the best `scores` (lower or higher is better as `lower` says; ties keep the
/// earlier grid point) gives that repetition's value from `values`. `params` reports the
/// grid point chosen most often, with its count.
fn select_per_repetition(
    keys: &[GroupKey],
    values: &HashMap<GroupKey, BTreeMap<usize, f64>>,
    scores: &HashMap<GroupKey, BTreeMap<usize, f64>>,
    seconds: &HashMap<GroupKey, BTreeMap<usize, f64>>,
    lower: bool,
) -> Selections {
    // (data set, method, ε) → repetition → (score, grid point, value, seconds)
    type Choice = (f64, String, f64, Option<f64>);
    let mut best: BTreeMap<(String, String, String), BTreeMap<usize, Choice>> = BTreeMap::new();
    let mut order = Vec::new();
    for k in keys {
        let (Some(vals), Some(sc)) = (values.get(k), scores.get(k)) else {
            continue;
        };
        let sel_key = (k.0.clone(), k.1.clone(), k.2.clone());
        if !best.contains_key(&sel_key) {
            order.push(sel_key.clone());
        }
        let per_rep = best.entry(sel_key).or_default();
        for (rep, &score) in sc {
            let Some(&value) = vals.get(rep) else {
                continue;
            };
            // NaN: not a candidate in this repetition (user_split's subset, a grid point
            // random stopping did not draw), never chosen.
            if score.is_nan() {
                continue;
            }
            let better = match per_rep.get(rep) {
                None => true,
                Some((cur, _, _, _)) => {
                    if lower {
                        score < *cur
                    } else {
                        score > *cur
                    }
                }
            };
            if better {
                let secs = seconds.get(k).and_then(|s| s.get(rep)).copied();
                per_rep.insert(*rep, (score, k.3.clone(), value, secs));
            }
        }
    }
    let selected = best
        .into_iter()
        .map(|(key, per_rep)| {
            let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
            for (_, p, _, _) in per_rep.values() {
                *counts.entry(p.as_str()).or_default() += 1;
            }
            let (modal, count) = counts
                .iter()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                .map(|(p, c)| (p.to_string(), *c))
                .unwrap_or_default();
            let values: BTreeMap<usize, f64> =
                per_rep.iter().map(|(r, (_, _, v, _))| (*r, *v)).collect();
            let seconds: BTreeMap<usize, f64> = per_rep
                .iter()
                .filter_map(|(r, (_, _, _, s))| s.map(|s| (*r, s)))
                .collect();
            let summary = summarize(&values.values().cloned().collect::<Vec<_>>());
            let params = format!(
                "{modal} (chosen in {count} of {} repetitions)",
                values.len()
            );
            (
                key,
                Selected {
                    params,
                    summary,
                    values,
                    seconds,
                },
            )
        })
        .collect();
    (selected, order)
}

/// Writes `selected<suffix>.csv` and `tests<suffix>.csv` of one selection mode.
fn write_selection(
    exp: &Experiment,
    out: &Path,
    suffix: &str,
    selected: &SelectedMap,
    order: &[(String, String, String)],
    lower: bool,
) -> Result<(), String> {
    let mut selected_csv = String::from(
        "dataset,method,epsilon,mean,std,median,reps,params
",
    );
    for k in order {
        let s = &selected[k];
        writeln!(
            selected_csv,
            "{},{},{},{},{},{},{},{}",
            k.0,
            k.1,
            k.2,
            s.summary.mean,
            s.summary.std,
            s.summary.median,
            s.summary.n,
            csv_field(&s.params)
        )
        .unwrap();
    }
    write(out, &format!("selected{suffix}.csv"), &selected_csv)?;

    // Paired one-sided tests between every ordered pair of methods per block.
    let alternative = if lower {
        Alternative::Less
    } else {
        Alternative::Greater
    };
    let alt = if lower { "less" } else { "greater" };
    let mut tests_csv = String::from(
        "dataset,epsilon,method,other,alternative,statistic,p_value,n
",
    );
    for d in &exp.datasets {
        for e in &exp.epsilons {
            let et = epsilon_text(*e);
            let run: Vec<(&str, &Selected)> = exp
                .methods
                .iter()
                .filter_map(|m| {
                    selected
                        .get(&(d.name.clone(), m.label.clone(), et.clone()))
                        .map(|s| (m.label.as_str(), s))
                })
                .collect();
            for (a, sa) in &run {
                for (b, sb) in &run {
                    if a == b {
                        continue;
                    }
                    let (x, y) = paired(&sa.values, &sb.values);
                    match wilcoxon_signed_rank(&x, &y, alternative) {
                        Ok(r) => writeln!(
                            tests_csv,
                            "{},{},{},{},{},{},{},{}",
                            d.name, et, a, b, alt, r.statistic, r.p_value, r.n
                        ),
                        Err(_) => writeln!(
                            tests_csv,
                            "{},{},{},{},{},,,{}",
                            d.name,
                            et,
                            a,
                            b,
                            alt,
                            x.len()
                        ),
                    }
                    .unwrap();
                }
            }
        }
    }
    write(out, &format!("tests{suffix}.csv"), &tests_csv)
}

/// Values of two methods on the repetitions both have, in repetition order.
fn paired(a: &BTreeMap<usize, f64>, b: &BTreeMap<usize, f64>) -> (Vec<f64>, Vec<f64>) {
    a.iter()
        .filter_map(|(r, x)| b.get(r).map(|y| (*x, *y)))
        .unzip()
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn write(out: &Path, name: &str, text: &str) -> Result<(), String> {
    let p = out.join(name);
    std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))
}
