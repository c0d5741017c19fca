//! The types and traits every method shares (docs/architecture.md, `methods/`): a
//! repetition's data ([`RepData`]), the privacy model ([`PrivacyModel`]), errors
//! ([`MethodError`]), a method ([`Method`]) and a fit prepared on its structural grid point
//! ([`Prepared`]). The registry that lists the methods is `registry.rs`.

use super::{mask_params, mask_record, ParamDecl, ParamRole, Params, RepetitionRecord};
use crate::data::{Dataset, PrivateRows, RepetitionMasks, Task};
use crate::estimate::LabelBounds;
use rand_pcg::Pcg64;

use thiserror::Error;

/// One repetition's data, already split and scaled.
#[derive(Debug, Clone)]
pub struct RepData {
    /// Public sample (n_pub×d), usable without privacy.
    pub public: Dataset,
    /// Private training sample (n×d): read only through its release inputs (clipped
    /// labels, cells of a public partition) or a named escape ([`crate::data::Escape`];
    /// docs/architecture.md, "Typed data flow").
    pub private: PrivateRows,
    /// Test sample (n_test×d).
    pub test: Dataset,
    /// Label bounds for clipping and noise scales (from public labels by default).
    pub bounds: LabelBounds,
    /// The privacy masks of the private users (rows in the order of `private`), drawn from
    /// the repetition's own stream the first time a method reads them; read them with
    /// [`mask_params::mask_of`]. The runner gives every repetition its masks; None only
    /// in hand-made data.
    pub masks: Option<RepetitionMasks>,
}

impl RepData {
    /// The mask source of the private users `users` (in that order), for a RepData whose
    /// private part is `self.private.select(users)`.
    pub fn masks_of(&self, users: &[usize]) -> Option<RepetitionMasks> {
        self.masks.as_ref().map(|m| m.select(users))
    }
}

/// The privacy model a method works under (docs/architecture.md, "Privacy models").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrivacyModel {
    /// Local DP with a public sample (LPDT, LPCT): private users only through releases.
    LocalPublicData,
    /// Semi-feature local DP (HistOfTree): a user's public coordinates in the clear, its
    /// private coordinates (per the mask) and label only through releases.
    SemiFeature,
    /// Central DP (DiPriMe forests): a trusted curator holds the private training rows and
    /// reads them only through central mechanisms (exponential mechanism, permute-and-flip,
    /// Laplace), composed sequentially along a tree and in parallel across disjoint shares
    /// (docs/methods/diprime.md §3.11).
    Central,
    /// No privacy (baselines such as DT).
    NonPrivate,
}

impl PrivacyModel {
    /// The model's name in `dp-repro list methods` and notes.
    pub fn name(self) -> &'static str {
        match self {
            PrivacyModel::LocalPublicData => "local-dp-public-data",
            PrivacyModel::SemiFeature => "semi-feature",
            PrivacyModel::Central => "central",
            PrivacyModel::NonPrivate => "non-private",
        }
    }
}

