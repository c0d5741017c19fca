//! The binary cache of loaded data sets: after a data file of at least
//! [`CACHE_MIN_BYTES`] is parsed, the loaded features and labels are written to a cache
//! file whose name is a hash of the file's sha256 and of everything in the manifest that
//! shapes the parse (label column, header, task, missing policy, `encode` rules), so a
//! changed manifest never meets a stale entry. A later load maps that file into memory
//! (`memmap2`, a private copy-on-write mapping) instead of parsing: the matrix is the
//! mapping itself, so nothing is copied until a value is written (scaling, a split).
//!
//! The cache folder is `DP_REPRO_CACHE` if set (`off` disables the cache), else the
//! per-user cache folder (Linux `$XDG_CACHE_HOME/dp-repro` or `~/.cache/dp-repro`, macOS
//! `~/Library/Caches/dp-repro`, Windows `%LOCALAPPDATA%\dp-repro\cache`). Entries can be
//! deleted at any time.
//!
//! A cache file is used only if its length, header checksum, key and the hash of its values
//! (xxh3, checked on every load) are right; otherwise it is reported, removed and rebuilt
//! from the data file. Beside each entry a small stamp records the data file's path, size,
//! modification and change times and inode when its sha256 was last verified; while they are
//! unchanged the sha256 is not computed again (the change time moves on any write to the
//! file and cannot be set back by tools, so an edited file is hashed again).

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::file::{sha256_bytes, Loaded};
use super::manifest::Manifest;
use super::{Buffer, Dataset, Matrix, Task};

/// The environment variable naming the cache folder; the value `off` disables the cache.
pub const CACHE_DIR_ENV: &str = "DP_REPRO_CACHE";

/// Data files smaller than this (16 MiB) are parsed on every load and never cached: they
/// parse in well under a second.
pub const CACHE_MIN_BYTES: u64 = 16 << 20;

/// Version of the cache file layout and of the key; a new version ignores old entries.
const FORMAT: u64 = 1;

/// First bytes of every cache file.
const MAGIC: &[u8; 8] = b"DPRCACHE";

/// Values are hashed in blocks of this many bytes, in parallel.
const HASH_BLOCK: usize = 16 << 20;

/// Fixed part of the header: magic, format, header length, n, d, dropped rows, task,
/// numbers of categorical and unbinned features (8 bytes each), the values' hash (16) and
/// the key (64 hex digits).
const FIXED_HEADER: usize = 8 * 9 + 16 + 64;

/// Where and whether loaded data sets are cached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheOptions {
    /// The cache folder (created when first needed); None disables the cache.
    pub dir: Option<PathBuf>,
    /// Files smaller than this many bytes are not cached.
    pub min_bytes: u64,
}

impl CacheOptions {
    /// The cache as the environment configures it: folder `DP_REPRO_CACHE` if set and not
    /// empty (`off` disables the cache), else the per-user cache folder
    /// ([`user_cache_dir`]); files of at least [`CACHE_MIN_BYTES`].
    pub fn from_env() -> CacheOptions {
        let dir = match std::env::var_os(CACHE_DIR_ENV) {
            Some(v) if v == "off" => None,
            Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
            _ => user_cache_dir(),
        };
        CacheOptions {
            dir,
            min_bytes: CACHE_MIN_BYTES,
        }
    }

    /// No cache: every load parses the data file.
    pub fn off() -> CacheOptions {
        CacheOptions {
            dir: None,
            min_bytes: u64::MAX,
        }
    }

    /// The cache entry of manifest `m`'s data file `path` (`size` bytes), if that file is
    /// cached under these options.
    pub(crate) fn entry(&self, m: &Manifest, path: &Path, size: u64) -> Option<Entry> {
        let dir = self.dir.as_ref().filter(|_| size >= self.min_bytes)?;
        if cfg!(target_endian = "big") {
            return None;
        }
        let key = cache_key(m, path);
        Some(Entry {
            data: dir.join(format!("{key}.bin")),
            stamp: dir.join(format!("{key}.verified")),
            key,
        })
    }
}

/// The per-user cache folder: Linux `$XDG_CACHE_HOME/dp-repro` or `~/.cache/dp-repro`,
/// macOS `~/Library/Caches/dp-repro`, Windows `%LOCALAPPDATA%\dp-repro\cache` (the
/// `directories` crate, as [`super::user_data_dir`]). None without a home folder.
pub fn user_cache_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "dp-repro").map(|p| p.cache_dir().to_path_buf())
}

