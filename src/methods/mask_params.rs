//! The privacy-mask parameters shared by every semi-feature method (HistOfTree card §1,
//! §10; `data::mask` for the laws): `mask`, `d_p`, `mask_tau`, all structural. A method
//! lists [`MASK_PARAMS`] among its parameters, reads its mask with [`mask_of`] in
//! `prepare`; [`super::Method::check_grid`] and [`super::Method::skip_reason`] apply
//! [`check_mask_grid`] and [`mask_skip_reason`] by default to a method that declares them.

use super::{MethodError, ParamDecl, ParamKind, ParamRole, ParamValue, Params, RepData};
use crate::data::{MaskRule, PrivacyMask};
use std::collections::BTreeSet;

/// `mask`: the law of the privacy mask.
pub const MASK: ParamDecl = ParamDecl {
    name: "mask",
    role: ParamRole::Structural,
    kind: ParamKind::Choice(&["aligned", "personalized", "personalized_prefix"]),
    default: Some("aligned"),
    doc: "privacy mask: aligned (the d_p most sensitive features private for every user), personalized (P_ij ~ Bernoulli(rank_j^-mask_tau), rank 1 always private) or personalized_prefix (user protects ranks 1..D_i, P(D_i >= j) = j^-mask_tau); HistOfTree card §10, §11",
};

/// `d_p`: the number of private features of the aligned mask.
pub const D_P: ParamDecl = ParamDecl {
    name: "d_p",
    role: ParamRole::Structural,
    kind: ParamKind::Int { min: 0 },
    default: Some("2"),
    doc: "mask: aligned only: number of private features, the most sensitive first (card §10 [G] 2); grid points with d_p above the data set's d are skipped",
};

/// `mask_tau`: the tail exponent τ of the personalized masks.
pub const MASK_TAU: ParamDecl = ParamDecl {
    name: "mask_tau",
    role: ParamRole::Structural,
    kind: ParamKind::Float {
        lo: 0.0,
        hi: 1e3,
        open: false,
    },
    default: Some("1"),
    doc: "mask: personalized* only: tail exponent tau of P(rank j private) = j^-tau (card §10 [G] 1; larger: fewer private features)",
};

/// The three mask parameters, in declaration order.
pub const MASK_PARAMS: [ParamDecl; 3] = [MASK, D_P, MASK_TAU];

/// Whether the parameters `decls` include the mask law ([`MASK`]): the method reads a
/// privacy mask, and by default checks its grid with [`check_mask_grid`] and skips points
/// by [`mask_skip_reason`].
pub fn declares_mask(decls: &[ParamDecl]) -> bool {
    decls.iter().any(|p| p.name == MASK.name)
}

/// The value of `name` at `p`, None when the method does not declare it.
fn value<'a>(p: &'a Params, name: &str) -> Option<&'a ParamValue> {
    p.0.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

/// The mask law of grid point `p` (which holds the three [`MASK_PARAMS`]).
///
/// # Panics
/// If a mask parameter is missing or out of its declared kind: validation fills and checks
/// them.
pub fn mask_rule(p: &Params) -> MaskRule {
    match p.str(MASK.name) {
        "aligned" => MaskRule::Aligned {
            d_p: p.usize(D_P.name),
        },
        "personalized" => MaskRule::Personalized {
            tau: p.f64(MASK_TAU.name),
        },
        "personalized_prefix" => MaskRule::PersonalizedPrefix {
            tau: p.f64(MASK_TAU.name),
        },
        other => panic!("mask `{other}` passed validation"),
    }
}

/// The privacy mask of grid point `p` on the private training users of `data` (n×d, users
/// in the order of `data.private`).
///
/// # Errors
/// No masks in `data` (hand-made data without them), or masks of another number of users.
pub fn mask_of(data: &RepData, p: &Params) -> Result<PrivacyMask, MethodError> {
    let source = data.masks.as_ref().ok_or_else(|| {
        MethodError::Other(
            "this repetition's data carries no privacy masks (the runner gives every repetition its masks; hand-made data must set `masks`)".into(),
        )
    })?;
    let (n, d) = (data.private.n(), data.private.d());
    if source.n() != n || source.d() != d {
        return Err(MethodError::Other(format!(
            "the privacy masks cover {}x{} users x features, the private data {n}x{d}",
            source.n(),
            source.d()
        )));
    }
    Ok(source.mask(&mask_rule(p)))
}

