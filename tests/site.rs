//! `dp-repro report` without a browser (tests/site_browser.rs loads the pages in
//! Chromium): on a checked folder made by hand with a cell of every verdict class, the
//! page carries each class as many times as check.csv has it; a damaged folder (a cell
//! turned into a regression) gives a FAIL page whose regressions come first and red; a
//! folder that was never checked, or a malformed check.csv, is refused with the folder,
//! file and row named.

mod common;

use dp_repro::site::write_site;
use std::path::Path;

const HEADER: &str = "kind,table,method,dataset,epsilon,reported,reproduced,std_error,reps,tolerance,band,verdict,reason,source,authors_code,authors_std,authors_reps,authors_agreement,authors_detail,reported_halfwidth";

/// Cells of every class: 2 ok, 1 explained, 1 unexplained, 1 not run, 1 not reported;
/// a claim that holds and one that fails as a known failure.
const ROWS: &[&str] = &[
    "cell,paper_t2,LPDT-M,abalone,2,10.1,10.3,0.2,20,0.5,,ok,,paper_t2.csv:2,,,,,,0.4",
    "cell,paper_t2,PHIST,abalone,2,10.6,10.7,0.2,20,0.5,,ok,,paper_t2.csv:3,10.65,0.3,20,both,,",
    "cell,paper_t2,LPDT-M,airfoil,2,48,53,1.1,20,2,\"[0.8, 1.3]\",deviation,the paper's frozen noise (docs/papers/x.md),paper_t2.csv:4,,,,,,",
    "cell,paper_t2,PHIST,airfoil,2,68,284,56,20,3,\"[1, 5]\",deviation,unexplained: 4 times the paper's,paper_t2.csv:5,,,,,,",
    "cell,paper_t2,LPDT-M,flight,2,7.5,,,0,,,not_run,data set not available,paper_t2.csv:6,,,,,,",
    "cell,paper_t2,PHIST,flight,2,NaN,,,0,,,not_run,the paper prints −,paper_t2.csv:7,,,,,,",
    "claim,,C1,,,4,5,,,,,ok,holds on 5 of 5,LPDT-M beats PHIST,,,,,,",
    "claim,,C2,,,5,2,,,,,deviation,known failure: 2 of 5,LPDT-M best everywhere,,,,,,",
];

fn folder(dir: &Path, name: &str, rows: &[String]) -> std::path::PathBuf {
    let f = dir.join(name);
    std::fs::create_dir_all(&f).unwrap();
    std::fs::write(
        f.join("spec.yaml"),
        format!("name: {name}\ndescription: a table by hand\nseed: 7\nrepetitions: 20\naudit:\n  known_violations:\n    - {{method: PHIST, part: bins, why: the bins read all rows}}\n"),
    )
    .unwrap();
    let mut text = format!("{HEADER}\n");
    for r in rows {
        text.push_str(r);
        text.push('\n');
    }
    std::fs::write(f.join("check.csv"), text).unwrap();
    std::fs::write(
        f.join("run.json"),
        r#"{"spec_hash": "abc123", "git_commit": "0123abcd", "dp_repro_version": "0.1.0", "repetitions": 20, "host": "vm", "threads": 2, "started": "2026-11-29T05:00:00+00:00", "finished": "2026-11-29T05:09:45+00:00", "tasks_computed": 10, "tasks_reused": 0}"#,
    )
    .unwrap();
    std::fs::write(
        f.join("audit.csv"),
        "method,params,epsilon,part,neighbours,claimed_epsilon,claimed_delta,audited_epsilon,plug_in_epsilon,confidence,event,count_a,count_b,draws,verdict\nLPDT-M,,2,label release,x,2,0,1.8,1.9,0.99,e,1,2,100,consistent\nPHIST,,2,bins,x,2,0,3,3.1,0.99,e,1,2,100,violation\n",
    )
    .unwrap();
    std::fs::write(
        f.join("ledger.csv"),
        "dataset,repetition,method,params,epsilon,epsilon_per_fit,epsilon_with_tuning,charged_delta,min_charged_epsilon,subjects_charged,n_private,calls,releases_selected_over,path,private_quantities,findings\nabalone,1,LPDT-M,a,2,2,12,0,2,10,10,1,6,p,,tuning_over_budget\n",
    )
    .unwrap();
    f
}

fn rows() -> Vec<String> {
    ROWS.iter().map(|r| r.to_string()).collect()
}

fn count(html: &str, needle: &str) -> usize {
    html.matches(needle).count()
}

#[test]
fn every_cell_is_on_the_page_with_its_class() {
    let dir = tempfile::tempdir().unwrap();
    let f = folder(dir.path(), "by-hand", &rows());
    let site = dir.path().join("site");
    let pages = write_site(&[f], &site).unwrap();
    assert_eq!(pages[0].verdict, "PASS");
    assert_eq!((pages[0].claims_held, pages[0].claims_total), (1, 2));
    let html = std::fs::read_to_string(site.join("by-hand/index.html")).unwrap();
    for (class, n) in [
        ("ok", 2),
        ("explained", 1),
        ("unexplained", 1),
        ("not_run", 1),
        ("not_reported", 1),
        ("regression", 0),
    ] {
        assert_eq!(
            count(&html, &format!("data-verdict=\"{class}\"")),
            n,
            "{class}"
        );
    }
    assert_eq!(count(&html, "data-verdict="), 6, "one per check.csv cell");
    // The paper's spread and ours, labelled; the reason in the hover text and a note.
    assert!(html.contains("±0.4000 (95 %)") && html.contains("±0.2000 (s.e.)"));
    assert!(html.contains("title=\"explained deviation, inside its band, with its reason; the paper&#x27;s frozen noise"));
    assert!(html.contains("id=\"note-paper_t2-1\""));
    assert!(html.contains("authors' code 10.65 (both)"));
    // Privacy, provenance, files.
    assert!(html.contains("the bins read all rows"));
    assert!(html.contains("0123abcd") && html.contains("20 of the spec&#x27;s 20"));
    assert!(site.join("by-hand/files/check.csv").is_file());
    assert!(html.contains("href=\"files&#x2F;audit.csv\""));
    assert!(!html.contains("id=\"regressions\""));
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("href=\"by-hand/index.html\""));
    assert!(index.contains("2026-11-29 05:09 UTC"));
}

