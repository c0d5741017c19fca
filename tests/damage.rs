//! Verdicts a damaged run cannot fool: each CI spec is run once into a
//! temporary folder, then `dp-repro check --damage KIND` damages a copy of its
//! repetitions as real runs get damaged and must see it in the paper layer alone (the
//! golden verdict left out; the golden's spreads still cap ours). One test per CI spec,
//! each kind of damage of `src/check/damage.rs` on it; and a damage the paper layer cannot
//! see makes the command fail, so it is seen to fail.

mod common;

use std::path::Path;

/// Runs `spec` into `out` with the real data; false (skipped) without them.
fn run(spec: &str, out: &Path) -> bool {
    let Some(data) = common::real_data(common::ci_spec_data(spec)) else {
        return false;
    };
    let o = out.to_str().unwrap();
    let (code, _, err) =
        common::dp_repro_with_data(Some(&data), &["run", spec, "--out", o, "--quiet"]);
    assert_eq!(code, 0, "{spec}: {err}");
    true
}

/// `check SPEC --results OUT --damage KIND [--damage-method M]…`: exit code and stdout.
fn damage(spec: &str, out: &Path, kind: &str, methods: &[&str]) -> (i32, String) {
    let data = common::real_data(common::ci_spec_data(spec)).unwrap();
    let o = out.to_str().unwrap();
    let mut args = vec!["check", spec, "--results", o, "--damage", kind];
    for m in methods {
        args.extend(["--damage-method", m]);
    }
    let (code, stdout, err) = common::dp_repro_with_data(Some(&data), &args);
    (code, format!("{stdout}{err}"))
}

/// The damage is seen: exit 0 and its row says `yes`.
fn seen(spec: &str, out: &Path, kind: &str, methods: &[&str]) {
    let (code, text) = damage(spec, out, kind, methods);
    assert_eq!(
        code, 0,
        "{spec} --damage {kind} {methods:?} went unseen:\n{text}"
    );
    assert!(text.contains("| yes |"), "{text}");
    assert!(!text.contains("**no**"), "{text}");
}

#[test]
fn lpdt_ci_sees_a_repetition_times_20_and_the_whole_table_scaled() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("results");
    if !run("specs/ci.yaml", &out) {
        return;
    }
    // One repetition of LPDT-V × 20: its means about × 2, its spread far wider.
    seen("specs/ci.yaml", &out, "rep-x20", &["LPDT-V"]);
    seen("specs/ci.yaml", &out, "rep-copy", &[]);
    seen("specs/ci.yaml", &out, "scale-0.7", &[]);
    seen("specs/ci.yaml", &out, "scale-1.1", &[]);
    seen("specs/ci.yaml", &out, "flip", &[]);
    // The scratch copy is gone: nothing but the results is left in the folder.
    assert!(!out.join(".damage-scratch").exists());
}

#[test]
fn diprime_ci_sees_a_repetition_times_20_copied_repetitions_and_a_flip() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("results");
    if !run("specs/ci-diprime.yaml", &out) {
        return;
    }
    seen("specs/ci-diprime.yaml", &out, "rep-x20", &["DiPriMe"]);
    seen("specs/ci-diprime.yaml", &out, "rep-copy", &[]);
    seen("specs/ci-diprime.yaml", &out, "scale-0.7", &[]);
    seen("specs/ci-diprime.yaml", &out, "flip", &[]);
}

#[test]
fn lpct_ci_sees_an_epsilon_column_off_by_one_and_a_flip() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("results");
    if !run("specs/ci-lpct.yaml", &out) {
        return;
    }
    seen("specs/ci-lpct.yaml", &out, "rep-x20", &["LPCT(CART)"]);
    seen("specs/ci-lpct.yaml", &out, "rep-copy", &[]);
    seen("specs/ci-lpct.yaml", &out, "scale-0.7", &[]);
    seen("specs/ci-lpct.yaml", &out, "scale-1.1", &[]);
    seen("specs/ci-lpct.yaml", &out, "flip", &[]);
}

#[test]
fn histoftree_ci_sees_an_epsilon_shift_and_an_error_shared_by_every_method() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("results");
    if !run("specs/ci-histoftree.yaml", &out) {
        return;
    }
    seen(
        "specs/ci-histoftree.yaml",
        &out,
        "epsilon-shift",
        &["HistOfTree(ME) A"],
    );
    seen(
        "specs/ci-histoftree.yaml",
        &out,
        "rep-x20",
        &["HistOfTree(ME) A"],
    );
    seen("specs/ci-histoftree.yaml", &out, "rep-copy", &[]);
    // Every cell is a ratio to DT: only DT's anchor (LPDT Table 2's DT) sees × 0.7.
    seen("specs/ci-histoftree.yaml", &out, "scale-0.7", &[]);
    seen("specs/ci-histoftree.yaml", &out, "flip", &[]);
    // × 1.1 on every method stays inside the anchor's measured band (0.83 to 1.12 of
    // LPDT's DT): the paper layer cannot see it, and the command says so with exit 1.
    let (code, text) = damage("specs/ci-histoftree.yaml", &out, "scale-1.1", &[]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("**no**") && text.contains("went unseen"),
        "{text}"
    );
}

#[test]
fn an_unknown_damage_or_method_is_bad_input() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("results");
    if !run("specs/ci-diprime.yaml", &out) {
        return;
    }
    let (code, text) = damage("specs/ci-diprime.yaml", &out, "rep-x02", &[]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("did you mean `rep-x20`"), "{text}");
    let (code, text) = damage("specs/ci-diprime.yaml", &out, "rep-x20", &["DiPriMee"]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("--damage-method DiPriMee") && text.contains("DiPriMe"),
        "{text}"
    );
}
