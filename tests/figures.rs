//! Figures (`figures:` spec section): a run renders SVG, PNG and a tidy CSV per figure ×
//! data set; the plotted points are checked against means computed here independently
//! from runs.csv and selected.csv, the parameter axis against a brute-force oracle per
//! slice, and the quantile band on a hand-made case.

use assert_cmd::Command;
use dp_repro::report::figure::{
    build_panels, quantile, read_selected, render_figures, validate_figures, FigureContext,
    FigureSpec, MethodInfo, SelectedRow,
};
use dp_repro::run::RunRow;
use dp_repro::spec::FieldError;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const SPEC: &str = r#"
name: tiny-figures
seed: 11
repetitions: 5
datasets:
  - name: sine
    synthetic: lpdt_sine
    sizes: {public: 200, private: 800, test: 300}
epsilons: [1, 4]
methods:
  - method: DT
    grid: {max_depth: [2, 4]}
  - method: LPDT-M
    grid: {depth: [1, 2, 3], min_leaf: [5, 20], rho: [0.3, 0.5]}
  - method: PHIST
    grid: {bins: [4, 2], t: [0.05]}
figures:
  - name: by-eps
    title: "MSE against epsilon"
    x: epsilon
    y: {log_scale: true}
    methods: [LPDT-M, PHIST, DT]
    band: [0.1, 0.9]
  - name: by-depth
    x: {parameter: depth}
    methods: [LPDT-M]
    lines: per_epsilon
    band: [0.25, 0.75]
    legend: upper_middle
"#;

/// Runs the tiny spec once per test binary into a temporary folder; returns the folder.
fn results() -> &'static Path {
    use std::sync::OnceLock;
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let spec = tmp.path().join("spec.yaml");
        fs::write(&spec, SPEC).unwrap();
        let out = tmp.path().join("out");
        let o = Command::cargo_bin("dp-repro")
            .unwrap()
            .current_dir(root())
            .env_remove("DP_REPRO_DATA")
            .args([
                "run",
                spec.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--quiet",
            ])
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "run failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        tmp
    })
    .path()
}

fn out() -> PathBuf {
    results().join("out")
}

/// CSV rows as header → value maps.
fn read_csv(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut rdr = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
    rdr.records()
        .map(|r| {
            let r = r.unwrap();
            header
                .iter()
                .cloned()
                .zip(r.iter().map(String::from))
                .collect()
        })
        .collect()
}

/// ε text in the short form of selected.csv and the figure CSVs (runs.csv writes `1.0`).
fn eps_text(e: &str) -> String {
    if e.is_empty() {
        String::new()
    } else {
        e.parse::<f64>().unwrap().to_string()
    }
}

/// (dataset, method, ε text, params) → repetition → value, from runs.csv.
fn runs_by_point(out: &Path) -> BTreeMap<(String, String, String, String), BTreeMap<usize, f64>> {
    let mut m: BTreeMap<_, BTreeMap<usize, f64>> = BTreeMap::new();
    for r in read_csv(&out.join("runs.csv")) {
        assert_eq!(r["metric"], "mse");
        m.entry((
            r["dataset"].clone(),
            r["method"].clone(),
            eps_text(&r["epsilon"]),
            r["params"].clone(),
        ))
        .or_default()
        .insert(
            r["repetition"].parse().unwrap(),
            r["value"].parse().unwrap(),
        );
    }
    m
}

fn mean(v: &BTreeMap<usize, f64>) -> f64 {
    v.values().sum::<f64>() / v.len() as f64
}

