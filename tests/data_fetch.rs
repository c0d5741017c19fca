//! `dp-repro data fetch` and `dp-repro data list` against a local HTTP server on 127.0.0.1
//! started by the test (`--mirror` replaces https://raw.githubusercontent.com): CRLF→LF
//! conversion, sha256 mismatch, 404, an interrupted download resumed with a Range request,
//! skipping verified files, manual sources, the per-user default folder, and the list.

mod common;

use assert_cmd::Command;
use std::collections::HashMap;
use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What the server answers for a path.
#[derive(Clone)]
enum Reply {
    /// 200 with the bytes, or 206 for a `Range: bytes=k-` request (416 when k ≥ length).
    File(Vec<u8>),
    /// 200 announcing the whole length, but only the first n bytes are sent before the
    /// connection is closed.
    CutAfter(Vec<u8>, usize),
}

/// (path, Range header) of every request, in order.
type Log = Arc<Mutex<Vec<(String, Option<String>)>>>;

/// A tiny HTTP/1.1 server on 127.0.0.1: one thread, one request per connection.
struct Server {
    base: String,
    routes: Arc<Mutex<HashMap<String, Reply>>>,
    log: Log,
}

impl Server {
    fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let routes: Arc<Mutex<HashMap<String, Reply>>> = Arc::default();
        let log: Log = Arc::default();
        let (r, l) = (routes.clone(), log.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let _ = serve(stream, &r, &l);
            }
        });
        Server { base, routes, log }
    }

    fn route(&self, path: &str, reply: Reply) {
        self.routes.lock().unwrap().insert(path.to_string(), reply);
    }

    fn requests(&self) -> Vec<(String, Option<String>)> {
        self.log.lock().unwrap().clone()
    }
}

fn serve(
    mut stream: TcpStream,
    routes: &Mutex<HashMap<String, Reply>>,
    log: &Mutex<Vec<(String, Option<String>)>>,
) -> std::io::Result<()> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte)? == 0 {
            return Ok(());
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let path = head.split_whitespace().nth(1).unwrap_or("").to_string();
    let range = head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case("range")
            .then(|| v.trim().to_string())
    });
    log.lock().unwrap().push((path.clone(), range.clone()));
    let reply = routes.lock().unwrap().get(&path).cloned();
    let respond = |stream: &mut TcpStream, status: &str, headers: &str, body: &[u8]| {
        write!(
            stream,
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n{headers}\r\n",
            body.len()
        )?;
        stream.write_all(body)
    };
    match reply {
        None => respond(&mut stream, "404 Not Found", "", b"404: Not Found"),
        Some(Reply::File(bytes)) => {
            let start: Option<usize> = range
                .as_deref()
                .and_then(|r| r.strip_prefix("bytes="))
                .and_then(|r| r.strip_suffix('-'))
                .and_then(|k| k.parse().ok());
            match start {
                None => respond(&mut stream, "200 OK", "", &bytes),
                Some(k) if k >= bytes.len() => respond(
                    &mut stream,
                    "416 Range Not Satisfiable",
                    &format!("Content-Range: bytes */{}\r\n", bytes.len()),
                    b"",
                ),
                Some(k) => respond(
                    &mut stream,
                    "206 Partial Content",
                    &format!(
                        "Content-Range: bytes {k}-{}/{}\r\n",
                        bytes.len() - 1,
                        bytes.len()
                    ),
                    &bytes[k..],
                ),
            }
        }
        Some(Reply::CutAfter(bytes, n)) => {
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                bytes.len()
            )?;
            stream.write_all(&bytes[..n])?;
            stream.flush()
        }
    }
}

/// Runs `dp-repro` with no DP_REPRO_DATA and the per-user data folder under `home`;
/// returns (exit code, stdout, stderr).
fn dp_repro(home: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("dp-repro")
        .unwrap()
        .current_dir(common::root())
        .env_remove("DP_REPRO_DATA")
        .env("XDG_DATA_HOME", home)
        .args(args)
        .output()
        .unwrap();
    common::outcome(out)
}

/// The LF content of the toy data set and its CRLF source version.
const TOY_LF: &str = "1.5,2,3\n2.5,4,5\n3.5,6,7\n";

