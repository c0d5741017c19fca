//! The report site in a real browser: `dp-repro report` renders the site of the CI
//! specs' checked results folders (`results/ci*`, written by the README's check commands),
//! and headless Chromium (Debian's `chromium`), driven over the DevTools protocol, loads
//! the index and every page and checks what a reader meets:
//! - no console error, no uncaught exception, no failed load;
//! - every link resolves (a file that exists, an anchor with its id) and every image
//!   loads;
//! - the cells in the DOM (`td[data-verdict]`) are as many as check.csv's `cell` rows, and
//!   each verdict class as many as check.csv's rows of that verdict;
//! - at a phone's width (390 px) the body does not scroll sideways.
//!
//! Without Chromium or without checked CI folders the test says so and passes, unless
//! `DP_REPRO_REQUIRE_BROWSER=1` (as CI sets it): then it fails. With
//! `DP_REPRO_SITE_SCREENSHOTS=<dir>` it also saves each page at desktop and phone width;
//! `DP_REPRO_SITE_FOLDERS=<dir>:<dir>…` renders those folders instead of the CI ones.

mod common;

use std::collections::BTreeMap;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

const CHROMIUM: &str = "/usr/bin/chromium";
const REQUIRE_ENV: &str = "DP_REPRO_REQUIRE_BROWSER";

/// Chromium with a DevTools connection to its one page; killed when dropped.
struct Browser {
    child: Child,
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    /// Events received since the last [`Browser::take_events`].
    events: Vec<serde_json::Value>,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    fn launch() -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let child = Command::new(CHROMIUM)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--allow-file-access-from-files",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromium starts");
        // Chromium writes the port it listens on into the profile.
        let port_file = profile.path().join("DevToolsActivePort");
        let start = Instant::now();
        let port = loop {
            if let Some(p) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|t| t.lines().next().map(str::to_string))
                .filter(|p| !p.is_empty())
            {
                break p;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "chromium wrote no DevToolsActivePort in 60 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        };
        let list: serde_json::Value = serde_json::from_str(
            &ureq::get(&format!("http://127.0.0.1:{port}/json/list"))
                .call()
                .expect("the DevTools endpoint answers")
                .body_mut()
                .read_to_string()
                .unwrap(),
        )
        .unwrap();
        let ws = list
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["type"] == "page")
            .and_then(|t| t["webSocketDebuggerUrl"].as_str())
            .expect("a page target")
            .to_string();
        let (socket, _) = tungstenite::connect(ws).expect("the page's DevTools socket");
        let mut b = Browser {
            child,
            socket,
            next_id: 0,
            events: Vec::new(),
            _profile: profile,
        };
        for m in ["Runtime.enable", "Log.enable", "Page.enable"] {
            b.call(m, serde_json::json!({}));
        }
        b
    }

    /// Sends a DevTools command and returns its result (events that arrive meanwhile are
    /// kept).
    fn call(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        self.next_id += 1;
        let id = self.next_id;
        let msg = serde_json::json!({"id": id, "method": method, "params": params});
        self.socket
            .send(Message::Text(msg.to_string().into()))
            .unwrap();
        loop {
            let v = self.read();
            if v["id"] == id {
                assert!(v.get("error").is_none(), "{method}: {v}");
                return v["result"].clone();
            }
            self.events.push(v);
        }
    }

    fn read(&mut self) -> serde_json::Value {
        loop {
            match self.socket.read().expect("the DevTools socket stays open") {
                Message::Text(t) => return serde_json::from_str(t.as_str()).unwrap(),
                Message::Binary(b) => return serde_json::from_slice(&b).unwrap(),
                _ => continue,
            }
        }
    }

    /// Opens `url` and waits for its load event.
    fn open(&mut self, url: &str) {
        self.events.clear();
        let r = self.call("Page.navigate", serde_json::json!({ "url": url }));
        assert!(r.get("errorText").is_none(), "{url}: {r}");
        if self
            .events
            .iter()
            .any(|e| e["method"] == "Page.loadEventFired")
        {
            return;
        }
        loop {
            let v = self.read();
            let done = v["method"] == "Page.loadEventFired";
            self.events.push(v);
            if done {
                return;
            }
        }
    }

    /// The value of a JavaScript expression (returned by value, as JSON).
    fn eval(&mut self, expression: &str) -> serde_json::Value {
        let r = self.call(
            "Runtime.evaluate",
            serde_json::json!({"expression": expression, "returnByValue": true}),
        );
        assert!(r.get("exceptionDetails").is_none(), "{expression}: {r}");
        r["result"]["value"].clone()
    }

    /// The console errors, uncaught exceptions and failed loads since the page opened.
    fn errors(&self) -> Vec<String> {
        self.events
            .iter()
            .filter_map(|e| match e["method"].as_str()? {
                "Runtime.consoleAPICalled" if e["params"]["type"] == "error" => {
                    Some(e["params"]["args"].to_string())
                }
                "Log.entryAdded" if e["params"]["entry"]["level"] == "error" => Some(format!(
                    "{} {}",
                    e["params"]["entry"]["text"], e["params"]["entry"]["url"]
                )),
                "Runtime.exceptionThrown" => Some(e["params"]["exceptionDetails"].to_string()),
                _ => None,
            })
            .collect()
    }

    fn viewport(&mut self, width: u32, mobile: bool) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            serde_json::json!({"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": mobile}),
        );
    }

    fn screenshot(&mut self, path: &Path) {
        use base64::Engine;
        let r = self.call(
            "Page.captureScreenshot",
            serde_json::json!({"format": "png", "captureBeyondViewport": false}),
        );
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(r["data"].as_str().unwrap())
            .unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

/// The checked CI folders under `results/` (those with a check.csv).
/// The folders to render: those of `DP_REPRO_SITE_FOLDERS` (paths joined as in `PATH`,
/// e.g. the full-table folders, for their screenshots), else the checked CI folders.
fn ci_folders() -> Vec<PathBuf> {
    if let Some(list) = std::env::var_os("DP_REPRO_SITE_FOLDERS") {
        return std::env::split_paths(&list)
            .filter(|p| p.join("check.csv").is_file())
            .collect();
    }
    let mut out: Vec<PathBuf> = std::fs::read_dir(common::root().join("results"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n == "ci" || n.starts_with("ci-"))
                && p.join("check.csv").is_file()
        })
        .collect();
    out.sort();
    out
}

