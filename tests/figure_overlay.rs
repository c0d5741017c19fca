//! Figure options for the LPCT simulation figures: a sample-size x axis over synthetic
//! data sets with series of data sets, grid-point restrictions, and the overlay of a
//! paper's digitized curves (dashed, in the CSV with `source = paper`), including a run
//! from another directory whose results folder keeps its own copy of the overlay file.

use assert_cmd::Command;
use dp_repro::report::figure::{
    build_panels, render_figures, validate_figures, FigureContext, FigureSpec, MethodInfo, Overlay,
    SelectedRow, Source,
};
use dp_repro::run::RunRow;
use dp_repro::spec::FieldError;
use std::fs;
use std::path::{Path, PathBuf};

fn row(dataset: &str, eps: f64, params: &str, rep: usize, value: f64) -> RunRow {
    RunRow {
        task: format!("{dataset}-{params}-{rep}"),
        dataset: dataset.into(),
        method: "M".into(),
        params: params.into(),
        epsilon: Some(eps),
        repetition: rep,
        metric: "accuracy".into(),
        value,
        seconds: 0.0,
    }
}

/// Four data sets (public sizes 10, 20, 10, 20), one method M with parameters a, b ∈ {1,2}
/// at ε ∈ {1, 2}; accuracy (higher is better).
fn context(base: &Path) -> FigureContext {
    let sizes = [("a10", 10), ("a20", 20), ("b10", 10), ("b20", 20)]
        .into_iter()
        .map(|(d, n)| (d.to_string(), [n, 100, 50]))
        .collect();
    FigureContext {
        datasets: vec!["a10".into(), "a20".into(), "b10".into(), "b20".into()],
        epsilons: vec![1.0, 2.0],
        methods: vec![MethodInfo {
            label: "M".into(),
            private: true,
            params: vec![
                ("a".into(), vec!["1".into(), "2".into()]),
                ("b".into(), vec!["1".into(), "2".into()]),
            ],
        }],
        lower_is_better: false,
        selection: "best_mean".into(),
        sizes,
        base: base.to_path_buf(),
    }
}

/// Mean over two repetitions of each grid point: a=1;b=1 → base, a=1;b=2 → base − 0.1,
/// a=2;b=1 → base − 0.2, a=2;b=2 → base − 0.05, where base depends on the data set
/// (a10 0.6, a20 0.7, b10 0.65, b20 0.5) and ε (+0.01 at ε = 2).
fn runs() -> Vec<RunRow> {
    let mut rows = Vec::new();
    for (d, base) in [("a10", 0.6), ("a20", 0.7), ("b10", 0.65), ("b20", 0.5)] {
        for (eps, plus) in [(1.0, 0.0), (2.0, 0.01)] {
            for (p, off) in [
                ("a=1;b=1", 0.0),
                ("a=1;b=2", -0.1),
                ("a=2;b=1", -0.2),
                ("a=2;b=2", -0.05),
            ] {
                for (rep, jitter) in [(1, -0.01), (2, 0.01)] {
                    rows.push(row(d, eps, p, rep, base + plus + off + jitter));
                }
            }
        }
    }
    rows
}

/// selected.csv: the oracle's choice, a=1;b=1 everywhere.
fn selected() -> Vec<SelectedRow> {
    let mut s = Vec::new();
    for d in ["a10", "a20", "b10", "b20"] {
        for e in [1.0, 2.0] {
            s.push(SelectedRow {
                dataset: d.into(),
                method: "M".into(),
                epsilon: Some(e),
                params: "a=1;b=1".into(),
                mean: 0.5,
                std: 0.0,
                median: 0.5,
                reps: 10,
            });
        }
    }
    s
}

