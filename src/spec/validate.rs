//! Validation of a parsed [`Spec`] into an [`Experiment`]: the top-level fields checked,
//! then each section by the module next to its types (data sets, methods, tables,
//! figures, claims, reported values, golden file, occupancy), in the spec's order. Data files are loaded separately ([`DatasetPlan::load`](super::DatasetPlan::load)) so
//! tables can be re-rendered without data.

use super::dataset_plan::{check_split_rows, dataset_plan, DataSource};
use super::duplicates::first_repeat;
use super::experiment::Experiment;
use super::invalid;
use super::method_plan::{apply_skips, method_plan, MethodPlan};
use super::occupancy::{check_dataset_occupancy, check_leaf_occupancy};
use super::raw::{LabelBoundsFrom, Section, Selection, Spec};
use super::tables::check_tables;
use super::SpecError;
use crate::data::SplitRatios;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Validates a parsed spec. `path` is the spec file (inline data paths are relative to its
/// folder); `manifest_dirs` are searched for `datasets/<name>.yaml`.
///
/// # Errors
/// The first problem found, naming the field: unknown data sets, methods or parameters
/// (with the valid names), ε ≤ 0, split ratios not summing to 1, empty grids, invalid
/// parameter values, tables naming unknown methods or ε.
pub fn validate(
    spec: Spec,
    path: &Path,
    manifest_dirs: &[PathBuf],
) -> Result<Experiment, SpecError> {
    if let Some(why) = name_problem(&spec.name) {
        return Err(invalid(path, "name", why));
    }
    if spec.repetitions == 0 {
        return Err(invalid(path, "repetitions", "must be at least 1"));
    }
    if spec.epsilons.is_empty() {
        return Err(invalid(path, "epsilons", "the epsilon grid is empty"));
    }
    for (i, &e) in spec.epsilons.iter().enumerate() {
        if !(e.is_finite() && e > 0.0) {
            return Err(invalid(
                path,
                format!("epsilons[{i}]"),
                format!("epsilon must be a finite number > 0, got {e}"),
            ));
        }
        if !(MIN_EPSILON..=MAX_EPSILON).contains(&e) {
            return Err(invalid(
                path,
                format!("epsilons[{i}]"),
                format!(
                    "epsilon {e:e} is outside [{MIN_EPSILON:e}, {MAX_EPSILON:e}], where every noise scale and every table entry stays a plain number"
                ),
            ));
        }
    }
    if let Some((first, again)) = first_repeat(&spec.epsilons) {
        return Err(invalid(
            path,
            format!("epsilons[{again}]"),
            format!(
                "epsilon {} is listed twice (epsilons[{first}] and epsilons[{again}]), which would compute its tasks twice; list each epsilon once",
                spec.epsilons[again]
            ),
        ));
    }
    if let Some(rule) = &spec.significance {
        rule.validate()
            .map_err(|e| invalid(path, "significance", e.to_string()))?;
    }
    let reported = match &spec.reported {
        Some(section) => {
            let (r, dir) = resolve_section(section, path, "reported")?;
            r.validate()
                .map_err(|e| invalid(path, "reported", e.to_string()))?;
            Some((r, dir))
        }
        None => None,
    };
    let claims = match &spec.claims {
        Some(section) => resolve_section(section, path, "claims")?.0,
        None => Vec::new(),
    };
    super::claims::validate_claims(&claims).map_err(|e| invalid(path, "claims", e.to_string()))?;
    if let Some(g) = &spec.golden {
        g.validate()
            .map_err(|e| invalid(path, "golden", e.to_string()))?;
    }
    if let LabelBoundsFrom::Fixed { lo, hi } = spec.label_bounds {
        if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
            return Err(invalid(
                path,
                "label_bounds.fixed",
                format!("needs finite lo <= hi, got [{lo}, {hi}]"),
            ));
        }
    }
    if spec.tuning.cv_folds < 2 {
        return Err(invalid(path, "tuning.cv_folds", "needs at least 2 folds"));
    }
    if !(spec.tuning.validation_share > 0.0 && spec.tuning.validation_share < 1.0) {
        return Err(invalid(
            path,
            "tuning.validation_share",
            "must lie strictly between 0 and 1",
        ));
    }
    if !(spec.tuning.public_share > 0.0 && spec.tuning.public_share < 1.0) {
        return Err(invalid(
            path,
            "tuning.public_share",
            "must lie strictly between 0 and 1",
        ));
    }
    if spec.tuning.candidates.is_some_and(|c| c < 2) {
        return Err(invalid(
            path,
            "tuning.candidates",
            "needs at least 2 candidates (one grid point needs no selection: drop the grid)",
        ));
    }
    if let Err(e) = spec.tuning.stopping.law() {
        return Err(invalid(path, "tuning.stopping", e.to_string()));
    }
    let split = match &spec.split {
        Some(s) => {
            for (part, v) in [
                ("public", s.public),
                ("private", s.private),
                ("test", s.test),
            ] {
                if !(0.0..=1.0).contains(&v) {
                    return Err(invalid(
                        path,
                        format!("split.{part}"),
                        format!("must lie in [0, 1], got {v}"),
                    ));
                }
            }
            if s.private <= 0.0 || s.test <= 0.0 {
                return Err(invalid(
                    path,
                    "split",
                    "the private and test shares must be > 0",
                ));
            }
            let total = s.public + s.private + s.test;
            if (total - 1.0).abs() > 1e-9 {
                return Err(invalid(
                    path,
                    "split",
                    format!("public + private + test must sum to 1, got {total}"),
                ));
            }
            Some(SplitRatios {
                public: s.public,
                private: s.private,
                test: s.test,
            })
        }
        None => None,
    };

    let mut datasets = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, entry) in spec.datasets.iter().enumerate() {
        let field = format!("datasets[{i}]");
        let plan = dataset_plan(i, entry, &spec, split, manifest_dirs, path)?;
        if !seen.insert(plan.name.clone()) {
            return Err(invalid(
                path,
                &field,
                format!("data set `{}` is listed twice", plan.name),
            ));
        }
        datasets.push(plan);
    }
    if datasets.is_empty() {
        return Err(invalid(path, "datasets", "no data sets"));
    }
    // One metric per spec: summary.csv, the selection, the Wilcoxon tests and the tables
    // read the first data set's task, so a data set of another task would be dropped.
    if let Some(i) = datasets.iter().position(|d| d.task != datasets[0].task) {
        return Err(invalid(
            path,
            format!("datasets[{i}]"),
            format!(
                "data set `{}` is a {:?} data set but `{}` (datasets[0]) is {:?}: the data sets of one spec share one task, hence one metric; put them in separate specs",
                datasets[i].name, datasets[i].task, datasets[0].name, datasets[0].task
            ),
        ));
    }
    // Inline files are checked when they are loaded (`run::load_datasets`).
    if let Some(split) = split {
        for d in &datasets {
            if let Some(n) = d.known_split_rows() {
                check_split_rows(split, &d.name, n, path)?;
            }
        }
    }

    let mut methods_out: Vec<MethodPlan> = Vec::new();
    for (i, entry) in spec.methods.iter().enumerate() {
        let plan = method_plan(i, entry, &spec, &methods_out, path)?;
        methods_out.push(plan);
    }
    if methods_out.is_empty() {
        return Err(invalid(path, "methods", "no methods"));
    }
    for d in &datasets {
        for m in &methods_out {
            if !m.method.tasks().contains(&d.task) {
                return Err(invalid(
                    path,
                    "methods",
                    format!(
                        "{} does not support the {:?} task of data set `{}`",
                        m.label, d.task, d.name
                    ),
                ));
            }
        }
    }
    apply_skips(&spec.skip, &mut methods_out, &datasets, path)?;
    check_dataset_occupancy(&spec, &methods_out, &datasets)
        .map_err(|(field, message)| invalid(path, field, message))?;
    // Whether a data set has no public rows.
    let no_public = |d: &super::DatasetPlan| match (&d.source, d.source.synthetic_sizes()) {
        (_, Some([public, ..])) => public == 0,
        (DataSource::Pair { .. } | DataSource::Rule { .. } | DataSource::Sample { .. }, _) => false,
        _ => split.is_some_and(|s| s.public == 0.0),
    };
    for d in datasets.iter().filter(|d| no_public(d)) {
        let runs = |m: &&MethodPlan| !m.skip.contains(&d.name);
        if spec.label_bounds == LabelBoundsFrom::Public {
            if let Some(m) = methods_out.iter().filter(runs).find(|m| m.method.private()) {
                return Err(invalid(
                    path,
                    "label_bounds",
                    format!("data set `{}` has no public rows, so `label_bounds: public` gives {} no label range; state one with `label_bounds: {{fixed: {{lo: .., hi: ..}}}}`", d.name, m.label),
                ));
            }
        }
        if let Some(m) = methods_out
            .iter()
            .filter(runs)
            .find(|m| m.method.grows_on_public())
        {
            return Err(invalid(
                path,
                "methods",
                format!(
                    "{} grows its partition on the public sample, and data set `{}` has no public rows, so its partition would be one cell; give the data set a public share (split.public or sizes.public), or skip {} on it",
                    m.label, d.name, m.label
                ),
            ));
        }
    }
    check_selection_models(&spec, &methods_out, &datasets, no_public, path)?;
    check_tables(&spec, &methods_out, path)?;
    check_claim_methods(&claims, &methods_out, path)?;

    let exp = Experiment {
        path: path.to_path_buf(),
        datasets,
        split,
        scaling: spec.scaling,
        label_bounds: spec.label_bounds,
        epsilons: spec.epsilons.clone(),
        methods: methods_out,
        selection: spec.selection.0.clone(),
        repetitions: spec.repetitions,
        reported,
        claims,
        spec,
    };
    super::figures::validate_figures(
        &exp.spec.figures,
        &super::figures::FigureContext::from_experiment(&exp),
    )
    .map_err(|e| invalid(path, e.field, e.message))?;
    check_leaf_occupancy(&exp)?;
    Ok(exp)
}

