//! A real Slurm cluster, not a stand-in: `scripts/start-slurm.sh` starts a one-node cluster
//! (munged, slurmctld, slurmd) in a temporary folder on free ports, `scripts/slurm-array.sh`
//! submits `specs/ci.yaml` with 2 repetitions as a job array of 3 shards plus the merge job
//! that depends on it, and the merged outputs must equal those of one single-process
//! `dp-repro run` byte for byte. The test prints the job ids, states and exit codes it saw.
//!
//! It needs Debian's `slurm-wlm` and `munge` (`scripts/start-slurm.sh` installs them as
//! root). When they are not installed the test prints that it SKIPPED and why, and passes —
//! unless `DP_REPRO_REQUIRE_SLURM=1` is set: then it fails. Any failure after the programs
//! were found (the cluster does not start, a job fails, outputs differ) fails the test.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// Set to `1` to fail, instead of skip, where Slurm is not installed.
const REQUIRE_ENV: &str = "DP_REPRO_REQUIRE_SLURM";

/// The outputs `merge` renders that must equal the single run's (runs.csv differs in its
/// row order and wall times; run.json in its shard and times).
const OUTPUTS: [&str; 5] = [
    "summary.csv",
    "selected.csv",
    "tests.csv",
    "table-table2.md",
    "table-table2.tex",
];

/// Job states after which Slurm changes a job no more.
const FINAL_STATES: [&str; 10] = [
    "COMPLETED",
    "FAILED",
    "CANCELLED",
    "TIMEOUT",
    "NODE_FAIL",
    "OUT_OF_MEMORY",
    "PREEMPTED",
    "BOOT_FAIL",
    "DEADLINE",
    "REVOKED",
];

/// How long the jobs may take before the test gives up (a hang guard, not a speed goal:
/// the jobs take seconds).
const PATIENCE: Duration = Duration::from_secs(15 * 60);

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A command in the repository root whose environment carries no Slurm settings of the
/// caller's (a test run inside a real job must not submit to that job's cluster).
fn command(program: &str) -> Command {
    let mut c = Command::new(program);
    c.current_dir(common::root());
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("SLURM_") || k.starts_with("SBATCH_") || k.starts_with("SQUEUE_") {
            c.env_remove(k);
        }
    }
    c
}

fn text(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Two consecutive free TCP ports (slurmctld's and slurmd's), found by binding them.
fn free_port_pair() -> u16 {
    for _ in 0..50 {
        let first = TcpListener::bind("0.0.0.0:0").unwrap();
        let p = first.local_addr().unwrap().port();
        if p < u16::MAX && TcpListener::bind(("0.0.0.0", p + 1)).is_ok() {
            return p;
        }
    }
    panic!("found no two consecutive free TCP ports");
}

/// Stops the cluster of a folder when dropped, also when the test panics.
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let out = command("bash")
            .args(["scripts/stop-slurm.sh", "--dir", s(&self.dir)])
            .output();
        match out {
            Ok(o) if o.status.success() => {}
            Ok(o) => eprintln!("stop-slurm.sh failed: {}", text(&o)),
            Err(e) => eprintln!("stop-slurm.sh did not run: {e}"),
        }
    }
}

impl Cluster {
    fn client(&self, program: &str) -> Command {
        let mut c = command(program);
        c.env("SLURM_CONF", &self.conf);
        c
    }

