//! Helpers shared by the integration tests: where the real data files and the papers'
//! tables are, and how to run the binary without a per-user data folder.
//!
//! A test that needs real data calls [`real_data`] ([`reported_file`] for the papers'
//! tables in `specs/reported/`). When the data files are not there the test FAILS with a
//! message saying how to point at them, unless `DP_REPRO_SKIP_REAL_DATA=1` is set: then it
//! prints that it skipped and passes. So a suite that checked no real data cannot pass
//! silently.

#![allow(dead_code)] // each test binary uses some of these helpers

use std::path::{Path, PathBuf};

/// Set to `1` to skip (with a printed note) the tests that need the real data files or
/// the shared paper tables, instead of failing them.
pub const SKIP_ENV: &str = "DP_REPRO_SKIP_REAL_DATA";

/// Runs the `dp-repro` binary with `args` from the repository root and returns its
/// output (status, stdout, stderr).
pub fn dp_repro(args: &[&str]) -> std::process::Output {
    assert_cmd::Command::cargo_bin("dp-repro")
        .unwrap()
        .current_dir(root())
        .args(args)
        .output()
        .unwrap()
}

/// Runs the `dp-repro` binary with `args` from the repository root, with
/// `DP_REPRO_DATA` set to `data` when given; returns (exit code, stdout, stderr).
pub fn dp_repro_with_data(data: Option<&Path>, args: &[&str]) -> (i32, String, String) {
    let mut cmd = assert_cmd::Command::cargo_bin("dp-repro").unwrap();
    cmd.current_dir(root());
    if let Some(d) = data {
        cmd.env("DP_REPRO_DATA", d);
    }
    let out = cmd.args(args).output().unwrap();
    outcome(out)
}

/// Runs the `dp-repro` binary with `args` from `dir` (no data folder set); returns
/// (exit code, stdout, stderr).
pub fn dp_repro_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = assert_cmd::Command::cargo_bin("dp-repro")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    outcome(out)
}

/// A toy data set named `toy`: `x` n×d row-major, labels `y` (n), no categorical or
/// unbinned features, no fixed public rows.
pub fn toy_dataset(
    d: usize,
    x: Vec<f64>,
    y: Vec<f64>,
    task: dp_repro::data::Task,
) -> dp_repro::data::Dataset {
    dp_repro::data::Dataset {
        name: "toy".into(),
        x: dp_repro::data::Matrix::new(y.len(), d, x),
        y,
        task,
        fixed_public: 0,
        leaf_occupancy: None,
        categorical: Vec::new(),
        unbinned: Vec::new(),
    }
}

