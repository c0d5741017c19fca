//! The method registry: every method a spec may name, and finding one by name.

use super::{compose, deconv, diprime_baselines, krr, mask_record, pardt, pglm, psgd};
use super::{Method, RepetitionRecord};
use std::sync::{Arc, OnceLock};

/// Every kind of per-repetition record ([`RepetitionRecord`]), in the order run.json's
/// `privacy` object and the notes list them. A privacy model with a record of its own adds
/// it here, as a method is added to [`registry`].
pub const REPETITION_RECORDS: &[&dyn RepetitionRecord] = &[&mask_record::MASK_RECORD];

/// Every registered method: the presets of `specs/methods/` (compositions of blocks)
/// and the builtins that do not fit the blocks.
pub fn registry() -> Vec<Arc<dyn Method>> {
    static REGISTRY: OnceLock<Vec<Arc<dyn Method>>> = OnceLock::new();
    REGISTRY
        .get_or_init(|| {
            let mut v: Vec<Arc<dyn Method>> = Vec::new();
            for p in compose::presets() {
                v.push(Arc::new(p));
            }
            v.push(Arc::new(deconv::DECONV));
            v.push(Arc::new(pglm::PGLM));
            v.push(Arc::new(psgd::PSGD_L));
            v.push(Arc::new(psgd::PSGD_N));
            v.push(Arc::new(pardt::PARDT));
            v.push(Arc::new(pardt::LABELDT));
            v.push(Arc::new(krr::KRR));
            v.push(Arc::new(diprime_baselines::RF));
            v.push(Arc::new(diprime_baselines::ERT));
            v.push(Arc::new(diprime_baselines::DP_RF));
            v.push(Arc::new(diprime_baselines::DP_DF));
            v
        })
        .clone()
}

/// The method called `name`.
///
/// # Errors
/// The list of valid names when `name` is unknown.
pub fn find(name: &str) -> Result<Arc<dyn Method>, String> {
    let all = registry();
    all.iter()
        .find(|m| m.name() == name)
        .cloned()
        .ok_or_else(|| {
            let names: Vec<_> = all.iter().map(|m| m.name()).collect();
            format!(
                "unknown method '{name}'{}; valid methods: {}",
                crate::suggest::did_you_mean(name, names.iter().copied()),
                names.join(", ")
            )
        })
}