    /// `scontrol show job -o ID`: one map of fields per job (per array task once the
    /// array is split), or none when Slurm no longer knows the job.
    fn jobs(&self, id: &str) -> Vec<BTreeMap<String, String>> {
        let out = self
            .client("scontrol")
            .args(["show", "job", "-o", id])
            .output()
            .unwrap();
        if !out.status.success() {
            return Vec::new();
        }
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.starts_with("JobId="))
            .map(|l| {
                l.split_whitespace()
                    .filter_map(|f| f.split_once('='))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
            })
            .collect()
    }

    /// Waits until every job of `ids` is in a final state, or pending for a dependency
    /// that can never be met (which `slurm-array.sh` asks Slurm to cancel instead); returns
    /// their records.
    fn wait(&self, ids: &[&str], out: &Path) -> Vec<BTreeMap<String, String>> {
        let start = Instant::now();
        loop {
            let per_id: Vec<_> = ids.iter().map(|id| self.jobs(id)).collect();
            let jobs: Vec<_> = per_id.iter().flatten().cloned().collect();
            let settled = |j: &BTreeMap<String, String>| {
                FINAL_STATES.contains(&j["JobState"].as_str())
                    || j.get("Reason")
                        .is_some_and(|r| r == "DependencyNeverSatisfied")
            };
            if per_id.iter().all(|j| !j.is_empty()) && jobs.iter().all(settled) {
                return jobs;
            }
            if start.elapsed() > PATIENCE {
                let q = self.client("squeue").output().unwrap();
                panic!(
                    "jobs {ids:?} not finished after {PATIENCE:?}: {jobs:?}\nsqueue: {}\n{}",
                    text(&q),
                    logs(out, &self.dir)
                );
            }
            sleep(Duration::from_millis(500));
        }
    }

    /// `scripts/slurm-array.sh specs/ci.yaml N --reps 2 --data-dir DATA` with `bin` as
    /// DP_REPRO_BIN and results in `out`, 1 CPU per shard; waits for the jobs and prints
    /// them. Returns the array job's id, the merge job's id and the records of all jobs.
    fn submit_ci(
        &self,
        bin: &Path,
        n: usize,
        data: &Path,
        out: &Path,
    ) -> (String, String, Vec<BTreeMap<String, String>>) {
        let submitted = self
            .client("bash")
            .args(["scripts/slurm-array.sh", "specs/ci.yaml", &n.to_string()])
            .args(["--reps", "2", "--data-dir", s(data)])
            .env("DP_REPRO_BIN", bin)
            .env("OUT", out)
            .env("CPUS", "1")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            submitted.status.success(),
            "slurm-array.sh: {}",
            text(&submitted)
        );
        let said = String::from_utf8_lossy(&submitted.stdout).into_owned();
        eprint!("slurm-array.sh: {said}");
        // "submitted array job A (N shards) and merge job M; results in OUT"
        let words: Vec<&str> = said.split_whitespace().collect();
        let id_after = |a: &str, b: &str| {
            words
                .windows(3)
                .find(|w| w[0] == a && w[1] == b)
                .map(|w| w[2].trim_end_matches(';').to_string())
                .filter(|id| id.parse::<u32>().is_ok())
                .unwrap_or_else(|| panic!("no job id after '{a} {b}' in: {said}"))
        };
        let (array, merge) = (id_after("array", "job"), id_after("merge", "job"));
        let jobs = self.wait(&[&array, &merge], out);
        eprintln!("jobs seen (scontrol show job):");
        for j in &jobs {
            eprintln!(
                "  JobId={} ArrayJobId={} ArrayTaskId={} Name={} JobState={} Reason={} \
                 ExitCode={} NodeList={} Start={} End={}",
                j["JobId"],
                j.get("ArrayJobId").map_or("-", String::as_str),
                j.get("ArrayTaskId").map_or("-", String::as_str),
                j["JobName"],
                j["JobState"],
                j["Reason"],
                j["ExitCode"],
                j["NodeList"],
                j["StartTime"],
                j["EndTime"],
            );
        }
        (array, merge, jobs)
    }
}

/// The jobs' own logs and the daemons' last lines, for failure messages.
fn logs(out: &Path, slurm_dir: &Path) -> String {
    let mut t = String::new();
    let mut files: Vec<PathBuf> = fs::read_dir(out)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "log"));
    for name in ["slurmctld.log", "slurmd.log", "jobcomp.log"] {
        files.push(slurm_dir.join("log").join(name));
    }
    for f in files {
        let body = fs::read_to_string(&f).unwrap_or_default();
        let tail: Vec<&str> = body.lines().rev().take(30).collect();
        t.push_str(&format!("--- {}\n", f.display()));
        for l in tail.into_iter().rev() {
            t.push_str(l);
            t.push('\n');
        }
    }
    t
}

/// Whether this machine has the programs; prints why not, and panics under the opt-in.
fn slurm_installed() -> bool {
    let out = command("bash")
        .args(["scripts/start-slurm.sh", "--check"])
        .output()
        .unwrap();
    match out.status.code() {
        Some(0) => true,
        Some(3) => {
            let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
            if std::env::var(REQUIRE_ENV).is_ok_and(|v| !v.is_empty() && v != "0") {
                panic!("Slurm is required ({REQUIRE_ENV} is set) but: {why}");
            }
            eprintln!(
                "SKIPPED the real-Slurm test: {why}\n(install and start it with \
                 scripts/start-slurm.sh as root; set {REQUIRE_ENV}=1 to fail instead of skip)"
            );
            false
        }
        _ => panic!("scripts/start-slurm.sh --check failed: {}", text(&out)),
    }
}

