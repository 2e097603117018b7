//! The whole-effect check on every core: one library per core, each with
//! its own composer, merged in combination order. Not on the web, where no
//! thread starts.

use crate::effect::library::Effects;
use crate::effect::types::{Bits, EffectId, FlagSet};
use crate::error::EffectError;
use freqbuf::Registry;
use freqbuf::reflect::ShaderReflection;

/// From this many permutations, the check composes on every core.
pub(in crate::effect) const PARALLEL_FROM: usize = 16;

/// Permutations composed between two merges: bounds what waits in memory.
const CHUNK: usize = 128;

impl Effects {
    /// The workers, lent for one check (see [`Workers::lend`](crate::effect::library::Workers::lend)).
    pub(in crate::effect) fn workers(&mut self) -> Option<Vec<Effects>> {
        let mut workers = std::mem::take(&mut self.workers);
        let lent = workers.lend(self);
        self.workers = workers;
        lent
    }

    /// What `bits` registers, layouts only, or why it cannot; composed
    /// here and not kept.
    fn reflect_once(&mut self, id: EffectId, bits: Bits) -> Result<Vec<ShaderReflection>, EffectError> {
        let out = self.pass_reflections(FlagSet { effect: id, bits });
        self.permutations.drop_compositions(id.index, Some(bits));
        out.map(|v| v.into_iter().map(ShaderReflection::layout_only).collect())
    }

    /// Composes `combos` on the workers, a chunk at a time, and merges each
    /// chunk's results in order, so that the first conflict in combination
    /// order is the one reported, as on one thread. A worker that cannot
    /// start leaves its share to this thread.
    pub(in crate::effect) fn merge_parallel(
        &mut self,
        registry: &mut Registry,
        id: EffectId,
        combos: &[Bits],
        mut workers: Vec<Effects>,
    ) -> Result<(), EffectError> {
        let n = workers.len();
        let mut result = Ok(());
        for chunk in combos.chunks(CHUNK) {
            let mut results: Vec<Option<Result<Vec<ShaderReflection>, EffectError>>> =
                (0..chunk.len()).map(|_| None).collect();
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
        self.workers.give_back(workers);
        result
    }
}
