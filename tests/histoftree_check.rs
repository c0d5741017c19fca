//! `check` on the HistOfTree tables (method card `docs/methods/histoftree.md` §10):
//! the paper's cells keyed by setting/method/partition and compared as ratios to DT, the
//! ε inference inherited from the section, the rank sums against those our tables
//! compute, and the claim kinds `best_rank_sum` and `within_factor` — all on selected
//! rows built from the paper's own printed ratios (DT mean = 1), as the paper's numbers
//! are the one case where every answer is known.

use dp_repro::check::{
    compare_rank_sums, compare_reported, epsilon_matches, evaluate_claims, our_rank_sums,
    quiet_lines, AtLeast, CheckReport, Claim, CurvePoint, ReportedSpec, SelectedRow, Verdict,
};
use dp_repro::data::Task;
use dp_repro::spec::raw::TableEntry;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

fn reported_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("specs/reported")
}

fn spec() -> ReportedSpec {
    let text = std::fs::read_to_string(reported_dir().join("histoftree-tables.yaml")).unwrap();
    serde_yaml::from_str(&text).unwrap()
}

fn claims() -> Vec<Claim> {
    let text = std::fs::read_to_string(reported_dir().join("histoftree-claims.yaml")).unwrap();
    serde_yaml::from_str(&text).unwrap()
}

/// One paper cell: table, data set, method key (setting/method/partition), value.
struct PaperCell {
    table: String,
    dataset: String,
    key: String,
    value: f64,
}

fn paper_cells() -> Vec<PaperCell> {
    let mut rdr = csv::Reader::from_path(reported_dir().join("histoftree_tables.csv")).unwrap();
    rdr.records()
        .map(|r| {
            let r = r.unwrap();
            let key = [&r[2], &r[4], &r[5]]
                .iter()
                .filter(|f| !f.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join("/");
            PaperCell {
                table: r[0].to_string(),
                dataset: r[3].to_string(),
                key,
                value: r[6].parse().unwrap(),
            }
        })
        .collect()
}

/// A selected row of 50 repetitions with mean `mean` and a spread of 1 % of it (a private
/// cell whose repetitions all agree is a damaged run, which the check turns red).
fn row(dataset: &str, method: &str, epsilon: Option<f64>, mean: f64) -> SelectedRow {
    SelectedRow {
        dataset: dataset.into(),
        method: method.into(),
        epsilon,
        mean,
        std: 0.01 * mean.abs(),
        median: mean,
        reps: 50,
        params: String::new(),
    }
}

/// Our selected rows = the paper's printed ratios at each table's ε (table
/// `source(ε)` at ε, times `factor(ε)`), DT = 1 (non-private) on every data set. Where
/// the paper prints two Hist values (POR in C3b: 3.21 aligned, 3.31 personalized) our one
/// Hist row takes the aligned one.
fn rows_from_paper(
    source: impl Fn(f64) -> &'static str,
    factor: impl Fn(f64) -> f64,
) -> Vec<SelectedRow> {
    let spec = spec();
    let cells = paper_cells();
    let mut rows: Vec<SelectedRow> = Vec::new();
    let mut datasets: Vec<&str> = cells.iter().map(|c| c.dataset.as_str()).collect();
    datasets.sort_unstable();
    datasets.dedup();
    for d in &datasets {
        rows.push(row(d, "DT", None, 1.0));
    }
    for e in [0.5, 1.0, 2.0, 4.0, 8.0] {
        for c in cells.iter().filter(|c| c.table == source(e)) {
            let label = spec.method_label(&c.key).unwrap();
            if rows
                .iter()
                .any(|r| r.dataset == c.dataset && r.method == label && r.epsilon == Some(e))
            {
                continue;
            }
            rows.push(row(&c.dataset, &label, Some(e), c.value * factor(e)));
        }
    }
    rows
}

/// The table whose cells ε holds when C3a, T1 and C3b sit at `at` = [ε of C3a, of T1, of
/// C3b]; any other ε holds T1's cells.
fn table_at(e: f64, at: [f64; 3]) -> &'static str {
    match at.iter().position(|&a| a == e) {
        Some(0) => "C3a",
        Some(2) => "C3b",
        _ => "T1",
    }
}

