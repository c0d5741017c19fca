//! Data sets: features, labels and the learning task; manifests, loaders, synthetic
//! generators, splits and scaling; the private rows as a type of their own and the label
//! bounds they clip into (docs/architecture.md, `data/` and "Typed data flow").

pub mod cache;
mod dataset;
pub mod encode;
pub mod error;
mod fast_csv;
pub mod fetch;
mod file;
pub mod hints;
mod label_bounds;
pub mod load;
pub mod manifest;
pub mod mask;
mod matrix;
pub mod missing;
pub mod parquet;
mod private_rows;
mod rows;
pub mod scale;
pub mod split;
pub mod synthetic;
pub mod taxi_shape;

pub use cache::{CacheOptions, CACHE_DIR_ENV};
pub use dataset::{Dataset, Task};
pub use error::{ColumnRef, DataError, DATA_DIR_ENV};
pub use file::{is_parquet, FileFormat};
pub use label_bounds::LabelBounds;
pub use load::{
    load_csv, load_csv_fast, load_csv_general, load_manifest_dataset, load_manifest_dataset_cached,
    resolve_data_dir, resolve_data_dir_with_origin, sha256_bytes, sha256_file, user_data_dir,
    DataDirOrigin, Loaded,
};
pub use manifest::{
    default_manifest_dirs, find_manifest, list_manifests, load_manifest, require_manifests,
    FetchSpec, Manifest, PaperRef, Source,
};
pub use mask::{MaskRule, MaskSource, MaskStream, PrivacyMask, RepetitionMasks};
pub use matrix::{Buffer, Matrix, Values};
pub use missing::{MissingKind, MissingPolicy, MISSING_MARKERS};
pub use parquet::load_parquet;
pub use private_rows::{Escape, PrivateRows, PublicPartition};
pub use scale::MinMax;
pub use split::{random_split, EmptyPart, SplitIndices, SplitRatios, SplitRows, SplitSizes};
pub use synthetic::{
    lpdt_sine, semi_feature_sine, semi_feature_sine_mean, DomainShift, LpctDesign, LpctLaw,
    RangeKnowledge, SemiFeatureSine, XScale,
};
pub use taxi_shape::{TaxiPopulation, TaxiShape, TAXI_FARE_THRESHOLD};
