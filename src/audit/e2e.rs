//! The end-to-end audit (docs/audit.md, "The end-to-end audit"): each private method of a
//! spec run as a black box, by the very code path the runner runs, on two neighbouring
//! data sets that differ in one user (local and semi-feature models) or one row (central
//! DP), many times, and a lower bound on its privacy loss certified from the trained
//! models' predictions.
//!
//! Where the part audit ([`super::spec`]) builds each release's neighbouring inputs itself
//! and trusts the method's partition, candidate sets and budget functions, this audit
//! trusts nothing the code declares: the neighbouring data sets go through loading (with
//! `scaling: whole`, the scaler over every row), the split, `scaling: public`, the label
//! bounds, the privacy masks, [`crate::methods::Method::prepare`] (the partition) and
//! [`crate::methods::Prepared::predict`] (every release, the estimator, the prediction),
//! exactly as a run does. The held-out claim is the column's ε, the total each user is
//! promised — not a part's share.
//!
//! **Neighbours.** One user of a small subsample of the spec's own data (about
//! [`E2eOptions::users`] private users) is replaced by a *canary*, a record chosen
//! adversarially from a family ([`Canary`]): labels at and beyond the bounds, points at
//! the corners of the data's box and far beyond it, a copy of the public point farthest
//! from the centre. Replace-one neighbours under every model: a local user's whole
//! record; a semi-feature user's label and private coordinates (its public coordinates,
//! per its privacy mask, stay); a central-DP row. The canaries fall into three parts:
//! `end-to-end, within range` (every coordinate inside the box of the other rows, labels
//! inside their range or the declared bounds), which a faithful method passes whatever
//! its preprocessing; `end-to-end, labels beyond range` (regression: a label a thousand
//! ranges outside against the end of the range it clips to), which tests that labels are
//! clipped to the declared bounds before release; and `end-to-end, points beyond range` (a
//! point a thousand widths outside the box against the corner it maps to), which tests
//! that points are mapped into the declared domain — and which a preprocessing that reads
//! private rows (a scaler over every row, root ranges from all rows) fails by design;
//! a spec lists such failures as known violations.
//!
//! **Statistic and bound.** A fit's output is its predictions at probe points: both
//! canaries' points and a few test rows, the same raw points in both neighbouring data
//! sets (test rows of the file, so each pipeline scales them as it scales its test part). On a pilot sample of fits of each canary pair the
//! audit chooses the pair, the probe and the half-line event {z ≤ t} or {z > t} with the
//! largest Clopper–Pearson bound ([`super::choose_event`]); fresh fits of that pair then
//! certify ln(P_a\[E\]/P_b\[E\]) at confidence 1 − α/m, m the number of end-to-end parts
//! audited (Bonferroni), exactly as [`super::audit_scalar`] does for one release.
//! Every fit draws its partition and release streams fresh from the spec seed and the
//! fit's place in the audit, so the rows do not depend on the number of threads.

use super::spec::AuditRow;
use super::{choose_event, AuditConfig, AuditOutcome, Verdict};
use crate::data::{Dataset, Escape, Task};
use crate::methods::{mask_params, MethodError, Params, PrivacyModel, RepData};
use crate::run::seeds::{epsilon_text, stream};
use crate::run::{
    central_validation_score, finish_repetition, repetition_data, scale_whole, split_indices,
    tuning_data, user_split_data, validation_score, RunError,
};
use crate::spec::raw::{LabelBoundsFrom, Scaling, Selection, ValidationReleases};
use crate::spec::{DatasetPlan, Experiment, MethodPlan};
use crate::stats::epsilon_delta_lower_bound;
use rand::seq::SliceRandom;
use rayon::prelude::*;
use std::path::Path;

/// The repetition whose split and streams the end-to-end audit's data sets use.
pub const E2E_REPETITION: usize = 1;

/// The part name of the canaries inside the data's range.
pub const WITHIN: &str = "end-to-end, within range";
/// The part name of the canaries whose labels lie beyond the label range (regression).
pub const LABELS_BEYOND: &str = "end-to-end, labels beyond range";
/// The part name of the canaries whose points lie beyond the data's box.
pub const POINTS_BEYOND: &str = "end-to-end, points beyond range";
/// The part name of the add/remove neighbours of a central-DP method: a data set with the
/// audited row against the same data set without it.
pub const ADD_REMOVE: &str = "end-to-end, add or remove one row";
/// The four parts of each audited grid point, in the order audit.csv lists them.
pub const PARTS: [&str; 4] = [WITHIN, LABELS_BEYOND, POINTS_BEYOND, ADD_REMOVE];
/// The part of a method under a spec whose selection is `private_validation`: the whole
/// protocol — the training users' fits at every audited grid point, the validation users'
/// noisy losses, the choice, the chosen fit's predictions — on the within-range canaries,
/// held against the user's ε with tuning.
pub const SELECTED: &str = "end-to-end, private validation";
/// The part of a method under a spec that selects by `user_split` (docs/tuning.md): the
/// whole protocol — the users' split over the audited grid points and the validation
/// group, each candidate's fit on its group, each validation user's one noisy loss, the
/// choice, the chosen fit's predictions — held against the column's ε.
pub const USER_SPLIT_SELECTED: &str = "end-to-end, user split";
/// The part of a central-DP method under a spec that selects by `random_stopping`: a
/// random number of candidate runs over the audited grid points, each fitted and scored
/// at ε₀ = ε/(2 + η), the best one's predictions, held against the column's ε.
pub const STOPPING_SELECTED: &str = "end-to-end, random stopping";

