//! The spec as a results folder keeps it: self-contained, so `dp-repro table`, `check
//! --results` and `merge` work on the folder from any working directory; and the hashes
//! that say whether two specs are the same experiment.
//!
//! A resolved spec is the spec's YAML with every file it references made independent of
//! where the spec lay: `reported:` and `claims:` sections given as file paths are inlined;
//! the reported CSV files (and the CSV of a figure's or a table's `reported`) are copied into
//! the folder's `reported/` and named relative to it; inline data paths and the golden file become absolute paths; the manifests of the
//! spec's data sets are written into the folder's `datasets/` (they are searched there
//! first). Comments are dropped; the original text is kept beside it as
//! `spec.source.yaml`.

use super::{Experiment, SpecError};
use crate::data::Manifest;
use serde_yaml::{Mapping, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Top-level fields that do not change any row of runs.csv: what is rendered or compared
/// from the rows, and the repetition count (more repetitions extend the same rows).
pub const PRESENTATION_FIELDS: [&str; 10] = [
    "tables",
    "figures",
    "curves",
    "leaf_occupancy",
    "reported",
    "claims",
    "golden",
    "significance",
    "description",
    "repetitions",
];

/// A spec made self-contained for a results folder (see the module documentation).
#[derive(Debug, Clone)]
pub struct ResolvedSpec {
    /// The resolved spec, as written to `<results>/spec.yaml`.
    pub value: Value,
    /// Files to copy into the results folder: (source path, path relative to the folder).
    pub copies: Vec<(PathBuf, PathBuf)>,
    /// The manifests of the spec's data sets, written to `<results>/datasets/<name>.yaml`.
    pub manifests: Vec<Manifest>,
}

impl ResolvedSpec {
    /// The YAML text of `spec.yaml`, with a header comment saying where it came from.
    pub fn text(&self, source: &Path) -> String {
        format!(
            "# Resolved by dp-repro from {} (original text: spec.source.yaml): referenced\n\
             # files are inlined, copied into this folder or named by absolute path.\n{}",
            source.display(),
            serde_yaml::to_string(&self.value).expect("a YAML value serializes")
        )
    }

    /// [`content_hash`] of the resolved spec.
    pub fn content_hash(&self) -> String {
        content_hash(&self.value)
    }

    /// [`computed_hash`] of the resolved spec.
    pub fn computed_hash(&self) -> String {
        computed_hash(&self.value)
    }
}

/// Resolves the spec `exp` was validated from (`text`, the file's content; paths in it are
/// relative to `exp.path`'s folder, paths inside a referenced section file to that file).
///
/// # Errors
/// [`SpecError::Yaml`] if `text` is not YAML, [`SpecError::Io`] or [`SpecError::Yaml`] for
/// a referenced section file that cannot be read or parsed (naming it). A spec that
/// validated does not fail here unless its files changed in between.
pub fn resolve(exp: &Experiment, text: &str) -> Result<ResolvedSpec, SpecError> {
    let spec_dir = exp.path.parent().unwrap_or(Path::new("")).to_path_buf();
    let mut value: Value = super::parse_yaml(text, &exp.path)?;
    let mut copies = Vec::new();
    if let Value::Mapping(top) = &mut value {
        if let Some(section) = top.get_mut("reported") {
            let (mut inline, base) = inline_section(section, &spec_dir)?;
            if let Some(Value::Sequence(files)) = inline.get_mut("files") {
                for f in files.iter_mut() {
                    if let Value::String(s) = f {
                        *s = copy_to_reported(&mut copies, base.join(&*s));
                    }
                }
            }
            // The authors' code's values (`reported.authors_code.file`): copied like the
            // reported files, so a results folder's spec.yaml checks on its own.
            if let Some(Value::Mapping(a)) = inline.get_mut("authors_code") {
                if let Some(Value::String(s)) = a.get_mut("file") {
                    *s = copy_to_reported(&mut copies, base.join(&*s));
                }
            }
            *section = inline;
        }
        // Figures' overlays of digitized paper curves and the paper's values printed
        // beside a table's: copied like reported files.
        for list in ["figures", "tables"] {
            if let Some(Value::Sequence(entries)) = top.get_mut(list) {
                for f in entries.iter_mut() {
                    if let Some(Value::Mapping(overlay)) = f.get_mut("reported") {
                        if let Some(Value::String(s)) = overlay.get_mut("file") {
                            let src = spec_dir.join(&*s);
                            *s = match copies.iter().find(|(from, _)| *from == src) {
                                Some((_, dest)) => dest.to_string_lossy().into_owned(),
                                None => copy_to_reported(&mut copies, src),
                            };
                        }
                    }
                }
            }
        }
        if let Some(section) = top.get_mut("claims") {
            *section = inline_section(section, &spec_dir)?.0;
        }
        if let Some(Value::Mapping(golden)) = top.get_mut("golden") {
            absolutize(golden, "file", &spec_dir);
        }
        if let Some(Value::Sequence(datasets)) = top.get_mut("datasets") {
            for d in datasets.iter_mut() {
                if let Value::Mapping(m) = d {
                    absolutize(m, "path", &spec_dir);
                }
            }
        }
    }
    let mut manifests: Vec<Manifest> = Vec::new();
    for plan in &exp.datasets {
        let used: Vec<&Manifest> = match &plan.source {
            super::DataSource::Manifest(m) => vec![m],
            super::DataSource::Pair { public, private } => vec![public, private],
            super::DataSource::Rule { manifest, .. }
            | super::DataSource::Sample { manifest, .. } => vec![manifest],
            _ => Vec::new(),
        };
        for m in used {
            if !manifests.iter().any(|k| k.name == m.name) {
                manifests.push(m.clone());
            }
        }
    }
    Ok(ResolvedSpec {
        value,
        copies,
        manifests,
    })
}

/// A section given as a path (a string) read and parsed, with the folder its own paths
/// are relative to; an inline section as it is, relative to `spec_dir`.
fn inline_section(section: &Value, spec_dir: &Path) -> Result<(Value, PathBuf), SpecError> {
    match section {
        Value::String(rel) => {
            let path = spec_dir.join(rel);
            let text = std::fs::read_to_string(&path).map_err(|source| SpecError::Io {
                path: path.clone(),
                source,
            })?;
            let value: Value = super::parse_yaml(&text, &path)?;
            let base = path.parent().unwrap_or(Path::new("")).to_path_buf();
            Ok((value, base))
        }
        other => Ok((other.clone(), spec_dir.to_path_buf())),
    }
}

/// Records that `src` is copied to [`unique_destination`] in the results folder and
/// returns that path, as the resolved spec names it.
fn copy_to_reported(copies: &mut Vec<(PathBuf, PathBuf)>, src: PathBuf) -> String {
    let dest = unique_destination(copies, &src);
    let text = dest.to_string_lossy().into_owned();
    copies.push((src, dest));
    text
}

/// `reported/<file name>` for `src`, numbered (`reported/2-<file name>`) when another copy
/// already took that name.
fn unique_destination(copies: &[(PathBuf, PathBuf)], src: &Path) -> PathBuf {
    let name = src
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "reported.csv".into());
    let mut dest = Path::new("reported").join(&name);
    let mut k = 2;
    while copies.iter().any(|(_, d)| *d == dest) {
        dest = Path::new("reported").join(format!("{k}-{name}"));
        k += 1;
    }
    dest
}