/// Refuses grids over a mask parameter that the mask law of the same points ignores:
/// `mask_tau` with `mask: aligned`, `d_p` with a personalized mask, and (for methods that
/// declare it) `s` with `mask: aligned`, where the histogram axes are the d_p private
/// features. `points` are the method's structural grid points.
///
/// # Errors
/// `"<parameter>: <what would be valid>"`, naming the parameter first (the convention of
/// [`super::Method::check_grid`]).
pub fn check_mask_grid(points: &[Params]) -> Result<(), String> {
    // (parameter, applies to aligned points?, why)
    let rules: [(&str, bool, &str); 3] = [
        (
            MASK_TAU.name,
            false,
            "applies only to `mask: personalized` or `personalized_prefix`; with `mask: aligned` give one value or none",
        ),
        (
            D_P.name,
            true,
            "applies only to `mask: aligned`; with a personalized mask give one value or none",
        ),
        (
            "s",
            false,
            "with `mask: aligned` the histogram axes are the d_p private features (s = d_p); grid `s` only with a personalized mask",
        ),
    ];
    for (name, aligned_only, why) in rules {
        let mut seen = BTreeSet::new();
        for p in points {
            let (Some(ParamValue::Str(mask)), Some(v)) = (value(p, MASK.name), value(p, name))
            else {
                continue;
            };
            if (mask == "aligned") != aligned_only {
                seen.insert(v.to_string());
            }
        }
        if seen.len() > 1 {
            return Err(format!(
                "{name}: {why} (the grid gives {})",
                seen.into_iter().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    Ok(())
}

/// Why grid point `p` does not apply to a data set with `d` features: an aligned mask with
/// d_p above d.
pub fn mask_skip_reason(p: &Params, d: usize) -> Option<String> {
    match (value(p, MASK.name), value(p, D_P.name)) {
        (Some(ParamValue::Str(m)), Some(ParamValue::Int(dp)))
            if m == "aligned" && *dp > d as i64 =>
        {
            Some("d_p above the data set's d".into())
        }
        _ => None,
    }
}

/// Small synthetic semi-feature data and full grid points for the family's ledger tests.
#[cfg(test)]
pub(crate) mod test_support {
    use crate::data::{Dataset, MaskSource, Matrix, Task};
    use crate::estimate::LabelBounds;
    use crate::methods::{Method, ParamDecl, ParamValue, Params, RepData};
    use crate::privacy::ledger::{recording, LedgerReport};
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    fn uniform(n: usize, d: usize, rng: &mut Pcg64) -> Dataset {
        let x = Matrix::new(n, d, (0..n * d).map(|_| rng.gen::<f64>()).collect());
        let y = (0..n)
            .map(|i| (6.0 * x.row(i)[0]).sin() + 2.0 * x.row(i)[d - 1] + rng.gen::<f64>())
            .collect();
        Dataset::numeric("toy", Task::Regression, x, y)
    }

    /// n private users and n_test test points, uniform on [0,1]^d, a smooth label, label
    /// bounds fixed at [−1, 4] (public in the test), a mask source drawn from seed 11.
    pub(crate) fn rep_data(n: usize, n_test: usize, d: usize) -> RepData {
        let mut rng = Pcg64::seed_from_u64(3);
        let private = uniform(n, d, &mut rng);
        let test = uniform(n_test, d, &mut rng);
        let masks = MaskSource::draw(n, (0..d).collect(), &mut Pcg64::seed_from_u64(11));
        RepData {
            public: private.select(&[]),
            private: crate::data::PrivateRows::new(private),
            test,
            bounds: LabelBounds { lo: -1.0, hi: 4.0 },
            masks: Some(masks.into()),
        }
    }

    /// The ledger of one fit of `m` at grid point `p` on `data` (prepare with seed 1, predict
    /// at `epsilon` with seed 2), after asserting that every private user was charged
    /// exactly `epsilon`; `what` names the case in the messages.
    pub(crate) fn charged_exactly(
        m: &dyn Method,
        data: &RepData,
        p: &Params,
        epsilon: f64,
        what: &str,
    ) -> LedgerReport {
        let (_, r) = recording(|| {
            let fit = m
                .prepare(data, p, &mut Pcg64::seed_from_u64(1))
                .unwrap()
                .unwrap();
            fit.predict(p, Some(epsilon), &mut Pcg64::seed_from_u64(2))
                .unwrap()
        });
        assert_eq!(r.subjects, data.private.n(), "{what}");
        assert!((r.max_epsilon - epsilon).abs() < 1e-9, "{what}: {r:?}");
        assert!((r.min_epsilon - epsilon).abs() < 1e-9, "{what}: {r:?}");
        r
    }

    /// Every declared parameter at its default (a valid value when it has none), then
    /// `set` on top.
    pub(crate) fn point(decls: &[ParamDecl], set: &[(&str, ParamValue)]) -> Params {
        crate::methods::complete_point(decls, set)
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::point;
    use super::*;
    use crate::methods::find;

    /// A method that declares the mask parameters gets the mask's grid check and skip rule
    /// without writing them; one that does not keeps the permissive defaults.
    #[test]
    fn methods_declaring_the_mask_check_their_grid_and_skip_by_default() {
        let aligned = |tau: f64, d_p: i64| {
            let krr = find("KRR").unwrap();
            point(
                krr.params(),
                &[
                    ("mask", ParamValue::Str("aligned".into())),
                    ("mask_tau", ParamValue::Float(tau)),
                    ("d_p", ParamValue::Int(d_p)),
                ],
            )
        };
        let over_tau = [aligned(1.0, 2), aligned(2.0, 2)];
        for name in ["KRR", "ParDT"] {
            let m = find(name).unwrap();
            assert!(declares_mask(m.params()), "{name}");
            let e = m.check_grid(&over_tau).unwrap_err();
            assert!(e.starts_with("mask_tau:"), "{name}: {e}");
            assert!(m.check_grid(&over_tau[..1]).is_ok(), "{name}");
            assert!(m.skip_reason(&aligned(1.0, 5), 100, 3).is_some(), "{name}");
            assert!(m.skip_reason(&aligned(1.0, 3), 100, 3).is_none(), "{name}");
        }
        let label_dt = find("LabelDT").unwrap();
        assert!(!declares_mask(label_dt.params()));
        assert!(label_dt.skip_reason(&aligned(1.0, 5), 100, 3).is_none());
    }
}