/// What of a manifest shapes the loaded data: the cache key hashes it with the file's
/// sha256 and the layout version.
#[derive(Serialize)]
struct KeyFields<'a> {
    format: u64,
    sha256: String,
    kind: &'a str,
    label_column: usize,
    has_header: bool,
    task: Task,
    missing: super::MissingPolicy,
    encode: &'a Option<super::manifest::Encoding>,
}

/// The cache key of manifest `m`'s data (file `path`): 64 hex digits.
fn cache_key(m: &Manifest, path: &Path) -> String {
    let fields = KeyFields {
        format: FORMAT,
        sha256: m.sha256.to_ascii_lowercase(),
        kind: path.extension().and_then(|e| e.to_str()).unwrap_or(""),
        label_column: m.label_column,
        has_header: m.has_header,
        task: m.task,
        missing: m.missing,
        encode: &m.encode,
    };
    sha256_bytes(&serde_json::to_vec(&fields).expect("key fields serialize"))
}

/// One cache entry: the values file and the stamp of the data file's last verification.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    key: String,
    data: PathBuf,
    stamp: PathBuf,
}

/// What identifies a data file's bytes without reading them: path, size, modification
/// and change times (nanoseconds) and inode. Any write to the file changes its change time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileStamp {
    path: PathBuf,
    len: u64,
    modified_ns: i128,
    changed_ns: i128,
    inode: u64,
    device: u64,
}

impl FileStamp {
    /// The stamp of the file at `path` now.
    pub(crate) fn of(path: &Path) -> io::Result<FileStamp> {
        let meta = fs::metadata(path)?;
        let since_epoch = |t: io::Result<std::time::SystemTime>| {
            t.ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(-1, |d| d.as_nanos() as i128)
        };
        #[cfg(unix)]
        let (changed_ns, inode, device) = {
            use std::os::unix::fs::MetadataExt;
            (
                meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128,
                meta.ino(),
                meta.dev(),
            )
        };
        #[cfg(not(unix))]
        let (changed_ns, inode, device) = (since_epoch(meta.created()), 0, 0);
        Ok(FileStamp {
            path: fs::canonicalize(path)?,
            len: meta.len(),
            modified_ns: since_epoch(meta.modified()),
            changed_ns,
            inode,
            device,
        })
    }
}

/// How long ago (2 s) a data file must have last changed for its verification to be
/// remembered (file times have a resolution of a clock tick, up to a second on some file
/// systems).
pub const SETTLE_NS: i128 = 2_000_000_000;

impl FileStamp {
    /// Whether the file last changed (modification and change time) at least
    /// [`SETTLE_NS`] before `now`.
    fn settled(&self, now: std::time::SystemTime) -> bool {
        let now = now
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        self.modified_ns.max(self.changed_ns) <= now - SETTLE_NS
    }
}

/// Why a cache file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unusable(pub String);

impl Entry {
    /// The cache file.
    pub(crate) fn path(&self) -> &Path {
        &self.data
    }

    /// Whether the cache file exists (usable or not).
    pub(crate) fn exists(&self) -> bool {
        self.data.is_file()
    }

    /// Whether the data file was verified against the manifest's sha256 while it had
    /// exactly this stamp.
    pub(crate) fn verified(&self, stamp: &FileStamp) -> bool {
        fs::read(&self.stamp)
            .ok()
            .and_then(|b| serde_json::from_slice::<FileStamp>(&b).ok())
            .is_some_and(|s| s == *stamp)
    }

    /// Records that the data file with `stamp` has the manifest's sha256 (best effort: a
    /// stamp that cannot be written only means hashing again next time). A file changed
    /// less than [`SETTLE_NS`] ago is not recorded: a second change within the same tick of
    /// the file system's clock could leave its times as they are.
    pub(crate) fn record_verified(&self, stamp: &FileStamp) {
        if stamp.settled(std::time::SystemTime::now()) {
            self.write_stamp(stamp);
        }
    }

    /// Writes `stamp` as this entry's stamp.
    fn write_stamp(&self, stamp: &FileStamp) {
        if let Some(dir) = self.stamp.parent() {
            let tmp = temp_name(dir, &self.key, "verified");
            let text = serde_json::to_vec(stamp).expect("stamp serializes");
            let ok = fs::create_dir_all(dir).is_ok()
                && fs::write(&tmp, text).is_ok()
                && fs::rename(&tmp, &self.stamp).is_ok();
            if !ok {
                let _ = fs::remove_file(&tmp);
            }
        }
    }

