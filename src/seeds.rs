//! Seeded random streams on the ground floor (docs/architecture.md, "Determinism: seeded streams"): `run/` and
//! `methods/` both derive their streams here, so no method imports `run/`.
//!
//! Every stream is a `rand_pcg::Pcg64` seeded with the SHA-256 digest of a root seed and a
//! list of parts naming the purpose and the task. No clock, no global generator.

use rand::SeedableRng;
use rand_pcg::Pcg64;
use sha2::{Digest, Sha256};

/// Text of ε for seeds and files: Rust's shortest round-trip form (0.5, 1, 2, …).
pub fn epsilon_text(e: f64) -> String {
    format!("{e}")
}

/// The random stream for `parts` under the root `seed`: SHA-256 of a version tag, the seed
/// (little-endian) and each part length-prefixed, so ("ab","c") and ("a","bc") differ.
pub fn stream(seed: u64, parts: &[&str]) -> Pcg64 {
    let mut h = Sha256::new();
    h.update(b"dp-repro/v1");
    h.update(seed.to_le_bytes());
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    let digest: [u8; 32] = h.finalize().into();
    Pcg64::from_seed(digest)
}
