//! ParDT and LabelDT, the label-noise tree competitors of HistOfTree (card §8).
//!
//! **ParDT** (semi-feature LDP): every user releases Ỹ_i = clip(Y_i) + Lap(R/ε) with the
//! full ε on the label (card §8 [T]: the scale is the label range over ε; the clip into
//! the runner's label bounds makes R the sensitivity) and its public features in the
//! clear. The curator grows sklearn's CART (`max_depth`, `min_samples_leaf`) on the public
//! features and Ỹ and predicts the test points from their (clean) features.
//! Which features it uses ([`public_columns`], option `impute`, card §8 [G]):
//! `public_mean` — a column with no public entry is dropped (under the aligned mask: the
//! d_p private columns), and a private entry of a kept column is replaced by the mean of
//! that column's public entries (personalized masks).
//!
//! **LabelDT** (label LDP, the simulations' benchmark): the same noisy labels, CART on all
//! features in the clear. Label LDP is semi-feature LDP with every feature public (card
//! §2), so its [`PrivacyModel`](super::PrivacyModel) is `SemiFeature`; it declares no mask.
//!
//! Both answer every (`max_depth`, `min_samples_leaf`) of a release from one deepest tree
//! per `min_samples_leaf` ([`super::tree_release`]).

use super::mask_params::{mask_of, MASK_PARAMS};
use super::tree_release::{Release, TreeCache, MAX_DEPTH, MIN_SAMPLES_LEAF};
use super::{
    required_epsilon, Method, MethodError, ParamDecl, ParamKind, ParamRole, Params, Prepared,
    RepData,
};
use crate::data::{Escape, Matrix, PrivacyMask};
use crate::estimate::LabelBounds;
use crate::partition::Missing;
use crate::privacy::ledger::Subjects;
use crate::privacy::{laplace_release, Budget, Domain};
use rand::Rng;
use rand_pcg::Pcg64;
use std::sync::{Arc, LazyLock};

/// `impute`: what ParDT does with a user's private entries.
const IMPUTE: ParamDecl = ParamDecl {
    name: "impute",
    role: ParamRole::Structural,
    kind: ParamKind::Choice(&["public_mean", "nan_aware"]),
    default: Some("public_mean"),
    doc: "private entries (card §8 [G]): columns without a public entry are dropped; public_mean = other private entries replaced by the column's mean over its public entries; nan_aware = left missing, and at each split of the CART the users missing the split feature go to the side with the larger variance reduction (scikit-learn >= 1.3)",
};

static PARDT_PARAMS: LazyLock<Vec<ParamDecl>> = LazyLock::new(|| {
    let mut v = MASK_PARAMS.to_vec();
    v.extend([IMPUTE, MAX_DEPTH, MIN_SAMPLES_LEAF]);
    v
});

static LABELDT_PARAMS: [ParamDecl; 2] = [MAX_DEPTH, MIN_SAMPLES_LEAF];

/// The ParDT builtin; registered as [`PARDT`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ParDt;

/// ParDT: Laplace(R/ε) labels, CART on the public features (card §8).
pub static PARDT: ParDt = ParDt;

/// The LabelDT builtin; registered as [`LABELDT`].
#[derive(Debug, Clone, Copy, Default)]
pub struct LabelDt;

/// LabelDT: Laplace(R/ε) labels, CART on all features in the clear (card §8).
pub static LABELDT: LabelDt = LabelDt;

/// The ledger part of a noisy label (every method of the family names it so).
pub const LABEL_PART: &str = "label (Laplace)";

/// Noisy labels clip(y_i) + Lap(`scale`) of the users 0..y.len(), in order, one Laplace
/// draw each: [`noisy_labels_of`] from user 0.
pub fn noisy_labels<R: Rng + ?Sized>(
    y: &[f64],
    bounds: LabelBounds,
    scale: f64,
    rng: &mut R,
) -> Vec<f64> {
    noisy_labels_of(0, y, bounds, scale, rng)
}

