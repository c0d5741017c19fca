//! The privacy ledger of the DiPriMe paper's central-DP forests: a real
//! prepare + predict of each method on a small synthetic data set inside
//! `ledger::recording`, with every row's total computed by hand from the budget split
//! (card docs/methods/diprime.md §3.2, §4.4, §4.6): sequential composition along a tree's levels,
//! parallel composition across disjoint tree shares, sequential across trees that share
//! rows. Under `privacy: dp` every row pays at most ε and no private quantity is read;
//! with the feature `privacy-mutants` each slip of the family moves the ledger.

use dp_repro::data::{Dataset, Matrix, PrivateRows, Task};
use dp_repro::estimate::LabelBounds;
use dp_repro::methods::{find, ParamValue, Params, RepData};
use dp_repro::privacy::ledger::{self, LedgerReport};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// One test at a time: a slip switched on by one test (feature `privacy-mutants`) is
/// process-wide and must not reach another's fit.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Every declared parameter at its default, then `over` replacing some.
fn params(method: &str, over: &[(&str, ParamValue)]) -> Params {
    dp_repro::methods::complete_point(find(method).unwrap().params(), over)
}

fn s(v: &str) -> ParamValue {
    ParamValue::Str(v.into())
}

fn int(v: i64) -> ParamValue {
    ParamValue::Int(v)
}

/// n rows, d = 3 uniform features on [0, 10]; y = x0/10 (regression) or 1{x0 ≥ 6}.
fn dataset(n: usize, task: Task, rng: &mut Pcg64) -> Dataset {
    let x: Vec<f64> = (0..3 * n).map(|_| rng.gen::<f64>() * 10.0).collect();
    let y = (0..n)
        .map(|i| match task {
            Task::Regression => x[3 * i] / 10.0,
            Task::Classification => f64::from(x[3 * i] >= 6.0),
        })
        .collect();
    Dataset {
        name: "toy".into(),
        x: Matrix::new(n, 3, x),
        y,
        task,
        fixed_public: 0,
        leaf_occupancy: None,
        categorical: Vec::new(),
        unbinned: Vec::new(),
    }
}

const N: usize = 400;

fn toy(task: Task) -> RepData {
    let mut rng = Pcg64::seed_from_u64(7);
    RepData {
        public: dataset(0, task, &mut rng),
        private: PrivateRows::new(dataset(N, task, &mut rng)),
        test: dataset(100, task, &mut rng),
        bounds: LabelBounds { lo: 0.0, hi: 1.0 },
        masks: None,
    }
}

/// One real prepare + predict of `method` at `p` and ε inside a recording.
fn ledger_of(method: &str, p: &Params, data: &RepData, eps: f64) -> LedgerReport {
    let m = find(method).unwrap();
    let ((), report) = ledger::recording(|| {
        let prepared = m
            .prepare(data, p, &mut Pcg64::seed_from_u64(1))
            .unwrap()
            .unwrap();
        prepared
            .predict(p, Some(eps), &mut Pcg64::seed_from_u64(2))
            .unwrap();
    });
    report
}

fn names(r: &LedgerReport) -> Vec<&str> {
    r.private_quantities
        .iter()
        .map(|q| q.name.as_str())
        .collect()
}

/// Every private row paid exactly `want` (all rows reach the full depth: 3 continuous
/// features never run out).
fn assert_every_row_paid(r: &LedgerReport, want: f64, what: &str) {
    assert_eq!(r.subjects, N, "{what}: every row charged: {r:?}");
    assert!(
        (r.max_epsilon - want).abs() < 1e-9 && (r.min_epsilon - want).abs() < 1e-9,
        "{what}: want {want}, got {} .. {} ({})",
        r.min_epsilon,
        r.max_epsilon,
        r.path_text()
    );
}

const RHO: f64 = 0.5;
const EPS: f64 = 1.0;
const DEPTH: i64 = 3;

