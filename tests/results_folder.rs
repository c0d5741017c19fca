//! Results folders a user can trust and rebuild: a folder holds
//! its resolved spec, the paper's tables it is checked against and the data set
//! manifests, so `table`, `check --results` and `merge` work from any working directory
//! on the paper's own specs; `merge` checks coverage and compares specs by content; a
//! lock keeps a second process out; another spec's results are never mixed in.

mod common;

use assert_cmd::Command;
use common::root;
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// The binary run from `cwd` with the real data folder.
fn cmd(cwd: &Path, data: &Path) -> Command {
    let mut c = Command::cargo_bin("dp-repro").unwrap();
    c.current_dir(cwd)
        .env("DP_REPRO_DATA", data)
        .envs(common::no_user_data());
    c
}

/// Runs the binary from `cwd`: (exit code, stdout, stderr).
fn run(cwd: &Path, data: &Path, args: &[&str]) -> (i32, String, String) {
    let out = cmd(cwd, data).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(cwd: &Path, data: &Path, args: &[&str]) -> String {
    let (code, out, err) = run(cwd, data, args);
    assert_eq!(code, 0, "dp-repro {args:?} failed:\n{out}\n{err}");
    err
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A copy of the spec `rel` (under `specs/`) with the files it references, in a fresh
/// folder standing for a clone that is deleted later: (copy of the spec, clone folder).
fn spec_copy(tmp: &Path, rel: &str) -> (PathBuf, PathBuf) {
    let clone = tmp.join("clone");
    let copy_tree = |from: &Path, to: &Path| {
        fs::create_dir_all(to).unwrap();
        for e in fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.path().is_file() {
                fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    };
    copy_tree(
        &root().join("specs/reported"),
        &clone.join("specs/reported"),
    );
    copy_tree(&root().join("specs/golden"), &clone.join("specs/golden"));
    let spec = clone.join("specs").join(rel);
    fs::create_dir_all(spec.parent().unwrap()).unwrap();
    fs::copy(root().join("specs").join(rel), &spec).unwrap();
    (spec, clone)
}

fn data_rows(runs: &Path) -> Vec<String> {
    fs::read_to_string(runs)
        .unwrap()
        .lines()
        .skip(1)
        .map(str::to_string)
        .collect()
}

fn task_keys(runs: &Path) -> Vec<String> {
    data_rows(runs)
        .iter()
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect()
}

/// Compiles a LaTeX table in a standard article with booktabs when pdflatex is on PATH:
/// it must compile and fit the text width (no overfull box). Says so when it skips.
fn compiles_without_overfull_boxes(table: &Path) {
    let available = std::process::Command::new("pdflatex")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !available {
        eprintln!(
            "skipped the LaTeX compile of {}: pdflatex not found on PATH",
            table.display()
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let doc = format!(
        "\\documentclass{{article}}\n\\usepackage[T1]{{fontenc}}\n\\usepackage{{booktabs}}\n\\usepackage{{graphicx}}\n\\begin{{document}}\n{}\\end{{document}}\n",
        fs::read_to_string(table).unwrap()
    );
    fs::write(dir.path().join("t.tex"), doc).unwrap();
    let out = std::process::Command::new("pdflatex")
        .args(["-interaction=nonstopmode", "-halt-on-error", "t.tex"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{} does not compile:\n{log}",
        table.display()
    );
    assert!(
        !log.contains("Overfull \\hbox"),
        "{} is wider than the text:\n{log}",
        table.display()
    );
}

/// The workflows of one paper spec at `--reps 2`, each command run from a folder other
/// than the repository: two shards and a merge, a full run, then `table`, `check
/// --results` (on the results folder's own spec.yaml, after the spec's clone is gone)
/// and a merge of one shard alone (incomplete).
fn workflows_from_another_directory(rel: &str, table: &str) {
    let Some(data) = common::real_data(&["abalone.csv"]) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (spec, clone) = spec_copy(tmp.path(), rel);
    let work = tmp.path().join("work");
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir_all(&work).unwrap();
    fs::create_dir_all(&elsewhere).unwrap();

    for i in 1..=2 {
        let shard = format!("{i}/2");
        let out = format!("shard{i}");
        ok(
            &work,
            &data,
            &[
                "run",
                s(&spec),
                "--reps",
                "2",
                "--shard",
                &shard,
                "--out",
                &out,
                "--quiet",
            ],
        );
    }
    // A shard's folder holds everything its spec referenced.
    let shard1 = work.join("shard1");
    for f in [
        "spec.yaml",
        "spec.source.yaml",
        "datasets/abalone.yaml",
        "reported/lpdt_table2.csv",
    ] {
        assert!(
            shard1.join(f).is_file(),
            "{f} missing from the results folder"
        );
    }
    let resolved = fs::read_to_string(shard1.join("spec.yaml")).unwrap();
    assert!(
        !resolved.contains("reported/lpdt-tables-2-5.yaml"),
        "the reported section is inlined:\n{resolved}"
    );

    // The clone the spec came from is gone: the folders must stand alone.
    fs::remove_dir_all(&clone).unwrap();

    // An incomplete merge writes the rows, renders nothing, lists what is missing, exit 1.
    let (code, _, err) = run(
        &elsewhere,
        &data,
        &[
            "merge",
            s(&work.join("shard1")),
            "--out",
            s(&work.join("partial")),
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("incomplete") && err.contains("task rows"),
        "{err}"
    );
    assert!(
        err.contains("shards not among the merged folders: 2/2"),
        "{err}"
    );
    let partial = work.join("partial");
    assert_eq!(
        data_rows(&partial.join("runs.csv")).len(),
        data_rows(&shard1.join("runs.csv")).len()
    );
    assert!(
        !partial.join("summary.csv").exists(),
        "no tables from an incomplete merge"
    );

    // The complete merge, from another directory; it says what it wrote.
    let merged = work.join("merged");
    let err = ok(
        &elsewhere,
        &data,
        &[
            "merge",
            s(&work.join("shard1")),
            s(&work.join("shard2")),
            "--out",
            s(&merged),
        ],
    );
    assert!(
        err.contains("wrote") && err.contains("summary.csv"),
        "{err}"
    );
    let keys = task_keys(&merged.join("runs.csv"));
    assert_eq!(
        keys.len(),
        keys.iter().collect::<HashSet<_>>().len(),
        "each task once"
    );

    // `table` from yet another directory re-renders the merged folder, listing its files.
    let table_tex = merged.join(format!("table-{table}.tex"));
    let before = fs::read_to_string(&table_tex).unwrap();
    fs::remove_file(&table_tex).unwrap();
    let err = ok(&elsewhere, &data, &["table", s(&merged)]);
    assert!(err.contains(&format!("table-{table}.tex")), "{err}");
    assert_eq!(fs::read_to_string(&table_tex).unwrap(), before);
    compiles_without_overfull_boxes(&table_tex);

    // `check --results` on the folder's own spec: nothing recomputed, a report written;
    // exit 0 or 1 (regressions are possible with 2 repetitions), never 2.
    let (code, out, err) = run(
        &elsewhere,
        &data,
        &[
            "check",
            s(&merged.join("spec.yaml")),
            "--results",
            s(&merged),
            "--reps",
            "2",
            "--quiet",
        ],
    );
    assert!(code == 0 || code == 1, "check failed:\n{out}\n{err}");
    assert!(
        err.lines().any(|l| l.starts_with("0 tasks computed")),
        "{err}"
    );
    assert!(out.contains("Reported cells:"), "{out}");
    let report = fs::read_to_string(merged.join("check.md")).unwrap();
    assert!(
        report.contains("| ABA (abalone) | DT | — | 5.67e+0 |"),
        "the paper's cells are read from the copied tables:\n{report}"
    );
}

#[test]
fn ci_spec_workflows_work_from_another_directory() {
    workflows_from_another_directory("ci.yaml", "table2");
}

#[test]
fn table2_spec_workflows_work_from_another_directory() {
    workflows_from_another_directory("lpdt/table2.yaml", "table2");
}

#[test]
fn a_second_process_into_a_folder_in_use_exits_2_and_the_first_finishes_alone() {
    let Some(data) = common::real_data(&["abalone.csv"]) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let spec = root().join("specs/ci.yaml");
    let args = ["run", s(&spec), "--reps", "5", "--out", s(&out), "--quiet"];
    let mut first = std::process::Command::new(assert_cmd::cargo::cargo_bin("dp-repro"))
        .args(args)
        .current_dir(tmp.path())
        .env("DP_REPRO_DATA", &data)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the first has taken the folder (its first rows are written).
    let runs = out.join("runs.csv");
    let start = Instant::now();
    while !(runs.is_file() && fs::read_to_string(&runs).unwrap().lines().count() > 1) {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the first run never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let (code, _, err) = run(tmp.path(), &data, &args);
    assert!(
        first.try_wait().unwrap().is_none(),
        "the first run finished before the second started; the test proves nothing"
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("in use by another dp-repro process") && err.contains("out"),
        "{err}"
    );
    // `table` into the busy folder is refused the same way.
    let (code, _, err) = run(tmp.path(), &data, &["table", s(&out)]);
    assert_eq!(code, 2, "{err}");
    let status = first.wait().unwrap();
    assert!(status.success());
    let keys = task_keys(&runs);
    let unique: HashSet<&String> = keys.iter().collect();
    assert_eq!(keys.len(), unique.len(), "every task written once");
    // 469,720 tasks at the spec's 20 repetitions (see validate), so 117,430 at 5.
    assert_eq!(keys.len(), 469_720 / 20 * 5);
}

#[test]
fn another_spec_into_a_results_folder_is_refused_unless_forced() {
    let Some(data) = common::real_data(&["abalone.csv"]) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let ci = root().join("specs/ci.yaml");
    let quick = root().join("specs/quickstart.yaml");
    ok(
        tmp.path(),
        &data,
        &["run", s(&ci), "--reps", "1", "--out", s(&out), "--quiet"],
    );
    let spec_before = fs::read_to_string(out.join("spec.yaml")).unwrap();
    let rows_before = fs::read_to_string(out.join("runs.csv")).unwrap();

    // The same spec again reuses the folder and its rows.
    let err = ok(
        tmp.path(),
        &data,
        &["run", s(&ci), "--reps", "1", "--out", s(&out), "--quiet"],
    );
    assert!(err.contains("0 tasks computed"), "{err}");

    let (code, _, err) = run(
        tmp.path(),
        &data,
        &["run", s(&quick), "--out", s(&out), "--quiet"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("output folder")
            && err.contains("another spec (`ci`")
            && err.contains("--force"),
        "{err}"
    );
    assert_eq!(
        fs::read_to_string(out.join("spec.yaml")).unwrap(),
        spec_before,
        "nothing changed"
    );
    assert_eq!(
        fs::read_to_string(out.join("runs.csv")).unwrap(),
        rows_before,
        "nothing mixed"
    );

    let err = ok(
        tmp.path(),
        &data,
        &["run", s(&quick), "--out", s(&out), "--quiet", "--force"],
    );
    assert!(err.contains("--force"), "{err}");
    assert!(
        !out.join("table-table2.md").exists(),
        "the old spec's tables are gone"
    );
    let quick_keys: HashSet<String> = task_keys(&out.join("runs.csv")).into_iter().collect();
    let (code, _, _) = run(tmp.path(), &data, &["table", s(&out)]);
    assert_eq!(code, 0);
    let ci_keys: HashSet<String> = rows_before
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect();
    assert!(
        quick_keys.is_disjoint(&ci_keys),
        "no row of the old spec is left"
    );
}

#[test]
fn merge_compares_specs_by_content_not_text() {
    let Some(data) = common::real_data(&["abalone.csv"]) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let spec = root().join("specs/quickstart.yaml");
    for i in 1..=2 {
        let shard = format!("{i}/2");
        ok(
            tmp.path(),
            &data,
            &[
                "run",
                s(&spec),
                "--shard",
                &shard,
                "--out",
                &format!("s{i}"),
                "--quiet",
            ],
        );
    }
    // A comment and another layout of the same content: merged.
    let p = tmp.path().join("s2/spec.yaml");
    let text = fs::read_to_string(&p).unwrap();
    fs::write(
        &p,
        format!("# edited by hand\n{}\n\n# trailing comment\n", text),
    )
    .unwrap();
    ok(tmp.path(), &data, &["merge", "s1", "s2", "--out", "m"]);
    assert!(tmp.path().join("m/table-quickstart.md").is_file());
    // Another seed: refused, naming the field.
    let p = tmp.path().join("s2/spec.yaml");
    let text = fs::read_to_string(&p).unwrap();
    let changed = text.replacen("seed: ", "seed: 1", 1);
    assert_ne!(changed, text);
    fs::write(&p, changed).unwrap();
    let (code, _, err) = run(tmp.path(), &data, &["merge", "s1", "s2", "--out", "m2"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("different specs") && err.contains("seed"),
        "{err}"
    );
}

/// Every spec in `specs/` resolves into a results folder that validates on its own (its
/// copied manifests only) to the same experiment: the same task keys, the same computed
/// hash, reported files present; resolving the resolved spec changes nothing.
#[test]
fn every_spec_round_trips_through_its_resolved_copy() {
    use dp_repro::run::OutputFolder;
    use dp_repro::spec::{parse_file, resolve, validate};
    let manifests = vec![root().join("datasets")];
    let mut specs = Vec::new();
    for dir in ["", "lpdt", "lpct", "histoftree", "diprime"].map(|d| root().join("specs").join(d)) {
        for e in fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "yaml") {
                specs.push(p);
            }
        }
    }
    assert!(specs.len() >= 10, "found {} specs", specs.len());
    for path in specs {
        let (parsed, text) = parse_file(&path).unwrap();
        let exp = validate(parsed, &path, &manifests).unwrap();
        let resolved = resolve(&exp, &text).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("r");
        let keys = dp_repro::run::keys::all_task_keys(&exp);
        drop(OutputFolder::claim(&out, &resolved, &path, &text, false, || keys.clone()).unwrap());
        let copy = out.join("spec.yaml");
        let (parsed2, text2) = parse_file(&copy).unwrap();
        let exp2 = validate(parsed2, &copy, &[out.join("datasets")]).unwrap_or_else(|e| {
            panic!(
                "{}: the resolved copy does not validate: {e}",
                path.display()
            )
        });
        let name = path.display();
        assert_eq!(
            dp_repro::run::keys::all_task_keys(&exp2),
            keys,
            "{name}: tasks differ"
        );
        assert_eq!(exp2.claims.len(), exp.claims.len(), "{name}: claims");
        assert_eq!(
            exp2.reported.is_some(),
            exp.reported.is_some(),
            "{name}: reported"
        );
        if let Some((r, dir)) = &exp2.reported {
            for f in &r.files {
                assert!(dir.join(f).is_file(), "{name}: {} not copied", f.display());
            }
        }
        let again = resolve(&exp2, &text2).unwrap();
        assert_eq!(
            again.content_hash(),
            resolved.content_hash(),
            "{name}: not idempotent"
        );
        assert_eq!(
            fs::read_to_string(out.join("spec.source.yaml")).unwrap(),
            text
        );
    }
}

/// Task keys are what they have always been, so results folders written by earlier
/// versions are resumed and merged, not recomputed: 16 hex digits of SHA-256 over
/// `{context}|{rep}|{label}|{registry name}|{params}|{epsilon}` (plus `|noise {…}` for
/// frozen noise), and a derived row's key over `{base}|{tag}`. Checked on a fresh-noise
/// spec, a frozen-noise spec and a non-private method.
#[test]
fn task_keys_keep_their_documented_text() {
    use dp_repro::run::keys::{dataset_context, derived_key, sha256_hex, task_key, unit_row_keys};
    use dp_repro::spec::{parse_file, validate};
    let manifests = vec![root().join("datasets")];
    let mut frozen_seen = false;
    for spec in ["specs/ci.yaml", "specs/lpdt/table2-as-coded.yaml"] {
        let path = root().join(spec);
        let (parsed, _) = parse_file(&path).unwrap();
        let exp = validate(parsed, &path, &manifests).unwrap();
        let ctx = dataset_context(&exp, &exp.datasets[0]);
        for m in &exp.methods {
            let noise = match m.noise {
                dp_repro::spec::raw::Noise::Fresh => String::new(),
                frozen => {
                    frozen_seen = true;
                    format!("|noise {}", frozen.describe())
                }
            };
            let params = m.structural[0].join(&m.mechanism[0]).key();
            let eps = if m.method.private() {
                dp_repro::run::seeds::epsilon_text(exp.epsilons[0])
            } else {
                String::new()
            };
            let text = format!(
                "{ctx}|3|{}|{}|{params}|{eps}{noise}",
                m.label,
                m.method.name()
            );
            let key = task_key(&ctx, 3, m, &params, &eps);
            assert_eq!(key, sha256_hex(&text)[..16], "{spec} {}", m.label);
            assert_eq!(unit_row_keys(&exp, &ctx, 3, m, 0, &[])[0], key);
            let tagged = unit_row_keys(&exp, &ctx, 3, m, 0, &["cv_mse:5".to_string()]);
            assert_eq!(tagged[..2], [key.clone(), derived_key(&key, "cv_mse:5")]);
            assert_eq!(
                derived_key(&key, "cv_mse:5"),
                sha256_hex(&format!("{key}|cv_mse:5"))[..16]
            );
        }
    }
    assert!(frozen_seen, "table2-as-coded.yaml has frozen-noise methods");
}
