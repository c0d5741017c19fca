//! The privacy primitives of dp-repro: local and central differential-privacy mechanisms,
//! the privacy budget, the privacy ledger every mechanism charges, and the Clopper–Pearson
//! bounds of a privacy audit. dp-repro re-exports this crate as `dp_repro::privacy`.
//!
//! It is a crate of its own so that it imports nothing of the estimators, the runner or the
//! audit (the lowest room of the house, enforced by the compiler), and so that its own tests
//! can be mutation-tested in minutes (see docs/audit.md).
//!
//! Every function takes the random stream explicitly: the caller derives it from the spec
//! seed and the task (see `dp_repro::seeds`), so results do not depend on thread scheduling.

mod budget;
mod exponential;
mod gaussian;
mod generalized_rr;
mod laplace;
pub mod ledger;
pub mod mutants;
mod permute_flip;
mod priv_unit_g;
pub mod privacy_loss;
mod randomized_response;
pub mod selection;
mod snapping;

pub use budget::{Budget, BudgetError};
pub use exponential::{
    draw_index, exponential_log_weights, exponential_mechanism, exponential_probabilities,
    exponential_release, exponential_weights_release, realised_coefficient, Normalisation,
};
pub use gaussian::{
    gaussian_mechanism_variance, gaussian_noise, gaussian_release, gaussian_sum_release,
    symmetric_gaussian_noise, symmetric_gaussian_release, symmetric_gaussian_sum_release,
    GaussianAggregate,
};
pub use generalized_rr::Grr;
pub use laplace::{
    laplace, laplace_release, laplace_sum, laplace_sums, laplace_vector_release, LaplaceSums,
};
pub use ledger::Domain;
pub use permute_flip::{
    permute_and_flip, permute_and_flip_probabilities, permute_and_flip_release,
};
pub use priv_unit_g::{PrivUnitGParams, PRIV_UNIT_G_EPSILON_CAP, PRIV_UNIT_G_Q_CAP};
pub use randomized_response::{
    flip_mask, flip_threshold, rr_keep_probability, FlipMasks, KeepProbability, OneHotFlips,
    OneHotRr, FLIP_MASK_STEPS,
};
pub use snapping::{uniform_full_precision, SnappingError, SnappingLaplace};