/// Under the reported file's `epsilon_reading`: C3a at 1, T1 at 2, C3b at 4.
fn read(e: f64) -> &'static str {
    table_at(e, [1.0, 2.0, 4.0])
}

/// Under the method card's reading, the files' ε column: C3a at 0.5, T1 at 1, C3b at 2.
fn card(e: f64) -> &'static str {
    table_at(e, [0.5, 1.0, 2.0])
}

#[test]
fn every_cell_of_the_papers_own_ratios_is_within_tolerance() {
    let spec = spec();
    // ε 8 is T1's cells 30 % higher: no table is read at ε 8, so it changes nothing here.
    let rows = rows_from_paper(read, |e| if e == 8.0 { 1.3 } else { 1.0 });
    let cells = compare_reported(&spec, &reported_dir(), &rows, &HashMap::new()).unwrap();
    // 360 printed cells; Hist's two blocks print the same value 30 times but POR C3b's
    // 3.21 and 3.31: 360 − 29 cells compared (identical duplicates are checked once).
    assert_eq!(cells.len(), 331);
    let not_ok: Vec<_> = cells.iter().filter(|c| c.verdict != Verdict::Ok).collect();
    assert!(not_ok.is_empty(), "{not_ok:#?}");
    let por = cells
        .iter()
        .find(|c| c.reported_dataset == "POR" && c.method == "Hist" && c.paper == Some(3.31))
        .unwrap();
    assert_eq!(por.ours.unwrap().0, 3.21);
    assert!(por.source.starts_with("histoftree_tables.csv:"));

    // Every ratio 20 % off: outside the 15 % tolerance, each cell is a regression unless
    // a known deviation names it and its band holds ours.
    let rows = rows_from_paper(read, |_| 1.2);
    let cells = compare_reported(&spec, &reported_dir(), &rows, &HashMap::new()).unwrap();
    assert!(cells.iter().all(|c| c.verdict != Verdict::Ok));
    for c in cells
        .iter()
        .filter(|c| c.paper.is_some() && c.ours.is_some())
    {
        let inside = c
            .band
            .is_some_and(|b| b.contains(c.ours.unwrap().0, c.paper.unwrap()));
        match &c.verdict {
            Verdict::KnownDeviation(_) => assert!(inside, "{c:?}"),
            Verdict::Regression => assert!(!inside, "{c:?}"),
            v => panic!("{v:?}: {c:?}"),
        }
    }
    let verdict = |cells: &[dp_repro::check::CellCheck], d: &str, m: &str, e: f64| -> String {
        match &cells
            .iter()
            .find(|c| c.reported_dataset == d && c.method == m && c.epsilon == Some(e))
            .unwrap()
            .verdict
        {
            Verdict::KnownDeviation(r) => r.clone(),
            v => v.name().to_string(),
        }
    };
    assert_eq!(
        verdict(&cells, "DAK", "HistOfTree(ME) A", 2.0),
        "regression"
    );
    assert_eq!(verdict(&cells, "ABA", "Hist", 1.0), "regression");
    // The paper's Hist on POR in C3b (3.21 and 3.31, one per block), read at ε 4, is a
    // known deviation with a ratio band of 0.6 to 6.6 (our 63-row portfolio, measured):
    // 50 % off stays inside it, with the card's reason.
    let rows = rows_from_paper(read, |_| 1.5);
    let cells = compare_reported(&spec, &reported_dir(), &rows, &HashMap::new()).unwrap();
    let por = verdict(&cells, "POR", "Hist", 4.0);
    assert!(por.contains("differs between the two blocks"), "{por}");
    // Under the card's reading the same cells sit one step of ε lower: T1's cells at ε 1
    // are then not where the file reads T1, and are compared with C3a's.
    let rows = rows_from_paper(card, |_| 1.0);
    let cells = compare_reported(&spec, &reported_dir(), &rows, &HashMap::new()).unwrap();
    assert!(cells.iter().any(|c| c.verdict == Verdict::Regression));
}