/// Type-7 quantile written independently of the library: the order statistic of rank
/// 1 + (n − 1)p (1-based), interpolated linearly.
fn type7(values: &BTreeMap<usize, f64>, p: f64) -> f64 {
    let mut v: Vec<f64> = values.values().cloned().collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let rank = 1.0 + (v.len() as f64 - 1.0) * p;
    let below = rank.floor() as usize;
    let above = rank.ceil() as usize;
    v[below - 1] + (rank - below as f64) * (v[above - 1] - v[below - 1])
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

/// A small XML well-formedness check: every start tag is closed in order.
fn tags_balanced(svg: &str) -> bool {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        let Some(j) = rest[i..].find('>') else {
            return false;
        };
        let tag = &rest[i + 1..i + j];
        rest = &rest[i + j + 1..];
        if tag.starts_with('?') || tag.starts_with('!') || tag.ends_with('/') {
            continue;
        }
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| !c.is_whitespace())
            .collect();
        if tag.starts_with('/') {
            if stack.pop().as_deref() != Some(name.as_str()) {
                return false;
            }
        } else {
            stack.push(name);
        }
    }
    stack.is_empty()
}

fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.len() < 33 || bytes[..8] != [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A] {
        return None;
    }
    if &bytes[12..16] != b"IHDR" || !bytes.ends_with(&[0xAE, 0x42, 0x60, 0x82]) {
        return None;
    }
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    Some((be(&bytes[16..20]), be(&bytes[20..24])))
}

