//! `dp-repro check --sensitivity 1.2` on the CI specs of three papers (a check that
//! catches wrong numbers): each method's errors × 1.2 must turn at least one of its
//! reported cells red, or the report must say which factor the paper's own printed spread
//! lets the check resolve. Each spec is run once into a temporary folder (10–20 s each),
//! then re-checked without running anything. A check too loose to see 1.2× — a tolerance
//! widened, a band stretched over a method, a scaled number not propagated — turns a row
//! to "no" and fails here.

mod common;

use common::dp_repro_with_data as run;

/// The rows of the sensitivity table: (method, detected, note).
fn rows(out: &str) -> Vec<(String, bool, String)> {
    out.lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| method") && !l.starts_with("| ---"))
        .map(|l| {
            let f: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            (f[0].to_string(), f[3] == "yes", f[f.len() - 1].to_string())
        })
        .collect()
}

/// Runs `spec` into a temporary folder, then `--sensitivity` at `factor`; returns the rows.
fn sensitivity(spec: &str, factor: &str) -> Option<Vec<(String, bool, String)>> {
    let data = common::real_data(common::ci_spec_data(spec))?;
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    let r = results.to_str().unwrap();
    let (code, _, err) = run(Some(&data), &["check", spec, "--results", r, "--quiet"]);
    assert_eq!(code, 0, "{spec} does not pass on a correct run: {err}");
    let (code, out, err) = run(
        Some(&data),
        &["check", spec, "--results", r, "--sensitivity", factor],
    );
    assert_eq!(code, 0, "{err}");
    let rows = rows(&out);
    assert!(!rows.is_empty(), "{out}");
    Some(rows)
}

/// Every method is detected at 1.2×, or its note names the paper's printed spread as
/// what hides it (with the factor it can resolve); at 1.01× no method with a relative
/// tolerance of 15 % or more can be seen, so the same table must say "no" somewhere.
fn assert_detects(spec: &str) {
    let Some(at_12) = sensitivity(spec, "1.2") else {
        return;
    };
    for (m, detected, note) in &at_12 {
        assert!(
            *detected || note.contains("paper's printed"),
            "{spec}: {m} not detected at 1.2× and not explained by the paper's spread: {note}"
        );
    }
    let at_101 = sensitivity(spec, "1.01").unwrap();
    assert!(
        at_101.iter().any(|(_, detected, _)| !detected),
        "{spec}: every method 'detected' at 1.01×, below the tolerance: {at_101:?}"
    );
}

#[test]
fn the_histoftree_ci_spec_sees_every_method_at_1_2() {
    assert_detects("specs/ci-histoftree.yaml");
}

#[test]
fn the_lpct_ci_spec_sees_every_method_at_1_2() {
    assert_detects("specs/ci-lpct.yaml");
}

#[test]
fn the_diprime_ci_spec_sees_every_method_or_names_the_papers_spread() {
    assert_detects("specs/ci-diprime.yaml");
}