#[test]
fn the_epsilon_inference_inherits_the_sections_keys_and_ratio() {
    let spec = spec();
    // Ours at the card's reading (C3a's cells at 0.5, T1's at 1, C3b's at 2): the best ε is
    // the file's and disagrees with the file's epsilon_reading.
    let rows = rows_from_paper(card, |e| if e >= 4.0 { 1.3 } else { 1.0 });
    let m = epsilon_matches(&spec, &reported_dir(), &rows, &HashMap::new()).unwrap();
    type Fit<'a> = (&'a str, Option<f64>, Option<f64>, Option<bool>);
    let best: Vec<Fit> = m
        .iter()
        .map(|m| (m.group.as_str(), m.best, m.read, m.agrees()))
        .collect();
    assert_eq!(
        best,
        [
            ("T1", Some(1.0), Some(2.0), Some(false)),
            ("C3a", Some(0.5), Some(1.0), Some(false)),
            ("C3b", Some(2.0), Some(4.0), Some(false)),
        ]
    );
    assert!(m[0]
        .summary_line()
        .starts_with("ε match T1: best ε = 1 (file states 1, read at 2, DISAGREES)"));
    // Ours shifted by a factor 2 in ε (C3a's cells at 1, T1's at 2, C3b's at 4): the
    // reading's own ε are the best, and agree.
    let rows = rows_from_paper(read, |e| if e == 0.5 { 1.5 } else { 1.0 });
    let m = epsilon_matches(&spec, &reported_dir(), &rows, &HashMap::new()).unwrap();
    let best: Vec<(Option<f64>, Option<bool>)> = m.iter().map(|m| (m.best, m.agrees())).collect();
    assert_eq!(
        best,
        [
            (Some(2.0), Some(true)),
            (Some(1.0), Some(true)),
            (Some(4.0), Some(true))
        ]
    );
}

/// The spec tables T1, C3a, C3b as the binding contract names them: one ε each, blocks
/// Aligned (tie = worst place) and Personalized (tie = best place), ratios to DT.
fn table(name: &str, epsilon: f64) -> TableEntry {
    let yaml = format!(
        "name: {name}\nepsilons: [{epsilon}]\nblocks:\n  - {{label: Aligned, methods: [HistOfTree(ME) A, HistOfTree(CART) A, ParDT A, Hist, KRR A], rank_ties: max}}\n  - {{label: Personalized, methods: [HistOfTree(ME) P, HistOfTree(CART) P, AdHistOfTree(ME) P, AdHistOfTree(CART) P, ParDT P, Hist, KRR P], rank_ties: min}}\nmarks: star_significant\nsummary_rows: [rank_sum]\nvalue: {{ratio_to: DT}}\n"
    );
    serde_yaml::from_str(&yaml).unwrap()
}

fn our_sums(rows: &[SelectedRow]) -> HashMap<String, HashMap<(String, String, String), f64>> {
    let mut datasets: Vec<String> = rows.iter().map(|r| r.dataset.clone()).collect();
    datasets.sort();
    datasets.dedup();
    [("T1", 2.0), ("C3a", 1.0), ("C3b", 4.0)]
        .into_iter()
        .map(|(name, e)| {
            let sums =
                our_rank_sums(&table(name, e), &datasets, rows, Task::Regression, "t").unwrap();
            (name.to_string(), sums)
        })
        .collect()
}

