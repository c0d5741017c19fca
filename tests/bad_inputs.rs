//! Bad inputs answered before anything runs: each case exits 2,
//! names the field or flag and the fix, and computes nothing — no results folder appears
//! and no other file changes.

mod common;

use std::path::Path;

/// A tiny synthetic spec (DT and LPDT-M on 80 rows) with `extra` lines appended.
fn spec(dir: &Path, extra: &str) -> std::path::PathBuf {
    let text = format!(
        "name: bad\nseed: 1\nrepetitions: 2\ndatasets:\n  - {{name: sine, synthetic: lpdt_sine, sizes: {{public: 20, private: 60, test: 20}}}}\nepsilons: [1]\nmethods:\n  - {{method: DT, params: {{max_depth: 2}}}}\n  - {{method: LPDT-M, params: {{depth: 2, min_leaf: 5, rho: 0.5}}}}\n{extra}"
    );
    let path = dir.join("bad.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `args` (the spec path replaced for `SPEC`) from `dir`; the results folder is
/// `dir/out`, which must not appear, and no file under `dir` may change.
fn refused(dir: &Path, args: &[&str]) -> String {
    let before = common::snapshot(dir);
    let out = dir.join("out");
    let spec = dir.join("bad.yaml");
    let mut all: Vec<&str> = args
        .iter()
        .map(|a| {
            if *a == "SPEC" {
                spec.to_str().unwrap()
            } else {
                a
            }
        })
        .collect();
    if args[0] == "check" || args[0] == "run" {
        all.extend(["--results", out.to_str().unwrap()]);
        if args[0] == "run" {
            all.pop();
            all.pop();
            all.extend(["--out", out.to_str().unwrap()]);
        }
    }
    let (code, _, err) = common::dp_repro_in(dir, &all);
    assert_eq!(code, 2, "{args:?}: {err}");
    assert!(!out.exists(), "{args:?}: a results folder was created");
    assert_eq!(
        common::snapshot(dir),
        before,
        "{args:?}: files changed beside the results folder"
    );
    err
}

#[test]
fn a_claim_naming_a_method_the_spec_does_not_run_is_refused_with_the_nearest_label() {
    let tmp = tempfile::tempdir().unwrap();
    spec(
        tmp.path(),
        "claims:\n  - {claim: better, method: DT, than: LPDT-MM, at_least: 1}\n",
    );
    let err = refused(tmp.path(), &["check", "SPEC", "--quiet"]);
    assert!(err.contains("claims[0].than"), "{err}");
    assert!(err.contains("did you mean `LPDT-M`?"), "{err}");
}

#[test]
fn a_missing_golden_file_is_named_before_any_task_runs() {
    let tmp = tempfile::tempdir().unwrap();
    spec(tmp.path(), "golden: {file: golden/none.csv}\n");
    let err = refused(tmp.path(), &["check", "SPEC", "--quiet"]);
    assert!(
        err.contains("golden file") && err.contains("none.csv"),
        "{err}"
    );
    assert!(
        err.contains("nothing was run") && err.contains("--bless"),
        "{err}"
    );
}

#[test]
fn an_epsilon_out_of_range_is_refused_in_the_spec_and_on_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let path = spec(tmp.path(), "");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("epsilons: [1]", "epsilons: [1, 1e-300]");
    std::fs::write(&path, text).unwrap();
    let err = refused(tmp.path(), &["run", "SPEC"]);
    assert!(
        err.contains("epsilons[1]") && err.contains("1e-300"),
        "{err}"
    );
    assert!(
        err.len() < 400,
        "the message prints the number, not 300 digits: {err}"
    );
    spec(tmp.path(), "");
    for bad in ["-1", "0", "inf"] {
        let err = refused(
            tmp.path(),
            &["audit", "SPEC", "--epsilon", bad, "--no-ledger"],
        );
        assert!(
            err.contains("--epsilon") && err.contains("> 0"),
            "{bad}: {err}"
        );
        assert!(
            !err.contains("'-- "),
            "{bad}: clap's tip to pass it after --: {err}"
        );
    }
}

#[test]
fn a_spec_that_is_not_text_or_not_a_mapping_is_named_in_plain_words() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("bad.yaml");
    let mut bytes = b"name: x\n".to_vec();
    bytes.extend((0..400u32).map(|i| (i % 7 + 250) as u8));
    std::fs::write(&path, bytes).unwrap();
    let err = refused(tmp.path(), &["validate", "SPEC"]);
    assert!(err.contains("not a text file"), "{err}");
    assert!(err.len() < 300, "the bytes are not dumped: {err}");
    std::fs::write(&path, "- a\n- b\n").unwrap();
    let err = refused(tmp.path(), &["validate", "SPEC"]);
    assert!(err.contains("a mapping of fields"), "{err}");
    assert!(!err.contains("struct Spec"), "{err}");
    std::fs::write(&path, "name: x\nseed: -1\n").unwrap();
    let err = refused(tmp.path(), &["validate", "SPEC"]);
    assert!(
        err.contains("a whole number >= 0") && !err.contains("u64"),
        "{err}"
    );
}

