//! Parquet input: a small file written here (two row groups, nulls, strings, integers, a
//! 32-bit float, snappy and zstd) loads as its CSV export does, through a manifest, with
//! the CSV rules for missing values, class labels and `encode`, and with errors that name
//! the line and column the cell has in that CSV export.

mod common;
use std::fs::{self, File};
use std::path::Path;
use std::sync::Arc;

use dp_repro::data::{
    load_manifest, load_manifest_dataset_cached, CacheOptions, DataError, Loaded, Manifest,
};
use parquet::basic::{Compression, ZstdLevel};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, FloatType, Int32Type, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

/// One column of a test table: values by row, None for a null.
enum Col {
    F64(Vec<Option<f64>>),
    F32(Vec<f32>),
    I64(Vec<i64>),
    Text(Vec<Option<&'static str>>),
}

/// Definition levels and the non-null values of an optional column.
fn levels<T: Clone>(v: &[Option<T>]) -> (Vec<i16>, Vec<T>) {
    (
        v.iter().map(|x| i16::from(x.is_some())).collect(),
        v.iter().flatten().cloned().collect(),
    )
}

/// Writes `groups` (each a list of columns of equal length) under `schema`.
fn write_parquet(path: &Path, schema: &str, compression: Compression, groups: &[Vec<Col>]) {
    let schema = Arc::new(parse_message_type(schema).unwrap());
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(compression)
            .build(),
    );
    let mut w = SerializedFileWriter::new(File::create(path).unwrap(), schema, props).unwrap();
    for group in groups {
        let mut rg = w.next_row_group().unwrap();
        for col in group {
            let mut c = rg.next_column().unwrap().unwrap();
            match col {
                Col::F64(v) => {
                    let (def, vals) = levels(v);
                    c.typed::<DoubleType>()
                        .write_batch(&vals, Some(&def), None)
                        .unwrap();
                }
                Col::F32(v) => {
                    c.typed::<FloatType>().write_batch(v, None, None).unwrap();
                }
                Col::I64(v) => {
                    c.typed::<Int64Type>().write_batch(v, None, None).unwrap();
                }
                Col::Text(v) => {
                    let (def, vals) = levels(v);
                    let vals: Vec<ByteArray> = vals.into_iter().map(ByteArray::from).collect();
                    c.typed::<ByteArrayType>()
                        .write_batch(&vals, Some(&def), None)
                        .unwrap();
                }
            }
            c.close().unwrap();
        }
        rg.close().unwrap();
    }
    w.close().unwrap();
}

/// A regression manifest for `file` in `dir` (sha256 computed), with extra YAML lines.
fn manifest(dir: &Path, file: &str, rows: usize, d: usize, extra: &str) -> Manifest {
    manifest_for(dir, file, "regression", rows, d, extra)
}

/// A manifest of task `task` for `file` in `dir`, with extra YAML lines.
fn manifest_for(
    dir: &Path,
    file: &str,
    task: &str,
    rows: usize,
    d: usize,
    extra: &str,
) -> Manifest {
    let sha = dp_repro::data::sha256_file(&dir.join(file)).unwrap();
    let name = file.replace('.', "_");
    let yaml = format!(
        "name: {name}\nfile: {file}\ntask: {task}\nlabel_column: 0\nhas_header: true\n\
         sha256: {sha}\nn_rows: {rows}\nn_features: {d}\n\
         source: {{repository: a/b, commit: c, path: {file}}}\n{extra}"
    );
    let path = dir.join(format!("{name}.yaml"));
    fs::write(&path, yaml).unwrap();
    load_manifest(&path).unwrap()
}

fn load(m: &Manifest, dir: &Path) -> Result<Loaded, DataError> {
    load_manifest_dataset_cached(m, Some(dir), &CacheOptions::off())
}

use common::loaded_bits as bits;

const SCHEMA: &str = "message m { REQUIRED DOUBLE y; OPTIONAL DOUBLE a; REQUIRED INT64 b; \
                      OPTIONAL BYTE_ARRAY s (UTF8); REQUIRED FLOAT f; }";

