//! Getting the data files: `dp-repro data fetch` downloads each manifest's file from its
//! pinned source, applies the manifest's declared conversions and verifies the sha256;
//! `dp-repro data list` says which files a data folder holds (docs/architecture.md, `data/`).
//!
//! A manifest's [`Source`] (repository, commit, path) gives the URL
//! `<base>/<repository>/<commit>/<path>`, with base `https://raw.githubusercontent.com`
//! ([`DEFAULT_BASE_URL`]) or a mirror, and the path percent-encoded segment by segment.
//! The download goes to `<file>.part` in the target folder; an interrupted download is
//! resumed with an HTTP `Range` request. Only a result with the manifest's sha256 is
//! renamed to the final name, so a folder never holds an unverified file under a data
//! file's name.

// FetchError carries the names, URLs and checksums its messages need; it is returned once
// per file download, so its size does not matter.
#![allow(clippy::result_large_err)]

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use thiserror::Error;

use super::error::DataError;
use super::file::{sha256_bytes, sha256_file};
pub use super::manifest::Conversion;
use super::manifest::{Manifest, Source};

/// The base URL of pinned GitHub file contents; `--mirror URL` replaces it.
pub const DEFAULT_BASE_URL: &str = "https://raw.githubusercontent.com";

/// Characters left as they are in a URL path segment: RFC 3986 unreserved characters.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The pinned URL of a source: `<base>/<repository>/<commit>/<path>`, each segment of the
/// path percent-encoded (a space becomes `%20`), `base` without its trailing `/`.
pub fn source_url(base: &str, source: &Source) -> String {
    let path: Vec<String> = source
        .path
        .split('/')
        .map(|seg| utf8_percent_encode(seg, SEGMENT).to_string())
        .collect();
    format!(
        "{}/{}/{}/{}",
        base.trim_end_matches('/'),
        source.repository,
        source.commit,
        path.join("/")
    )
}

/// Whether a data folder holds a manifest's file, and whether it is the right one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileStatus {
    /// Present, with the manifest's sha256.
    Verified,
    /// Present, with another sha256 (given).
    Altered {
        /// The file's sha256.
        actual: String,
    },
    /// Not in the folder.
    Absent,
}

/// The status of manifest `m`'s file in folder `dir` (hashing it if present).
///
/// # Errors
/// [`DataError::Io`] if the file exists but cannot be read.
pub fn file_status(m: &Manifest, dir: &Path) -> Result<FileStatus, DataError> {
    let path = dir.join(&m.file);
    if !path.is_file() {
        return Ok(FileStatus::Absent);
    }
    let actual = sha256_file(&path)?;
    Ok(if actual == m.sha256 {
        FileStatus::Verified
    } else {
        FileStatus::Altered { actual }
    })
}

/// Errors of `dp-repro data fetch`. Each names the data set and the URL or file.
#[derive(Debug, Error)]
pub enum FetchError {
    /// A manifest, or a file of the target folder, could not be read.
    #[error(transparent)]
    Data(#[from] DataError),

    /// A file or folder could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },

    /// `--mirror` is not an http(s) URL.
    #[error("--mirror {url:?} is not a URL: give the base URL that replaces {DEFAULT_BASE_URL}, starting with https:// or http://")]
    BadMirror {
        /// The value given.
        url: String,
    },

    /// The server answered with an error status.
    #[error(
        "data set `{name}`: {url} answered HTTP {status}; check the manifest's source \
         (repository, commit, path) or the mirror (--mirror)"
    )]
    Http {
        /// The data set.
        name: String,
        /// The URL requested.
        url: String,
        /// The HTTP status code.
        status: u16,
    },

    /// The connection failed before a response.
    #[error("data set `{name}`: cannot download {url}: {message}")]
    Transport {
        /// The data set.
        name: String,
        /// The URL requested.
        url: String,
        /// What the HTTP client reported.
        message: String,
    },

    /// The connection broke during the body; the bytes received are kept.
    #[error(
        "data set `{name}`: the download of {url} stopped after {received} of {} bytes ({message}); \
         they are kept in {}: run the same command again to resume",
        expected.map(|e| e.to_string()).unwrap_or_else(|| "?".into()),
        part.display()
    )]
    Interrupted {
        /// The data set.
        name: String,
        /// The URL requested.
        url: String,
        /// Bytes in the `.part` file.
        received: u64,
        /// Size of the whole file, when the server said it.
        expected: Option<u64>,
        /// The partial file.
        part: PathBuf,
        /// What the HTTP client reported.
        message: String,
    },

    /// The downloaded file, after the declared conversions, does not have the manifest's
    /// sha256. It was discarded.
    #[error(
        "data set `{name}`: sha256 mismatch for {}: expected {expected}, got {actual} (from {url}, \
         after conversions: {conversions}); the download was discarded and {} was not \
         written: the source, the manifest's `fetch.convert` or its sha256 is wrong",
        file.display(),
        file.display()
    )]
    ChecksumMismatch {
        /// The data set.
        name: String,
        /// The final file name that was not written.
        file: PathBuf,
        /// The URL downloaded.
        url: String,
        /// sha256 in the manifest.
        expected: String,
        /// sha256 of the converted download.
        actual: String,
        /// The conversions applied (`none` if none).
        conversions: String,
    },
}

