//! The LPCT paper's raw data files made numeric by the rules their manifests declare: for
//! each, the complete rows, the encoded dimension d (LPCT Table 1,
//! `specs/reported/lpct_table1_datasets.csv`) and the label balance. The expected counts
//! were taken from the files independently of dp-repro (Python's csv module over the same
//! files, with the shared data README's counts): complete rows are those without an empty,
//! `?` or `NA` cell anywhere.

mod common;

use dp_repro::data::{find_manifest, load_manifest_dataset, Escape};

/// (manifest, complete rows, d, rows of class 1).
const EXPECTED: [(&str, usize, usize, usize); 8] = [
    // 617 complete rows = 567 private + 50 public; 104 tried masking their identity.
    ("anonymity", 617, 14, 104),
    // Osmancik (class 1): 2180 of 3810.
    ("rice", 3810, 7, 2180),
    // 45,222 complete rows; 11,208 earn >50K.
    ("census", 45_222, 46, 11_208),
    // 1,837 complete rows of 2,413 (the copy's injected blanks); Clinton won 912.
    ("election", 1_837, 9, 912),
    // 1,600 leavers of 4,653.
    ("employee", 4_653, 9, 1_600),
    // Employable (class 1): 1,729 of 2,982.
    ("employ", 2_982, 8, 1_729),
    ("diabetes_pub", 200, 8, 75),
    ("diabetes_pri", 2_568, 8, 877),
];

#[test]
fn each_raw_file_encodes_to_the_papers_dimension_with_its_rows_and_labels() {
    let files: Vec<String> = EXPECTED.iter().map(|e| format!("{}.csv", e.0)).collect();
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let Some(data) = common::real_data(&files) else {
        return;
    };
    let table1 =
        std::fs::read_to_string(common::root().join("specs/reported/lpct_table1_datasets.csv"))
            .ok();
    for (name, rows, d, ones) in EXPECTED {
        let m = find_manifest(name, &[common::root().join("datasets")]).unwrap();
        let loaded = load_manifest_dataset(&m, Some(&data)).unwrap();
        let ds = &loaded.dataset;
        assert_eq!(ds.n(), rows, "{name}: complete rows");
        assert_eq!(ds.d(), d, "{name}: encoded d");
        assert_eq!(
            ds.n() + loaded.dropped_rows,
            m.n_rows,
            "{name}: rows in the file"
        );
        let class1 = ds.y.iter().filter(|&&y| y == 1.0).count();
        let class0 = ds.y.iter().filter(|&&y| y == 0.0).count();
        assert_eq!(
            (class1, class0),
            (ones, rows - ones),
            "{name}: label balance"
        );
        // The encoded d is the paper's (Table 1) where the shared table is present.
        if let Some(t) = &table1 {
            let abbreviation = &m.paper[0].abbreviation;
            if let Some(line) = t
                .lines()
                .find(|l| l.starts_with(&format!("{abbreviation},")))
            {
                let paper_d: usize = line.split(',').nth(4).unwrap().parse().unwrap();
                assert_eq!(ds.d(), paper_d, "{name}: Table 1's d");
            }
        }
        // Every feature is finite; one-hot and code columns hold their values only.
        assert!(ds.x.row(0).iter().all(|v| v.is_finite()));
    }
}

/// A spec whose data set takes its public rows by a rule on a raw column.
fn rule_spec(dataset: &str, column: &str, value: &str, public_share: &str) -> String {
    format!(
        "name: t\nseed: 7\nrepetitions: 2\ndatasets:\n  - name: {dataset}-rule\n    public_by_rule: {{dataset: {dataset}, column: {column}, values: [\"{value}\"]}}\nsplit: {{public: {public_share}, private: 0.8, test: 0.2}}\nscaling: public\nepsilons: [1]\nmethods:\n  - method: LPDT-M\n    grid: {{depth: [1], min_leaf: [5]}}\n"
    )
}