/// Replaces the relative path in `map[field]` by an absolute one (relative to `dir`).
fn absolutize(map: &mut Mapping, field: &str, dir: &Path) {
    if let Some(Value::String(s)) = map.get_mut(field) {
        let joined = dir.join(&*s);
        let abs = std::fs::canonicalize(&joined)
            .or_else(|_| std::path::absolute(&joined))
            .unwrap_or(joined);
        *s = abs.to_string_lossy().into_owned();
    }
}

/// Hex SHA-256 of the canonical JSON of a YAML value (mapping keys sorted, comments and
/// formatting gone): two specs that differ only in comments, key order, quoting or layout
/// have the same content hash.
pub fn content_hash(value: &Value) -> String {
    hex::encode(Sha256::digest(canonical_json(value).to_string().as_bytes()))
}

/// [`content_hash`] of the parts of a spec that determine runs.csv: the spec without its
/// [`PRESENTATION_FIELDS`]. Results folders are guarded by it: a spec with another computed
/// hash would mix rows of another experiment into the folder.
pub fn computed_hash(value: &Value) -> String {
    content_hash(&computed_part(value))
}

/// The spec without its [`PRESENTATION_FIELDS`], the `reason` of each `skip` entry and the
/// table `label` of each inline data set (words printed in tables, not used by any task).
fn computed_part(value: &Value) -> Value {
    let mut v = value.clone();
    if let Value::Mapping(m) = &mut v {
        for f in PRESENTATION_FIELDS {
            m.remove(f);
        }
        for (list, field) in [("skip", "reason"), ("datasets", "label")] {
            if let Some(Value::Sequence(items)) = m.get_mut(list) {
                for item in items {
                    if let Value::Mapping(entry) = item {
                        entry.remove(field);
                    }
                }
            }
        }
    }
    v
}