fn figure(yaml: &str) -> FigureSpec {
    serde_yaml::from_str(yaml).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn size_axis_draws_one_panel_with_series_and_the_best_data_set_per_size() {
    let ctx = context(Path::new("."));
    let fig = figure(
        "{name: f, x: {size: public}, methods: [M], epsilons: [1], series: [{label: S, datasets: [a10, a20, b10]}, {label: T, datasets: [b20]}]}",
    );
    validate_figures(std::slice::from_ref(&fig), &ctx).unwrap();
    let panels = build_panels(&fig, &runs(), &selected(), &ctx, &[]);
    assert_eq!(panels.len(), 1, "one panel over the data sets");
    assert_eq!(panels[0].dataset, "");
    let lines = &panels[0].lines;
    let labels: Vec<&str> = lines.iter().map(|l| l.label.as_str()).collect();
    assert_eq!(labels, ["S", "T"]);
    let s = &lines[0].points;
    // x = 10: a10 (0.6) and b10 (0.65) compete, b10 wins; x = 20: a20 alone.
    assert_eq!(s.len(), 2);
    assert_eq!((s[0].x, s[0].dataset.as_deref()), (10.0, Some("b10")));
    assert!(close(s[0].mean, 0.65));
    assert_eq!((s[1].x, s[1].dataset.as_deref()), (20.0, Some("a20")));
    assert!(close(s[1].mean, 0.7));
    assert_eq!(lines[1].points.len(), 1);
    assert!(panels[0].subtitle.contains("the best of them"));
    // The CSV names each point's data set.
    let csv = panels[0].to_csv();
    assert!(csv.contains("f,b10,10,S,M,1,"), "{csv}");
}

#[test]
fn restrictions_choose_the_best_admitted_grid_point() {
    let ctx = context(Path::new("."));
    // ε axis: selected.csv says a=1;b=1, but a = 2 is required at ε = 1 only: there
    // a=2;b=2 (base − 0.05) beats a=2;b=1.
    let fig = figure(
        "{name: f, x: epsilon, methods: [M], datasets: [a10], restrict: [{method: M, epsilon: 1, params: {a: 2}}]}",
    );
    validate_figures(std::slice::from_ref(&fig), &ctx).unwrap();
    let p = &build_panels(&fig, &runs(), &selected(), &ctx, &[])[0].lines[0].points;
    assert_eq!(p[0].params, "a=2;b=2");
    assert!(close(p[0].mean, 0.55));
    assert_eq!(p[1].params, "a=1;b=1");
    // A list of allowed values and a data set filter, on a size axis.
    let fig = figure(
        "{name: f, x: {size: public}, methods: [M], epsilons: [2], datasets: [a10, a20], restrict: [{method: M, datasets: [a20], params: {b: [2]}}]}",
    );
    let p = &build_panels(&fig, &runs(), &selected(), &ctx, &[])[0].lines[0].points;
    assert_eq!(p[0].params, "a=1;b=1");
    assert_eq!(p[1].params, "a=2;b=2");
    assert!(close(p[1].mean, 0.66));
}

fn write_digitized(dir: &Path) -> PathBuf {
    let path = dir.join("digitized.csv");
    fs::write(
        &path,
        "figure,source_plot,method,epsilon,x_var,x,accuracy,note\n\
         t,plot.pdf,Paper M,,epsilon,1,0.61,\n\
         t,plot.pdf,Paper M,,epsilon,2,0.63,\n\
         t,plot.pdf,Paper M,,epsilon,8,0.70,\n\
         t,plot.pdf,Other,,epsilon,1,0.5,\n\
         u,plot.pdf,Paper M,,epsilon,1,0.99,\n\
         v,plot2.pdf,Paper M,1,n_Q,10,0.60,\n\
         v,plot2.pdf,Paper M,1,n_Q,20,0.69,\n\
         v,plot2.pdf,Paper M,2,n_Q,10,0.62,\n\
         v,plot2.pdf,Paper M,8,n_Q,10,0.9,\n",
    )
    .unwrap();
    path
}

#[test]
fn overlay_draws_paper_curves_beside_ours_with_shifts_and_a_source_column() {
    let tmp = tempfile::tempdir().unwrap();
    write_digitized(tmp.path());
    let ctx = context(tmp.path());
    // ε axis: the paper's ε = 8 point is not among the figure's ε; `Other` is not mapped.
    let fig = figure(
        "{name: f, x: epsilon, methods: [M], datasets: [a10], reported: {file: digitized.csv, figure: t, methods: {Paper M: M}, shift: [{method: Paper M, by: -0.01}]}}",
    );
    validate_figures(std::slice::from_ref(&fig), &ctx).unwrap();
    let paper = fig.reported.as_ref().unwrap().load(tmp.path()).unwrap();
    assert_eq!(paper.len(), 4, "the rows of figure t");
    let panels = build_panels(&fig, &runs(), &selected(), &ctx, &paper);
    let lines = &panels[0].lines;
    assert_eq!(lines.len(), 2);
    let p = &lines[1];
    assert_eq!(p.source, Source::Paper);
    assert_eq!(p.label, "M (paper)");
    assert_eq!(p.colour_of, Some(0));
    let xs: Vec<(f64, f64)> = p.points.iter().map(|q| (q.x, q.mean)).collect();
    assert_eq!(xs.len(), 2);
    assert!(close(xs[0].1, 0.60) && close(xs[1].1, 0.62), "{xs:?}");
    assert!(panels[0]
        .subtitle
        .contains("paper Paper M shifted by -0.01"));

    // Per ε off an ε axis, matched to our line of the same ε; rendered into the CSV.
    let fig = figure(
        "{name: g, x: {size: public}, methods: [M], datasets: [a10, a20], reported: {file: digitized.csv, figure: v, methods: {Paper M: M}}}",
    );
    let out = tmp.path().join("out");
    fs::create_dir_all(&out).unwrap();
    fs::write(
        out.join("selected.csv"),
        "dataset,method,epsilon,mean,std,median,reps,params\n\
         a10,M,1,0,0,0,2,a=1;b=1\na10,M,2,0,0,0,2,a=1;b=1\n\
         a20,M,1,0,0,0,2,a=1;b=1\na20,M,2,0,0,0,2,a=1;b=1\n",
    )
    .unwrap();
    let files = render_figures(std::slice::from_ref(&fig), &runs(), &out, &ctx).unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["g.svg", "g.png", "g.csv"]);
    let csv = fs::read_to_string(out.join("figures/g.csv")).unwrap();
    let paper_rows: Vec<&str> = csv.lines().filter(|l| l.ends_with(",paper")).collect();
    assert_eq!(
        paper_rows,
        [
            "g,,10,\"M, ε = 1 (paper)\",Paper M,1,0.6,,,,source_plot=plot2.pdf,paper",
            "g,,20,\"M, ε = 1 (paper)\",Paper M,1,0.69,,,,source_plot=plot2.pdf,paper",
            "g,,10,\"M, ε = 2 (paper)\",Paper M,2,0.62,,,,source_plot=plot2.pdf,paper",
        ]
    );
    assert!(
        csv.contains("g,a10,10,\"M, ε = 1\",M,1,0.6,,,2,a=1;b=1,ours"),
        "{csv}"
    );
    let svg = fs::read_to_string(out.join("figures/g.svg")).unwrap();
    assert!(svg.contains("M, ε = 2 (paper)"));
    // Dashed curves are drawn as many short segments: far more polylines than the two
    // solid lines of ours and the legend samples.
    assert!(svg.matches("<polyline").count() > 10);
}