/// DiPriMe (K = 1, EM medians) on 4 disjoint shares: along a tree every row pays d medians
/// and one leaf, and nothing across trees. Reference mode halves the median's budget
/// (ε_s = ρε/(2d)): ρε/2 + (1 − ρ)ε = 0.75; paper mode gives it ρε/d: exactly ε.
#[test]
fn diprime_rows_pay_the_levels_and_the_leaf_once_across_disjoint_trees() {
    let _serial = serial();
    for task in [Task::Regression, Task::Classification] {
        let data = toy(task);
        for (mode, want) in [
            ("reference_quirks", RHO * EPS / 2.0 + (1.0 - RHO) * EPS),
            ("paper", EPS),
        ] {
            let p = params(
                "DiPriMe",
                &[("trees", int(4)), ("depth", int(DEPTH)), ("mode", s(mode))],
            );
            let r = ledger_of("DiPriMe", &p, &data, EPS);
            assert_every_row_paid(&r, want, mode);
            assert_eq!(r.path[0].part, "median");
            assert_eq!(r.path[0].calls, DEPTH as u64);
            // As published: ranges from private rows, the empty-leaf branch, and for
            // regression the exact count in the leaf scale.
            let q = names(&r);
            assert!(
                q.contains(&"root ranges") && q.contains(&"leaf empty branch"),
                "{q:?}"
            );
            assert_eq!(
                q.contains(&"leaf scale n"),
                task == Task::Regression,
                "{q:?}"
            );
        }
    }
}

/// DiPriMeExp with K = 3 candidates: `k_medians: shared` (the default, the paper's
/// accounting) charges each of the K medians ε_s to the same rows, so a row pays
/// d(K + 1)ε_s + ε_ℓ = (K + 1)ρε/2 + (1 − ρ)ε = 1.5 > ε; `composed` pays exactly ε.
#[test]
fn diprime_exp_shared_medians_overspend_and_composed_ones_do_not() {
    let _serial = serial();
    let data = toy(Task::Regression);
    let k = 3.0;
    for (k_medians, want) in [
        ("shared", (k + 1.0) * RHO * EPS / 2.0 + (1.0 - RHO) * EPS),
        ("composed", EPS),
    ] {
        for method in ["DiPriMeExp", "DiPriMeFlip"] {
            let p = params(
                method,
                &[
                    ("trees", int(4)),
                    ("depth", int(DEPTH)),
                    ("k", int(3)),
                    ("k_medians", s(k_medians)),
                ],
            );
            let r = ledger_of(method, &p, &data, EPS);
            assert_every_row_paid(&r, want, &format!("{method} {k_medians}"));
        }
    }
}

/// `privacy: dp`: the K medians share ε_s at sensitivity 2 (ε_s/2 under add/remove), the
/// attribute choice pays ε_a, the leaf sum and count ε_ℓ/2 each: a row pays
/// d(ε_s/2 + ε_a) + ε_ℓ = ρε/4 + ρε/2 + (1 − ρ)ε = 0.875 ≤ ε (DiPriMe: d·ε_s/2 + ε_ℓ with
/// ε_s = ρε/(2d) in reference mode = 0.625), and no private quantity is read.
#[test]
fn dp_mode_rows_pay_at_most_epsilon_and_read_no_private_quantity() {
    let _serial = serial();
    for task in [Task::Regression, Task::Classification] {
        let data = toy(task);
        for (method, want) in [
            ("DiPriMe", RHO * EPS / 4.0 + (1.0 - RHO) * EPS),
            ("DiPriMeExp", 0.75 * RHO * EPS + (1.0 - RHO) * EPS),
            ("DiPriMeFlip", 0.75 * RHO * EPS + (1.0 - RHO) * EPS),
        ] {
            let p = params(
                method,
                &[
                    ("trees", int(4)),
                    ("depth", int(DEPTH)),
                    ("k", int(3)),
                    ("privacy", s("dp")),
                ],
            );
            let r = ledger_of(method, &p, &data, EPS);
            assert_every_row_paid(&r, want, method);
            assert!(r.max_epsilon <= EPS + 1e-9);
            assert!(r.private_quantities.is_empty(), "{method}: {r:?}");
            let parts: Vec<&str> = r.path.iter().map(|p| p.part.as_str()).collect();
            assert!(
                parts.contains(&"leaf sum") && parts.contains(&"leaf count"),
                "{parts:?}"
            );
        }
    }
}

