//! Privacy masks of semi-feature LDP (HistOfTree card §1, §10, §11; docs/architecture.md "Privacy
//! models"): P ∈ {0,1}^{n×d}, P_ij = 1 when feature j of user i must be protected. The mask
//! is public and independent of the data (card §1).
//!
//! Every law is a function of one matrix of uniforms U (n×d, drawn once per repetition,
//! [`MaskSource`]) and of a sensitivity ranking (feature indices, most sensitive first;
//! rank(j) = 1 + the position of feature j in it):
//!
//! - `aligned {d_p}`: P_ij = 1{rank(j) ≤ d_p} for every user (card §1, §10 [G] d_p = 2);
//! - `personalized {τ}`: P_ij = 1{U_ij < rank(j)^−τ}, i.e. independent Bernoulli(rank(j)^−τ),
//!   so the rank-1 feature is always private (card §10 [G]);
//! - `personalized_prefix {τ}`: user i protects ranks 1..D_i with P(D_i ≥ j) = j^−τ, drawn
//!   as P_ij = 1{U_{i,r1} < rank(j)^−τ} with r1 the rank-1 feature (card §11, the
//!   alternative law of Figure 2(d)).
//!
//! Because both personalized laws threshold the same uniforms, masks are paired across
//! methods and nested in τ: τ₁ < τ₂ ⇒ P(τ₂) ⊆ P(τ₁) elementwise.

use rand::Rng;
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// The law of a privacy mask (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MaskRule {
    /// The `d_p` most sensitive features are private for every user.
    Aligned {
        /// Number of private features d_P (all of them when above d).
        d_p: usize,
    },
    /// P_ij ~ Bernoulli(rank(j)^−τ) independently.
    Personalized {
        /// Tail exponent τ ≥ 0 (larger: fewer protected features).
        tau: f64,
    },
    /// User i protects the ranks 1..D_i, P(D_i ≥ j) = j^−τ.
    PersonalizedPrefix {
        /// Tail exponent τ ≥ 0.
        tau: f64,
    },
}

impl MaskRule {
    /// The law as a formula, for run.json and table notes.
    pub fn formula(&self) -> String {
        match self {
            MaskRule::Aligned { d_p } => format!("P_ij = 1{{rank(j) <= {d_p}}}"),
            MaskRule::Personalized { tau } => {
                format!("P_ij ~ Bernoulli(rank(j)^-{tau}) independently (rank 1 always private)")
            }
            MaskRule::PersonalizedPrefix { tau } => format!(
                "user i protects ranks 1..D_i with P(D_i >= j) = j^-{tau} (rank 1 always private)"
            ),
        }
    }
}

impl fmt::Display for MaskRule {
    /// The spec parameters of the rule: `mask=aligned;d_p=2`, `mask=personalized;mask_tau=1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MaskRule::Aligned { d_p } => write!(f, "mask=aligned;d_p={d_p}"),
            MaskRule::Personalized { tau } => write!(f, "mask=personalized;mask_tau={tau}"),
            MaskRule::PersonalizedPrefix { tau } => {
                write!(f, "mask=personalized_prefix;mask_tau={tau}")
            }
        }
    }
}

/// A privacy mask: n users × d features, row-major; true = private.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrivacyMask {
    n: usize,
    d: usize,
    bits: Vec<bool>,
}

impl PrivacyMask {
    /// A mask from its rows (hand-made masks in tests).
    ///
    /// # Panics
    /// If the rows differ in length.
    pub fn from_rows(rows: Vec<Vec<bool>>) -> PrivacyMask {
        let d = rows.first().map_or(0, Vec::len);
        assert!(
            rows.iter().all(|r| r.len() == d),
            "every mask row needs {d} entries"
        );
        PrivacyMask {
            n: rows.len(),
            d,
            bits: rows.into_iter().flatten().collect(),
        }
    }

    /// Number of users n.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of features d.
    pub fn d(&self) -> usize {
        self.d
    }

    /// Whether feature `feature` of user `user` is private.
    ///
    /// # Panics
    /// Outside n×d.
    pub fn is_private(&self, user: usize, feature: usize) -> bool {
        assert!(feature < self.d, "feature {feature} outside 0..{}", self.d);
        self.bits[user * self.d + feature]
    }

    /// User `user`'s row (d entries, true = private).
    pub fn row(&self, user: usize) -> &[bool] {
        &self.bits[user * self.d..(user + 1) * self.d]
    }

    /// c_j = Σ_i P_ij, the number of users protecting feature j (card §5.1), for each j.
    pub fn protection_counts(&self) -> Vec<usize> {
        let mut c = vec![0usize; self.d];
        for row in self.bits.chunks(self.d.max(1)) {
            for (cj, &p) in c.iter_mut().zip(row) {
                *cj += usize::from(p);
            }
        }
        c
    }