/// How the end-to-end audit samples its data and its fits.
#[derive(Debug, Clone, PartialEq)]
pub struct E2eOptions {
    /// Only the method with this label (None: every private method of the spec).
    pub method: Option<String>,
    /// The budgets audited (None: the spec's ε closest to 1, where a doubled loss is
    /// still certifiable with a few thousand fits).
    pub epsilons: Option<Vec<f64>>,
    /// The private users of the audit's data set (the canary among them): the others are
    /// the private users the split gives first. Fewer users make the audit stronger, since
    /// every other user's release is independent noise on the statistic.
    pub users: usize,
    /// How many public rows the audit's data set keeps at least (where the split gives
    /// the public part a share, its subsample grows to give that many).
    pub public: usize,
    /// Test rows kept as probes (both canaries' points are probes too, in two more test
    /// rows).
    pub probes: usize,
    /// Fits per neighbour and canary pair on which the event is chosen.
    pub pilot: usize,
    /// Fresh fits per neighbour that certify the chosen event.
    pub fits: usize,
    /// Grid points audited per method: this many distinct audit keys, spread evenly over
    /// the grid from its first to its last.
    pub points: usize,
    /// The family-wise α of all the end-to-end parts of one audit.
    pub alpha: f64,
}

impl Default for E2eOptions {
    fn default() -> Self {
        E2eOptions {
            method: None,
            epsilons: None,
            users: 200,
            public: 200,
            probes: 8,
            pilot: 150,
            fits: 1500,
            points: 2,
            alpha: 0.05,
        }
    }
}

