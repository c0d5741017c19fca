//! KRR, the k-ary randomized-response competitor of HistOfTree (card §8).
//!
//! Release of user i with d_i private features (mask entries P_ij = 1):
//! * each private entry x_ij is discretized into its bin among k equal bins of [0,1]
//!   (`Grid::bin`: bin min(⌊k·x⌋, k−1)) and released through k-ary randomized response
//!   ([`Grr`], Kairouz et al. 2016) at ε/(2 d_i);
//! * the label is released as clip(y_i) + Lap(2R/ε), i.e. at ε/2;
//! * public entries are sent in the clear.
//!
//! So the user spends ε/2 + d_i·ε/(2 d_i) = ε (basic composition; a user with no private
//! feature spends ε/2) — the budget split is the card's [G] default (`feature_share` 1/2,
//! fixed). Draw order: users in order; per user its private entries in column order, then
//! its label.
//!
//! The curator maps each released bin r to a value (`krr_value`, card §8 [G]): `centre`
//! (r + ½)/k or `index` r/(k − 1), grows sklearn's CART (`max_depth`, `min_samples_leaf`)
//! on the released matrix and the noisy labels, and predicts the clean test features.
//! Every (`max_depth`, `min_samples_leaf`) of a release is read from one deepest tree per
//! (`krr_value`, `min_samples_leaf`) ([`super::tree_release`]).

use super::mask_params::{mask_of, MASK_PARAMS};
use super::pardt::noisy_labels_of;
use super::tree_release::{Release, TreeCache, MAX_DEPTH, MIN_SAMPLES_LEAF};
use super::{
    required_epsilon, Method, MethodError, ParamDecl, ParamKind, ParamRole, Params, Prepared,
    RepData,
};
use crate::data::{Escape, Matrix, PrivacyMask};
use crate::estimate::LabelBounds;
use crate::partition::{Grid, Missing};
use crate::privacy::ledger::Subjects;
use crate::privacy::{Budget, Grr};
use rand::Rng;
use rand_pcg::Pcg64;
use std::sync::{Arc, LazyLock};

/// `k`: the number of bins per private feature.
pub const K: ParamDecl = ParamDecl {
    name: "k",
    role: ParamRole::Release,
    kind: ParamKind::Int { min: 2 },
    default: None,
    doc: "number of equal bins of [0,1] each private feature is discretized into before k-ary randomized response (card §8, tuned; grid [G] 2, 4, 8, 16)",
};

/// `krr_value`: the value the curator gives a released bin.
const KRR_VALUE: ParamDecl = ParamDecl {
    name: "krr_value",
    role: ParamRole::Curator,
    kind: ParamKind::Choice(&["centre", "index"]),
    default: Some("centre"),
    doc: "value of a released bin r: centre = (r + 1/2)/k, index = r/(k - 1) (card §8 [G])",
};

static PARAMS: LazyLock<Vec<ParamDecl>> = LazyLock::new(|| {
    let mut v = MASK_PARAMS.to_vec();
    v.extend([K, MAX_DEPTH, MIN_SAMPLES_LEAF, KRR_VALUE]);
    v
});

/// The KRR builtin; registered as [`KRR`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Krr;

/// KRR: k-RR on the binned private features, Laplace label, CART (card §8).
pub static KRR: Krr = Krr;

/// The value the curator gives a released bin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KrrValue {
    /// (r + ½)/k, the bin centre.
    Centre,
    /// r/(k − 1), the bin index rescaled to [0, 1].
    Index,
}

impl KrrValue {
    /// The value of bin `r` of `k`.
    pub fn of(self, r: usize, k: usize) -> f64 {
        match self {
            KrrValue::Centre => (r as f64 + 0.5) / k as f64,
            KrrValue::Index => r as f64 / (k - 1) as f64,
        }
    }
}

/// The budgets of a user with `d_private` private features at total ε: (label ε/2, each
/// private feature ε/(2 d_private)); the feature budget is 0 when d_private = 0.
pub fn krr_budgets(epsilon: f64, d_private: usize) -> (f64, f64) {
    let per_feature = if d_private == 0 {
        0.0
    } else {
        epsilon / (2.0 * d_private as f64)
    };
    (epsilon / 2.0, per_feature)
}

/// The ledger part of KRR's private features.
pub const FEATURES_PART: &str = "private features (k-RR)";

