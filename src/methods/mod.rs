//! The methods (docs/architecture.md, `methods/`): the types and traits they share
//! (`traits.rs`), the registry (`registry.rs`), and one module per builtin or family.
//!
//! A method declares its parameters (structural ones shape the partition, the others only
//! the privatization), the tasks it supports and whether it spends privacy budget. The
//! runner calls [`Method::prepare`] once per repetition and structural grid point, then
//! [`Prepared::predict`] for every mechanism grid point and ε.

/// Declares a builtin method's identity inside its `impl Method`, so that each builtin
/// states it once in the same form:
///
/// - `builtin! { "NAME", [Task, …], Model, params, "description" }` writes
///   [`Method::name`], [`Method::description`], [`Method::params`], [`Method::private`]
///   (every model but [`PrivacyModel::NonPrivate`]), [`Method::tasks`] and
///   [`Method::privacy_model`];
/// - `builtin! { [Task, …], Model }` writes the last three only, for a type whose variants
///   differ in name, description or parameters.
///
/// `Task` names [`crate::data::Task`] variants and `Model` a [`PrivacyModel`] variant.
macro_rules! builtin {
    ($name:expr, [$($task:ident),+], $model:ident, $params:expr, $description:expr $(,)?) => {
        fn name(&self) -> &str {
            $name
        }
        fn description(&self) -> &str {
            $description
        }
        fn params(&self) -> &[$crate::methods::ParamDecl] {
            $params
        }
        $crate::methods::builtin! { [$($task),+], $model }
    };
    ([$($task:ident),+], $model:ident $(,)?) => {
        fn private(&self) -> bool {
            $crate::methods::PrivacyModel::$model != $crate::methods::PrivacyModel::NonPrivate
        }
        fn tasks(&self) -> &'static [$crate::data::Task] {
            &[$($crate::data::Task::$task),+]
        }
        fn privacy_model(&self) -> $crate::methods::PrivacyModel {
            $crate::methods::PrivacyModel::$model
        }
    };
}
pub(crate) use builtin;

pub mod compose;
pub mod deconv;
pub mod diprime_baselines;
pub mod krr;
pub mod lane_exp;
pub mod mask_params;
pub mod mask_record;
mod params;
pub mod pardt;
pub mod pglm;
pub mod psgd;
mod registry;
pub mod repetition_record;
mod traits;
mod tree_release;

pub use compose::{Composed, Composition};
pub use params::{complete_point, ParamDecl, ParamKind, ParamRole, ParamValue, Params};
pub use registry::{find, registry, REPETITION_RECORDS};
pub use repetition_record::{GridUse, RepetitionRecord};
pub use traits::{
    predict_each, release_params_key, AsAny, Method, MethodError, Prepared, PrivacyModel, RepData,
};
pub(crate) use traits::{predict_leaves, required_epsilon};
