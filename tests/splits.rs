//! Splits and scaling of a repetition (docs/methods/lpdt.md §8.3): the same split for every method of
//! a repetition, different splits across repetitions, and the two scaling options.

mod common;

use dp_repro::data::Escape;
use dp_repro::run::{load_datasets, repetition_data};
use dp_repro::spec::{parse_str, validate};
use std::path::{Path, PathBuf};

fn data_dir() -> Option<PathBuf> {
    common::real_data(&["concrete.csv"])
}

fn experiment(scaling: &str) -> dp_repro::spec::Experiment {
    let text = format!(
        "name: s\nseed: 3\nrepetitions: 2\ndatasets: [concrete]\nsplit: {{public: 0.1, private: 0.7, test: 0.2}}\nscaling: {scaling}\nepsilons: [1]\nmethods:\n  - method: DT\n    grid: {{max_depth: [1]}}\n"
    );
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let spec = parse_str(&text, Path::new("s.yaml")).unwrap();
    validate(spec, Path::new("s.yaml"), &[root.join("datasets")]).unwrap()
}

fn range(x: &dp_repro::data::Matrix, k: usize) -> (f64, f64) {
    (0..x.n)
        .map(|i| x.get(i, k))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        })
}

#[test]
fn whole_scaling_puts_every_part_in_the_unit_box_and_splits_are_seeded() {
    let Some(dir) = data_dir() else { return };
    let exp = experiment("whole");
    let data = load_datasets(&exp, Some(&dir)).unwrap();
    let r1 = repetition_data(&exp, &exp.datasets[0], data[0].as_deref(), 1).unwrap();
    let again = repetition_data(&exp, &exp.datasets[0], data[0].as_deref(), 1).unwrap();
    let r2 = repetition_data(&exp, &exp.datasets[0], data[0].as_deref(), 2).unwrap();
    assert_eq!(
        r1.public.y, again.public.y,
        "a repetition's split is reproducible"
    );
    assert_ne!(r1.public.y, r2.public.y, "repetitions differ");
    assert_eq!(
        (r1.public.n(), r1.private.n(), r1.test.n()),
        (103, 721, 206)
    );
    for part in [&r1.public, r1.private.escape(Escape::Bookkeeping), &r1.test] {
        for k in 0..part.d() {
            let (lo, hi) = range(&part.x, k);
            assert!(lo >= 0.0 && hi <= 1.0);
        }
    }
    // Label bounds come from the public labels.
    let lo = r1.public.y.iter().cloned().fold(f64::INFINITY, f64::min);
    assert_eq!(r1.bounds.lo, lo);
}

#[test]
fn public_scaling_maps_the_public_part_onto_the_unit_box() {
    let Some(dir) = data_dir() else { return };
    let exp = experiment("public");
    let data = load_datasets(&exp, Some(&dir)).unwrap();
    let r = repetition_data(&exp, &exp.datasets[0], data[0].as_deref(), 1).unwrap();
    let mut outside = 0;
    for k in 0..r.public.d() {
        let (lo, hi) = range(&r.public.x, k);
        assert!(
            lo == 0.0 && (hi == 1.0 || hi == 0.0),
            "feature {k}: [{lo}, {hi}]"
        );
        let (tlo, thi) = range(&r.private.escape(Escape::Bookkeeping).x, k);
        outside += (tlo < 0.0 || thi > 1.0) as usize;
    }
    assert!(
        outside > 0,
        "with public-only ranges some private points fall outside [0,1]"
    );
}