/// Public rows by rule (LPCT App. C.1) on the real files: the rows whose
/// raw cell matches are the fixed public part, whatever the encoding drops (Census's
/// native-country, Employee's JoiningYear and Election's state are dropped columns); the
/// split ratios divide the other complete rows.
#[test]
fn public_rows_by_rule_on_the_lpct_files() {
    use dp_repro::spec::{DataSource, DatasetPlan};
    let Some(data) = common::real_data(&["census.csv", "employee.csv", "election.csv"]) else {
        return;
    };
    // (data set, rule column, value, public rows, other complete rows); counted with Python.
    for (name, column, value, public, others) in [
        (
            "census",
            "native-country",
            "United-States",
            41_292,
            45_222 - 41_292,
        ),
        ("employee", "JoiningYear", "2012", 504, 4_653 - 504),
        ("election", "state", "TX", 158, 1_837 - 158),
    ] {
        let manifest = find_manifest(name, &[common::root().join("datasets")]).unwrap();
        let plan = DatasetPlan {
            name: format!("{name}-rule"),
            row_label: name.into(),
            task: manifest.task,
            source: DataSource::Rule {
                manifest,
                column: column.into(),
                values: vec![value.into()],
            },
        };
        let all = plan.load(Some(&data)).unwrap().unwrap().dataset;
        assert_eq!(all.fixed_public, public, "{name}");
        assert_eq!(plan.split_rows(&all), others, "{name}");
        assert_eq!(all.n(), public + others, "{name}");
    }
}