/// check.csv's `cell` rows counted by verdict (read here with the csv crate, apart from
/// the site's own reading).
fn csv_counts(folder: &Path) -> BTreeMap<String, usize> {
    let mut r = csv::Reader::from_path(folder.join("check.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    let (kind, verdict) = (
        h.iter().position(|c| c == "kind").unwrap(),
        h.iter().position(|c| c == "verdict").unwrap(),
    );
    let mut out = BTreeMap::new();
    for row in r.records() {
        let row = row.unwrap();
        if &row[kind] == "cell" {
            *out.entry(row[verdict].to_string()).or_default() += 1;
        }
    }
    out
}

/// The DOM's cells counted by the check.csv verdict each site class refines.
const DOM_COUNTS: &str = r#"(() => {
  const by = {};
  for (const td of document.querySelectorAll('td[data-verdict]')) {
    const v = td.dataset.verdict;
    const csv = {ok: 'ok', regression: 'regression', explained: 'deviation', unexplained: 'deviation',
                 not_run: 'not_run', not_reported: 'not_run'}[v] || ('unknown:' + v);
    by[csv] = (by[csv] || 0) + 1;
  }
  return by;
})()"#;

/// Every link's target (absolute URL) and whether a same-document anchor exists; every
/// image and whether it loaded.
const LINKS: &str = r#"(() => ({
  links: Array.from(document.querySelectorAll('a[href]')).map(a => {
    const u = new URL(a.href);
    const here = u.origin + u.pathname === location.origin + location.pathname;
    return {href: a.href, path: decodeURIComponent(u.pathname),
            anchor_ok: !u.hash || !here || !!document.getElementById(decodeURIComponent(u.hash.slice(1)))};
  }),
  images: Array.from(document.images).map(i => ({src: i.src, ok: i.complete && i.naturalWidth > 0, alt: i.alt}))
}))()"#;

/// Whether the body scrolls sideways.
const SIDEWAYS: &str = "document.documentElement.scrollWidth > document.documentElement.clientWidth + 1 || document.body.scrollWidth > document.documentElement.clientWidth + 1";

fn skip_or_fail(why: &str) {
    if std::env::var(REQUIRE_ENV).as_deref() == Ok("1") {
        panic!("{why} ({REQUIRE_ENV}=1)");
    }
    eprintln!("skipped: {why}; set {REQUIRE_ENV}=1 to make this a failure");
}