/// What the end-to-end audit may fail on.
#[derive(Debug, thiserror::Error)]
pub enum E2eError {
    /// Loading or splitting a data set.
    #[error(transparent)]
    Run(#[from] RunError),
    /// A method refused a fit.
    #[error("end-to-end audit of {method} on {dataset} at {params}, epsilon {epsilon}: {source}")]
    Method {
        /// The method's label.
        method: String,
        /// The data set.
        dataset: String,
        /// The grid point's key.
        params: String,
        /// The budget.
        epsilon: f64,
        /// What the method said.
        source: MethodError,
    },
    /// Options that cannot run an audit.
    #[error("end-to-end audit: {0}")]
    Options(String),
}

impl E2eError {
    /// [`E2eError::Method`] for `plan` on `dplan` at the grid point(s) `params`.
    fn method(
        plan: &MethodPlan,
        dplan: &DatasetPlan,
        params: &str,
        epsilon: f64,
        source: MethodError,
    ) -> E2eError {
        E2eError::Method {
            method: plan.label.clone(),
            dataset: dplan.name.clone(),
            params: params.to_string(),
            epsilon,
            source,
        }
    }
}

/// One record a canary puts in place of the audited user: its features (1×d, in the
/// units the record enters the pipeline in: a file's own units before any scaling) and
/// its label.
#[derive(Debug, Clone, PartialEq)]
pub struct Canary {
    /// The features (length d).
    pub x: Vec<f64>,
    /// The label.
    pub y: f64,
}

/// Two neighbouring records for the audited user, and which part they belong to.
#[derive(Debug, Clone, PartialEq)]
pub struct CanaryPair {
    /// The pair in words (audit.csv's `neighbours`).
    pub words: String,
    /// One of [`PARTS`].
    pub part: &'static str,
    /// Neighbour a's record.
    pub a: Canary,
    /// Neighbour b's record (with `b_removed`, only the point of b's probe).
    pub b: Canary,
    /// Neighbour b is the data set without the audited user (add/remove neighbours of a
    /// central-DP method, part [`ADD_REMOVE`]).
    pub b_removed: bool,
}

/// The ranges the canaries are built from, read off the audit's data set without the
/// audited user: per feature the smallest and largest value, the label range (over the
/// rows `label_rows` when given — the private rows under `label_bounds: private_train`,
/// so that a canary inside the range leaves those bounds where they are — and widened to
/// the spec's fixed bounds), the classes of a classification task, and the public point
/// farthest from the centre of the box.
#[derive(Debug, Clone)]
struct Ranges {
    lo: Vec<f64>,
    hi: Vec<f64>,
    y_lo: f64,
    y_hi: f64,
    task: Task,
    boundary: Vec<f64>,
}

impl Ranges {
    fn of(
        rows: &Dataset,
        skip: usize,
        public: &[usize],
        label_rows: Option<&[usize]>,
        fixed: Option<(f64, f64)>,
    ) -> Ranges {
        let d = rows.d();
        let (mut lo, mut hi) = (vec![f64::INFINITY; d], vec![f64::NEG_INFINITY; d]);
        let (mut y_lo, mut y_hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for i in (0..rows.n()).filter(|&i| i != skip) {
            for (j, &v) in rows.x.row(i).iter().enumerate() {
                if v.is_finite() {
                    lo[j] = lo[j].min(v);
                    hi[j] = hi[j].max(v);
                }
            }
            if label_rows.is_none_or(|l| l.contains(&i)) {
                y_lo = y_lo.min(rows.y[i]);
                y_hi = y_hi.max(rows.y[i]);
            }
        }
        if let Some((a, b)) = fixed {
            y_lo = y_lo.min(a);
            y_hi = y_hi.max(b);
        }
        for j in 0..d {
            if !lo[j].is_finite() {
                (lo[j], hi[j]) = (0.0, 1.0);
            }
        }
        let spread = |i: usize| -> f64 {
            rows.x
                .row(i)
                .iter()
                .enumerate()
                .map(|(j, &v)| {
                    let w = (hi[j] - lo[j]).max(f64::MIN_POSITIVE);
                    ((v - (lo[j] + hi[j]) / 2.0) / w).abs()
                })
                .sum()
        };
        let far = public
            .iter()
            .copied()
            .filter(|&i| i != skip)
            .max_by(|&a, &b| spread(a).total_cmp(&spread(b)));
        let boundary = far.map_or_else(|| hi.clone(), |i| rows.x.row(i).to_vec());
        Ranges {
            lo,
            hi,
            y_lo,
            y_hi,
            task: rows.task,
            boundary,
        }
    }

    /// The canary pairs for a user whose record is (`x`, `y`), changing only the
    /// coordinates `free` marks (a semi-feature user's private coordinates; every one for
    /// local and central models) and the label; with `central`, also the add/remove pairs
    /// (the record at a corner of the box, or the user's own, against no record).
    fn pairs(&self, x: &[f64], y: f64, free: &[bool], central: bool) -> Vec<CanaryPair> {
        let with = |values: &dyn Fn(usize) -> f64, y: f64| Canary {
            x: x.iter()
                .enumerate()
                .map(|(j, &v)| if free[j] { values(j) } else { v })
                .collect(),
            y,
        };
        let width = |j: usize| (self.hi[j] - self.lo[j]).max(1.0);
        let y_range = (self.y_hi - self.y_lo).max(1.0);
        let regression = self.task == Task::Regression;
        let any_free = free.iter().any(|&f| f);
        let mut out = vec![CanaryPair {
            words: "the user's point, its label at the lower vs the upper end of the label range"
                .into(),
            part: WITHIN,
            a: with(&|j| x[j], self.y_lo),
            b: with(&|j| x[j], self.y_hi),
            b_removed: false,
        }];
        if any_free {
            out.push(CanaryPair {
                words: "the lower vs the upper corner of the data's box, labels at the ends of their range".into(),
                part: WITHIN,
                a: with(&|j| self.lo[j], self.y_lo),
                b: with(&|j| self.hi[j], self.y_hi),
                b_removed: false,
            });
            out.push(CanaryPair {
                words: "the user's record vs a copy of the public point farthest from the box's centre, label at the upper end".into(),
                part: WITHIN,
                a: with(&|j| x[j], y.clamp(self.y_lo, self.y_hi)),
                b: with(&|j| self.boundary[j], self.y_hi),
                b_removed: false,
            });
        }
        // Beyond the range, each canary against the record it clips to: a faithful
        // pipeline maps the two to the same release input, so their laws are equal.
        if regression {
            out.push(CanaryPair {
                words: "the user's point, its label 1000 ranges above the label range vs at its upper end".into(),
                part: LABELS_BEYOND,
                a: with(&|j| x[j], self.y_hi + 1000.0 * y_range),
                b: with(&|j| x[j], self.y_hi),
                b_removed: false,
            });
            out.push(CanaryPair {
                words: "the user's point, its label 1000 ranges below the label range vs at its lower end".into(),
                part: LABELS_BEYOND,
                a: with(&|j| x[j], self.y_lo - 1000.0 * y_range),
                b: with(&|j| x[j], self.y_lo),
                b_removed: false,
            });
        }
        if any_free {
            out.push(CanaryPair {
                words: "a point 1000 widths above the data's box in every free coordinate vs the box's upper corner, label at the upper end".into(),
                part: POINTS_BEYOND,
                a: with(&|j| self.hi[j] + 1000.0 * width(j), self.y_hi),
                b: with(&|j| self.hi[j], self.y_hi),
                b_removed: false,
            });
            out.push(CanaryPair {
                words: "a point 1000 widths below the data's box in every free coordinate vs the box's lower corner, label at the lower end".into(),
                part: POINTS_BEYOND,
                a: with(&|j| self.lo[j] - 1000.0 * width(j), self.y_lo),
                b: with(&|j| self.lo[j], self.y_lo),
                b_removed: false,
            });
        }
        if central {
            let alone = |words: &str, record: Canary| CanaryPair {
                words: words.into(),
                part: ADD_REMOVE,
                a: record.clone(),
                b: record,
                b_removed: true,
            };
            out.push(alone(
                "the user's point, its label at the upper end of the label range, vs the data set without the row",
                with(&|j| x[j], self.y_hi),
            ));
            out.push(alone(
                "a row at the box's upper corner, label at the upper end, vs the data set without it",
                with(&|j| self.hi[j], self.y_hi),
            ));
            out.push(alone(
                "a row at the box's lower corner, label at the lower end, vs the data set without it",
                with(&|j| self.lo[j], self.y_lo),
            ));
        }
        out
    }
}

/// One method's data set for the audit: the rows a canary enters (a file subsample
/// before any scaling, or a synthetic repetition's parts), where the audited user is, and
/// how to build the pipeline's [`RepData`] with a canary in the user's place.
struct Base<'a> {
    exp: &'a Experiment,
    plan: &'a DatasetPlan,
    kind: BaseKind,
    probes: usize,
    users: usize,
}

enum BaseKind {
    /// A file data set's subsample (file units); the user is row `user`, which the split
    /// puts first among the private rows, and the two probe rows that hold the canaries'
    /// points are the rows it puts first among the test rows.
    File {
        rows: Dataset,
        user: usize,
        probes: [usize; 2],
    },
    /// A synthetic repetition's parts, subsampled; the user is private row 0 and the
    /// probe rows are test rows 0 and 1.
    Synthetic {
        public: Dataset,
        private: Dataset,
        test: Dataset,
    },
}

impl<'a> Base<'a> {
    fn new(
        exp: &'a Experiment,
        plan: &'a DatasetPlan,
        loaded: Option<&Dataset>,
        opts: &E2eOptions,
    ) -> Result<Base<'a>, E2eError> {
        let seed = exp.spec.seed;
        let kind = match loaded {
            Some(all) => {
                let ratios = exp.split.expect("validated: file data sets have a split");
                let n_split = plan.split_rows(all);
                let mut want =
                    ((opts.users as f64 + 2.0) / ratios.private.max(1e-9)).ceil() as usize;
                if ratios.public > 0.0 {
                    want = want.max((opts.public as f64 / ratios.public).ceil() as usize);
                }
                // Enough rows that the test part keeps its probes and the canaries' two.
                if ratios.test > 0.0 {
                    want = want.max(((opts.probes + 2) as f64 / ratios.test).ceil() as usize);
                }
                let mut rng = stream(seed, &["e2e", "subsample", &plan.name]);
                let mut idx: Vec<usize> = (0..n_split).collect();
                idx.shuffle(&mut rng);
                idx.truncate(want.min(n_split));
                idx.sort_unstable();
                let mut fixed: Vec<usize> = (n_split..all.n()).collect();
                fixed.shuffle(&mut rng);
                fixed.truncate(opts.public);
                fixed.sort_unstable();
                let kept_fixed = fixed.len();
                idx.extend(fixed);
                let mut rows = all.select(&idx);
                rows.fixed_public = kept_fixed;
                let s = split_indices(exp, plan, &rows, E2E_REPETITION)?;
                if s.test.len() < 2 {
                    return Err(E2eError::Options(format!(
                        "{}: the split leaves fewer than 2 test rows for the canaries' probes",
                        plan.name
                    )));
                }
                BaseKind::File {
                    user: s.private[0],
                    probes: [s.test[0], s.test[1]],
                    rows,
                }
            }
            None => {
                let rd = repetition_data(exp, plan, None, E2E_REPETITION)?;
                let first =
                    |d: &Dataset, n: usize| d.select(&(0..n.min(d.n())).collect::<Vec<_>>());
                BaseKind::Synthetic {
                    public: first(&rd.public, opts.public),
                    private: first(rd.private.escape(Escape::AuditNeighbours), opts.users),
                    test: first(&rd.test, opts.probes + 2),
                }
            }
        };
        Ok(Base {
            exp,
            plan,
            kind,
            probes: opts.probes,
            users: opts.users,
        })
    }