/// A data set without public rows under a method that grows its partition on the public
/// sample (LPDT-M): a one-cell partition, run without a word before; now refused naming
/// the method, the data set and the fix.
#[test]
fn a_public_grown_partition_without_public_rows_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let path = spec(tmp.path(), "label_bounds: {fixed: {lo: -3, hi: 3}}\n");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("public: 20,", "public: 0,");
    std::fs::write(&path, text).unwrap();
    let err = refused(tmp.path(), &["run", "SPEC"]);
    assert!(
        err.contains("LPDT-M grows its partition on the public sample"),
        "{err}"
    );
    assert!(
        err.contains("`sine` has no public rows") && err.contains("public share"),
        "{err}"
    );
}

/// A spec whose anchors hold aliases of anchors that hold aliases (`&a1 [*a0, *a0, …]`
/// eleven levels deep, nine copies each): a few lines that expand to 9¹² values, refused
/// as an alias bomb naming the file, the first line that uses an alias and the fix.
#[test]
fn an_alias_bomb_is_named_with_its_first_alias() {
    let tmp = tempfile::tempdir().unwrap();
    let mut bomb = String::from(
        "  - method: DT\n    params:\n      max_depth: 2\n      a0: &a0 [x, x, x, x, x, x, x, x, x]\n",
    );
    for i in 1..12 {
        let copies = vec![format!("*a{}", i - 1); 9].join(", ");
        bomb.push_str(&format!("      a{i}: &a{i} [{copies}]\n"));
    }
    spec(tmp.path(), &bomb);
    for args in [&["validate", "SPEC"][..], &["run", "SPEC"]] {
        let err = refused(tmp.path(), args);
        assert!(err.contains("bad.yaml: line 14"), "{args:?}: {err}");
        assert!(
            err.contains("`*a0`") && err.contains("alias bomb"),
            "{args:?}: {err}"
        );
        assert!(err.contains("write the repeated values out"), "{err}");
        assert!(!err.contains("repetition limit"), "{err}");
    }
}

/// A manifest `toy` in `dir/ds/toy.yaml`, with `edit` applied to its text, and a spec
/// `bad.yaml` that uses it.
fn spec_with_manifest(dir: &Path, edit: impl Fn(&str) -> String) {
    let manifest = "name: toy\nfile: toy.csv\ntask: regression\nlabel_column: 0\n\
        has_header: false\nsha256: 0000000000000000000000000000000000000000000000000000000000000000\n\
        n_rows: 3\nn_features: 2\nsource: {repository: a/b, commit: c, path: p.csv}\n";
    std::fs::create_dir_all(dir.join("ds")).unwrap();
    std::fs::write(dir.join("ds/toy.yaml"), edit(manifest)).unwrap();
    std::fs::write(
        dir.join("bad.yaml"),
        "name: bad\nseed: 1\nrepetitions: 2\ndatasets: [toy]\nepsilons: [1]\nmethods:\n  - {method: DT, params: {max_depth: 2}}\n",
    )
    .unwrap();
}

/// A broken data-set manifest is explained like a broken spec: the manifest file, line
/// and column, the field, in plain words (no Rust type name, no list of fields for a
/// mistake that is not about a field).
#[test]
fn a_broken_manifest_is_named_like_a_broken_spec() {
    let tmp = tempfile::tempdir().unwrap();
    let run = ["run", "SPEC", "--manifests", "ds"];
    spec_with_manifest(tmp.path(), |m| m.replace("n_rows: 3", "n_rowz: 3"));
    let err = refused(tmp.path(), &run);
    assert!(err.contains("toy.yaml: line 7, column 1"), "{err}");
    assert!(
        err.contains("unknown field `n_rowz` (did you mean `n_rows`?)"),
        "{err}"
    );
    spec_with_manifest(tmp.path(), |m| m.replace("n_rows: 3", "n_rows: three"));
    let err = refused(tmp.path(), &run);
    assert!(err.contains("toy.yaml: line 7, column 9"), "{err}");
    assert!(
        err.contains("n_rows") && err.contains("a whole number >= 0"),
        "{err}"
    );
    assert!(!err.contains("usize"), "{err}");
    spec_with_manifest(tmp.path(), |m| m.replace("n_rows: 3", "\tn_rows: 3"));
    let err = refused(tmp.path(), &run);
    assert!(err.contains("toy.yaml: line 7, column 1"), "{err}");
    assert!(
        err.contains("tab character") && err.contains("replace the tab with spaces"),
        "{err}"
    );
    assert!(!err.contains("valid fields"), "{err}");
}