/// Options of `dp-repro data fetch`.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// The folder the files are written to (created if needed).
    pub to: PathBuf,
    /// Base URL replacing [`DEFAULT_BASE_URL`] (e.g. an institutional mirror).
    pub base_url: String,
    /// Show a progress bar per download (on a terminal).
    pub progress: bool,
}

/// What fetching one data set did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// The file was present with the right sha256; nothing was downloaded.
    AlreadyVerified,
    /// The file was downloaded (or its download finished), converted and verified.
    Downloaded {
        /// Bytes received in this call.
        bytes: u64,
        /// Bytes of an earlier interrupted download that were reused (0 if none).
        resumed_from: u64,
        /// A file with another sha256 was replaced.
        replaced_altered: bool,
    },
    /// The manifest says the file cannot be downloaded automatically and it is absent or
    /// altered: the instructions say how to obtain it.
    Manual {
        /// The manifest's `fetch.manual` text.
        instructions: String,
    },
}

impl Fetched {
    /// Whether the file is now in the folder, verified.
    pub fn obtained(&self) -> bool {
        !matches!(self, Fetched::Manual { .. })
    }

    /// One line for the user, e.g. `downloaded 225450 bytes, verified`, or the manual
    /// instructions.
    pub fn describe(&self) -> String {
        match self {
            Fetched::AlreadyVerified => "present and verified; skipped".into(),
            Fetched::Downloaded {
                bytes,
                resumed_from,
                replaced_altered,
            } => {
                let mut s = format!("downloaded {bytes} bytes");
                if *resumed_from > 0 {
                    s.push_str(&format!(" (resumed after {resumed_from} bytes)"));
                }
                s.push_str(", verified");
                if *replaced_altered {
                    s.push_str("; replaced an altered file");
                }
                s
            }
            Fetched::Manual { instructions } => format!(
                "cannot be downloaded automatically; to obtain it:\n    {}",
                instructions.replace('\n', "\n    ")
            ),
        }
    }
}

/// The HTTP client: rustls, no automatic decompression (so a `Range` counts the bytes
/// stored), error statuses returned as responses, a 60 s limit per read.
fn agent() -> ureq::Agent {
    let config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_per_read(Some(Duration::from_secs(60)))
        .user_agent(concat!("dp-repro/", env!("CARGO_PKG_VERSION")))
        .build();
    ureq::Agent::new_with_config(config)
}

/// Checks a `--mirror` value: an `http://` or `https://` URL.
///
/// # Errors
/// [`FetchError::BadMirror`].
pub fn check_base_url(url: &str) -> Result<(), FetchError> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(host) if !host.trim_end_matches('/').is_empty() => Ok(()),
        _ => Err(FetchError::BadMirror {
            url: url.to_string(),
        }),
    }
}