    /// The cached data set, Ok(None) when there is no entry, or why the entry cannot be
    /// used (it is then removed; the stamp, which is about the data file, stays).
    pub(crate) fn open(&self, name: &str) -> Result<Option<Loaded>, Unusable> {
        let file = match File::open(&self.data) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Unusable(format!("cannot open it: {e}"))),
        };
        let result = read_entry(&file, &self.key, name);
        if result.is_err() {
            let _ = fs::remove_file(&self.data);
        }
        result.map(Some)
    }

    /// Writes `loaded` as this entry (to a temporary file renamed into place, so a reader
    /// never sees a partial file, and concurrent writers each write a whole one).
    ///
    /// # Errors
    /// The I/O error of creating the folder or writing the file.
    pub(crate) fn store(&self, loaded: &Loaded) -> io::Result<()> {
        let dir = self.data.parent().unwrap_or(Path::new("."));
        fs::create_dir_all(dir)?;
        let tmp = temp_name(dir, &self.key, "bin");
        let written =
            write_entry(&tmp, &self.key, loaded).and_then(|()| fs::rename(&tmp, &self.data));
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written
    }
}

/// A temporary file name in `dir` unique to this process and moment.
fn temp_name(dir: &Path, key: &str, ext: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    dir.join(format!(".{key}.{}.{nanos}.{ext}.tmp", std::process::id()))
}

/// Hash of a cache file's values: xxh3-128 of the xxh3-64 hashes of the 16 MiB blocks of
/// the feature bytes, then of the label bytes (blocks hashed in parallel).
fn values_hash(x: &[u8], y: &[u8]) -> u128 {
    let blocks: Vec<u64> = x
        .par_chunks(HASH_BLOCK)
        .chain(y.par_chunks(HASH_BLOCK))
        .map(xxhash_rust::xxh3::xxh3_64)
        .collect();
    let bytes: Vec<u8> = blocks.iter().flat_map(|h| h.to_le_bytes()).collect();
    xxhash_rust::xxh3::xxh3_128(&bytes)
}

/// The header of a cache file for `ds` (padded to a multiple of 4096 bytes, so the values
/// start page-aligned), given the values' hash.
fn header(key: &str, loaded: &Loaded, hash: u128) -> Vec<u8> {
    let ds = &loaded.dataset;
    let mut h = Vec::with_capacity(4096);
    h.extend_from_slice(MAGIC);
    let variable = 8 * (ds.categorical.len() + ds.unbinned.len());
    let len = (FIXED_HEADER + variable + 8).div_ceil(4096) * 4096;
    let task = match ds.task {
        Task::Regression => 0u64,
        Task::Classification => 1,
    };
    for v in [
        FORMAT,
        len as u64,
        ds.n() as u64,
        ds.d() as u64,
        loaded.dropped_rows as u64,
        task,
        ds.categorical.len() as u64,
        ds.unbinned.len() as u64,
    ] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    h.extend_from_slice(&hash.to_le_bytes());
    h.extend_from_slice(key.as_bytes());
    for &k in ds.categorical.iter().chain(&ds.unbinned) {
        h.extend_from_slice(&(k as u64).to_le_bytes());
    }
    let check = xxhash_rust::xxh3::xxh3_64(&h);
    h.extend_from_slice(&check.to_le_bytes());
    h.resize(len, 0);
    h
}

/// Writes the cache file of `loaded` at `path`.
fn write_entry(path: &Path, key: &str, loaded: &Loaded) -> io::Result<()> {
    let ds = &loaded.dataset;
    let x: &[u8] = bytemuck::cast_slice(&ds.x.data[..]);
    let y: &[u8] = bytemuck::cast_slice(&ds.y[..]);
    let header = header(key, loaded, values_hash(x, y));
    let file = File::create(path)?;
    // Reserving the file's blocks first makes the writes below plain copies into the page
    // cache: on ext4, a 1.6 GB entry written without it took 2.2 s of kernel time in
    // block allocation (0.3 s with it). Best effort: a file system without fallocate
    // just allocates as it writes.
    let _ = fs4::fs_std::FileExt::allocate(&file, (header.len() + x.len() + y.len()) as u64);
    let mut w = BufWriter::with_capacity(1 << 20, file);
    w.write_all(&header)?;
    w.write_all(x)?;
    w.write_all(y)?;
    // No fsync: a file cut short by a crash is refused by its length and hash checks.
    w.flush()
}

