//! Privacy masks of semi-feature LDP (HistOfTree card §1, §10, §11): the laws of the
//! aligned, personalized and prefix masks, their nesting in τ, the per-repetition stream,
//! the grid checks and run.json's record. Statistical tolerances are 5 standard deviations
//! of the binomial proportion under test (never tuned): a correct law fails with
//! probability below 1e-6 per check; an off-by-one rank or a wrong exponent fails for sure
//! at these sizes.

use dp_repro::data::{Escape, MaskRule, MaskSource, PrivacyMask, Task};
use dp_repro::methods::mask_params::{
    check_mask_grid, mask_of, mask_rule, mask_skip_reason, MASK_PARAMS,
};
use dp_repro::methods::{
    Method, MethodError, ParamDecl, ParamValue, Params, Prepared, PrivacyModel, RepData,
};
use dp_repro::run::{self, seeds, RunOptions};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::sync::Arc;

/// 50 000 users × 4 features = 200 000 entries.
const N: usize = 50_000;
/// A ranking that is not column order, so a rank/column mix-up shows.
const RANKING: [usize; 4] = [2, 0, 3, 1];

fn source(seed: u64) -> MaskSource {
    MaskSource::draw(N, RANKING.to_vec(), &mut Pcg64::seed_from_u64(seed))
}

/// Share of users with feature `j` private.
fn share(m: &PrivacyMask, j: usize) -> f64 {
    m.protection_counts()[j] as f64 / m.n() as f64
}

/// 5 standard deviations of a proportion p estimated from n users.
fn tol(p: f64, n: usize) -> f64 {
    5.0 * (p * (1.0 - p) / n as f64).sqrt()
}

#[test]
fn aligned_mask_makes_exactly_the_d_p_most_sensitive_features_private() {
    let s = source(1);
    for d_p in 0..=4 {
        let m = s.mask(&MaskRule::Aligned { d_p });
        assert_eq!((m.n(), m.d()), (N, 4));
        let private: Vec<usize> = RANKING[..d_p].to_vec();
        for i in (0..N).step_by(997) {
            for j in 0..4 {
                assert_eq!(
                    m.is_private(i, j),
                    private.contains(&j),
                    "d_p {d_p}, user {i}, feature {j}"
                );
            }
        }
        let c = m.protection_counts();
        for j in 0..4 {
            assert_eq!(c[j], if private.contains(&j) { N } else { 0 });
        }
    }
}

#[test]
fn personalized_mask_protects_rank_j_with_probability_j_to_the_minus_tau() {
    let s = source(2);
    for &tau in &[0.5, 1.0, 2.0] {
        let m = s.mask(&MaskRule::Personalized { tau });
        // Rank 1 is always private.
        assert_eq!(m.protection_counts()[RANKING[0]], N, "tau {tau}");
        for (pos, &j) in RANKING.iter().enumerate().skip(1) {
            let p = ((pos + 1) as f64).powf(-tau);
            let got = share(&m, j);
            assert!(
                (got - p).abs() < tol(p, N),
                "tau {tau}, rank {}: share {got}, want {p}",
                pos + 1
            );
        }
    }
}

#[test]
fn personalized_columns_are_independent() {
    // Pairwise co-protection of ranks a, b ≥ 2 is p_a·p_b under independence; its estimate
    // from N users has sd sqrt(q(1 − q)/N), q = p_a·p_b.
    let m = source(3).mask(&MaskRule::Personalized { tau: 1.0 });
    for a in 1..4 {
        for b in a + 1..4 {
            let (ja, jb) = (RANKING[a], RANKING[b]);
            let both = (0..N)
                .filter(|&i| m.is_private(i, ja) && m.is_private(i, jb))
                .count() as f64
                / N as f64;
            let q = 1.0 / ((a + 1) * (b + 1)) as f64;
            assert!(
                (both - q).abs() < tol(q, N),
                "ranks {} and {}: co-protection {both}, want {q}",
                a + 1,
                b + 1
            );
        }
    }
}

#[test]
fn prefix_mask_rows_are_prefixes_with_the_stated_tail() {
    let s = source(4);
    let tau = 1.5;
    let m = s.mask(&MaskRule::PersonalizedPrefix { tau });
    let mut at_least = [0usize; 5];
    for i in 0..N {
        // In rank order the row is 1…1 0…0, at least one 1 (rank 1 always private).
        let in_rank: Vec<bool> = RANKING.iter().map(|&j| m.is_private(i, j)).collect();
        let depth = in_rank.iter().take_while(|&&b| b).count();
        assert!(depth >= 1, "user {i}: rank 1 public");
        assert!(
            in_rank[depth..].iter().all(|&b| !b),
            "user {i}: {in_rank:?} is no prefix"
        );
        for c in at_least.iter_mut().take(depth + 1) {
            *c += 1;
        }
    }
    for j in 1..=4 {
        let p = (j as f64).powf(-tau);
        let got = at_least[j] as f64 / N as f64;
        assert!(
            (got - p).abs() < tol(p, N) + f64::EPSILON,
            "P(D >= {j}) = {got}, want {p}"
        );
    }
}