    /// The audited user's own record and the ranges its canaries are built from (see
    /// [`Ranges::of`]; the label range over the private rows under `label_bounds:
    /// private_train`).
    fn user(&self, fixed: Option<(f64, f64)>) -> (Vec<f64>, f64, Ranges) {
        let private_labels = self.exp.label_bounds == LabelBoundsFrom::PrivateTrain;
        match &self.kind {
            BaseKind::File { rows, user, .. } => {
                let s = split_indices(self.exp, self.plan, rows, E2E_REPETITION)
                    .expect("split once already");
                let labels = private_labels.then_some(s.private.as_slice());
                let ranges = Ranges::of(rows, *user, &s.public, labels, fixed);
                (rows.x.row(*user).to_vec(), rows.y[*user], ranges)
            }
            BaseKind::Synthetic { private, .. } => {
                let ranges = Ranges::of(private, 0, &[], None, fixed);
                (private.x.row(0).to_vec(), private.y[0], ranges)
            }
        }
    }

    /// The pipeline's data with `canary` in the audited user's place and the two points
    /// `probes` (both neighbours' canary points, the same in both data sets) in the two
    /// probe rows of the test part: loading's `scaling: whole`, the split, `scaling:
    /// public`, the label bounds and the masks as a run makes them; the test part cut to
    /// the two probe rows (first) and `probes` more test rows. With `removed`, the audited
    /// user (private row 0) is then left out: the add/remove neighbour.
    fn data(
        &self,
        canary: &Canary,
        probes: [&[f64]; 2],
        removed: bool,
    ) -> Result<RepData, RunError> {
        let exp = self.exp;
        let mut rd = match &self.kind {
            BaseKind::File {
                rows,
                user,
                probes: rows_of_probes,
            } => {
                let mut rows = rows.clone();
                let d = rows.d();
                rows.x.data[user * d..(user + 1) * d].copy_from_slice(&canary.x);
                rows.y[*user] = canary.y;
                for (&r, p) in rows_of_probes.iter().zip(probes) {
                    rows.x.data[r * d..(r + 1) * d].copy_from_slice(p);
                }
                if exp.scaling == Scaling::Whole {
                    scale_whole(self.plan, &mut rows);
                }
                repetition_data(exp, self.plan, Some(&rows), E2E_REPETITION)?
            }
            BaseKind::Synthetic {
                public,
                private,
                test,
            } => {
                let mut private = private.clone();
                let d = private.d();
                private.x.data[..d].copy_from_slice(&canary.x);
                private.y[0] = canary.y;
                let mut test = test.clone();
                for (r, p) in probes.into_iter().enumerate() {
                    test.x.data[r * d..(r + 1) * d].copy_from_slice(p);
                }
                finish_repetition(
                    exp,
                    self.plan,
                    public.clone(),
                    private,
                    test,
                    Scaling::None,
                    E2E_REPETITION,
                )
            }
        };
        let keep: Vec<usize> = (0..(self.probes + 2).min(rd.test.n())).collect();
        rd.test = rd.test.select(&keep);
        // The audited user and the next users - 1 private users (the canary is private row
        // 0): the split may give the private part more, to give the public part its rows.
        let first = usize::from(removed);
        if rd.private.n() > self.users || removed {
            let users: Vec<usize> = (first..self.users.min(rd.private.n())).collect();
            rd.masks = rd.masks_of(&users);
            rd.private = rd.private.select(&users);
        }
        Ok(rd)
    }
}

/// The grid points of `plan` the audit fits: up to `points` distinct audit keys (with
/// `by_key`; else distinct grid points), spread evenly over the grid in order, each at the
/// first (structural, mechanism) point that has it.
fn grid_points(plan: &MethodPlan, points: usize, by_key: bool) -> Vec<(Params, Params, String)> {
    let structural = if plan.structural.is_empty() {
        vec![Params::default()]
    } else {
        plan.structural.clone()
    };
    let mechanism = if plan.mechanism.is_empty() {
        vec![Params::default()]
    } else {
        plan.mechanism.clone()
    };
    let mut keys: Vec<String> = Vec::new();
    let mut all = Vec::new();
    for s in &structural {
        for q in &mechanism {
            let key = if by_key {
                plan.method.audit_key(&s.join(q))
            } else {
                s.join(q).key()
            };
            if !keys.contains(&key) {
                keys.push(key);
                all.push((s.clone(), q.clone(), s.join(q).key()));
            }
        }
    }
    let n = all.len();
    let k = points.clamp(1, n.max(1));
    let mut picked: Vec<usize> = (0..k)
        .map(|i| if k == 1 { 0 } else { i * (n - 1) / (k - 1) })
        .collect();
    picked.dedup();
    picked.into_iter().map(|i| all[i].clone()).collect()
}

