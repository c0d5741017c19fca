//! Privacy bookkeeping of a run beyond each column's ε: how the users' noise is seeded,
//! what a user spends once grid-point selection is counted ([`epsilon_with_tuning`]: the
//! ledger's `epsilon_with_tuning`, the table notes and check.md all compute it here), what
//! the training users of private validation spend in total, private users' records used in
//! the clear, a label range read from private labels. One source for table notes, run.json
//! and the ledger, so they cannot disagree.

use crate::spec::raw::{LabelBoundsFrom, Noise, Selection, Tuning, ValidationReleases};
use crate::spec::{Experiment, MethodPlan};
use serde_json::{json, Value};

/// What one method's fits at one column ε charged, per release configuration (a
/// structural grid point × a distinct release key of the mechanism points: the k_r of
/// [`MethodPlan::release_configurations`], each drawing its own releases of the same
/// users): the inputs of [`epsilon_with_tuning`]. ε in nats.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TuningCharges {
    /// Per release configuration, what the worst user or row paid in one fit at the
    /// column's ε.
    pub per_fit: Vec<f64>,
    /// Per release configuration, what the worst user paid in one fit at ε/k_r (the
    /// training fits of `private_validation` under `validation_releases: shared`; empty
    /// otherwise).
    pub per_fit_shared: Vec<f64>,
    /// What one validation user of `private_validation` paid for one grid point's noisy
    /// loss (`run::point::validation_score`; 0 without private validation).
    pub validation_per_point: f64,
    /// The number of grid points scored (structural × mechanism points), each a noisy
    /// loss of every validation user.
    pub grid_points: usize,
    /// What the worst private user paid over one whole run of `user_split`, measured on
    /// the ledger from the protocol's own calls: every candidate's fit on its group and
    /// every validation user's noisy loss, charged to the users by their place in the
    /// private sample, so a user in two groups pays twice (NaN when not measured).
    pub user_split_total: f64,
    /// What the worst private row paid in one candidate run of `random_stopping` (its fit
    /// at ε₀ on the training rows and its score on the validation rows, measured the same
    /// way), the largest over the grid points (NaN when not measured).
    pub stopping_run: f64,
    /// 2 + η: what random stopping costs in units of ε₀ under pure DP
    /// ([`crate::privacy::selection::StoppingLaw::pure_multiplier`]).
    pub stopping_multiplier: f64,
}

impl TuningCharges {
    /// The charges the grid implies when every fit spends exactly its ε (the nominal
    /// accounting, without a ledger run): ε per configuration, ε/k_r under shared
    /// validation releases, ε/k per validation loss (LPDT paper App. D.2).
    pub fn nominal(tuning: &Tuning, m: &MethodPlan, epsilon: f64) -> TuningCharges {
        let k = m.release_configurations().max(1);
        let grid_points = grid_points(m);
        let multiplier = 2.0 + tuning.stopping.eta;
        TuningCharges {
            per_fit: vec![epsilon; k],
            per_fit_shared: vec![epsilon / k as f64; k],
            validation_per_point: epsilon / grid_points as f64,
            grid_points,
            user_split_total: epsilon,
            stopping_run: epsilon / multiplier,
            stopping_multiplier: multiplier,
        }
    }
}

/// The number of grid points of `m` (structural × mechanism points, at least 1 each).
pub fn grid_points(m: &MethodPlan) -> usize {
    m.structural.len().max(1) * m.mechanism.len().max(1)
}