/// The test table in two row groups, and its CSV export.
fn table(a_null: bool) -> (Vec<Vec<Col>>, String) {
    let groups = vec![
        vec![
            Col::F64(vec![Some(1.5), Some(-0.0)]),
            Col::F64(vec![Some(0.1), Some(1e300)]),
            Col::I64(vec![3, -(1 << 60)]),
            Col::Text(vec![Some(" 2.5 "), Some("7")]),
            Col::F32(vec![0.1, 3.25]),
        ],
        vec![
            Col::F64(vec![Some(2.0)]),
            Col::F64(vec![if a_null { None } else { Some(5e-324) }]),
            Col::I64(vec![i64::MAX]),
            Col::Text(vec![Some("-1e-3")]),
            Col::F32(vec![16_777_217.0]),
        ],
    ];
    let a3 = if a_null { "" } else { "5e-324" };
    let csv = format!(
        "y,a,b,s,f\n1.5,0.1,3, 2.5 ,0.1\n-0.0,1e300,-1152921504606846976,7,3.25\n\
         2.0,{a3},9223372036854775807,-1e-3,16777216.0\n"
    );
    (groups, csv)
}

#[test]
fn a_parquet_file_loads_as_its_csv_export_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let (groups, csv) = table(false);
    for (file, compression) in [
        ("t_snappy.parquet", Compression::SNAPPY),
        ("t_zstd.parquet", Compression::ZSTD(ZstdLevel::default())),
    ] {
        write_parquet(&dir.path().join(file), SCHEMA, compression, &groups);
        fs::write(dir.path().join("t.csv"), &csv).unwrap();
        let from_parquet = load(&manifest(dir.path(), file, 3, 4, ""), dir.path()).unwrap();
        let from_csv = load(&manifest(dir.path(), "t.csv", 3, 4, ""), dir.path()).unwrap();
        assert_eq!(bits(&from_parquet), bits(&from_csv), "{file}");
        assert_eq!(from_parquet.dataset.y, vec![1.5, -0.0, 2.0]);
        assert_eq!(from_parquet.dataset.x.row(0), &[0.1, 3.0, 2.5, 0.1]);
        assert_eq!(from_parquet.dataset.x.get(2, 1), i64::MAX as f64);
    }
}

#[test]
fn nulls_follow_the_missing_policy_and_errors_name_the_csv_line() {
    let dir = tempfile::tempdir().unwrap();
    let (groups, _) = table(true);
    write_parquet(
        &dir.path().join("n.parquet"),
        SCHEMA,
        Compression::SNAPPY,
        &groups,
    );
    let err = load(&manifest(dir.path(), "n.parquet", 3, 4, ""), dir.path()).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("n.parquet: line 4, column 1 (\"a\"): empty cell")
            && msg.contains("drop_rows"),
        "{msg}"
    );
    let m = manifest(dir.path(), "n.parquet", 3, 4, "missing: drop_rows\n");
    let l = load(&m, dir.path()).unwrap();
    assert_eq!((l.dataset.n(), l.dropped_rows), (2, 1));
    // Text that is no number stays an error under every policy, named as in the CSV.
    let bad = vec![vec![
        Col::F64(vec![Some(1.0), Some(2.0)]),
        Col::F64(vec![Some(1.0), Some(2.0)]),
        Col::I64(vec![1, 2]),
        Col::Text(vec![Some("3"), Some("abc")]),
        Col::F32(vec![1.0, 2.0]),
    ]];
    write_parquet(
        &dir.path().join("b.parquet"),
        SCHEMA,
        Compression::UNCOMPRESSED,
        &bad,
    );
    let m = manifest(dir.path(), "b.parquet", 2, 4, "missing: drop_rows\n");
    let msg = load(&m, dir.path()).unwrap_err().to_string();
    assert!(
        msg.contains("line 3, column 3 (\"s\"): \"abc\" is not a number"),
        "{msg}"
    );
}

