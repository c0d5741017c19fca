//! The privacy ledger on the local-DP methods with public data:
//! LPDT-M/V, PHIST, APHIST, the LPCT family, DECONV, PGLM, PSGD-L/N. Each test runs a real
//! fit (`prepare` + `predict`, as the runner calls them) on a small synthetic data set
//! inside `ledger::recording` and checks, by hand, what every private user was charged:
//! at the faithful settings every user pays exactly the column's ε (to rounding, or to the
//! 2^−32 quantization of LPDT's flip probability, bounded below); the authors'-code options
//! that overspend (PGLM `noise: reference`, PSGD `epsilon_split: per_tensor`) show their
//! true spend. With the feature `privacy-mutants`, each of the family's slips is switched
//! on alone and must raise the ledger's total above the column's ε (and, where the claim
//! does not move with the slip, the audit's verdict).
//!
//! Slips are process-wide switches, so every test of this file holds [`LOCK`].

use dp_repro::data::{Dataset, Matrix, PrivateRows, Task};
use dp_repro::estimate::LabelBounds;
use dp_repro::methods::{complete_point, find, ParamDecl, ParamValue, Params, RepData};
use dp_repro::privacy::ledger::{self, LedgerReport};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::sync::Mutex;

/// Serializes the tests of this file (slips switch the whole process).
static LOCK: Mutex<()> = Mutex::new(());

/// Private users per synthetic data set.
const N_PRIVATE: usize = 300;

fn lock() -> std::sync::MutexGuard<'static, ()> {
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// n points uniform on [0,1]²; regression labels y = 3x₁ − x₂ + noise in [−1, 3],
/// classification labels 1{x₁ + x₂ > 1}.
fn dataset(n: usize, task: Task, rng: &mut Pcg64) -> Dataset {
    let x: Vec<f64> = (0..2 * n).map(|_| rng.gen::<f64>()).collect();
    let y = (0..n)
        .map(|i| {
            let (a, b) = (x[2 * i], x[2 * i + 1]);
            match task {
                Task::Regression => 3.0 * a - b + rng.gen::<f64>() - 0.5,
                Task::Classification => f64::from(u8::from(a + b > 1.0)),
            }
        })
        .collect();
    Dataset {
        name: "toy".into(),
        x: Matrix::new(n, 2, x),
        y,
        task,
        fixed_public: 0,
        leaf_occupancy: None,
        categorical: Vec::new(),
        unbinned: Vec::new(),
    }
}

fn data(task: Task) -> RepData {
    let mut rng = Pcg64::seed_from_u64(27);
    let bounds = match task {
        Task::Regression => LabelBounds { lo: -1.5, hi: 3.5 },
        Task::Classification => LabelBounds { lo: 0.0, hi: 1.0 },
    };
    RepData {
        public: dataset(200, task, &mut rng),
        private: PrivateRows::new(dataset(N_PRIVATE, task, &mut rng)),
        test: dataset(100, task, &mut rng),
        bounds,
        masks: None,
    }
}

/// Every parameter of `decls`: `overrides` (YAML-like text), else the default, else a
/// valid value.
fn params(decls: &[ParamDecl], overrides: &[(&str, &str)]) -> Params {
    let set: Vec<(&str, ParamValue)> = overrides
        .iter()
        .map(|(k, text)| (*k, ParamValue::parse(text)))
        .collect();
    complete_point(decls, &set)
}

/// One real fit of `method` at grid point `overrides` and ε, recorded.
fn fit(method: &str, task: Task, overrides: &[(&str, &str)], epsilon: f64) -> LedgerReport {
    fit_on(&data(task), method, overrides, epsilon)
}

/// One real fit of `method` on `d` at grid point `overrides` and ε, recorded.
fn fit_on(d: &RepData, method: &str, overrides: &[(&str, &str)], epsilon: f64) -> LedgerReport {
    let m = find(method).unwrap();
    let p = params(m.params(), overrides);
    let d = d.clone();
    let ((), report) = ledger::recording(|| {
        let prepared = m
            .prepare(&d, &p, &mut Pcg64::seed_from_u64(1))
            .unwrap()
            .expect("not skipped");
        let out = prepared
            .predict(&p, Some(epsilon), &mut Pcg64::seed_from_u64(2))
            .unwrap();
        assert_eq!(out.len(), d.test.n());
    });
    report
}