#[test]
fn bad_figure_options_are_refused_naming_the_field() {
    let tmp = tempfile::tempdir().unwrap();
    write_digitized(tmp.path());
    let ctx = context(tmp.path());
    let check = |yaml: &str, field: &str, words: &str| match validate_figures(&[figure(yaml)], &ctx)
    {
        Err(FieldError { field: f, message }) => {
            assert_eq!(f, field, "{yaml}: {message}");
            assert!(
                message.contains(words),
                "{yaml}: `{message}` lacks `{words}`"
            );
        }
        other => panic!("{yaml}: expected an invalid field, got {other:?}"),
    };
    let base = "name: f, x: epsilon, methods: [M]";
    check(
        &format!("{{{base}, reported: {{file: nope.csv, figure: t, methods: {{Paper M: M}}}}}}"),
        "figures[0].reported.file",
        "nope.csv",
    );
    check(
        &format!(
            "{{{base}, reported: {{file: digitized.csv, figure: zz, methods: {{Paper M: M}}}}}}"
        ),
        "figures[0].reported.figure",
        "no rows with figure `zz`",
    );
    check(
        &format!(
            "{{{base}, reported: {{file: digitized.csv, figure: t, methods: {{Nobody: M}}}}}}"
        ),
        "figures[0].reported.methods",
        "has no method `Nobody`; it has: Paper M, Other",
    );
    check(
        &format!(
            "{{{base}, reported: {{file: digitized.csv, figure: t, methods: {{Paper M: Z}}}}}}"
        ),
        "figures[0].reported.methods",
        "`Z` (for the paper's `Paper M`) is neither a method nor a series",
    );
    check(
        &format!("{{{base}, series: [{{label: S, datasets: [a10]}}]}}"),
        "figures[0].series",
        "size axis",
    );
    check(
        &format!("{{{base}, restrict: [{{method: M, params: {{depth: 2}}}}]}}"),
        "figures[0].restrict[0].params",
        "has no parameter `depth`",
    );
    let mut no_size = context(tmp.path());
    no_size.sizes.remove("a20");
    match validate_figures(
        &[figure("{name: f, x: {size: private}, methods: [M]}")],
        &no_size,
    ) {
        Err(FieldError { field, message }) => {
            assert_eq!(field, "figures[0].x");
            assert!(
                message.contains("`a20` has no stated private sample size"),
                "{message}"
            );
        }
        other => panic!("expected an invalid x, got {other:?}"),
    }
    let o: Overlay = serde_yaml::from_str("{file: digitized.csv, figure: t, methods: {}}").unwrap();
    assert_eq!(o.load(tmp.path()).unwrap().len(), 4);
}

