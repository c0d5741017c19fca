//! The privacy mutation suite: every deliberate slip of
//! `dp_repro::privacy::mutants::SLIPS`, switched on alone, must turn the privacy check of
//! its spec red in a way the spec's `known_violations` (method, part, max_ratio) does not
//! cover, and must be caught by more than the ledger: the part audit or the end-to-end
//! audit certifies a loss above the claim, or the slip reads private rows and so compiles
//! only through the typed flow's listed escape. (The ledger's charges move with it too
//! for most; slips only the ledger sees are `LEDGER_SLIPS`, tested in
//! `tests/forest_ledger.rs`.) With no slip switched on, every spec of the suite must pass
//! the same check: the suite flags nothing unexpected.
//!
//! Built only with `cargo test --release --features privacy-mutants`; prints
//! `privacy mutants: caught K of N`.

#![cfg(feature = "privacy-mutants")]

mod common;

use dp_repro::check::audit::{privacy_check, AuditRequirement};
use dp_repro::privacy::mutants::{switch, SLIPS};
use dp_repro::spec::{parse_file, validate, Experiment};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Draws per input of each audited part: enough for a slip that doubles a part's ε to
/// certify above the claim at the spec's family-wise level (the audit's own tests), few
/// enough that the whole suite takes a minute or two.
const DRAWS: usize = 40_000;

fn experiment(spec: &str) -> Experiment {
    let path = common::root().join(spec);
    let (parsed, _) = parse_file(&path).unwrap_or_else(|e| panic!("{spec}: {e}"));
    let dirs = dp_repro::data::default_manifest_dirs();
    validate(parsed, &path, &dirs).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// The spec's own `audit:` section at [`DRAWS`], or a strict one (no known violation).
fn requirement(exp: &Experiment) -> AuditRequirement {
    let mut req = exp.spec.audit.clone().unwrap_or(AuditRequirement {
        require: dp_repro::check::audit::AuditRequire::Consistent,
        draws: DRAWS,
        n_private: None,
        known_violations: Vec::new(),
        e2e_fits: None,
    });
    req.draws = DRAWS;
    req
}

/// The failing lines of the privacy check of `spec` with the slip now switched on (empty:
/// the check passes), and which verifiers found its unexplained violations (`end-to-end
/// audit`, `part audit`, `ledger`).
fn failing(spec: &str, data: &Path) -> (Vec<String>, BTreeSet<&'static str>) {
    let exp = experiment(spec);
    let req = requirement(&exp);
    let (_, _, verdict) =
        privacy_check(&exp, &req, Some(data)).unwrap_or_else(|e| panic!("{spec}: {e}"));
    let by = verdict.unexplained().map(|v| v.found_by()).collect();
    (verdict.failing_lines(), by)
}

/// The slips that read private rows outside a release and so could only be written through
/// the typed flow's named escape `Escape::Slip("name")`, which `tests/private_escapes.rs`
/// lists (the typed flow catches them: without that listed escape they do not compile).
fn slips_through_escapes() -> BTreeSet<String> {
    fn scan(dir: &Path, out: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                scan(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for part in text.split("Escape::Slip(\"").skip(1) {
                    if let Some(end) = part.find('"') {
                        out.insert(part[..end].to_string());
                    }
                }
            }
        }
    }
    let mut out = BTreeSet::new();
    scan(&common::root().join("src"), &mut out);
    out
}

#[test]
fn every_privacy_slip_is_caught_and_the_clean_build_flags_nothing_unexpected() {
    let Some(data) = common::real_data(&["abalone.csv"]) else {
        return;
    };
    assert!(SLIPS.len() >= 20, "the suite has {} slips", SLIPS.len());
    let specs: Vec<&str> = SLIPS
        .iter()
        .map(|s| s.spec)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    switch(None);
    let mut clean: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for spec in &specs {
        let (lines, _) = failing(spec, &data);
        if !lines.is_empty() {
            clean.insert(spec, lines);
        }
    }
    let typed = slips_through_escapes();
    let mut caught = 0;
    let mut missed = Vec::new();
    for slip in SLIPS {
        switch(Some(slip.name));
        let (lines, mut by) = failing(slip.spec, &data);
        switch(None);
        if typed.contains(slip.name) {
            by.insert("typed flow");
        }
        let beyond_ledger = by.iter().any(|v| *v != "ledger");
        if lines.is_empty() || !beyond_ledger {
            let how = if lines.is_empty() {
                ""
            } else {
                " (the ledger alone)"
            };
            println!("MISSED{how}  {} ({}): {}", slip.name, slip.spec, slip.what);
            missed.push(slip.name);
        } else {
            caught += 1;
            let by: Vec<&str> = by.into_iter().collect();
            println!(
                "caught  {} ({}) by {}: {}\n        {}",
                slip.name,
                slip.spec,
                by.join(", "),
                slip.what,
                lines[0]
            );
        }
    }
    // Written to the stream itself, not through println!, so that the line shows in a
    // plain `cargo test` run too (libtest captures only the print macros).
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "privacy mutants: caught {caught} of {}",
        SLIPS.len()
    );
    assert!(
        clean.is_empty(),
        "the build without slips is flagged: {clean:#?}"
    );
    assert!(
        missed.is_empty(),
        "slips not caught beyond the ledger: {missed:?}"
    );
}
