//! The end-to-end audit (`dp-repro audit`, docs/audit.md "The end-to-end audit") on the
//! quickstart spec, whose synthetic data need no files: a faithful method is consistent in
//! every end-to-end part, its rows do not depend on the number of threads, and the audit
//! refuses options it cannot run. That it catches what it is built for (a label released
//! unclipped, a partition or a scaler fitted on private rows) is shown by the privacy
//! mutation suite (`tests/privacy_mutants.rs`, slips whose spec is
//! `tests/privacy/local.yaml`), which runs it with one slip switched on at a time.

mod common;

use dp_repro::audit::e2e::{e2e_experiment, E2eError, E2eOptions, ADD_REMOVE, PARTS, SELECTED};
use dp_repro::audit::spec::AuditRow;
use dp_repro::audit::Verdict;
use dp_repro::spec::{parse_file, validate, Experiment};

fn quickstart() -> Experiment {
    let path = common::root().join("specs/quickstart.yaml");
    let (parsed, _) = parse_file(&path).expect("quickstart parses");
    validate(parsed, &path, &dp_repro::data::default_manifest_dirs()).expect("quickstart is valid")
}

/// The `part` row of the end-to-end audit of a DiPriMe forest (`privacy: dp`, one tree,
/// `forest` its parameters and grid in YAML flow style) on 300 synthetic rows, with `extra`
/// spec lines; the spec is written into `dir` as `name`.
fn forest_row(
    dir: &std::path::Path,
    name: &str,
    extra: &str,
    forest: &str,
    part: &str,
) -> AuditRow {
    let text = format!(
        "name: {name}\nseed: 7\nrepetitions: 1\ndatasets:\n  - {{name: sine, synthetic: lpdt_sine, sizes: {{public: 0, private: 300, test: 50}}}}\nlabel_bounds: {{fixed: {{lo: -4, hi: 4}}}}\nepsilons: [1]\n{extra}methods:\n  - {{method: DiPriMe, {forest}}}\n"
    );
    let path = dir.join(format!("{name}.yaml"));
    std::fs::write(&path, text).unwrap();
    let (parsed, _) = parse_file(&path).expect("parses");
    let exp = validate(parsed, &path, &dp_repro::data::default_manifest_dirs()).expect("valid");
    let opts = E2eOptions {
        method: None,
        users: 300,
        ..small()
    };
    let rows = e2e_experiment(&exp, None, &opts).expect("the audit runs");
    rows.into_iter()
        .find(|r| r.part == part)
        .unwrap_or_else(|| panic!("no {part} row"))
}

fn small() -> E2eOptions {
    E2eOptions {
        method: Some("LPDT-M".into()),
        users: 60,
        pilot: 60,
        fits: 400,
        ..E2eOptions::default()
    }
}

/// LPDT-M on the quickstart's sine data: the three end-to-end parts of a local method (not
/// the central models' add/remove part) of each of its two audited grid points are
/// consistent with ε = 1, the claim is the column's ε itself, and each row names its canary
/// pair and probe.
#[test]
fn a_faithful_method_is_consistent_in_every_end_to_end_part() {
    let exp = quickstart();
    let rows = e2e_experiment(&exp, None, &small()).expect("the audit runs");
    assert_eq!(rows.len(), 2 * (PARTS.len() - 1), "{rows:#?}");
    for r in &rows {
        assert_eq!(r.method, "LPDT-M");
        assert_eq!(r.epsilon, 1.0, "the spec's epsilon closest to 1");
        assert_eq!(r.claimed, r.epsilon, "the claim is the column's epsilon");
        assert_eq!(r.verdict, Some(Verdict::Consistent), "{r:?}");
        assert!(r.neighbours.contains("prediction at"), "{}", r.neighbours);
        let o = r.outcome.as_ref().expect("audited");
        assert_eq!(o.draws, 400);
    }
    for part in PARTS.into_iter().filter(|&p| p != ADD_REMOVE) {
        assert!(rows.iter().any(|r| r.part == part), "no row for {part}");
    }
}