#[test]
fn a_job_array_of_shards_and_its_merge_job_equal_one_run() {
    if !slurm_installed() {
        return;
    }
    let Some(data) = common::real_data(common::ci_spec_data("specs/ci.yaml")) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let slurm_dir = tmp.path().join("slurm");
    let port = free_port_pair();
    let cluster = Cluster {
        conf: slurm_dir.join("slurm.conf"),
        dir: slurm_dir.clone(),
    };
    let started = command("bash")
        .args([
            "scripts/start-slurm.sh",
            "--no-install",
            "--dir",
            s(&slurm_dir),
            "--port",
            &port.to_string(),
        ])
        .output()
        .unwrap();
    assert!(
        started.status.success(),
        "start-slurm.sh: {}",
        text(&started)
    );
    assert_eq!(
        String::from_utf8_lossy(&started.stdout).trim(),
        format!("export SLURM_CONF={}", cluster.conf.display())
    );
    let sinfo = cluster.client("sinfo").output().unwrap();
    eprintln!(
        "cluster on ports {port}/{}:\n{}",
        port + 1,
        String::from_utf8_lossy(&sinfo.stdout)
    );

    // The spec as a job array of 3 shards (1 CPU each) and the merge job after it.
    let exe = assert_cmd::cargo::cargo_bin("dp-repro");
    let out = tmp.path().join("slurm-out");
    let (array, merge, jobs) = cluster.submit_ci(&exe, 3, &data, &out);
    let all_ok = jobs
        .iter()
        .all(|j| j["JobState"] == "COMPLETED" && j["ExitCode"] == "0:0");
    assert!(
        all_ok,
        "a job did not complete:\n{}",
        logs(&out, &slurm_dir)
    );

    // Three array tasks of the array job, each in its own job, and the merge job.
    let tasks: Vec<&str> = jobs
        .iter()
        .filter(|j| j.get("ArrayJobId") == Some(&array))
        .map(|j| j["ArrayTaskId"].as_str())
        .collect();
    assert_eq!(tasks.len(), 3, "{jobs:?}");
    for i in ["1", "2", "3"] {
        assert!(tasks.contains(&i), "array task {i} missing: {tasks:?}");
    }
    let merged_job = jobs.iter().find(|j| j["JobId"] == merge).unwrap();
    assert_eq!(merged_job["JobName"], "dp-repro-merge");
    // It waited for the array (times are ISO 8601 to the second, so they sort as text).
    for j in jobs.iter().filter(|j| j.get("ArrayJobId") == Some(&array)) {
        assert!(
            merged_job["StartTime"] >= j["EndTime"],
            "the merge job started before array task {} ended: {jobs:?}",
            j["ArrayTaskId"]
        );
    }
    // slurmctld's own record of finished jobs names all four.
    let jobcomp = fs::read_to_string(slurm_dir.join("log/jobcomp.log")).unwrap();
    for j in &jobs {
        assert!(
            jobcomp.contains(&format!("JobId={} ", j["JobId"])),
            "jobcomp.log lacks {}:\n{jobcomp}",
            j["JobId"]
        );
    }

    // Each shard wrote its folder under Slurm (its log is named by the array job and task).
    for i in 1..=3 {
        let log = out.join(format!("slurm-{array}_{i}.log"));
        assert!(
            log.is_file(),
            "no {}:\n{}",
            log.display(),
            logs(&out, &slurm_dir)
        );
        assert!(out.join(format!("shard-{i}/runs.csv")).is_file());
        let run: serde_json::Value = serde_json::from_str(
            &fs::read_to_string(out.join(format!("shard-{i}/run.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(run["shard"], format!("{i}/3"), "{run}");
    }
    assert!(out.join(format!("slurm-merge-{merge}.log")).is_file());

    // The reference: one process, the same spec and repetitions.
    let one = tmp.path().join("one");
    let single = command(s(&exe))
        .args([
            "run",
            "specs/ci.yaml",
            "--reps",
            "2",
            "--data-dir",
            s(&data),
            "--quiet",
            "--out",
            s(&one),
        ])
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert!(single.status.success(), "single run: {}", text(&single));
    for f in OUTPUTS {
        let a = fs::read(one.join(f)).unwrap_or_else(|e| panic!("single run's {f}: {e}"));
        let b = fs::read(out.join(f)).unwrap_or_else(|e| {
            panic!("merged {f}: {e}\n{}", logs(&out, &slurm_dir));
        });
        assert!(a == b, "{f} of the Slurm run differs from the single run's");
    }
    eprintln!(
        "array job {array} (tasks 1-3) and merge job {merge}: {} identical to one run",
        OUTPUTS.join(", ")
    );

    // A shard that fails: the array tasks end FAILED and Slurm cancels the merge job rather
    // than leaving it pending for ever. The binary fails `run` and passes the rest through.
    let failing = tmp.path().join("failing-dp-repro");
    fs::write(
        &failing,
        format!(
            "#!/usr/bin/env bash\n[ \"$1\" = run ] && {{ echo simulated failure >&2; exit 1; }}\n\
             exec {} \"$@\"\n",
            s(&exe)
        ),
    )
    .unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&failing)
        .status()
        .unwrap();
    let bad = tmp.path().join("slurm-failing");
    let (array, merge, jobs) = cluster.submit_ci(&failing, 2, &data, &bad);
    for j in &jobs {
        if j["JobId"] == merge {
            assert_eq!(
                (j["JobState"].as_str(), j["Reason"].as_str()),
                ("CANCELLED", "DependencyNeverSatisfied"),
                "{j:?}"
            );
        } else {
            assert_eq!(j["ArrayJobId"], array, "{j:?}");
            assert_eq!(
                (j["JobState"].as_str(), j["ExitCode"].as_str()),
                ("FAILED", "1:0"),
                "{j:?}"
            );
        }
    }
    assert_eq!(jobs.len(), 3, "{jobs:?}");
    assert!(!bad.join("summary.csv").exists());
    drop(cluster);
}