/// DP-ERT (uniform splits, every tree on all rows with 2ε/N_T, ρ = 0.5): only the leaves
/// spend, each (1 − ρ)·2ε/N_T, and a row pays all N_T of them: ε (sequential composition
/// across trees that share rows).
#[test]
fn dp_ert_rows_pay_every_trees_leaf() {
    let _serial = serial();
    let data = toy(Task::Regression);
    for privacy in ["as_published", "dp"] {
        let p = params(
            "DP-ERT",
            &[
                ("trees", int(5)),
                ("depth", int(DEPTH)),
                ("privacy", s(privacy)),
            ],
        );
        let r = ledger_of("DP-ERT", &p, &data, EPS);
        assert_every_row_paid(&r, EPS, privacy);
        assert_eq!(
            r.path.iter().map(|p| p.calls).sum::<u64>(),
            if privacy == "dp" { 10 } else { 5 }
        );
    }
}

/// DP-RF: every tree reads all rows (f = 1, shared) with ε/N_T; a node spends e_node =
/// (1 − ρ)ε_T/(d + 1) on its counts or mean and e_split = ρε_T/(d + 1) on its split.
/// Classification (sensitivity-1 Gini): a row on a full path pays N_T((d + 1)e_node +
/// d·e_split) < ε. Regression as run (`split_budget: whole_tree`) pays ε_T at every split:
/// N_T((d + 1)e_node + d·ε_T) > ε; `per_level` stays under ε; the node means' exact count
/// is a private quantity either way.
#[test]
fn dp_rf_charges_its_nodes_and_the_whole_tree_split_overspends() {
    let _serial = serial();
    let (trees, d) = (3.0, 2.0);
    let eps_t = EPS / trees;
    let (e_node, e_split) = ((1.0 - RHO) * eps_t / (d + 1.0), RHO * eps_t / (d + 1.0));
    let over = |mode: &str| {
        params(
            "DP-RF",
            &[("trees", int(3)), ("depth", int(2)), ("mode", s(mode))],
        )
    };
    let r = ledger_of(
        "DP-RF",
        &over("reference_quirks"),
        &toy(Task::Classification),
        EPS,
    );
    assert_eq!(r.subjects, N);
    assert!(r.max_epsilon <= trees * ((d + 1.0) * e_node + d * e_split) + 1e-9);
    assert!(r.max_epsilon > 0.0 && r.max_epsilon < EPS);
    let reg = toy(Task::Regression);
    let r = ledger_of("DP-RF", &over("reference_quirks"), &reg, EPS);
    let full_path = trees * ((d + 1.0) * e_node + d * eps_t);
    assert!(
        (r.max_epsilon - full_path).abs() < 1e-9,
        "{}",
        r.path_text()
    );
    assert!(names(&r).contains(&"node mean scale n") && names(&r).contains(&"bin edges"));
    // Paper mode with shared rows (its bootstrap would list a row twice in a tree, and a
    // row listed twice pays twice).
    let mut paper = over("paper");
    for (k, v) in paper.0.iter_mut() {
        if k == "row_sample" {
            *v = s("shared");
        }
    }
    let r = ledger_of("DP-RF", &paper, &reg, EPS);
    assert!((r.max_epsilon - trees * ((d + 1.0) * e_node + d * e_split)).abs() < 1e-9);
}

/// DP-DF: 2h − 1 queries of e_q = ε/(N_T(2h − 1)) along a path; with the height limit
/// (paper mode) no row pays more than ε; the classes present show (a private quantity).
#[test]
fn dp_df_with_the_height_limit_stays_within_epsilon() {
    let _serial = serial();
    let p = params(
        "DP-DF",
        &[("trees", int(3)), ("depth", int(2)), ("mode", s("paper"))],
    );
    let r = ledger_of("DP-DF", &p, &toy(Task::Classification), EPS);
    assert_eq!(r.subjects, N);
    assert!(
        r.max_epsilon > 0.0 && r.max_epsilon <= EPS + 1e-9,
        "{}",
        r.path_text()
    );
    assert!(names(&r).contains(&"classes present"));
}

