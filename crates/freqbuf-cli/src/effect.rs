//! `freqbuf effect`: load effect files, check their permutations together,
//! print their techniques, passes and merged slots (or JSON).

use std::process::ExitCode;

use crate::wesl::WeslArgs;
use freqbuf::{Registry, SlotPlan};
use freqbuf_effects::EffectErrorKind;
use serde_json::{Value, json};

use crate::output::{print_table, to_json};

/// `freqbuf effect`'s arguments.
#[derive(clap::Args)]
pub(crate) struct EffectArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Flags to switch on, comma-separated (checks that one permutation).
    #[arg(long, value_delimiter = ',')]
    flags: Vec<String>,
    /// Check every combination of the flags the source tests (that the
    /// effect's constraints allow).
    #[arg(long, conflicts_with = "flags")]
    all_permutations: bool,
    /// A directory of WGSL modules, found by their `#define_import_path`
    /// when an effect imports them (repeatable). It may hold alternates of
    /// one import path that no effect imports.
    #[arg(long)]
    module_dir: Vec<std::path::PathBuf>,
    /// Name every shader that uses a slot, instead of each effect's share
    /// in a phrase ("all 16 permutations").
    #[arg(long)]
    verbose: bool,
    /// Check each effect on its own, as a tree of shaders no one renderer
    /// loads together: one line per effect (loads, or refused and why) and a
    /// summary; exit 1 when any is refused.
    #[arg(long, conflicts_with_all = ["flags", "verbose"])]
    each: bool,
    /// Compose every allowed combination of each effect on its own and
    /// print the smallest flag rules (`at_most_one` or `implies` over a pair)
    /// that exclude the ones that fail and keep every one that composes.
    #[arg(long, conflicts_with_all = ["flags", "each", "all_permutations"])]
    suggest_rules: bool,
    /// Effect files (TOML), or folders of them (every `*.effect.toml` below),
    /// checked together as one renderer loads them: their shared slots (and
    /// families they share) must agree. With `--each`, one by one.
    #[arg(required = true)]
    files: Vec<std::path::PathBuf>,
}

pub(crate) fn effect(plan: &SlotPlan, wesl: &WeslArgs, args: &EffectArgs) -> ExitCode {
    let EffectArgs {
        json,
        ref flags,
        all_permutations: all,
        module_dir: ref module_dirs,
        verbose,
        each,
        suggest_rules,
        ref files,
    } = *args;
    let files = match crate::each::expand(files) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if each {
        return crate::each::each(plan, wesl, module_dirs, all, json, &files);
    }
    if suggest_rules {
        return crate::each::suggest(wesl, module_dirs, json, &files);
    }
    if files.len() > 1 && !flags.is_empty() {
        eprintln!("error: --flags picks one permutation of one effect; give one effect file");
        return ExitCode::FAILURE;
    }
    // Packages for WESL sources; --def for every effect, over its [defs].
    let mut fx = match crate::each::library(wesl, module_dirs) {
        Ok(fx) => fx,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    // One registry for every file: a conflict between two effects shows.
    let mut registry = Registry::new(plan.clone());
    let mut loaded = Vec::new();
    for file in &files {
        let id = match fx.load(file) {
            Ok(id) => id,
            Err(e) => {
                eprintln!("error: {:#}", anyhow::Error::new(e));
                return ExitCode::FAILURE;
            }
        };
        let names = flags.iter().map(String::as_str).collect::<Vec<_>>();
        let only = if all { Ok(None) } else { fx.flags(id, &names).map(Some) };
        match only.and_then(|only| fx.merge(&mut registry, id, only)) {
            Ok(report) => loaded.push((id, report)),
            Err(e) => {
                refused(fx.effect(id), file, e, all);
                return ExitCode::FAILURE;
            }
        }
    }
    for &(id, _) in &loaded {
        // [params] and [auto] against the permutations checked (every one with
        // --all-permutations), as merged already: nothing is composed again.
        if let Err(e) = freqbuf_effects::validate_tables(&fx, id, &registry, all) {
            eprintln!("error: {}: {:#}", fx.effect(id).name(), anyhow::Error::new(e));
            return ExitCode::FAILURE;
        }
    }
    if json {
        let mut each = loaded.iter().map(|&(id, report)| effect_json(fx.effect(id), report, &registry));
        let v = match files.len() {
            1 => each.next().expect("one file, loaded"),
            _ => Value::Array(each.collect()),
        };
        println!("{}", serde_json::to_string_pretty(&v).expect("JSON of plain values"));
        return ExitCode::SUCCESS;
    }
    for &(id, report) in &loaded {
        print_effect(fx.effect(id), report);
    }
    print_table(&registry, verbose);
    ExitCode::SUCCESS
}

/// Prints why `effect` (from `file`) was refused, and where to go on: a
/// failed composition under `--all-permutations` points at `--suggest-rules`.
fn refused(
    effect: &freqbuf_effects::Effect,
    file: &std::path::Path,
    e: freqbuf_effects::EffectError,
    all: bool,
) {
    // Rules help only where a combination does not compose.
    let composing = e.kind.is_composition();
    // The error names one rule already: where it does, point at the others.
    let named = matches!(*e.kind, EffectErrorKind::Excludable { .. });
    eprintln!("error: {:#}", anyhow::Error::new(e));
    if all && composing {
        crate::each::hint(effect, file);
    } else if named {
        let file = file.display();
        eprintln!("hint: `freqbuf effect --suggest-rules {file}` lists a rule for every failing combination");
    }
}

/// The passes of `technique`, in order.
fn passes<'e>(effect: &'e freqbuf_effects::Effect, technique: &str) -> Vec<&'e freqbuf_effects::Pass> {
    (effect.passes().iter()).filter(|p| p.name.split_once('.').is_some_and(|(t, _)| t == technique)).collect()
}

