//! The end-to-end audit (`dp-repro audit`, docs/audit.md "The end-to-end audit") on the
//! quickstart spec, whose synthetic data need no files: a faithful method is consistent in
//! every end-to-end part, its rows do not depend on the number of threads, and the audit
//! refuses options it cannot run. That it catches what it is built for (a label released
//! unclipped, a partition or a scaler fitted on private rows) is shown by the privacy
//! mutation suite (`tests/privacy_mutants.rs`, slips whose spec is
//! `tests/privacy/local.yaml`), which runs it with one slip switched on at a time.

mod common;

use dp_repro::audit::e2e::{e2e_experiment, E2eError, E2eOptions, PARTS};
use dp_repro::audit::Verdict;
use dp_repro::spec::{parse_file, validate, Experiment};

fn quickstart() -> Experiment {
    let path = common::root().join("specs/quickstart.yaml");
    let (parsed, _) = parse_file(&path).expect("quickstart parses");
    validate(parsed, &path, &dp_repro::data::default_manifest_dirs()).expect("quickstart is valid")
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

/// LPDT-M on the quickstart's sine data: the three end-to-end parts of each of its two
/// audited grid points are consistent with ε = 1, the claim is the column's ε itself, and
/// each row names its canary pair and probe.
#[test]
fn a_faithful_method_is_consistent_in_every_end_to_end_part() {
    let exp = quickstart();
    let rows = e2e_experiment(&exp, None, &small()).expect("the audit runs");
    assert_eq!(rows.len(), 2 * PARTS.len(), "{rows:#?}");
    for r in &rows {
        assert_eq!(r.method, "LPDT-M");
        assert_eq!(r.epsilon, 1.0, "the spec's epsilon closest to 1");
        assert_eq!(r.claimed, r.epsilon, "the claim is the column's epsilon");
        assert_eq!(r.verdict, Some(Verdict::Consistent), "{r:?}");
        assert!(r.neighbours.contains("prediction at"), "{}", r.neighbours);
        let o = r.outcome.as_ref().expect("audited");
        assert_eq!(o.draws, 400);
    }
    for part in PARTS {
        assert!(rows.iter().any(|r| r.part == part), "no row for {part}");
    }
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
