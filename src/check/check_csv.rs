//! `check.csv`: every compared cell, rank sum and claim of a check as one tidy row,
//! for pandas or R.
//!
//! Columns: `kind` (`cell`, `rank_sum`, `claim`, `epsilon_order`, `epsilon_match_method`; `anchor`: a ratio table's baseline
//! against another paper's absolute value, as a cell; `suspect`: a repetition far beyond its cell's
//! spread (verdict `suspect`) or outside the metric's range (`regression`), its median in `reported`, its value in `reproduced`, its repetition in `reps`
//! and its task key in `source`; `golden`: the golden comparison, rows compared in
//! `reproduced`, the paper layer's kinds apart), `table` (the reported file of a cell,
//! the paper's table of a rank sum), `method`, `dataset` (our name; a rank sum's block),
//! `epsilon` (empty for a non-private cell), `reported` (the paper's value; for a claim,
//! the number of data sets it needs), `reproduced` (ours: a cell's mean over
//! repetitions, a rank sum, the number of data sets a claim holds on),
//! `std_error` (of a cell's mean), `reps`, `tolerance` (the largest |ours − paper|
//! accepted, in the unit of the values), `band` (a known deviation's band), `verdict`
//! (`ok`, `deviation`, `regression`, `not_run`), `reason` (a deviation's reason, why a
//! cell is not run, or a claim's details), `source` (file and line of the paper's value;
//! a claim's words in the paper), then on cells the authors' code's five columns
//! (`authors_code`, `authors_std`, `authors_reps`, `authors_agreement`, `authors_detail`;
//! empty elsewhere), then `reported_halfwidth` (a cell's paper 95 % half-width when the
//! reported files give one).
//!
//! An `epsilon_order` row is one pair of consecutive ε of a private method on a data set
//! ([`super::epsilon_order`]): `epsilon` the larger ε, `reported` the mean error at the
//! smaller ε, `reproduced` the mean error at the larger (MSE, or 1 − accuracy), `reps` the
//! paired repetitions, `tolerance` the largest median paired increase accepted (the margin
//! times the error at the smaller ε), `reason` the test's details.
//!
//! An `epsilon_match_method` row is one method of a reported table judged at the ε the
//! table is read at ([`super::epsilon_match::MethodMatch`]): `table` the table, `epsilon`
//! the read ε, `reported` the method's best score over our ε, `reproduced` its score at
//! the read ε (both median |ln(ours / paper)|), `reps` the cells compared at the read ε,
//! `tolerance` the margin the gap between them may reach, `reason` the verdict's line
//! (best ε, gap, a known deviation's reason).

use super::{eps_text, CheckReport, Verdict};

fn num(v: Option<f64>) -> String {
    v.map(|x| format!("{x}")).unwrap_or_default()
}