/// The spec's budget closest to 1 (ties: the smaller).
fn default_epsilon(exp: &Experiment) -> f64 {
    exp.epsilons
        .iter()
        .copied()
        .min_by(|a, b| (a.ln().abs()).total_cmp(&b.ln().abs()).then(a.total_cmp(b)))
        .unwrap_or(1.0)
}

/// The free coordinates of the audited user under `plan`'s privacy model at grid point
/// `point`: every coordinate for local and central models; for a semi-feature method its
/// private coordinates by the privacy mask (none for a method without one, such as
/// LabelDT, whose features are released in the clear).
fn free_coordinates(
    plan: &MethodPlan,
    point: &Params,
    data: &RepData,
) -> Result<Vec<bool>, MethodError> {
    let d = data.private.d();
    if plan.method.privacy_model() != PrivacyModel::SemiFeature {
        return Ok(vec![true; d]);
    }
    if !mask_params::declares_mask(plan.method.params()) {
        return Ok(vec![false; d]);
    }
    let mask = mask_params::mask_of(data, point)?;
    Ok(mask.row(0).to_vec())
}

/// `n` fits of `plan` at (`structural`, `mechanism`, ε) on `data`, in parallel: fit j
/// prepares (the partition) and predicts (every release, the estimator) with its own two
/// streams, keyed by the spec `seed`, `parts`, j and `partition` or `release`; row j is its
/// predictions at the probes. None when the method skips the data (`prepare` returned None).
#[allow(clippy::too_many_arguments)]
fn fits(
    plan: &MethodPlan,
    structural: &Params,
    mechanism: &Params,
    epsilon: f64,
    data: &RepData,
    seed: u64,
    parts: &[&str],
    n: usize,
) -> Result<Option<Vec<Vec<f64>>>, MethodError> {
    (0..n)
        .into_par_iter()
        .map(|j| {
            let j = j.to_string();
            let with = |role: &str| {
                let mut p = parts.to_vec();
                p.extend([j.as_str(), role]);
                stream(seed, &p)
            };
            let (mut ps, mut rs) = (with("partition"), with("release"));
            let Some(prepared) = plan.method.prepare(data, structural, &mut ps)? else {
                return Ok(None);
            };
            prepared
                .predict(mechanism, Some(epsilon), &mut rs)
                .map(Some)
        })
        .collect()
}

/// The [`SELECTED`] part of `plan` (a spec under `private_validation`): at each budget of
/// `epsilons`, the within-range canary pairs, each fit the runner's private-validation
/// protocol over the audited grid points ([`grid_points`], k of them): the repetition's
/// validation split ([`tuning_data`]), a fit of every point on the training users (at ε,
/// or ε/k under `validation_releases: shared`), each validation user's noisy loss
/// ([`validation_score`], ε/k per point), the point of least score, its predictions at the
/// probes. The claim is what a user pays once the selection is counted: k·ε under fresh
/// releases, ε under shared ones (LPDT paper App. D.2). Empty with fewer than two points.
#[allow(clippy::too_many_arguments)]
fn selected_part(
    protocol: Selection,
    exp: &Experiment,
    plan: &MethodPlan,
    dplan: &DatasetPlan,
    base: &Base<'_>,
    original: &RepData,
    ranges: &Ranges,
    (ux, uy): (&[f64], f64),
    epsilons: &[f64],
    cfg: &AuditConfig,
    opts: &E2eOptions,
) -> Result<Vec<Chosen>, E2eError> {
    let points = grid_points(plan, opts.points, false);
    if points.len() < 2 {
        return Ok(Vec::new());
    }
    let k = points.len();
    let key = points
        .iter()
        .map(|(_, _, key)| key.as_str())
        .collect::<Vec<_>>()
        .join(" | ");
    let err = |epsilon: f64, source| E2eError::method(plan, dplan, &key, epsilon, source);
    let first = points[0].0.join(&points[0].1);
    let free = free_coordinates(plan, &first, original).map_err(|e| err(f64::NAN, e))?;
    let central = plan.method.privacy_model() == PrivacyModel::Central;
    let pairs = ranges.pairs(ux, uy, &free, central);
    let within: Vec<usize> = (0..pairs.len())
        .filter(|&pi| pairs[pi].part == WITHIN)
        .collect();
    let shared = exp.spec.tuning.validation_releases == ValidationReleases::Shared;
    let part = match protocol {
        Selection::UserSplit => USER_SPLIT_SELECTED,
        Selection::RandomStopping => STOPPING_SELECTED,
        _ => SELECTED,
    };
    let mut out = Vec::new();
    for &epsilon in epsilons {
        let eps_text = epsilon_text(epsilon);
        let pair_fits = |pi: usize, stage: &str, n: usize| -> Result<PairFits, E2eError> {
            let pi_text = pi.to_string();
            pair_sides(base, &pairs[pi], |side, data| {
                let tuning = tuning_data(exp, dplan, &data, E2E_REPETITION);
                let parts = [
                    "e2e",
                    part,
                    plan.label.as_str(),
                    eps_text.as_str(),
                    pi_text.as_str(),
                    side,
                    stage,
                ];
                let seed = exp.spec.seed;
                match protocol {
                    Selection::UserSplit => {
                        let (order, n_v) = tuning.users.expect("the spec selects by user_split");
                        user_split_fits(
                            plan,
                            &points,
                            epsilon,
                            &data,
                            (&order, n_v),
                            seed,
                            &parts,
                            n,
                        )
                    }
                    Selection::RandomStopping => {
                        let (pv, n_v) = tuning
                            .validation
                            .expect("the spec selects by random stopping");
                        let law = exp
                            .spec
                            .tuning
                            .stopping
                            .law()
                            .map_err(|e| MethodError::Other(e.to_string()));
                        law.and_then(|law| {
                            stopping_fits(plan, &points, epsilon, law, (&pv, n_v), seed, &parts, n)
                        })
                    }
                    _ => {
                        let (pv, n_v) = tuning
                            .validation
                            .expect("the spec selects by private validation");
                        selected_fits(plan, &points, epsilon, shared, (&pv, n_v), seed, &parts, n)
                    }
                }
                .map_err(|e| err(epsilon, e))
            })
        };
        let Some(found) = audit_part(cfg, opts, &within, &pair_fits)? else {
            continue;
        };
        out.push(Chosen {
            method: plan.label.clone(),
            params: key.clone(),
            epsilon,
            claimed: if shared || protocol != Selection::PrivateValidation {
                epsilon
            } else {
                k as f64 * epsilon
            },
            part,
            words: format!(
                "{}; the chosen fit among {k} grid points, validation share {}",
                found.words(&dplan.name, &pairs, original.private.n()),
                exp.spec.tuning.validation_share
            ),
            found,
        });
    }
    Ok(out)
}