const SPEC: &str = r#"
name: overlay-run
seed: 3
repetitions: 2
datasets:
  - {name: q10, synthetic: {lpct_drift: {gamma: 0.5}}, stream: s, sizes: {public: 10, private: 300, test: 200}}
  - {name: q20, synthetic: {lpct_drift: {gamma: 0.5}}, stream: s, sizes: {public: 20, private: 300, test: 200}}
epsilons: [1, 2]
methods:
  - method: LPCT-M
    label: M
    grid: {depth: [1, 2], min_leaf: [1], lambda: [1]}
figures:
  - name: g
    x: {size: public}
    methods: [M]
    legend: right
    reported: {file: paper/digitized.csv, figure: v, methods: {Paper M: M}}
"#;

#[test]
fn a_run_from_elsewhere_keeps_the_overlay_in_its_results_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let specs = tmp.path().join("specs");
    fs::create_dir_all(specs.join("paper")).unwrap();
    let digitized = write_digitized(&specs.join("paper"));
    fs::write(specs.join("s.yaml"), SPEC).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let res = tmp.path().join("res");
    let o = Command::cargo_bin("dp-repro")
        .unwrap()
        .current_dir(elsewhere.path())
        .args(["run", specs.join("s.yaml").to_str().unwrap(), "--out"])
        .arg(&res)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(res.join("reported/digitized.csv").is_file());
    let spec = fs::read_to_string(res.join("spec.yaml")).unwrap();
    assert!(spec.contains("file: reported/digitized.csv"), "{spec}");
    let paper_rows = |csv: &str| csv.lines().filter(|l| l.ends_with(",paper")).count();
    let csv = fs::read_to_string(res.join("figures/g.csv")).unwrap();
    assert_eq!(paper_rows(&csv), 3);
    // The folder re-renders without the original file.
    fs::remove_file(&digitized).unwrap();
    fs::remove_dir_all(res.join("figures")).unwrap();
    let o = Command::cargo_bin("dp-repro")
        .unwrap()
        .current_dir(elsewhere.path())
        .arg("table")
        .arg(&res)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let again = fs::read_to_string(res.join("figures/g.csv")).unwrap();
    assert_eq!(again, csv);
}