#[test]
fn a_damaged_folder_puts_its_regressions_first_and_red() {
    let dir = tempfile::tempdir().unwrap();
    let mut damaged = rows();
    damaged[1] = damaged[1].replace(",ok,,", ",regression,,");
    damaged[6] = damaged[6].replace(",ok,holds", ",regression,fails");
    let f = folder(dir.path(), "damaged", &damaged);
    let site = dir.path().join("site");
    let pages = write_site(&[f], &site).unwrap();
    assert_eq!(
        (pages[0].verdict.as_str(), pages[0].regressions),
        ("FAIL", 2)
    );
    let html = std::fs::read_to_string(site.join("damaged/index.html")).unwrap();
    let regressions = html
        .find("id=\"regressions\"")
        .expect("a regressions section");
    let cells = html.find("id=\"cells\"").unwrap();
    assert!(regressions < cells, "regressions come before the tables");
    assert!(html.contains("class=\"headline FAIL\""));
    assert!(html.contains("<li data-kind=\"cell\"><strong>✗ cell, paper_t2, PHIST, abalone"));
    assert!(html.contains("<li data-kind=\"claim\">"));
    assert_eq!(count(&html, "data-verdict=\"regression\""), 1);
    assert!(html.contains("class=\"cell regression\""));
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("✗ FAIL (2 regressed)"));
}

#[test]
fn unchecked_or_malformed_folders_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let bare = dir.path().join("bare");
    std::fs::create_dir_all(&bare).unwrap();
    std::fs::write(bare.join("spec.yaml"), "name: bare\n").unwrap();
    let err = write_site(std::slice::from_ref(&bare), &dir.path().join("site")).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("bare") && text.contains("no check.csv") && text.contains("dp-repro check"),
        "{text}"
    );
    let mut bad = rows();
    bad[2] = "cell,paper_t2,LPDT-M".to_string();
    let f = folder(dir.path(), "bad", &bad);
    let text = write_site(&[f], &dir.path().join("site"))
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("check.csv") && text.contains("row 4"),
        "{text}"
    );
    // The command line: exit 2 and the message.
    let out = common::dp_repro(&[
        "report",
        bare.to_str().unwrap(),
        "--out",
        dir.path().join("s2").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no check.csv"));
}

/// marks.csv as `dp-repro run` writes it for the cells of `ROWS`: LPDT-M bold and `*` on
/// abalone, PHIST underlined; on airfoil two blocks hold PHIST, one with `*`.
const MARKS: &str = "table,block,dataset,method,epsilon,value,bold,underline,star
t2,,abalone,LPDT-M,2,10.3,1,0,1
t2,,abalone,PHIST,2,10.7,0,1,0
t2,,airfoil,LPDT-M,2,53,1,0,0
t2,A,airfoil,PHIST,2,284,0,0,1
t2,B,airfoil,PHIST,2,284,0,0,0
";

/// The `data-marks` of each cell on the page, in page order.
fn page_marks(html: &str) -> Vec<String> {
    html.split("data-marks=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].to_string())
        .collect()
}

#[test]
fn our_values_carry_the_marks_of_our_tables() {
    let dir = tempfile::tempdir().unwrap();
    let f = folder(dir.path(), "marked", &rows());
    std::fs::write(f.join("marks.csv"), MARKS).unwrap();
    let site = dir.path().join("site");
    write_site(std::slice::from_ref(&f), &site).unwrap();
    let html = std::fs::read_to_string(site.join("marked/index.html")).unwrap();
    // Page order: abalone (LPDT-M, PHIST), airfoil (LPDT-M, PHIST), flight (two cells
    // without marks: not run).
    assert_eq!(
        page_marks(&html),
        ["bold star", "underline", "bold", "star", "", ""]
    );
    assert!(
        html.contains("<strong>10.30</strong>*"),
        "bold and star on ours"
    );
    assert!(html.contains("<u>10.70</u>"));
    assert!(html.contains("table t2 · A: star; table t2 · B: no mark"));

    // Seen red: a mark dropped from marks.csv is a mark dropped from the page.
    std::fs::write(
        f.join("marks.csv"),
        MARKS.replace("10.3,1,0,1", "10.3,0,0,1"),
    )
    .unwrap();
    let site2 = dir.path().join("site2");
    write_site(&[f.clone()], &site2).unwrap();
    let html2 = std::fs::read_to_string(site2.join("marked/index.html")).unwrap();
    assert_eq!(page_marks(&html2)[0], "star");
    assert!(!html2.contains("<strong>10.30</strong>"));

    // A folder without marks.csv says how to add it.
    std::fs::remove_file(f.join("marks.csv")).unwrap();
    let site3 = dir.path().join("site3");
    write_site(&[f], &site3).unwrap();
    let html3 = std::fs::read_to_string(site3.join("marked/index.html")).unwrap();
    assert!(page_marks(&html3).iter().all(String::is_empty));
    assert!(html3.contains("has no marks.csv"));
}
