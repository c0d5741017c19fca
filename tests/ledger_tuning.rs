//! The privacy ledger's tuning column (docs/audit.md, "The privacy ledger"): a ledger run
//! fits every grid point of a private method on two repetitions, and each row's
//! `epsilon_with_tuning` counts what the selection of its cell among the grid's release
//! configurations costs the worst user under the spec's selection modes (basic
//! composition): k × the per-fit charge under oracle selection over k configurations,
//! (folds − 1)·k + 1 fits under cv, and under private validation the larger of the
//! training users' releases and the validation users' noisy losses. Synthetic data only.

use dp_repro::audit::ledger::{ledger_csv, ledger_experiment, Finding, LEDGER_REPETITIONS};
use dp_repro::spec::raw::Selection;
use dp_repro::spec::{parse_file, validate, Experiment};
use std::fs;

/// A spec on the LPDT sine with LPDT-M over `grid` at ε ∈ {1, 4}, selected by `selection`
/// (with `extra` top-level lines).
fn experiment(dir: &std::path::Path, grid: &str, selection: &str, extra: &str) -> Experiment {
    let text = format!(
        "name: tuning\nseed: 9\nrepetitions: 2\ndatasets:\n  - {{name: sine, synthetic: lpdt_sine, sizes: {{public: 100, private: 300, test: 50}}}}\nepsilons: [1, 4]\nmethods:\n  - method: LPDT-M\n    grid: {grid}\nselection: {selection}\n{extra}"
    );
    let path = dir.join("tuning.yaml");
    fs::write(&path, text).unwrap();
    let (parsed, _) = parse_file(&path).unwrap();
    validate(parsed, &path, &dp_repro::data::default_manifest_dirs()).unwrap()
}

/// Whether `a` is within relative `tol` of `b`.
fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs()
}

/// The relative error of LPDT's charge from its 2^−32-quantized flip probability, a bound
/// for every ε and ρ here.
const QUANTIZED: f64 = 1e-8;

/// An oracle grid of k = 2 depths × 3 values of ρ = 6 release configurations: every row
/// (every grid point, both repetitions, each ε) pays ε per fit and 6ε with tuning, found
/// as `tuning_over_budget`; cv on the same grid (5 folds) charges (5 − 1)·6 + 1 = 25 fits.
#[test]
fn oracle_selection_over_k_configurations_costs_k_epsilon() {
    let dir = tempfile::tempdir().unwrap();
    let exp = experiment(
        dir.path(),
        "{depth: [1, 2], min_leaf: [5], rho: [0.3, 0.5, 0.7]}",
        "[best_mean, cv]",
        "",
    );
    let rows = ledger_experiment(&exp, None, None, &exp.epsilons).unwrap();
    assert_eq!(rows.len(), 6 * 2 * LEDGER_REPETITIONS.len());
    for r in &rows {
        assert_eq!(r.releases, 6, "{r:?}");
        assert!(close(r.per_fit(), r.epsilon, QUANTIZED), "{r:?}");
        let oracle = r.with_tuning_under(Selection::BestMean).unwrap();
        let cv = r.with_tuning_under(Selection::Cv).unwrap();
        assert!(
            close(oracle, 6.0 * r.epsilon, QUANTIZED),
            "oracle {oracle}: {r:?}"
        );
        assert!(close(cv, 25.0 * r.epsilon, QUANTIZED), "cv {cv}: {r:?}");
        assert_eq!(r.with_tuning(), cv);
        assert_eq!(r.findings[0], Finding::TuningOverBudget, "{r:?}");
    }
    let reps: std::collections::BTreeSet<usize> = rows.iter().map(|r| r.repetition).collect();
    assert_eq!(reps.into_iter().collect::<Vec<_>>(), LEDGER_REPETITIONS);
    let csv = ledger_csv(&rows);
    let header = csv.lines().next().unwrap();
    assert!(
        header.contains(",epsilon_per_fit,epsilon_with_tuning,"),
        "{header}"
    );
    assert!(
        csv.lines().nth(1).unwrap().contains("tuning_over_budget"),
        "{csv}"
    );
}

/// One release configuration (ρ only on the grid, and a curator-side τ that draws the same
/// releases): selection costs nothing beyond the fit, so nothing is found.
#[test]
fn a_single_release_configuration_costs_one_fit() {
    let dir = tempfile::tempdir().unwrap();
    let exp = experiment(
        dir.path(),
        "{depth: [2], min_leaf: [5], rho: [0.5], tau: [0, 0.1]}",
        "best_mean",
        "scaling: public\n",
    );
    let rows = ledger_experiment(&exp, None, None, &exp.epsilons).unwrap();
    assert_eq!(rows.len(), 2 * 2 * LEDGER_REPETITIONS.len());
    for r in &rows {
        assert_eq!(r.releases, 1, "{r:?}");
        assert!(close(r.with_tuning(), r.epsilon, QUANTIZED), "{r:?}");
        assert!(r.findings.is_empty(), "{r:?}");
    }
}

/// Private validation over 4 configurations: with fresh releases the training users pay
/// 4ε (each configuration released at ε); with shared releases each configuration is
/// fitted at ε/4 and they pay ε, as do the validation users (one noisy loss per grid
/// point at ε/4 each): ε with tuning, nothing found.
#[test]
fn private_validation_costs_what_its_protocol_spends() {
    let dir = tempfile::tempdir().unwrap();
    let grid = "{depth: [1, 2], min_leaf: [5], rho: [0.4, 0.6]}";
    let fresh = experiment(dir.path(), grid, "private_validation", "");
    let rows = ledger_experiment(&fresh, None, None, &fresh.epsilons).unwrap();
    for r in &rows {
        let pv = r.with_tuning_under(Selection::PrivateValidation).unwrap();
        assert!(close(pv, 4.0 * r.epsilon, QUANTIZED), "fresh {pv}: {r:?}");
    }
    let shared = experiment(
        dir.path(),
        grid,
        "private_validation",
        "scaling: public\ntuning: {validation_releases: shared}\n",
    );
    let rows = ledger_experiment(&shared, None, None, &shared.epsilons).unwrap();
    for r in &rows {
        let pv = r.with_tuning_under(Selection::PrivateValidation).unwrap();
        assert!(close(pv, r.epsilon, QUANTIZED), "shared {pv}: {r:?}");
        assert!(!r.findings.contains(&Finding::TuningOverBudget), "{r:?}");
    }
}
