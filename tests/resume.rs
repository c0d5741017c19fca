//! Resuming interrupted runs and merging shards: the final outputs must equal those of
//! one uninterrupted run, byte for byte.

use assert_cmd::cargo::CommandCargoExt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn dp_repro() -> Command {
    let mut c = Command::cargo_bin("dp-repro").unwrap();
    c.current_dir(root())
        .env_remove("DP_REPRO_DATA")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

fn run_ok(args: &[&str]) -> String {
    let out = dp_repro().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "dp-repro {args:?} failed: {err}");
    err
}

/// A spec of the quickstart kind, long enough (several seconds) to be killed midway.
const LONG_SPEC: &str = "name: long\nseed: 11\nrepetitions: 40\ndatasets:\n  - {name: sine, synthetic: lpdt_sine, sizes: {public: 500, private: 4000, test: 1000}}\nepsilons: [1, 2, 4, 8]\nmethods:\n  - method: DT\n    grid: {max_depth: [2, 4]}\n  - method: LPDT-M\n    grid: {depth: [2, 3, 4, 5, 6], min_leaf: [5, 10, 20, 40], rho: [0.3, 0.5, 0.7]}\n  - method: PHIST\n    grid: {bins: [1, 2, 3, 4], t: [0.01, 0.05]}\nsignificance: {rule: better_than_rest}\ntables:\n  - {name: t, epsilons: [1, 8], methods: [LPDT-M, PHIST], non_private: [DT]}\n";

const OUTPUTS: [&str; 5] = [
    "summary.csv",
    "selected.csv",
    "tests.csv",
    "table-t.md",
    "table-t.tex",
];

fn assert_same_outputs(a: &Path, b: &Path) {
    for f in OUTPUTS {
        assert_eq!(
            fs::read(a.join(f)).unwrap(),
            fs::read(b.join(f)).unwrap(),
            "{f} differs"
        );
    }
}

fn data_lines(p: &Path) -> usize {
    fs::read_to_string(p)
        .map(|t| t.lines().count().saturating_sub(1))
        .unwrap_or(0)
}

#[test]
fn a_run_killed_with_sigkill_resumes_to_the_same_results() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("long.yaml");
    fs::write(&spec, LONG_SPEC).unwrap();
    let full = tmp.path().join("full");
    run_ok(&[
        "run",
        spec.to_str().unwrap(),
        "--quiet",
        "--out",
        full.to_str().unwrap(),
    ]);
    let total = data_lines(&full.join("runs.csv"));

    let part = tmp.path().join("part");
    let mut child = dp_repro()
        .args([
            "run",
            spec.to_str().unwrap(),
            "--quiet",
            "--out",
            part.to_str().unwrap(),
        ])
        .spawn()
        .unwrap();
    // Kill (SIGKILL) once some but not all rows are written.
    let runs = part.join("runs.csv");
    let start = Instant::now();
    while data_lines(&runs) < total / 10 && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let written = data_lines(&runs);
    assert!(
        written > 0 && written < total,
        "killed midway: {written} of {total} rows"
    );

    let err = run_ok(&[
        "run",
        spec.to_str().unwrap(),
        "--quiet",
        "--out",
        part.to_str().unwrap(),
    ]);
    assert!(err.contains("reused"), "{err}");
    assert_eq!(
        data_lines(&runs),
        total,
        "every task exactly once after the resume"
    );
    assert_same_outputs(&full, &part);
}