/// Noisy labels clip(y_i) + Lap(`scale`) of the private users `first_user ..
/// first_user + y.len()` (`y[i]` is user `first_user + i`), in order, one Laplace draw
/// each: the one noisy-label release of HistOfTree's round 1, ParDT, LabelDT and KRR.
///
/// Ledger: each of these users is charged, under [`LABEL_PART`], by
/// [`laplace_release`], R/b with R the range of `bounds` (the domain the label is clipped
/// to, so two neighbouring labels move the release by at most R; widened to take in a
/// label handed over unclipped) and b the scale its draw used.
pub fn noisy_labels_of<R: Rng + ?Sized>(
    first_user: usize,
    y: &[f64],
    bounds: LabelBounds,
    scale: f64,
    rng: &mut R,
) -> Vec<f64> {
    let scale = if crate::privacy::mutants::active("noisy-label-helper-scale-halved") {
        // Slip: the helper halves the scale it is given (a caller's R/(2ε)-style scale
        // "corrected" a second time inside the shared helper).
        scale / 2.0
    } else {
        scale
    };
    let domain = Domain::Interval {
        lo: bounds.lo,
        hi: bounds.hi,
    };
    y.iter()
        .enumerate()
        .map(|(i, &v)| {
            let who = Subjects::One(first_user + i);
            laplace_release(rng, bounds.clip(v), domain, scale, LABEL_PART, who)
        })
        .collect()
}

/// The noisy labels of ParDT and LabelDT at budget ε (card §8 [T]): every user's
/// clip(y_i) + Lap(R/ε) with R the range of `bounds`, users 0..y.len() in order
/// ([`noisy_labels`]). The fit and the audit (`audit::semi_feature`) both call it.
pub fn label_release<R: Rng + ?Sized>(
    y: &[f64],
    bounds: LabelBounds,
    epsilon: f64,
    rng: &mut R,
) -> Vec<f64> {
    noisy_labels(y, bounds, bounds.range() / epsilon, rng)
}

/// ParDT's training features under `mask` (`impute: public_mean`): the columns with at
/// least one public entry, in order, with every private entry replaced by the mean of the
/// column's public entries. Returns the n×d' matrix and the kept column indices.
///
/// # Panics
/// If the mask is not n×d for `x`.
pub fn public_columns(x: &Matrix, mask: &PrivacyMask) -> (Matrix, Vec<usize>) {
    assert_eq!(
        (mask.n(), mask.d()),
        (x.n, x.d),
        "one mask entry per feature"
    );
    let mut kept = Vec::new();
    let mut means = Vec::new();
    for j in 0..x.d {
        let (mut sum, mut count) = (0.0, 0usize);
        for i in 0..x.n {
            if !mask.is_private(i, j) {
                sum += x.row(i)[j];
                count += 1;
            }
        }
        if count > 0 {
            kept.push(j);
            means.push(sum / count as f64);
        }
    }
    let mut data = Vec::with_capacity(x.n * kept.len());
    for i in 0..x.n {
        let row = x.row(i);
        data.extend(kept.iter().zip(&means).map(
            |(&j, &m)| {
                if mask.is_private(i, j) {
                    m
                } else {
                    row[j]
                }
            },
        ));
    }
    (Matrix::new(x.n, kept.len(), data), kept)
}

/// ParDT's training features under `mask` with `impute: nan_aware`: the columns of
/// [`public_columns`], every private entry NaN (missing). Returns the n×d' matrix and the
/// kept column indices.
///
/// # Panics
/// If the mask is not n×d for `x`.
pub fn public_columns_missing(x: &Matrix, mask: &PrivacyMask) -> (Matrix, Vec<usize>) {
    let (mut m, kept) = public_columns(x, mask);
    for i in 0..x.n {
        for (c, &j) in kept.iter().enumerate() {
            if mask.is_private(i, j) {
                m.data[i * kept.len() + c] = f64::NAN;
            }
        }
    }
    (m, kept)
}

/// The columns `cols` of `x`.
pub(crate) fn columns(x: &Matrix, cols: &[usize]) -> Matrix {
    let mut data = Vec::with_capacity(x.n * cols.len());
    for i in 0..x.n {
        let row = x.row(i);
        data.extend(cols.iter().map(|&j| row[j]));
    }
    Matrix::new(x.n, cols.len(), data)
}

/// A fitted ParDT / LabelDT: the training features the curator sees, the private labels,
/// the test features in the same columns.
struct PreparedLabelTree {
    name: &'static str,
    x: Arc<Matrix>,
    y: Vec<f64>,
    bounds: LabelBounds,
    test: Matrix,
    /// NaN entries of `x` are missing values (`impute: nan_aware`).
    missing: Missing,
    cache: TreeCache,
}