#[test]
fn rank_sums_of_the_papers_own_ratios_equal_the_printed_ones() {
    let spec = spec();
    let rows = rows_from_paper(read, |_| 1.0);
    let checks = compare_rank_sums(&spec, &reported_dir(), &our_sums(&rows)).unwrap();
    assert_eq!(checks.len(), 36);
    // Exact everywhere but C3b's personalized block, where the paper ranks POR's Hist at
    // 3.31 and our one Hist row is the aligned block's 3.21.
    let differ: Vec<String> = checks
        .iter()
        .filter(|c| c.ours != Some(c.paper))
        .map(|c| c.line())
        .collect();
    assert!(
        differ.iter().all(|l| l.contains("C3b (ε 4) Personalized")),
        "{differ:#?}"
    );
    assert!(differ.len() <= 2, "{differ:#?}");
    assert!(checks.iter().all(|c| c.verdict == Verdict::Ok));
    let t1 = checks
        .iter()
        .find(|c| c.table == "T1" && c.method == "HistOfTree(CART) A")
        .unwrap();
    assert_eq!(
        t1.line(),
        "rank sum T1 (ε 2) Aligned HistOfTree(CART) A: paper 15, ours 15 — ok (histoftree_ranksum.csv:3)"
    );

    // ParDT A made the best aligned method of every data set at T1's ε 2: its rank sum falls
    // from 28 to 10, beyond the tolerance of 6: a regression, in --quiet too.
    let mut rows = rows;
    for r in rows
        .iter_mut()
        .filter(|r| r.method == "ParDT A" && r.epsilon == Some(2.0))
    {
        r.mean = 0.01;
    }
    let checks = compare_rank_sums(&spec, &reported_dir(), &our_sums(&rows)).unwrap();
    let pardt = checks
        .iter()
        .find(|c| c.table == "T1" && c.method == "ParDT A")
        .unwrap();
    assert_eq!((pardt.paper, pardt.ours), (28.0, Some(10.0)));
    assert_eq!(pardt.verdict, Verdict::Regression);
    let report = CheckReport {
        rank_sums: checks,
        ..CheckReport::default()
    };
    assert!(report.regressed());
    let lines = quiet_lines(&report, "t");
    assert!(
        lines
            .iter()
            .any(|l| l
                .starts_with("regression: rank sum T1 (ε 2) Aligned ParDT A: paper 28, ours 10"))
    );
    assert!(lines.last().unwrap().contains("Rank sums: 36"));
}

/// The rank-sum known deviations: a band around the full run's sum, measured from its
/// near ties. Inside it the sum is a known deviation with its reason, outside a regression.
#[test]
fn a_rank_sum_outside_its_measured_band_is_a_regression() {
    let spec = spec();
    let rows = rows_from_paper(read, |_| 1.0);
    let key = (
        "2".to_string(),
        "Personalized".to_string(),
        "AdHistOfTree(ME) P".to_string(),
    );
    let verdict_at = |sum: f64| {
        let mut sums = our_sums(&rows);
        sums.get_mut("T1").unwrap().insert(key.clone(), sum);
        let checks = compare_rank_sums(&spec, &reported_dir(), &sums).unwrap();
        checks
            .into_iter()
            .find(|c| c.table == "T1" && c.method == "AdHistOfTree(ME) P")
            .unwrap()
            .verdict
    };
    // The paper prints 15; the full run gave 41, with a band of 31 to 51.
    assert_eq!(verdict_at(20.0), Verdict::Ok);
    match verdict_at(41.0) {
        Verdict::KnownDeviation(r) => assert!(r.contains("AdHistOfTree ranks first"), "{r}"),
        v => panic!("{v:?}"),
    }
    assert_eq!(verdict_at(30.0), Verdict::Regression);
    assert_eq!(verdict_at(60.0), Verdict::Regression);
}

#[test]
fn the_claims_file_holds_on_the_papers_own_ratios_with_the_papers_counts() {
    let rows = rows_from_paper(read, |_| 1.0);
    let claims = claims();
    let checks = evaluate_claims(&claims, &rows, &[], &[], true);
    let by_id: BTreeMap<&str, (bool, usize, usize)> = checks
        .iter()
        .map(|c| (c.label.as_str(), (c.holds, c.count, c.out_of)))
        .collect();
    for c in &checks {
        assert!(
            c.holds,
            "{} fails on the paper's values: {}",
            c.label, c.details
        );
    }
    // The paper's own counts : AdHistOfTree within 1.10 on 10, 10, 8;
    // CART < ME aligned strictly on 7, 7; ME ≤ CART personalized on 10, 8, 6 as printed.
    for (id, count) in [
        ("adhistoftree-close-C3a", 10),
        ("adhistoftree-close-T1", 10),
        ("adhistoftree-close-C3b", 8),
        ("cart-beats-me-aligned-T1", 7),
        ("cart-beats-me-aligned-C3b", 7),
        ("me-not-worse-personalized-C3a", 10),
        ("me-not-worse-personalized-T1", 8),
        ("me-not-worse-personalized-C3b", 6),
    ] {
        assert_eq!(by_id[id], (true, count, 10), "{id}");
    }
    assert_eq!(by_id["rank-sum-aligned-T1"], (true, 1, 1));
    let rs = checks
        .iter()
        .find(|c| c.label == "rank-sum-personalized-C3a")
        .unwrap();
    assert!(
        rs.details
            .contains("AdHistOfTree(ME) P 11*, AdHistOfTree(CART) P 12"),
        "{}",
        rs.details
    );
}