/// Every private user charged, all the same total `want` within `tol`.
fn assert_every_user_pays(name: &str, r: &LedgerReport, want: f64, tol: f64) {
    assert_eq!(r.subjects, N_PRIVATE, "{name}: users charged ({r:?})");
    assert!(
        (r.max_epsilon - want).abs() <= tol && (r.min_epsilon - want).abs() <= tol,
        "{name}: charged {}..{} against {want} ± {tol}: {}",
        r.min_epsilon,
        r.max_epsilon,
        r.path_text()
    );
}

/// The bound on the error of LPDT's charge from the 2^−32 quantization of its flip
/// probability p = 1 − κ: two bits, each ln((1 − p)/p) moved by at most
/// 2^−33/(p(1 − p)) (to first order; doubled for safety).
fn quantization_tolerance(eps_cell: f64) -> f64 {
    let p = 1.0 / (1.0 + (eps_cell / 2.0).exp());
    2.0 * 2.0 * 2f64.powi(-33) / (p * (1.0 - p)) + 1e-12
}

#[test]
fn lpdt_users_pay_rho_epsilon_for_the_bits_and_the_rest_for_the_label() {
    let _g = lock();
    for method in ["LPDT-M", "LPDT-V"] {
        for simulation in ["fast", "per_user"] {
            for (eps, rho) in [(1.0, 0.3), (4.0, 0.5)] {
                let rho_text = rho.to_string();
                let r = fit(
                    method,
                    Task::Regression,
                    &[
                        ("depth", "2"),
                        ("min_leaf", "5"),
                        ("rho", &rho_text),
                        ("simulation", simulation),
                    ],
                    eps,
                );
                let name = format!("{method} {simulation} eps {eps} rho {rho}");
                assert_every_user_pays(&name, &r, eps, quantization_tolerance(rho * eps));
                // The path: the bits at ρε and the label at (1 − ρ)ε, once each.
                assert_eq!(r.path.len(), 2, "{name}: {}", r.path_text());
                let bits = &r.path[r
                    .path
                    .iter()
                    .position(|p| p.part.starts_with("cell"))
                    .unwrap()];
                assert_eq!(bits.calls, 1, "{name}");
                assert!(
                    (bits.epsilon - rho * eps).abs() <= quantization_tolerance(rho * eps),
                    "{name}: {}",
                    r.path_text()
                );
                assert!(r.private_quantities.is_empty(), "{name}");
            }
        }
    }
}

#[test]
fn histogram_users_pay_half_epsilon_per_vector() {
    let _g = lock();
    for method in ["PHIST", "APHIST"] {
        for y_center in ["false", "true"] {
            let r = fit(
                method,
                Task::Regression,
                &[("bins", "3"), ("t", "0.01"), ("y_center", y_center)],
                2.0,
            );
            assert_every_user_pays(&format!("{method} {y_center}"), &r, 2.0, 1e-9);
            assert_eq!(r.path.len(), 2);
            assert!((r.path[0].epsilon - 1.0).abs() < 1e-9, "{}", r.path_text());
        }
    }
    // Classification (the LPCT paper's PHIST): labels 0/1, M_Y = 1.
    let r = fit(
        "PHIST",
        Task::Classification,
        &[("bins", "2"), ("t", "0")],
        0.5,
    );
    assert_every_user_pays("PHIST classification", &r, 0.5, 1e-9);
    // A single cell: every user releases the same indicator (no loss) and a label vector of
    // one coordinate, sensitivity R = 1 instead of 2 M_Y = 2.
    let r = fit(
        "PHIST",
        Task::Classification,
        &[("bins", "1"), ("t", "0")],
        2.0,
    );
    assert_every_user_pays("PHIST one cell", &r, 0.5, 1e-9);
}

#[test]
fn lpct_users_pay_epsilon_once_per_round() {
    let _g = lock();
    let tree = [
        ("depth", "3"),
        ("min_leaf", "1"),
        ("min_samples_split", "1"),
        ("lambda", "1"),
    ];
    for method in ["LPCT-M", "LPCT-C", "LPCT-R"] {
        for eps in [0.5, 2.0] {
            let r = fit(method, Task::Classification, &tree, eps);
            let name = format!("{method} eps {eps}");
            assert_every_user_pays(&name, &r, eps, 1e-9);
            // Two vectors, ε/2 each, drawn once (the exact Gamma sums stand for them).
            assert_eq!(r.path.len(), 2, "{name}: {}", r.path_text());
            assert!(r
                .path
                .iter()
                .all(|p| p.calls == 1 && (p.epsilon - eps / 2.0).abs() < 1e-9));
        }
    }
    let prune = [
        ("depth", "2"),
        ("p_min", "1"),
        ("min_leaf", "1"),
        ("min_samples_split", "1"),
    ];
    for method in ["LPCT-prune-M", "LPCT-prune-C"] {
        for mode in ["reference_v1", "reference_v1_as_coded"] {
            let mut grid = prune.to_vec();
            grid.push(("prune", mode));
            let r = fit(method, Task::Classification, &grid, 2.0);
            assert_every_user_pays(&format!("{method} {mode}"), &r, 2.0, 1e-9);
        }
        // Algorithm 2: ε/2 per round, the second round only when the flag is raised.
        let mut grid = prune.to_vec();
        grid.push(("prune", "paper"));
        let r = fit(method, Task::Classification, &grid, 2.0);
        let rounds = r.path[0].calls as f64;
        assert!(r.path.iter().all(|p| p.calls as f64 == rounds));
        assert_every_user_pays(&format!("{method} paper"), &r, rounds * 1.0, 1e-9);
        assert!(rounds == 1.0 || rounds == 2.0);
    }
}