impl Prepared for PreparedLabelTree {
    fn predict(
        &self,
        m: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError> {
        let epsilon = Budget::new(required_epsilon(self.name, epsilon)?)?.epsilon();
        self.cache.predict(
            ("", epsilon),
            rng,
            |rng| {
                Ok(Release {
                    x: self.x.clone(),
                    y: label_release(&self.y, self.bounds, epsilon, rng),
                    missing: self.missing,
                })
            },
            &self.test,
            (m.usize(MAX_DEPTH.name), m.usize(MIN_SAMPLES_LEAF.name)),
        )
    }
}

impl Method for ParDt {
    builtin! {
        "ParDT", [Regression], SemiFeature, &PARDT_PARAMS,
        "label Laplace(R/eps) with the full budget, sklearn CART on the public features (private columns dropped; personalized masks: private entries imputed by the public column mean); HistOfTree card §8"
    }
    fn prepare(
        &self,
        data: &RepData,
        p: &Params,
        _rng: &mut Pcg64,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        if self.skip_reason(p, 0, data.private.d()).is_some() {
            return Ok(None);
        }
        let mask = mask_of(data, p)?;
        // Each user sends the coordinates its mask declares public in the clear and its
        // label through the Laplace release.
        let users = data.private.escape(Escape::UserRelease);
        let (missing, (x, kept)) = match p.str(IMPUTE.name) {
            "nan_aware" => (Missing::BestSide, public_columns_missing(&users.x, &mask)),
            _ => (Missing::Refuse, public_columns(&users.x, &mask)),
        };
        Ok(Some(Box::new(PreparedLabelTree {
            name: "ParDT",
            x: Arc::new(x),
            y: users.y.clone(),
            bounds: data.bounds,
            test: columns(&data.test.x, &kept),
            missing,
            cache: TreeCache::default(),
        })))
    }
}

impl Method for LabelDt {
    // Label LDP is semi-feature LDP with every feature public (card §2).
    builtin! {
        "LabelDT", [Regression], SemiFeature, &LABELDT_PARAMS,
        "label-LDP benchmark: label Laplace(R/eps), sklearn CART on all features in the clear; HistOfTree card §8"
    }
    fn prepare(
        &self,
        data: &RepData,
        _p: &Params,
        _rng: &mut Pcg64,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        // Label LDP: every feature is sent in the clear, the label through the Laplace
        // release.
        let users = data.private.escape(Escape::UserRelease);
        Ok(Some(Box::new(PreparedLabelTree {
            name: "LabelDT",
            x: Arc::new(users.x.clone()),
            y: users.y.clone(),
            bounds: data.bounds,
            test: data.test.x.clone(),
            missing: Missing::Refuse,
            cache: TreeCache::default(),
        })))
    }
}

/// The ledger of real ParDT and LabelDT fits.
#[cfg(test)]
mod ledger_tests {
    use super::*;
    use crate::methods::mask_params::test_support::{charged_exactly, point, rep_data};
    use crate::methods::{find, ParamValue};
    use rand::SeedableRng;

    /// Every user pays its noisy label once, R/(R/ε) = ε; a wrong scale (R/(2ε)) passed to
    /// the helper is charged 2ε.
    #[test]
    fn a_label_tree_fit_charges_every_user_epsilon() {
        let data = rep_data(200, 30, 4);
        for name in ["ParDT", "LabelDT"] {
            let m = find(name).unwrap();
            let p = point(
                m.params(),
                &[
                    ("mask", ParamValue::Str("personalized".into())),
                    ("max_depth", ParamValue::Int(4)),
                ],
            );
            let r = charged_exactly(m.as_ref(), &data, &p, 0.7, name);
            assert_eq!(r.path_text(), "label (Laplace): 1 x 0.700000");
        }
        let b = data.bounds;
        let (_, r) = crate::privacy::ledger::recording(|| {
            noisy_labels_of(
                5,
                &[1.0, 2.0],
                b,
                b.range() / (2.0 * 0.7),
                &mut Pcg64::seed_from_u64(3),
            )
        });
        assert_eq!((r.subjects, r.worst), (2, Some(5)));
        assert!((r.max_epsilon - 1.4).abs() < 1e-9, "{r:?}");
    }
}
