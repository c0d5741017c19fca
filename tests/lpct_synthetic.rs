//! The LPCT simulation design as a spec data set (`synthetic: {lpct_drift: …}`, LPCT
//! paper §6, docs/methods/lpct.md §8): how specs declare it, how the runner draws a repetition from
//! it, and what the task keys see.

use dp_repro::data::Escape;
use dp_repro::run::keys::dataset_context;
use dp_repro::run::repetition_data;
use dp_repro::spec::{parse_str, validate, DataSource, Experiment};
use std::path::Path;

fn experiment(datasets: &str) -> Result<Experiment, String> {
    let text = format!(
        "name: s\nseed: 5\nrepetitions: 2\ndatasets:\n{datasets}epsilons: [1]\nmethods:\n  - method: LPCT-Q\n    grid: {{depth: [1], min_leaf: [1]}}\n"
    );
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let spec = parse_str(&text, Path::new("s.yaml")).map_err(|e| e.to_string())?;
    validate(spec, Path::new("s.yaml"), &[root.join("datasets")]).map_err(|e| e.to_string())
}

#[test]
fn a_declared_design_is_a_classification_data_set_of_two_features() {
    let exp = experiment(
        "  - {name: g, synthetic: {lpct_drift: {gamma: 0.5}}, sizes: {public: 50, private: 300, test: 200}}\n",
    )
    .unwrap();
    let plan = &exp.datasets[0];
    assert_eq!(plan.task, dp_repro::data::Task::Classification);
    assert_eq!(plan.known_shape(), Some((550, 2)));
    match &plan.source {
        DataSource::LpctDrift { design, stream, .. } => {
            assert_eq!(design.gamma, 0.5);
            assert_eq!(design.sign_threshold, 0.33);
            assert_eq!(stream, "g");
        }
        other => panic!("expected lpct_drift, got {other:?}"),
    }
    let r = repetition_data(&exp, plan, None, 1).unwrap();
    assert_eq!((r.public.n(), r.private.n(), r.test.n()), (50, 300, 200));
    assert!(r
        .private
        .escape(Escape::Bookkeeping)
        .y
        .iter()
        .all(|&y| y == 0.0 || y == 1.0));
    assert!(r.test.x.data.iter().all(|v| (0.0..1.0).contains(v)));
}

#[test]
fn data_sets_sharing_a_stream_share_points_and_gamma_moves_only_public_labels() {
    let exp = experiment(
        "  - {name: a, synthetic: {lpct_drift: {gamma: 0.5}}, stream: s, sizes: {public: 10, private: 400, test: 300}}\n  \
         - {name: b, synthetic: {lpct_drift: {gamma: 5}}, stream: s, sizes: {public: 20, private: 400, test: 300}}\n  \
         - {name: c, synthetic: {lpct_drift: {gamma: 0.5}}, sizes: {public: 10, private: 400, test: 300}}\n",
    )
    .unwrap();
    let rep = |i: usize, r: usize| repetition_data(&exp, &exp.datasets[i], None, r).unwrap();
    let (a, b, c) = (rep(0, 1), rep(1, 1), rep(2, 1));
    assert_eq!(
        a.private.escape(Escape::Bookkeeping).x.data,
        b.private.escape(Escape::Bookkeeping).x.data
    );
    assert_eq!(
        a.private.escape(Escape::Bookkeeping).y,
        b.private.escape(Escape::Bookkeeping).y
    );
    assert_eq!(a.test.y, b.test.y);
    // Nested public samples: a's 10 points are b's first 10.
    assert_eq!(a.public.x.data[..], b.public.x.data[..20]);
    // Its own stream: other points.
    assert_ne!(
        a.private.escape(Escape::Bookkeeping).x.data,
        c.private.escape(Escape::Bookkeeping).x.data
    );
    // Another repetition: other points.
    assert_ne!(
        a.private.escape(Escape::Bookkeeping).x.data,
        rep(0, 2).private.escape(Escape::Bookkeeping).x.data
    );
    // And the key contexts differ with gamma, so rows of one design never serve another.
    assert_ne!(
        dataset_context(&exp, &exp.datasets[0]),
        dataset_context(&exp, &exp.datasets[1])
    );
}

#[test]
fn bad_designs_are_refused_naming_the_field() {
    let err = |yaml: &str| match experiment(yaml) {
        Err(e) => e,
        Ok(_) => panic!("{yaml}: expected an error"),
    };
    let e = err("  - {name: g, synthetic: {lpct_drift: {gamma: -1}}, sizes: {public: 5, private: 9, test: 9}}\n");
    assert!(
        e.contains("datasets[0].synthetic.lpct_drift.gamma") && e.contains("> 0"),
        "{e}"
    );
    let e = err("  - {name: g, synthetic: {lpct_drift: {gamma: 1, domain: {scale: [1, 5], range: estimated}}}, sizes: {public: 0, private: 9, test: 9}}\n");
    assert!(e.contains("sizes.public"), "{e}");
    let e = err("  - {name: g, synthetic: {lpct_drift: {gamma: 1, domain: {scale: [1, 5], range: guessed}}}, sizes: {public: 5, private: 9, test: 9}}\n");
    assert!(e.contains("{assumed: A}"), "{e}");
    let e = err(
        "  - {name: g, synthetic: {lpct: {gamma: 1}}, sizes: {public: 5, private: 9, test: 9}}\n",
    );
    assert!(
        e.contains("unknown synthetic kind") && e.contains("lpct_drift"),
        "{e}"
    );
    let e = err(
        "  - {name: g, synthetic: lpdt_sine, stream: x, sizes: {public: 5, private: 9, test: 9}}\n",
    );
    assert!(e.contains("datasets[0].stream"), "{e}");
    let e = err("  - {name: g, synthetic: {lpct_drift: {gamma: 1}}, x_scale: sd, sizes: {public: 5, private: 9, test: 9}}\n");
    assert!(e.contains("datasets[0].x_scale"), "{e}");
}
