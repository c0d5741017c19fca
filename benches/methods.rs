//! One criterion benchmark per method family, on fixed real data sets: one fit + predict
//! (what one runs.csv row costs and what `dp-repro bench` times), on repetition 1's data
//! with the run's seeded streams, through the library's `bench` cases.
//!
//! - `lpdt`: LPDT-M and the non-private DT on abalone, the issue-12 case (split 1:7:2,
//!   depth 4, min_leaf 20, ρ 0.5, ε 2; DT max_depth 4);
//! - `lpct`: LPCT (Maxedge) on Rice (LPCT Table 2's public sample of 3,510 rows), ε 2;
//! - `histoftree`: HistOfTree (ME), aligned mask with d_P = 2, on abalone, ε 2;
//! - `diprime`: the DiPriMe forest (10 trees, depth rule) on Banknote, ε 2;
//! - `deconv`: DECONV on concrete (1,030 rows), bandwidth 0.1, ε 2.
//!
//! Run: `DP_REPRO_DATA=DIR cargo bench` (or `cargo bench -- lpdt` for one
//! family). Without DP_REPRO_DATA the benchmarks print why and measure nothing. Medians in
//! criterion's report (target/criterion); speed goals live here and in notes, never in tests.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use dp_repro::bench::{cases, GridSource};
use dp_repro::run::load_datasets;
use dp_repro::spec::{parse_str, validate};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A family: its name (the benchmark group) and its spec, each method at one grid point.
struct Family {
    name: &'static str,
    spec: &'static str,
}

const FAMILIES: &[Family] = &[
    Family {
        name: "lpdt",
        spec: "
name: bench-lpdt
seed: 2023
repetitions: 1
datasets: [abalone]
split: {public: 0.1, private: 0.7, test: 0.2}
scaling: whole
label_bounds: public
epsilons: [2]
methods:
  - {method: DT, params: {max_depth: 4}}
  - {method: LPDT-M, params: {depth: 4, min_leaf: 20, rho: 0.5}}
",
    },
    Family {
        name: "lpct",
        spec: "
name: bench-lpct
seed: 2024
repetitions: 1
datasets:
  - {name: Rice, public_sample: {dataset: rice, rows: 3510}}
split: {public: 0, private: 0.8, test: 0.2}
scaling: public
label_bounds: public
epsilons: [2]
methods:
  - {method: LPCT-M, label: LPCT(Maxedge), params: {depth: 4, min_leaf: 8, min_samples_split: 1, lambda: 1}}
",
    },
    Family {
        name: "histoftree",
        spec: "
name: bench-histoftree
seed: 2025
repetitions: 1
datasets: [abalone]
split: {public: 0, private: 0.8, test: 0.2}
scaling: whole
label_bounds: private_train
epsilons: [2]
methods:
  - {method: HistOfTree-ME, params: {mask: aligned, d_p: 2, rho: 0.5, depth: 4, bins: 2}}
",
    },
    Family {
        name: "diprime",
        spec: "
name: bench-diprime
seed: 2022
repetitions: 1
datasets: [banknote]
split: {public: 0, private: 0.9, test: 0.1}
scaling: none
label_bounds: {fixed: {lo: 0, hi: 1}}
epsilons: [2]
methods:
  - {method: DiPriMe, params: {trees: 10, depth: rule, occupancy: dataset, k: 1, rho: 0.5, mode: reference_quirks}}
",
    },
    Family {
        name: "deconv",
        spec: "
name: bench-deconv
seed: 2023
repetitions: 1
datasets: [concrete]
split: {public: 0.1, private: 0.7, test: 0.2}
scaling: whole
label_bounds: public
epsilons: [2]
methods:
  - {method: DECONV, params: {bandwidth: 0.1}}
",
    },
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Registers the benchmarks of one family on the data in `data_dir`.
fn family(c: &mut Criterion, f: &Family, data_dir: &Path) {
    let path = root().join(format!("benches/{}.yaml", f.name));
    let spec = parse_str(f.spec, &path).unwrap_or_else(|e| panic!("{}: {e}", f.name));
    let exp = validate(spec, &path, &[root().join("datasets")])
        .unwrap_or_else(|e| panic!("{}: {e}", f.name));
    let data = load_datasets(&exp, Some(data_dir)).unwrap_or_else(|e| panic!("{}: {e}", f.name));
    let (timed, _) =
        cases(&exp, &data, GridSource::FirstPoint).unwrap_or_else(|e| panic!("{}: {e}", f.name));
    let mut group = c.benchmark_group(f.name);
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for case in &timed {
        let id = format!("{}/{}", case.method.label, case.dataset);
        // Seeding the streams (two SHA-256 digests) is set-up, not fit.
        group.bench_function(id, |b| {
            b.iter_batched(
                || case.streams(),
                |streams| case.fit_predict_with(streams).expect("the method fits"),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

fn methods(c: &mut Criterion) {
    let Some(dir) = std::env::var_os(dp_repro::data::DATA_DIR_ENV).filter(|d| !d.is_empty()) else {
        eprintln!(
            "skipping the method benchmarks: they need the real data sets (abalone, rice, \
             banknote, concrete); set {}=<folder>, e.g. {0}=$HOME/data cargo bench",
            dp_repro::data::DATA_DIR_ENV
        );
        return;
    };
    for f in FAMILIES {
        family(c, f, Path::new(&dir));
    }
}

criterion_group!(benches, methods);
criterion_main!(benches);