/// The honest selection modes each fit one privacy model (docs/tuning.md): `public` needs a
/// public sample on every data set, `user_split` refuses central-DP methods (a curator
/// selects by random stopping) and `random_stopping` refuses local ones (every candidate's
/// releases reach the curator, so the runs compose and stopping saves nothing).
fn check_selection_models(
    spec: &Spec,
    methods: &[MethodPlan],
    datasets: &[super::DatasetPlan],
    no_public: impl Fn(&super::DatasetPlan) -> bool,
    path: &Path,
) -> Result<(), SpecError> {
    use crate::methods::PrivacyModel;
    let modes = &spec.selection.0;
    if modes.contains(&Selection::Public) {
        if let Some(d) = datasets.iter().find(|d| no_public(d)) {
            return Err(invalid(path, "selection", format!("`public` tunes on the public sample, and data set `{}` has none; give it a public share or drop `public`", d.name)));
        }
    }
    let private = || methods.iter().filter(|m| m.method.private());
    if modes.contains(&Selection::UserSplit) {
        if let Some(m) = private().find(|m| m.method.privacy_model() == PrivacyModel::Central) {
            return Err(invalid(path, "selection", format!("`user_split` splits local users over the candidates, and {} is central DP; a curator selects by `random_stopping`", m.label)));
        }
    }
    if modes.contains(&Selection::RandomStopping) {
        if let Some(m) = private().find(|m| m.method.privacy_model() != PrivacyModel::Central) {
            return Err(invalid(path, "selection", format!("`random_stopping` saves budget only for a curator, and {} is a local model: every candidate's releases leave the users, so they compose; use `user_split`, `public` or `private_validation`", m.label)));
        }
    }
    Ok(())
}

