//! Heat-map figures (`y: {parameter: NAME}`): a run writes SVG, PNG and a CSV with one row
//! per cell whose means are summary.csv's (the best over the grid parameters not on the
//! axes); the cells of a hand-made case; validation of the heat-map options.

use assert_cmd::Command;
use dp_repro::report::figure::{
    build_heat_maps, validate_figures, FigureContext, FigureSpec, MethodInfo, HEATMAP_CSV_HEADER,
};
use dp_repro::run::RunRow;
use dp_repro::spec::FieldError;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

const SPEC: &str = r#"
name: tiny-heatmaps
seed: 7
repetitions: 3
datasets:
  - name: sine
    synthetic: lpdt_sine
    sizes: {public: 200, private: 600, test: 200}
epsilons: [1, 4, 16]
methods:
  - method: LPDT-M
    grid: {depth: [1, 2, 3], min_leaf: [5, 20], rho: [0.3, 0.5]}
  - method: RF
    params: {k: all}
    grid: {depth: [2, 4], trees: [1, 3]}
figures:
  - name: eps-depth
    title: "depth against epsilon"
    x: epsilon
    y: {parameter: depth}
    methods: [LPDT-M]
  - name: leaf-depth
    x: {parameter: min_leaf}
    y: {parameter: depth, label: "tree depth"}
    methods: [LPDT-M]
    epsilons: [1, 16]
    restrict: [{method: LPDT-M, params: {rho: 0.5}}]
  - name: rf
    x: {parameter: trees}
    y: {parameter: depth}
    methods: [RF]
"#;

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
            .current_dir(env!("CARGO_MANIFEST_DIR"))
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

fn param<'a>(params: &'a str, name: &str) -> &'a str {
    params
        .split(';')
        .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("{params} has no {name}"))
}

/// summary.csv rows as (method, ε text, params) → (mean, std, reps).
fn summary(out: &Path) -> BTreeMap<(String, String, String), (f64, f64, usize)> {
    read_csv(&out.join("summary.csv"))
        .into_iter()
        .map(|r| {
            (
                (
                    r["method"].clone(),
                    r["epsilon"].clone(),
                    r["params"].clone(),
                ),
                (
                    r["mean"].parse().unwrap(),
                    r["std"].parse().unwrap(),
                    r["reps"].parse().unwrap(),
                ),
            )
        })
        .collect()
}