fn crlf(lf: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(lf.len() * 21 / 20);
    for &b in lf {
        if b == b'\n' {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

/// The URL path the toy manifest's source maps to (its path has a space).
const TOY_URL_PATH: &str = "/owner/repo/0123abcd/data/toy%20set.csv";

/// A temporary folder with `manifests/toy.yaml` (file toy.csv, source with a space in
/// its path, `fetch: {convert: [crlf_to_lf]}`) and an empty `data/`.
struct Toy {
    tmp: tempfile::TempDir,
}

impl Toy {
    fn new(extra_manifest: &str) -> Toy {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir_all(tmp.path().join("manifests")).unwrap();
        fs::create_dir_all(tmp.path().join("data")).unwrap();
        let sha = dp_repro::data::sha256_bytes(TOY_LF.as_bytes());
        fs::write(
            tmp.path().join("manifests/toy.yaml"),
            format!(
                "name: toy\nfile: toy.csv\ntask: regression\nlabel_column: 0\nhas_header: false\n\
                 sha256: {sha}\nn_rows: 3\nn_features: 2\n\
                 source: {{repository: owner/repo, commit: 0123abcd, path: data/toy set.csv}}\n\
                 fetch: {{convert: [crlf_to_lf]}}\n\
                 paper: [{{table: LPDT Table 4, abbreviation: TOY, n: 3, d: 2}}, {{table: HistOfTree Table 6, abbreviation: TY, n: 3, d: 2}}]\n{extra_manifest}"
            ),
        )
        .unwrap();
        Toy { tmp }
    }
    fn path(&self, p: &str) -> PathBuf {
        self.tmp.path().join(p)
    }
    fn s(&self, p: &str) -> String {
        self.path(p).display().to_string()
    }
    /// `data fetch toy --to data --mirror base --manifests manifests --quiet`.
    fn fetch(&self, base: &str) -> (i32, String, String) {
        dp_repro(
            &self.path("home"),
            &[
                "data",
                "fetch",
                "toy",
                "--to",
                &self.s("data"),
                "--mirror",
                base,
                "--manifests",
                &self.s("manifests"),
                "--quiet",
            ],
        )
    }
}

#[test]
fn fetch_converts_crlf_verifies_and_then_skips() {
    let server = Server::start();
    server.route(TOY_URL_PATH, Reply::File(crlf(TOY_LF.as_bytes())));
    let toy = Toy::new("");
    let (code, stdout, stderr) = toy.fetch(&server.base);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        fs::read_to_string(toy.path("data/toy.csv")).unwrap(),
        TOY_LF
    );
    assert!(!toy.path("data/toy.csv.part").exists());
    assert!(
        stdout.contains("toy") && stdout.contains("downloaded 27 bytes, verified"),
        "{stdout}"
    );
    assert_eq!(server.requests(), vec![(TOY_URL_PATH.to_string(), None)]);

    // Present and verified: skipped without a request.
    let (code, stdout, stderr) = toy.fetch(&server.base);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("present and verified; skipped"), "{stdout}");
    assert_eq!(server.requests().len(), 1, "no second request");

    // Present but altered: downloaded again and replaced.
    fs::write(toy.path("data/toy.csv"), "9,9,9\n").unwrap();
    let (code, stdout, stderr) = toy.fetch(&server.base);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("replaced an altered file"), "{stdout}");
    assert_eq!(
        fs::read_to_string(toy.path("data/toy.csv")).unwrap(),
        TOY_LF
    );
}

#[test]
fn a_sha_mismatch_names_file_and_shas_and_writes_nothing() {
    let server = Server::start();
    let served = crlf(b"1.5,2,3\n2.5,4,5\n3.5,6,8\n");
    server.route(TOY_URL_PATH, Reply::File(served.clone()));
    let toy = Toy::new("");
    let (code, _, stderr) = toy.fetch(&server.base);
    assert_eq!(code, 1, "{stderr}");
    let expected = dp_repro::data::sha256_bytes(TOY_LF.as_bytes());
    let actual = dp_repro::data::sha256_bytes(b"1.5,2,3\n2.5,4,5\n3.5,6,8\n");
    for part in [
        "sha256 mismatch",
        &toy.s("data/toy.csv"),
        &expected,
        &actual,
        "crlf_to_lf",
        "1 of 1 data sets are not in",
    ] {
        assert!(stderr.contains(part), "{part}: {stderr}");
    }
    assert!(
        !toy.path("data/toy.csv").exists(),
        "no file under the final name"
    );
    assert!(
        !toy.path("data/toy.csv.part").exists(),
        "the bad download is discarded"
    );
}

#[test]
fn a_404_names_the_url() {
    let server = Server::start();
    let toy = Toy::new("");
    let (code, _, stderr) = toy.fetch(&server.base);
    assert_eq!(code, 1, "{stderr}");
    let url = format!("{}{TOY_URL_PATH}", server.base);
    assert!(
        stderr.contains(&url) && stderr.contains("HTTP 404") && stderr.contains("`toy`"),
        "{stderr}"
    );
    assert!(!toy.path("data/toy.csv").exists());
}

