//! `dp-repro report`: a static site from one or more checked results folders — an index
//! (each spec: its verdict, the counts of each verdict class, claims held, when it ran)
//! and one page per spec: each reported table as the paper lays it out with the paper's
//! value beside ours, each cell's verdict as a colour, a symbol and a machine-readable
//! `data-verdict` attribute, the reason on hover and in a footnote; the regressions
//! first; the claims; the ε readings; the run's own tables with their Wilcoxon marks;
//! the figures; the privacy audit and ledger per method; the provenance; and links to
//! every CSV (docs/results.md, "The report site").
//!
//! The site is plain HTML and one CSS file from tera templates embedded in the binary: no
//! script, no web font, no CDN; it reads from `file://` and offline. It reads the files
//! `run` and `check` wrote, never the runner.

mod folder;
mod page;
mod verdict;

pub use folder::{AuditRow, CheckRow, KnownViolation, LedgerRow, ResultsFolder};
pub use page::{number, page_view, run_table, PageView};
pub use verdict::{CellClass, CLASSES};

use std::path::{Path, PathBuf};

const PAGE_TEMPLATE: &str = include_str!("../../templates/site/page.html.tera");
const INDEX_TEMPLATE: &str = include_str!("../../templates/site/index.html.tera");
const STYLE: &str = include_str!("../../templates/site/site.css");

/// CSV files larger than this are linked where they are instead of copied into the
/// site (runs.csv of a full table holds millions of rows).
pub const COPY_LIMIT_BYTES: u64 = 20 * 1024 * 1024;

/// What went wrong while writing the site.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    /// A folder `dp-repro check` has not written into.
    #[error("{}: no {file}; run `dp-repro check <spec> --results {}` first (the site shows what check found)", folder.display(), folder.display())]
    NotChecked {
        /// The folder.
        folder: PathBuf,
        /// The missing file.
        file: &'static str,
    },
    /// A malformed file.
    #[error("{}: {message}", path.display())]
    Csv {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the row.
        message: String,
    },
    /// A file that cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A template that failed to render (a bug).
    #[error("rendering {what}: {message}")]
    Template {
        /// The page.
        what: String,
        /// Tera's message with its causes.
        message: String,
    },
}

/// What the index lists of one page.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PageSummary {
    /// The page's folder in the site.
    pub slug: String,
    /// The spec's name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// PASS or FAIL.
    pub verdict: String,
    /// Reported cells in all.
    pub cells: usize,
    /// (data-verdict word, symbol, count) of each class.
    pub counts: Vec<(String, String, usize)>,
    /// Claims holding.
    pub claims_held: usize,
    /// Claims in all.
    pub claims_total: usize,
    /// Regressions.
    pub regressions: usize,
    /// When the run finished.
    pub finished: String,
    /// How long the last `run` or `check` of it took, with the tasks computed and reused.
    pub duration: String,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SiteError + '_ {
    move |e| SiteError::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

/// `target` relative to the folder `from` (both made absolute), with `/` separators.
fn relative(from: &Path, target: &Path) -> String {
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (from, target) = (abs(from), abs(target));
    let a: Vec<_> = from.components().collect();
    let b: Vec<_> = target.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); a.len() - common];
    parts.extend(
        b[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.0} kB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

fn render(tera: &tera::Tera, name: &str, ctx: &tera::Context) -> Result<String, SiteError> {
    tera.render(name, ctx).map_err(|e| {
        let mut message = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            message.push_str(&format!(": {s}"));
            source = s.source();
        }
        SiteError::Template {
            what: name.to_string(),
            message,
        }
    })
}