#[test]
fn a_partial_last_line_is_dropped_and_recomputed() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    run_ok(&[
        "run",
        "specs/quickstart.yaml",
        "--quiet",
        "--reps",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    let runs = out.join("runs.csv");
    let full = fs::read_to_string(&runs).unwrap();
    let summary = fs::read(out.join("summary.csv")).unwrap();
    // Cut the file in the middle of its last row, as a crash while writing would.
    let cut = &full[..full.len() - 12];
    fs::write(&runs, cut).unwrap();
    let err = run_ok(&[
        "run",
        "specs/quickstart.yaml",
        "--quiet",
        "--reps",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(err.contains("partial last line"), "{err}");
    assert!(
        err.contains("1 tasks computed"),
        "only the cut row is recomputed: {err}"
    );
    assert_eq!(fs::read(out.join("summary.csv")).unwrap(), summary);
    let mut a: Vec<&str> = full.lines().collect();
    let after = fs::read_to_string(&runs).unwrap();
    let mut b: Vec<&str> = after.lines().collect();
    // Same rows, but for the seconds column of the recomputed row.
    let strip = |v: &mut Vec<&str>| {
        v.sort();
        v.iter()
            .map(|l| l.rsplit_once(',').unwrap().0.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&mut a), strip(&mut b));
}

#[test]
fn two_shards_merge_to_the_single_run() {
    let tmp = tempfile::tempdir().unwrap();
    let one = tmp.path().join("one");
    run_ok(&[
        "run",
        "tests/specs/shards.yaml",
        "--quiet",
        "--out",
        one.to_str().unwrap(),
    ]);
    let s1 = tmp.path().join("s1");
    let s2 = tmp.path().join("s2");
    run_ok(&[
        "run",
        "tests/specs/shards.yaml",
        "--quiet",
        "--shard",
        "1/2",
        "--out",
        s1.to_str().unwrap(),
    ]);
    run_ok(&[
        "run",
        "tests/specs/shards.yaml",
        "--quiet",
        "--shard",
        "2/2",
        "--out",
        s2.to_str().unwrap(),
    ]);
    let (n1, n2, n) = (
        data_lines(&s1.join("runs.csv")),
        data_lines(&s2.join("runs.csv")),
        data_lines(&one.join("runs.csv")),
    );
    assert!(
        n1 > 0 && n2 > 0 && n1 + n2 == n,
        "shards split the tasks: {n1} + {n2} vs {n}"
    );
    let merged = tmp.path().join("merged");
    run_ok(&[
        "merge",
        s1.to_str().unwrap(),
        s2.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_same_outputs(&one, &merged);

    // Folders of different specs are refused.
    let other_spec = tmp.path().join("other.yaml");
    fs::write(
        &other_spec,
        fs::read_to_string(root().join("tests/specs/shards.yaml"))
            .unwrap()
            .replace("seed: 5", "seed: 6"),
    )
    .unwrap();
    let other = tmp.path().join("other");
    run_ok(&[
        "run",
        other_spec.to_str().unwrap(),
        "--quiet",
        "--shard",
        "1/2",
        "--out",
        other.to_str().unwrap(),
    ]);
    let out = dp_repro()
        .args([
            "merge",
            s1.to_str().unwrap(),
            other.to_str().unwrap(),
            "--out",
            tmp.path().join("bad").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("different specs"));
}

#[test]
fn the_slurm_script_runs_shards_and_merges() {
    // A stand-in for sbatch: runs an array job's command once per task id, in order, and
    // the dependent merge job right away; prints job ids like `sbatch --parsable`.
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("bin");
    fs::create_dir(&bin).unwrap();
    let fake = bin.join("sbatch");
    fs::write(
        &fake,
        r#"#!/usr/bin/env bash
array=""; wrap=""
for a in "$@"; do
  case $a in --array=*) array=${a#--array=} ;; --wrap=*) wrap=${a#--wrap=} ;; esac
done
prev=""; for a in "$@"; do [ "$prev" = "--wrap" ] && wrap=$a; prev=$a; done
if [ -n "$array" ]; then
  for i in $(seq ${array%-*} ${array#*-}); do SLURM_ARRAY_TASK_ID=$i bash -c "$wrap" || exit 1; done
  echo 101
else
  bash -c "$wrap" || exit 1; echo 102
fi
"#,
    )
    .unwrap();
    Command::new("chmod").arg("+x").arg(&fake).status().unwrap();
    let out = tmp.path().join("slurm-out");
    let one = tmp.path().join("one");
    run_ok(&[
        "run",
        "tests/specs/shards.yaml",
        "--quiet",
        "--out",
        one.to_str().unwrap(),
    ]);
    let exe = assert_cmd::cargo::cargo_bin("dp-repro");
    let status = Command::new("bash")
        .arg("scripts/slurm-array.sh")
        .args(["tests/specs/shards.yaml", "3"])
        .current_dir(root())
        .env(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
        )
        .env("DP_REPRO_BIN", &exe)
        .env("OUT", &out)
        .env("CPUS", "1")
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    for i in 1..=3 {
        assert!(out.join(format!("shard-{i}/runs.csv")).exists());
    }
    assert_same_outputs(&one, &out);
}

#[test]
fn run_json_records_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    run_ok(&[
        "run",
        "specs/quickstart.yaml",
        "--quiet",
        "--reps",
        "2",
        "--jobs",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    let v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    // The hashes are of the resolved spec.yaml's content (comments and layout aside).
    let resolved: serde_yaml::Value =
        serde_yaml::from_str(&fs::read_to_string(out.join("spec.yaml")).unwrap()).unwrap();
    assert_eq!(
        v["spec_hash"].as_str().unwrap(),
        dp_repro::spec::resolve::content_hash(&resolved)
    );
    assert_eq!(
        v["computed_hash"].as_str().unwrap(),
        dp_repro::spec::resolve::computed_hash(&resolved)
    );
    let source = fs::read_to_string(root().join("specs/quickstart.yaml")).unwrap();
    assert_eq!(
        fs::read_to_string(out.join("spec.source.yaml")).unwrap(),
        source
    );
    assert_eq!(v["repetitions"], 2);
    assert_eq!(v["threads"], 2);
    assert_eq!(v["epsilons"], serde_json::json!([1.0, 2.0, 4.0, 8.0]));
    assert_eq!(v["dp_repro_version"], env!("CARGO_PKG_VERSION"));
    assert!(v["tasks_computed"].as_u64().unwrap() > 0);
    for field in ["started", "finished", "host", "git_commit"] {
        assert!(v.get(field).is_some(), "{field}");
    }
    assert!(v["started"].as_str().unwrap() <= v["finished"].as_str().unwrap());
}
