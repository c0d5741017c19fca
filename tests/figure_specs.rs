//! The figure specs of LPCT Fig. 4(c) and DiPriMe Figs. 4, 5 and 6: each validates, the
//! cheap ones run and render at two repetitions, and a claim of Fig. 6 turns red when the
//! numbers it reads are made wrong.

mod common;

use std::fs;

use common::dp_repro_with_data as run;

#[test]
fn the_four_figure_specs_validate() {
    let (code, out, err) = run(None, &["validate", "specs/lpct/figure4c.yaml"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2,040,000 tasks"), "{out}");
    let Some(data) = common::real_data(&["appliances.csv", "banknote.csv"]) else {
        return;
    };
    for spec in [
        "specs/diprime/figure4.yaml",
        "specs/diprime/figure5.yaml",
        "specs/diprime/figure6.yaml",
    ] {
        let (code, _, err) = run(Some(&data), &["validate", spec]);
        assert_eq!(code, 0, "{spec}: {err}");
    }
}

/// Fig. 4(c) at two repetitions: one row per γ in the table, one figure per γ, and the
/// claims checked.
#[test]
fn figure_4c_renders_a_row_per_gamma() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    let (code, _, err) = run(
        None,
        &[
            "run",
            "specs/lpct/figure4c.yaml",
            "--reps",
            "2",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let table = fs::read_to_string(out.join("table-figure4c.md")).unwrap();
    for g in ["0.5", "0.75", "1", "1.25", "1.5", "2"] {
        assert!(table.contains(&format!("γ = {g} |")), "γ = {g}: {table}");
    }
    let figures = fs::read_dir(out.join("figures")).unwrap().count();
    assert!(figures >= 6, "{figures} files in figures/");
    // Its five claims (accuracy falls with γ at each ε) are evaluated; at two repetitions
    // they may fail on noise, so only their presence is asserted here (their logic is
    // tested in tests/check.rs).
    let (code, _, err) = run(
        None,
        &[
            "check",
            "specs/lpct/figure4c.yaml",
            "--reps",
            "2",
            "--quiet",
            "--results",
            out.to_str().unwrap(),
        ],
    );
    assert!(code == 0 || code == 1, "{err}");
    let md = fs::read_to_string(out.join("check.md")).unwrap();
    for e in ["0.5", "1", "2", "4", "8"] {
        assert!(
            md.contains(&format!("F4c-accuracy-falls-with-gamma-eps{e}")),
            "{md}"
        );
    }
}

/// Fig. 6's claims hold on a correct run; DiPriMe's accuracy at ε = 300 made 0.1 lower
/// (about 0.98 → 0.88, below 1/1.05 of the non-private forests' ≈ 0.99) breaks
/// "comparable performance as ε increases".
#[test]
fn a_figure_6_claim_turns_red_on_a_scaled_error() {
    let Some(data) = common::real_data(&["banknote.csv"]) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("r");
    let r = results.to_str().unwrap();
    let check = |extra: &[&str]| {
        let mut a = vec![
            "check",
            "specs/diprime/figure6.yaml",
            "--results",
            r,
            "--quiet",
        ];
        a.extend_from_slice(extra);
        run(Some(&data), &a)
    };
    let (code, out, err) = check(&["--reps", "2"]);
    assert_eq!(code, 0, "{out}{err}");
    let runs = fs::read_to_string(results.join("runs.csv")).unwrap();
    let mut lines = runs.lines();
    let header = lines.next().unwrap();
    let cols: Vec<&str> = header.split(',').collect();
    let col = |name: &str| cols.iter().position(|c| *c == name).unwrap();
    let (m, e, v) = (col("method"), col("epsilon"), col("value"));
    let mut scaled = 0;
    let mut text = format!("{header}\n");
    for l in lines {
        let mut f: Vec<String> = l.split(',').map(String::from).collect();
        if f[m] == "DiPriMe" && f[e].parse::<f64>().ok() == Some(300.0) {
            let a: f64 = f[v].parse().unwrap();
            f[v] = (a - 0.1).to_string();
            scaled += 1;
        }
        text.push_str(&f.join(","));
        text.push('\n');
    }
    assert!(scaled > 0, "no DiPriMe row at ε 300");
    fs::write(results.join("runs.csv"), text).unwrap();
    let (code, out, err) = check(&["--reps", "2"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("F6-comparable-DiPriMe"), "{out}");
}