/// Writes the site of `folders` into `out`: `index.html`, `site.css`, and per folder
/// `<slug>/index.html` with its CSV files (`<slug>/files/`) and figures
/// (`<slug>/figures/`). The slug is the spec's name, made unique with `-2`, `-3`, ….
///
/// # Errors
/// [`SiteError`] naming the folder or file: a folder not checked, a malformed CSV, a
/// file that cannot be read or written.
pub fn write_site(folders: &[PathBuf], out: &Path) -> Result<Vec<PageSummary>, SiteError> {
    let mut tera = tera::Tera::default();
    tera.add_raw_templates(vec![
        ("page.html", PAGE_TEMPLATE),
        ("index.html", INDEX_TEMPLATE),
    ])
    .map_err(|e| SiteError::Template {
        what: "templates".into(),
        message: e.to_string(),
    })?;
    std::fs::create_dir_all(out).map_err(io(out))?;
    let css = out.join("site.css");
    std::fs::write(&css, STYLE).map_err(io(&css))?;
    let mut summaries: Vec<PageSummary> = Vec::new();
    for path in folders {
        let f = ResultsFolder::read(path)?;
        let base = if f.name.is_empty() {
            "results".to_string()
        } else {
            f.name.clone()
        };
        let mut slug = base.clone();
        let mut k = 2;
        while summaries.iter().any(|s| s.slug == slug) {
            slug = format!("{base}-{k}");
            k += 1;
        }
        let dir = out.join(&slug);
        let files_dir = dir.join("files");
        let fig_dir = dir.join("figures");
        std::fs::create_dir_all(&files_dir).map_err(io(&files_dir))?;
        let mut files = Vec::new();
        for p in &f.csv_files {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let bytes = std::fs::metadata(p).map_err(io(p))?.len();
            let href = if bytes <= COPY_LIMIT_BYTES {
                let in_figures = p.parent().and_then(|d| d.file_name()) == Some("figures".as_ref());
                let target_name = if in_figures {
                    format!("figures-{name}")
                } else {
                    name.clone()
                };
                let target = files_dir.join(&target_name);
                std::fs::copy(p, &target).map_err(io(p))?;
                format!("files/{target_name}")
            } else {
                relative(&dir, p)
            };
            files.push(page::FileLink {
                href,
                size: size_text(bytes),
                name,
            });
        }
        let mut figures = Vec::new();
        if !f.figures.is_empty() {
            std::fs::create_dir_all(&fig_dir).map_err(io(&fig_dir))?;
        }
        for p in &f.figures {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            std::fs::copy(p, fig_dir.join(&name)).map_err(io(p))?;
            let stem = name.trim_end_matches(".svg");
            figures.push(page::FigureView {
                src: format!("figures/{name}"),
                alt: format!(
                    "Figure {stem} of {}: our curves (the paper's points where digitized); the numbers are in figures-{stem}.csv",
                    f.name
                ),
            });
        }
        let view = page_view(&f, &slug, files, figures);
        let mut ctx = tera::Context::new();
        ctx.insert("page", &view);
        ctx.insert("classes", &view.counts);
        let html = render(&tera, "page.html", &ctx)?;
        let index = dir.join("index.html");
        std::fs::write(&index, html).map_err(io(&index))?;
        summaries.push(PageSummary {
            slug,
            name: view.name.clone(),
            description: view.description.clone(),
            verdict: view.verdict.to_string(),
            cells: view.cells,
            counts: view
                .counts
                .iter()
                .map(|c| (c.attr.to_string(), c.symbol.to_string(), c.count))
                .collect(),
            claims_held: view.claims_held,
            claims_total: view.claims_total,
            regressions: view.regressions.len(),
            finished: view.finished.clone(),
            duration: view.duration.clone(),
        });
    }
    let legend: Vec<(String, String, String)> = CLASSES
        .iter()
        .map(|c| {
            (
                c.attr().to_string(),
                c.symbol().to_string(),
                c.words().to_string(),
            )
        })
        .collect();
    let mut ctx = tera::Context::new();
    ctx.insert("pages", &summaries);
    ctx.insert("legend", &legend);
    let html = render(&tera, "index.html", &ctx)?;
    let index = out.join("index.html");
    std::fs::write(&index, html).map_err(io(&index))?;
    Ok(summaries)
}