/// `--out` / `--results` naming a symbolic link that loops or points nowhere: said in
/// those words, with the fix, instead of the system's "File exists".
#[cfg(unix)]
#[test]
fn an_output_folder_that_is_a_looping_or_dangling_link_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    spec(tmp.path(), "");
    let out = tmp.path().join("out");
    std::os::unix::fs::symlink("out", &out).unwrap();
    for args in [&["run", "SPEC"][..], &["check", "SPEC", "--quiet"]] {
        let err = refused(tmp.path(), args);
        assert!(
            err.contains("symbolic link") && err.contains("loops"),
            "{args:?}: {err}"
        );
        let flag = if args[0] == "run" {
            "--out"
        } else {
            "--results"
        };
        assert!(
            err.contains(&format!("another folder with {flag}")),
            "{err}"
        );
        assert!(!err.contains("os error"), "{err}");
    }
    std::fs::remove_file(&out).unwrap();
    std::os::unix::fs::symlink("nowhere", &out).unwrap();
    let err = refused(tmp.path(), &["run", "SPEC"]);
    assert!(
        err.contains("symbolic link") && err.contains("`nowhere`, which does not exist"),
        "{err}"
    );
    assert!(!err.contains("os error"), "{err}");
}

/// `dp-repro table` on a results folder it cannot write into: the advice is what `table`
/// can do (it has no `--out`), and nothing changes. Skipped, with a note, for a user the
/// system lets write into read-only folders (root).
#[cfg(unix)]
#[test]
fn table_on_a_read_only_folder_gives_advice_table_can_follow() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let path = spec(tmp.path(), "");
    let res = tmp.path().join("res");
    let (code, _, err) = common::into_folder(tmp.path(), "run", &path, &res, &[]);
    assert_eq!(code, 0, "{err}");
    std::fs::set_permissions(&res, std::fs::Permissions::from_mode(0o555)).unwrap();
    if std::fs::write(res.join("probe"), "").is_ok() {
        std::fs::remove_file(res.join("probe")).unwrap();
        std::fs::set_permissions(&res, std::fs::Permissions::from_mode(0o755)).unwrap();
        eprintln!("skipped: this user may write into read-only folders");
        return;
    }
    let before = common::snapshot(tmp.path());
    let (code, _, err) = common::dp_repro_in(tmp.path(), &["table", res.to_str().unwrap()]);
    std::fs::set_permissions(&res, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot write into it"), "{err}");
    assert!(!err.contains("choose another folder with --out"), "{err}");
    assert!(
        err.contains("make the folder writable") && err.contains("copy it"),
        "{err}"
    );
    assert_eq!(common::snapshot(tmp.path()), before, "files changed");
}

/// A method file (a composition) or a claims file with a value of the wrong shape: the
/// field and the fix in words, without the Rust names of the types behind them.
#[test]
fn method_and_claims_files_name_no_rust_types() {
    let tmp = tempfile::tempdir().unwrap();
    let method = "name: X\ndescription: y\npartition: {rule: cart, grown_on: public}\n\
        cell_mechanism: randomized_response\nlabel_mechanism: laplace\nestimator: ratio\nbudget: rho\n";
    let path = tmp.path().join("bad.yaml");
    for (from, to, said) in [
        (
            "partition: {rule: cart, grown_on: public}",
            "partition: [1]",
            "a mapping of fields",
        ),
        ("budget: rho", "budget: rhoo", "none of the forms"),
        (
            "cell_mechanism: randomized_response",
            "cell_mechanism: randomized_respons",
            "did you mean `randomized_response`?",
        ),
    ] {
        std::fs::write(&path, method.replace(from, to)).unwrap();
        let err = refused(tmp.path(), &["validate", "SPEC"]);
        assert!(
            err.contains("bad.yaml") && err.contains(said),
            "{to}: {err}"
        );
        assert!(
            !err.contains("struct") && !err.contains("enum"),
            "{to}: {err}"
        );
    }
    spec(tmp.path(), "claims: claims.yaml\n");
    std::fs::write(
        tmp.path().join("claims.yaml"),
        "- {claim: better, method: DT, than: LPDT-M, at_least: 1}\n- 5\n",
    )
    .unwrap();
    let err = refused(tmp.path(), &["validate", "SPEC"]);
    assert!(err.contains("claims.yaml: line 2"), "{err}");
    assert!(err.contains("a mapping of fields"), "{err}");
    assert!(!err.contains("enum"), "{err}");
}