#[test]
fn masks_are_nested_in_tau() {
    let s = source(5);
    for prefix in [false, true] {
        let law = |tau| {
            if prefix {
                MaskRule::PersonalizedPrefix { tau }
            } else {
                MaskRule::Personalized { tau }
            }
        };
        let taus = [0.5, 1.0, 1.5, 2.0, 3.0];
        let masks: Vec<PrivacyMask> = taus.iter().map(|&t| s.mask(&law(t))).collect();
        for w in masks.windows(2) {
            let (loose, strict) = (&w[0], &w[1]);
            for i in 0..N {
                for j in 0..4 {
                    assert!(
                        !strict.is_private(i, j) || loose.is_private(i, j),
                        "prefix {prefix}: user {i}, feature {j} private at larger tau only"
                    );
                }
            }
        }
        // Strictly fewer protected entries as τ grows (not all equal).
        let totals: Vec<usize> = masks
            .iter()
            .map(|m| m.protection_counts().iter().sum())
            .collect();
        assert!(totals.windows(2).all(|w| w[0] > w[1]), "{totals:?}");
    }
}

#[test]
fn protection_order_sorts_by_count_and_breaks_ties_by_ranking() {
    let m = PrivacyMask::from_rows(vec![
        vec![true, false, true, false],
        vec![true, true, false, false],
        vec![false, true, true, true],
    ]);
    assert_eq!(m.protection_counts(), vec![2, 2, 2, 1]);
    assert_eq!(m.protection_order(&[0, 1, 2, 3]), vec![0, 1, 2, 3]);
    assert_eq!(m.protection_order(&[3, 2, 1, 0]), vec![2, 1, 0, 3]);
    assert_eq!(m.row(1), &[true, true, false, false]);
    let sub = m.select(&[2, 0]);
    assert_eq!(sub.row(0), m.row(2));
    assert_eq!(sub.row(1), m.row(0));
    assert_eq!(sub.protection_counts(), vec![1, 1, 2, 1]);
}

#[test]
fn selecting_users_commutes_with_the_law_and_the_digest_tells_masks_apart() {
    let s = MaskSource::draw(200, vec![1, 0, 2], &mut Pcg64::seed_from_u64(6));
    let users: Vec<usize> = (0..200).rev().step_by(3).collect();
    let rule = MaskRule::Personalized { tau: 1.0 };
    let a = s.select(&users).mask(&rule);
    assert_eq!(a, s.mask(&rule).select(&users));
    assert_eq!(a.digest(), s.mask(&rule).select(&users).digest());
    assert_ne!(a.digest(), s.mask(&rule).digest());
    let mut rows: Vec<Vec<bool>> = (0..a.n()).map(|i| a.row(i).to_vec()).collect();
    rows[5][2] = !rows[5][2];
    assert_ne!(PrivacyMask::from_rows(rows).digest(), a.digest());
    assert_eq!(a.digest().len(), 64);
}