fn best_rank_sum(ties: &str) -> Claim {
    serde_yaml::from_str(&format!(
        "claim: best_rank_sum\nmethods: [X]\namong: [X, Y, Z]\nepsilon: 1\nties: {ties}\nratio_to: D\n"
    ))
    .unwrap()
}

/// Hand-made: on data sets a, b, c (D = 2), X and Y tie as printed on a, Y beats X on b,
/// X beats Y on c; Z is worst but on c.
fn hand_rows(x_on_c: f64) -> Vec<SelectedRow> {
    let mut rows = Vec::new();
    for (d, x, y, z) in [
        ("a", 2.0, 2.001, 8.0),
        ("b", 3.0, 2.5, 8.0),
        ("c", x_on_c, 4.0, 1.0),
    ] {
        rows.push(row(d, "D", None, 2.0));
        rows.push(row(d, "X", Some(1.0), x));
        rows.push(row(d, "Y", Some(1.0), y));
        rows.push(row(d, "Z", Some(1.0), z));
    }
    rows
}

#[test]
fn best_rank_sum_ranks_printed_ratios_with_the_tie_rule() {
    // Ratios a: X 1.00, Y 1.00 (tied as printed), Z 4.00; b: Y 1.25 < X 1.50 < Z 4.00;
    // c: Z 0.50 < X 1.50 < Y 2.00.
    // max: a X 2, Y 2, Z 3; b X 2, Y 1, Z 3; c X 2, Y 3, Z 1 → X 6, Y 6, Z 7: X ties Y, holds.
    // min: a X 1, Y 1 → X 5, Y 5, Z 7: holds.
    for ties in ["max", "min"] {
        let c = evaluate_claims(&[best_rank_sum(ties)], &hand_rows(3.0), &[], &[], true);
        assert!(c[0].holds, "{ties}: {}", c[0].details);
    }
    let c = evaluate_claims(&[best_rank_sum("max")], &hand_rows(3.0), &[], &[], true);
    assert_eq!(c[0].details, "rank sums over 3 data sets: X 6*, Y 6*, Z 7");
    // X worst on c (ratio 5): X 7, Y 5 under max → fails, the details say why.
    let c = evaluate_claims(&[best_rank_sum("max")], &hand_rows(10.0), &[], &[], true);
    assert!(!c[0].holds);
    assert!(c[0].regressed());
    assert_eq!(c[0].details, "rank sums over 3 data sets: X 7, Y 5*, Z 7");
    // Ranked on unrounded means instead, a is no tie (X 2 < Y 2.001): X 5, Y 6.
    let means: Claim = serde_yaml::from_str(
        "claim: best_rank_sum\nmethods: [X]\namong: [X, Y, Z]\nepsilon: 1\nties: max\n",
    )
    .unwrap();
    let c = evaluate_claims(&[means], &hand_rows(3.0), &[], &[], true);
    assert_eq!(c[0].details, "rank sums over 3 data sets: X 5*, Y 6, Z 7");
}