/// An error while fitting or predicting.
#[derive(Debug, Error)]
pub enum MethodError {
    /// An invalid budget or share.
    #[error(transparent)]
    Budget(#[from] crate::privacy::BudgetError),
    /// Anything else, with a message.
    #[error("{0}")]
    Other(String),
}

/// [`Prepared::predict_shared`] by one [`Prepared::predict`] call per grid point: element j
/// is `prepared.predict(mechanisms[j], epsilon, rngs[j])`. The default of `predict_shared`,
/// and the fallback of an override whose points cannot share their work.
///
/// # Errors
/// The first point's error.
///
/// # Panics
/// If `rngs` and `mechanisms` differ in length.
pub fn predict_each<P: Prepared + ?Sized>(
    prepared: &P,
    mechanisms: &[&Params],
    epsilon: Option<f64>,
    rngs: &mut [Pcg64],
) -> Result<Vec<Vec<f64>>, MethodError> {
    assert_eq!(mechanisms.len(), rngs.len(), "one stream per grid point");
    mechanisms
        .iter()
        .zip(rngs.iter_mut())
        .map(|(m, rng)| prepared.predict(m, epsilon, rng))
        .collect()
}

/// A method after its structural parameters were applied to one repetition's data.
pub trait Prepared: Send + Sync {
    /// Predictions for every test point (length n_test) at the mechanism parameters
    /// `mechanism` and budget `epsilon` (None for non-private methods). Every random draw
    /// comes from `rng`.
    fn predict(
        &self,
        mechanism: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError>;

    /// Predictions at several mechanism grid points whose users' releases are the same
    /// (they differ only in curator-side parameters, [`ParamRole::Curator`]): `rngs[j]` is
    /// the release stream of `mechanisms[j]` (equal streams, as the runner keys them on
    /// [`Params::release_key`]). Element j of the result is, bit for bit, what
    /// [`Prepared::predict`]`(mechanisms[j], epsilon, rngs[j])` returns, and each stream is
    /// left where that call leaves it. The default makes those calls one by one; a method
    /// overrides it to compute what the points share once (DECONV: one release and one set
    /// of squared distances for every bandwidth).
    ///
    /// # Errors
    /// The first point's error, as [`Prepared::predict`].
    ///
    /// # Panics
    /// If `rngs` and `mechanisms` differ in length.
    fn predict_shared(
        &self,
        mechanisms: &[&Params],
        epsilon: Option<f64>,
        rngs: &mut [Pcg64],
    ) -> Result<Vec<Vec<f64>>, MethodError> {
        predict_each(self, mechanisms, epsilon, rngs)
    }

    /// The exact training-row count of every leaf, tree by tree (one inner vector per
    /// tree, leaves in the tree's node order), of the model that [`Prepared::predict`]
    /// fits at the same `mechanism`, `epsilon` and `rng` stream: the very fit, not a new
    /// draw. Bookkeeping for leaf-occupancy figures (DiPriMe Fig. 3, card docs/methods/diprime.md §7),
    /// never a release. None when the method has no tree leaves to count (the default).
    fn leaf_rows(
        &self,
        mechanism: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Option<Result<Vec<Vec<usize>>, MethodError>> {
        let _ = (mechanism, epsilon, rng);
        None
    }
}

/// A method as [`std::any::Any`], so that rooms above the registry (the privacy audit's
/// table from each method to its audit cases) can reach a method's concrete type and its
/// release functions without the method knowing them. Implemented for every `'static`
/// type.
pub trait AsAny {
    /// `self` as `&dyn Any`.
    fn as_any(&self) -> &dyn std::any::Any;
}

impl<T: std::any::Any> AsAny for T {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// A method of the registry.
pub trait Method: AsAny + Send + Sync {
    /// The name used in specs (e.g. `LPDT-M`).
    fn name(&self) -> &str;
    /// One line for `dp-repro list methods`, with its source.
    fn description(&self) -> &str;
    /// Declared parameters.
    fn params(&self) -> &[ParamDecl];
    /// Whether the method spends a privacy budget ε (rows for every ε) or not (one row).
    fn private(&self) -> bool;
    /// Supported tasks.
    fn tasks(&self) -> &'static [Task];
    /// Whether the method grows its partition on the public sample (LPDT, LPCT: `grown_on:
    /// public`), so that a data set without public rows leaves it a single cell.
    fn grows_on_public(&self) -> bool {
        false
    }
    /// The building blocks of a composed method, for `dp-repro list methods`; None for a
    /// builtin.
    fn blocks(&self) -> Option<String> {
        None
    }
    /// The privacy model (docs/architecture.md, "Privacy models"); by default local DP with public
    /// data for private methods and [`PrivacyModel::NonPrivate`] for the others.
    fn privacy_model(&self) -> PrivacyModel {
        if self.private() {
            PrivacyModel::LocalPublicData
        } else {
            PrivacyModel::NonPrivate
        }
    }
    /// Refuses a grid whose structural points `points` combine parameters the method
    /// cannot honour together (e.g. a grid over `mask_tau` with `mask: aligned`, see
    /// [`mask_params::check_mask_grid`]); called once by spec validation. The error is
    /// `"<parameter>: <what would be valid>"`, the parameter first, so validation can name
    /// the spec field. The default checks a method that declares the mask parameters
    /// with [`mask_params::check_mask_grid`] and accepts every other grid.
    fn check_grid(&self, points: &[Params]) -> Result<(), String> {
        if mask_params::declares_mask(self.params()) {
            mask_params::check_mask_grid(points)
        } else {
            Ok(())
        }
    }
    /// The test metric of predictions `pred` against labels `y` at grid point `params`,
    /// called by the runner for every scored prediction. The default is
    /// [`Task::score`]; a forest composition with `accuracy: soft` scores DP-ERT's soft
    /// accuracy `1 − mean|y − p̂|` (DiPriMe card §4.3).
    fn score(&self, task: Task, params: &Params, y: &[f64], pred: &[f64]) -> f64 {
        let _ = params;
        task.score(y, pred)
    }
    /// Sentences for table notes on what the method does with privacy beyond spending ε
    /// per user, e.g. private users' records used in the clear; empty by default.
    fn privacy_notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// What the run records and notes about the per-repetition material this method reads
    /// beyond the split (one of [`REPETITION_RECORDS`]), or None. By default a
    /// [`PrivacyModel::SemiFeature`] method reads the privacy masks
    /// ([`mask_record::MASK_RECORD`]) and no other method reads anything more.
    fn repetition_record(&self) -> Option<&'static dyn RepetitionRecord> {
        match self.privacy_model() {
            PrivacyModel::SemiFeature => Some(&mask_record::MASK_RECORD),
            _ => None,
        }
    }
    /// The part of grid point `params` that the audit's cases (`audit::table`) depend on: grid points
    /// with the same key get the same cases, and `dp-repro audit` audits them once and
    /// shows the key. The default is the release parameters (role
    /// [`ParamRole::Release`]), for methods whose cases do not read the structural ones (a
    /// partition's shape); a method whose structural parameters change what is released
    /// (DP-RF's quirks) or whose cases read fewer parameters says so.
    fn audit_key(&self, params: &Params) -> String {
        release_params_key(self.params(), params)
    }
    /// Whether structural grid point `structural` applies to a data set of `n` rows
    /// (all parts) and `d` features, decided from the shape alone, without running
    /// anything: None when it applies, else the reason it is skipped, in a few words
    /// that follow the method's name (e.g. `bins over the memory cap`). Task counts,
    /// progress bars and the runner's work list leave such grid points out, and
    /// [`Method::prepare`] returns Ok(None) for them. The default: a method that declares
    /// the mask parameters skips by [`mask_params::mask_skip_reason`]; for any other, every
    /// grid point applies.
    fn skip_reason(&self, structural: &Params, n: usize, d: usize) -> Option<String> {
        let _ = n;
        if mask_params::declares_mask(self.params()) {
            mask_params::mask_skip_reason(structural, d)
        } else {
            None
        }
    }
    /// The relative cost of one unit of the runner's work list: structural grid point
    /// `structural` on a data set of `n` rows (all parts) and `d` features, with `tasks`
    /// runs.csv rows (one per ε and mechanism point), in row-operations (one unit: one
    /// simple operation on one row). The scheduler starts the costliest units first, so no
    /// thread idles at the end of a run, and rescales each method's costs by the seconds
    /// it measured in earlier repetitions when runs.csv has them; it changes the order of
    /// the work, never a result. The default: a partition grown by sorting every feature,
    /// `n·d·log₂ n`, then `n` per task (each user releases once, the estimator counts).
    fn unit_cost(&self, structural: &Params, n: usize, d: usize, tasks: usize) -> f64 {
        let _ = structural;
        let n = n as f64;
        n * (d.max(1) as f64 * (n + 2.0).log2() + tasks as f64)
    }
    /// Builds what does not depend on ε or mechanism parameters. `rng` is the stream of
    /// this (data set, repetition, method, structural grid point), for partitions that
    /// draw at random. Ok(None) means the grid point does not apply to this data: exactly
    /// when [`Method::skip_reason`] says so (e.g. a histogram grid over the memory cap).
    fn prepare(
        &self,
        data: &RepData,
        structural: &Params,
        rng: &mut Pcg64,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError>;
    /// [`Method::prepare`], with the trees grown on `data.public` shared through `shared`
    /// when the runner gives one (a public sample that is the same in every repetition of
    /// the data set; see [`crate::partition::shared`]). A method may take from it only
    /// trees that depend on nothing but the public sample and the structural parameters
    /// (no random draws, no private data), so that the result is exactly
    /// [`Method::prepare`]'s. The default ignores `shared`.
    fn prepare_shared(
        &self,
        data: &RepData,
        structural: &Params,
        rng: &mut Pcg64,
        shared: Option<&crate::partition::SharedPublic<'_>>,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        let _ = shared;
        self.prepare(data, structural, rng)
    }
}

/// The `k=v` pairs of `params` whose declaration in `decls` has role
/// [`ParamRole::Release`], joined by `;`: the default [`Method::audit_key`].
pub fn release_params_key(decls: &[ParamDecl], params: &Params) -> String {
    params
        .0
        .iter()
        .filter(|(k, _)| {
            decls
                .iter()
                .any(|d| &d.name == k && d.role == ParamRole::Release)
        })
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(";")
}

/// The ε a private method's [`Prepared::predict`] was given.
///
/// # Errors
/// None given: the runner passes ε to every private method, so this is a caller's bug.
pub(crate) fn required_epsilon(method: &str, epsilon: Option<f64>) -> Result<f64, MethodError> {
    epsilon.ok_or_else(|| MethodError::Other(format!("{method} is private and needs an epsilon")))
}

/// Test predictions of a partition with leaf values: `values[leaf]` for each test point,
/// or 0 for points outside the domain box when `ood_zero` (docs/methods/lpdt.md §2.4, `ood = zero`).
pub(crate) fn predict_leaves(test_leaves: &[Option<usize>], values: &[f64]) -> Vec<f64> {
    test_leaves
        .iter()
        .map(|l| l.map_or(0.0, |j| values[j]))
        .collect()
}
