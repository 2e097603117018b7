//! Bevy's shader trees as users bring them: 0.20.1's WESL and 0.19.1's
//! naga_oil WGSL, one effect file per entry-point shader under
//! `corpus/effects/bevy-<version>`, with the defs and flag rules Bevy's Rust
//! code sets, each checked in every combination the rules allow. Each file
//! says on `#! ` lines (TOML) the slot plan Bevy's groups mean and, for an
//! expected failure, a part of the message and why. Any change in what
//! loads fails the test.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::run;

/// What an effect file's `#! ` lines say.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    plan: String,
    refused: Option<String>,
    reason: Option<String>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, suffix, out);
        } else if path.to_str().unwrap().ends_with(suffix) {
            out.push(path);
        }
    }
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root()).unwrap_or(path).to_str().unwrap().to_owned()
}

fn expected(text: &str, file: &str) -> Expected {
    let header = text.lines().filter_map(|l| l.strip_prefix("#! ")).collect::<Vec<_>>().join("\n");
    let e: Expected = toml::from_str(&header).unwrap_or_else(|e| panic!("{file}: its `#! ` lines: {e}"));
    assert_eq!(e.refused.is_some(), e.reason.is_some(), "{file}: `refused` and `reason` go together");
    e
}

#[test]
fn every_entry_point_of_bevy_0_20_1_has_an_effect_and_loads_or_is_a_listed_failure() {
    // Each above the check's 16,384: 38, 10 and 6.6 ms a combination here, 3.7 h, 8.7 h and 9 min in all.
    let sampled = [
        ("bevy_pbr/deferred_lighting", 350_208),
        ("bevy_pbr/meshlet_mesh_material", 3_145_832),
        ("bevy_pbr/prepass", 81_216),
    ];
    check_tree("0.20.1", ".wesl", &sampled);
}

#[test]
fn every_entry_point_of_bevy_0_19_1_has_an_effect_and_loads_or_is_a_listed_failure() {
    check_tree("0.19.1", ".wgsl", &[]);
}

/// `corpus/bevy-<version>`'s entry points (files of `suffix`) against the
/// effect files of `corpus/effects/bevy-<version>`; the effects the check
/// samples, with the combinations their rules allow, are `sampled`.
fn check_tree(version: &str, suffix: &str, sampled: &[(&str, u64)]) {
    let root = root();
    let (tree, effects_dir) = (format!("corpus/bevy-{version}"), format!("corpus/effects/bevy-{version}"));
    let mut effects = Vec::new();
    files(&root.join(&effects_dir), ".effect.toml", &mut effects);
    effects.sort();
    let texts = effects.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect::<Vec<_>>();

    // Every entry-point shader is the source or a stage of some effect.
    let mut shaders = Vec::new();
    files(&root.join(&tree), suffix, &mut shaders);
    let entry = |s: &String| ["@vertex", "@fragment", "@compute"].iter().any(|e| s.contains(e));
    let uncovered = shaders
        .iter()
        .filter(|s| entry(&std::fs::read_to_string(s).unwrap()))
        .map(|s| s.strip_prefix(root.join(&tree)).unwrap().to_str().unwrap().to_owned())
        .filter(|s| !texts.iter().any(|t| t.contains(&format!("bevy-{version}/{s}\""))))
        .collect::<Vec<_>>();
    assert!(uncovered.is_empty(), "entry points without an effect file: {uncovered:#?}");

    // Checked with `freqbuf effect --each`, one run per plan.
    let mut by_plan = BTreeMap::<String, Vec<(String, Expected)>>::new();
    for (file, text) in effects.iter().zip(&texts) {
        let name = relative(file);
        let e = expected(text, &name);
        by_plan.entry(e.plan.clone()).or_default().push((name, e));
    }
    let mut wrong = Vec::new();
    let (mut loaded, mut refused, mut permutations) = (0, 0, 0);
    let mut samples = Vec::new();
    for (plan, list) in &by_plan {
        let mut args = vec!["effect", "--each", "--all-permutations", "--json", "--plan", plan];
        args.extend(list.iter().map(|(f, _)| f.as_str()));
        let (_, stdout, stderr) = run(&args);
        let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
        for ((file, want), got) in list.iter().zip(v["effects"].as_array().unwrap()) {
            assert_eq!(got["file"], file.as_str());
            let error = got["error"].as_str().unwrap_or_default();
            match (&want.refused, got["loads"].as_bool().unwrap()) {
                (None, true) => {
                    loaded += 1;
                    permutations += got["permutations"].as_u64().unwrap();
                    if got["exhaustive"] == false {
                        let name = file.rsplit_once(&format!("bevy-{version}/")).unwrap().1;
                        samples.push((
                            name.trim_end_matches(".effect.toml").to_owned(),
                            got["allowed"].as_u64(),
                        ));
                    }
                }
                (Some(part), false) if error.contains(part.as_str()) => refused += 1,
                (None, false) => wrong.push(format!("{file}: refused: {error}")),
                (Some(part), true) => {
                    wrong.push(format!("{file}: loads, but is listed as refused (`{part}`)"))
                }
                (Some(part), false) => wrong.push(format!("{file}: refused without `{part}`: {error}")),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    samples.sort();
    let want = sampled.iter().map(|&(f, n)| (f.to_owned(), Some(n))).collect::<Vec<_>>();
    assert_eq!(samples, want, "the effects sampled, with the combinations their rules allow");
    assert!(loaded + refused > 0, "no effect files under {effects_dir}");
    eprintln!(
        "Bevy {version}: {loaded} effects load ({permutations} permutations), {refused} are listed failures"
    );
}
