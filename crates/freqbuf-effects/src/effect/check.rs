//! The whole-effect check: every flag combination composed and merged
//! before anything is drawn.

use super::library::{EXHAUSTIVE_FLAGS, Effects};
use super::types::{Bits, CheckReport, EffectId, FlagSet};
use crate::error::{EffectError, EffectErrorKind};
use freqbuf::Registry;
use freqbuf::reflect::ShaderReflection;

impl Effects {
    /// The whole-effect check: composes the permutations and merges them
    /// into a copy of `registry` (nothing is registered), proving that they
    /// agree with each other and with the registered shaders on one layout
    /// per slot. `only`: one flag set instead of all.
    ///
    /// All `2^n` combinations of the `n` flags the source tests are checked
    /// up to [`EXHAUSTIVE_FLAGS`]; above that, no flag, each flag alone, each
    /// pair and all of them (`CheckReport::exhaustive` is then false).
    pub fn check(
        &mut self,
        registry: &Registry,
        id: EffectId,
        only: Option<FlagSet>,
    ) -> Result<CheckReport, EffectError> {
        self.merge(&mut registry.scratch(), id, only)
    }

    /// Like [`Effects::check`], but merges into `registry` itself, which then
    /// holds the permutations' merged slots (what `freqbuf effect` prints).
    /// On a conflict, the permutations before the conflicting one stay merged.
    pub fn merge(
        &mut self,
        registry: &mut Registry,
        id: EffectId,
        only: Option<FlagSet>,
    ) -> Result<CheckReport, EffectError> {
        let effect = self.checked(id, "effect id")?;
        if let Some(f) = only.filter(|f| f.effect != id) {
            self.checked(f.effect, "flag set")?;
            return Err(EffectError {
                file: effect.name.clone(),
                location: None,
                kind: Box::new(EffectErrorKind::OtherEffect {
                    pass: "(merge)".into(),
                    effect: effect.name.clone(),
                    flags_effect: self.effect(f.effect).name.clone(),
                }),
            });
        }
        let tested: Vec<u32> =
            (0..effect.flags.len() as u32).filter(|i| effect.tested & (1 << i) != 0).collect();
        let (combos, exhaustive) = match only {
            Some(f) => (vec![f.bits & effect.tested], false),
            None => combinations(&tested),
        };
        let checked = combos.len();
        let combos = self.distinct(id, combos);
        let report = CheckReport {
            permutations: checked,
            distinct: combos.len(),
            exhaustive: exhaustive && only.is_none(),
        };
        if combos.len() >= PARALLEL_FROM {
            if let Some(workers) = self.workers() {
                self.merge_parallel(registry, id, &combos, workers)?;
                return Ok(report);
            }
        }
        for &bits in &combos {
            let parts = self.effect(id).stage_files.len() as u32 + 1;
            let kept =
                (0..parts).filter(|&p| self.composed.contains_key(&(id.index, bits, p))).collect::<Vec<_>>();
            // What each pass's pipelines would use; for most effects the permutation itself.
            for reflection in self.pass_reflections(FlagSet { effect: id, bits })? {
                let effect = self.effect(id);
                // Layouts only: the module is released once merged.
                registry.add(reflection.layout_only()).map_err(|e| EffectError {
                    file: effect.source_file.clone(),
                    location: None,
                    kind: Box::new(self.conflict(id, bits, e)),
                })?;
            }
            // The check composes every combination once: keep only what was kept before.
            for part in (0..parts).filter(|p| !kept.contains(p)) {
                self.composed.remove(&(id.index, bits, part));
            }
        }
        Ok(report)
    }

    /// `combos` without those that compose to a module an earlier one
    /// composes to: the same preprocessed text of the source and each stage
    /// file, the same values of the flags their imports test, and the same
    /// passes. Cost: none where no def is tested inside another's `#if`
    /// block; else naga_oil's preprocessor over each text, per combination.
    fn distinct(&self, id: EffectId, combos: Vec<Bits>) -> Vec<Bits> {
        let effect = self.effect(id);
        if combos.len() < 2 || !effect.sources().any(super::compose::Compose::has_nested_tests) {
            return combos;
        }
        let names = |set: std::collections::BTreeSet<String>| {
            let mut bits: Bits = 0;
            for (i, f) in effect.flags.iter().enumerate() {
                if set.contains(f) {
                    bits |= 1 << i;
                }
            }
            bits
        };
        let imported = effect.sources().map(|s| names(self.compose.imported_tested(s))).fold(0, |m, b| m | b);
        let required = effect.passes.iter().fold(imported, |m, p| m | p.required);
        let mut seen = std::collections::HashSet::new();
        combos
            .into_iter()
            .filter(|&bits| {
                let on = effect.flags.iter().enumerate().filter(|(i, _)| bits & (1 << i) != 0);
                let on = on.map(|(_, f)| f.as_str()).collect::<Vec<_>>();
                let texts = effect.sources().map(|s| self.compose.preprocessed(s, &effect.defs, &on));
                // A text the preprocessor refuses is composed, so that the error is reported.
                match texts.collect::<Option<Vec<_>>>() {
                    Some(texts) => seen.insert((texts, bits & required)),
                    None => true,
                }
            })
            .collect()
    }
}