fn effect_json(
    effect: &freqbuf_effects::Effect,
    report: freqbuf_effects::CheckReport,
    registry: &Registry,
) -> Value {
    let techniques = effect
        .techniques()
        .map(|t| {
            let passes = passes(effect, t).into_iter().map(|p| {
                json!({
                    "name": p.name.split_once('.').map_or(p.name.as_str(), |(_, n)| n),
                    "vertex": p.vertex, "fragment": p.fragment, "compute": p.compute,
                    "files": {"vertex": p.files[0], "fragment": p.files[1], "compute": p.files[2]},
                    "blend": p.blend.as_str(), "cull": p.cull.as_str(),
                    "depth": p.depth.map(|d| json!({"compare": d.compare.as_str(), "write": d.write})),
                    "color_write": p.color_write,
                })
            });
            json!({"name": t, "passes": passes.collect::<Vec<_>>()})
        })
        .collect::<Vec<_>>();
    json!({
        "effect": effect.name(), "family": effect.family(), "flags": effect.flags(),
        "permutations": report.permutations, "distinct": report.distinct, "exhaustive": report.exhaustive,
        "allowed": report.allowed,
        "techniques": techniques, "slots": to_json(registry)["slots"],
    })
}

fn print_effect(effect: &freqbuf_effects::Effect, report: freqbuf_effects::CheckReport) {
    let checked = crate::each::coverage(&report);
    println!("effect {} (flags: {}; family {})", effect.name(), effect.flags().join(", "), effect.family());
    if report.distinct == report.permutations {
        println!("{} permutations composed and merged ({checked})", report.permutations);
    } else {
        // The others preprocess to the same text as one of these.
        println!(
            "{} permutations checked ({checked}), {} distinct composed and merged",
            report.permutations, report.distinct
        );
    }
    for t in effect.techniques() {
        println!("technique {t}");
        for p in passes(effect, t) {
            // `file:entry` where the stage comes from another file than the source.
            let entry = |e: &Option<String>, file: &Option<String>| match (e, file) {
                (Some(e), Some(f)) => format!("{f}:{e}"),
                (Some(e), None) => e.clone(),
                (None, _) => "-".into(),
            };
            let depth = p.depth.map_or("-".into(), |d| format!("{} write={}", d.compare.as_str(), d.write));
            println!(
                "  pass {}: vertex {} fragment {} compute {} blend {} cull {} depth {depth} color_write {}",
                p.name,
                entry(&p.vertex, &p.files[0]),
                entry(&p.fragment, &p.files[1]),
                entry(&p.compute, &p.files[2]),
                p.blend.as_str(),
                p.cull.as_str(),
                p.color_write
            );
        }
    }
}
