//! Every place in `src/` that reads the private rows themselves (docs/architecture.md,
//! "Typed data flow"): each call `.escape(Escape::Reason …)` of
//! `dp_repro::data::PrivateRows`, by file, enclosing function and reason, must be listed in
//! [`ESCAPES`] with a sentence saying why it is allowed. A new call site, a call site whose
//! reason changed, or a listed one that is gone fails the test, saying what to write. The
//! crate's own tests (`#[cfg(test)]` and below) and the integration tests are not scanned.

use std::collections::BTreeMap;
use std::path::Path;

/// (file below the crate root, enclosing function as `Type::function` or `function`,
/// reason variant, why it is allowed). One entry per call site: a function that escapes
/// twice for the same reason is listed twice.
const ESCAPES: &[(&str, &str, &str, &str)] = &[
    // The runner.
    (
        "src/run/repetition.rs",
        "finish_repetition",
        "LabelBoundsPrivateTrain",
        "`label_bounds: private_train` (the authors' code) takes the clipping range from the private labels; the escape records it on the ledger.",
    ),
    (
        "src/run/point.rs",
        "tuning_data",
        "Validation",
        "cv folds and the private-validation split hold out private users as the scored part; under private_validation each releases its clipped loss with Laplace noise.",
    ),
    (
        "src/run/point.rs",
        "user_split_data",
        "Validation",
        "user_split holds out each candidate's share of the validation users as its scored part; each releases one clipped loss with Laplace noise at the column's epsilon.",
    ),
    // The end-to-end audit, the tester.
    (
        "src/audit/e2e.rs",
        "Base::new",
        "AuditNeighbours",
        "the end-to-end audit subsamples a synthetic repetition's private users to build its neighbouring data sets; it is the tester, not a method, and releases nothing.",
    ),
    // Deliberate slips of the privacy mutation suite (compiled only with the
    // `privacy-mutants` feature): the typed flow lets each be written only through an escape
    // that names it, here.
    (
        "src/run/repetition.rs",
        "finish_repetition",
        "Slip",
        "slip label-bounds-from-all-train-labels: the public label range taken over the pooled labels.",
    ),
    (
        "src/methods/compose/composed.rs",
        "Composed::prepare_shared",
        "Slip",
        "slip partition-on-public-and-private: a partition declared public grown on pooled rows.",
    ),
    // Non-private baselines.
    (
        "src/methods/compose/composed.rs",
        "Composed::prepare_shared",
        "NotPrivate",
        "`grown_on: private` (DT): validation allows a tree on private rows only without mechanisms.",
    ),
    (
        "src/methods/compose/composed.rs",
        "Composed::prepare_shared",
        "NotPrivate",
        "`grown_on: public_and_private` (CT-W): the pooled tree, again only in a method without mechanisms.",
    ),
    (
        "src/methods/diprime_baselines.rs",
        "SklearnForest::prepare",
        "NotPrivate",
        "RF and ERT are the DiPriMe paper's non-private references.",
    ),
    (
        "src/methods/compose/forest.rs",
        "PreparedForest::train",
        "NotPrivate",
        "a forest composition with an exact median or argmin attribute is non-private.",
    ),
    (
        "src/methods/compose/forest.rs",
        "PreparedForest::ranges",
        "NotPrivate",
        "the root ranges of a non-private forest.",
    ),
    // Central DP: the curator reads the rows through its mechanisms.
    (
        "src/methods/compose/forest.rs",
        "PreparedForest::train",
        "CentralCurator",
        "the DiPriMe forests' curator holds the training rows; medians, attributes and leaves are drawn by mechanisms that charge the rows they read.",
    ),
    (
        "src/methods/diprime_baselines.rs",
        "DpRfMethod::prepare",
        "CentralCurator",
        "DP-RF's curator checks the label codes and takes n for the depth rule before its mechanisms read the rows.",
    ),
    (
        "src/methods/diprime_baselines.rs",
        "DpDfMethod::prepare",
        "CentralCurator",
        "DP-DF's curator checks the label codes and takes n for the height rule before its mechanisms read the rows.",
    ),
    (
        "src/methods/diprime_baselines.rs",
        "coded_rep",
        "CentralCurator",
        "the binned training rows and labels that DP-RF's and DP-DF's mechanisms read.",
    ),
    // Central DP's known data dependences, recorded by the escape.
    (
        "src/methods/compose/forest.rs",
        "PreparedForest::ranges",
        "RootRanges",
        "`ranges: full_data` or `train`: root ranges and category lists from the training rows (DiPriMe card §3.1), recorded on the ledger.",
    ),
    (
        "src/methods/diprime_baselines.rs",
        "coded_rep",
        "BinEdges",
        "DP-RF's and DP-DF's 5-bin edges from the training and test rows (card §4.7), recorded on the ledger.",
    ),
    // Local and semi-feature users' own releases.
    (
        "src/methods/deconv.rs",
        "Deconv::prepare",
        "UserRelease",
        "each DECONV user releases its own x and clipped y with Laplace noise (`release`).",
    ),
    (
        "src/methods/pglm.rs",
        "Pglm::prepare",
        "UserRelease",
        "each PGLM user releases its own x x' and x y with Gaussian noise; the sums are what the users' releases add up to.",
    ),
    (
        "src/methods/psgd.rs",
        "Psgd::prepare",
        "UserRelease",
        "each PSGD user privatizes the gradient at its own record with PrivUnitG.",
    ),
    (
        "src/methods/krr.rs",
        "Krr::prepare",
        "UserRelease",
        "each KRR user releases its private coordinates by k-RR, its public ones in the clear and its clipped label with Laplace noise.",
    ),
    (
        "src/methods/pardt.rs",
        "ParDt::prepare",
        "UserRelease",
        "each ParDT user sends the coordinates its mask declares public in the clear and its clipped label with Laplace noise.",
    ),
    (
        "src/methods/pardt.rs",
        "LabelDt::prepare",
        "UserRelease",
        "label LDP: each LabelDT user sends its features in the clear and its clipped label with Laplace noise.",
    ),
    (
        "src/methods/compose/semi_feature.rs",
        "prepare",
        "UserRelease",
        "each HistOfTree user sends its public coordinates in the clear and its histogram cell through the cell mechanism (its label enters as a clipped release input).",
    ),
    // A declared data dependence of a local-DP method.
    (
        "src/methods/compose/mixture.rs",
        "mixture",
        "PartitionSet",
        "`grown_on: mixture` (non_private_users): the partition set's private users in the clear, charged ε = ∞ and recorded on the ledger.",
    ),
];