/// A finished process as (exit code, -1 when killed by a signal; stdout; stderr).
pub fn outcome(out: std::process::Output) -> (i32, String, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Whether the opt-out variable is set (to anything but empty or `0`).
fn skipping() -> bool {
    std::env::var(SKIP_ENV).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Fails the calling test with `problem` and how to fix it, or, with the opt-out set,
/// prints that it skipped.
fn absent(problem: String) -> Option<PathBuf> {
    if skipping() {
        eprintln!("skipped ({SKIP_ENV} is set): {problem}");
        return None;
    }
    panic!(
        "{problem}\nThis test needs the real data. Point at them with\n    \
         DP_REPRO_DATA=/path/to/data cargo test --release\nor download them once with\n    \
         cargo run --release -- data fetch\n(into $DP_REPRO_DATA if set, else into the per-user \
         data folder, which the tests read when DP_REPRO_DATA is unset). To skip the real-data \
         tests instead, set {SKIP_ENV}=1."
    );
}

/// The data folder of the real-data tests — `DP_REPRO_DATA` if set, else the per-user data
/// folder, exactly as the command line resolves it — if it holds every file of `files`.
/// Otherwise the test fails with instructions, or returns None (after printing a note)
/// under `DP_REPRO_SKIP_REAL_DATA=1`.
pub fn real_data(files: &[&str]) -> Option<PathBuf> {
    let Some((dir, origin)) = dp_repro::data::resolve_data_dir_with_origin(None) else {
        return absent(format!(
            "no data folder: DP_REPRO_DATA is not set and there is no home folder; needs {}",
            files.join(", ")
        ));
    };
    let missing: Vec<&str> = files
        .iter()
        .copied()
        .filter(|f| !dir.join(f).is_file())
        .collect();
    if missing.is_empty() {
        // Absolute, so binaries spawned from other working directories find it too.
        Some(dir.canonicalize().unwrap_or(dir))
    } else {
        absent(format!(
            "the data folder {} ({}) lacks {}",
            dir.display(),
            origin.describe(),
            missing.join(", ")
        ))
    }
}

/// The data files a paper's CI spec (`specs/ci.yaml`, `specs/ci-*.yaml`) reads, for [`real_data`].
pub fn ci_spec_data(spec: &str) -> &'static [&'static str] {
    match spec {
        "specs/ci.yaml" => &[
            "abalone.csv",
            "airfoil.csv",
            "algerian.csv",
            "aquatic.csv",
            "building.csv",
            "cbm.csv",
            "ccpp.csv",
            "concrete.csv",
            "cpusmall.csv",
            "fish.csv",
            "housing.csv",
            "music.csv",
            "redwine.csv",
            "whitewine.csv",
        ],
        "specs/ci-lpct.yaml" => &[
            "anonymity.csv",
            "diabetes_pub.csv",
            "diabetes_pri.csv",
            "employ.csv",
            "rice.csv",
            "election.csv",
            "employee.csv",
        ],
        "specs/ci-histoftree.yaml" => &["fish.csv", "aquatic.csv", "redwine.csv"],
        "specs/ci-diprime.yaml" => &["parkinsons.csv", "appliances.csv"],
        _ => panic!("{spec}: not a CI spec with listed data files"),
    }
}

/// A paper's table in `specs/reported/` (e.g. `lpct_table2.csv`); they ship with the
/// repository, so a missing one is a failure.
pub fn reported_file(name: &str) -> Option<PathBuf> {
    let p = root().join("specs/reported").join(name);
    assert!(p.is_file(), "{} is absent from the repository", p.display());
    Some(p)
}
/// Environment that gives a spawned `dp-repro` an empty per-user data folder (Linux:
/// `XDG_DATA_HOME`), so tests that expect "no data" do not find files a developer fetched.
pub fn no_user_data() -> [(&'static str, PathBuf); 1] {
    [("XDG_DATA_HOME", empty_dir("no-user-data"))]
}

/// A folder under the test target's temporary folder that holds nothing.
fn empty_dir(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&p).unwrap();
    p
}

/// The bits of a loaded data set (features, labels), its d and its dropped-row count:
/// two loads compare equal iff they are the same bit for bit.
pub fn loaded_bits(l: &dp_repro::data::Loaded) -> (Vec<u64>, Vec<u64>, usize, usize) {
    let ds = &l.dataset;
    (
        ds.x.data.iter().map(|v| v.to_bits()).collect(),
        ds.y.iter().map(|v| v.to_bits()).collect(),
        ds.d(),
        l.dropped_rows,
    )
}

/// A selected row (what `selected.csv` holds) of `reps` repetitions with median = mean.
pub fn selected_row(
    dataset: &str,
    method: &str,
    epsilon: Option<f64>,
    (mean, std, reps): (f64, f64, usize),
) -> dp_repro::check::SelectedRow {
    dp_repro::check::SelectedRow {
        dataset: dataset.into(),
        method: method.into(),
        epsilon,
        mean,
        std,
        median: mean,
        reps,
        params: String::new(),
    }
}

/// The binary, run from the repository root with no data folder of its own (no
/// `DP_REPRO_DATA`, an empty per-user folder): tests that need data pass `--data-dir`.
pub fn bare_cmd() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("dp-repro").unwrap();
    c.current_dir(root())
        .env_remove("DP_REPRO_DATA")
        .envs(no_user_data());
    c
}

/// Runs [`bare_cmd`] with `args`; returns (exit code, stdout, stderr).
pub fn run_bare(args: &[&str]) -> (i32, String, String) {
    let out = bare_cmd().args(args).output().unwrap();
    outcome(out)
}

/// Runs `dp-repro run SPEC --out OUT` or `dp-repro check SPEC --results OUT` (`command`),
/// with `--quiet` and `extra`, from `dir` (no data folder set); returns (exit code,
/// stdout, stderr).
#[allow(dead_code)]
pub fn into_folder(
    dir: &Path,
    command: &str,
    spec: &Path,
    out: &Path,
    extra: &[&str],
) -> (i32, String, String) {
    let flag = if command == "check" {
        "--results"
    } else {
        "--out"
    };
    let mut args = vec![
        command,
        spec.to_str().unwrap(),
        flag,
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend(extra);
    dp_repro_in(dir, &args)
}

/// Every entry under `dir` (not following symbolic links) with what it holds: a file's
/// bytes, a link's target, or nothing for a folder. Two snapshots compare equal iff no
/// entry was added, removed or changed in between.
pub fn snapshot(dir: &Path) -> std::collections::BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut all = std::collections::BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            let held = if kind.is_symlink() {
                Some(
                    std::fs::read_link(&path)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes(),
                )
            } else if kind.is_dir() {
                todo.push(path.clone());
                None
            } else {
                Some(std::fs::read(&path).unwrap())
            };
            all.insert(path, held);
        }
    }
    all
}