fn params(pairs: &[(&str, ParamValue)]) -> Params {
    Params(
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

fn point(mask: &str, d_p: i64, tau: f64) -> Params {
    params(&[
        ("mask", ParamValue::Str(mask.into())),
        ("d_p", ParamValue::Int(d_p)),
        ("mask_tau", ParamValue::Float(tau)),
    ])
}

#[test]
fn grid_checks_name_the_parameter_the_mask_ignores() {
    // Defaults and single values pass, grids over the parameter the law uses pass.
    assert!(check_mask_grid(&[point("aligned", 2, 1.0)]).is_ok());
    assert!(check_mask_grid(&[point("aligned", 1, 1.0), point("aligned", 2, 1.0)]).is_ok());
    assert!(
        check_mask_grid(&[point("personalized", 2, 0.5), point("personalized", 2, 2.0)]).is_ok()
    );
    assert!(check_mask_grid(&[point("aligned", 1, 1.0), point("personalized", 2, 2.0)]).is_ok());
    // A grid over mask_tau with the aligned mask, d_p with a personalized one, s with aligned.
    let e = check_mask_grid(&[point("aligned", 2, 0.5), point("aligned", 2, 2.0)]).unwrap_err();
    assert!(e.starts_with("mask_tau: "), "{e}");
    let e = check_mask_grid(&[
        point("personalized_prefix", 1, 1.0),
        point("personalized_prefix", 3, 1.0),
    ])
    .unwrap_err();
    assert!(e.starts_with("d_p: "), "{e}");
    let with_s = |s: i64| {
        let mut p = point("aligned", 2, 1.0);
        p.0.push(("s".into(), ParamValue::Int(s)));
        p
    };
    let e = check_mask_grid(&[with_s(0), with_s(1)]).unwrap_err();
    assert!(e.starts_with("s: "), "{e}");
    // Skips: d_p above d.
    assert_eq!(
        mask_skip_reason(&point("aligned", 5, 1.0), 4).as_deref(),
        Some("d_p above the data set's d")
    );
    assert_eq!(mask_skip_reason(&point("aligned", 4, 1.0), 4), None);
    assert_eq!(mask_skip_reason(&point("personalized", 9, 1.0), 4), None);
    assert_eq!(
        mask_rule(&point("personalized_prefix", 2, 1.5)),
        MaskRule::PersonalizedPrefix { tau: 1.5 }
    );
}

/// A semi-feature method for the runner tests: its prediction is the share of private
/// entries of its mask (so rows depend on the mask actually read).
struct Probe;

struct ProbePrediction {
    value: f64,
    n_test: usize,
}

impl Prepared for ProbePrediction {
    fn predict(&self, _: &Params, _: Option<f64>, _: &mut Pcg64) -> Result<Vec<f64>, MethodError> {
        Ok(vec![self.value; self.n_test])
    }
}

impl Method for Probe {
    fn name(&self) -> &str {
        "MASK-PROBE"
    }
    fn description(&self) -> &str {
        "test method reading its privacy mask"
    }
    fn params(&self) -> &[ParamDecl] {
        &MASK_PARAMS
    }
    fn private(&self) -> bool {
        true
    }
    fn tasks(&self) -> &'static [Task] {
        &[Task::Regression]
    }
    fn privacy_model(&self) -> PrivacyModel {
        PrivacyModel::SemiFeature
    }
    fn prepare(
        &self,
        data: &RepData,
        p: &Params,
        _: &mut Pcg64,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        let m = mask_of(data, p)?;
        let total: usize = m.protection_counts().iter().sum();
        Ok(Some(Box::new(ProbePrediction {
            value: total as f64 / (m.n() * m.d()) as f64,
            n_test: data.test.n(),
        })))
    }
}

/// A tiny inline data set (60 rows, label + 3 features) and a spec over it, validated; with
/// `probe`, the first method is replaced by [`Probe`] over two mask settings.
fn experiment(dir: &std::path::Path, probe: bool) -> (dp_repro::spec::Experiment, String) {
    let mut csv = String::new();
    for i in 0..60 {
        let x = i as f64 / 59.0;
        csv.push_str(&format!(
            "{},{x},{},{}\n",
            2.0 * x,
            (i * 7 % 60) as f64,
            (i % 5) as f64
        ));
    }
    std::fs::write(dir.join("tiny.csv"), csv).unwrap();
    let text = "name: masks\nseed: 9\nrepetitions: 3\ndatasets:\n  - {name: tiny, path: tiny.csv, label_column: 0, task: regression}\nsplit: {public: 0, private: 0.8, test: 0.2}\nlabel_bounds: private_train\nepsilons: [1]\nmethods:\n  - method: DT\n    grid: {max_depth: [1]}\n  - method: DT\n    label: DT2\n    grid: {max_depth: [1]}\n".to_string();
    let path = dir.join("masks.yaml");
    std::fs::write(&path, &text).unwrap();
    let spec = dp_repro::spec::parse_str(&text, &path).unwrap();
    let mut exp = dp_repro::spec::validate(spec, &path, &[]).unwrap();
    if probe {
        for m in &mut exp.methods {
            m.method = Arc::new(Probe);
            m.structural = vec![point("personalized", 2, 1.0), point("aligned", 1, 1.0)];
            m.mechanism = vec![Params::default()];
        }
    }
    (exp, text)
}

#[test]
fn masks_come_from_their_own_stream_per_repetition_and_shift_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let (plain, _) = experiment(tmp.path(), false);
    let (semi, _) = experiment(tmp.path(), true);
    let data = run::load_datasets(&semi, None).unwrap();
    let plan = &semi.datasets[0];
    let rep = |exp, r| run::repetition_data(exp, plan, data[0].as_deref(), r).unwrap();
    // Every repetition carries its masks, drawn only when a method reads them.
    let untouched = rep(&plain, 1)
        .masks
        .expect("every repetition carries masks");
    assert!(!untouched.is_drawn());
    let a = rep(&semi, 1);
    let b = rep(&semi, 1);
    let source = a.masks.clone().expect("every repetition carries masks");
    assert!(
        !source.is_drawn(),
        "nothing is drawn before a method reads the masks"
    );
    assert_eq!(source.n(), a.private.n());
    assert_eq!(source.ranking(), &[0, 1, 2]);
    // The documented stream, keyed on (seed, data set, repetition) only.
    let expected = MaskSource::draw(
        a.private.n(),
        vec![0, 1, 2],
        &mut seeds::stream(9, &["mask", "tiny", "1"]),
    );
    let rule = MaskRule::Personalized { tau: 0.5 };
    assert_eq!(source.mask(&rule), expected.mask(&rule));
    // The same repetition gives the same masks to every method (two labels read it).
    let p = point("personalized", 2, 0.5);
    assert_eq!(mask_of(&a, &p).unwrap(), mask_of(&b, &p).unwrap());
    assert!(
        source.is_drawn(),
        "reading a copy draws for every copy of the repetition"
    );
    // Another repetition, another mask.
    assert_ne!(
        mask_of(&rep(&semi, 2), &p).unwrap().digest(),
        mask_of(&a, &p).unwrap().digest()
    );
    // The split and the rest of the repetition are what they were without masks.
    let without = rep(&plain, 1);
    assert_eq!(
        without.private.escape(Escape::Bookkeeping).x.data,
        a.private.escape(Escape::Bookkeeping).x.data
    );
    assert_eq!(
        without.private.escape(Escape::Bookkeeping).y,
        a.private.escape(Escape::Bookkeeping).y
    );
    assert_eq!(without.test.y, a.test.y);
    // A mask of another size is refused.
    let mut short = a.clone();
    short.private = a.private.select(&[0, 1]);
    let e = mask_of(&short, &p).unwrap_err().to_string();
    assert!(e.contains("privacy masks cover"), "{e}");
    let mut none = a.clone();
    none.masks = None;
    assert!(mask_of(&none, &p).is_err());
    // Folds carry their users' mask rows.
    let folds = a.masks_of(&[3, 1]).unwrap();
    assert_eq!(folds.mask(&rule), source.mask(&rule).select(&[3, 1]));
}