/// One call of the escape found in the source.
#[derive(Debug, Clone, PartialEq)]
struct Site {
    /// Path below the crate root, with `/`.
    file: String,
    /// 1-based line of the call.
    line: usize,
    /// `Type::function` or `function`.
    label: String,
    /// The `Escape` variant.
    reason: String,
}

/// Leading spaces of `line`.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The function name a line declares (`fn name(`, with any visibility or qualifiers).
fn fn_name(line: &str) -> Option<String> {
    let mut rest = line.trim_start();
    for prefix in [
        "pub(crate) ",
        "pub(super) ",
        "pub ",
        "const ",
        "async ",
        "unsafe ",
    ] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let rest = rest.strip_prefix("fn ")?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The type an `impl` header is for, or the trait a `trait` header declares.
fn container(line: &str) -> Option<String> {
    let code = line.trim_start();
    let header = code.split('{').next().unwrap_or(code);
    let target = if let Some(rest) = header.strip_prefix("impl") {
        match rest.rfind(" for ") {
            Some(i) => &rest[i + " for ".len()..],
            None => skip_generics(rest),
        }
    } else {
        let rest = header.strip_prefix("pub ").unwrap_or(header);
        rest.strip_prefix("trait ")?
    };
    let name: String = target
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// `text` after a leading generic parameter list `<…>`, if any.
fn skip_generics(text: &str) -> &str {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ if depth == 0 && !c.is_whitespace() => return &text[i..],
            _ => {}
        }
    }
    ""
}

