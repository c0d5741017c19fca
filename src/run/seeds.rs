//! Seeded random streams (docs/architecture.md, "Determinism: seeded streams").
//!
//! Every stream is a `rand_pcg::Pcg64` seeded with the SHA-256 digest of the spec seed and
//! a list of parts naming the purpose and the task (data set, repetition, method, grid
//! point, ε). No clock, no global generator, no constant reused across fits; the split of
//! repetition r depends only on (seed, data set, r), so every method is paired on it.

use crate::methods::Params;
use crate::spec::raw::Noise;
use crate::spec::MethodPlan;
use rand_pcg::Pcg64;

/// The random stream for `parts` under the root `seed` and the text of ε that seeds and
/// files use (defined on the ground floor, [`crate::seeds`], and re-exported here for the
/// runner).
pub use crate::seeds::{epsilon_text, stream};

/// The stream a method's partition draws from for one (data set, repetition, method label,
/// structural grid point): the runner and the curve figures both use it, so a curve is the
/// very fit the run scored.
pub fn partition_stream(
    seed: u64,
    dataset: &str,
    rep: usize,
    method: &str,
    structural_key: &str,
) -> Pcg64 {
    stream(
        seed,
        &[
            "partition",
            dataset,
            &rep.to_string(),
            method,
            structural_key,
        ],
    )
}

/// The stream of the users' releases for one task and purpose (`noise` for the reported
/// fit; `cv` and `pv` for the honest selection modes' fits, with `extra` naming the fold):
/// keyed on (data set, repetition, method label, the grid point's release key, ε text —
/// empty for a non-private method). The release key ([`Params::release_key`]) leaves out
/// the curator-side parameters (τ, t, a bandwidth…): grid points that differ only in them
/// score the very same releases, so gridding them hands oracle selection no extra draws
/// of the users' noise. The runner and the curve figures both use this function.
///
/// Under `noise: {frozen: SEED}` ([`Noise::Frozen`]) the stream restarts from SEED alone at
/// every fit, whatever the purpose, data set, repetition, grid point or ε, as the authors'
/// code does; the spec seed still drives splits and partitions.
#[allow(clippy::too_many_arguments)]
pub fn release_stream(
    seed: u64,
    purpose: &str,
    dataset: &str,
    rep: usize,
    method: &MethodPlan,
    params: &Params,
    epsilon: &str,
    extra: &str,
) -> Pcg64 {
    if let Noise::Frozen { seed } = method.noise {
        return stream(seed, &["frozen-noise"]);
    }
    stream(
        seed,
        &[
            purpose,
            dataset,
            &rep.to_string(),
            &method.label,
            &params.release_key(method.method.params()),
            epsilon,
            extra,
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    #[test]
    fn streams_differ_by_part_and_repeat_exactly() {
        let a = stream(1, &["split", "abalone", "1"]).next_u64();
        assert_eq!(a, stream(1, &["split", "abalone", "1"]).next_u64());
        assert_ne!(a, stream(1, &["split", "abalone", "2"]).next_u64());
        assert_ne!(a, stream(2, &["split", "abalone", "1"]).next_u64());
        assert_ne!(
            stream(1, &["ab", "c"]).next_u64(),
            stream(1, &["a", "bc"]).next_u64()
        );
    }
}
