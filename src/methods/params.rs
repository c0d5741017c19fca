//! Parameter values, declarations and grid points of methods.

use serde::Serialize;
use std::fmt;

/// One parameter value from a spec.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ParamValue {
    /// An integer (depth, min_leaf, bins, …).
    Int(i64),
    /// A real number (rho, tau, t, …).
    Float(f64),
    /// A switch.
    Bool(bool),
    /// A named choice (e.g. APHIST `weights: average`).
    Str(String),
}

impl ParamValue {
    /// The value as f64 (integers convert), None for strings and booleans.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ParamValue::Int(i) => Some(*i as f64),
            ParamValue::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// Converts a YAML scalar; None for sequences, maps and null.
    pub fn from_yaml(v: &serde_yaml::Value) -> Option<ParamValue> {
        match v {
            serde_yaml::Value::Bool(b) => Some(ParamValue::Bool(*b)),
            serde_yaml::Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Some(ParamValue::Int(i))
                } else {
                    n.as_f64().map(ParamValue::Float)
                }
            }
            serde_yaml::Value::String(s) => Some(ParamValue::Str(s.clone())),
            _ => None,
        }
    }

    /// Parses the textual form written by `Display` (used when re-reading runs.csv).
    pub fn parse(s: &str) -> ParamValue {
        if let Ok(i) = s.parse::<i64>() {
            ParamValue::Int(i)
        } else if let Ok(f) = s.parse::<f64>() {
            ParamValue::Float(f)
        } else if s == "true" || s == "false" {
            ParamValue::Bool(s == "true")
        } else {
            ParamValue::Str(s.to_string())
        }
    }
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Str(s) => write!(f, "{s}"),
        }
    }
}

/// What values a parameter accepts.
#[derive(Debug, Clone, Copy)]
pub enum ParamKind {
    /// An integer ≥ min.
    Int { min: i64 },
    /// A real number in (lo, hi) when `open`, else in [lo, hi].
    Float { lo: f64, hi: f64, open: bool },
    /// true or false.
    Bool,
    /// One of the listed names.
    Choice(&'static [&'static str]),
    /// Any value one of the listed kinds accepts, e.g. an integer or a name (`depth: 7` or
    /// `depth: rule`; `k: 5` or `k: all`).
    Either(&'static [ParamKind]),
}

impl ParamKind {
    /// A valid value of this kind, for tests and audits that need every parameter set: the
    /// smallest integer ≥ 2 allowed, the middle of a bounded real interval (1 above an
    /// unbounded lower end), false, the first choice.
    pub fn example(&self) -> ParamValue {
        match self {
            ParamKind::Int { min } => ParamValue::Int((*min).max(2)),
            ParamKind::Float { lo, hi, .. } if hi.is_finite() => ParamValue::Float((lo + hi) / 2.0),
            ParamKind::Float { lo, .. } => ParamValue::Float(lo + 1.0),
            ParamKind::Bool => ParamValue::Bool(false),
            ParamKind::Choice(c) => ParamValue::Str(c[0].to_string()),
            ParamKind::Either(kinds) => kinds[0].example(),
        }
    }

    /// Checks a value, returning what would be valid on failure.
    pub fn check(&self, v: &ParamValue) -> Result<(), String> {
        match (self, v) {
            (ParamKind::Int { min }, ParamValue::Int(i)) if *i >= *min => Ok(()),
            (ParamKind::Int { min }, _) => Err(format!("an integer >= {min}")),
            (ParamKind::Float { lo, hi, open }, v) => match v.as_f64() {
                Some(x) if *open && x > *lo && x < *hi => Ok(()),
                Some(x) if !*open && x >= *lo && x <= *hi => Ok(()),
                _ if *open => Err(format!("a number in the open interval ({lo}, {hi})")),
                _ => Err(format!("a number in [{lo}, {hi}]")),
            },
            (ParamKind::Bool, ParamValue::Bool(_)) => Ok(()),
            (ParamKind::Bool, _) => Err("true or false".into()),
            (ParamKind::Choice(names), ParamValue::Str(s)) if names.contains(&s.as_str()) => Ok(()),
            (ParamKind::Choice(names), _) => Err(format!("one of {}", names.join(", "))),
            (ParamKind::Either(kinds), v) => {
                let mut wants = Vec::with_capacity(kinds.len());
                for k in kinds.iter() {
                    match k.check(v) {
                        Ok(()) => return Ok(()),
                        Err(want) => wants.push(want),
                    }
                }
                Err(wants.join(" or "))
            }
        }
    }
}

