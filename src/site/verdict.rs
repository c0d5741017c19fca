//! The verdict class of a reported cell as the site shows it: `check.csv`'s verdict
//! (`ok`, `deviation`, `regression`, `not_run`) refined by its reason (an unexplained
//! deviation inside its band; a cell the paper prints no number for).

use super::folder::CheckRow;

/// One reported cell's class on the site, most urgent first (the order of the legend and
/// of the counts). Each has a colour **and** a symbol, so it reads without colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CellClass {
    /// Outside its tolerance and not a known deviation (`regression`).
    Regression,
    /// A known deviation inside its band whose reason starts "unexplained" and that the
    /// authors' code does not reproduce either (`deviation`).
    Unexplained,
    /// A known deviation inside its band, with its reason (`deviation`).
    Explained,
    /// The paper has a number and we have none: the data set is not available, or the
    /// method or ε is not in the spec (`not_run` with a reported value).
    NotRun,
    /// The paper prints no number ("−") (`not_run` without a reported value).
    NotReported,
    /// Within its tolerance (`ok`).
    Ok,
}

/// Every class, most urgent first.
pub const CLASSES: [CellClass; 6] = [
    CellClass::Regression,
    CellClass::Unexplained,
    CellClass::Explained,
    CellClass::NotRun,
    CellClass::NotReported,
    CellClass::Ok,
];

impl CellClass {
    /// The class of a `cell` row of `check.csv`; `None` for a verdict the file does not
    /// give a cell (`suspect`, or a word this version does not know).
    pub fn of(row: &CheckRow) -> Option<Self> {
        Some(match row.verdict.as_str() {
            "ok" => CellClass::Ok,
            "regression" => CellClass::Regression,
            "deviation" => {
                let unexplained = row.reason.trim_start().starts_with("unexplained")
                    && row.authors_agreement != "with_us";
                if unexplained {
                    CellClass::Unexplained
                } else {
                    CellClass::Explained
                }
            }
            "not_run" => match row.reported.parse::<f64>() {
                Ok(v) if v.is_finite() => CellClass::NotRun,
                _ => CellClass::NotReported,
            },
            _ => return None,
        })
    }

    /// The machine-readable word of the page's `data-verdict` attribute and CSS class.
    pub fn attr(self) -> &'static str {
        match self {
            CellClass::Regression => "regression",
            CellClass::Unexplained => "unexplained",
            CellClass::Explained => "explained",
            CellClass::NotRun => "not_run",
            CellClass::NotReported => "not_reported",
            CellClass::Ok => "ok",
        }
    }

    /// The verdict `check.csv` writes for the cells of this class.
    pub fn csv_verdict(self) -> &'static str {
        match self {
            CellClass::Regression => "regression",
            CellClass::Unexplained | CellClass::Explained => "deviation",
            CellClass::NotRun | CellClass::NotReported => "not_run",
            CellClass::Ok => "ok",
        }
    }

    /// The symbol printed beside the colour.
    pub fn symbol(self) -> &'static str {
        match self {
            CellClass::Regression => "✗",
            CellClass::Unexplained => "?",
            CellClass::Explained => "≈",
            CellClass::NotRun => "∅",
            CellClass::NotReported => "–",
            CellClass::Ok => "✓",
        }
    }

    /// Plain words for the legend.
    pub fn words(self) -> &'static str {
        match self {
            CellClass::Regression => "regression: outside its tolerance, no known reason",
            CellClass::Unexplained => "unexplained deviation, inside its measured band",
            CellClass::Explained => "explained deviation, inside its band, with its reason",
            CellClass::NotRun => "not run: the paper has a number, we have none",
            CellClass::NotReported => "not reported: the paper prints no number",
            CellClass::Ok => "ok: within the tolerance",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(verdict: &str, reason: &str, reported: &str, agreement: &str) -> CheckRow {
        CheckRow {
            kind: "cell".into(),
            verdict: verdict.into(),
            reason: reason.into(),
            reported: reported.into(),
            authors_agreement: agreement.into(),
            ..CheckRow::default()
        }
    }

    #[test]
    fn classes_refine_the_csv_verdicts() {
        let cases = [
            (row("ok", "", "0.5", ""), CellClass::Ok),
            (row("regression", "", "0.5", ""), CellClass::Regression),
            (row("deviation", "card §9", "0.5", ""), CellClass::Explained),
            (
                row("deviation", " unexplained: gap", "0.5", ""),
                CellClass::Unexplained,
            ),
            (
                row("deviation", "unexplained: gap", "0.5", "with_us"),
                CellClass::Explained,
            ),
            (row("not_run", "no data", "0.5", ""), CellClass::NotRun),
            (
                row("not_run", "prints −", "NaN", ""),
                CellClass::NotReported,
            ),
            (row("not_run", "prints −", "", ""), CellClass::NotReported),
        ];
        for (r, want) in cases {
            let got = CellClass::of(&r).unwrap();
            assert_eq!(got, want, "{r:?}");
            assert_eq!(got.csv_verdict(), r.verdict);
        }
        assert_eq!(CellClass::of(&row("suspect", "", "", "")), None);
    }
}
