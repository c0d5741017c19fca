//! What figures need to know about the experiment, for validating the `figures:` section
//! and for drawing it.

use std::path::{Path, PathBuf};

use crate::spec::Experiment;
use crate::yaml_word::yaml_word;

/// A method as figures see it.
#[derive(Debug, Clone)]
pub struct MethodInfo {
    /// Label (results' `method` column).
    pub label: String,
    /// Private methods have one result per ε; non-private ones a single result.
    pub private: bool,
    /// Grid parameters in declaration order, each with its values (as written in
    /// runs.csv's `params`) in grid order.
    pub params: Vec<(String, Vec<String>)>,
}

/// What figures need to know about the experiment.
#[derive(Debug, Clone)]
pub struct FigureContext {
    /// Data set names, in spec order.
    pub datasets: Vec<String>,
    /// The spec's ε grid.
    pub epsilons: Vec<f64>,
    /// The spec's methods.
    pub methods: Vec<MethodInfo>,
    /// True for MSE (lower is better), false for accuracy.
    pub lower_is_better: bool,
    /// The spec name (`best_mean`, …) of the selection rule behind `selected.csv`, quoted
    /// in subtitles.
    pub selection: String,
    /// Sample sizes (public, private, test) of the synthetic data sets, by name.
    pub sizes: std::collections::BTreeMap<String, [usize; 3]>,
    /// The folder of the spec file, against which overlay files are resolved.
    pub base: PathBuf,
}

impl FigureContext {
    /// The context of a validated experiment.
    pub fn from_experiment(exp: &Experiment) -> Self {
        let methods = exp
            .methods
            .iter()
            .map(|m| {
                let mut params: Vec<(String, Vec<String>)> = Vec::new();
                for p in m.structural.iter().chain(m.mechanism.iter()) {
                    for (k, v) in &p.0 {
                        let v = v.to_string();
                        match params.iter_mut().find(|(name, _)| name == k) {
                            Some((_, vs)) => {
                                if !vs.contains(&v) {
                                    vs.push(v)
                                }
                            }
                            None => params.push((k.clone(), vec![v])),
                        }
                    }
                }
                MethodInfo {
                    label: m.label.clone(),
                    private: m.method.private(),
                    params,
                }
            })
            .collect();
        // The spec name of the rule behind selected.csv: the only rule, or the first of a
        // list (the others write selected-<rule>.csv).
        let selection = match serde_yaml::to_value(&exp.selection) {
            Ok(serde_yaml::Value::Sequence(seq)) => seq.first().map(yaml_word).unwrap_or_default(),
            Ok(v) => yaml_word(&v),
            Err(_) => String::new(),
        };
        let sizes = exp
            .datasets
            .iter()
            .filter_map(|d| Some((d.name.clone(), d.source.synthetic_sizes()?)))
            .collect();
        FigureContext {
            sizes,
            base: exp.path.parent().unwrap_or(Path::new("")).to_path_buf(),
            datasets: exp.datasets.iter().map(|d| d.name.clone()).collect(),
            epsilons: exp.epsilons.clone(),
            methods,
            lower_is_better: exp.lower_is_better(),
            selection,
        }
    }

    /// The method labelled `label`, if the experiment has one.
    pub fn method(&self, label: &str) -> Option<&MethodInfo> {
        self.methods.iter().find(|m| m.label == label)
    }
}
