//! `dp-repro check` end to end: exit 0 when nothing regressed, 1 when a reported cell, a
//! claim or the golden file regresses, 2 on bad input; `--bless` writes the golden file;
//! `--quiet` prints one line per failing item and the verdict, nothing else.

use assert_cmd::Command;
use std::fs;
use std::path::{Path, PathBuf};

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("dp-repro")
        .unwrap()
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")))
        .env_remove("DP_REPRO_DATA")
        .args(args)
        .arg("--quiet")
        .arg("--results")
        .arg(dir.join("results"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const SPEC: &str = "name: chk\nseed: 4\nrepetitions: 6\ndatasets:\n  - {name: sine, synthetic: lpdt_sine, sizes: {public: 300, private: 2000, test: 500}}\nepsilons: [2, 8]\nmethods:\n  - method: DT\n    grid: {max_depth: [3]}\n  - method: LPDT-M\n    grid: {depth: [3, 4], min_leaf: [10], rho: [0.5]}\n";

/// Writes the spec (with `extra` appended) and returns its path.
fn spec(dir: &Path, extra: &str) -> PathBuf {
    let p = dir.join("spec.yaml");
    fs::write(&p, format!("{SPEC}{extra}")).unwrap();
    p
}

/// Our selected means, read back from a first check run without reported values.
fn our_means(dir: &Path) -> Vec<(String, String, f64)> {
    let (code, _, err) = run(dir, &["check", spec(dir, "").to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    fs::read_to_string(dir.join("results/selected.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[1].to_string(), f[2].to_string(), f[3].parse().unwrap())
        })
        .collect()
}

fn write_reported(dir: &Path, means: &[(String, String, f64)], scale_lpdt_at_2: f64) {
    let mut csv = String::from("dataset,method,epsilon,value\n");
    for (m, e, v) in means {
        let v = if m == "LPDT-M" && e == "2" {
            v * scale_lpdt_at_2
        } else {
            *v
        };
        csv.push_str(&format!("sine,{m},{e},{v}\n"));
    }
    fs::write(dir.join("paper.csv"), csv).unwrap();
}

const REPORTED: &str =
    "reported:\n  files: [paper.csv]\n  dataset_names: name\n  tolerance: {relative: 0.1}\n";

#[test]
fn reported_cells_claims_and_exit_codes() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let means = our_means(d);
    write_reported(d, &means, 1.0);
    let (code, out, err) = run(d, &["check", spec(d, REPORTED).to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // --quiet: nothing fails, so the verdict line alone.
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(
        out.starts_with("PASS (dp-repro check: chk): Verdicts: paper PASS; golden not checked; privacy audit not run. Reported cells: 3 — 3 ok"),
        "{out}"
    );
    assert!(d.join("results/check.tex").exists());
    let check_md = || fs::read_to_string(d.join("results/check.md")).unwrap();

    // The paper's LPDT-M at ε = 2 three times ours: a regression, exit 1 …
    write_reported(d, &means, 3.0);
    let (code, out, _) = run(d, &["check", spec(d, REPORTED).to_str().unwrap()]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "one failing cell and the verdict: {out}");
    assert!(
        lines[0].starts_with("regression: sine LPDT-M ε=2: paper "),
        "{out}"
    );
    assert!(lines[0].contains("ratio 0.33 (paper.csv:"), "{out}");
    assert!(
        lines[1].starts_with("REGRESSION (dp-repro check: chk)"),
        "{out}"
    );
    assert!(check_md().contains("**regression**"));
    // … unless a known deviation with a reason covers it (not a failing item).
    let known = format!("{REPORTED}  known_deviations:\n    - {{methods: [LPDT-M], epsilons: [2], band: {{ratio: [0.001, 1000]}}, reason: 'unexplained: a test reason'}}\n");
    let (code, out, _) = run(d, &["check", spec(d, &known).to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(
        out.contains("1 known deviation inside its band (0 explained, 1 unexplained),"),
        "{out}"
    );
    let md = check_md();
    assert!(md.contains("a test reason"), "{md}");
    assert!(
        md.contains("known deviation (1)") && !md.contains("<sup>"),
        "deviation marks without HTML: {md}"
    );

    // A claim that fails is a regression; with known_failure it is reported only.
    let claim =
        "claims:\n  - {claim: better, method: LPDT-M, than: DT, epsilon: 8, at_least: all}\n";
    let (code, out, _) = run(d, &["check", spec(d, claim).to_str().unwrap()]);
    assert_eq!(code, 1, "LPDT-M is not better than the non-private tree");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("claim fails: "), "{out}");
    assert!(lines[0].contains("0 of 1 data sets, needs 1"), "{out}");
    assert!(lines[1].starts_with("REGRESSION"), "{out}");
    let claim = "claims:\n  - {claim: better, method: LPDT-M, than: DT, epsilon: 8, at_least: all, known_failure: private is worse}\n";
    let (code, out, _) = run(d, &["check", spec(d, claim).to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 1, "{out}");

    // The section may live in its own file (paths inside relative to that file) …
    fs::create_dir_all(d.join("common")).unwrap();
    fs::rename(d.join("paper.csv"), d.join("common/paper.csv")).unwrap();
    fs::write(d.join("common/reported.yaml"), "files: [paper.csv]\ndataset_names: name\ntolerance: {relative: 0.1}\nknown_deviations:\n  - {methods: [LPDT-M], epsilons: [2], band: {ratio: [0.001, 1000]}, reason: 'unexplained: a test reason'}\n").unwrap();
    let (code, out, err) = run(
        d,
        &[
            "check",
            spec(d, "reported: common/reported.yaml\n")
                .to_str()
                .unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("PASS"), "{out}");
    assert!(check_md().contains("a test reason"));
    // … and a missing one is bad input.
    let (code, _, err) = run(
        d,
        &[
            "check",
            spec(d, "reported: common/nothere.yaml\n").to_str().unwrap(),
        ],
    );
    assert_eq!(code, 2);
    assert!(err.contains("nothere.yaml"), "{err}");

    // Bad input: exit 2.
    let (code, _, err) = run(
        d,
        &[
            "check",
            spec(d, "claims:\n  - {claim: bigger, method: DT}\n")
                .to_str()
                .unwrap(),
        ],
    );
    assert_eq!(code, 2, "{err}");
}

#[test]
fn golden_bless_then_detect_a_change() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let golden = "golden:\n  file: golden.csv\n";
    let s = spec(d, golden);
    let (code, _, err) = run(d, &["check", s.to_str().unwrap()]);
    assert_eq!(code, 2, "no golden file yet is bad input: {err}");
    let (code, _, err) = run(d, &["check", s.to_str().unwrap(), "--bless"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        fs::read(d.join("golden.csv")).unwrap(),
        fs::read(d.join("results/summary.csv")).unwrap()
    );
    let (code, _, _) = run(d, &["check", s.to_str().unwrap()]);
    assert_eq!(code, 0, "unchanged numbers pass");
    // Alter one blessed mean in its last digit: the bit-exact comparison catches it.
    let text = fs::read_to_string(d.join("golden.csv")).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut f: Vec<String> = lines[1].split(',').map(String::from).collect();
    let mean: f64 = f[4].parse().unwrap();
    f[4] = format!("{}", mean * (1.0 + 1e-12));
    lines[1] = f.join(",");
    fs::write(d.join("golden.csv"), lines.join("\n") + "\n").unwrap();
    let (code, out, _) = run(d, &["check", s.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let printed: Vec<&str> = out.lines().collect();
    assert_eq!(printed.len(), 2, "one changed row and the verdict: {out}");
    assert!(
        printed[0].starts_with("golden row changed: sine / "),
        "{out}"
    );
    assert!(
        printed[1].contains("1 changed, 0 missing, 0 extra"),
        "{out}"
    );
    // A declared relative tolerance accepts it.
    let s = spec(
        d,
        "golden:\n  file: golden.csv\n  relative_tolerance: 1e-9\n",
    );
    let (code, _, _) = run(d, &["check", s.to_str().unwrap()]);
    assert_eq!(code, 0);
}

/// `check.csv` beside check.md, `--sensitivity` on the finished results (a method's
/// errors × 1.5 seen, × 1.05 not, with the factor it can resolve), and `--reps` below the
/// spec's count marks the verdict provisional.
#[test]
fn check_csv_sensitivity_and_provisional_verdicts() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let means = our_means(d);
    write_reported(d, &means, 1.0);
    let spec_path = spec(d, REPORTED);
    let (code, _, err) = run(d, &["check", spec_path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let csv = fs::read_to_string(d.join("results/check.csv")).unwrap();
    assert!(
        csv.starts_with("kind,table,method,dataset,epsilon,reported,reproduced,"),
        "{csv}"
    );
    assert_eq!(
        csv.lines().filter(|l| l.starts_with("cell,")).count(),
        3,
        "{csv}"
    );
    assert!(csv.lines().skip(1).all(|l| l.contains(",ok,")), "{csv}");

    // Sensitivity: nothing is run, the table is printed.
    let (code, out, err) = run(
        d,
        &["check", spec_path.to_str().unwrap(), "--sensitivity", "1.5"],
    );
    assert_eq!(code, 0, "{err}");
    let row = |m: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("| {m} |")))
            .unwrap_or_else(|| panic!("{out}"))
            .to_string()
    };
    assert!(row("LPDT-M").contains("| yes |"), "{out}");
    assert!(row("DT").contains("| yes |"), "{out}");
    let (_, out, _) = run(
        d,
        &[
            "check",
            spec_path.to_str().unwrap(),
            "--sensitivity",
            "1.05",
        ],
    );
    let lpdt = out.lines().find(|l| l.starts_with("| LPDT-M |")).unwrap();
    assert!(
        lpdt.contains("| no |") && lpdt.contains("the tolerance cannot see 1.05×"),
        "{out}"
    );
    // 1, 0, and factors beyond 10 either way are refused.
    for bad in ["1", "0", "20", "0.05"] {
        let (code, _, err) = run(
            d,
            &["check", spec_path.to_str().unwrap(), "--sensitivity", bad],
        );
        assert_eq!(code, 2, "{bad}: {err}");
    }
    // A factor below 1 (numbers too good) is measured as one above is, with the share of
    // each method's cells turned.
    let (code, out, err) = run(
        d,
        &["check", spec_path.to_str().unwrap(), "--sensitivity", "0.5"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("share turned"), "{out}");
    let lpdt = out.lines().find(|l| l.starts_with("| LPDT-M |")).unwrap();
    assert!(lpdt.contains(" %"), "{lpdt}");

    // Fewer repetitions than the spec: provisional.
    let (code, out, err) = run(d, &["check", spec_path.to_str().unwrap(), "--reps", "2"]);
    assert!(code == 0 || code == 1, "{err}");
    let md = fs::read_to_string(d.join("results/check.md")).unwrap();
    assert!(
        md.contains("Provisional: 2 of the spec's 6 repetitions"),
        "{md}\n{out}"
    );
}