/// What the worst user (or row) spends, in nats, once the selection of a cell among the
/// grid points of one method at one ε is counted, under basic composition (Dwork & Roth
/// 2014, Theorem 3.16; every release of a user is a separate mechanism call on its data):
///
/// - `best_mean` (oracle): the selected cell is the best of the k_r release
///   configurations' fits, each its own release of the same users: Σ_c per_fit_c (k_r ×
///   the per-fit charge when every configuration charges the same).
/// - `cv`: each configuration is also fitted on every fold's training users, fresh noise
///   each time, so a user releases k − 1 more times per configuration (k folds), and the
///   reported fit is one more release: (k − 1)·Σ_c per_fit_c + max_c per_fit_c.
/// - `private_validation` (LPDT paper App. D.2; `run::point::validation_score`): the
///   training users release once per configuration, at ε (`fresh`: Σ_c per_fit_c) or at
///   ε/k_r (`shared`: Σ_c per_fit_shared_c); the validation users release one noisy loss
///   per grid point (grid_points × validation_per_point); the two groups are disjoint, so
///   the worst user pays the larger.
/// - `public` (docs/tuning.md): the choice reads public rows only; each user releases once,
///   for the chosen configuration: max_c per_fit_c.
/// - `user_split`: each training user releases once, in its candidate's fit, and each
///   validation user one noisy loss; with disjoint groups (parallel composition) the worst
///   user pays ε. Measured: `user_split_total`.
/// - `random_stopping` (central DP; Papernot & Steinke 2022, Theorem 2 at λ → ∞): each
///   candidate run is a fit on the training rows and a score on the disjoint validation
///   rows, `stopping_run` for the worst row; the released best of a random number of runs
///   costs (2 + η) times that.
pub fn epsilon_with_tuning(tuning: &Tuning, mode: Selection, c: &TuningCharges) -> f64 {
    let sum = |v: &[f64]| v.iter().sum::<f64>();
    let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    match mode {
        Selection::BestMean => sum(&c.per_fit),
        Selection::Cv => {
            (tuning.cv_folds.saturating_sub(1)) as f64 * sum(&c.per_fit) + max(&c.per_fit)
        }
        Selection::PrivateValidation => {
            let training = match tuning.validation_releases {
                ValidationReleases::Fresh => sum(&c.per_fit),
                ValidationReleases::Shared => sum(&c.per_fit_shared),
            };
            let validation = c.grid_points as f64 * c.validation_per_point;
            training.max(validation)
        }
        Selection::Public => max(&c.per_fit),
        Selection::UserSplit => c.user_split_total,
        Selection::RandomStopping => c.stopping_multiplier * c.stopping_run,
    }
}

/// The training users' total budget under `private_validation` for each private method of
/// `labels` (in that order): (label, k_r, multiplier of ε). With fresh releases a training
/// user releases once per grid point whose release differs, k_r·ε in total (LPDT App. D.2 as
/// stated); with `validation_releases: shared` the k_r releases split ε, so 1·ε.
pub fn validation_training_budget<'a>(
    exp: &'a Experiment,
    labels: &[&str],
) -> Vec<(&'a str, usize, usize)> {
    exp.methods
        .iter()
        .filter(|m| m.method.private() && labels.contains(&m.label.as_str()))
        .map(|m| {
            let k = m.release_configurations();
            let multiplier = match exp.spec.tuning.validation_releases {
                ValidationReleases::Fresh => k,
                ValidationReleases::Shared => 1,
            };
            (m.label.as_str(), k, multiplier)
        })
        .collect()
}

/// `m`ε in words: `ε`, `132ε`, `1.5ε` (three significant digits beyond the integers).
fn epsilon_multiple(m: f64) -> String {
    if (m - 1.0).abs() < 1e-9 {
        "ε".to_string()
    } else if (m - m.round()).abs() < 1e-9 * m.abs().max(1.0) {
        format!("{}ε", m.round())
    } else {
        format!(
            "{}ε",
            crate::report::format_fixed(m, 3).trim_end_matches('0')
        )
    }
}

/// The table note on what a cell of each private method of `labels` costs its users under
/// selection `mode`, from the grid (every fit spending exactly its ε,
/// [`TuningCharges::nominal`]): ε per fit (the column's ε) and ε with tuning
/// ([`epsilon_with_tuning`]). None when no private method is shown.
pub fn budget_note(exp: &Experiment, labels: &[&str], mode: Selection) -> Option<String> {
    let list: Vec<String> = exp
        .methods
        .iter()
        .filter(|m| m.method.private() && labels.contains(&m.label.as_str()))
        .map(|m| {
            let with = epsilon_with_tuning(
                &exp.spec.tuning,
                mode,
                &TuningCharges::nominal(&exp.spec.tuning, m, 1.0),
            );
            format!(
                "{} ε per fit, {} with tuning",
                m.label,
                epsilon_multiple(with)
            )
        })
        .collect();
    if list.is_empty() {
        return None;
    }
    let how = match mode {
        Selection::BestMean => "oracle selection over the k distinct release configurations of the grid: kε",
        Selection::Cv => "cross-validation: every fold refits each of the k distinct release configurations with fresh noise, (folds − 1)·kε + ε",
        Selection::PrivateValidation => "private validation: the training users' releases for the k distinct release configurations or the validation users' noisy losses, whichever costs more",
        Selection::Public => "public tuning: the choice reads the public sample only, each user releases once for the chosen grid point",
        Selection::UserSplit => "user split: each user is in one candidate's group or the validation group and releases once (parallel composition)",
        Selection::RandomStopping => "random stopping: each candidate run at ε/(2 + η) on the training rows and its score on disjoint validation rows; the best of a random number of runs costs (2 + η) runs",
    };
    Some(format!("Privacy budget of a cell (basic composition; {how}): {}. The column's ε is the budget of one fit; dp-repro audit measures both on the privacy ledger (ledger.csv, epsilon_per_fit and epsilon_with_tuning).", list.join("; ")))
}