/// An inline section, or the one in the YAML file it names (relative to the spec), with
/// the folder its relative paths are resolved against.
fn resolve_section<T: serde::de::DeserializeOwned + Clone>(
    section: &Section<T>,
    spec_path: &Path,
    field: &str,
) -> Result<(T, PathBuf), SpecError> {
    let spec_dir = spec_path.parent().unwrap_or(Path::new(".")).to_path_buf();
    match section {
        Section::Inline(v) => Ok((v.clone(), spec_dir)),
        Section::File(rel) => {
            let p = spec_dir.join(rel);
            let text = std::fs::read_to_string(&p).map_err(|e| {
                invalid(
                    spec_path,
                    field,
                    format!("cannot read {}: {e}", p.display()),
                )
            })?;
            let v = super::parse_yaml(&text, &p)?;
            Ok((v, p.parent().unwrap_or(Path::new(".")).to_path_buf()))
        }
    }
}

/// The smallest ε a spec may name: below it every noise scale exceeds 10⁶ data ranges.
pub const MIN_EPSILON: f64 = 1e-6;
/// The largest ε a spec may name.
pub const MAX_EPSILON: f64 = 1e6;

/// Why `name` cannot name a results folder (`results/<name>`), if it cannot: it must be
/// one plain path component — not empty, not `.` or `..`, no slash or backslash, no
/// control character — so that a run writes inside `results/` and nowhere else.
pub fn name_problem(name: &str) -> Option<String> {
    let plain = matches!(
        std::path::Path::new(name).components().collect::<Vec<_>>()[..],
        [std::path::Component::Normal(_)]
    );
    if name.trim().is_empty() {
        Some("must be a non-empty name (it names the results folder results/<name>)".into())
    } else if name.contains(['/', '\\']) || name.chars().any(char::is_control) || !plain {
        Some(format!(
            "`{}` is not a plain folder name: the results go to results/<name>, so the name \
             may not be `.` or `..` or hold a slash, a backslash or a control character \
             (e.g. `name: my-table`)",
            name.escape_debug()
        ))
    } else {
        None
    }
}