#[test]
fn within_factor_on_rows_and_on_figure_curves() {
    let claim = |factor: f64, at_least: &str| -> Claim {
        serde_yaml::from_str(&format!(
            "claim: within_factor\nmethod: X\nof: [Y, Z]\nfactor: {factor}\nepsilon: 1\nat_least: {at_least}\n"
        ))
        .unwrap()
    };
    // X / best of (Y, Z): a 2/2.001 ≈ 1.0, b 3/2.5 = 1.2, c 3/1 = 3.
    let rows = hand_rows(3.0);
    let c = evaluate_claims(&[claim(1.0, "1")], &rows, &[], &[], true);
    assert_eq!((c[0].holds, c[0].count, c[0].out_of), (true, 1, 3));
    let c = evaluate_claims(&[claim(1.25, "2"), claim(1.15, "2")], &rows, &[], &[], true);
    assert_eq!((c[0].holds, c[0].count), (true, 2));
    assert_eq!((c[1].holds, c[1].count), (false, 1));
    assert!(c[1].details.contains("b (X 3"), "{}", c[1].details);
    let c = evaluate_claims(&[claim(3.0, "all")], &rows, &[], &[], true);
    assert!(c[0].holds);
    assert_eq!(claim(3.0, "all").at_least(), AtLeast::All);

    // On a figure: X against the best of Y, Z at every x (and ε) where both have a point.
    let pt = |x: f64, line: &str, mean: f64| CurvePoint {
        figure: "f".into(),
        dataset: "s".into(),
        x,
        line: line.into(),
        method: line.into(),
        epsilon: Some(4.0),
        mean,
    };
    let curves = vec![
        pt(0.5, "X", 1.1),
        pt(0.5, "Y", 1.0),
        pt(0.5, "Z", 1.5),
        pt(1.0, "X", 0.9),
        pt(1.0, "Y", 1.0),
        pt(2.0, "X", 5.0), // no competitor at x = 2: not compared
    ];
    let fig = |factor: f64| -> Claim {
        serde_yaml::from_str(&format!(
            "claim: within_factor\nfigure: f\nmethod: X\nof: [Y, Z]\nfactor: {factor}\nat_least: all\n"
        ))
        .unwrap()
    };
    // Data sets are those of selected.csv, where the figure's data set has its rows.
    let selected = [row("s", "X", Some(4.0), 1.0)];
    let c = evaluate_claims(&[fig(1.1), fig(1.05)], &selected, &[], &curves, true);
    assert_eq!((c[0].holds, c[0].out_of), (true, 1), "{}", c[0].details);
    assert!(!c[1].holds);
    assert!(
        c[1].details.contains("x = 0.5 ε 4: X 1.1"),
        "{}",
        c[1].details
    );
}

#[test]
fn bad_new_claims_and_sections_name_the_field() {
    use dp_repro::check::validate_claims;
    for (yaml, field) in [
        (
            "claim: best_rank_sum\nmethods: [W]\namong: [X, Y]\nepsilon: 1\nties: min\n",
            "claims[0].methods",
        ),
        (
            "claim: within_factor\nmethod: X\nof: [X]\nfactor: 1\nat_least: 1\n",
            "claims[0].of",
        ),
        (
            "claim: within_factor\nmethod: X\nof: [Y]\nfactor: 0\nat_least: 1\n",
            "claims[0].factor",
        ),
        (
            "claim: within_factor\nmethod: X\nof: [Y]\nfactor: 1\nfigure: f\nratio_to: D\nat_least: 1\n",
            "claims[0].ratio_to",
        ),
    ] {
        let c: Claim = serde_yaml::from_str(yaml).unwrap();
        let e = validate_claims(&[c]).unwrap_err().to_string();
        assert!(e.contains(field), "{yaml}: {e}");
    }
    assert!(serde_yaml::from_str::<Claim>(
        "claim: best_rank_sum\nmethods: [X]\namong: [X, Y]\nepsilon: 1\nties: median\n"
    )
    .is_err());

    let mut s = spec();
    s.rank_sums.as_mut().unwrap().table = Some("T1".into());
    let e = compare_rank_sums(&s, &reported_dir(), &HashMap::new())
        .unwrap_err()
        .to_string();
    assert!(e.contains("reported.rank_sums.table"), "{e}");
    let mut s = spec();
    s.methods = Some(BTreeMap::new());
    let e = compare_reported(&s, &reported_dir(), &[], &HashMap::new())
        .unwrap_err()
        .to_string();
    assert!(e.contains("reported.methods"), "{e}");
}

// ------------------------------------------------------------------ Figure 2's synthetic