    /// The features ordered by protection count c_j, largest first (card §5.1); ties keep
    /// the order of `ranking` (most sensitive first) [G].
    ///
    /// # Panics
    /// If `ranking` is not a permutation of 0..d.
    pub fn protection_order(&self, ranking: &[usize]) -> Vec<usize> {
        let mut sorted = ranking.to_vec();
        sorted.sort_unstable();
        assert!(
            sorted.iter().copied().eq(0..self.d),
            "the ranking must be a permutation of 0..{}",
            self.d
        );
        let c = self.protection_counts();
        let mut order = ranking.to_vec();
        // A stable sort keeps the ranking's order among equal counts.
        order.sort_by(|&a, &b| c[b].cmp(&c[a]));
        order
    }

    /// The rows of `users`, in that order.
    pub fn select(&self, users: &[usize]) -> PrivacyMask {
        let mut bits = Vec::with_capacity(users.len() * self.d);
        for &u in users {
            bits.extend_from_slice(self.row(u));
        }
        PrivacyMask {
            n: users.len(),
            d: self.d,
            bits,
        }
    }

    /// SHA-256 (lowercase hex) of n and d (u64 little-endian) followed by one byte (0 or 1)
    /// per entry, row-major.
    pub fn digest(&self) -> String {
        let mut h = Sha256::new();
        h.update((self.n as u64).to_le_bytes());
        h.update((self.d as u64).to_le_bytes());
        let bytes: Vec<u8> = self.bits.iter().map(|&b| u8::from(b)).collect();
        h.update(&bytes);
        hex::encode(h.finalize())
    }
}

/// The randomness of one repetition's masks: a sensitivity ranking and n×d uniforms U
/// (users in split order, features in column order), from which every [`MaskRule`] is a
/// deterministic function (module docs).
#[derive(Clone)]
pub struct MaskSource {
    ranking: Vec<usize>,
    /// rank(j) − 1 for each feature j.
    position: Vec<usize>,
    n: usize,
    uniforms: Vec<f64>,
}

impl fmt::Debug for MaskSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MaskSource")
            .field("n", &self.n)
            .field("ranking", &self.ranking)
            .finish_non_exhaustive()
    }
}

impl MaskSource {
    /// Draws n×d uniforms on [0, 1) from `rng`, row by row (user), then column by column;
    /// d = `ranking.len()`.
    ///
    /// # Panics
    /// If `ranking` is not a permutation of 0..d.
    pub fn draw<R: Rng + ?Sized>(n: usize, ranking: Vec<usize>, rng: &mut R) -> MaskSource {
        let d = ranking.len();
        let mut position = vec![usize::MAX; d];
        for (pos, &j) in ranking.iter().enumerate() {
            assert!(
                j < d && position[j] == usize::MAX,
                "the ranking must be a permutation of 0..{d}"
            );
            position[j] = pos;
        }
        let uniforms = (0..n * d).map(|_| rng.gen::<f64>()).collect();
        MaskSource {
            ranking,
            position,
            n,
            uniforms,
        }
    }

    /// The sensitivity ranking: feature indices, most sensitive first.
    pub fn ranking(&self) -> &[usize] {
        &self.ranking
    }

    /// Number of users n.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of features d.
    pub fn d(&self) -> usize {
        self.ranking.len()
    }

    /// The mask of `rule` (module docs for the laws).
    pub fn mask(&self, rule: &MaskRule) -> PrivacyMask {
        let d = self.d();
        let first = self.ranking.first().copied();
        let mut bits = Vec::with_capacity(self.n * d);
        for i in 0..self.n {
            let u = &self.uniforms[i * d..(i + 1) * d];
            for (j, &uj) in u.iter().enumerate() {
                let rank = (self.position[j] + 1) as f64;
                bits.push(match *rule {
                    MaskRule::Aligned { d_p } => self.position[j] < d_p,
                    MaskRule::Personalized { tau } => uj < rank.powf(-tau),
                    MaskRule::PersonalizedPrefix { tau } => {
                        u[first.expect("d > 0 inside the loop")] < rank.powf(-tau)
                    }
                });
            }
        }
        PrivacyMask { n: self.n, d, bits }
    }

    /// The uniforms of `users`, in that order (the masks of a subset of the users: cv folds,
    /// validation splits).
    pub fn select(&self, users: &[usize]) -> MaskSource {
        let d = self.d();
        let mut uniforms = Vec::with_capacity(users.len() * d);
        for &i in users {
            uniforms.extend_from_slice(&self.uniforms[i * d..(i + 1) * d]);
        }
        MaskSource {
            ranking: self.ranking.clone(),
            position: self.position.clone(),
            n: users.len(),
            uniforms,
        }
    }
}