#[test]
fn deconv_users_pay_half_epsilon_for_features_and_label() {
    let _g = lock();
    let r = fit("DECONV", Task::Regression, &[("bandwidth", "0.5")], 1.0);
    assert_every_user_pays("DECONV", &r, 1.0, 1e-9);
    assert_eq!(r.path.len(), 2);
    assert!(r.path.iter().all(|p| (p.epsilon - 0.5).abs() < 1e-9));
}

#[test]
fn pglm_paper_noise_spends_epsilon_and_reference_noise_overspends() {
    let _g = lock();
    let n = N_PRIVATE as f64;
    let delta = 1.0 / (n * n);
    let r = fit("PGLM", Task::Classification, &[("noise", "paper")], 2.0);
    assert_every_user_pays("PGLM paper", &r, 2.0, 1e-9);
    assert!((r.max_delta - delta).abs() < 1e-15, "{}", r.max_delta);
    // √n_P·σ² in the aggregate is σ²/√n_P per user: ε·n_P^{1/4}.
    let r = fit("PGLM", Task::Classification, &[("noise", "reference")], 2.0);
    assert_every_user_pays("PGLM reference", &r, 2.0 * n.powf(0.25), 1e-9);
}

#[test]
fn psgd_users_pay_what_privunitg_realises_per_tensor() {
    let _g = lock();
    for (method, tensors) in [("PSGD-L", 2.0), ("PSGD-N", 4.0)] {
        let r = fit(
            method,
            Task::Classification,
            &[("eta", "0.1"), ("epsilon_split", "split")],
            2.0,
        );
        assert_every_user_pays(&format!("{method} split"), &r, 2.0, 1e-9);
        assert_eq!(r.path[0].calls as f64, tensors);
        let r = fit(
            method,
            Task::Classification,
            &[("eta", "0.1"), ("epsilon_split", "per_tensor")],
            2.0,
        );
        assert_every_user_pays(&format!("{method} per_tensor"), &r, tensors * 2.0, 1e-9);
        // The ε ≥ 20 cap: PrivUnitG then realises less than the ε asked for.
        let r = fit(
            method,
            Task::Classification,
            &[("eta", "0.1"), ("epsilon_split", "split")],
            1000.0,
        );
        assert!(
            r.max_epsilon < 1000.0 && r.max_epsilon > 0.0,
            "{}",
            r.path_text()
        );
    }
}

/// One real fit of the inline composition `yaml` (regression data), recorded.
fn fit_composed(yaml: &str, overrides: &[(&str, &str)], epsilon: f64) -> LedgerReport {
    use dp_repro::methods::{Composed, Composition, Method};
    let c: Composition = serde_yaml::from_str(yaml).unwrap();
    let m = Composed::new("inline", "test", c).unwrap();
    let p = params(m.params(), overrides);
    let d = data(Task::Regression);
    let ((), report) = ledger::recording(|| {
        let prepared = m
            .prepare(&d, &p, &mut Pcg64::seed_from_u64(1))
            .unwrap()
            .expect("not skipped");
        prepared
            .predict(&p, Some(epsilon), &mut Pcg64::seed_from_u64(2))
            .unwrap();
    });
    report
}