#[test]
fn an_interrupted_download_is_resumed_with_a_range_request() {
    // A body long enough that the cut is mid-body: 400 lines.
    let lf: String = (0..400)
        .map(|i| format!("{i},{},{}\n", i * 2, i % 7))
        .collect();
    let source = crlf(lf.as_bytes());
    let server = Server::start();
    server.route(TOY_URL_PATH, Reply::CutAfter(source.clone(), 1000));
    let sha = dp_repro::data::sha256_bytes(lf.as_bytes());
    let toy = Toy::new("");
    let yaml = fs::read_to_string(toy.path("manifests/toy.yaml"))
        .unwrap()
        .replace(&dp_repro::data::sha256_bytes(TOY_LF.as_bytes()), &sha)
        .replace("n_rows: 3", "n_rows: 400");
    fs::write(toy.path("manifests/toy.yaml"), yaml).unwrap();

    let (code, _, stderr) = toy.fetch(&server.base);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(&format!("stopped after 1000 of {} bytes", source.len()))
            && stderr.contains("run the same command again to resume"),
        "{stderr}"
    );
    let part = fs::read(toy.path("data/toy.csv.part")).unwrap();
    assert_eq!(part, source[..1000], "the bytes received are kept");
    assert!(!toy.path("data/toy.csv").exists());

    server.route(TOY_URL_PATH, Reply::File(source.clone()));
    let (code, stdout, stderr) = toy.fetch(&server.base);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        server.requests().last().unwrap().1.as_deref(),
        Some("bytes=1000-"),
        "the second request asks for the rest only"
    );
    assert!(
        stdout.contains(&format!(
            "downloaded {} bytes (resumed after 1000 bytes)",
            source.len() - 1000
        )),
        "{stdout}"
    );
    assert_eq!(fs::read_to_string(toy.path("data/toy.csv")).unwrap(), lf);
    assert!(!toy.path("data/toy.csv.part").exists());
}

