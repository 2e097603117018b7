//! `freqbuf effect --each`: every effect file checked on its own, as a tree
//! of shaders that no one renderer loads together (Bevy's) needs: one line
//! per effect, loads or refused with why, then a summary; progress on stderr
//! when it is a terminal.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Instant;

use freqbuf::{Registry, SlotPlan};
use freqbuf_effects::CheckReport;
use serde_json::json;

use crate::wesl::WeslArgs;

/// How one effect fared.
struct Outcome {
    file: String,
    result: Result<CheckReport, String>,
    seconds: f64,
}

/// Checks each of `files` alone (a library and a registry of its own, so
/// that effects of one name or with clashing slots in different files do
/// not meet): every allowed permutation with `all`, else the one without
/// flags. Exits 1 when any is refused.
pub(crate) fn each(
    plan: &SlotPlan,
    wesl: &WeslArgs,
    module_dirs: &[std::path::PathBuf],
    all: bool,
    json: bool,
    files: &[std::path::PathBuf],
) -> ExitCode {
    let progress = std::io::stderr().is_terminal();
    let start = Instant::now();
    let mut outcomes = Vec::with_capacity(files.len());
    for (i, file) in files.iter().enumerate() {
        if progress {
            eprint!("\r[{}/{}] {}\x1b[K", i + 1, files.len(), file.display());
        }
        let started = Instant::now();
        let result = check_one(plan, wesl, module_dirs, all, file);
        outcomes.push(Outcome {
            file: file.display().to_string(),
            result,
            seconds: started.elapsed().as_secs_f64(),
        });
    }
    if progress {
        eprint!("\r\x1b[K");
    }
    let seconds = start.elapsed().as_secs_f64();
    let refused = outcomes.iter().filter(|o| o.result.is_err()).count();
    if json {
        let effects = outcomes
            .iter()
            .map(|o| match &o.result {
                Ok(r) => json!({"file": o.file, "loads": true, "permutations": r.permutations,
                    "distinct": r.distinct, "exhaustive": r.exhaustive, "allowed": r.allowed,
                    "seconds": o.seconds, "error": null}),
                Err(e) => json!({"file": o.file, "loads": false, "seconds": o.seconds, "error": e}),
            })
            .collect::<Vec<_>>();
        let v = json!({"effects": effects, "loaded": outcomes.len() - refused, "refused": refused, "seconds": seconds});
        println!("{}", serde_json::to_string_pretty(&v).expect("JSON of plain values"));
    } else {
        let width = outcomes.iter().map(|o| o.file.len()).max().unwrap_or(0);
        for o in &outcomes {
            match &o.result {
                Ok(r) => {
                    let checked = coverage(r);
                    let n = r.permutations;
                    let s = if n == 1 { "" } else { "s" };
                    println!(
                        "loads    {:<width$}  {n} permutation{s} ({checked}), {:.2} s",
                        o.file, o.seconds
                    );
                }
                Err(e) => println!("refused  {:<width$}  {e}", o.file),
            }
        }
        let permutations: usize =
            outcomes.iter().filter_map(|o| o.result.as_ref().ok()).map(|r| r.permutations).sum();
        println!(
            "{} effects: {} load, {refused} refused; {permutations} permutations checked in {seconds:.1} s",
            outcomes.len(),
            outcomes.len() - refused
        );
    }
    if refused == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// One effect, as `freqbuf effect` checks a single file; the error as one line.
fn check_one(
    plan: &SlotPlan,
    wesl: &WeslArgs,
    module_dirs: &[std::path::PathBuf],
    all: bool,
    file: &std::path::Path,
) -> Result<CheckReport, String> {
    let mut fx = library(wesl, module_dirs)?;
    let mut registry = Registry::new(plan.clone());
    let id = fx.load(file).map_err(|e| line(e.into()))?;
    let only = if all { None } else { Some(fx.flags(id, &[]).map_err(|e| line(e.into()))?) };
    let report = fx.merge(&mut registry, id, only).map_err(|e| line(e.into()))?;
    freqbuf_effects::validate_tables(&fx, id, &registry, all).map_err(|e| line(e.into()))?;
    Ok(report)
}

/// `freqbuf effect --suggest-rules`: each effect's failing combinations and
/// the rules that would exclude them. Exits 1 when an effect does not load
/// or some failure has no rule.
pub(crate) fn suggest(
    wesl: &WeslArgs,
    module_dirs: &[std::path::PathBuf],
    json: bool,
    files: &[std::path::PathBuf],
) -> ExitCode {
    let mut ok = true;
    let mut out = Vec::new();
    for file in files {
        let s = match suggestions(wesl, module_dirs, file) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                ok = false;
                continue;
            }
        };
        ok &= s.unexplained.is_empty();
        let flags = |f: &[String]| if f.is_empty() { "no flags".to_owned() } else { f.join("+") };
        if json {
            out.push(json!({
                "file": file.display().to_string(), "checked": s.checked, "exhaustive": s.exhaustive,
                "failures": s.failures.iter().map(|(f, e)| json!({"flags": f, "error": e})).collect::<Vec<_>>(),
                "rules": s.rules.iter().map(|r| json!({"rule": r.rule, "excludes": r.excludes})).collect::<Vec<_>>(),
                "unexplained": s.unexplained,
            }));
            continue;
        }
        let checked = if s.exhaustive { "every combination" } else { "not every combination" };
        println!(
            "{}: {} combinations composed ({checked}), {} fail",
            file.display(),
            s.checked,
            s.failures.len()
        );
        for r in &s.rules {
            let first = s.failures.iter().find(|(f, _)| *f == r.excludes[0]).map_or("", |(_, e)| e.as_str());
            println!("  {}  # excludes {}: [{}] {first}", r.rule, r.excludes.len(), flags(&r.excludes[0]));
        }
        for f in &s.unexplained {
            let error = s.failures.iter().find(|(g, _)| g == f).map_or("", |(_, e)| e.as_str());
            println!("  no rule over two flags excludes [{}] alone: {error}", flags(f));
        }
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&out).expect("JSON of plain values"));
    }
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// After a whole-effect check of `file` failed to compose a combination
/// that no pair rule excludes: where to go on. Composes nothing: within
/// [`SUGGEST_WITHIN`](freqbuf_effects::SUGGEST_WITHIN) combinations the
/// check has just composed each of them looking for a rule, and above it,
/// composing them all again is for `--suggest-rules` to do when asked.
pub(crate) fn hint(effect: &freqbuf_effects::Effect, file: &std::path::Path) {
    let file = file.display();
    match effect.allowed() {
        Some(n) if n <= freqbuf_effects::SUGGEST_WITHIN as u64 => eprintln!(
            "hint: no rule over two flags excludes it and keeps every combination that composes; \
             `freqbuf effect --suggest-rules {file}` lists every failing combination"
        ),
        n => eprintln!(
            "hint: `freqbuf effect --suggest-rules {file}` composes each of the {} combinations the rules allow \
             and lists a rule for every failing one",
            n.map_or_else(|| "many".to_owned(), |n| n.to_string())
        ),
    }
}