#[test]
fn classification_labels_and_encode_rules_apply_to_parquet() {
    let dir = tempfile::tempdir().unwrap();
    let schema = "message m { REQUIRED INT64 label; REQUIRED DOUBLE a; \
                  REQUIRED BYTE_ARRAY colour (UTF8); }";
    let groups = vec![vec![
        Col::I64(vec![1, 0, 1]),
        Col::F64(vec![Some(0.5), Some(1.5), Some(2.5)]),
        Col::Text(vec![Some("red"), Some("blue"), Some("red")]),
    ]];
    write_parquet(
        &dir.path().join("c.parquet"),
        schema,
        Compression::SNAPPY,
        &groups,
    );
    let extra = "encode: {one_hot: [colour]}\n";
    let m = manifest_for(dir.path(), "c.parquet", "classification", 3, 3, extra);
    let l = load(&m, dir.path()).unwrap();
    // One-hot categories sorted: blue, red.
    assert_eq!(l.dataset.y, vec![1.0, 0.0, 1.0]);
    assert_eq!(
        l.dataset.x.data,
        vec![0.5, 0.0, 1.0, 1.5, 1.0, 0.0, 2.5, 0.0, 1.0]
    );
    // The same table as CSV, through the same rules.
    let csv = "label,a,colour\n1,0.5,red\n0,1.5,blue\n1,2.5,red\n";
    fs::write(dir.path().join("c.csv"), csv).unwrap();
    let c = manifest_for(dir.path(), "c.csv", "classification", 3, 3, extra);
    assert_eq!(bits(&load(&c, dir.path()).unwrap()), bits(&l));
    // A label that is not a class.
    let groups = vec![vec![
        Col::I64(vec![1, -2, 1]),
        Col::F64(vec![Some(0.5), Some(1.5), Some(2.5)]),
        Col::Text(vec![Some("red"), Some("blue"), Some("red")]),
    ]];
    write_parquet(
        &dir.path().join("d.parquet"),
        schema,
        Compression::SNAPPY,
        &groups,
    );
    let d = manifest_for(dir.path(), "d.parquet", "classification", 3, 3, extra);
    let msg = load(&d, dir.path()).unwrap_err().to_string();
    assert!(
        msg.contains("line 3, column 0 (\"label\"): class label \"-2\""),
        "{msg}"
    );
}

#[test]
fn unsupported_columns_and_headerless_manifests_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let schema = Arc::new(
        parse_message_type("message m { REQUIRED DOUBLE y; REQUIRED INT32 day (DATE); }").unwrap(),
    );
    let props = Arc::new(WriterProperties::builder().build());
    let path = dir.path().join("t.parquet");
    let mut w = SerializedFileWriter::new(File::create(&path).unwrap(), schema, props).unwrap();
    let mut rg = w.next_row_group().unwrap();
    let mut c = rg.next_column().unwrap().unwrap();
    c.typed::<DoubleType>()
        .write_batch(&[1.0], None, None)
        .unwrap();
    c.close().unwrap();
    let mut c = rg.next_column().unwrap().unwrap();
    c.typed::<Int32Type>()
        .write_batch(&[19_000], None, None)
        .unwrap();
    c.close().unwrap();
    rg.close().unwrap();
    w.close().unwrap();
    let err = load(&manifest(dir.path(), "t.parquet", 1, 1, ""), dir.path()).unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(err, DataError::Parquet { .. })
            && msg.contains("column 1 (\"day\")")
            && msg.contains("Date"),
        "{msg}"
    );
    // A file that is not Parquet.
    fs::write(dir.path().join("x.parquet"), "y,a\n1,2\n").unwrap();
    let msg = load(&manifest(dir.path(), "x.parquet", 1, 1, ""), dir.path())
        .unwrap_err()
        .to_string();
    assert!(msg.contains("not a readable Parquet file"), "{msg}");
    // has_header: false contradicts a schema.
    let yaml = dir.path().join("x_parquet.yaml");
    let text = fs::read_to_string(&yaml)
        .unwrap()
        .replace("has_header: true", "has_header: false");
    fs::write(&yaml, text).unwrap();
    let msg = load_manifest(&yaml).unwrap_err().to_string();
    assert!(
        msg.contains("`has_header`") && msg.contains("Parquet"),
        "{msg}"
    );
}