#[test]
fn manual_sources_print_instructions_and_bad_input_exits_2() {
    let server = Server::start();
    let toy = Toy::new("");
    let yaml = fs::read_to_string(toy.path("manifests/toy.yaml"))
        .unwrap()
        .replace(
        "fetch: {convert: [crlf_to_lf]}",
        "fetch: {manual: \"Concatenate a.csv and b.csv from the repository, then CRLF to LF.\"}",
    );
    fs::write(toy.path("manifests/toy.yaml"), yaml).unwrap();
    let (code, stdout, stderr) = toy.fetch(&server.base);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stdout.contains("cannot be downloaded automatically")
            && stdout.contains("Concatenate a.csv and b.csv"),
        "{stdout}"
    );
    // The mirror was asked for the prepared file, had none (404), and the instructions
    // stand.
    let asked: Vec<String> = server.requests().into_iter().map(|(p, _)| p).collect();
    assert_eq!(asked, ["/prepared/toy.csv"]);
    assert!(!toy.path("data/toy.csv").exists());

    // A mirror holding the prepared file serves it, verified by the manifest's sha256 and
    // not converted; a prepared file with other bytes is refused and nothing is written.
    server.route("/prepared/toy.csv", Reply::File(TOY_LF.as_bytes().to_vec()));
    let (code, stdout, stderr) = toy.fetch(&server.base);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("verified"), "{stdout}");
    assert_eq!(
        fs::read_to_string(toy.path("data/toy.csv")).unwrap(),
        TOY_LF
    );
    fs::remove_file(toy.path("data/toy.csv")).unwrap();
    server.route("/prepared/toy.csv", Reply::File(crlf(TOY_LF.as_bytes())));
    let (code, _, stderr) = toy.fetch(&server.base);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("sha256"), "{stderr}");
    assert!(!toy.path("data/toy.csv").exists());

    let home = toy.path("home");
    let (code, _, stderr) = dp_repro(&home, &["data", "fetch", "abalone", "--mirror", "ftp://x"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--mirror") && stderr.contains("https://"),
        "{stderr}"
    );
    let (code, _, stderr) = dp_repro(&home, &["data", "fetch", "abalon"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("unknown data set `abalon`") && stderr.contains("abalone"),
        "{stderr}"
    );
}

/// Without --to and DP_REPRO_DATA the file goes to the per-user data folder, which is also
/// where `validate` then finds it.
#[test]
fn the_per_user_folder_is_the_default_target_and_data_folder() {
    let server = Server::start();
    server.route(TOY_URL_PATH, Reply::File(crlf(TOY_LF.as_bytes())));
    let toy = Toy::new("");
    let home = toy.path("home");
    let manifests = toy.s("manifests");
    let (code, stdout, stderr) = dp_repro(
        &home,
        &[
            "data",
            "fetch",
            "--mirror",
            &server.base,
            "--manifests",
            &manifests,
            "--quiet",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let user_dir = home.join("dp-repro");
    assert!(
        stdout.contains(&format!("into {} (per-user default)", user_dir.display())),
        "{stdout}"
    );
    assert_eq!(
        fs::read_to_string(user_dir.join("toy.csv")).unwrap(),
        TOY_LF
    );

    let spec = toy.path("spec.yaml");
    fs::write(&spec, "name: t\nseed: 1\nrepetitions: 1\ndatasets: [toy]\nsplit: {public: 0.34, private: 0.33, test: 0.33}\nepsilons: [1]\nmethods:\n  - method: DT\n    grid: {max_depth: [1]}\n").unwrap();
    let (code, stdout, stderr) = dp_repro(
        &home,
        &[
            "validate",
            spec.to_str().unwrap(),
            "--manifests",
            &manifests,
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("data files verified"), "{stdout}");
}

#[test]
fn data_list_shows_status_fetch_and_papers_of_every_data_set() {
    let toy = Toy::new("");
    let manifests = toy.path("manifests");
    let other = |name: &str, extra: &str| {
        let text = fs::read_to_string(manifests.join("toy.yaml"))
            .unwrap()
            .replace("name: toy", &format!("name: {name}"))
            .replace("file: toy.csv", &format!("file: {name}.csv"))
            .replace("fetch: {convert: [crlf_to_lf]}", extra);
        fs::write(manifests.join(format!("{name}.yaml")), text).unwrap();
    };
    other("altered", "");
    other("gone", "fetch: {manual: \"ask the authors\"}");
    fs::write(toy.path("data/toy.csv"), TOY_LF).unwrap();
    fs::write(toy.path("data/altered.csv"), "1,2,3\n").unwrap();
    let altered_sha = dp_repro::data::sha256_bytes(b"1,2,3\n");
    let home = toy.path("home");
    let (code, stdout, stderr) = dp_repro(
        &home,
        &[
            "data",
            "list",
            "--data-dir",
            &toy.s("data"),
            "--manifests",
            &toy.s("manifests"),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0],
        format!("data folder: {} (--data-dir)", toy.s("data"))
    );
    let row = |name: &str| {
        let l = lines
            .iter()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name}: {stdout}"));
        l.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    assert_eq!(
        row("toy"),
        "toy verified toy.csv auto LPDT Table 4 (TOY); HistOfTree Table 6 (TY)"
    );
    assert!(
        row("altered").starts_with(&format!(
            "altered altered (sha256 {}…) altered.csv auto LPDT",
            &altered_sha[..12]
        )),
        "{stdout}"
    );
    assert!(
        row("gone").starts_with("gone absent gone.csv manual LPDT"),
        "{stdout}"
    );
    assert_eq!(
        *lines.last().unwrap(),
        "1 of 3 data sets present and verified"
    );

    // The data folder: DP_REPRO_DATA, else the per-user folder.
    let out = Command::cargo_bin("dp-repro")
        .unwrap()
        .env("DP_REPRO_DATA", toy.path("data"))
        .env("XDG_DATA_HOME", &home)
        .args(["data", "list", "--manifests", &toy.s("manifests")])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with(&format!("data folder: {} (DP_REPRO_DATA)", toy.s("data"))),
        "{stdout}"
    );
    let (_, stdout, _) = dp_repro(&home, &["data", "list", "--manifests", &toy.s("manifests")]);
    assert!(
        stdout.starts_with(&format!(
            "data folder: {} (per-user default)",
            home.join("dp-repro").display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("0 of 3 data sets present and verified"),
        "{stdout}"
    );
}

/// Every manifest of `datasets/` fetched from a mirror serving its source as the pinned
/// repository holds it (CRLF where the manifest declares crlf_to_lf — those files were
/// checked to be CRLF at the pinned commit — verbatim otherwise): each URL, conversion and
/// sha256 fits, and `data list` then shows all verified.
#[test]
fn every_manifest_fetches_from_a_mirror_of_its_source() {
    // Every manifest: those whose file downloads as one file from its pinned source, and
    // those made by hand, which the mirror holds prepared under `prepared/<file>`.
    let manifests: Vec<_> =
        dp_repro::data::list_manifests(&[common::root().join("datasets")]).unwrap();
    let names: Vec<&str> = manifests.iter().map(|m| m.name.as_str()).collect();
    let files: Vec<&str> = manifests.iter().map(|m| m.file.as_str()).collect();
    let Some(data) = common::real_data(&files) else {
        return;
    };
    let server = Server::start();
    for m in &manifests {
        let bytes = fs::read(data.join(&m.file)).unwrap();
        if m.fetch.manual.is_some() {
            server.route(&format!("/prepared/{}", m.file), Reply::File(bytes));
            continue;
        }
        let served = match m.fetch.convert.as_slice() {
            [] => bytes,
            [dp_repro::data::fetch::Conversion::CrlfToLf] => crlf(&bytes),
            other => panic!("{}: no test source for conversions {other:?}", m.name),
        };
        let url = dp_repro::data::fetch::source_url(&server.base, &m.source);
        server.route(&url[server.base.len()..], Reply::File(served));
    }
    let tmp = tempfile::tempdir().unwrap();
    let to = tmp.path().join("fetched");
    let mut args = vec![
        "data",
        "fetch",
        "--to",
        to.to_str().unwrap(),
        "--mirror",
        &server.base,
        "--quiet",
    ];
    args.extend(&names);
    let (code, stdout, stderr) = dp_repro(tmp.path(), &args);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(&format!(
            "all {} data sets present and verified",
            manifests.len()
        )),
        "{stdout}"
    );
    assert_eq!(server.requests().len(), manifests.len());
    let (code, stdout, _) = dp_repro(
        tmp.path(),
        &["data", "list", "--data-dir", to.to_str().unwrap()],
    );
    assert_eq!(code, 0);
    let all = dp_repro::data::list_manifests(&[common::root().join("datasets")])
        .unwrap()
        .len();
    assert_eq!(all, manifests.len());
    assert!(
        stdout.contains(&format!("{all} of {all} data sets present and verified")),
        "{stdout}"
    );
}

#[test]
fn fetch_spec_fetches_the_data_files_the_spec_reads_and_no_other() {
    let server = Server::start();
    server.route(TOY_URL_PATH, Reply::File(crlf(TOY_LF.as_bytes())));
    // A second manifest the spec does not read, whose source the server does not hold:
    // fetching it would fail.
    let toy = Toy::new("");
    let other = fs::read_to_string(toy.path("manifests/toy.yaml"))
        .unwrap()
        .replace("name: toy", "name: other")
        .replace("file: toy.csv", "file: other.csv")
        .replace("path: data/toy set.csv", "path: data/other.csv");
    fs::write(toy.path("manifests/other.yaml"), other).unwrap();
    let spec = |datasets: &str| {
        format!(
            "name: s\nseed: 1\nrepetitions: 1\ndatasets: {datasets}\n\
             split: {{public: 0.34, private: 0.33, test: 0.33}}\nepsilons: [1]\n\
             methods:\n  - {{method: DT, grid: {{max_depth: [1]}}}}\n"
        )
    };
    fs::write(toy.path("spec.yaml"), spec("[toy]")).unwrap();
    let fetch = |spec: &str| {
        dp_repro(
            &toy.path("home"),
            &[
                "data",
                "fetch",
                "--spec",
                &toy.s(spec),
                "--to",
                &toy.s("data"),
                "--mirror",
                &server.base,
                "--manifests",
                &toy.s("manifests"),
                "--quiet",
            ],
        )
    };
    let (code, stdout, stderr) = fetch("spec.yaml");
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("fetching 1 data sets"), "{stdout}");
    assert!(
        stdout.contains("toy") && !stdout.contains("other"),
        "{stdout}"
    );
    assert_eq!(server.requests(), vec![(TOY_URL_PATH.to_string(), None)]);
    assert!(toy.path("data/toy.csv").exists() && !toy.path("data/other.csv").exists());

    // A spec reading the other data set fetches it, and fails as its source is missing.
    fs::write(toy.path("other-spec.yaml"), spec("[other]")).unwrap();
    let (code, stdout, stderr) = fetch("other-spec.yaml");
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(stderr.contains("1 of 1 data sets are not in"), "{stderr}");

    // A spec naming an unknown data set is bad input, named.
    fs::write(toy.path("bad-spec.yaml"), spec("[nosuch]")).unwrap();
    let (code, _, stderr) = fetch("bad-spec.yaml");
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("nosuch"), "{stderr}");
}
