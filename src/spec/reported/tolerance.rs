//! How close one of our cells must be to the paper's: the [`Tolerance`] of a cell, and
//! the [`KnownDeviation`]s a spec declares, each with the [`Band`] its gap is measured in.

use serde::{Deserialize, Serialize};

use crate::spec::FieldError;

/// When our mean reproduces a reported value. A cell is within tolerance when
/// `|ours − paper| / |paper| ≤ relative` **or** `|ours − paper| ≤ se × our standard
/// error` (std / √reps over repetitions) **or** `|ours − paper| ≤ halfwidths ×
/// √(h_paper² + h_ours²)`; any criterion given suffices, and at least one must be given.
/// With `paper = 0` the relative criterion needs `ours = 0`.
///
/// `halfwidths` (the DiPriMe tables, whose runs are not replayable, `docs/methods/diprime.md` §6.1):
/// `h_paper` is the paper's printed 95 % Student-t half-width of its mean
/// (`reported.halfwidth_column`) and `h_ours` the same statistic of ours,
/// `t_{0.975,n−1}·sd₀/√n` ([`crate::stats::ci95_halfwidth_from_std`]; 0 when we have one
/// repetition). The paper's mean and ours are independent means of the same quantity
/// when we reproduce it, so their difference has variance `σ_p²/n_p + σ_o²/n_o`, whose
/// 95 % half-width is about `√(h_paper² + h_ours²)`: `halfwidths: 1` is a two-sided 5 %
/// test of equal expectations per cell. The paper's half-width alone would ignore our own
/// noise (a cell of a method noisier than the paper's run would fail by chance) and would
/// make cells whose paper half-width rounds to 0 unreachable. With 10 repetitions each
/// the band is `k · 2.146 · SE_diff` (t_{0.975,9}·√0.9, sd₀ against the sample sd), so
/// `halfwidths: 2` rejects a reproducing cell with probability
/// `P(|t_18| > 4.29) ≈ 4e-4`: about 0.03 false alarms over the 59 cells of DiPriMe
/// Tables 1–2 (Bonferroni: ≤ 5 % family-wise), while a shift of 2 paper half-widths
/// (≈ 4.5 of the paper's standard errors) is flagged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// Relative tolerance, a fraction (0.1 = 10 %); finite and ≥ 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative: Option<f64>,
    /// Band half-width in units of our standard error of the mean; finite and ≥ 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub se: Option<f64>,
    /// Band half-width in units of the combined 95 % half-width `√(h_paper² + h_ours²)`;
    /// finite and ≥ 0; needs `reported.halfwidth_column`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub halfwidths: Option<f64>,
}

impl Tolerance {
    /// Whether `ours` (with standard error `se`) reproduces `paper`. Non-finite
    /// differences are never within tolerance.
    pub fn accepts(&self, ours: f64, se: f64, paper: f64) -> bool {
        let diff = (ours - paper).abs();
        diff.is_finite() && diff <= self.allowed(se, f64::NAN, 0, paper, None)
    }

    /// The largest |ours − paper| this tolerance accepts for a cell (in the unit of the
    /// reported values): the largest of `relative × |paper|`, `se × our standard error`
    /// and `halfwidths × √(h_paper² + h_ours²)`, over the criteria given (a criterion
    /// whose inputs are missing or not finite gives nothing). `std` is our sample standard
    /// deviation (denominator n − 1) over `reps` repetitions. `check.csv` writes it as the
    /// cell's `tolerance`.
    pub fn allowed(
        &self,
        se: f64,
        std: f64,
        reps: usize,
        paper: f64,
        paper_halfwidth: Option<f64>,
    ) -> f64 {
        let mut out = f64::NEG_INFINITY;
        if let Some(r) = self.relative {
            out = out.max(r * paper.abs());
        }
        if let Some(k) = self.se {
            if se.is_finite() {
                out = out.max(k * se);
            }
        }
        if let (Some(k), Some(hp)) = (self.halfwidths, paper_halfwidth) {
            let ho = if std.is_finite() {
                crate::stats::ci95_halfwidth_from_std(std, reps).unwrap_or(0.0)
            } else {
                0.0
            };
            let band = k * hp.hypot(ho);
            if band.is_finite() {
                out = out.max(band);
            }
        }
        out
    }