#[test]
fn a_run_writes_valid_svg_png_and_csv_per_figure_and_data_set() {
    let dir = out().join("figures");
    for (stem, labels) in [
        (
            "by-eps-sine",
            vec!["LPDT-M", "PHIST", "DT (non-private)", "MSE against epsilon"],
        ),
        ("by-depth-sine", vec!["ε = 1", "ε = 4", "depth"]),
    ] {
        let png = fs::read(dir.join(format!("{stem}.png"))).unwrap();
        assert_eq!(
            png_size(&png),
            Some((960, 620)),
            "{stem}.png: not a 960×620 PNG"
        );
        // A blank white image compresses to a few hundred bytes; lines, bands and
        // text make tens of kilobytes.
        assert!(png.len() > 10_000, "{stem}.png is only {} bytes", png.len());
        let svg = fs::read_to_string(dir.join(format!("{stem}.svg"))).unwrap();
        assert!(svg.trim_start().starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(tags_balanced(&svg), "{stem}.svg is not well formed");
        assert!(svg.contains(r#"width="960""#) && svg.contains(r#"height="620""#));
        for l in labels {
            assert!(svg.contains(l), "{stem}.svg lacks the text `{l}`");
        }
        assert!(svg.contains("<polygon"), "{stem}.svg has no quantile band");
        let csv = fs::read_to_string(dir.join(format!("{stem}.csv"))).unwrap();
        assert_eq!(
            csv.lines().next().unwrap(),
            "figure,dataset,x,line,method,epsilon,mean,lo,hi,reps,params,source"
        );
    }
    // Exactly these files: three per figure × data set.
    let names: BTreeSet<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 6, "{names:?}");
}

#[test]
fn epsilon_axis_plots_the_selected_grid_points_mean_and_band() {
    let out = out();
    let runs = runs_by_point(&out);
    let selected: BTreeMap<(String, String), (String, f64)> = read_csv(&out.join("selected.csv"))
        .into_iter()
        .map(|r| {
            (
                (r["method"].clone(), eps_text(&r["epsilon"])),
                (r["params"].clone(), r["mean"].parse().unwrap()),
            )
        })
        .collect();
    let rows = read_csv(&out.join("figures/by-eps-sine.csv"));
    // 3 methods × 2 ε (DT, non-private, is drawn at every ε).
    assert_eq!(rows.len(), 6);
    for r in &rows {
        let method = &r["method"];
        let eps = if method == "DT" { "" } else { r["x"].as_str() };
        assert_eq!(r["epsilon"], eps);
        let (params, sel_mean) = &selected[&(method.clone(), eps.to_string())];
        assert_eq!(&r["params"], params, "{method} at ε = {}", r["x"]);
        let values = &runs[&("sine".into(), method.clone(), eps.into(), params.clone())];
        let m: f64 = r["mean"].parse().unwrap();
        assert!(
            close(m, mean(values)),
            "{method} ε={}: {m} vs {}",
            r["x"],
            mean(values)
        );
        assert!(close(m, *sel_mean));
        assert_eq!(r["reps"], "5");
        let (lo, hi): (f64, f64) = (r["lo"].parse().unwrap(), r["hi"].parse().unwrap());
        assert!(
            close(lo, type7(values, 0.1)),
            "lo {lo} vs {}",
            type7(values, 0.1)
        );
        assert!(
            close(hi, type7(values, 0.9)),
            "hi {hi} vs {}",
            type7(values, 0.9)
        );
        assert!(lo <= hi);
    }
    let xs: BTreeSet<&str> = rows.iter().map(|r| r["x"].as_str()).collect();
    assert_eq!(xs, BTreeSet::from(["1", "4"]));
}

#[test]
fn parameter_axis_picks_the_best_mean_within_each_slice() {
    let out = out();
    let runs = runs_by_point(&out);
    let rows = read_csv(&out.join("figures/by-depth-sine.csv"));
    assert_eq!(rows.len(), 2 * 3, "2 ε × 3 depths");
    for eps in ["1", "4"] {
        for depth in ["1", "2", "3"] {
            // Brute force: every LPDT-M grid point with this depth at this ε.
            let best = runs
                .iter()
                .filter(|((d, m, e, p), _)| {
                    d == "sine"
                        && m == "LPDT-M"
                        && e == eps
                        && p.split(';').any(|kv| kv == format!("depth={depth}"))
                })
                .map(|((_, _, _, p), v)| (mean(v), p.clone(), v))
                .min_by(|a, b| a.0.partial_cmp(&b.0).unwrap())
                .unwrap();
            let r = rows
                .iter()
                .find(|r| r["epsilon"] == eps && r["x"] == depth)
                .unwrap_or_else(|| panic!("no point at ε = {eps}, depth = {depth}"));
            assert_eq!(r["line"], format!("ε = {eps}"));
            assert_eq!(r["params"], best.1, "ε = {eps}, depth = {depth}");
            assert!(close(r["mean"].parse().unwrap(), best.0));
            assert!(close(r["lo"].parse().unwrap(), type7(best.2, 0.25)));
            assert!(close(r["hi"].parse().unwrap(), type7(best.2, 0.75)));
        }
    }
}

#[test]
fn table_command_rebuilds_the_figures_from_runs_csv() {
    // Copy the results so the shared folder of the other tests is left alone.
    let tmp = tempfile::tempdir().unwrap();
    for f in ["runs.csv", "spec.yaml", "run.json"] {
        if out().join(f).exists() {
            fs::copy(out().join(f), tmp.path().join(f)).unwrap();
        }
    }
    let o = Command::cargo_bin("dp-repro")
        .unwrap()
        .current_dir(root())
        .args(["table", tmp.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for stem in ["by-eps-sine", "by-depth-sine"] {
        let a = fs::read_to_string(out().join(format!("figures/{stem}.csv"))).unwrap();
        let b = fs::read_to_string(tmp.path().join(format!("figures/{stem}.csv"))).unwrap();
        assert_eq!(a, b, "{stem}.csv differs after `dp-repro table`");
        assert!(tmp.path().join(format!("figures/{stem}.png")).exists());
    }
}

// ---- library-level checks on hand-made results ----

fn row(method: &str, eps: Option<f64>, params: &str, rep: usize, value: f64) -> RunRow {
    RunRow {
        task: format!("{method}-{params}-{rep}"),
        dataset: "toy".into(),
        method: method.into(),
        params: params.into(),
        epsilon: eps,
        repetition: rep,
        metric: "mse".into(),
        value,
        seconds: 0.0,
    }
}

fn toy_context() -> FigureContext {
    FigureContext {
        datasets: vec!["toy".into()],
        epsilons: vec![1.0, 2.0],
        methods: vec![MethodInfo {
            label: "M".into(),
            private: true,
            params: vec![
                ("a".into(), vec!["1".into(), "2".into()]),
                ("b".into(), vec!["1".into(), "2".into()]),
            ],
        }],
        lower_is_better: true,
        selection: "best_mean".into(),
        sizes: Default::default(),
        base: Default::default(),
    }
}

fn figure(yaml: &str) -> FigureSpec {
    serde_yaml::from_str(yaml).unwrap()
}

/// At ε = 1: grid point a=1;b=1 has values 1..=10 (mean 5.5), a=1;b=2 has 11..=20,
/// a=2;b=1 has 10 × (1..=10), a=2;b=2 has 3..=12 (mean 7.5). At ε = 2 every value is
/// halved.
fn toy_runs() -> Vec<RunRow> {
    let mut rows = Vec::new();
    for (eps, f) in [(1.0, 1.0), (2.0, 0.5)] {
        for rep in 1..=10 {
            let r = rep as f64;
            rows.push(row("M", Some(eps), "a=1;b=1", rep, f * r));
            rows.push(row("M", Some(eps), "a=1;b=2", rep, f * (r + 10.0)));
            rows.push(row("M", Some(eps), "a=2;b=1", rep, f * 10.0 * r));
            rows.push(row("M", Some(eps), "a=2;b=2", rep, f * (r + 2.0)));
        }
    }
    rows
}

#[test]
fn quantile_band_bounds_on_a_hand_made_case() {
    // NumPy: np.quantile([1..10], [0.1, 0.9]) = [1.9, 9.1]; np.quantile([1,2,3,4], 0.1)
    // = 1.3; np.quantile([1, 3], 0.25) = 1.5.
    let v: Vec<f64> = (1..=10).map(f64::from).collect();
    assert!(close(quantile(&v, 0.1), 1.9));
    assert!(close(quantile(&v, 0.9), 9.1));
    assert!(close(quantile(&[1.0, 2.0, 3.0, 4.0], 0.1), 1.3));
    assert_eq!(quantile(&[1.0, 3.0], 0.25), 1.5);
    assert_eq!(quantile(&[7.0], 0.1), 7.0);
    assert_eq!(quantile(&v, 0.0), 1.0);
    assert_eq!(quantile(&v, 1.0), 10.0);
    assert!(quantile(&[], 0.5).is_nan());

    let selected = vec![
        SelectedRow {
            dataset: "toy".into(),
            method: "M".into(),
            epsilon: Some(1.0),
            params: "a=1;b=1".into(),
            mean: 0.5,
            std: 0.0,
            median: 0.5,
            reps: 10,
        },
        SelectedRow {
            dataset: "toy".into(),
            method: "M".into(),
            epsilon: Some(2.0),
            params: "a=1;b=1".into(),
            mean: 0.4,
            std: 0.0,
            median: 0.4,
            reps: 10,
        },
    ];
    let fig = figure("{name: f, x: epsilon, methods: [M], band: [0.1, 0.9]}");
    let panels = build_panels(&fig, &toy_runs(), &selected, &toy_context(), &[]);
    assert_eq!(panels.len(), 1);
    let pts = &panels[0].lines[0].points;
    assert_eq!(pts.len(), 2);
    assert_eq!((pts[0].x, pts[1].x), (1.0, 2.0));
    assert!(close(pts[0].mean, 5.5) && close(pts[1].mean, 2.75));
    assert!(close(pts[0].lo.unwrap(), 1.9) && close(pts[0].hi.unwrap(), 9.1));
    assert!(close(pts[1].lo.unwrap(), 0.95) && close(pts[1].hi.unwrap(), 4.55));

    // Without a band there are no bounds.
    let fig = figure("{name: f, x: epsilon, methods: [M]}");
    let panels = build_panels(&fig, &toy_runs(), &selected, &toy_context(), &[]);
    assert!(panels[0].lines[0]
        .points
        .iter()
        .all(|p| p.lo.is_none() && p.hi.is_none()));
}

#[test]
fn parameter_axis_on_a_hand_made_case() {
    // Slice a=1: b=1 (mean 5.5) beats b=2 (15.5); slice a=2: b=2 (7.5) beats b=1 (55).
    let fig = figure(
        "{name: f, x: {parameter: a}, methods: [M], lines: per_epsilon, epsilons: [1], band: [0.5, 1]}",
    );
    let panels = build_panels(&fig, &toy_runs(), &[], &toy_context(), &[]);
    let lines = &panels[0].lines;
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].label, "ε = 1");
    let pts = &lines[0].points;
    assert_eq!(pts.len(), 2);
    assert_eq!((pts[0].x, pts[0].params.as_str()), (1.0, "a=1;b=1"));
    assert_eq!((pts[1].x, pts[1].params.as_str()), (2.0, "a=2;b=2"));
    assert!(close(pts[0].mean, 5.5) && close(pts[1].mean, 7.5));
    assert!(close(pts[1].lo.unwrap(), 7.5) && close(pts[1].hi.unwrap(), 12.0));

    // Per method with two ε: one line per (method, ε), labelled with both.
    let fig = figure("{name: f, x: {parameter: b}, methods: [M]}");
    let panels = build_panels(&fig, &toy_runs(), &[], &toy_context(), &[]);
    let labels: Vec<&str> = panels[0].lines.iter().map(|l| l.label.as_str()).collect();
    assert_eq!(labels, ["M, ε = 1", "M, ε = 2"]);
    // Slice b=1 at ε = 2: a=1 (2.75) beats a=2 (27.5).
    assert_eq!(panels[0].lines[1].points[0].params, "a=1;b=1");
}

/// A corrupted selected.csv is refused with the file, line, column and value (the reader
/// `check` uses), not drawn: a scaled mean that is not a number, a missing column, a
/// non-positive ε.
#[test]
fn a_corrupted_selection_names_its_line_and_column() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("selected.csv");
    let header = "dataset,method,epsilon,mean,std,median,reps,params\n";
    let good = "toy,M,1,5.5,0,0,10,a=1\n";
    for (row, expect) in [
        (
            "toy,M,2,5.5x,0,0,10,a=1\n",
            ":3: column `mean`: \"5.5x\" is not a number",
        ),
        (
            "toy,M,-1,5.5,0,0,10,a=1\n",
            ":3: column `epsilon`: \"-1\" is not a positive",
        ),
        ("toy,,2,5.5,0,0,10,a=1\n", ":3: column `method`"),
    ] {
        fs::write(&path, format!("{header}{good}{row}")).unwrap();
        let e = read_selected(&path).unwrap_err().to_string();
        assert!(e.contains("selected.csv") && e.contains(expect), "{e}");
    }
    fs::write(&path, "dataset,method,epsilon,std\ntoy,M,1,0\n").unwrap();
    let e = read_selected(&path).unwrap_err().to_string();
    assert!(e.contains("no column `mean`"), "{e}");
    fs::write(&path, format!("{header}{good}")).unwrap();
    assert_eq!(read_selected(&path).unwrap().len(), 1);
}

#[test]
fn render_figures_writes_files_from_a_results_folder() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(
        tmp.path().join("selected.csv"),
        "dataset,method,epsilon,mean,std,median,reps,params\n\
         toy,M,1,5.5,0,0,10,a=1;b=1\ntoy,M,2,2.75,0,0,10,a=1;b=1\n",
    )
    .unwrap();
    let sel = read_selected(&tmp.path().join("selected.csv")).unwrap();
    assert_eq!(sel[1].epsilon, Some(2.0));
    assert_eq!(sel[1].params, "a=1;b=1");
    let figs = vec![figure(
        "{name: toy-fig, x: epsilon, y: {log_scale: true}, methods: [M], band: [0.1, 0.9]}",
    )];
    let files = render_figures(&figs, &toy_runs(), tmp.path(), &toy_context()).unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["toy-fig-toy.svg", "toy-fig-toy.png", "toy-fig-toy.csv"]
    );
    let csv = fs::read_to_string(tmp.path().join("figures/toy-fig-toy.csv")).unwrap();
    assert_eq!(
        csv,
        "figure,dataset,x,line,method,epsilon,mean,lo,hi,reps,params,source\n\
         toy-fig,toy,1,M,M,1,5.5,1.9,9.1,10,a=1;b=1,ours\n\
         toy-fig,toy,2,M,M,2,2.75,0.95,4.55,10,a=1;b=1,ours\n"
    );
    let png = fs::read(tmp.path().join("figures/toy-fig-toy.png")).unwrap();
    assert_eq!(png_size(&png), Some((960, 620)));
    // No figures: nothing written, no folder.
    let empty = tempfile::tempdir().unwrap();
    assert!(
        render_figures(&[], &toy_runs(), empty.path(), &toy_context())
            .unwrap()
            .is_empty()
    );
    assert!(!empty.path().join("figures").exists());
}