#[test]
fn a_run_writes_one_file_set_per_heat_map_and_data_set() {
    let dir = out().join("figures");
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut expected = Vec::new();
    for stem in ["eps-depth-sine", "leaf-depth-sine", "rf-sine"] {
        for ext in ["csv", "png", "svg"] {
            expected.push(format!("{stem}.{ext}"));
        }
    }
    assert_eq!(names, expected);
    // Two panels side by side (leaf-depth at two ε), one panel (eps-depth, rf).
    for (stem, width, texts) in [
        (
            "leaf-depth-sine",
            1040,
            vec!["LPDT-M, ε = 1", "LPDT-M, ε = 16", "tree depth", "min_leaf"],
        ),
        (
            "eps-depth-sine",
            520,
            vec![
                "depth against epsilon — sine",
                "ε (privacy budget)",
                "depth",
            ],
        ),
        ("rf-sine", 520, vec!["depth", "trees"]),
    ] {
        let png = fs::read(dir.join(format!("{stem}.png"))).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        let w = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
        assert_eq!(w, width, "{stem}.png width");
        assert!(png.len() > 10_000, "{stem}.png is only {} bytes", png.len());
        let svg = fs::read_to_string(dir.join(format!("{stem}.svg"))).unwrap();
        assert!(svg.trim_start().starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        for t in texts {
            assert!(svg.contains(t), "{stem}.svg lacks `{t}`");
        }
        let csv = fs::read_to_string(dir.join(format!("{stem}.csv"))).unwrap();
        assert_eq!(csv.lines().next().unwrap(), HEATMAP_CSV_HEADER);
    }
}

#[test]
fn the_csv_has_one_row_per_cell_with_the_summary_means() {
    let out = out();
    let sum = summary(&out);
    let dir = out.join("figures");

    // x = ε: 3 ε × 3 depths, each cell the best of min_leaf × rho at that depth and ε.
    let rows = read_csv(&dir.join("eps-depth-sine.csv"));
    assert_eq!(rows.len(), 9);
    for r in &rows {
        assert_eq!(r["method"], "LPDT-M");
        assert_eq!(r["panel"], "LPDT-M");
        assert_eq!(r["x"], r["epsilon"]);
        let candidates: Vec<(&String, &(f64, f64, usize))> = sum
            .iter()
            .filter(|((m, e, p), _)| {
                m == "LPDT-M" && *e == r["epsilon"] && param(p, "depth") == r["y"]
            })
            .map(|((_, _, p), v)| (p, v))
            .collect();
        assert_eq!(candidates.len(), 4, "min_leaf × rho at one depth");
        let best = candidates
            .iter()
            .min_by(|a, b| a.1 .0.total_cmp(&b.1 .0))
            .unwrap();
        assert_eq!(r["params"], *best.0, "cell {:?}", r);
        assert_eq!(r["mean"].parse::<f64>().unwrap(), best.1 .0);
        assert_eq!(r["std"].parse::<f64>().unwrap(), best.1 .1);
        assert_eq!(r["reps"], "3");
    }
    let cells: std::collections::BTreeSet<(String, String)> = rows
        .iter()
        .map(|r| (r["x"].clone(), r["y"].clone()))
        .collect();
    assert_eq!(cells.len(), 9, "every (ε, depth) once");

    // Two parameters at two ε, restricted to rho = 0.5: each cell is one grid point.
    let rows = read_csv(&dir.join("leaf-depth-sine.csv"));
    assert_eq!(rows.len(), 2 * 2 * 3);
    for r in &rows {
        let p = &r["params"];
        assert_eq!(param(p, "rho"), "0.5");
        assert_eq!(param(p, "min_leaf"), r["x"]);
        assert_eq!(param(p, "depth"), r["y"]);
        assert_eq!(r["panel"], format!("LPDT-M, ε = {}", r["epsilon"]));
        let (mean, _, reps) = sum[&("LPDT-M".to_string(), r["epsilon"].clone(), p.clone())];
        assert_eq!(r["mean"].parse::<f64>().unwrap(), mean);
        assert_eq!(r["reps"].parse::<usize>().unwrap(), reps);
    }
    assert!(rows
        .iter()
        .all(|r| r["epsilon"] == "1" || r["epsilon"] == "16"));

    // A non-private method: one panel, no ε, every grid point a cell.
    let rows = read_csv(&dir.join("rf-sine.csv"));
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert_eq!(r["epsilon"], "");
        let (mean, _, _) = sum[&("RF".to_string(), String::new(), r["params"].clone())];
        assert_eq!(r["mean"].parse::<f64>().unwrap(), mean);
    }
}

// ---- hand-made results ----

fn row(eps: f64, params: &str, rep: usize, value: f64) -> RunRow {
    RunRow {
        task: format!("{params}-{rep}"),
        dataset: "toy".into(),
        method: "M".into(),
        params: params.into(),
        epsilon: Some(eps),
        repetition: rep,
        metric: "accuracy".into(),
        value,
        seconds: 0.0,
    }
}

fn context() -> FigureContext {
    FigureContext {
        datasets: vec!["toy".into()],
        epsilons: vec![1.0, 2.0],
        methods: vec![
            MethodInfo {
                label: "M".into(),
                private: true,
                params: vec![
                    ("a".into(), vec!["10".into(), "2".into()]),
                    ("b".into(), vec!["x".into(), "y".into()]),
                    ("c".into(), vec!["1".into(), "2".into()]),
                ],
            },
            MethodInfo {
                label: "N".into(),
                private: false,
                params: vec![("a".into(), vec!["2".into()])],
            },
        ],
        lower_is_better: false,
        selection: "best_mean".into(),
        sizes: Default::default(),
        base: Default::default(),
    }
}