/// `file`'s effect loaded alone and its suggested rules.
fn suggestions(
    wesl: &WeslArgs,
    module_dirs: &[std::path::PathBuf],
    file: &std::path::Path,
) -> Result<freqbuf_effects::Suggestions, String> {
    let mut fx = library(wesl, module_dirs)?;
    let id = fx.load(file).map_err(|e| line(e.into()))?;
    fx.suggest_rules(id).map_err(|e| line(e.into()))
}

/// A library with the command line's packages, defs and module folders.
pub(crate) fn library(
    wesl: &WeslArgs,
    module_dirs: &[std::path::PathBuf],
) -> Result<freqbuf_effects::Effects, String> {
    let mut fx = wesl.library().map_err(line)?;
    fx.set_defs(&wesl.defs()).map_err(|e| line(e.into()))?;
    for dir in module_dirs {
        fx.add_module_dir(dir).map_err(|e| line(e.into()))?;
    }
    Ok(fx)
}

/// An error on one line.
fn line(e: anyhow::Error) -> String {
    format!("{e:#}").replace('\n', " ")
}

/// `paths` with each folder replaced by the `*.effect.toml` files under it
/// (recursively, sorted); files stay as given.
pub(crate) fn expand(paths: &[std::path::PathBuf]) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found)?;
            found.sort();
            out.extend(found);
        } else {
            out.push(path.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &std::path::Path, found: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, found)?;
        } else if path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".effect.toml")) {
            found.push(path);
        }
    }
    Ok(())
}

/// How much of what the rules allow a check covered, in words: "every
/// combination", or "a sample of the 2,571,264 allowed" where it sampled.
pub(crate) fn coverage(report: &freqbuf_effects::CheckReport) -> String {
    match (report.exhaustive, report.allowed) {
        (true, _) => "every combination".to_owned(),
        (false, Some(n)) => format!("a sample of the {} allowed", thousands(n)),
        (false, None) => "not every combination".to_owned(),
    }
}

/// `n` with a comma every three digits.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