#[test]
fn invalid_figures_are_rejected_naming_the_field() {
    let ctx = toy_context();
    let check = |yaml: &str, field: &str, words: &str| {
        let figs: Vec<FigureSpec> = serde_yaml::from_str(yaml).unwrap();
        match validate_figures(&figs, &ctx) {
            Err(FieldError { field: f, message }) => {
                assert_eq!(f, field, "{yaml}: {message}");
                assert!(
                    message.contains(words),
                    "{yaml}: `{message}` lacks `{words}`"
                );
            }
            other => panic!("{yaml}: expected an invalid field, got {other:?}"),
        }
    };
    check(
        "[{name: f, x: epsilon, methods: [X]}]",
        "figures[0].methods",
        "unknown method `X`; methods of this spec: M",
    );
    check(
        "[{name: f, x: epsilon, methods: []}]",
        "figures[0].methods",
        "needs methods",
    );
    check(
        "[{name: f, x: epsilon, methods: [M], epsilons: [3]}]",
        "figures[0].epsilons",
        "epsilon 3 is not in the spec's epsilons",
    );
    check(
        "[{name: f, x: epsilon, methods: [M], datasets: [nope]}]",
        "figures[0].datasets",
        "unknown data set `nope`",
    );
    check(
        "[{name: f, x: epsilon, methods: [M], lines: per_epsilon}]",
        "figures[0].lines",
        "needs a parameter x axis",
    );
    check(
        "[{name: f, x: {parameter: depth}, methods: [M]}]",
        "figures[0].x",
        "has no parameter `depth`; its parameters: a, b",
    );
    check(
        "[{name: f, x: epsilon, methods: [M], band: [0.9, 0.1]}]",
        "figures[0].band",
        "0 <= lo < hi <= 1",
    );
    check(
        "[{name: a/b, x: epsilon, methods: [M]}]",
        "figures[0].name",
        "without slashes",
    );
    check(
        "[{name: f, x: epsilon, methods: [M]}, {name: f, x: epsilon, methods: [M]}]",
        "figures[1].name",
        "defined twice",
    );
    let ok: Vec<FigureSpec> = serde_yaml::from_str(
        "[{name: f, x: {parameter: b}, methods: [M], epsilons: [2], lines: per_epsilon, band: [0.1, 0.9]}]",
    )
    .unwrap();
    validate_figures(&ok, &ctx).unwrap();
}