/// From this many permutations, the check composes on every core.
const PARALLEL_FROM: usize = 16;

/// Permutations composed between two merges: bounds what waits in memory.
const CHUNK: usize = 128;

/// What one permutation registers, layouts only, or why it cannot.
type Reflected = Result<Vec<ShaderReflection>, EffectError>;

impl Effects {
    /// One library per core, each with its own composer and this library's
    /// effects, or `None` on one core (or where threads cannot be had, as on
    /// the web). Forked once, and again after a module is added.
    fn workers(&mut self) -> Option<Vec<Effects>> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
        if cores < 2 {
            return None;
        }
        let modules = self.compose.module_count();
        let stale =
            self.workers.len() != cores || self.workers.iter().any(|w| w.compose.module_count() != modules);
        if stale {
            let fork = || -> Result<Effects, EffectError> {
                let mut worker = Effects::new();
                worker.tag = self.tag;
                worker.compose = self.compose.fork()?;
                Ok(worker)
            };
            self.workers = (0..cores).map(|_| fork()).collect::<Result<Vec<_>, _>>().ok()?;
        }
        let mut workers = std::mem::take(&mut self.workers);
        for w in &mut workers {
            w.effects.clone_from(&self.effects);
        }
        Some(workers)
    }

    /// What `bits` registers, layouts only, composed here and not kept.
    fn reflect_once(&mut self, id: EffectId, bits: Bits) -> Reflected {
        let out = self.pass_reflections(FlagSet { effect: id, bits });
        self.composed.retain(|key, _| key.0 != id.index || key.1 != bits);
        out.map(|v| v.into_iter().map(ShaderReflection::layout_only).collect())
    }

    /// Composes `combos` on the workers, a chunk at a time, and merges each
    /// chunk's results in order, so that the first conflict in combination
    /// order is the one reported, as on one thread. A worker that cannot
    /// start leaves its share to this thread.
    fn merge_parallel(
        &mut self,
        registry: &mut Registry,
        id: EffectId,
        combos: &[Bits],
        mut workers: Vec<Effects>,
    ) -> Result<(), EffectError> {
        let n = workers.len();
        let mut result = Ok(());
        for chunk in combos.chunks(CHUNK) {
            let mut results: Vec<Option<Reflected>> = (0..chunk.len()).map(|_| None).collect();
            let done = std::thread::scope(|scope| {
                let handles = workers
                    .iter_mut()
                    .enumerate()
                    .map(|(w, worker)| {
                        let mine = chunk.iter().copied().enumerate().skip(w).step_by(n).collect::<Vec<_>>();
                        std::thread::Builder::new().spawn_scoped(scope, move || {
                            mine.into_iter()
                                .map(|(k, bits)| (k, worker.reflect_once(id, bits)))
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect::<Vec<_>>();
                handles.into_iter().filter_map(|h| h.ok()?.join().ok()).flatten().collect::<Vec<_>>()
            });
            for (k, out) in done {
                results[k] = Some(out);
            }
            for (k, out) in results.into_iter().enumerate() {
                let out = match out {
                    Some(out) => out,
                    None => self.reflect_once(id, chunk[k]),
                };
                let merged = out.and_then(|reflections| {
                    reflections.into_iter().try_for_each(|reflection| {
                        let effect = self.effect(id);
                        registry.add(reflection).map(drop).map_err(|e| EffectError {
                            file: effect.source_file.clone(),
                            location: None,
                            kind: Box::new(self.conflict(id, chunk[k], e)),
                        })
                    })
                });
                if let Err(e) = merged {
                    result = Err(e);
                    break;
                }
            }
            if result.is_err() {
                break;
            }
        }
        for worker in &mut workers {
            self.stats.compositions += std::mem::take(&mut worker.stats.compositions);
        }
        self.workers = workers;
        result
    }
}

/// The flag combinations to check over the `tested` flag indices: all of
/// them up to [`EXHAUSTIVE_FLAGS`], else none, singles, pairs and all.
fn combinations(tested: &[u32]) -> (Vec<Bits>, bool) {
    let bit = |i: &u32| (1 as Bits) << i;
    if tested.len() <= EXHAUSTIVE_FLAGS {
        let n = tested.len();
        let all = (0u32..1 << n)
            .map(|c| tested.iter().enumerate().filter(|(k, _)| c & (1 << k) != 0).map(|(_, i)| bit(i)).sum())
            .collect();
        return (all, true);
    }
    let mut out = vec![0, tested.iter().map(bit).sum()];
    for (k, a) in tested.iter().enumerate() {
        out.push(bit(a));
        out.extend(tested[k + 1..].iter().map(|b| bit(a) | bit(b)));
    }
    (out, false)
}