fn reason(verdict: &Verdict, note: Option<&str>) -> String {
    match (verdict, note) {
        (Verdict::KnownDeviation(r), _) => r.clone(),
        (_, Some(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// The columns of the authors' code beside a cell (`reported.authors_code`; empty on
/// every other row): its mean over repetitions, sample standard deviation, repetitions,
/// whom it agrees with (`with_us`, `with_paper`, `both`, `neither`, or `cannot_run`) and
/// the tests' details (or why their code cannot run the cell).
const AUTHORS_COLUMNS: [&str; 5] = [
    "authors_code",
    "authors_std",
    "authors_reps",
    "authors_agreement",
    "authors_detail",
];

/// Writes one row: the 14 columns of every kind, the authors' code's five, then the
/// paper's spread (`reported_halfwidth`, cells only). A row whose length differs from
/// the header's is the csv crate's error, passed on (never a row silently dropped).
fn record(
    w: &mut csv::Writer<Vec<u8>>,
    fields: [String; 14],
    authors: Option<&super::authors_code::AuthorsCell>,
    halfwidth: Option<f64>,
) -> Result<(), csv::Error> {
    use super::authors_code::AuthorsValue;
    let extra: [String; 5] = match authors.map(|a| (&a.value, a)) {
        Some((
            AuthorsValue::Ran {
                mean, std, reps, ..
            },
            a,
        )) => [
            format!("{mean}"),
            format!("{std}"),
            reps.to_string(),
            a.agreement
                .map(|g| g.csv_name())
                .unwrap_or_default()
                .to_string(),
            a.detail.clone(),
        ],
        Some((AuthorsValue::CannotRun { note, source }, _)) => [
            String::new(),
            String::new(),
            String::new(),
            "cannot_run".to_string(),
            format!("{note} ({source})"),
        ],
        None => Default::default(),
    };
    let spread = [num(halfwidth)];
    w.write_record(fields.iter().chain(extra.iter()).chain(spread.iter()))
}

/// `check.csv` of a report, header included (RFC 4180 quoting by the csv crate).
///
/// # Errors
/// The csv crate's error when a row cannot be written (a row whose number of fields
/// differs from the header's): the file is never written with rows missing.
pub fn check_csv(report: &CheckReport) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let header = [
        "kind",
        "table",
        "method",
        "dataset",
        "epsilon",
        "reported",
        "reproduced",
        "std_error",
        "reps",
        "tolerance",
        "band",
        "verdict",
        "reason",
        "source",
    ];
    w.write_record(
        header
            .iter()
            .chain(AUTHORS_COLUMNS.iter())
            .chain(["reported_halfwidth"].iter()),
    )?;
    let cells = report.cells.iter().map(|c| ("cell", c));
    let anchors = report.anchors.iter().map(|c| ("anchor", c));
    for (kind, c) in cells.chain(anchors) {
        let table = c.source.split(':').next().unwrap_or_default();
        record(
            &mut w,
            [
                kind.to_string(),
                table.trim_end_matches(".csv").to_string(),
                c.method.clone(),
                c.dataset.clone(),
                c.epsilon.map(eps_text).unwrap_or_default(),
                num(c.paper),
                num(c.ours.map(|o| o.0)),
                num(c.ours.map(|o| o.1)),
                c.ours.map(|o| o.2.to_string()).unwrap_or_default(),
                num(c.allowed),
                c.band.map(|b| b.text()).unwrap_or_default(),
                c.verdict.csv_name().to_string(),
                reason(&c.verdict, c.note.as_deref()),
                c.source.clone(),
            ],
            c.authors.as_ref(),
            c.paper_halfwidth,
        )?;
    }
    for r in &report.rank_sums {
        record(
            &mut w,
            [
                "rank_sum".to_string(),
                r.table.clone(),
                r.method.clone(),
                r.block.clone(),
                r.epsilon.map(eps_text).unwrap_or_default(),
                format!("{}", r.paper),
                num(r.ours),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                r.verdict.csv_name().to_string(),
                reason(&r.verdict, None),
                r.source.clone(),
            ],
            None,
            None,
        )?;
    }
    for p in &report.epsilon_orders {
        record(
            &mut w,
            [
                "epsilon_order".to_string(),
                String::new(),
                p.method.clone(),
                p.dataset.clone(),
                eps_text(p.higher),
                format!("{}", p.error_lower),
                format!("{}", p.error_higher),
                String::new(),
                p.paired.to_string(),
                format!("{}", super::epsilon_order::MARGIN * p.error_lower),
                String::new(),
                p.verdict.csv_name().to_string(),
                p.details(),
                String::new(),
            ],
            None,
            None,
        )?;
    }
    for m in &report.epsilon_matches {
        for x in &m.methods {
            let score = |e: f64| x.scores.iter().find(|s| s.epsilon == e).map(|s| s.score);
            record(
                &mut w,
                [
                    "epsilon_match_method".to_string(),
                    m.group.clone(),
                    x.method.clone(),
                    String::new(),
                    eps_text(x.at),
                    num(score(x.best)),
                    num(score(x.at)),
                    String::new(),
                    x.scores
                        .iter()
                        .find(|s| s.epsilon == x.at)
                        .map(|s| s.cells.to_string())
                        .unwrap_or_default(),
                    format!("{}", x.margin),
                    String::new(),
                    x.verdict.csv_name().to_string(),
                    x.line(&m.group),
                    String::new(),
                ],
                None,
                None,
            )?;
        }
    }
    for c in &report.claims {
        let verdict = match (c.holds, &c.known_failure) {
            (true, _) => "ok",
            (false, Some(_)) => "deviation",
            (false, None) => "regression",
        };
        let why = match &c.known_failure {
            Some(k) if !c.holds => format!("{k}; {}", c.details),
            _ => c.details.clone(),
        };
        record(
            &mut w,
            [
                "claim".to_string(),
                String::new(),
                c.label.clone(),
                String::new(),
                String::new(),
                c.needed.to_string(),
                c.count.to_string(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                verdict.to_string(),
                why,
                c.text.clone().unwrap_or_default(),
            ],
            None,
            None,
        )?;
    }
    for x in &report.suspects {
        record(
            &mut w,
            [
                "suspect".to_string(),
                String::new(),
                x.method.clone(),
                x.dataset.clone(),
                x.epsilon.map(eps_text).unwrap_or_default(),
                format!("{}", x.median),
                format!("{}", x.value),
                String::new(),
                x.repetition.to_string(),
                String::new(),
                String::new(),
                if x.impossible {
                    "regression"
                } else {
                    "suspect"
                }
                .to_string(),
                format!("{} ({})", x.reason, x.params),
                format!("runs.csv task {}", x.task),
            ],
            None,
            None,
        )?;
    }
    if let Some(g) = &report.golden {
        record(
            &mut w,
            [
                "golden".to_string(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                g.compared.to_string(),
                String::new(),
                String::new(),
                format!("{}", g.relative_tolerance),
                String::new(),
                if g.regressed() { "regression" } else { "ok" }.to_string(),
                format!(
                    "{} changed, {} missing, {} extra",
                    g.changed.len(),
                    g.missing.len(),
                    g.extra.len()
                ),
                g.golden_file.display().to_string(),
            ],
            None,
            None,
        )?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| csv::Error::from(std::io::Error::other(e.to_string())))?;
    Ok(String::from_utf8(bytes).expect("check.csv is written from UTF-8 strings"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row whose length differs from the header's is an error that reaches the caller,
    /// where it used to be discarded and the row silently lost.
    #[test]
    fn a_row_of_the_wrong_length_is_an_error() {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(["kind", "table", "method"]).unwrap();
        let fields: [String; 14] = Default::default();
        let err = record(&mut w, fields, None, None).unwrap_err();
        assert!(err.to_string().contains("fields"), "{err}");
    }

    /// Every row of an empty report's file has the header's length.
    #[test]
    fn the_header_and_rows_agree() {
        let text = check_csv(&CheckReport::default()).unwrap();
        let header = text.lines().next().unwrap();
        assert_eq!(header.split(',').count(), 14 + AUTHORS_COLUMNS.len() + 1);
        assert!(header.ends_with("reported_halfwidth"));
    }
}
