//! The checks of a `claims:` section that need no results: non-empty names and texts,
//! ε > 0, α in (0, 1), consistent method lists, unique ids.

use std::collections::{HashMap, HashSet};

use super::Claim;
use crate::spec::FieldError;

impl Claim {
    /// Checks one claim (`index` is its position, for the field path `claims[i]`): ids,
    /// texts and reasons non-empty when given; method names non-empty; `method` ≠ `than`;
    /// ε finite and > 0; α in (0, 1); `best_among` with non-empty `methods` ⊆ `among`
    /// and no repeated name.
    ///
    /// # Errors
    /// [`FieldError`] naming the field and what would be valid.
    pub fn validate(&self, index: usize) -> Result<(), FieldError> {
        let err = |field: &str, message: String| FieldError {
            field: format!("claims[{index}].{field}"),
            message,
        };
        for (name, v) in [
            ("id", self.id()),
            ("text", self.text()),
            ("known_failure", self.known_failure()),
        ] {
            if v.is_some_and(|s| s.trim().is_empty()) {
                return Err(err(name, "is empty; give a value or omit the field".into()));
            }
        }
        let eps = |e: f64| -> Result<(), FieldError> {
            if e.is_finite() && e > 0.0 {
                Ok(())
            } else {
                Err(err("epsilon", format!("{e} is not a positive number")))
            }
        };
        let named = |method: &str| -> Result<(), FieldError> {
            if method.trim().is_empty() {
                return Err(err("method", "is empty; give a method label".into()));
            }
            Ok(())
        };
        // `method` against a list `field` of one or more other methods.
        let against = |method: &str, field: &str, others: &[String]| -> Result<(), FieldError> {
            named(method)?;
            if others.is_empty() || others.iter().any(|m| m.trim().is_empty() || m == method) {
                return Err(err(
                    field,
                    "give one or more method labels other than `method`".into(),
                ));
            }
            Ok(())
        };
        let pair = |method: &str, than: &str| -> Result<(), FieldError> {
            named(method)?;
            if than.trim().is_empty() {
                return Err(err("than", "is empty; give a method label".into()));
            }
            if method == than {
                return Err(err(
                    "than",
                    format!("equals `method` ({method}); compare two different methods"),
                ));
            }
            Ok(())
        };
        match self {
            Claim::Better {
                method,
                than,
                epsilon,
                ..
            } => {
                pair(method, than)?;
                if let Some(e) = epsilon {
                    eps(*e)?;
                }
            }
            Claim::SignificantlyBetter {
                method,
                than,
                epsilon,
                alpha,
                ..
            } => {
                pair(method, than)?;
                eps(*epsilon)?;
                if !(*alpha > 0.0 && *alpha < 1.0) {
                    return Err(err("alpha", format!("{alpha} is not in (0, 1)")));
                }
            }
            Claim::BestAmong {
                methods,
                among,
                epsilon,
                ..
            }
            | Claim::BestRankSum {
                methods,
                among,
                epsilon,
                ..
            } => {
                eps(*epsilon)?;
                if let Claim::BestRankSum {
                    ratio_to: Some(d), ..
                } = self
                {
                    if d.trim().is_empty() {
                        return Err(err(
                            "ratio_to",
                            "is empty; name the denominator method or omit the field".into(),
                        ));
                    }
                }
                if methods.is_empty() {
                    return Err(err("methods", "is empty; name at least one method".into()));
                }
                if among.len() < 2 {
                    return Err(err(
                        "among",
                        "needs at least two methods (those of `methods` and their competitors)"
                            .into(),
                    ));
                }
                for (name, list) in [("methods", methods), ("among", among)] {
                    let mut seen = HashSet::new();
                    for m in list {
                        if m.trim().is_empty() {
                            return Err(err(name, "contains an empty method label".into()));
                        }
                        if !seen.insert(m) {
                            return Err(err(name, format!("names `{m}` twice")));
                        }
                    }
                }
                if let Some(m) = methods.iter().find(|m| !among.contains(m)) {
                    return Err(err(
                        "methods",
                        format!(
                            "`{m}` is not in `among` ({}); `among` lists every competitor, `methods` included",
                            among.join(", ")
                        ),
                    ));
                }
            }
            Claim::BalancedLeaves {
                figure,
                method,
                than,
                ..
            } => {
                if figure.trim().is_empty() {
                    return Err(err(
                        "figure",
                        "is empty; name a leaf_occupancy figure".into(),
                    ));
                }
                against(method, "than", than)?;
            }
            Claim::WithinFactor {
                method,
                of,
                factor,
                epsilon,
                figure,
                ratio_to,
                ..
            } => {
                against(method, "of", of)?;
                if !(factor.is_finite() && *factor > 0.0) {
                    return Err(err("factor", format!("{factor} is not a positive number")));
                }
                if let Some(e) = epsilon {
                    eps(*e)?;
                }
                if figure.as_ref().is_some_and(|f| f.trim().is_empty()) {
                    return Err(err(
                        "figure",
                        "is empty; give a figure name or omit the field".into(),
                    ));
                }
                match (figure, ratio_to) {
                    (_, Some(d)) if d.trim().is_empty() => {
                        return Err(err(
                            "ratio_to",
                            "is empty; name the denominator method or omit the field".into(),
                        ));
                    }
                    (Some(_), Some(_)) => {
                        return Err(err(
                            "ratio_to",
                            "applies to selected rows, not to a figure's curves; omit one of `figure` and `ratio_to`".into(),
                        ));
                    }
                    _ => {}
                }
            }
            Claim::ImprovesWithEpsilon { method, .. } => {
                named(method)?;
            }
            Claim::TrendAcrossDatasets {
                method,
                datasets,
                epsilon,
                slack,
                ..
            } => {
                named(method)?;
                if datasets.len() < 2 {
                    return Err(err(
                        "datasets",
                        "give two or more data sets, in the order of the trend".into(),
                    ));
                }
                if let Some(e) = epsilon {
                    eps(*e)?;
                }
                if !(slack.is_finite() && *slack >= 0.0) {
                    return Err(err("slack", format!("{slack} is not a number ≥ 0")));
                }
            }
            Claim::Level {
                methods,
                epsilons,
                within,
                ..
            } => {
                if methods.is_empty() || methods.iter().any(|m| m.trim().is_empty()) {
                    return Err(err("methods", "give one or more method labels".into()));
                }
                if epsilons.is_empty() {
                    return Err(err("epsilons", "give one or more ε".into()));
                }
                for e in epsilons {
                    eps(*e)?;
                }
                if !(within.is_finite() && *within >= 0.0) {
                    return Err(err("within", format!("{within} is not a number ≥ 0")));
                }
                if methods.len() * epsilons.len() < 2 {
                    return Err(err(
                        "epsilons",
                        "one method at one ε is one cell; give two or more cells to compare".into(),
                    ));
                }
            }
            Claim::BetterOnCurve {
                figure,
                method,
                than,
                epsilon,
                x_min,
                x_max,
                ..
            } => {
                if figure.trim().is_empty() {
                    return Err(err("figure", "is empty; give a figure name".into()));
                }
                against(method, "than", than)?;
                if let Some(e) = epsilon {
                    eps(*e)?;
                }
                if let (Some(a), Some(b)) = (x_min, x_max) {
                    if a > b {
                        return Err(err("x_min", format!("{a} is above x_max {b}")));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Validates every claim ([`Claim::validate`]) and checks that ids are unique.
///
/// # Errors
/// The first [`FieldError`] found.
pub fn validate_claims(claims: &[Claim]) -> Result<(), FieldError> {
    let mut ids: HashMap<&str, usize> = HashMap::new();
    for (i, c) in claims.iter().enumerate() {
        c.validate(i)?;
        if let Some(id) = c.id() {
            if let Some(j) = ids.insert(id, i) {
                return Err(FieldError {
                    field: format!("claims[{i}].id"),
                    message: format!("`{id}` is already the id of claims[{j}]; ids must be unique"),
                });
            }
        }
    }
    Ok(())
}