/// The protocol around a rule (LPCT method card §10.2) on a small regression file: the
/// rule's rows are the public part of every repetition, the others are split 80/20 afresh
/// per repetition, and `scaling: public` fits MinMax on the public rows.
#[test]
fn a_rule_fixes_the_public_part_and_the_rest_is_split_per_repetition() {
    use dp_repro::spec::{parse_str, validate};
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(data.join("m")).unwrap();
    // 30 rows: group A (10 rows, x in 0..10) and B (20 rows, x in 100..120); y = x.
    let mut csv = String::from("group,x,y\n");
    for i in 0..30 {
        let (g, x) = if i % 3 == 0 {
            ("A", i / 3)
        } else {
            ("B", 100 + i)
        };
        csv.push_str(&format!("{g},{x},{x}\n"));
    }
    std::fs::write(data.join("toy.csv"), &csv).unwrap();
    let sha = dp_repro::data::load::sha256_bytes(csv.as_bytes());
    let manifest = format!("name: toy\nfile: toy.csv\ntask: regression\nlabel_column: 2\nhas_header: true\nsha256: {sha}\nn_rows: 30\nn_features: 1\nencode: {{drop: [group]}}\nsource: {{repository: a/b, commit: c, path: toy.csv}}\n");
    std::fs::write(data.join("m/toy.yaml"), manifest).unwrap();
    let path = dir.path().join("s.yaml");
    let text = rule_spec("toy", "group", "A", "0");
    let exp = validate(parse_str(&text, &path).unwrap(), &path, &[data.join("m")]).unwrap();
    let plan = &exp.datasets[0];
    let all = plan.load(Some(&data)).unwrap().unwrap().dataset;
    assert_eq!((all.fixed_public, plan.split_rows(&all)), (10, 20));
    let mut tests = Vec::new();
    for rep in 1..=2 {
        let r = dp_repro::run::repetition_data(&exp, plan, Some(&all), rep).unwrap();
        let mut public_y = r.public.y.clone();
        public_y.sort_by(f64::total_cmp);
        assert_eq!(
            public_y,
            (0..10).map(f64::from).collect::<Vec<_>>(),
            "group A, all of it"
        );
        assert_eq!((r.private.n(), r.test.n()), (16, 4));
        assert!(
            r.private
                .escape(Escape::Bookkeeping)
                .y
                .iter()
                .chain(&r.test.y)
                .all(|&y| y >= 100.0),
            "group B only"
        );
        // MinMax on the public x (0..9): public in [0,1], group B far above 1.
        assert!(r.public.x.data.iter().all(|&v| (0.0..=1.0).contains(&v)));
        assert!(r.test.x.data.iter().all(|&v| v > 10.0));
        tests.push(r.test.y.clone());
    }
    assert_ne!(
        tests[0], tests[1],
        "a fresh private/test split per repetition"
    );
    // A public share beside a rule is a spec error naming `split`.
    let text = rule_spec("toy", "group", "A", "0.1").replace("private: 0.8", "private: 0.7");
    let e = match validate(parse_str(&text, &path).unwrap(), &path, &[data.join("m")]) {
        Ok(_) => panic!("a public share beside a rule validated"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("split") && e.contains("must be 0"), "{e}");
    // A column the file does not have is named, with the file's columns.
    let text = rule_spec("toy", "team", "A", "0");
    let exp = validate(parse_str(&text, &path).unwrap(), &path, &[data.join("m")]).unwrap();
    let e = exp.datasets[0].load(Some(&data)).unwrap_err().to_string();
    assert!(e.contains("\"team\"") && e.contains("group, x, y"), "{e}");
}

/// `public_sample` (LPCT card §10.1: the authors cut each file once into a public and a
/// private file): a fixed random set of `rows` rows is public in every repetition — the
/// same set whatever the repetition, drawn from the spec seed — and the other rows are
/// split 80/20 afresh per repetition. A second seed draws another set; `rows` as large as
/// the file is a spec error naming the field.
#[test]
fn a_public_sample_is_fixed_across_repetitions_and_seeded() {
    use dp_repro::spec::{parse_str, validate};
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(data.join("m")).unwrap();
    let mut csv = String::from("x,y\n");
    for i in 0..40 {
        csv.push_str(&format!("{i},{i}\n"));
    }
    std::fs::write(data.join("toy.csv"), &csv).unwrap();
    let sha = dp_repro::data::load::sha256_bytes(csv.as_bytes());
    let manifest = format!("name: toy\nfile: toy.csv\ntask: regression\nlabel_column: 1\nhas_header: true\nsha256: {sha}\nn_rows: 40\nn_features: 1\nsource: {{repository: a/b, commit: c, path: toy.csv}}\n");
    std::fs::write(data.join("m/toy.yaml"), manifest).unwrap();
    let spec = |seed: u64, rows: usize| {
        format!("name: t\nseed: {seed}\nrepetitions: 2\ndatasets:\n  - {{name: toy-sample, public_sample: {{dataset: toy, rows: {rows}}}}}\nsplit: {{public: 0, private: 0.8, test: 0.2}}\nscaling: none\nepsilons: [1]\nmethods:\n  - method: LPDT-M\n    grid: {{depth: [1], min_leaf: [1]}}\n")
    };
    let path = dir.path().join("s.yaml");
    let public_of = |seed: u64| {
        let exp = validate(
            parse_str(&spec(seed, 8), &path).unwrap(),
            &path,
            &[data.join("m")],
        )
        .unwrap();
        let plan = &exp.datasets[0];
        let all = plan.load(Some(&data)).unwrap().unwrap().dataset;
        assert_eq!((all.fixed_public, plan.split_rows(&all)), (8, 32));
        let mut sets = Vec::new();
        for rep in 1..=2 {
            let r = dp_repro::run::repetition_data(&exp, plan, Some(&all), rep).unwrap();
            assert_eq!((r.public.n(), r.private.n() + r.test.n()), (8, 32));
            let mut p = r.public.y.clone();
            p.sort_by(f64::total_cmp);
            let mut rest: Vec<f64> = r
                .private
                .escape(Escape::Bookkeeping)
                .y
                .iter()
                .chain(&r.test.y)
                .cloned()
                .collect();
            rest.extend(&p);
            rest.sort_by(f64::total_cmp);
            assert_eq!(
                rest,
                (0..40).map(f64::from).collect::<Vec<_>>(),
                "a partition of the rows"
            );
            sets.push((p, r.test.y.clone()));
        }
        assert_eq!(
            sets[0].0, sets[1].0,
            "the same public rows in every repetition"
        );
        assert_ne!(sets[0].1, sets[1].1, "a fresh test split per repetition");
        sets[0].0.clone()
    };
    assert_eq!(public_of(1), public_of(1));
    assert_ne!(
        public_of(1),
        public_of(2),
        "another seed, another public sample"
    );
    let Err(err) = validate(
        parse_str(&spec(1, 40), &path).unwrap(),
        &path,
        &[data.join("m")],
    ) else {
        panic!("rows = n must be refused")
    };
    assert!(err.to_string().contains("public_sample.rows"), "{err}");
}
