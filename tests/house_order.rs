//! The folders of `src/` stand on floors (docs/architecture.md, "The folders of `src/`"):
//! every `crate::` path in a folder's code names a folder on a lower floor, so there is
//! no import circle and no arrow back up. A new folder has to be placed on a floor here.

use std::collections::BTreeSet;
use std::path::Path;

/// The floors, lowest first. A room (a folder of `src/`, or a module file directly in
/// it) may import rooms of lower floors only; rooms of one floor import none of each
/// other. `privacy` is the privacy crate, re-exported as `crate::privacy`.
const FLOORS: &[&[&str]] = &[
    &[
        "privacy",
        "seeds",
        "csv_table",
        "run_row",
        "suggest",
        "schema_parts",
        "yaml_word",
        "stats",
    ],
    &["yaml_error"],
    &["data"],
    &["partition"],
    &["estimate"],
    &["forest"],
    &["methods"],
    &["spec"],
    &["report"],
    &["run"],
    &["audit"],
    &["check"],
    &["cli"],
];

/// The floor of `room`, if it has one.
fn floor(room: &str) -> Option<usize> {
    FLOORS.iter().position(|f| f.contains(&room))
}

/// The room a file of `src/` belongs to: `run/table/rows.rs` → `run`, `seeds.rs` → `seeds`;
/// `None` for the crate roots `lib.rs` and `main.rs`, which only declare and call.
fn room(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    match first.strip_suffix(".rs") {
        Some("lib" | "main") => None,
        Some(module) => Some(module.to_string()),
        None => Some(first.to_string()),
    }
}

/// The rooms named by `crate::` paths in the code of `text`: comment lines are skipped
/// and reading stops at the first `#[cfg(test)]` (a file's tests, which may reach
/// anywhere).
fn imports(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("#[cfg(test)]") {
            break;
        }
        if code.starts_with("//") {
            continue;
        }
        for (i, _) in line.match_indices("crate::") {
            let before = line[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // e.g. `dp_repro_crate::`, not this crate
            }
            let name: String = line[i + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

/// Every arrow that breaks the order, as `from → to (file)`: an import of a room on the
/// same or a higher floor, or of or from a room on no floor. `files` are (path relative
/// to `src/`, text).
fn violations(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (path, text) in files {
        let Some(from) = room(Path::new(path)) else {
            continue;
        };
        let Some(from_floor) = floor(&from) else {
            out.push(format!(
                "{from} ({path}) is on no floor; place it in FLOORS"
            ));
            continue;
        };
        for to in imports(text) {
            if to == from {
                continue;
            }
            match floor(&to) {
                None => out.push(format!("{from} → {to} ({path}): `{to}` is on no floor")),
                Some(f) if f >= from_floor => out.push(format!(
                    "{from} → {to} ({path}): floor {from_floor} imports floor {f}"
                )),
                Some(_) => {}
            }
        }
    }
    out
}

/// Every `.rs` file below `dir`, as (path relative to `root`, text).
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
            let relative = path.strip_prefix(root).expect("below src/");
            out.push((relative.to_string_lossy().into_owned(), text));
        }
    }
}

#[test]
fn every_import_of_src_points_down_a_floor() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    assert!(files.len() > 100, "read only {} files", files.len());
    let found = violations(&files);
    assert!(
        found.is_empty(),
        "arrows that break the floors:\n{}",
        found.join("\n")
    );
}

#[test]
fn an_arrow_up_sideways_or_to_an_unplaced_room_is_found() {
    let file = |path: &str, text: &str| vec![(path.to_string(), text.to_string())];
    // Down: fine, in code, in an attribute string, in a file at the crate root.
    for (path, text) in [
        ("run/mod.rs", "use crate::spec::Experiment;\n"),
        (
            "spec/raw.rs",
            "#[schemars(schema_with = \"crate::schema_parts::x\")]\n",
        ),
        ("seeds.rs", "use sha2::Sha256;\n"),
        ("lib.rs", "pub mod run;\nuse crate::cli;\n"),
        ("run/table/rows.rs", "use crate::run::seeds;\n"),
    ] {
        assert_eq!(
            violations(&file(path, text)),
            Vec::<String>::new(),
            "{path}"
        );
    }
    // Comments and tests do not count.
    let commented = "// see crate::run::seeds\n/// [`crate::check::x`]\n";
    assert!(violations(&file("methods/krr.rs", commented)).is_empty());
    let in_tests = "fn f() {}\n#[cfg(test)]\nmod tests { use crate::audit::x; }\n";
    assert!(violations(&file("methods/krr.rs", in_tests)).is_empty());
    // Up, sideways on one floor, and unplaced rooms on either side are each found.
    let up = violations(&file("methods/krr.rs", "use crate::run::seeds::stream;\n"));
    assert_eq!(up.len(), 1, "{up:?}");
    assert!(up[0].starts_with("methods → run"), "{up:?}");
    let nested = violations(&file(
        "data/encode/loader.rs",
        "    let x = crate::spec::suggest(a);\n",
    ));
    assert_eq!(nested.len(), 1, "{nested:?}");
    let sideways = violations(&file("seeds.rs", "use crate::stats::x;\n"));
    assert_eq!(sideways.len(), 1, "{sideways:?}");
    let unplaced_target = violations(&file("run/mod.rs", "use crate::newroom::x;\n"));
    assert!(
        unplaced_target[0].contains("`newroom` is on no floor"),
        "{unplaced_target:?}"
    );
    let unplaced_source = violations(&file("newroom/mod.rs", "use crate::data::x;\n"));
    assert!(
        unplaced_source[0].contains("newroom"),
        "{unplaced_source:?}"
    );
}

/// The files of the scheduler: splitting, running and recording a repetition.
const SCHEDULER: [&str; 5] = [
    "run/mod.rs",
    "run/repetition.rs",
    "run/point.rs",
    "run/units.rs",
    "run/records.rs",
];

/// The lines of the scheduler's `files` that name a privacy model or a kind of
/// per-repetition record: what a method reads per repetition comes through the method
/// (`Method::repetition_record`, its `prepare`), not through a case in the scheduler.
fn model_cases(files: &[(String, String)]) -> Vec<String> {
    let names = ["PrivacyModel", "MASK_RECORD", "mask_record", "mask_params"];
    let mut out = Vec::new();
    for (path, text) in files {
        if !SCHEDULER.contains(&path.as_str()) {
            continue;
        }
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if let Some(name) = names.iter().find(|n| code.contains(*n)) {
                out.push(format!("{path}:{}: {name}", i + 1));
            }
        }
    }
    out
}

#[test]
fn the_scheduler_names_no_privacy_model() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    let read = files
        .iter()
        .filter(|(p, _)| SCHEDULER.contains(&p.as_str()))
        .count();
    assert_eq!(read, SCHEDULER.len(), "a scheduler file moved");
    let found = model_cases(&files);
    assert!(
        found.is_empty(),
        "privacy-model cases in the scheduler:\n{}",
        found.join("\n")
    );
    // Seen red: a filter on the semi-feature model, as the scheduler once drew masks.
    let case = "    if m.method.privacy_model() == PrivacyModel::SemiFeature {\n";
    let injected = vec![("run/repetition.rs".to_string(), case.to_string())];
    assert_eq!(model_cases(&injected).len(), 1);
    let elsewhere = vec![("run/accounting.rs".to_string(), case.to_string())];
    assert!(
        model_cases(&elsewhere).is_empty(),
        "table notes may name models"
    );
}