/// Compositions outside the presets go through the per-user release: every user is charged
/// its cell part and its label part once, ε in all, whatever the mechanisms.
#[test]
fn other_compositions_charge_each_user_both_parts_of_its_release() {
    let _g = lock();
    let tree = [("depth", "2"), ("min_leaf", "5"), ("rho", "0.4")];
    for (cell, label) in [
        ("generalized_rr", "laplace"),
        ("generalized_rr", "laplace_vector"),
        ("laplace", "laplace"),
        ("randomized_response", "laplace_vector"),
    ] {
        let yaml = format!(
            "partition: {{rule: max_edge, grown_on: public}}\ncell_mechanism: {cell}\nlabel_mechanism: {label}\nestimator: ratio\n"
        );
        let r = fit_composed(&yaml, &tree, 1.5);
        let name = format!("{cell} x {label}");
        assert_every_user_pays(&name, &r, 1.5, 1e-9);
        assert_eq!(r.path.len(), 2, "{name}: {}", r.path_text());
        assert!(
            (r.path[0].epsilon - 0.6).abs() < 1e-9,
            "{name}: {}",
            r.path_text()
        );
    }
}

/// `y_center` shifts the labels of the label vector into [−R/2, R/2]: its scale halves
/// and so does the vector's sensitivity, so every user still pays exactly ε.
#[test]
fn a_centred_label_vector_charges_each_user_epsilon() {
    let _g = lock();
    let yaml = "partition: {rule: max_edge, grown_on: public}\ncell_mechanism: laplace\nlabel_mechanism: laplace_vector\nestimator: ratio\n";
    for centre in ["false", "true"] {
        let r = fit_composed(
            yaml,
            &[
                ("depth", "2"),
                ("min_leaf", "5"),
                ("rho", "0.4"),
                ("y_center", centre),
            ],
            1.5,
        );
        assert_every_user_pays(&format!("y_center {centre}"), &r, 1.5, 1e-9);
    }
}

/// `grown_on: mixture` uses 1 − δ of the partition set's points from private users in the
/// clear: those users are charged an infinite ε and the set is a private quantity; the
/// reporting users pay ε.
#[test]
fn mixture_users_in_the_clear_pay_an_infinite_epsilon() {
    let _g = lock();
    let yaml = "partition: {rule: max_edge, grown_on: mixture}\ncell_mechanism: randomized_response\nlabel_mechanism: laplace\nestimator: ratio\nnon_private_users: true\n";
    let r = fit_composed(
        yaml,
        &[("depth", "2"), ("min_leaf", "5"), ("delta", "0.5")],
        1.0,
    );
    assert_eq!(r.subjects, N_PRIVATE);
    assert!(r.max_epsilon.is_infinite(), "{}", r.path_text());
    assert!((r.min_epsilon - 1.0).abs() <= quantization_tolerance(0.5));
    assert_eq!(r.private_quantities.len(), 1);
    assert_eq!(r.private_quantities[0].name, "partition set");
}

#[cfg(feature = "privacy-mutants")]
mod slips {
    use super::*;
    use dp_repro::audit::{audit_scalar, AuditConfig, AuditContext, Verdict};
    use dp_repro::privacy::mutants::switch;
    use dp_repro::run::seeds::stream;

    /// Switches `slip` on for the duration of `f`, off afterwards even on a panic.
    fn with_slip<T>(slip: &str, f: impl FnOnce() -> T) -> T {
        struct Off;
        impl Drop for Off {
            fn drop(&mut self) {
                switch(None);
            }
        }
        switch(Some(slip));
        let _off = Off;
        f()
    }

    /// Whether the audit of `method` at grid point `overrides` and ε flags some part.
    fn audit_flags(method: &str, overrides: &[(&str, &str)], eps: f64) -> bool {
        let m = find(method).unwrap();
        let p = params(m.params(), overrides);
        let cases =
            dp_repro::audit::table::cases_for(m.as_ref(), &p, eps, &AuditContext::default())
                .unwrap()
                .expect("audited");
        let cfg = AuditConfig {
            pilot: 5_000,
            draws: 50_000,
            alpha: 0.05 / cases.len() as f64,
            ..AuditConfig::default()
        };
        cases.iter().enumerate().any(|(i, c)| {
            let streams = ["pilot-a", "pilot-b", "final-a", "final-b"]
                .map(|role| stream(27, &["ledger-local", method, &i.to_string(), role]));
            let out = audit_scalar(&cfg, &c.release_a, &c.release_b, streams);
            Verdict::of(out.epsilon_lower, c.claimed) == Verdict::Violation
        })
    }

    const LPDT: &[(&str, &str)] = &[("depth", "2"), ("min_leaf", "5"), ("rho", "0.5")];
    const LPCT: &[(&str, &str)] = &[
        ("depth", "3"),
        ("min_leaf", "1"),
        ("min_samples_split", "1"),
        ("lambda", "1"),
    ];