    /// [`Tolerance::accepts`], or within `halfwidths × √(h_paper² + h_ours²)` when that
    /// criterion is given and the paper's half-width `paper_halfwidth` is known; `std` is
    /// our sample standard deviation (denominator n − 1) over `reps` repetitions, `se`
    /// our standard error. Non-finite differences are never within tolerance.
    ///
    /// ```
    /// use dp_repro::check::Tolerance;
    /// let t = Tolerance { halfwidths: Some(2.0), ..Tolerance::default() };
    /// // Paper 0.0159 ± 0.0007; ours 0.0170 with sd 0.001 over 10 runs (h ≈ 0.000679):
    /// // |diff| = 0.0011 ≤ 2·√(0.0007² + 0.000679²) ≈ 0.00195.
    /// assert!(t.accepts_cell(0.0170, 0.001 / 10f64.sqrt(), 0.001, 10, 0.0159, Some(0.0007)));
    /// assert!(!t.accepts_cell(0.0185, 0.001 / 10f64.sqrt(), 0.001, 10, 0.0159, Some(0.0007)));
    /// ```
    pub fn accepts_cell(
        &self,
        ours: f64,
        se: f64,
        std: f64,
        reps: usize,
        paper: f64,
        paper_halfwidth: Option<f64>,
    ) -> bool {
        let diff = (ours - paper).abs();
        diff.is_finite() && diff <= self.allowed(se, std, reps, paper, paper_halfwidth)
    }
}

/// A selector of reported cells that may deviate, with the band they are expected in and
/// the reason. Each list restricts one coordinate; an absent list matches any value.
/// `datasets` entries match our name (`abalone`) or the reported one (`ABA`); `epsilons`
/// never match a non-private cell (empty ε).
///
/// A cell outside the tolerance that a selector matches is a *deviation* only while ours
/// stays inside the selector's [`Band`]; outside it, it is a regression. The band is set
/// from measured runs (their seed spread included) and written down before the check that
/// uses it. The reason either names the spec that tested its hypothesis (`tested_by`) or
/// starts with `unexplained`; the check counts explained and unexplained deviations apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KnownDeviation {
    /// Data sets (ours or the paper's names); `None` = any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datasets: Option<Vec<String>>,
    /// Method labels; `None` = any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub methods: Option<Vec<String>>,
    /// ε values; `None` = any (including non-private cells).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilons: Option<Vec<f64>>,
    /// Where ours is expected: a ratio to the paper's value or an absolute range.
    pub band: Band,
    /// The spec(s) that tested the reason's hypothesis (paths as written, from the
    /// repository root); absent only when the reason starts with `unexplained`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tested_by: Vec<String>,
    /// Why these cells deviate (printed as a footnote of the report), e.g. a paper
    /// section and the mechanism detail behind the gap, or `unexplained: …`.
    pub reason: String,
    /// The option of ours that behaves as the authors' code does (e.g. `noise: frozen`,
    /// with the spec that runs it in `tested_by`): where the authors' code gives the
    /// paper's value and ours, faithful to the paper's text, does not, the deviation is
    /// this named option's and not a regression (`reported.authors_code`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub option: Option<String>,
}

/// The band a known deviation's cells are expected in (both ends included). In YAML
/// `{ratio: [lo, hi]}` or `{absolute: [lo, hi]}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(try_from = "BandYaml", into = "BandYaml")]
pub enum Band {
    /// ours / paper in `[lo, hi]` (the paper's value must be non-zero).
    Ratio([f64; 2]),
    /// ours in `[lo, hi]`, in the unit of the reported values.
    Absolute([f64; 2]),
}

/// [`Band`] as YAML writes it: exactly one of the two fields.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("oneOf" = [{ "required": ["ratio"] }, { "required": ["absolute"] }]))]
struct BandYaml {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ratio: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    absolute: Option<[f64; 2]>,
}

impl TryFrom<BandYaml> for Band {
    type Error = String;
    fn try_from(b: BandYaml) -> Result<Band, String> {
        match (b.ratio, b.absolute) {
            (Some(r), None) => Ok(Band::Ratio(r)),
            (None, Some(a)) => Ok(Band::Absolute(a)),
            _ => Err("give exactly one of `ratio: [lo, hi]` (ours / paper) and `absolute: [lo, hi]` (ours, in the values' unit)".into()),
        }
    }
}

impl From<Band> for BandYaml {
    fn from(b: Band) -> BandYaml {
        match b {
            Band::Ratio(r) => BandYaml {
                ratio: Some(r),
                ..BandYaml::default()
            },
            Band::Absolute(a) => BandYaml {
                absolute: Some(a),
                ..BandYaml::default()
            },
        }
    }
}

