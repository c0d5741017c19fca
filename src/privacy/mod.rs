//! Local and central differential-privacy mechanisms and the privacy budget
//! (DESIGN.md, `privacy/`).
//!
//! Every function takes the random stream explicitly: the caller derives it from the spec
//! seed and the task (see `run::seeds`), so results do not depend on thread scheduling.

mod budget;
mod laplace;
mod randomized_response;

pub use budget::{Budget, BudgetError};
pub use laplace::{laplace, laplace_sum};
pub use randomized_response::{flip_threshold, rr_keep_probability, KeepProbability};
