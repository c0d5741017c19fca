//! Every audited part of every private method in the papers' specs is held against the
//! papers' own budget statement (`dp_repro::audit::claims::paper_claim`, docs/audit.md "The
//! paper's claim, not the code's"), not against the runner's budget functions: a part
//! without a row there would let a slip in a budget function move its claim with it.
//! And a row that disagrees with a faithful method's own claim where the two must agree
//! (the local methods' shares) is a wrong row.

mod common;

use dp_repro::audit::claims::paper_claim;
use dp_repro::audit::table::cases_for;
use dp_repro::audit::AuditContext;
use dp_repro::methods::Params;
use dp_repro::spec::{parse_file, validate};

#[test]
fn every_audited_part_of_the_papers_specs_has_a_paper_claim() {
    let root = common::root();
    let dirs = dp_repro::data::default_manifest_dirs();
    let ctx = AuditContext::default();
    let mut parts = 0;
    let mut missing = Vec::new();
    for paper in ["lpdt", "lpct", "histoftree", "diprime"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join("specs").join(paper))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
            .collect();
        files.sort();
        for path in files {
            let (parsed, _) =
                parse_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let exp = validate(parsed, &path, &dirs)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            for plan in exp.methods.iter().filter(|p| p.method.private()) {
                let structural = plan.structural.first().cloned().unwrap_or_default();
                let mechanism = plan.mechanism.first().cloned().unwrap_or_default();
                let point: Params = structural.join(&mechanism);
                let eps = exp.epsilons[0];
                let Ok(Some(cases)) = cases_for(plan.method.as_ref(), &point, eps, &ctx) else {
                    continue;
                };
                for case in cases {
                    parts += 1;
                    if paper_claim(plan.method.as_ref(), &point, eps, &case.part, &ctx).is_none() {
                        missing.push(format!(
                            "{}: {} · {}",
                            path.file_name().unwrap().to_string_lossy(),
                            plan.label,
                            case.part
                        ));
                    }
                }
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(parts > 100, "only {parts} audited parts found");
    assert!(
        missing.is_empty(),
        "parts without a paper claim: {missing:#?}"
    );
}