/// The KRR release of every user (see the module documentation): the n×d matrix with each
/// private entry replaced by its k-RR'd bin's value and public entries unchanged, and the
/// noisy labels. The fit and the audit (`audit::semi_feature`) both call it.
///
/// Ledger: user i (row i) is charged, by [`Grr::release_charged`], [`Grr::spent_epsilon`]
/// for each of its d_i private entries (part [`FEATURES_PART`]: two neighbours may differ
/// in every private entry, each a report of the same law over the k bins it draws from)
/// and its label as [`noisy_labels_of`] charges it.
///
/// # Panics
/// If the mask is not n×d for `x`, `y.len() != x.n`, k < 2, or ε is not finite and > 0.
pub fn krr_release<R: Rng + ?Sized>(
    (x, y, mask): (&Matrix, &[f64], &PrivacyMask),
    bounds: LabelBounds,
    (k, epsilon): (usize, f64),
    value: KrrValue,
    rng: &mut R,
) -> (Matrix, Vec<f64>) {
    assert_eq!(
        (mask.n(), mask.d()),
        (x.n, x.d),
        "one mask entry per feature"
    );
    assert_eq!(y.len(), x.n, "one label per user");
    assert!(k >= 2, "KRR needs k >= 2");
    let grid = Grid { m: k, d: 1 };
    let mut out = x.data.to_vec();
    let mut labels = Vec::with_capacity(x.n);
    // One mechanism per possible d_i, built on first use.
    let mut grr: Vec<Option<Grr>> = vec![None; x.d + 1];
    for i in 0..x.n {
        let row = mask.row(i);
        let d_i = row.iter().filter(|&&p| p).count();
        let (eps_label, eps_feature) = krr_budgets(epsilon, d_i);
        if d_i > 0 {
            let g = *grr[d_i].get_or_insert_with(|| Grr::new(eps_feature, k));
            for (j, _) in row.iter().enumerate().filter(|(_, &p)| p) {
                let cell = &mut out[i * x.d + j];
                let r = g.release_charged(grid.bin(*cell), rng, FEATURES_PART, Subjects::One(i));
                *cell = value.of(r, k);
            }
        }
        // The label of user i (charged there, from the scale it draws with).
        labels.extend(noisy_labels_of(
            i,
            &y[i..=i],
            bounds,
            bounds.range() / eps_label,
            rng,
        ));
    }
    (Matrix::new(x.n, x.d, out), labels)
}

/// The `krr_value` parameter of grid point `p` (the value the curator gives a released
/// bin).
pub fn krr_value(p: &Params) -> KrrValue {
    match p.str(KRR_VALUE.name) {
        "index" => KrrValue::Index,
        _ => KrrValue::Centre,
    }
}

/// A fitted KRR: the private users' data and mask, and the test features.
struct PreparedKrr {
    x: Matrix,
    y: Vec<f64>,
    mask: PrivacyMask,
    bounds: LabelBounds,
    test: Matrix,
    cache: TreeCache,
}

impl Prepared for PreparedKrr {
    fn predict(
        &self,
        m: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError> {
        let epsilon = Budget::new(required_epsilon("KRR", epsilon)?)?.epsilon();
        let k = m.usize(K.name);
        let value = krr_value(m);
        let tag = format!("k={k};value={value:?}");
        self.cache.predict(
            (&tag, epsilon),
            rng,
            |rng| {
                let (x, y) = krr_release(
                    (&self.x, &self.y, &self.mask),
                    self.bounds,
                    (k, epsilon),
                    value,
                    rng,
                );
                Ok(Release {
                    x: Arc::new(x),
                    y,
                    missing: Missing::Refuse,
                })
            },
            &self.test,
            (m.usize(MAX_DEPTH.name), m.usize(MIN_SAMPLES_LEAF.name)),
        )
    }
}

impl Method for Krr {
    builtin! {
        "KRR", [Regression], SemiFeature, &PARAMS,
        "k-ary randomized response on each binned private feature at eps/(2 d_i), label Laplace(2R/eps), sklearn CART on the released data, clean test features; HistOfTree card §8"
    }
    fn audit_key(&self, params: &Params) -> String {
        // The cases read k; the mask and tree parameters do not change the user's loss.
        format!("k={}", params.usize(K.name))
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
        let users = data.private.escape(Escape::UserRelease);
        Ok(Some(Box::new(PreparedKrr {
            mask: mask_of(data, p)?,
            x: users.x.clone(),
            y: users.y.clone(),
            bounds: data.bounds,
            test: data.test.x.clone(),
            cache: TreeCache::default(),
        })))
    }
}

/// The ledger of real KRR fits.
#[cfg(test)]
mod ledger_tests {
    use crate::methods::mask_params::test_support::{charged_exactly, point, rep_data};
    use crate::methods::{find, ParamValue};

    /// Aligned mask (d_p = 2): every user pays ε/2 for its two k-RR'd features (ε/4 per
    /// report, one charge each) and ε/2 for its label, ε. Personalized: the worst user
    /// (four private features here, ε/8 each) ε too. Personalized: the worst user ε, a user with no private feature
    /// ε/2 (feature 1 is always private under this mask, so nobody here).
    #[test]
    fn a_krr_fit_charges_every_user_epsilon() {
        let data = rep_data(200, 30, 4);
        let m = find("KRR").unwrap();
        for (mask, features) in [
            ("aligned", "2 x 0.375000"),
            ("personalized", "4 x 0.187500"),
        ] {
            let p = point(
                m.params(),
                &[
                    ("mask", ParamValue::Str(mask.into())),
                    ("d_p", ParamValue::Int(2)),
                    ("k", ParamValue::Int(4)),
                    ("max_depth", ParamValue::Int(3)),
                ],
            );
            let r = charged_exactly(m.as_ref(), &data, &p, 1.5, mask);
            assert_eq!(
                r.path_text(),
                format!("private features (k-RR): {features} + label (Laplace): 1 x 0.750000"),
                "{mask}"
            );
        }
    }
}