/// Loads each page of the site in `site` (the index, then `pages` with the results folder
/// each was written from) and returns what a reader would trip over, one line each.
fn problems(
    browser: &mut Browser,
    site: &Path,
    pages: &[(String, PathBuf)],
    shots: Option<&Path>,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut urls = vec![("index".to_string(), site.join("index.html"), None)];
    for (slug, folder) in pages {
        urls.push((
            slug.clone(),
            site.join(slug).join("index.html"),
            Some(folder),
        ));
    }
    for (name, path, folder) in &urls {
        let url = format!("file://{}", path.display());
        browser.viewport(1280, false);
        browser.open(&url);
        for e in browser.errors() {
            out.push(format!("{name}: console error {e}"));
        }
        let found = browser.eval(LINKS);
        for l in found["links"].as_array().unwrap() {
            let href = l["href"].as_str().unwrap();
            if href.starts_with("file://") && !Path::new(l["path"].as_str().unwrap()).exists() {
                out.push(format!("{name}: link {href} resolves to nothing"));
            }
            if !l["anchor_ok"].as_bool().unwrap() {
                out.push(format!("{name}: anchor {href} has no target"));
            }
        }
        for i in found["images"].as_array().unwrap() {
            if !i["ok"].as_bool().unwrap() {
                out.push(format!("{name}: image {} did not load", i["src"]));
            }
            if i["alt"].as_str().unwrap().is_empty() {
                out.push(format!("{name}: image {} without alt text", i["src"]));
            }
        }
        if let Some(folder) = folder {
            let dom: BTreeMap<String, usize> =
                serde_json::from_value(browser.eval(DOM_COUNTS)).unwrap();
            let csv = csv_counts(folder);
            if dom != csv {
                out.push(format!("{name}: DOM cells {dom:?}, check.csv {csv:?}"));
            }
        }
        if let Some(s) = shots {
            browser.screenshot(&s.join(format!("{name}-desktop.png")));
        }
        browser.viewport(390, true);
        browser.open(&url);
        if browser.eval(SIDEWAYS) != serde_json::Value::Bool(false) {
            out.push(format!("{name}: the body scrolls sideways at 390 px"));
        }
        if let Some(s) = shots {
            browser.screenshot(&s.join(format!("{name}-phone.png")));
        }
    }
    out
}

/// Chromium and the checked CI folders, or None after saying why (failing under
/// `DP_REPRO_REQUIRE_BROWSER=1`).
fn setup() -> Option<Vec<PathBuf>> {
    if !Path::new(CHROMIUM).is_file() {
        skip_or_fail(&format!(
            "no {CHROMIUM} (Debian's package chromium: apt-get install chromium)"
        ));
        return None;
    }
    let folders = ci_folders();
    if folders.is_empty() {
        skip_or_fail(
            "no checked CI results under results/ (scripts/test runs the four `dp-repro check specs/ci*.yaml` first)",
        );
        return None;
    }
    Some(folders)
}

#[test]
fn the_site_of_the_ci_folders_reads_in_a_real_browser() {
    let Some(folders) = setup() else { return };
    let site = tempfile::tempdir().unwrap();
    let pages = dp_repro::site::write_site(&folders, site.path()).expect("the site is written");
    assert_eq!(pages.len(), folders.len());
    let shots = std::env::var_os("DP_REPRO_SITE_SCREENSHOTS").map(PathBuf::from);
    if let Some(s) = &shots {
        std::fs::create_dir_all(s).unwrap();
    }
    let pages: Vec<(String, PathBuf)> = pages
        .iter()
        .zip(&folders)
        .map(|(p, f)| (p.slug.clone(), f.clone()))
        .collect();
    let mut browser = Browser::launch();
    let found = problems(&mut browser, site.path(), &pages, shots.as_deref());
    assert!(found.is_empty(), "{found:#?}");
}

/// The checks are seen to fail: the same site damaged three ways — a CSV it links to
/// deleted, a cell taken out of a table, a wide element that makes the phone page scroll
/// sideways — and each damage is reported.
#[test]
fn a_damaged_site_is_seen_to_fail() {
    let Some(folders) = setup() else { return };
    let folder = &folders[0];
    let site = tempfile::tempdir().unwrap();
    let pages = dp_repro::site::write_site(std::slice::from_ref(folder), site.path()).unwrap();
    let slug = pages[0].slug.clone();
    let page = site.path().join(&slug).join("index.html");
    std::fs::remove_file(site.path().join(&slug).join("files/check.csv")).unwrap();
    let html = std::fs::read_to_string(&page).unwrap();
    let first = html.find("<td class=\"cell").expect("a cell on the page");
    let end = first + html[first..].find("</td>").unwrap() + "</td>".len();
    let html = format!(
        "{}<td></td>{}",
        &html[..first],
        html[end..].replacen(
            "</main>",
            "<div style=\"width: 2000px\">wide</div></main>",
            1
        )
    );
    std::fs::write(&page, html).unwrap();
    let mut browser = Browser::launch();
    let found = problems(&mut browser, site.path(), &[(slug, folder.clone())], None);
    let has = |what: &str| found.iter().any(|p| p.contains(what));
    assert!(has("files/check.csv resolves to nothing"), "{found:#?}");
    assert!(has("DOM cells"), "{found:#?}");
    assert!(has("scrolls sideways at 390 px"), "{found:#?}");
}