/// A central-DP forest (DiPriMe under `privacy: dp`, one tree of depth 1) on 300 synthetic
/// rows, called with `epsilon_factor` times the column's ε. With factor 1 its add/remove
/// part (a row at a corner, or the user's own, against the data set without it) is
/// consistent with ε = 1; with factor 40 the same part certifies above ε: adding a row at
/// the label bound moves a leaf of about 150 rows by about 8/150, some five noise scales
/// (8/(150·10)) at ε_ℓ = 20, while at factor 1 it is under a fifth of one.
#[test]
fn a_forest_spending_more_than_its_column_is_flagged_when_a_row_is_added_or_removed() {
    let dir = tempfile::tempdir().unwrap();
    let forest = |factor: u32| {
        let params = format!(
            "params: {{trees: 1, depth: 1, k: 1, rho: 0.5, privacy: dp, epsilon_factor: {factor}}}"
        );
        forest_row(
            dir.path(),
            &format!("forest-{factor}"),
            "",
            &params,
            ADD_REMOVE,
        )
    };
    let faithful = forest(1);
    assert_eq!(faithful.verdict, Some(Verdict::Consistent), "{faithful:?}");
    let spent = forest(40);
    assert_eq!(spent.verdict, Some(Verdict::Violation), "{spent:?}");
    assert!(spent.neighbours.contains("without"), "{}", spent.neighbours);
}

/// The rows are the same, bit for bit, on one thread and on two: every fit draws from its
/// own stream, keyed by its place in the audit.
#[test]
fn rows_do_not_depend_on_the_number_of_threads() {
    let exp = quickstart();
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| e2e_experiment(&exp, None, &small()).unwrap())
    };
    let key = |rows: Vec<dp_repro::audit::spec::AuditRow>| {
        rows.into_iter()
            .map(|r| {
                let o = r.outcome.unwrap();
                (
                    r.part,
                    r.params,
                    r.neighbours,
                    o.count_a,
                    o.count_b,
                    o.event.to_string(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(key(run(1)), key(run(2)));
}

/// No fits, fewer than two users or α outside (0, 1): refused with the reason.
#[test]
fn options_it_cannot_run_are_refused() {
    let exp = quickstart();
    for bad in [
        E2eOptions { fits: 0, ..small() },
        E2eOptions {
            pilot: 0,
            ..small()
        },
        E2eOptions {
            users: 1,
            ..small()
        },
        E2eOptions {
            alpha: 1.0,
            ..small()
        },
    ] {
        let err = e2e_experiment(&exp, None, &bad).expect_err("refused");
        assert!(matches!(err, E2eError::Options(_)), "{err}");
    }
}

/// Under `selection: private_validation` the end-to-end audit also runs the whole
/// protocol (fits of two grid points on the training users, the validation users' noisy
/// losses, the choice, the chosen fit's predictions), held against the training users' ε
/// with tuning: 2ε for two grid points under fresh releases. The forest of the test above
/// at its own ε is consistent with it; at 40 times its ε it is not.
#[test]
fn the_private_validation_protocol_is_audited_as_a_whole_against_epsilon_with_tuning() {
    let dir = tempfile::tempdir().unwrap();
    let run = |factor: u32| {
        let params = format!(
            "params: {{trees: 1, k: 1, rho: 0.5, privacy: dp, epsilon_factor: {factor}}}, grid: {{depth: [1, 2]}}"
        );
        let extra = "selection: private_validation\n";
        forest_row(
            dir.path(),
            &format!("selection-{factor}"),
            extra,
            &params,
            SELECTED,
        )
    };
    let faithful = run(1);
    assert_eq!(
        faithful.claimed, 2.0,
        "two grid points, fresh releases: 2 epsilon"
    );
    assert!(
        faithful.params.contains("depth=1") && faithful.params.contains("depth=2"),
        "{}",
        faithful.params
    );
    assert_eq!(faithful.verdict, Some(Verdict::Consistent), "{faithful:?}");
    let spent = run(40);
    assert_eq!(spent.verdict, Some(Verdict::Violation), "{spent:?}");
}