#[cfg(feature = "privacy-mutants")]
mod slips {
    use super::*;
    use dp_repro::privacy::mutants::switch;

    /// Runs `f` with slip `name` on, then off (the caller holds [`serial`]).
    fn with_slip<T>(name: &str, f: impl FnOnce() -> T) -> T {
        switch(Some(name));
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        switch(None);
        out.unwrap_or_else(|e| std::panic::resume_unwind(e))
    }

    /// The per-level budget not divided by the depth: ε = 10, ρ = 0.5, d = 4, DiPriMeExp
    /// with K = 5 composed (paper mode): a row pays d·ρε + (1 − ρ)ε = 25 against ε = 10.
    #[test]
    fn depth_not_divided_shows_in_a_rows_total() {
        let _serial = serial();
        let data = toy(Task::Regression);
        let p = params(
            "DiPriMeExp",
            &[
                ("trees", int(2)),
                ("depth", int(4)),
                ("k", int(3)),
                ("mode", s("paper")),
                ("k_medians", s("composed")),
            ],
        );
        let r = with_slip("diprime-depth-not-divided", || {
            ledger_of("DiPriMeExp", &p, &data, 10.0)
        });
        assert!((r.max_epsilon - 25.0).abs() < 1e-9, "{}", r.path_text());
        let clean = ledger_of("DiPriMeExp", &p, &data, 10.0);
        assert!((clean.max_epsilon - 10.0).abs() < 1e-9);
    }

    /// The leaf scale from the leaf's own label range: a private quantity, and the charge
    /// (W/n over a scale of range/(n ε_ℓ)) exceeds ε_ℓ.
    #[test]
    fn leaf_scale_from_the_leaf_range_is_a_private_quantity_and_overspends() {
        let _serial = serial();
        let data = toy(Task::Regression);
        let p = params("DiPriMe", &[("trees", int(4)), ("depth", int(DEPTH))]);
        let r = with_slip("diprime-leaf-scale-from-leaf-range", || {
            ledger_of("DiPriMe", &p, &data, EPS)
        });
        assert!(names(&r).contains(&"leaf label range"));
        assert!(r.max_epsilon > EPS, "{}", r.path_text());
    }

    /// Overlapping tree shares: the rows a share borrows pay two trees' budgets.
    #[test]
    fn overlapping_tree_shares_make_the_borrowed_rows_pay_twice() {
        let _serial = serial();
        let data = toy(Task::Regression);
        for privacy in ["as_published", "dp"] {
            let p = params(
                "DiPriMe",
                &[
                    ("trees", int(4)),
                    ("depth", int(DEPTH)),
                    ("mode", s("paper")),
                    ("privacy", s(privacy)),
                ],
            );
            let clean = ledger_of("DiPriMe", &p, &data, EPS);
            let r = with_slip("overlapping-tree-shares", || {
                ledger_of("DiPriMe", &p, &data, EPS)
            });
            assert!(r.max_epsilon > EPS + 1e-9, "{privacy}: {}", r.path_text());
            assert!(clean.max_epsilon <= EPS + 1e-9, "{privacy}");
        }
    }

    /// In the DP mode a leaf mean with the private n in its sensitivity is a private
    /// quantity (the DP mode must read none).
    #[test]
    fn mean_sensitivity_with_private_n_is_a_private_quantity_in_the_dp_mode() {
        let _serial = serial();
        let data = toy(Task::Regression);
        let p = params(
            "DiPriMe",
            &[
                ("trees", int(4)),
                ("depth", int(DEPTH)),
                ("privacy", s("dp")),
            ],
        );
        assert!(ledger_of("DiPriMe", &p, &data, EPS)
            .private_quantities
            .is_empty());
        let r = with_slip("mean-sensitivity-private-n", || {
            ledger_of("DiPriMe", &p, &data, EPS)
        });
        assert!(names(&r).contains(&"leaf scale n"), "{r:?}");
    }
}