#[test]
fn cells_take_the_best_mean_over_the_other_parameters() {
    // Accuracy (higher is better). At ε = 1: (a=2, b=x) has c=1 with mean 0.5 and c=2
    // with mean 0.7 (drawn: c=2); (a=10, b=y) has only c=1 with two repetitions; the
    // other cells have no results. At ε = 2 (a=2, b=x, c=1) alone.
    let runs = vec![
        row(1.0, "a=2;b=x;c=1", 1, 0.4),
        row(1.0, "a=2;b=x;c=1", 2, 0.6),
        row(1.0, "a=2;b=x;c=2", 1, 0.6),
        row(1.0, "a=2;b=x;c=2", 2, 0.8),
        row(1.0, "a=10;b=y;c=1", 1, 0.9),
        row(1.0, "a=10;b=y;c=1", 2, 0.7),
        row(2.0, "a=2;b=x;c=1", 1, 0.25),
    ];
    let fig: FigureSpec =
        serde_yaml::from_str("{name: h, x: {parameter: a}, y: {parameter: b}, methods: [M]}")
            .unwrap();
    let maps = build_heat_maps(&fig, &runs, &context());
    assert_eq!(maps.len(), 1);
    let m = &maps[0];
    // Numeric values sorted by number (grid order was 10, 2), text in grid order.
    assert_eq!(m.x_values, vec!["2", "10"]);
    assert_eq!(m.y_values, vec!["x", "y"]);
    assert_eq!(m.panels.len(), 2, "one panel per ε");
    let p1 = &m.panels[0];
    assert_eq!(p1.label, "M, ε = 1");
    assert_eq!(p1.cells.len(), 2);
    let c = &p1.cells[0];
    assert_eq!((c.xi, c.yi), (0, 0));
    assert_eq!(c.params, "a=2;b=x;c=2");
    assert!((c.mean - 0.7).abs() < 1e-12);
    // Sample standard deviation of 0.6 and 0.8 (n − 1): √0.02.
    assert!((c.std - 0.02f64.sqrt()).abs() < 1e-12);
    let c = &p1.cells[1];
    assert_eq!((c.xi, c.yi, c.reps), (1, 1, 2));
    assert!((c.mean - 0.8).abs() < 1e-12);
    let p2 = &m.panels[1];
    assert_eq!(p2.epsilon, Some(2.0));
    assert_eq!(p2.cells.len(), 1);
    assert_eq!(p2.cells[0].mean, 0.25);
    assert_eq!(p2.cells[0].reps, 1);
    // The CSV: a row per cell, panel by panel.
    let csv = m.to_csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], HEATMAP_CSV_HEADER);
    assert_eq!(lines.len(), 1 + 3);
    assert!(
        lines[1].starts_with("h,toy,\"M, ε = 1\",2,x,M,1,"),
        "{}",
        lines[1]
    );
    assert!(lines[3].starts_with("h,toy,\"M, ε = 2\",2,x,M,2,0.25,0,1,a=2;b=x;c=1"));
}

#[test]
fn heat_map_options_are_validated_naming_the_field() {
    let ctx = context();
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
        "[{name: h, x: {parameter: a}, y: {parameter: a}, methods: [M]}]",
        "figures[0].y.parameter",
        "two different axes",
    );
    check(
        "[{name: h, x: epsilon, y: {parameter: z}, methods: [M]}]",
        "figures[0].y.parameter",
        "method `M` has no parameter `z`; its parameters: a, b, c",
    );
    check(
        "[{name: h, x: {parameter: b}, y: {parameter: a}, methods: [M, N]}]",
        "figures[0].x",
        "method `N` has no parameter `b`",
    );
    check(
        "[{name: h, x: epsilon, y: {parameter: a}, methods: [N]}]",
        "figures[0].x",
        "needs private methods; `N` is non-private",
    );
    check(
        "[{name: h, x: epsilon, y: {parameter: a}, methods: [M], band: [0.1, 0.9]}]",
        "figures[0].band",
        "a heat map",
    );
    check(
        "[{name: h, x: epsilon, y: {parameter: a, log_scale: true}, methods: [M]}]",
        "figures[0].y.log_scale",
        "a heat map",
    );
    check(
        "[{name: h, x: {size: public}, y: {parameter: a}, methods: [M]}]",
        "figures[0].x",
        "not a size axis",
    );
    let ok: Vec<FigureSpec> = serde_yaml::from_str(
        "[{name: h, x: epsilon, y: {parameter: a}, methods: [M], epsilons: [2], restrict: [{method: M, params: {c: 1}}]}]",
    )
    .unwrap();
    validate_figures(&ok, &ctx).unwrap();
}
