//! HistOfTree results do not depend on the thread count. Every
//! method of `specs/histoftree/tables.yaml` (masks, HistOfTree's shared noisy-label stream
//! and its cached deepest trees, the competitors' cached trees) on two small real data
//! sets, thinned grids, run with `--jobs 1` and `--jobs 2`: runs.csv has the same rows
//! (apart from the wall-clock `seconds` column) and the derived files are byte-identical.

mod common;

use assert_cmd::Command;
use std::fs;
use std::path::Path;

const SPEC: &str = "name: hot-jobs\nseed: 7\nrepetitions: 2\ndatasets: [pyrim, portfolio]\nsplit: {public: 0, private: 0.8, test: 0.2}\nscaling: whole\nlabel_bounds: private_train\nepsilons: [1, 4]\nmethods:\n  - {method: DT-leaf, label: DT, grid: {max_depth: [2, 4], min_samples_leaf: [1, 5]}}\n  - {method: HistOfTree-ME, label: ME A, params: {mask: aligned, d_p: 2}, grid: {rho: [0.35, 0.65], depth: [0, 2, 4], bins: [1, 2]}}\n  - {method: HistOfTree-CART, label: CART P, params: {mask: personalized}, grid: {s: [0, 1, 2], rho: [0.5], depth: [0, 2, 4], bins: [1, 2]}}\n  - {method: AdHistOfTree-ME, label: Ad ME, params: {mask: personalized}, grid: {c: [0.1, 10], bins_offset: [0, 1]}}\n  - {method: AdHistOfTree-CART, label: Ad CART, params: {mask: personalized}, grid: {c: [0.1, 10], bins_offset: [0]}}\n  - {method: ParDT, label: ParDT P, params: {mask: personalized}, grid: {max_depth: [2, 4], min_samples_leaf: [1, 5]}}\n  - {method: KRR, label: KRR A, params: {mask: aligned, d_p: 2}, grid: {k: [2, 4], max_depth: [2, 4], min_samples_leaf: [1]}}\n  - {method: LabelDT, grid: {max_depth: [2, 4], min_samples_leaf: [1]}}\n  - {method: Hist, grid: {bins: [1, 2], t: [0.01]}}\nselection: best_mean\nsignificance: {rule: better_than_rest, alpha: 0.05}\ntables:\n  - name: t\n    epsilons: [1]\n    blocks:\n      - {label: Aligned, methods: [ME A, KRR A, Hist], rank_ties: max}\n      - {label: Personalized, methods: [CART P, Ad ME, Ad CART, ParDT P, Hist], rank_ties: min}\n    value: {ratio_to: DT}\n    marks: star_significant\n    summary_rows: [rank_sum]\n";

#[test]
fn histoftree_results_do_not_depend_on_the_thread_count() {
    let Some(data) = common::real_data(&["pyrim.csv", "portfolio.csv"]) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("hot-jobs.yaml");
    fs::write(&spec, SPEC).unwrap();
    let mut outputs = Vec::new();
    for jobs in ["1", "2"] {
        let out = tmp.path().join(format!("jobs{jobs}"));
        let o = Command::cargo_bin("dp-repro")
            .unwrap()
            .current_dir(common::root())
            .args(["run", spec.to_str().unwrap(), "--quiet", "--jobs", jobs])
            .args(["--data-dir", data.to_str().unwrap()])
            .args(["--out", out.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        outputs.push(out);
    }
    let rows = |dir: &Path| {
        let mut v: Vec<String> = fs::read_to_string(dir.join("runs.csv"))
            .unwrap()
            .lines()
            .map(|l| l.rsplit_once(',').unwrap().0.to_string())
            .collect();
        v.sort();
        v
    };
    let (one, two) = (rows(&outputs[0]), rows(&outputs[1]));
    // Every method ran on both data sets (a skipped method would make the test vacuous).
    for label in [
        ",DT,",
        ",ME A,",
        ",CART P,",
        ",Ad ME,",
        ",Ad CART,",
        ",ParDT P,",
        ",KRR A,",
        ",LabelDT,",
        ",Hist,",
    ] {
        for ds in ["pyrim", "portfolio"] {
            assert!(
                one.iter().any(|r| r.contains(label) && r.contains(ds)),
                "no {label} row on {ds}"
            );
        }
    }
    assert_eq!(one, two, "runs.csv differs between --jobs 1 and --jobs 2");
    for f in [
        "summary.csv",
        "selected.csv",
        "tests.csv",
        "table-t.md",
        "table-t.tex",
    ] {
        assert_eq!(
            fs::read(outputs[0].join(f)).unwrap(),
            fs::read(outputs[1].join(f)).unwrap(),
            "{f} differs between --jobs 1 and --jobs 2"
        );
    }
}