/// What a parameter changes, which decides where the runner applies it and which random
/// streams it keys (docs/architecture.md, "Determinism: seeded streams").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamRole {
    /// Shapes the partition (depth, min_leaf, bins, …): built once per repetition and
    /// structural grid point, reused for every ε and mechanism parameter.
    Structural,
    /// Changes what each private user releases (ρ, the split of ε between cell and label;
    /// a label shift before noise): the users' noise stream is keyed on it.
    Release,
    /// Changes only what the curator computes from the releases (τ, t, a bandwidth, the
    /// out-of-domain rule): grid points that differ only in such parameters score the very
    /// same releases, so gridding them gives oracle selection no extra draws of the users'
    /// noise.
    Curator,
}

/// The declaration of one method parameter.
#[derive(Debug, Clone)]
pub struct ParamDecl {
    /// Name used in specs (the papers' terms: depth, min_leaf, rho, …).
    pub name: &'static str,
    /// Structural, release or curator-side (see [`ParamRole`]).
    pub role: ParamRole,
    /// Accepted values.
    pub kind: ParamKind,
    /// The default in its YAML text form (parsed with [`ParamValue::parse`]), or None
    /// when a spec must give it.
    pub default: Option<&'static str>,
    /// One line for `dp-repro list methods`.
    pub doc: &'static str,
}

/// Every parameter of `decls`, in declaration order: its value in `set` when there is one,
/// else its default, else [`ParamKind::example`] (a whole grid point for a test or an
/// audit that builds a method outside a spec).
pub fn complete_point(decls: &[ParamDecl], set: &[(&str, ParamValue)]) -> Params {
    Params(
        decls
            .iter()
            .map(|d| {
                let v = match set.iter().find(|(k, _)| *k == d.name) {
                    Some((_, v)) => v.clone(),
                    None => d
                        .default
                        .map_or_else(|| d.kind.example(), ParamValue::parse),
                };
                (d.name.to_string(), v)
            })
            .collect(),
    )
}

impl ParamDecl {
    /// Whether the parameter shapes the partition ([`ParamRole::Structural`]).
    pub fn structural(&self) -> bool {
        self.role == ParamRole::Structural
    }
}

/// A grid point: parameter name → value, in the method's declaration order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Params(pub Vec<(String, ParamValue)>);

impl Params {
    /// The value of `name`.
    ///
    /// # Panics
    /// If the parameter is absent: validation fills every declared parameter, so this is
    /// a programming error.
    pub fn get(&self, name: &str) -> &ParamValue {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
            .unwrap_or_else(|| panic!("parameter {name} missing from grid point"))
    }

    /// `name` as f64.
    pub fn f64(&self, name: &str) -> f64 {
        self.get(name).as_f64().expect("numeric parameter")
    }

    /// `name` as usize.
    pub fn usize(&self, name: &str) -> usize {
        match self.get(name) {
            ParamValue::Int(i) => *i as usize,
            v => panic!("parameter {name} is not an integer: {v}"),
        }
    }

    /// `name` as bool.
    pub fn bool(&self, name: &str) -> bool {
        matches!(self.get(name), ParamValue::Bool(true))
    }

    /// `name` as a string choice.
    pub fn str(&self, name: &str) -> &str {
        match self.get(name) {
            ParamValue::Str(s) => s,
            v => panic!("parameter {name} is not a name: {v}"),
        }
    }

    /// Concatenation of two grid points (structural first).
    pub fn join(&self, other: &Params) -> Params {
        let mut v = self.0.clone();
        v.extend(other.0.iter().cloned());
        Params(v)
    }

    /// The canonical text `name=value;…` used in runs.csv and selected.csv.
    pub fn key(&self) -> String {
        self.0
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(";")
    }

    /// The key of what the users release at this grid point: [`Params::key`] without the
    /// curator-side parameters of `decls` ([`ParamRole::Curator`]). The users' noise
    /// streams are keyed on it, so grid points that differ only in what the curator
    /// computes share their releases.
    pub fn release_key(&self, decls: &[ParamDecl]) -> String {
        let curator = |k: &str| {
            decls
                .iter()
                .any(|d| d.name == k && d.role == ParamRole::Curator)
        };
        self.0
            .iter()
            .filter(|(k, _)| !curator(k))
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(";")
    }

    /// Parses the text written by [`Params::key`].
    pub fn parse_key(s: &str) -> Params {
        Params(
            s.split(';')
                .filter(|p| !p.is_empty())
                .filter_map(|p| p.split_once('='))
                .map(|(k, v)| (k.to_string(), ParamValue::parse(v)))
                .collect(),
        )
    }
}