/// Little-endian u64 at byte `at` of `b`.
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Reads and checks a cache file: the data set (named `name`) over a private mapping of
/// it, or why it cannot be used.
fn read_entry(file: &File, key: &str, name: &str) -> Result<Loaded, Unusable> {
    let bad = |why: &str| Unusable(why.to_string());
    let file_len = file
        .metadata()
        .map_err(|e| Unusable(format!("cannot read it: {e}")))?
        .len() as usize;
    if file_len < FIXED_HEADER + 8 {
        return Err(bad("truncated: shorter than its header"));
    }
    // SAFETY: a private (copy-on-write) mapping: writes through it never reach the file.
    // Cache files are written whole to a temporary name and renamed into place, never
    // changed in place, so the mapped bytes do not change under us.
    let map = unsafe { memmap2::MmapOptions::new().populate().map_copy(file) }
        .map_err(|e| Unusable(format!("cannot map it: {e}")))?;
    if &map[..8] != MAGIC || u64_at(&map, 8) != FORMAT {
        return Err(bad("not a dp-repro cache file of this version"));
    }
    let field = |i: usize| u64_at(&map, 8 + 8 * i) as usize;
    let (header_len, n, d, dropped, task, n_cat, n_unb) = (
        field(1),
        field(2),
        field(3),
        field(4),
        field(5),
        field(6),
        field(7),
    );
    let listed = n_cat.checked_add(n_unb).and_then(|k| k.checked_mul(8));
    let check_at = match listed.and_then(|l| l.checked_add(FIXED_HEADER)) {
        Some(at) if at + 8 <= header_len && header_len <= file_len && header_len % 8 == 0 => at,
        _ => return Err(bad("corrupt header (its lengths do not fit the file)")),
    };
    if xxhash_rust::xxh3::xxh3_64(&map[..check_at]) != u64_at(&map, check_at) {
        return Err(bad("corrupt header (checksum mismatch)"));
    }
    if &map[FIXED_HEADER - 64..FIXED_HEADER] != key.as_bytes() {
        return Err(bad("it belongs to another key"));
    }
    let values = n.checked_mul(d).and_then(|nd| nd.checked_add(n));
    let expected_len = values
        .and_then(|v| v.checked_mul(8))
        .and_then(|b| b.checked_add(header_len));
    if expected_len != Some(file_len) {
        return Err(Unusable(format!(
            "truncated or padded: {file_len} bytes, but its header says {}",
            expected_len.map_or("more than addressable".to_string(), |l| l.to_string())
        )));
    }
    let (x_end, hash_at) = (header_len + 8 * n * d, 8 * 8 + 8);
    let stored = u128::from_le_bytes(map[hash_at..hash_at + 16].try_into().expect("16 bytes"));
    if values_hash(&map[header_len..x_end], &map[x_end..]) != stored {
        return Err(bad("corrupt values (hash mismatch)"));
    }
    let indices = |from: usize, k: usize| -> Vec<usize> {
        (0..k)
            .map(|i| u64_at(&map, from + 8 * i) as usize)
            .collect()
    };
    let categorical = indices(FIXED_HEADER, n_cat);
    let unbinned = indices(FIXED_HEADER + 8 * n_cat, n_unb);
    let y: Vec<f64> = bytemuck::pod_collect_to_vec(&map[x_end..]);
    let task = match task {
        0 => Task::Regression,
        1 => Task::Classification,
        _ => return Err(bad("corrupt header (unknown task)")),
    };
    let buffer = Arc::new(Buffer::mapped(map, header_len, n * d));
    Ok(Loaded {
        dataset: Dataset {
            name: name.to_string(),
            x: Matrix::shared(n, d, buffer, 0),
            y,
            task,
            fixed_public: 0,
            categorical,
            unbinned,
            leaf_occupancy: None,
        },
        dropped_rows: dropped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loaded() -> Loaded {
        Loaded {
            dataset: Dataset {
                name: "t".into(),
                x: Matrix::new(3, 2, vec![1.0, -2.5, 3.25, f64::MIN_POSITIVE, -0.0, 6.0]),
                y: vec![0.0, 1.0, 2.0],
                task: Task::Classification,
                fixed_public: 0,
                categorical: vec![1],
                unbinned: vec![0],
                leaf_occupancy: None,
            },
            dropped_rows: 4,
        }
    }

    fn entry(dir: &Path) -> Entry {
        Entry {
            key: "k".repeat(64),
            data: dir.join("e.bin"),
            stamp: dir.join("e.verified"),
        }
    }

    fn bits(l: &Loaded) -> (Vec<u64>, Vec<u64>) {
        (
            l.dataset.x.data.iter().map(|v| v.to_bits()).collect(),
            l.dataset.y.iter().map(|v| v.to_bits()).collect(),
        )
    }

    #[test]
    fn a_stored_entry_reads_back_bit_for_bit_over_a_mapping() {
        let dir = tempfile::tempdir().unwrap();
        let e = entry(dir.path());
        assert_eq!(e.open("t").unwrap().map(|l| l.dropped_rows), None);
        e.store(&loaded()).unwrap();
        let back = e.open("renamed").unwrap().unwrap();
        assert_eq!(bits(&back), bits(&loaded()));
        assert!(back.dataset.x.data.is_shared());
        assert_eq!(back.dataset.name, "renamed");
        assert_eq!(
            (
                back.dataset.categorical.clone(),
                back.dataset.unbinned.clone()
            ),
            (vec![1], vec![0])
        );
        assert_eq!(
            (back.dataset.task, back.dropped_rows),
            (Task::Classification, 4)
        );
        // Writing through the mapping changes the data set, never the file.
        let mut ds = back.dataset;
        ds.x.data[0] = 99.0;
        assert_eq!(ds.x.get(0, 0), 99.0);
        assert_eq!(bits(&e.open("t").unwrap().unwrap()), bits(&loaded()));
    }

    #[test]
    fn truncated_corrupt_and_foreign_files_are_refused_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let e = entry(dir.path());
        e.store(&loaded()).unwrap();
        let good = fs::read(e.path()).unwrap();
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (good[..good.len() - 8].to_vec(), "truncated"),
            (good[..100].to_vec(), "truncated"),
            (
                {
                    let mut b = good.clone();
                    *b.last_mut().unwrap() ^= 1;
                    b
                },
                "hash mismatch",
            ),
            (
                {
                    let mut b = good.clone();
                    b[4096] ^= 0x80;
                    b
                },
                "hash mismatch",
            ),
            (
                {
                    let mut b = good.clone();
                    b[8 * 3] ^= 1;
                    b
                },
                "header",
            ),
            (
                {
                    let mut b = good.clone();
                    b[0] = b'X';
                    b
                },
                "not a dp-repro cache file",
            ),
            (
                {
                    let mut b = good.clone();
                    b.extend_from_slice(&[0; 8]);
                    b
                },
                "padded",
            ),
        ];
        for (bytes, why) in cases {
            fs::write(e.path(), &bytes).unwrap();
            let err = e.open("t").unwrap_err();
            assert!(err.0.contains(why), "{why}: {}", err.0);
            assert!(!e.path().exists(), "{why}: the unusable file is removed");
        }
        // Another key's file.
        fs::write(e.path(), &good).unwrap();
        let other = Entry {
            key: "j".repeat(64),
            ..e.clone()
        };
        assert!(other.open("t").unwrap_err().0.contains("another key"));
    }

    #[test]
    fn stamps_match_only_the_same_file_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let e = entry(dir.path());
        let data = dir.path().join("d.csv");
        fs::write(&data, "1,2\n").unwrap();
        let stamp = FileStamp::of(&data).unwrap();
        assert!(!e.verified(&stamp));
        // Just written: not remembered yet.
        e.record_verified(&stamp);
        assert!(!e.verified(&stamp));
        e.write_stamp(&stamp);
        assert!(e.verified(&FileStamp::of(&data).unwrap()));
        // A file of the same size put in its place (another inode), or one grown.
        let other = dir.path().join("other.csv");
        fs::write(&other, "3,4\n").unwrap();
        fs::rename(&other, &data).unwrap();
        assert!(!e.verified(&FileStamp::of(&data).unwrap()));
        e.write_stamp(&FileStamp::of(&data).unwrap());
        fs::OpenOptions::new()
            .append(true)
            .open(&data)
            .unwrap()
            .write_all(b"5,6\n")
            .unwrap();
        assert!(!e.verified(&FileStamp::of(&data).unwrap()));
    }

    #[test]
    fn only_files_unchanged_for_two_seconds_are_settled() {
        let second = 1_000_000_000i128;
        let at = |ns: i128| std::time::UNIX_EPOCH + std::time::Duration::from_nanos(ns as u64);
        let stamp = FileStamp {
            path: PathBuf::from("/d.csv"),
            len: 4,
            modified_ns: 100 * second,
            changed_ns: 101 * second,
            inode: 1,
            device: 1,
        };
        assert!(stamp.settled(at(103 * second)));
        assert!(!stamp.settled(at(103 * second - 1)));
    }
}