/// Fetches the file of manifest `m` into `opts.to`, unless it is there and verified.
///
/// Steps: a present file with the right sha256 is kept ([`Fetched::AlreadyVerified`]); a
/// manifest with `fetch.manual` returns its instructions; otherwise the source URL is
/// downloaded into `<file>.part` (resuming with `Range: bytes=<k>-` when a partial
/// `<file>.part` of k bytes exists), the declared conversions are applied, and the result
/// replaces `<file>` only if its sha256 is the manifest's.
///
/// # Errors
/// [`FetchError::Http`] (e.g. 404), [`FetchError::Transport`], [`FetchError::Interrupted`]
/// (the `.part` file is kept for the next call), [`FetchError::ChecksumMismatch`] (the
/// `.part` file is deleted and the final file is not written), [`FetchError::Io`].
pub fn fetch_one(m: &Manifest, opts: &FetchOptions) -> Result<Fetched, FetchError> {
    let status = file_status(m, &opts.to)?;
    if status == FileStatus::Verified {
        return Ok(Fetched::AlreadyVerified);
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FetchError::Io { path, source }
    };
    let url = match (&m.fetch.manual, prepared_url(opts, m)) {
        (None, _) => source_url(&opts.base_url, &m.source),
        (Some(_), Some(url)) => url,
        (Some(instructions), None) => {
            return Ok(Fetched::Manual {
                instructions: instructions.trim().to_string(),
            })
        }
    };
    fs::create_dir_all(&opts.to).map_err(io(&opts.to))?;
    let target = opts.to.join(&m.file);
    let part = part_path(&target);
    let (bytes, resumed_from) = match download(m, &url, &part, opts.progress) {
        // A mirror without the prepared file of a manual data set: say how to obtain it.
        Err(FetchError::Http { status: 404, .. }) if m.fetch.manual.is_some() => {
            return Ok(Fetched::Manual {
                instructions: m
                    .fetch
                    .manual
                    .as_deref()
                    .unwrap_or_default()
                    .trim()
                    .to_string(),
            })
        }
        r => r?,
    };

    let mut data = fs::read(&part).map_err(|source| DataError::Io {
        path: part.clone(),
        source,
    })?;
    // A prepared file (manual data set, from a mirror) is already the final file.
    if m.fetch.manual.is_none() {
        for c in &m.fetch.convert {
            data = c.apply(&data);
        }
    }
    let actual = sha256_bytes(&data);
    if actual != m.sha256 {
        // A bad download must not be resumed either: start afresh next time.
        fs::remove_file(&part).map_err(io(&part))?;
        return Err(FetchError::ChecksumMismatch {
            name: m.name.clone(),
            file: target,
            url,
            expected: m.sha256.clone(),
            actual,
            conversions: conversions_text(m),
        });
    }
    if m.fetch.convert.is_empty() || m.fetch.manual.is_some() {
        fs::rename(&part, &target).map_err(io(&target))?;
    } else {
        let tmp = part.with_extension("converted");
        fs::write(&tmp, &data).map_err(io(&tmp))?;
        fs::rename(&tmp, &target).map_err(io(&target))?;
        fs::remove_file(&part).map_err(io(&part))?;
    }
    Ok(Fetched::Downloaded {
        bytes,
        resumed_from,
        replaced_altered: matches!(status, FileStatus::Altered { .. }),
    })
}

/// Where a mirror holds the prepared file of a data set that cannot be downloaded from its
/// source (`fetch.manual`): `<mirror>/prepared/<file>`, the file exactly as the manifest's
/// sha256 describes it (no conversions). `None` without a mirror (the default base URL).
pub fn prepared_url(opts: &FetchOptions, m: &Manifest) -> Option<String> {
    (opts.base_url != DEFAULT_BASE_URL).then(|| {
        format!(
            "{}/prepared/{}",
            opts.base_url.trim_end_matches('/'),
            utf8_percent_encode(&m.file, SEGMENT)
        )
    })
}

/// `<file>.part` beside `target`.
fn part_path(target: &Path) -> PathBuf {
    let mut name = target.file_name().unwrap_or_default().to_os_string();
    name.push(".part");
    target.with_file_name(name)
}