#[test]
fn semi_feature_sine_has_its_regression_function_and_noise_law() {
    use dp_repro::data::{semi_feature_sine, semi_feature_sine_mean};
    // f(x) = (1/d) Σ sin(2π x_j) at hand-computed points.
    assert!((semi_feature_sine_mean(&[0.25]) - 1.0).abs() < 1e-12);
    assert!(semi_feature_sine_mean(&[0.25, 0.75]).abs() < 1e-12);
    assert!((semi_feature_sine_mean(&[0.25, 0.25, 0.75]) - 1.0 / 3.0).abs() < 1e-12);
    assert!(semi_feature_sine_mean(&[0.0, 0.5]).abs() < 1e-12);

    let (n, d, sigma) = (200_000usize, 3usize, 0.5f64);
    let mut rng = dp_repro::run::seeds::stream(7, &["test", "semi_feature_sine"]);
    let data = semi_feature_sine("s", n, d, sigma, &mut rng);
    assert_eq!((data.n(), data.x.d), (n, d));
    let nf = n as f64;
    // Features: U[0,1), column means within 5 sd = 5·√(1/12 / n) of 1/2.
    for j in 0..d {
        let col: Vec<f64> = (0..n).map(|i| data.x.get(i, j)).collect();
        assert!(col.iter().all(|v| (0.0..1.0).contains(v)));
        let mean = col.iter().sum::<f64>() / nf;
        assert!(
            (mean - 0.5).abs() < 5.0 * (1.0 / 12.0 / nf).sqrt(),
            "column {j}: {mean}"
        );
    }
    // Residuals Y − f(X) ~ N(0, σ²): mean within 5 σ/√n of 0; sample variance within
    // 5 sd of σ², sd = σ²·√(2/(n − 1)) for normal data; fourth moment 3σ⁴ within 5 sd,
    // sd = σ⁴·√(96/n) (Var of e⁴ = 105σ⁸ − 9σ⁸).
    let r: Vec<f64> = (0..n)
        .map(|i| data.y[i] - semi_feature_sine_mean(data.x.row(i)))
        .collect();
    let mean = r.iter().sum::<f64>() / nf;
    assert!(mean.abs() < 5.0 * sigma / nf.sqrt(), "{mean}");
    let var = r.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (nf - 1.0);
    let s2 = sigma * sigma;
    assert!(
        (var - s2).abs() < 5.0 * s2 * (2.0 / (nf - 1.0)).sqrt(),
        "{var}"
    );
    let m4 = r.iter().map(|e| e.powi(4)).sum::<f64>() / nf;
    assert!(
        (m4 - 3.0 * s2 * s2).abs() < 5.0 * s2 * s2 * (96.0 / nf).sqrt(),
        "{m4}"
    );
    // Seeded: the same stream draws the same data.
    let mut again = dp_repro::run::seeds::stream(7, &["test", "semi_feature_sine"]);
    assert_eq!(
        semi_feature_sine("s", 50, d, sigma, &mut again).y,
        data.y[..50]
    );
}

#[test]
fn a_spec_with_semi_feature_sine_runs_and_bad_parameters_exit_2() {
    let spec = "name: sfs\nseed: 3\nrepetitions: 2\ndatasets:\n  - {name: s, synthetic: {semi_feature_sine: {d: 3}}, sizes: {public: 0, private: 400, test: 100}}\nepsilons: [1]\nmethods:\n  - method: DT\n    grid: {max_depth: [2, 4]}\n";
    let dir = tempfile::tempdir().unwrap();
    let run = |text: &str, args: &[&str]| {
        std::fs::write(dir.path().join("spec.yaml"), text).unwrap();
        let out = assert_cmd::Command::cargo_bin("dp-repro")
            .unwrap()
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(spec, &["run", "spec.yaml", "--quiet", "--out", "out"]);
    assert_eq!(code, 0, "{err}");
    let runs = std::fs::read_to_string(dir.path().join("out/runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 2 * 2, "{runs}");
    for (from, to, field) in [
        (
            "{d: 3}",
            "{d: 3, sigma: -1}",
            "datasets[0].synthetic.semi_feature_sine.sigma",
        ),
        (
            "{d: 3}",
            "{d: 0}",
            "datasets[0].synthetic.semi_feature_sine.d",
        ),
        ("{d: 3}", "{d: 3, tau: 1}", "semi_feature_sine"),
    ] {
        let (code, err) = run(&spec.replace(from, to), &["validate", "spec.yaml"]);
        assert_eq!(code, 2, "{to}: {err}");
        assert!(err.contains(field), "{to}: {err}");
    }
}
