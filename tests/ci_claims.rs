//! The CI specs' claims can fail: each paper's CI spec states the
//! paper's headline ordering as claims (`claims:`), and a claim that no run could turn red
//! would check nothing. Each spec is run once into a temporary folder; its claims are
//! evaluated on the run's selected.csv and tests.csv as `dp-repro check` evaluates them
//! (none may regress), then on a copy with the two methods of a headline claim swapped,
//! where that claim must regress.

mod common;

use std::path::Path;

use dp_repro::check::{evaluate_claims, read_selected, read_tests, SelectedRow, TestRow};
use dp_repro::spec::{parse_file, validate, Experiment};

/// Runs `spec` into `out` with the real data; None (skipped) without them.
fn run(spec: &str, out: &Path) -> Option<Experiment> {
    let data = common::real_data(common::ci_spec_data(spec))?;
    let o = out.to_str().unwrap();
    let (code, _, err) =
        common::dp_repro_with_data(Some(&data), &["run", spec, "--out", o, "--quiet"]);
    assert_eq!(code, 0, "{spec}: {err}");
    let path = common::root().join(spec);
    let (parsed, _) = parse_file(&path).unwrap();
    Some(validate(parsed, &path, &dp_repro::data::default_manifest_dirs()).unwrap())
}

/// `label` with `a` and `b` exchanged.
fn swapped(label: &mut String, a: &str, b: &str) {
    if label == a {
        *label = b.to_string();
    } else if label == b {
        *label = a.to_string();
    }
}

/// The claims of `exp` on `selected` and `tests`: the labels of those that regressed.
fn regressed(exp: &Experiment, selected: &[SelectedRow], tests: &[TestRow]) -> Vec<String> {
    evaluate_claims(&exp.claims, selected, tests, &[], exp.lower_is_better())
        .into_iter()
        .filter(|c| c.regressed())
        .map(|c| c.label)
        .collect()
}

/// On `spec`'s run no claim regresses, and for each (claim, a, b) of `headline` the claim
/// regresses once the labels of methods `a` and `b` are swapped in selected.csv and
/// tests.csv.
fn headline_can_fail(spec: &str, headline: &[(&str, &str, &str)]) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("results");
    let Some(exp) = run(spec, &out) else {
        return;
    };
    let selected = read_selected(&out.join("selected.csv")).unwrap();
    let tests = read_tests(&out.join("tests.csv")).unwrap();
    assert!(!exp.claims.is_empty(), "{spec} has no claims");
    let honest = regressed(&exp, &selected, &tests);
    assert!(
        honest.is_empty(),
        "{spec}: claims regressed on the honest run: {honest:?}"
    );
    for (id, a, b) in headline {
        assert!(
            exp.claims.iter().any(|c| c.id() == Some(*id)),
            "{spec} has no claim {id}"
        );
        let mut selected = selected.clone();
        for r in &mut selected {
            swapped(&mut r.method, a, b);
        }
        let mut tests = tests.clone();
        for t in &mut tests {
            swapped(&mut t.method, a, b);
            swapped(&mut t.other, a, b);
        }
        let damaged = regressed(&exp, &selected, &tests);
        assert!(
            damaged.iter().any(|l| l == id),
            "{spec}: {id} stays green with {a} and {b} swapped (regressed: {damaged:?})"
        );
    }
}

#[test]
fn the_lpct_ci_headline_turns_red_when_lpct_and_its_competitors_swap() {
    headline_can_fail(
        "specs/ci-lpct.yaml",
        &[
            ("rank-sum-eps2", "LPCT(CART)", "CT-Q"),
            ("lpct-beats-ct-q-eps2", "LPCT(CART)", "CT-Q"),
            ("lpct-beats-psgd-l-eps2", "LPCT(CART)", "PSGD-L"),
        ],
    );
}

#[test]
fn the_histoftree_ci_headline_turns_red_when_histoftree_and_its_competitors_swap() {
    headline_can_fail(
        "specs/ci-histoftree.yaml",
        &[
            ("me-beats-pardt-aligned-C3a", "HistOfTree(ME) A", "ParDT A"),
            ("me-beats-hist-aligned-T1", "HistOfTree(ME) A", "Hist"),
            ("me-beats-hist-personalized-T1", "HistOfTree(ME) P", "Hist"),
        ],
    );
}

#[test]
fn the_diprime_ci_headline_turns_red_when_the_variants_and_dp_ert_swap() {
    headline_can_fail(
        "specs/ci-diprime.yaml",
        &[
            ("exp-beats-dp-ert", "DiPriMeExp", "DP-ERT"),
            ("flip-beats-dp-rf", "DiPriMeFlip", "DP-RF"),
        ],
    );
}
