//! Data at scale: the fast CSV path reads every data set bit for bit as the general
//! reader does; the binary cache returns the parsed data, is keyed by the file's sha256 and
//! the manifest's preprocessing, and rebuilds (with a message) an entry that is truncated
//! or corrupt; an altered data file is caught even when its cache entry exists.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use dp_repro::data::{
    list_manifests, load_csv_fast, load_csv_general, load_manifest, load_manifest_dataset,
    load_manifest_dataset_cached, CacheOptions, DataError, Manifest,
};

use common::loaded_bits as bits;

#[test]
fn the_fast_path_reads_every_data_set_as_the_general_reader() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets");
    let all = list_manifests(&[dir]).unwrap();
    let files: Vec<&str> = all.iter().map(|m| m.file.as_str()).collect();
    let Some(data) = common::real_data(&files) else {
        return;
    };
    let mut compared = 0;
    for m in all.iter().filter(|m| m.encode.is_none()) {
        let path = data.join(&m.file);
        let general = load_csv_general(&path, &m.name, m.format())
            .unwrap_or_else(|e| panic!("{}: {e}", m.name));
        let fast = load_csv_fast(&path, &m.name, m.format())
            .unwrap_or_else(|| panic!("{}: the fast path gave up", m.name));
        assert_eq!(bits(&fast), bits(&general), "{}", m.name);
        // And what a run loads (the manifest's checks, no cache below 16 MiB).
        let loaded = load_manifest_dataset(m, Some(&data)).unwrap();
        assert_eq!(bits(&loaded), bits(&general), "{}", m.name);
        compared += 1;
    }
    assert!(compared >= 14, "only {compared} plain numeric data sets");
}

/// A data folder with `t.csv` (`rows` rows of 4 columns) and its manifest, extra YAML lines
/// appended.
fn data_set(dir: &Path, rows: usize, extra: &str) -> Manifest {
    let mut text = String::from("y,a,b,c\n");
    for i in 0..rows {
        text.push_str(&format!("{},{}.5,-{i}e-3,{}\n", i % 11, i % 7, i * 3 % 5));
    }
    fs::write(dir.join("t.csv"), text).unwrap();
    write_manifest(dir, rows, extra)
}

fn write_manifest(dir: &Path, rows: usize, extra: &str) -> Manifest {
    let sha = dp_repro::data::sha256_file(&dir.join("t.csv")).unwrap();
    let yaml = format!(
        "name: t\nfile: t.csv\ntask: regression\nlabel_column: 0\nhas_header: true\n\
         sha256: {sha}\nn_rows: {rows}\nn_features: 3\n\
         source: {{repository: a/b, commit: c, path: t.csv}}\n{extra}"
    );
    fs::write(dir.join("t.yaml"), yaml).unwrap();
    load_manifest(&dir.join("t.yaml")).unwrap()
}

fn cache_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .map(|r| r.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "bin"));
    files.sort();
    files
}

#[test]
fn the_cache_returns_the_parsed_data_keyed_by_file_and_preprocessing() {
    let data = tempfile::tempdir().unwrap();
    let cache_dir = tempfile::tempdir().unwrap();
    let cache = CacheOptions {
        dir: Some(cache_dir.path().to_path_buf()),
        min_bytes: 0,
    };
    let m = data_set(data.path(), 500, "");
    let parsed = load_manifest_dataset_cached(&m, Some(data.path()), &cache).unwrap();
    assert!(!parsed.dataset.x.data.is_shared(), "the first load parses");
    assert_eq!(cache_files(cache_dir.path()).len(), 1);
    let cached = load_manifest_dataset_cached(&m, Some(data.path()), &cache).unwrap();
    assert!(
        cached.dataset.x.data.is_shared(),
        "the second load maps the cache file"
    );
    assert_eq!(bits(&cached), bits(&parsed));
    assert_eq!(cached.dataset.name, "t");
    // Another label column is another entry, parsed afresh.
    let other = Manifest {
        label_column: 2,
        ..m.clone()
    };
    let l = load_manifest_dataset_cached(&other, Some(data.path()), &cache).unwrap();
    assert!(!l.dataset.x.data.is_shared());
    assert_eq!(l.dataset.y[1], -1e-3);
    assert_eq!(cache_files(cache_dir.path()).len(), 2);
    // Small files are not cached under the default threshold.
    let off = CacheOptions {
        min_bytes: dp_repro::data::cache::CACHE_MIN_BYTES,
        ..cache.clone()
    };
    let small = Manifest {
        missing: dp_repro::data::MissingPolicy::DropRows,
        ..m.clone()
    };
    let l = load_manifest_dataset_cached(&small, Some(data.path()), &off).unwrap();
    assert!(!l.dataset.x.data.is_shared());
    assert_eq!(cache_files(cache_dir.path()).len(), 2);
}

