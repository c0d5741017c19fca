//! The JSON Schema of the spec format (`dp-repro schema`, `specs/spec.schema.json`):
//! the committed file is the command's output, every spec in `specs/` (and every section
//! file a spec names) validates against it, each spec points an editor at it on its
//! first line, and wrong specs (a misspelled field, a wrong type, an unknown word) fail
//! it as they fail parsing.

mod common;

use common::{dp_repro, root};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

/// The folders whose `*.yaml` files are experiment specs (method presets in
/// `specs/methods/` and sections in `specs/reported/` are not).
const SPEC_DIRS: [&str; 5] = [
    "specs",
    "specs/lpdt",
    "specs/lpct",
    "specs/histoftree",
    "specs/diprime",
];

const MODELINE: &str = "# yaml-language-server: $schema=";

fn committed_schema() -> Value {
    let text = fs::read_to_string(root().join("specs/spec.schema.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn spec_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in SPEC_DIRS {
        for e in fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "yaml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// YAML text as the JSON value a YAML language server validates.
fn yaml_to_json(text: &str, what: &Path) -> Value {
    serde_yaml::from_str(text).unwrap_or_else(|e| panic!("{}: {e}", what.display()))
}

/// The schema errors of `instance`, one line each (empty when it validates).
fn errors(schema: &Value, instance: &Value) -> Vec<String> {
    let v = jsonschema::validator_for(schema).expect("the schema compiles");
    v.iter_errors(instance)
        .map(|e| format!("at `{}`: {e}", e.instance_path()))
        .collect()
}

/// The schema of one of the root schema's definitions (`$defs/<name>`), with the
/// definitions it refers to.
fn definition(schema: &Value, name: &str) -> Value {
    assert!(
        schema["$defs"].get(name).is_some(),
        "no definition {name} in the schema"
    );
    serde_json::json!({
        "$schema": schema["$schema"],
        "$ref": format!("#/$defs/{name}"),
        "$defs": schema["$defs"],
    })
}

#[test]
fn the_committed_schema_is_the_commands_output() {
    let o = dp_repro(&["schema"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let printed = String::from_utf8(o.stdout).unwrap();
    let committed = fs::read_to_string(root().join("specs/spec.schema.json")).unwrap();
    assert!(
        printed == committed,
        "specs/spec.schema.json is stale: regenerate it with `dp-repro schema > specs/spec.schema.json`"
    );
    assert_eq!(printed, dp_repro::spec::schema::spec_schema_json());
    // A valid draft 2020-12 schema.
    let schema: Value = serde_json::from_str(&printed).unwrap();
    assert!(
        jsonschema::meta::is_valid(&schema),
        "the schema fails its meta-schema"
    );
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
}

#[test]
fn the_schema_command_is_documented() {
    let o = dp_repro(&["schema", "--help"]);
    assert!(o.status.success());
    let help = String::from_utf8(o.stdout).unwrap();
    assert!(help.contains("JSON Schema"), "{help}");
    assert!(
        help.contains("dp-repro schema > spec.schema.json"),
        "{help}"
    );
    let o = dp_repro(&["--help"]);
    assert!(String::from_utf8(o.stdout).unwrap().contains("schema"));
}

#[test]
fn every_spec_validates_and_names_the_schema() {
    let schema = committed_schema();
    let specs = spec_files();
    assert!(specs.len() >= 40, "found only {} specs", specs.len());
    let mut failures = Vec::new();
    for path in &specs {
        let text = fs::read_to_string(path).unwrap();
        // Each is a spec the parser accepts (so the schema is checked on real specs).
        dp_repro::spec::parse_str(&text, path).unwrap_or_else(|e| panic!("{e}"));
        let first = text.lines().next().unwrap_or("");
        match first.strip_prefix(MODELINE) {
            Some(rel) => {
                let target = path.parent().unwrap().join(rel);
                assert_eq!(
                    fs::canonicalize(&target).ok(),
                    fs::canonicalize(root().join("specs/spec.schema.json")).ok(),
                    "{}: the modeline names {rel}, not specs/spec.schema.json",
                    path.display()
                );
            }
            None => failures.push(format!(
                "{}: the first line is not `{MODELINE}<path of specs/spec.schema.json>`",
                path.display()
            )),
        }
        for e in errors(&schema, &yaml_to_json(&text, path)) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn section_files_validate_against_their_definitions() {
    // `reported:` and `claims:` may name a YAML file holding the section.
    let schema = committed_schema();
    let reported = definition(&schema, "ReportedSpec");
    let claims = serde_json::json!({
        "$schema": schema["$schema"],
        "type": "array",
        "items": { "$ref": "#/$defs/Claim" },
        "$defs": schema["$defs"],
    });
    let mut checked = 0;
    let mut failures = Vec::new();
    for path in spec_files() {
        let spec = yaml_to_json(&fs::read_to_string(&path).unwrap(), &path);
        for (field, section_schema) in [("reported", &reported), ("claims", &claims)] {
            let Some(Value::String(rel)) = spec.get(field) else {
                continue;
            };
            let file = path.parent().unwrap().join(rel);
            let text = fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{}: {field}: {e}", path.display()));
            for e in errors(section_schema, &yaml_to_json(&text, &file)) {
                failures.push(format!("{}: {e}", file.display()));
            }
            checked += 1;
        }
    }
    assert!(checked >= 5, "only {checked} section files checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The quickstart spec with `from` replaced by `to` (once).
fn quickstart_with(from: &str, to: &str) -> String {
    let text = fs::read_to_string(root().join("specs/quickstart.yaml")).unwrap();
    assert!(text.contains(from), "{from}");
    text.replacen(from, to, 1)
}

#[test]
fn wrong_specs_fail_the_schema_as_they_fail_parsing() {
    let schema = committed_schema();
    let base = fs::read_to_string(root().join("specs/quickstart.yaml")).unwrap();
    let path = Path::new("wrong.yaml");
    assert!(errors(&schema, &yaml_to_json(&base, path)).is_empty());
    let cases = [
        // A misspelled top-level field (the spec denies unknown fields).
        (
            "misspelled field",
            quickstart_with("repetitions:", "repetitons:"),
        ),
        // A misspelled field inside a method entry.
        (
            "misspelled nested field",
            quickstart_with("  - method: DT\n    grid:", "  - method: DT\n    gird:"),
        ),
        // Wrong types.
        (
            "seed as text",
            quickstart_with("seed: 20231", "seed: twenty"),
        ),
        ("negative seed", quickstart_with("seed: 20231", "seed: -1")),
        (
            "epsilons as text",
            quickstart_with("epsilons: [1, 2, 4, 8]\n", "epsilons: [one, two]\n"),
        ),
        (
            "repetitions as a list",
            quickstart_with("repetitions: 5", "repetitions: [5]"),
        ),
        // Words outside their enumeration.
        (
            "unknown selection",
            quickstart_with("selection: best_mean", "selection: bestmean"),
        ),
        (
            "unknown synthetic kind",
            quickstart_with("synthetic: lpdt_sine", "synthetic: lpdt_cosine"),
        ),
        (
            "unknown significance rule",
            quickstart_with("rule: better_than_rest", "rule: better"),
        ),
        (
            "unknown noise",
            quickstart_with(
                "selection: best_mean",
                "selection: best_mean\nnoise: {frozen: seven}",
            ),
        ),
        // A required field missing.
        ("no name", quickstart_with("name: quickstart\n", "")),
        // A table field misspelled.
        (
            "misspelled table field",
            quickstart_with("non_private: [DT]", "nonprivate: [DT]"),
        ),
        // A figure's legend word misspelled.
        (
            "unknown legend position",
            format!(
                "{}figures:\n  - {{name: f, x: epsilon, methods: [PHIST], legend: top_right}}\n",
                base
            ),
        ),
        // A composition with neither the local blocks nor a forest.
        (
            "composition without blocks",
            quickstart_with(
                "  - method: DT\n",
                "  - label: X\n    compose: {budget: rho}\n",
            ),
        ),
    ];
    for (what, text) in cases {
        let json = yaml_to_json(&text, path);
        assert!(
            !errors(&schema, &json).is_empty(),
            "{what}: the schema accepts a spec the parser rejects"
        );
        assert!(
            dp_repro::spec::parse_str(&text, path).is_err(),
            "{what}: the parser accepts it (the case is not wrong)"
        );
    }
}

#[test]
fn the_schema_is_as_strict_as_deny_unknown_fields() {
    // Every object definition that lists properties and denies unknown fields in Rust says
    // so in the schema: the spec itself, its entries and nested blocks.
    let schema = committed_schema();
    assert_eq!(schema["additionalProperties"], false);
    for name in [
        "MethodEntry",
        "InlineDataset",
        "TableEntry",
        "FigureSpec",
        "CurveEntry",
        "ReportedSpec",
        "KnownDeviation",
        "Tolerance",
        "PartitionBlock",
        "ForestBlock",
        "SplitEntry",
        "Tuning",
    ] {
        assert_eq!(
            schema["$defs"][name]["additionalProperties"], false,
            "{name} allows unknown fields"
        );
    }
    // Parsing accepts either form of each hand-written alternative; so does the schema.
    let spec = yaml_to_json(
        &quickstart_with(
            "selection: best_mean",
            "selection: [best_mean, cv]\nnoise: {frozen: 7}\nlabel_bounds: {fixed: {lo: -4, hi: 4}}",
        ),
        Path::new("ok.yaml"),
    );
    assert_eq!(errors(&schema, &spec), Vec::<String>::new());
}