/// Every method a claim names (its `method`, `than`, `methods`, `among`, `of` and
/// `ratio_to`) is a method label of the spec (in `among` and `of`, also a registered
/// method the spec does not run): a claim about a method that never runs compares nothing,
/// so it is refused before anything runs, with the nearest label.
fn check_claim_methods(
    claims: &[super::claims::Claim],
    methods: &[MethodPlan],
    path: &Path,
) -> Result<(), SpecError> {
    const KEYS: [&str; 6] = ["method", "than", "methods", "among", "of", "ratio_to"];
    let labels: Vec<&str> = methods.iter().map(|m| m.label.as_str()).collect();
    for (i, claim) in claims.iter().enumerate() {
        let Ok(serde_yaml::Value::Mapping(fields)) = serde_yaml::to_value(claim) else {
            continue;
        };
        for key in KEYS {
            let names: Vec<&str> = match fields.get(key) {
                Some(serde_yaml::Value::String(s)) => vec![s.as_str()],
                Some(serde_yaml::Value::Sequence(v)) => {
                    v.iter().filter_map(|x| x.as_str()).collect()
                }
                _ => continue,
            };
            // `among` and `of` count the methods that ran: a registered method the spec
            // does not run may stand there (LPDT's DECONV); a misspelled name may not.
            let may_be_absent = matches!(key, "among" | "of");
            let known =
                |n: &&str| labels.contains(n) || (may_be_absent && crate::methods::find(n).is_ok());
            if let Some(bad) = names.into_iter().find(|n| !known(n)) {
                let hint = crate::suggest::did_you_mean(bad, labels.iter().copied());
                return Err(invalid(
                    path,
                    format!("claims[{i}].{key}"),
                    format!(
                        "`{bad}` is not a method label of this spec{hint}; the labels are {}",
                        labels.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}