/// The manifest's conversions as `crlf_to_lf, …`, or `none`.
fn conversions_text(m: &Manifest) -> String {
    if m.fetch.convert.is_empty() {
        "none".into()
    } else {
        m.fetch
            .convert
            .iter()
            .map(|c| c.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The first number of a `Content-Range: bytes <start>-<end>/<total>` header and the
/// total (None when `*`).
fn content_range(value: &str) -> Option<(u64, Option<u64>)> {
    let rest = value.trim().strip_prefix("bytes ")?;
    let (range, total) = rest.split_once('/')?;
    let start = range.split_once('-')?.0.trim().parse().ok()?;
    Some((start, total.trim().parse().ok()))
}

/// Downloads `url` into `part`, resuming from the bytes already there. Returns (bytes
/// received now, bytes reused).
fn download(
    m: &Manifest,
    url: &str,
    part: &Path,
    progress: bool,
) -> Result<(u64, u64), FetchError> {
    let have = fs::metadata(part).map(|md| md.len()).unwrap_or(0);
    let mut request = agent().get(url);
    if have > 0 {
        request = request.header("Range", format!("bytes={have}-"));
    }
    let response = request.call().map_err(|e| FetchError::Transport {
        name: m.name.clone(),
        url: url.to_string(),
        message: e.to_string(),
    })?;
    let header = |h: &str| {
        response
            .headers()
            .get(h)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let length: Option<u64> = header("content-length").and_then(|v| v.trim().parse().ok());
    let (start, total) = match response.status().as_u16() {
        200 => (0, length),
        206 => match header("content-range").as_deref().and_then(content_range) {
            Some((start, total)) if start == have => (have, total.or(length.map(|l| l + have))),
            _ => {
                // A range we did not ask for: drop the partial file and start afresh.
                fs::remove_file(part).map_err(|source| FetchError::Io {
                    path: part.to_path_buf(),
                    source,
                })?;
                return download(m, url, part, progress);
            }
        },
        // The partial file already holds the whole body (or more): verify it as it is.
        416 if have > 0 => return Ok((0, have)),
        status => {
            return Err(FetchError::Http {
                name: m.name.clone(),
                url: url.to_string(),
                status,
            })
        }
    };
    let io = |source| FetchError::Io {
        path: part.to_path_buf(),
        source,
    };
    let mut file = if start > 0 {
        OpenOptions::new().append(true).open(part).map_err(io)?
    } else {
        File::create(part).map_err(io)?
    };
    let bar = if progress {
        let b = match total {
            Some(t) => ProgressBar::new(t),
            None => ProgressBar::new_spinner(),
        };
        b.set_style(
            ProgressStyle::with_template(
                "{msg:<14} [{wide_bar}] {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}",
            )
            .expect("valid template"),
        );
        b.set_message(m.name.clone());
        b.set_position(start);
        b
    } else {
        ProgressBar::hidden()
    };
    let mut reader = response.into_body().into_reader();
    let mut buf = vec![0u8; 1 << 16];
    let mut received = 0u64;
    let interrupted = |received: u64, message: String| FetchError::Interrupted {
        name: m.name.clone(),
        url: url.to_string(),
        received: start + received,
        expected: total,
        part: part.to_path_buf(),
        message,
    };
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(k) => {
                file.write_all(&buf[..k]).map_err(io)?;
                received += k as u64;
                bar.inc(k as u64);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                file.flush().map_err(io)?;
                bar.abandon();
                return Err(interrupted(received, e.to_string()));
            }
        }
    }
    file.flush().map_err(io)?;
    bar.finish_and_clear();
    if let Some(t) = total {
        if start + received < t {
            return Err(interrupted(received, "connection closed early".into()));
        }
    }
    Ok((received, start))
}

/// One line of `dp-repro data list`.
#[derive(Debug, Clone)]
pub struct ListRow {
    /// The manifest.
    pub manifest: Manifest,
    /// Its file's status in the data folder (Absent when there is no folder).
    pub status: FileStatus,
}

/// The status of every manifest's file in `dir` (all absent when `dir` is None).
///
/// # Errors
/// [`DataError::Io`] if a present file cannot be read.
pub fn list_status(manifests: &[Manifest], dir: Option<&Path>) -> Result<Vec<ListRow>, DataError> {
    manifests
        .iter()
        .map(|m| {
            Ok(ListRow {
                manifest: m.clone(),
                status: match dir {
                    Some(d) => file_status(m, d)?,
                    None => FileStatus::Absent,
                },
            })
        })
        .collect()
}

/// The table `dp-repro data list` prints: one line per data set with its name, status
/// (`verified`, `altered (sha256 <first 12 hex digits>…)` or `absent`), file, how it is
/// fetched (`auto` or `manual`) and the papers that use it (`LPDT Table 4 (AIR)`; `-` if
/// none), preceded by the data folder and where it came from.
pub fn render_list(rows: &[ListRow], dir: Option<(&Path, &str)>) -> String {
    let mut out = match dir {
        Some((d, origin)) => format!("data folder: {} ({origin})\n", d.display()),
        None => "data folder: none (no --data-dir, no DP_REPRO_DATA, no home folder)\n".into(),
    };
    let status = |s: &FileStatus| match s {
        FileStatus::Verified => "verified".to_string(),
        FileStatus::Altered { actual } => format!("altered (sha256 {}…)", &actual[..12]),
        FileStatus::Absent => "absent".to_string(),
    };
    let table: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            let m = &r.manifest;
            let papers = if m.paper.is_empty() {
                "-".to_string()
            } else {
                m.paper
                    .iter()
                    .map(|p| format!("{} ({})", p.table, p.abbreviation))
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            let how = if m.fetch.manual.is_some() {
                "manual"
            } else {
                "auto"
            };
            [
                m.name.clone(),
                status(&r.status),
                m.file.clone(),
                how.to_string(),
                papers,
            ]
        })
        .collect();
    let header = ["name", "status", "file", "fetch", "papers"].map(String::from);
    let mut widths = [0usize; 4];
    for row in std::iter::once(&header).chain(&table) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for row in std::iter::once(&header).chain(&table) {
        let mut line = String::new();
        for (w, cell) in widths.iter().zip(row) {
            line.push_str(cell);
            line.push_str(&" ".repeat(w - cell.chars().count() + 2));
        }
        line.push_str(&row[4]);
        out.push_str(line.trim_end());
        out.push('\n');
    }
    let verified = rows
        .iter()
        .filter(|r| r.status == FileStatus::Verified)
        .count();
    out.push_str(&format!(
        "{verified} of {} data sets present and verified\n",
        rows.len()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_to_lf_keeps_lone_cr() {
        let c = Conversion::CrlfToLf;
        assert_eq!(c.apply(b"a,b\r\nc\rd\r\n\r\n"), b"a,b\nc\rd\n\n");
        assert_eq!(c.apply(b"no newline\r"), b"no newline\r");
    }

    #[test]
    fn urls_are_pinned_and_percent_encoded() {
        let s = Source {
            repository: "Lansform/credit-worthiness".into(),
            commit: "c4feb90".into(),
            path: "data/default of credit card clients.xls".into(),
        };
        assert_eq!(
            source_url("https://raw.githubusercontent.com/", &s),
            "https://raw.githubusercontent.com/Lansform/credit-worthiness/c4feb90/data/default%20of%20credit%20card%20clients.xls"
        );
    }

    #[test]
    fn content_range_is_parsed() {
        assert_eq!(content_range("bytes 100-199/200"), Some((100, Some(200))));
        assert_eq!(content_range("bytes 5-9/*"), Some((5, None)));
        assert_eq!(content_range("items 1-2/3"), None);
    }

    #[test]
    fn mirror_must_be_http() {
        assert!(check_base_url("http://127.0.0.1:8000").is_ok());
        assert!(check_base_url("https://mirror.example.org/gh/").is_ok());
        for bad in ["ftp://x", "mirror.example.org", "https://"] {
            assert!(
                matches!(check_base_url(bad), Err(FetchError::BadMirror { .. })),
                "{bad}"
            );
        }
    }
}
