//! Raw files made numeric by rules a manifest declares, never by a hand-edited copy of the
//! file: the label's values mapped to classes, columns dropped, categorical columns one-hot
//! encoded or given codes, columns derived from a timestamp, the regression target rescaled,
//! and which encoded features are category codes (the pre-processing the LPCT paper, App.
//! C.1, and the DiPriMe paper, §4 and method card docs/methods/diprime.md §6.2, describe in words; the
//! choices that reproduce the papers' data are recorded in each manifest).
//!
//! ```yaml
//! encode:
//!   columns: [age, workclass, …]            # names for a file without a header row
//!   label: {">50K": 1, "<=50K": 0}           # label text → class (else a numeric label)
//!   drop: [education, native-country]        # columns left out
//!   one_hot: [workclass, occupation]         # one 0/1 column per category, categories sorted
//!   codes: {sex: {Male: 0, Female: 1}}       # one column of codes
//!   category_codes: [holiday, weather_main]  # code = index in the sorted distinct values
//!   derive:                                  # columns read from a timestamp, appended
//!     - {name: weekday, from: date_time, format: "%Y-%m-%d %H:%M:%S", part: weekday}
//!   categorical: [holiday, weekday]          # encoded features that are category codes
//!   unbinned: [PAY_0]                        # numeric features the 5-bin discretisation keeps
//!   target: {rescale: min_max}               # regression target to [0, 1] (or `max`)
//! ```
//!
//! Every other column must be numeric. Columns keep their file order; a one-hot column
//! becomes its categories' indicator columns in sorted order; derived columns follow the
//! file's columns in the order listed (as pandas appends new columns). Categories (one-hot
//! and `category_codes`) are the distinct values of the file's complete rows (those without
//! a missing cell), sorted by code point as pandas sorts strings, so the encoding does not
//! depend on the split. `category_codes` are pandas' `Categorical(col).cat.codes`: the index
//! of the value in that sorted list (pandas < 2.0 reads the text `None` as a category, which
//! is what these codes do too). A target rescaled by `min_max` is `(y − min y)/(max y −
//! min y)`, by `max` it is `y / max y`, both over the loaded rows of the whole file.

mod loader;
mod rules;

pub use super::manifest::{DatePart, Derived, Encoding, Rescale, Target};
pub use loader::{load_encoded, load_manifest_with_rule};