/// The top-level fields whose values differ between two specs (in the order of `a`, then
/// the fields only `b` has), ignoring [`PRESENTATION_FIELDS`] when `computed_only`.
pub fn differing_fields(a: &Value, b: &Value, computed_only: bool) -> Vec<String> {
    let (a, b) = if computed_only {
        (computed_part(a), computed_part(b))
    } else {
        (a.clone(), b.clone())
    };
    let empty = Mapping::new();
    let (ma, mb) = (
        a.as_mapping().unwrap_or(&empty),
        b.as_mapping().unwrap_or(&empty),
    );
    let key = |k: &Value| {
        k.as_str()
            .map(str::to_string)
            .unwrap_or_else(|| format!("{k:?}"))
    };
    let mut out = Vec::new();
    for (k, va) in ma {
        if mb.get(k).map(canonical_json) != Some(canonical_json(va)) {
            out.push(key(k));
        }
    }
    for k in mb.keys() {
        if !ma.contains_key(k) {
            out.push(key(k));
        }
    }
    out
}

/// A YAML value as JSON with mapping keys in sorted order (non-string keys as their YAML
/// text), so its serialization is canonical.
fn canonical_json(value: &Value) -> serde_json::Value {
    match value {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Number(n) => serde_json::to_value(n).unwrap_or(serde_json::Value::Null),
        Value::String(s) => serde_json::Value::String(s.clone()),
        Value::Sequence(s) => serde_json::Value::Array(s.iter().map(canonical_json).collect()),
        Value::Mapping(m) => {
            let mut entries: Vec<(String, serde_json::Value)> = m
                .iter()
                .map(|(k, v)| {
                    let key = match k {
                        Value::String(s) => s.clone(),
                        other => serde_yaml::to_string(other)
                            .unwrap_or_default()
                            .trim_end()
                            .to_string(),
                    };
                    (key, canonical_json(v))
                })
                .collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            serde_json::Value::Object(entries.into_iter().collect())
        }
        Value::Tagged(t) => serde_json::json!({ t.tag.to_string(): canonical_json(&t.value) }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(s: &str) -> Value {
        serde_yaml::from_str(s).unwrap()
    }

    #[test]
    fn content_hash_ignores_comments_order_and_layout_but_not_values() {
        let a = yaml("name: x  # a comment\nseed: 1\nepsilons: [1, 2]\n");
        let b = yaml("# header\nseed: 1\nname: 'x'\nepsilons:\n  - 1\n  - 2\n");
        let c = yaml("name: x\nseed: 2\nepsilons: [1, 2]\n");
        assert_eq!(content_hash(&a), content_hash(&b));
        assert_ne!(content_hash(&a), content_hash(&c));
        assert_eq!(differing_fields(&a, &c, false), vec!["seed".to_string()]);
    }

    #[test]
    fn computed_hash_ignores_presentation_only() {
        let a = yaml("name: x\nseed: 1\ntables: [{name: t}]\nrepetitions: 5\nskip: [{method: M, datasets: [d], reason: r}]\n");
        let b = yaml("name: x\nseed: 1\ntables: [{name: u}]\nrepetitions: 50\ndescription: d\nskip: [{method: M, datasets: [d], reason: another}]\n");
        let c = yaml("name: x\nseed: 3\ntables: [{name: t}]\nrepetitions: 5\nskip: [{method: M, datasets: [d], reason: r}]\n");
        assert_eq!(computed_hash(&a), computed_hash(&b));
        assert_ne!(content_hash(&a), content_hash(&b));
        assert_ne!(computed_hash(&a), computed_hash(&c));
        assert_eq!(differing_fields(&a, &b, true), Vec::<String>::new());
        assert_eq!(differing_fields(&a, &c, true), vec!["seed".to_string()]);
    }
}