#[test]
fn figure_yaml_errors_say_what_is_valid() {
    let err = |yaml: &str| {
        serde_yaml::from_str::<FigureSpec>(yaml)
            .unwrap_err()
            .to_string()
    };
    assert!(err("{name: f, x: size, methods: [M]}")
        .contains("expected `epsilon` or `{parameter: NAME}`"));
    assert!(
        err("{name: f, x: epsilon, methods: [M], colour: red}").contains("unknown field `colour`")
    );
    assert!(err("{name: f, x: epsilon, methods: [M], lines: per_dataset}").contains("per_method"));
    // The section parses inside a whole spec, with the file's line and column on error.
    let spec = SPEC.replace("lines: per_epsilon", "lines: per_data");
    let e = dp_repro::spec::parse_str(&spec, Path::new("s.yaml"))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("s.yaml:"), "{e}");
    assert!(e.contains("per_epsilon"), "{e}");
    // And round-trips through spec.yaml, as a run writes it.
    let parsed = dp_repro::spec::parse_str(SPEC, Path::new("s.yaml")).unwrap();
    let again = serde_yaml::to_string(&parsed).unwrap();
    let back = dp_repro::spec::parse_str(&again, Path::new("s.yaml")).unwrap();
    assert_eq!(
        serde_yaml::to_string(&back.figures).unwrap(),
        serde_yaml::to_string(&parsed.figures).unwrap()
    );
}