    #[test]
    fn without_slips_the_audit_passes_the_family() {
        let _g = lock();
        assert!(!audit_flags("LPDT-M", LPDT, 1.0));
        assert!(!audit_flags("LPCT-M", LPCT, 1.0));
    }

    #[test]
    fn lpct_full_eps_each_vector_is_caught_by_the_ledger_and_the_audit() {
        let _g = lock();
        let (r, flagged) = with_slip("lpct-full-eps-each-vector", || {
            (
                fit("LPCT-M", Task::Classification, LPCT, 1.0),
                audit_flags("LPCT-M", LPCT, 1.0),
            )
        });
        // Each vector at scale 2/ε: ε + ε.
        assert_every_user_pays("LPCT slip", &r, 2.0, 1e-9);
        assert!(
            flagged,
            "the audit's claim (ε/2 per vector) does not move with the slip"
        );
    }

    #[test]
    fn budget_split_full_eps_is_caught_by_the_ledger() {
        let _g = lock();
        let (r, flagged) = with_slip("budget-split-full-eps", || {
            (
                fit("LPDT-M", Task::Regression, LPDT, 1.0),
                audit_flags("LPDT-M", LPDT, 1.0),
            )
        });
        // Bits at ε and label at ε: 2ε against the column's ε.
        assert_every_user_pays("budget split slip", &r, 2.0, quantization_tolerance(1.0));
        // The claims come from the same budget function and move with it: the audit alone
        // cannot see this slip, the ledger does.
        assert!(!flagged);
    }

    #[test]
    fn rr_vector_bits_not_split_is_caught_by_the_ledger_and_the_audit() {
        let _g = lock();
        let (r, flagged) = with_slip("rr-vector-bits-not-split", || {
            (
                fit("LPDT-M", Task::Regression, LPDT, 1.0),
                audit_flags("LPDT-M", LPDT, 1.0),
            )
        });
        // κ = e^{ρε}/(1 + e^{ρε}): two bits at ρε each, plus (1 − ρ)ε: 1.5ε at ρ = 1/2.
        assert_every_user_pays("rr slip", &r, 1.5, quantization_tolerance(2.0 * 0.5));
        assert!(flagged);
    }

    /// The Laplace sampler drawing at half the scale its caller passes
    /// (`laplace-draw-scale-halved`): the charged releases compute each charge from the
    /// scale the draw really used, so every Laplace part costs twice its share. LPDT at
    /// ρ = 1/2 (per-user and fast simulation alike): ε/2 for the bits + 2·ε/2 for the label
    /// = 1.5ε; PHIST's exact sums of both vectors and DECONV's feature vector and label:
    /// 2ε. Without the slip, ε.
    #[test]
    fn a_laplace_draw_at_half_the_scale_is_charged_twice() {
        let _g = lock();
        let lpdt = |simulation: &'static str| {
            let mut p = LPDT.to_vec();
            p.push(("simulation", simulation));
            fit("LPDT-M", Task::Regression, &p, 1.0)
        };
        let phist = || fit("PHIST", Task::Regression, &[("bins", "3"), ("t", "0")], 1.0);
        let deconv = || fit("DECONV", Task::Regression, &[("bandwidth", "0.5")], 1.0);
        let tol = quantization_tolerance(0.5);
        for (name, r, want) in [
            ("LPDT fast", lpdt("fast"), 1.0),
            ("LPDT per user", lpdt("per_user"), 1.0),
            ("PHIST", phist(), 1.0),
            ("DECONV", deconv(), 1.0),
        ] {
            assert_every_user_pays(&format!("{name} without the slip"), &r, want, tol);
        }
        let slipped = with_slip("laplace-draw-scale-halved", || {
            [
                ("LPDT fast", lpdt("fast"), 1.5),
                ("LPDT per user", lpdt("per_user"), 1.5),
                ("PHIST", phist(), 2.0),
                ("DECONV", deconv(), 2.0),
            ]
        });
        for (name, r, want) in slipped {
            assert_every_user_pays(&format!("{name} with the slip"), &r, want, tol);
        }
    }

    #[test]
    fn rho_both_full_is_caught_by_the_ledger_and_the_audit() {
        let _g = lock();
        let (r, flagged) = with_slip("rho-both-full", || {
            (
                fit("LPDT-M", Task::Regression, LPDT, 1.0),
                audit_flags("LPDT-M", LPDT, 1.0),
            )
        });
        assert_every_user_pays("rho slip", &r, 2.0, quantization_tolerance(1.0));
        assert!(flagged);
    }
}