#[test]
fn run_json_records_the_masks() {
    let tmp = tempfile::tempdir().unwrap();
    let (exp, text) = experiment(tmp.path(), true);
    let out = tmp.path().join("out");
    let opts = RunOptions {
        out: out.clone(),
        data_dir: None,
        jobs: Some(1),
        progress: false,
        shard: None,
        force: false,
    };
    let summary = run::run(&exp, &text, &opts).unwrap();
    // 2 methods × 2 mask settings × 3 repetitions × 1 ε.
    assert_eq!(summary.computed, 12);
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let masks = &record["privacy"]["masks"];
    assert!(
        masks["stream"].as_str().unwrap().contains("\"mask\""),
        "{masks}"
    );
    let tiny = &masks["datasets"]["tiny"];
    assert_eq!(tiny["ranking"], serde_json::json!([0, 1, 2]));
    assert_eq!(tiny["ranking_source"], "column order");
    let settings = tiny["settings"].as_array().unwrap();
    assert_eq!(settings.len(), 2, "{tiny}");
    assert_eq!(settings[0]["setting"], "mask=personalized;mask_tau=1");
    assert_eq!(settings[0]["methods"], serde_json::json!(["DT", "DT2"]));
    let share: Vec<f64> = settings[0]["protection_share"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(share[0], 1.0, "rank 1 always private");
    assert!(share[1] < 1.0 && share[2] < share[0]);
    assert_eq!(
        settings[1]["protection_share"],
        serde_json::json!([1.0, 0.0, 0.0]),
        "aligned d_p = 1"
    );
    // The digest is the one of the regenerated masks, in repetition order.
    let data = run::load_datasets(&exp, None).unwrap();
    let mut h = <sha2::Sha256 as sha2::Digest>::new();
    for r in 1..=3 {
        let rd = run::repetition_data(&exp, &exp.datasets[0], data[0].as_deref(), r).unwrap();
        let m = rd.masks.unwrap().mask(&MaskRule::Aligned { d_p: 1 });
        sha2::Digest::update(&mut h, m.digest().as_bytes());
    }
    let hex: String = sha2::Digest::finalize(h)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(settings[1]["sha256"], hex);
}