#[test]
fn an_altered_data_file_is_caught_although_its_cache_entry_exists() {
    let data = tempfile::tempdir().unwrap();
    let cache_dir = tempfile::tempdir().unwrap();
    let cache = CacheOptions {
        dir: Some(cache_dir.path().to_path_buf()),
        min_bytes: 0,
    };
    let m = data_set(data.path(), 200, "");
    load_manifest_dataset_cached(&m, Some(data.path()), &cache).unwrap();
    load_manifest_dataset_cached(&m, Some(data.path()), &cache).unwrap();
    // Same size, one digit changed, written in place.
    let path = data.path().join("t.csv");
    let text = fs::read_to_string(&path).unwrap().replacen("1.5", "2.5", 1);
    fs::write(&path, text).unwrap();
    let err = load_manifest_dataset_cached(&m, Some(data.path()), &cache).unwrap_err();
    assert!(matches!(err, DataError::ChecksumMismatch { .. }), "{err}");
}

/// A spec over data set `t` for the CLI.
fn spec(dir: &Path) -> PathBuf {
    let p = dir.join("spec.yaml");
    fs::write(
        &p,
        "name: t\nseed: 1\nrepetitions: 1\ndatasets: [t]\n\
         split: {public: 0.1, private: 0.7, test: 0.2}\nepsilons: [1]\n\
         methods:\n  - method: DT\n    grid: {max_depth: [2]}\n",
    )
    .unwrap();
    p
}

#[test]
fn a_truncated_or_corrupt_cache_file_is_reported_and_rebuilt() {
    // Over the 16 MiB threshold, so that the command line caches it.
    let data = tempfile::tempdir().unwrap();
    let cache_dir = tempfile::tempdir().unwrap();
    data_set(data.path(), 1_000_000, "");
    assert!(fs::metadata(data.path().join("t.csv")).unwrap().len() >= 16 << 20);
    let spec = spec(data.path());
    let validate = || {
        let out = Command::cargo_bin("dp-repro")
            .unwrap()
            .args(["validate", spec.to_str().unwrap(), "--manifests"])
            .arg(data.path())
            .arg("--data-dir")
            .arg(data.path())
            .env("DP_REPRO_CACHE", cache_dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let first = validate();
    assert!(first.contains("cached in"), "{first}");
    let entry = cache_files(cache_dir.path()).pop().expect("a cache file");
    let good = fs::read(&entry).unwrap();
    assert_eq!(validate(), "", "a warm load says nothing");
    for (bytes, why) in [
        (good[..good.len() / 2].to_vec(), "truncated"),
        (
            {
                let mut b = good.clone();
                let k = b.len() - 100;
                b[k] ^= 1;
                b
            },
            "hash mismatch",
        ),
    ] {
        fs::write(&entry, bytes).unwrap();
        let err = validate();
        assert!(
            err.contains("unusable") && err.contains(why) && err.contains("rebuilding"),
            "{err}"
        );
        assert_eq!(fs::read(&entry).unwrap(), good, "rebuilt as it was");
    }
}
