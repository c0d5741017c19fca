//! The semi-feature family's slips (`crates/privacy/src/mutants.rs`): each one, switched
//! on alone, raises the ledger total of a real fit above ε and makes the audit of the
//! release the fit calls certify more than the claim; with every slip off, both stay at ε.
//! One test function, so that no other test of this binary runs while a slip is on.
#![cfg(feature = "privacy-mutants")]

use dp_repro::audit::{audit_scalar, table::cases_for, AuditConfig, AuditContext, Verdict};
use dp_repro::data::{Dataset, MaskSource, Matrix, PrivateRows, Task};
use dp_repro::estimate::LabelBounds;
use dp_repro::methods::{complete_point, find, ParamDecl, ParamValue, Params, RepData};
use dp_repro::privacy::ledger;
use dp_repro::privacy::mutants::switch;
use dp_repro::seeds::stream;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn uniform(n: usize, d: usize, rng: &mut Pcg64) -> Dataset {
    let x = Matrix::new(n, d, (0..n * d).map(|_| rng.gen::<f64>()).collect());
    let y = (0..n)
        .map(|i| (6.0 * x.row(i)[0]).sin() + 2.0 * x.row(i)[d - 1] + rng.gen::<f64>())
        .collect();
    Dataset {
        name: "toy".into(),
        x,
        y,
        task: Task::Regression,
        fixed_public: 0,
        categorical: Vec::new(),
        unbinned: Vec::new(),
        leaf_occupancy: None,
    }
}

/// 300 users, 40 test points on [0,1]^4, public label bounds [−1, 4], masks from seed 11.
fn rep_data() -> RepData {
    let mut rng = Pcg64::seed_from_u64(3);
    let private = uniform(300, 4, &mut rng);
    let test = uniform(40, 4, &mut rng);
    let masks = MaskSource::draw(300, (0..4).collect(), &mut Pcg64::seed_from_u64(11));
    RepData {
        public: private.select(&[]),
        private: PrivateRows::new(private),
        test,
        bounds: LabelBounds { lo: -1.0, hi: 4.0 },
        masks: Some(masks.into()),
    }
}

fn point(decls: &[ParamDecl], set: &[(&str, ParamValue)]) -> Params {
    complete_point(decls, set)
}

const EPS: f64 = 1.0;

/// The methods of tests/privacy/histoftree.yaml at its grid points.
fn methods() -> Vec<(&'static str, Vec<(&'static str, ParamValue)>)> {
    let s = |v: &str| ParamValue::Str(v.into());
    let aligned = || vec![("mask", s("aligned")), ("d_p", ParamValue::Int(2))];
    let tree = [
        ("max_depth", ParamValue::Int(4)),
        ("min_samples_leaf", ParamValue::Int(5)),
    ];
    let mut hot = aligned();
    hot.extend([
        ("rho", ParamValue::Float(0.5)),
        ("depth", ParamValue::Int(3)),
        ("bins", ParamValue::Int(2)),
    ]);
    let ad = vec![
        ("mask", s("personalized")),
        ("mask_tau", ParamValue::Float(1.0)),
        ("rho", ParamValue::Float(0.5)),
    ];
    let mut pardt = aligned();
    pardt.extend(tree.clone());
    let mut krr = pardt.clone();
    krr.push(("k", ParamValue::Int(4)));
    vec![
        ("HistOfTree-ME", hot),
        ("AdHistOfTree-ME", ad),
        ("ParDT", pardt),
        ("LabelDT", tree.to_vec()),
        ("KRR", krr),
    ]
}

/// Per method: (ledger max ε of a real fit, whether the audit flags a part, the parts it
/// flags).
fn verdicts(data: &RepData) -> Vec<(String, f64, Vec<String>)> {
    let cfg = AuditConfig {
        pilot: 5_000,
        draws: 60_000,
        alpha: 0.01,
        ..AuditConfig::default()
    };
    methods()
        .into_iter()
        .map(|(name, set)| {
            let m = find(name).unwrap();
            let p = point(m.params(), &set);
            let (_, r) = ledger::recording(|| {
                let fit = m
                    .prepare(data, &p, &mut Pcg64::seed_from_u64(1))
                    .unwrap()
                    .unwrap();
                fit.predict(&p, Some(EPS), &mut Pcg64::seed_from_u64(2))
                    .unwrap()
            });
            assert_eq!(r.subjects, 300, "{name}");
            let cases = cases_for(m.as_ref(), &p, EPS, &AuditContext::default())
                .unwrap()
                .unwrap();
            let flagged = cases
                .iter()
                .enumerate()
                .filter(|(i, c)| {
                    let streams = ["pilot-a", "pilot-b", "final-a", "final-b"]
                        .map(|role| stream(27, &["semi-slips", name, &i.to_string(), role]));
                    let out = audit_scalar(&cfg, &c.release_a, &c.release_b, streams);
                    Verdict::of(out.epsilon_lower, c.claimed) == Verdict::Violation
                })
                .map(|(_, c)| c.part.clone())
                .collect();
            (name.to_string(), r.max_epsilon, flagged)
        })
        .collect()
}

#[test]
fn each_semi_feature_slip_is_caught_by_the_ledger_and_the_audit() {
    let data = rep_data();
    switch(None);
    for (name, charged, flagged) in verdicts(&data) {
        assert!(
            (charged - EPS).abs() < 1e-9,
            "no slip: {name} charged {charged}"
        );
        assert!(flagged.is_empty(), "no slip: {name} flagged {flagged:?}");
    }
    // slip → the methods whose ledger and audit must both catch it.
    let expect: [(&str, &[&str]); 3] = [
        (
            "histoftree-label-scale-halved",
            &["HistOfTree-ME", "AdHistOfTree-ME"],
        ),
        (
            "noisy-label-helper-scale-halved",
            &[
                "HistOfTree-ME",
                "AdHistOfTree-ME",
                "ParDT",
                "LabelDT",
                "KRR",
            ],
        ),
        (
            "grr-wrong-categories",
            &["HistOfTree-ME", "AdHistOfTree-ME", "KRR"],
        ),
    ];
    let mut caught = 0;
    for (slip, must) in expect {
        switch(Some(slip));
        let got = verdicts(&data);
        switch(None);
        for (name, charged, flagged) in &got {
            let hit = must.contains(&name.as_str());
            if hit {
                assert!(charged > &(EPS + 1e-6), "{slip}: {name} charged {charged}");
                assert!(!flagged.is_empty(), "{slip}: the audit missed {name}");
            } else {
                assert!(
                    (charged - EPS).abs() < 1e-9,
                    "{slip}: {name} charged {charged}"
                );
                assert!(flagged.is_empty(), "{slip}: {name} flagged {flagged:?}");
            }
            println!("{slip}: {name} charged {charged:.4}, audit flags {flagged:?}");
        }
        caught += 1;
    }
    println!("semi-feature slips: caught {caught} of 3");
}