/// Table notes on privacy for a table showing the methods `labels` under selection `mode`:
/// one per method that uses private records in the clear, the notes of the repetition
/// records of the methods shown (`records::record_notes`: one per privacy-mask setting), one
/// for a label range taken from private labels, under private validation the training
/// users' total budget, and ε per fit and with tuning of each private method
/// ([`budget_note`]).
pub fn privacy_notes(exp: &Experiment, labels: &[&str], mode: Selection) -> Vec<String> {
    let mut notes = Vec::new();
    for m in exp
        .methods
        .iter()
        .filter(|m| labels.contains(&m.label.as_str()))
    {
        for n in m.method.privacy_notes() {
            notes.push(format!("{}: {n}.", m.label));
        }
    }
    notes.extend(super::records::record_notes(exp, labels));
    let frozen: Vec<String> = exp
        .methods
        .iter()
        .filter(|m| labels.contains(&m.label.as_str()) && m.noise != Noise::Fresh)
        .map(|m| format!("{} ({})", m.label, m.noise.describe()))
        .collect();
    if !frozen.is_empty() {
        notes.push(format!("Frozen noise, as the authors' code runs: {} restart their users' noise from the same seed at every fit (every repetition, grid point and epsilon draws the same noise), so oracle selection picks the grid point that suits one draw.", frozen.join(", ")));
    }
    if exp.label_bounds == LabelBoundsFrom::PrivateTrain {
        notes.push("Label range from the private training labels (label_bounds: private_train, as the authors' code does): clipping and noise scales reveal their minimum and maximum, which the papers' epsilon-LDP guarantee does not cover.".to_string());
    }
    if matches!(mode, Selection::BestMean | Selection::Cv) {
        let tuned: Vec<String> = exp
            .methods
            .iter()
            .filter(|m| m.method.private() && labels.contains(&m.label.as_str()))
            .map(|m| (m.label.as_str(), m.release_configurations()))
            .filter(|(_, k)| *k > 1)
            .map(|(l, k)| format!("{l} {k}"))
            .collect();
        if !tuned.is_empty() {
            let how = if mode == Selection::BestMean {
                "oracle selection (the best mean test metric over the grid)"
            } else {
                "cross-validation on the private training data"
            };
            notes.push(format!("Tuning is not private: each cell is chosen by {how} among fits on distinct releases of the same users, which re-spends epsilon once per release: {} distinct releases. The column's epsilon is the budget of one fit (the privacy ledger, ledger.csv of dp-repro audit, lists them).", tuned.join(", ")));
        }
    }
    if mode == Selection::PrivateValidation {
        let budgets = validation_training_budget(exp, labels);
        if !budgets.is_empty() {
            let list = budgets
                .iter()
                .map(|(l, k, mult)| format!("{l} {mult}ε ({k} distinct releases)"))
                .collect::<Vec<_>>()
                .join(", ");
            let how = match exp.spec.tuning.validation_releases {
                ValidationReleases::Fresh => "a fresh release for each grid point whose release differs, as the paper's protocol (App. D.2) does",
                ValidationReleases::Shared => "shared validation releases: ε split evenly over the distinct releases",
            };
            notes.push(format!("Budget under private validation: each validation user spent ε; each training user spent in total {list} ({how}). The column's ε is the budget of one fit."));
        }
    }
    notes.extend(budget_note(exp, labels, mode));
    notes
}

