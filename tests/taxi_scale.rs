//! The taxi-shaped scale design (`synthetic: {taxi_shape: …}`) as a spec
//! data set, and the two Taxi-scale specs: what they declare, how the runner draws a
//! repetition (each part from its own stream, the public part from the shifted law), that
//! a spec cannot mix tasks, and a scaled-down run of each spec through the binary.

use assert_cmd::Command;
use dp_repro::data::{Escape, Task};
use dp_repro::run::repetition_data;
use dp_repro::spec::{parse_file, parse_str, validate, DataSource, Experiment};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn experiment(text: &str) -> Result<Experiment, String> {
    let spec = parse_str(text, Path::new("s.yaml")).map_err(|e| e.to_string())?;
    validate(spec, Path::new("s.yaml"), &[root().join("datasets")]).map_err(|e| e.to_string())
}

fn spec_text(design: &str, method: &str, sizes: &str) -> String {
    format!(
        "name: s\nseed: 9\nrepetitions: 1\ndatasets:\n  - {{name: t, synthetic: {{taxi_shape: {design}}}, sizes: {sizes}}}\n\
         label_bounds: public\nepsilons: [4]\nmethods:\n  - method: {method}\n"
    )
}

#[test]
fn the_shipped_specs_have_the_taxi_shape() {
    for (file, task, method) in [
        ("specs/lpdt/taxi-scale.yaml", Task::Regression, "LPDT-M"),
        ("specs/lpct/taxi-scale.yaml", Task::Classification, "LPCT-M"),
    ] {
        let path = root().join(file);
        let (parsed, _) = parse_file(&path).unwrap();
        let exp = validate(parsed, &path, &[root().join("datasets")]).unwrap();
        let plan = &exp.datasets[0];
        assert_eq!(plan.task, task, "{file}");
        assert_eq!(
            plan.source.synthetic_sizes(),
            Some([117_000, 3_300_000, 200_000]),
            "{file}"
        );
        assert_eq!(plan.known_shape(), Some((3_617_000, 93)), "{file}");
        let labels: Vec<&str> = exp.methods.iter().map(|m| m.label.as_str()).collect();
        assert_eq!(labels, [method], "{file}");
    }
}

#[test]
fn a_repetition_draws_each_part_from_its_own_stream_and_the_public_part_shifted() {
    let text = spec_text(
        "{task: regression}",
        "LPDT-M\n    grid: {depth: [2], min_leaf: [5], rho: [0.5]}",
        "{public: 3000, private: 3000, test: 500}",
    );
    let exp = experiment(&text).unwrap();
    let plan = &exp.datasets[0];
    let r = repetition_data(&exp, plan, None, 1).unwrap();
    assert_eq!((r.public.n(), r.private.n(), r.test.n()), (3000, 3000, 500));
    assert_eq!(r.private.d(), 93);
    // The same draws again (seeded), other draws in another repetition.
    let again = repetition_data(&exp, plan, None, 1).unwrap();
    assert_eq!(
        r.private.escape(Escape::Bookkeeping).x.data,
        again.private.escape(Escape::Bookkeeping).x.data
    );
    assert_eq!(r.public.y, again.public.y);
    let other = repetition_data(&exp, plan, None, 2).unwrap();
    assert_ne!(
        r.private.escape(Escape::Bookkeeping).x.data,
        other.private.escape(Escape::Bookkeeping).x.data
    );
    // Zone 0 (column 3) has weight 0.233 in the private law and 0.124 in the public law
    // (shift 0.5, 40 zones); with 3,000 trips each share has sd ≤ 0.008, so the two
    // shares differ by more than 10 sd.
    let share = |d: &dp_repro::data::Dataset| {
        (0..d.n()).filter(|&i| d.x.row(i)[3] == 1.0).count() as f64 / d.n() as f64
    };
    let (public, private) = (
        share(&r.public),
        share(r.private.escape(Escape::Bookkeeping)),
    );
    assert!(
        private - public > 0.08,
        "zone-0 share: private {private}, public {public}"
    );
    match &plan.source {
        DataSource::TaxiShape { design, .. } => assert_eq!(design.d(), 93),
        other => panic!("expected taxi_shape, got {other:?}"),
    }
}

#[test]
fn bad_designs_and_mixed_tasks_are_refused_naming_the_field() {
    let lpdt = "LPDT-M\n    grid: {depth: [2], min_leaf: [5], rho: [0.5]}";
    let sizes = "{public: 10, private: 10, test: 10}";
    let refused = |text: String| match experiment(&text) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e,
    };
    let err = refused(spec_text("{zones: 0}", lpdt, sizes));
    assert!(
        err.contains("datasets[0].synthetic.taxi_shape.zones"),
        "{err}"
    );
    let err = refused(spec_text("{shift: 2}", lpdt, sizes));
    assert!(
        err.contains("taxi_shape.shift") && err.contains("[0, 1]"),
        "{err}"
    );
    let err = refused(spec_text("{colour: red}", lpdt, sizes));
    assert!(
        err.contains("taxi_shape") && err.contains("colour"),
        "{err}"
    );
    // A forest supports both tasks, so only the task rule stops this spec: its tables
    // would compare one metric.
    let mixed = format!(
        "name: s\nseed: 9\nrepetitions: 1\ndatasets:\n  \
         - {{name: a, synthetic: {{taxi_shape: {{task: regression}}}}, sizes: {sizes}}}\n  \
         - {{name: b, synthetic: {{taxi_shape: {{task: classification}}}}, sizes: {sizes}}}\n\
         epsilons: [1]\nmethods:\n  - method: RF\n    grid: {{trees: [2], depth: [2]}}\n"
    );
    let err = refused(mixed);
    assert!(
        err.contains("datasets[1]") && err.contains("separate specs"),
        "{err}"
    );
}

/// Each shipped spec with every size divided by 100, run through the binary with 1 and 2
/// threads: every grid point gives a finite metric, and the rows are the same.
#[test]
fn the_taxi_specs_run_scaled_down_and_whatever_the_thread_count() {
    for file in ["specs/lpdt/taxi-scale.yaml", "specs/lpct/taxi-scale.yaml"] {
        let text = std::fs::read_to_string(root().join(file)).unwrap().replace(
            "{public: 117000, private: 3300000, test: 200000}",
            "{public: 1170, private: 33000, test: 2000}",
        );
        assert!(text.contains("private: 33000"), "{file}: sizes not found");
        let tmp = tempfile::tempdir().unwrap();
        let spec = tmp.path().join("taxi.yaml");
        std::fs::write(&spec, text).unwrap();
        let mut rows = Vec::new();
        for jobs in ["1", "2"] {
            let out = tmp.path().join(format!("out{jobs}"));
            Command::cargo_bin("dp-repro")
                .unwrap()
                .args(["run", spec.to_str().unwrap(), "--quiet", "--jobs", jobs])
                .arg("--out")
                .arg(&out)
                .assert()
                .success();
            let mut r = csv::Reader::from_path(out.join("runs.csv")).unwrap();
            let mut got: Vec<(String, f64)> = r
                .records()
                .map(|rec| {
                    let rec = rec.unwrap();
                    (rec[3].to_string(), rec[7].parse().unwrap())
                })
                .collect();
            got.sort_by(|a, b| a.0.cmp(&b.0));
            assert_eq!(got.len(), 4, "{file}: four depths");
            assert!(got.iter().all(|(_, v)| v.is_finite()), "{file}: {got:?}");
            rows.push(got);
        }
        assert_eq!(rows[0], rows[1], "{file}: --jobs 1 and 2 differ");
    }
}
