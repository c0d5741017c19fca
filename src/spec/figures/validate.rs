//! The checks of a `figures:` section against the experiment: known methods, data sets,
//! ε and parameters, consistent axes, band levels, a readable paper overlay, and for a
//! heat map its own axes and no line-figure options.

use std::collections::BTreeSet;

use super::{FigureContext, FigureSpec, Lines, SizePart, XAxis};
use crate::spec::FieldError;

impl FigureSpec {
    /// Checks the figure against the experiment: a usable name, known methods, data sets
    /// and ε, a parameter every listed method has, `lines: per_epsilon` only on parameter
    /// axes, band levels `0 ≤ lo < hi ≤ 1`; for a heat map (`y.parameter`) also its axes
    /// and no line-figure options ([`heatmap`]). `index` is the figure's place in the
    /// section (for the field name in errors).
    ///
    /// # Errors
    /// [`FieldError`] naming the field and what would be valid.
    pub fn validate(&self, index: usize, ctx: &FigureContext) -> Result<(), FieldError> {
        let field = |f: &str| format!("figures[{index}].{f}");
        let bad = |f: &str, message: String| FieldError {
            field: field(f),
            message,
        };
        if self.name.trim().is_empty() || self.name.contains(['/', '\\']) {
            return Err(bad(
                "name",
                "must be a non-empty name without slashes (it names the files)".into(),
            ));
        }
        let all: Vec<&str> = ctx.methods.iter().map(|m| m.label.as_str()).collect();
        if self.methods.is_empty() {
            return Err(bad(
                "methods",
                format!(
                    "a figure needs methods; methods of this spec: {}",
                    all.join(", ")
                ),
            ));
        }
        for m in &self.methods {
            if ctx.method(m).is_none() {
                return Err(bad(
                    "methods",
                    format!(
                        "unknown method `{m}`; methods of this spec: {}",
                        all.join(", ")
                    ),
                ));
            }
        }
        if let Some(ds) = &self.datasets {
            for d in ds {
                if !ctx.datasets.contains(d) {
                    return Err(bad(
                        "datasets",
                        format!(
                            "unknown data set `{d}`; data sets of this spec: {}",
                            ctx.datasets.join(", ")
                        ),
                    ));
                }
            }
        }
        if let Some(es) = &self.epsilons {
            if es.is_empty() {
                return Err(bad(
                    "epsilons",
                    "the list is empty; omit it for the spec's ε grid".into(),
                ));
            }
            for e in es {
                if !ctx.epsilons.contains(e) {
                    return Err(bad(
                        "epsilons",
                        format!(
                            "epsilon {e} is not in the spec's epsilons {:?}",
                            ctx.epsilons
                        ),
                    ));
                }
            }
        }
        if let Some(y) = &self.y.parameter {
            validate_heat_map(self, y, index, ctx)?;
        }
        match &self.x {
            XAxis::Size(_) => {}
            XAxis::Epsilon => {
                if self.lines == Lines::PerEpsilon {
                    return Err(bad(
                        "lines",
                        "`per_epsilon` needs a parameter x axis; with `x: epsilon` lines are per method".into(),
                    ));
                }
            }
            XAxis::Parameter(p) => {
                for m in &self.methods {
                    let info = ctx.method(m).expect("checked above");
                    if !info.params.iter().any(|(name, _)| name == p) {
                        let names: Vec<&str> =
                            info.params.iter().map(|(n, _)| n.as_str()).collect();
                        return Err(bad(
                            "x",
                            format!(
                                "method `{m}` has no parameter `{p}`; its parameters: {}",
                                names.join(", ")
                            ),
                        ));
                    }
                }
            }
        }
        if let XAxis::Size(part) = self.x {
            let mut names: Vec<&String> = match (&self.series, &self.datasets) {
                (Some(series), _) => series.iter().flat_map(|s| &s.datasets).collect(),
                (None, Some(ds)) => ds.iter().collect(),
                (None, None) => ctx.datasets.iter().collect(),
            };
            names.dedup();
            for d in names {
                if !ctx.datasets.contains(d) {
                    return Err(bad(
                        "series",
                        format!(
                            "unknown data set `{d}`; data sets of this spec: {}",
                            ctx.datasets.join(", ")
                        ),
                    ));
                }
                if !ctx.sizes.contains_key(d) {
                    return Err(bad(
                        "x",
                        format!(
                            "data set `{d}` has no stated {} sample size: a size axis needs synthetic data sets (`sizes`)",
                            match part {
                                SizePart::Public => "public",
                                SizePart::Private => "private",
                            }
                        ),
                    ));
                }
            }
        } else if self.series.is_some() {
            return Err(bad(
                "series",
                "series group data sets along a size axis (`x: {size: public}` or `private`)"
                    .into(),
            ));
        }
        for (k, s) in self.series.iter().flatten().enumerate() {
            if s.datasets.is_empty() {
                return Err(bad(
                    &format!("series[{k}].datasets"),
                    "name at least one data set".into(),
                ));
            }
        }
        for (k, r) in self.restrict.iter().enumerate() {
            let Some(info) = ctx
                .method(&r.method)
                .filter(|_| self.methods.contains(&r.method))
            else {
                return Err(bad(
                    &format!("restrict[{k}].method"),
                    format!(
                        "`{}` is not a method of this figure: {}",
                        r.method,
                        self.methods.join(", ")
                    ),
                ));
            };
            for name in r.params.keys() {
                if !info.params.iter().any(|(n, _)| n == name) {
                    let names: Vec<&str> = info.params.iter().map(|(n, _)| n.as_str()).collect();
                    return Err(bad(
                        &format!("restrict[{k}].params"),
                        format!(
                            "method `{}` has no parameter `{name}`; its parameters: {}",
                            r.method,
                            names.join(", ")
                        ),
                    ));
                }
            }
            if let Some(e) = r.epsilon {
                if !ctx.epsilons.contains(&e) {
                    return Err(bad(
                        &format!("restrict[{k}].epsilon"),
                        format!(
                            "epsilon {e} is not in the spec's epsilons {:?}",
                            ctx.epsilons
                        ),
                    ));
                }
            }
            for d in r.datasets.iter().flatten() {
                if !ctx.datasets.contains(d) {
                    return Err(bad(
                        &format!("restrict[{k}].datasets"),
                        format!("unknown data set `{d}`"),
                    ));
                }
            }
        }
        if let Some(o) = &self.reported {
            let points = o
                .load(&ctx.base)
                .map_err(|e| bad("reported.file", e.to_string()))?;
            if points.is_empty() {
                return Err(bad(
                    "reported.figure",
                    format!(
                        "{} has no rows with figure `{}`",
                        ctx.base.join(&o.file).display(),
                        o.figure
                    ),
                ));
            }
            let lines: Vec<&String> = self
                .methods
                .iter()
                .chain(self.series.iter().flatten().map(|s| &s.label))
                .collect();
            for (paper, ours) in &o.methods {
                if !points.iter().any(|p| &p.method == paper) {
                    let mut known: Vec<&str> = points.iter().map(|p| p.method.as_str()).collect();
                    known.dedup();
                    return Err(bad(
                        "reported.methods",
                        format!(
                            "figure `{}` of the file has no method `{paper}`; it has: {}",
                            o.figure,
                            known.join(", ")
                        ),
                    ));
                }
                if !lines.contains(&ours) {
                    return Err(bad(
                        "reported.methods",
                        format!(
                            "`{ours}` (for the paper's `{paper}`) is neither a method nor a series of this figure: {}",
                            lines.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                        ),
                    ));
                }
            }
            for (k, sh) in o.shift.iter().enumerate() {
                if !o.methods.contains_key(&sh.method) {
                    return Err(bad(
                        &format!("reported.shift[{k}].method"),
                        format!(
                            "`{}` is not a paper method of `reported.methods`",
                            sh.method
                        ),
                    ));
                }
            }
        }
        if let Some([lo, hi]) = self.band {
            if !(0.0..=1.0).contains(&lo) || !(0.0..=1.0).contains(&hi) || lo >= hi {
                return Err(bad(
                    "band",
                    format!("quantile levels must satisfy 0 <= lo < hi <= 1, got [{lo}, {hi}]"),
                ));
            }
        }
        Ok(())
    }
}