/// The label of the function enclosing line `at` (0-based) of `lines`: the nearest
/// function declared above it, with the type of its `impl` (or its trait) when it is a
/// method. Reads rustfmt-formatted code: a block's opener is the nearest line above with
/// less indentation.
fn label_at(lines: &[&str], at: usize) -> String {
    let Some((f, name)) = (0..=at)
        .rev()
        .find_map(|i| fn_name(lines[i]).map(|n| (i, n)))
    else {
        return "(no function)".into();
    };
    let depth = indent(lines[f]);
    let opener = (0..f).rev().find(|&i| {
        let l = lines[i].trim_start();
        !l.is_empty()
            && !l.starts_with("//")
            && !l.starts_with("#[")
            && !l.starts_with('}')
            && indent(lines[i]) < depth
    });
    match opener.and_then(|i| container(lines[i])) {
        Some(t) => format!("{t}::{name}"),
        None => name,
    }
}

/// The escape calls of one file's code (`text`, path `file`): everything before its first
/// `#[cfg(test)]`, comment lines skipped.
///
/// # Errors
/// A call whose reason is not written at the call as `Escape::Variant`.
fn sites(file: &str, text: &str) -> Result<Vec<Site>, String> {
    let code = match text.find("\n#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (at, _) in code.match_indices(".escape(") {
        let line = code[..at].matches('\n').count();
        if lines[line].trim_start().starts_with("//") {
            continue;
        }
        let after = code[at + ".escape(".len()..].trim_start();
        let Some(rest) = after.strip_prefix("Escape::") else {
            return Err(format!(
                "{file}:{}: the escape's reason must be written at the call as `.escape(Escape::Reason …)`, so that this test can read it",
                line + 1
            ));
        };
        let reason: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        out.push(Site {
            file: file.to_string(),
            line: line + 1,
            label: label_at(&lines, line),
            reason,
        });
    }
    Ok(out)
}

/// Every `.rs` file below `dir`, as (path relative to `root` with `/`, text), sorted.
fn sources(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let relative = path.strip_prefix(root).expect("below the crate root");
            let name = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            out.push((name, text));
        }
    }
}

/// What differs between the call sites `found` and the list `listed`, one message per
/// difference (empty when they agree).
fn differences(found: &[Site], listed: &[(&str, &str, &str, &str)]) -> Vec<String> {
    type Key = (String, String, String);
    let mut count: BTreeMap<Key, (usize, usize)> = BTreeMap::new();
    for s in found {
        let key = (s.file.clone(), s.label.clone(), s.reason.clone());
        count.entry(key).or_default().0 += 1;
    }
    for (file, label, reason, _) in listed {
        let key = (file.to_string(), label.to_string(), reason.to_string());
        count.entry(key).or_default().1 += 1;
    }
    let mut out = Vec::new();
    for ((file, label, reason), &(n_found, n_listed)) in &count {
        if n_found > n_listed {
            let lines: Vec<String> = found
                .iter()
                .filter(|s| (&s.file, &s.label, &s.reason) == (file, label, reason))
                .map(|s| s.line.to_string())
                .collect();
            let before: Vec<&str> = count
                .iter()
                .filter(|((f, l, r), &(nf, nl))| f == file && l == label && r != reason && nl > nf)
                .map(|((_, _, r), _)| r.as_str())
                .collect();
            let what = if before.is_empty() {
                "a new escape".to_string()
            } else {
                format!(
                    "an escape whose reason changed from Escape::{} to Escape::{reason}: update that entry (and its sentence) instead of adding one",
                    before.join(" or Escape::")
                )
            };
            out.push(format!(
                "{file}:{} in `{label}`: {what}; if it is right, list it in ESCAPES of tests/private_escapes.rs ({} more):\n    (\"{file}\", \"{label}\", \"{reason}\", \"<why the rows may be read here, in one sentence>\"),",
                lines.join(","),
                n_found - n_listed
            ));
        } else if n_listed > n_found {
            out.push(format!(
                "listed in ESCAPES but not found ({} of {n_listed} missing): ({file}, {label}, Escape::{reason}); remove the entry if the escape is gone",
                n_listed - n_found
            ));
        }
    }
    out
}