/// One candidate of an audited selection: the data it is fitted on (its test part: first
/// `n_val` validation rows, then the probes), its grid point and the ε of its fit, and how
/// its validation rows are scored.
struct Candidate<'a> {
    data: &'a RepData,
    n_val: usize,
    point: &'a (Params, Params, String),
    fit_epsilon: f64,
    score: Score,
}

/// How a candidate's validation rows are scored: each user's noisy loss (local models;
/// [`validation_score`] at ε over `k` grid points) or the curator's noisy sum at ε₀
/// ([`central_validation_score`]).
#[derive(Clone, Copy)]
enum Score {
    Local { epsilon: f64, k: f64 },
    Central { epsilon0: f64 },
}

/// `n` runs of a selection, in parallel: run j asks `candidates` for its candidates (with
/// a stream of its own, for a selection that draws them), fits and scores each from
/// streams keyed by `parts`, j and the candidate's place, and keeps the best one's
/// predictions at the probes (row j). None when the method skips the data.
fn chosen_fits<'a>(
    plan: &MethodPlan,
    seed: u64,
    parts: &[&str],
    n: usize,
    candidates: impl Fn(&mut rand_pcg::Pcg64) -> Vec<Candidate<'a>> + Sync,
) -> Result<Option<Vec<Vec<f64>>>, MethodError> {
    (0..n)
        .into_par_iter()
        .map(|j| {
            let j = j.to_string();
            let mut draws = stream(seed, &[parts, &[j.as_str(), "draws"]].concat());
            let mut best: Option<(f64, Vec<f64>)> = None;
            for (i, c) in candidates(&mut draws).into_iter().enumerate() {
                let i = i.to_string();
                let with = |role: &str| {
                    let mut p = parts.to_vec();
                    p.extend([j.as_str(), i.as_str(), role]);
                    stream(seed, &p)
                };
                let (mut ps, mut rs, mut ss) = (with("partition"), with("release"), with("score"));
                let (structural, mechanism, _) = c.point;
                let Some(prepared) = plan.method.prepare(c.data, structural, &mut ps)? else {
                    return Ok(None);
                };
                let pred = prepared.predict(mechanism, Some(c.fit_epsilon), &mut rs)?;
                let (p_val, p_probes) = pred.split_at(c.n_val);
                let (d, y_val) = (c.data, &c.data.test.y[..c.n_val]);
                let score = match c.score {
                    Score::Local { epsilon, k } => validation_score(
                        d.test.task,
                        d.bounds,
                        y_val,
                        p_val,
                        Some(epsilon),
                        k,
                        &mut ss,
                    ),
                    Score::Central { epsilon0 } => central_validation_score(
                        d.test.task,
                        d.bounds,
                        y_val,
                        p_val,
                        epsilon0,
                        &mut ss,
                    ),
                };
                if best.as_ref().is_none_or(|b| score < b.0) {
                    best = Some((score, p_probes.to_vec()));
                }
            }
            Ok(best.map(|b| b.1))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(|rows| rows.into_iter().collect())
}

/// `n` runs of the private-validation protocol over `points` on the validation split
/// `pv` (training users as its private part, its test part the `n_v` validation users
/// then the probes): every point fitted on the training users (at ε, or ε/k under shared
/// releases) and scored by the validation users' noisy losses at ε/k.
#[allow(clippy::too_many_arguments)]
fn selected_fits(
    plan: &MethodPlan,
    points: &[(Params, Params, String)],
    epsilon: f64,
    shared: bool,
    (pv, n_v): (&RepData, usize),
    seed: u64,
    parts: &[&str],
    n: usize,
) -> Result<Option<Vec<Vec<f64>>>, MethodError> {
    let k = points.len() as f64;
    let fit_epsilon = if shared { epsilon / k } else { epsilon };
    let score = Score::Local { epsilon, k };
    chosen_fits(plan, seed, parts, n, |_| {
        points
            .iter()
            .map(|point| Candidate {
                data: pv,
                n_val: n_v,
                point,
                fit_epsilon,
                score,
            })
            .collect()
    })
}

/// `n` runs of the `user_split` protocol over `points` (the candidates, one group each) on
/// `data` (its test part: the probes): the users in `order`, the first `n_v` the
/// validation group ([`user_split_data`]); each candidate fitted on its group at ε, each
/// of its validation users releasing one noisy loss at ε.
#[allow(clippy::too_many_arguments)]
fn user_split_fits(
    plan: &MethodPlan,
    points: &[(Params, Params, String)],
    epsilon: f64,
    data: &RepData,
    (order, n_v): (&[usize], usize),
    seed: u64,
    parts: &[&str],
    n: usize,
) -> Result<Option<Vec<Vec<f64>>>, MethodError> {
    let k = points.len();
    let groups: Vec<(RepData, usize)> = (0..k)
        .map(|i| user_split_data(data, (order, n_v), i, k))
        .collect();
    let score = Score::Local { epsilon, k: 1.0 };
    chosen_fits(plan, seed, parts, n, |_| {
        points
            .iter()
            .zip(&groups)
            .map(|(point, (d, n_val))| Candidate {
                data: d,
                n_val: *n_val,
                point,
                fit_epsilon: epsilon,
                score,
            })
            .collect()
    })
}

/// `n` runs of `random_stopping` over `points` on the validation split `pv` (training
/// rows as its private part; its test part the `n_v` validation rows then the probes): K
/// from `law`, K candidates drawn uniformly from `points`, each fitted at ε₀ = ε/(2 + η)
/// and scored at ε₀.
#[allow(clippy::too_many_arguments)]
fn stopping_fits(
    plan: &MethodPlan,
    points: &[(Params, Params, String)],
    epsilon: f64,
    law: crate::privacy::selection::StoppingLaw,
    (pv, n_v): (&RepData, usize),
    seed: u64,
    parts: &[&str],
    n: usize,
) -> Result<Option<Vec<Vec<f64>>>, MethodError> {
    use rand::Rng;
    let eps0 = law.candidate_epsilon(epsilon);
    let score = Score::Central { epsilon0: eps0 };
    chosen_fits(plan, seed, parts, n, |draws| {
        (0..law.sample(draws))
            .map(|_| Candidate {
                data: pv,
                n_val: n_v,
                point: &points[draws.gen_range(0..points.len())],
                fit_epsilon: eps0,
                score,
            })
            .collect()
    })
}

/// Column `k` of fits `z` (a probe's prediction in each fit).
fn column(z: &[Vec<f64>], k: usize) -> Vec<f64> {
    z.iter().map(|r| r[k]).collect()
}

/// One audited (method, grid point, ε, part) before the family-wise level is known.
struct Chosen {
    method: String,
    params: String,
    epsilon: f64,
    /// What the user is promised: the column's ε, or with selection its ε with tuning.
    claimed: f64,
    part: &'static str,
    words: String,
    found: Found,
}

/// A part's pilot choice and its final counts: canary pair `pair`, probe `probe`, the
/// event and how often it held on the final fits of neighbours a and b (`fits` each).
struct Found {
    pair: usize,
    probe: usize,
    event: super::Event,
    count_a: u64,
    count_b: u64,
    fits: u64,
}

impl Found {
    /// audit.csv's `neighbours` for it: the data set, the pair, the users, the probe.
    fn words(&self, dataset: &str, pairs: &[CanaryPair], users: usize) -> String {
        let probe = match self.probe {
            0 => "neighbour a's canary point".to_string(),
            1 => "neighbour b's canary point".to_string(),
            k => format!("test probe {}", k - 2),
        };
        format!(
            "{dataset}: {} ({users} private users); prediction at {probe}",
            pairs[self.pair].words
        )
    }
}

/// Fits of both neighbours of a canary pair: row j of each is fit j's predictions at the
/// probes; None when the method skips the data.
type PairFits = Option<(Vec<Vec<f64>>, Vec<Vec<f64>>)>;

/// `fit_side(side, data)` on each of the two neighbouring data sets of `pair` (`a`, then
/// `b`: with `b_removed`, b without the audited user), whose probes are both canaries'
/// points: both sides' fits, or None when the method skips either data set.
fn pair_sides<F>(base: &Base<'_>, pair: &CanaryPair, mut fit_side: F) -> Result<PairFits, E2eError>
where
    F: FnMut(&'static str, RepData) -> Result<Option<Vec<Vec<f64>>>, E2eError>,
{
    let probes = [pair.a.x.as_slice(), pair.b.x.as_slice()];
    let za = fit_side("a", base.data(&pair.a, probes, false)?)?;
    let zb = fit_side("b", base.data(&pair.b, probes, pair.b_removed)?)?;
    Ok(za.zip(zb))
}

/// One end-to-end part over the canary pairs `pairs` (indices): `pair_fits(pair, stage,
/// n)` draws n fits of each neighbour from the streams of `stage` (`pilot` or `final`).
/// The pilot fits of every pair choose the (pair, probe, half-line event) with the largest
/// bound; fresh final fits of that pair count the event. None when the part has no pair or
/// the method skips the data.
fn audit_part<F>(
    cfg: &AuditConfig,
    opts: &E2eOptions,
    pairs: &[usize],
    pair_fits: &F,
) -> Result<Option<Found>, E2eError>
where
    F: Fn(usize, &str, usize) -> Result<PairFits, E2eError>,
{
    let mut best: Option<(f64, usize, usize, super::Event)> = None;
    for &pi in pairs {
        let Some((za, zb)) = pair_fits(pi, "pilot", opts.pilot)? else {
            return Ok(None);
        };
        for k in 0..za[0].len() {
            let (bound, event) = choose_event(cfg, &column(&za, k), &column(&zb, k));
            if best.as_ref().is_none_or(|b| bound > b.0) {
                best = Some((bound, pi, k, event));
            }
        }
    }
    let Some((_, pair, probe, event)) = best else {
        return Ok(None);
    };
    let Some((za, zb)) = pair_fits(pair, "final", opts.fits)? else {
        return Ok(None);
    };
    let count = |z: &[Vec<f64>]| z.iter().filter(|r| event.contains(r[probe])).count() as u64;
    Ok(Some(Found {
        pair,
        probe,
        count_a: count(&za),
        count_b: count(&zb),
        event,
        fits: opts.fits as u64,
    }))
}

/// Runs the end-to-end audit of every private method of `exp` (only `opts.method` when
/// given) on the first data set of the spec the method runs on, at `opts.points` grid
/// points and each budget of `opts.epsilons`: rows for `audit.csv`, two per (method, grid
/// point, ε) — one per part of [`PARTS`] that has canaries — each the pilot's best canary pair, probe and
/// event, certified on fresh fits at family-wise level `opts.alpha` (Bonferroni over the
/// rows). `data_dir`: where the data files are (as for a run).
///
/// # Errors
/// [`E2eError`]: a data set that cannot be loaded or split, a method's refusal, or
/// options of no use (no fits).
pub fn e2e_experiment(
    exp: &Experiment,
    data_dir: Option<&Path>,
    opts: &E2eOptions,
) -> Result<Vec<AuditRow>, E2eError> {
    if opts.pilot == 0 || opts.fits == 0 || opts.users < 2 || opts.points == 0 {
        return Err(E2eError::Options(
            "pilot fits, fits, grid points and at least 2 users are needed".into(),
        ));
    }
    if !(opts.alpha > 0.0 && opts.alpha < 1.0) {
        return Err(E2eError::Options(format!(
            "alpha {} not in (0, 1)",
            opts.alpha
        )));
    }
    // The data sets as loaded, before `scaling: whole` (which the audit applies to each
    // neighbouring data set, canary included).
    let mut raw = exp.clone();
    if raw.scaling == Scaling::Whole {
        raw.scaling = Scaling::None;
    }
    let loaded = crate::run::load_datasets(&raw, data_dir)?;
    let epsilons = opts
        .epsilons
        .clone()
        .unwrap_or_else(|| vec![default_epsilon(exp)]);
    let fixed = match exp.label_bounds {
        LabelBoundsFrom::Fixed { lo, hi } => Some((lo, hi)),
        _ => None,
    };
    let seed = exp.spec.seed;
    let cfg = AuditConfig {
        pilot: opts.pilot,
        draws: opts.fits,
        alpha: opts.alpha,
        ..AuditConfig::default()
    };
    let mut chosen: Vec<Chosen> = Vec::new();
    for plan in &exp.methods {
        let wanted = opts.method.as_ref().is_none_or(|l| l == &plan.label);
        if !wanted || !plan.method.private() {
            continue;
        }
        // The first data set the method runs on.
        let Some((d, dplan)) = exp
            .datasets
            .iter()
            .enumerate()
            .find(|(_, p)| !plan.skip.contains(&p.name))
        else {
            continue;
        };
        let base = Base::new(exp, dplan, loaded[d].as_deref(), opts)?;
        let (ux, uy, ranges) = base.user(fixed);
        let original = base.data(
            &Canary {
                x: ux.clone(),
                y: uy,
            },
            [&ux, &ux],
            false,
        )?;
        for (structural, mechanism, key) in grid_points(plan, opts.points, true) {
            let n_all = original.public.n() + original.private.n() + original.test.n();
            if plan
                .method
                .skip_reason(&structural, n_all, original.test.d())
                .is_some()
            {
                continue;
            }
            let err = |epsilon: f64, source| E2eError::method(plan, dplan, &key, epsilon, source);
            let point = structural.join(&mechanism);
            let free = free_coordinates(plan, &point, &original).map_err(|e| err(f64::NAN, e))?;
            let central = plan.method.privacy_model() == PrivacyModel::Central;
            let pairs = ranges.pairs(&ux, uy, &free, central);
            for &epsilon in &epsilons {
                let eps_text = epsilon_text(epsilon);
                // `n` fits of each neighbour of pair `pi` from the streams of `stage`
                // (pilot or final); None when the method skips the data.
                let pair_fits = |pi: usize, stage: &str, n: usize| -> Result<PairFits, E2eError> {
                    let pi_text = pi.to_string();
                    pair_sides(&base, &pairs[pi], |side, data| {
                        let parts = [
                            "e2e",
                            plan.label.as_str(),
                            key.as_str(),
                            eps_text.as_str(),
                            pi_text.as_str(),
                            side,
                            stage,
                        ];
                        let (s, q) = (&structural, &mechanism);
                        fits(plan, s, q, epsilon, &data, seed, &parts, n)
                            .map_err(|e| err(epsilon, e))
                    })
                };
                for part in PARTS {
                    let of_part = pairs.iter().enumerate().filter(|(_, p)| p.part == part);
                    let of_part: Vec<usize> = of_part.map(|(pi, _)| pi).collect();
                    let Some(found) = audit_part(&cfg, opts, &of_part, &pair_fits)? else {
                        continue;
                    };
                    chosen.push(Chosen {
                        method: plan.label.clone(),
                        params: key.clone(),
                        epsilon,
                        claimed: epsilon,
                        part,
                        words: found.words(&dplan.name, &pairs, original.private.n()),
                        found,
                    });
                }
            }
        }
        for protocol in [
            Selection::PrivateValidation,
            Selection::UserSplit,
            Selection::RandomStopping,
        ] {
            if !exp.selection.contains(&protocol) {
                continue;
            }
            chosen.extend(selected_part(
                protocol,
                exp,
                plan,
                dplan,
                &base,
                &original,
                &ranges,
                (&ux, uy),
                &epsilons,
                &cfg,
                opts,
            )?);
        }
    }
    let m = chosen.len().max(1);
    let level = opts.alpha / m as f64;
    Ok(chosen
        .into_iter()
        .map(|c| {
            let Found {
                event,
                count_a,
                count_b,
                fits: n,
                ..
            } = c.found;
            let (num, den) = if event.a_over_b {
                (count_a, count_b)
            } else {
                (count_b, count_a)
            };
            let outcome = AuditOutcome {
                event,
                count_a,
                count_b,
                draws: n,
                epsilon_lower: epsilon_delta_lower_bound(num, n, den, n, level, 0.0),
                epsilon_plug_in: (num as f64 / den as f64).ln(),
            };
            AuditRow {
                verdict: Some(Verdict::of(outcome.epsilon_lower, c.claimed)),
                method: c.method,
                params: c.params,
                epsilon: c.epsilon,
                part: c.part.to_string(),
                neighbours: c.words,
                claimed: c.claimed,
                delta: 0.0,
                outcome: Some(outcome),
                alpha: level,
            }
        })
        .collect())
}