impl Band {
    /// Whether ours lies in the band (`paper` is the reported value).
    pub fn contains(&self, ours: f64, paper: f64) -> bool {
        match *self {
            Band::Ratio([lo, hi]) => {
                paper != 0.0 && {
                    let r = ours / paper;
                    r.is_finite() && lo <= r && r <= hi
                }
            }
            Band::Absolute([lo, hi]) => ours.is_finite() && lo <= ours && ours <= hi,
        }
    }

    /// The band as the reports print it: `ratio 0.80–1.10` or `value 0.61–0.66`.
    pub fn text(&self) -> String {
        match self {
            Band::Ratio([lo, hi]) => format!("ratio {lo}–{hi}"),
            Band::Absolute([lo, hi]) => format!("value {lo}–{hi}"),
        }
    }

    fn ends(&self) -> [f64; 2] {
        match *self {
            Band::Ratio(e) | Band::Absolute(e) => e,
        }
    }
}

impl KnownDeviation {
    /// Whether the selector matches a cell of data set `ours` / `reported`, `method`, `ε`.
    pub fn matches(&self, ours: &str, reported: &str, method: &str, epsilon: Option<f64>) -> bool {
        let ds = self
            .datasets
            .as_ref()
            .is_none_or(|v| v.iter().any(|d| d == ours || d == reported));
        let m = self
            .methods
            .as_ref()
            .is_none_or(|v| v.iter().any(|x| x == method));
        let e = match (&self.epsilons, epsilon) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(v), Some(e)) => v.contains(&e),
        };
        ds && m && e
    }

    /// Whether the deviation is explained: its reason does not start with `unexplained`
    /// (validation then requires `tested_by`).
    pub fn explained(&self) -> bool {
        !self.reason.trim_start().starts_with("unexplained")
    }

    /// The reason as a report prints it, with the specs that tested it.
    pub fn note(&self) -> String {
        if self.tested_by.is_empty() {
            self.reason.clone()
        } else {
            format!("{} (tested by {})", self.reason, self.tested_by.join(", "))
        }
    }

    /// Checks one entry (`field` is its path, e.g. `reported.known_deviations[2]`): a
    /// non-empty reason that names `tested_by` specs or starts with `unexplained`,
    /// non-empty selector lists, positive ε, a band with finite ends lo ≤ hi (a ratio
    /// band's ends > 0).
    ///
    /// # Errors
    /// [`FieldError`] naming the field and what would be valid.
    pub fn validate(&self, field: &str) -> Result<(), FieldError> {
        let invalid = |name: &str, message: String| FieldError {
            field: format!("{field}.{name}"),
            message,
        };
        if self.reason.trim().is_empty() {
            return Err(invalid(
                "reason",
                "is empty; say why these cells deviate (e.g. the paper section or the mechanism detail behind the gap)".into(),
            ));
        }
        if self.explained() && self.tested_by.is_empty() {
            return Err(invalid(
                "tested_by",
                "is missing: name the spec(s) that tested the reason's hypothesis, or start the reason with `unexplained`".into(),
            ));
        }
        if self.tested_by.iter().any(|t| t.trim().is_empty()) {
            return Err(invalid("tested_by", "names an empty spec path".into()));
        }
        for (name, empty) in [
            (
                "datasets",
                self.datasets.as_ref().is_some_and(|v| v.is_empty()),
            ),
            (
                "methods",
                self.methods.as_ref().is_some_and(|v| v.is_empty()),
            ),
            (
                "epsilons",
                self.epsilons.as_ref().is_some_and(|v| v.is_empty()),
            ),
        ] {
            if empty {
                return Err(invalid(
                    name,
                    "is an empty list, which matches nothing; omit the field to match any".into(),
                ));
            }
        }
        if let Some(e) = self
            .epsilons
            .iter()
            .flatten()
            .find(|e| !(e.is_finite() && **e > 0.0))
        {
            return Err(invalid("epsilons", format!("{e} is not a positive number")));
        }
        let [lo, hi] = self.band.ends();
        let ratio = matches!(self.band, Band::Ratio(_));
        if !(lo.is_finite() && hi.is_finite() && lo <= hi) || (ratio && lo <= 0.0) {
            return Err(invalid(
                "band",
                format!(
                    "[{lo}, {hi}] is not a band: give finite ends lo ≤ hi{}",
                    if ratio { ", both > 0 for a ratio" } else { "" }
                ),
            ));
        }
        Ok(())
    }
}