/// The values parameter `name` takes over the grid points of method plan `m` (structural
/// and mechanism points), in first-seen order; empty when the method does not declare it.
fn param_values(m: &crate::spec::MethodPlan, name: &str) -> Vec<String> {
    if !m.method.params().iter().any(|d| d.name == name) {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for p in m.structural.iter().chain(&m.mechanism) {
        if let Some((_, v)) = p.0.iter().find(|(k, _)| k == name) {
            let v = v.to_string();
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

/// Table notes on the privacy model and the calling conventions of the methods `labels`
/// (docs/architecture.md, "Privacy models"), printed only when one of them
/// is a central-DP method or declares a `mode` parameter (tables of the local-DP papers
/// keep their notes):
/// - one note listing each privacy model ([`crate::methods::PrivacyModel::name`]) with its
///   methods, in column order;
/// - one listing the `mode` (`reference_quirks`: the authors' code as run, diprime.md
///   §9–§10; `paper`: every quirk off) of each method that declares it;
/// - one listing the methods called with a multiple of the column's ε (`epsilon_factor`
///   ≠ 1, the paper's own calling conventions, docs/methods/diprime.md §6.3–§6.4).
pub fn model_notes(exp: &Experiment, labels: &[&str]) -> Vec<String> {
    use crate::methods::PrivacyModel;
    let plans: Vec<&crate::spec::MethodPlan> = labels
        .iter()
        .filter_map(|l| exp.methods.iter().find(|m| m.label == *l))
        .collect();
    let central = plans
        .iter()
        .any(|m| m.method.privacy_model() == PrivacyModel::Central);
    let modes: Vec<(&str, Vec<String>)> = plans
        .iter()
        .map(|m| (m.label.as_str(), param_values(m, "mode")))
        .filter(|(_, v)| !v.is_empty())
        .collect();
    if !central && modes.is_empty() {
        return Vec::new();
    }
    let mut notes = Vec::new();
    let mut models: Vec<(PrivacyModel, Vec<&str>)> = Vec::new();
    for m in &plans {
        let model = m.method.privacy_model();
        match models.iter_mut().find(|(k, _)| *k == model) {
            Some((_, v)) => v.push(&m.label),
            None => models.push((model, vec![&m.label])),
        }
    }
    let list = models
        .iter()
        .map(|(k, v)| format!("{} — {}", k.name(), v.join(", ")))
        .collect::<Vec<_>>()
        .join("; ");
    notes.push(format!("Privacy model: {list}."));
    if !modes.is_empty() {
        let list = modes
            .iter()
            .map(|(l, v)| format!("{l} {}", v.join(" and ")))
            .collect::<Vec<_>>()
            .join(", ");
        notes.push(format!("Mode (reference_quirks: the authors' code as it produced the paper's tables, docs/methods/diprime.md §9–§10; paper: every quirk off): {list}."));
    }
    let factors: Vec<String> = plans
        .iter()
        .filter_map(|m| {
            let v = param_values(m, "epsilon_factor");
            let off: Vec<&String> = v.iter().filter(|f| f.parse::<f64>() != Ok(1.0)).collect();
            (!off.is_empty()).then(|| {
                let f: Vec<String> = off.iter().map(|f| format!("{f}ε")).collect();
                format!("{} {}", m.label, f.join(" and "))
            })
        })
        .collect();
    if !factors.is_empty() {
        notes.push(format!("Called with a multiple of the column's ε (epsilon_factor, the paper's own calling convention, docs/methods/diprime.md §6.3–§6.4): {}.", factors.join(", ")));
    }
    notes
}

/// The `privacy` record of run.json: label-bound source, methods using private records in
/// the clear, and the private-validation totals (null when not selected).
pub fn privacy_record(exp: &Experiment) -> Value {
    let all: Vec<&str> = exp.methods.iter().map(|m| m.label.as_str()).collect();
    let in_clear: Vec<Value> = exp
        .methods
        .iter()
        .filter(|m| !m.method.privacy_notes().is_empty())
        .map(|m| json!({"method": m.label, "notes": m.method.privacy_notes()}))
        .collect();
    let validation = exp
        .selection
        .contains(&Selection::PrivateValidation)
        .then(|| {
            let per_method: serde_json::Map<String, Value> =
                validation_training_budget(exp, &all)
                    .into_iter()
                    .map(|(l, k, mult)| {
                        (
                            l.to_string(),
                            json!({"release_configurations": k, "training_users_epsilon_multiplier": mult}),
                        )
                    })
                    .collect();
            json!({
                "validation_releases": exp.spec.tuning.validation_releases,
                "validation_users_epsilon_multiplier": 1,
                "methods": per_method,
            })
        });
    let noise: serde_json::Map<String, Value> = exp
        .methods
        .iter()
        .filter(|m| m.method.private())
        .map(|m| (m.label.clone(), json!(m.noise)))
        .collect();
    json!({
        "noise": noise,
        "label_bounds": exp.label_bounds,
        "private_records_in_clear": in_clear,
        "private_validation": validation,
    })
}