/// Where one repetition's mask uniforms come from: the stream
/// `seeds::stream(seed, ["mask", dataset, repetition])`, n×d uniforms for the repetition's
/// private training users (split order) and the data set's sensitivity ranking. It names
/// neither method nor grid point, so every method and mask setting of a repetition
/// thresholds the same uniforms (paired across methods, nested in τ), and since the stream is
/// its own, drawing it or not shifts no other draw.
#[derive(Debug, Clone, PartialEq)]
pub struct MaskStream {
    /// The spec seed.
    pub seed: u64,
    /// The data set's name.
    pub dataset: String,
    /// The repetition, 1-based.
    pub repetition: usize,
    /// Number of private training users n.
    pub n: usize,
    /// The sensitivity ranking: a permutation of the d feature indices, most sensitive first.
    pub ranking: Vec<usize>,
    /// Whether the data set's manifest declares the ranking (else: column order).
    pub ranking_declared: bool,
}

/// The privacy masks of one repetition's private users, drawn from their [`MaskStream`] the
/// first time a method reads them (nothing is drawn for runs whose methods never do), then
/// shared by every copy and every subset (cv folds, validation splits) of the repetition.
#[derive(Clone)]
pub struct RepetitionMasks {
    stream: Option<Arc<MaskStream>>,
    drawn: Arc<OnceLock<MaskSource>>,
    /// The users of this view, indices into the drawn users (None: all, in order).
    users: Option<Arc<[usize]>>,
}

impl fmt::Debug for RepetitionMasks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RepetitionMasks")
            .field("stream", &self.stream)
            .field("drawn", &self.is_drawn())
            .field("users", &self.users.as_ref().map(|u| u.len()))
            .finish()
    }
}

impl From<MaskSource> for RepetitionMasks {
    /// Masks already drawn (hand-made sources in tests and audits).
    fn from(source: MaskSource) -> RepetitionMasks {
        RepetitionMasks {
            stream: None,
            drawn: Arc::new(OnceLock::from(source)),
            users: None,
        }
    }
}

impl RepetitionMasks {
    /// The masks of `stream`, not drawn yet.
    pub fn new(stream: MaskStream) -> RepetitionMasks {
        RepetitionMasks {
            stream: Some(Arc::new(stream)),
            drawn: Arc::new(OnceLock::new()),
            users: None,
        }
    }

    /// Whether the uniforms have been drawn (a method read them).
    pub fn is_drawn(&self) -> bool {
        self.drawn.get().is_some()
    }

    /// Whether the data set's manifest declares the ranking; false for hand-made sources.
    pub fn ranking_declared(&self) -> bool {
        self.stream.as_ref().is_some_and(|s| s.ranking_declared)
    }

    /// The uniforms of every user of the repetition, drawn on first call.
    fn all(&self) -> &MaskSource {
        self.drawn.get_or_init(|| {
            let s = self
                .stream
                .as_ref()
                .expect("a RepetitionMasks without a stream is made drawn");
            let rep = s.repetition.to_string();
            let mut rng = crate::seeds::stream(s.seed, &["mask", &s.dataset, &rep]);
            MaskSource::draw(s.n, s.ranking.clone(), &mut rng)
        })
    }

    /// The uniforms of this view's users, in its order (drawn on first call).
    pub fn source(&self) -> Cow<'_, MaskSource> {
        match &self.users {
            None => Cow::Borrowed(self.all()),
            Some(users) => Cow::Owned(self.all().select(users)),
        }
    }

    /// The masks of `users` (indices into this view's users), in that order.
    pub fn select(&self, users: &[usize]) -> RepetitionMasks {
        let users: Arc<[usize]> = match &self.users {
            None => users.into(),
            Some(mine) => users.iter().map(|&u| mine[u]).collect(),
        };
        RepetitionMasks {
            stream: self.stream.clone(),
            drawn: Arc::clone(&self.drawn),
            users: Some(users),
        }
    }

    /// Number of users of this view.
    pub fn n(&self) -> usize {
        match (&self.users, &self.stream) {
            (Some(u), _) => u.len(),
            (None, Some(s)) => s.n,
            (None, None) => self.all().n(),
        }
    }

    /// Number of features d.
    pub fn d(&self) -> usize {
        self.ranking().len()
    }

    /// The sensitivity ranking: feature indices, most sensitive first.
    pub fn ranking(&self) -> &[usize] {
        match &self.stream {
            Some(s) => &s.ranking,
            None => self.all().ranking(),
        }
    }

    /// The mask of `rule` for this view's users (n×d; draws on first call).
    pub fn mask(&self, rule: &MaskRule) -> PrivacyMask {
        self.source().mask(rule)
    }
}