/// Validates every figure of a spec (see [`FigureSpec::validate`]) and that names are
/// unique.
///
/// # Errors
/// The first problem, as [`FieldError`].
pub fn validate_figures(figures: &[FigureSpec], ctx: &FigureContext) -> Result<(), FieldError> {
    let mut names = BTreeSet::new();
    for (i, f) in figures.iter().enumerate() {
        f.validate(i, ctx)?;
        if !names.insert(&f.name) {
            return Err(FieldError {
                field: format!("figures[{i}].name"),
                message: format!("figure `{}` is defined twice", f.name),
            });
        }
    }
    Ok(())
}

/// Checks a heat-map figure (one whose `y` names a parameter) against the experiment:
/// x is `epsilon` (every method private) or another grid parameter, every method has the
/// axes' parameters, and none of the line-figure options is given (`band`, `series`,
/// `reported`, `lines: per_epsilon`, `x_log_scale`, `y.log_scale`, a legend position).
/// Methods, data sets and ε are checked by [`FigureSpec::validate`].
///
/// # Errors
/// [`FieldError`] naming the field and what would be valid.
fn validate_heat_map(
    fig: &FigureSpec,
    y: &str,
    index: usize,
    ctx: &FigureContext,
) -> Result<(), FieldError> {
    let bad = |f: &str, message: String| FieldError {
        field: format!("figures[{index}].{f}"),
        message,
    };
    let unused = [
        ("band", fig.band.is_some()),
        ("series", fig.series.is_some()),
        ("reported", fig.reported.is_some()),
        ("lines", fig.lines != Lines::PerMethod),
        ("x_log_scale", fig.x_log_scale),
        ("y.log_scale", fig.y.log_scale),
        ("legend", fig.legend != Default::default()),
    ];
    for (field, given) in unused {
        if given {
            return Err(bad(
                field,
                format!("a heat map (`y: {{parameter: {y}}}`) has no `{field}`: its cells are the means over repetitions on a linear colour scale; remove the field or draw a line figure"),
            ));
        }
    }
    let mut axes = vec![y];
    match &fig.x {
        XAxis::Epsilon => {
            for m in &fig.methods {
                if !ctx.method(m).expect("methods checked first").private {
                    return Err(bad(
                        "x",
                        format!("`x: epsilon` needs private methods; `{m}` is non-private (give x a grid parameter)"),
                    ));
                }
            }
        }
        XAxis::Parameter(p) if p == y => {
            return Err(bad(
                "y.parameter",
                format!("x and y are both `{p}`; a heat map needs two different axes"),
            ));
        }
        XAxis::Parameter(p) => axes.push(p),
        XAxis::Size(_) => {
            return Err(bad(
                "x",
                "a heat map's x is `epsilon` or `{parameter: NAME}`, not a size axis".into(),
            ));
        }
    }
    for m in &fig.methods {
        let info = ctx.method(m).expect("methods checked first");
        for p in &axes {
            if !info.params.iter().any(|(name, _)| name == p) {
                let names: Vec<&str> = info.params.iter().map(|(n, _)| n.as_str()).collect();
                let field = if *p == y { "y.parameter" } else { "x" };
                return Err(bad(
                    field,
                    format!(
                        "method `{m}` has no parameter `{p}`; its parameters: {}",
                        names.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}