#[test]
fn every_escape_of_the_private_rows_is_listed_with_its_reason() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(root, &root.join("src"), &mut files);
    assert!(files.len() > 100, "read only {} files", files.len());
    let mut found = Vec::new();
    let mut unreadable = Vec::new();
    for (file, text) in &files {
        match sites(file, text) {
            Ok(s) => found.extend(s),
            Err(e) => unreadable.push(e),
        }
    }
    assert!(unreadable.is_empty(), "{}", unreadable.join("\n"));
    let diff = differences(&found, ESCAPES);
    assert!(
        diff.is_empty(),
        "the escapes of the private rows differ from the list:\n{}",
        diff.join("\n")
    );
    for (file, label, reason, why) in ESCAPES {
        assert!(
            why.ends_with('.') && why.len() > 20,
            "{file} {label} {reason}: say why in a sentence"
        );
    }
}

#[test]
fn the_scanner_reads_labels_and_reasons_and_refuses_a_hidden_reason() {
    let text = "\
use crate::data::Escape;

/// Reads `x.escape(Escape::Bookkeeping)` in a comment: not a call.
pub fn free(data: &RepData) {
    let a = data
        .private
        .escape(Escape::LabelBoundsPrivateTrain {
            dataset: \"d\",
        });
}

impl<K: Clone> Prepared for PreparedGrid<K> {
    fn predict(&self) {
        // self.rows.escape(Escape::NotPrivate) in a comment
        let rows = || self.rows.escape(Escape::RootRanges { ranges: \"train\" });
    }
}

impl Composed {
    pub(super) fn grow(&self) {
        self.private.escape(Escape::NotPrivate);
    }
}

#[cfg(test)]
mod tests {
    fn t() {
        rows.escape(Escape::Bookkeeping);
    }
}
";
    let got: Vec<(String, usize, String)> = sites("src/x.rs", text)
        .unwrap()
        .into_iter()
        .map(|s| (s.label, s.line, s.reason))
        .collect();
    assert_eq!(
        got,
        [
            ("free".to_string(), 7, "LabelBoundsPrivateTrain".to_string()),
            ("PreparedGrid::predict".into(), 15, "RootRanges".into()),
            ("Composed::grow".into(), 21, "NotPrivate".into()),
        ]
    );
    let hidden = "fn f() {\n    let why = Escape::NotPrivate;\n    rows.escape(why);\n}\n";
    let e = sites("src/y.rs", hidden).unwrap_err();
    assert!(e.starts_with("src/y.rs:3:"), "{e}");
}

#[test]
fn a_new_a_changed_and_a_vanished_escape_are_each_reported() {
    let site = |label: &str, reason: &str| Site {
        file: "src/m.rs".into(),
        line: 9,
        label: label.into(),
        reason: reason.into(),
    };
    let listed: &[(&str, &str, &str, &str)] = &[
        ("src/m.rs", "a", "NotPrivate", "A baseline."),
        ("src/m.rs", "b", "UserRelease", "A user's release."),
        ("src/m.rs", "c", "CentralCurator", "The curator."),
    ];
    let found = [
        site("a", "NotPrivate"),
        site("b", "CentralCurator"),
        site("d", "Bookkeeping"),
    ];
    let diff = differences(&found, listed);
    assert_eq!(diff.len(), 4, "{diff:#?}");
    assert!(diff.iter().any(|m| m.contains("`b`")
        && m.contains("reason changed from Escape::UserRelease to Escape::CentralCurator")));
    assert!(diff
        .iter()
        .any(|m| m.contains("`d`: a new escape")
            && m.contains("(\"src/m.rs\", \"d\", \"Bookkeeping\"")));
    assert!(diff
        .iter()
        .any(|m| m.starts_with("listed in ESCAPES but not found")
            && m.contains("c, Escape::CentralCurator")));
    assert!(differences(&found[..1], &listed[..1]).is_empty());
}
