//! `Effects::warm`: every pipeline an effect can need, built before the
//! first frame instead of on the draw that first needs it (the stall
//! renderers see when a new material appears); and the `wgpu::PipelineCache`
//! every pipeline is built with, so that the next start builds them faster.

use crate::effect::library::{EXHAUSTIVE_COMBINATIONS, Effects};
use crate::effect::pipeline::job::{Built, Job};
use crate::effect::types::{EffectId, FlagSet, PassId, Targets};
use crate::error::EffectError;
use freqbuf::Manager;

/// What [`Effects::warm`] built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarmReport {
    /// Flag combinations warmed: every one the constraints allow, or the
    /// whole-effect check's sample of them (`exhaustive` false).
    pub permutations: usize,
    /// Whether those are every allowed combination.
    pub exhaustive: bool,
    /// Pipelines in the cache for them afterwards (one per pass that exists
    /// under a combination), built now or earlier.
    pub pipelines: usize,
}

impl Effects {
    /// Builds every pipeline from now on with `cache` (`None`: without one),
    /// a `wgpu::PipelineCache` of `manager`'s device: made by the
    /// application on a device with `wgpu::Features::PIPELINE_CACHE` from
    /// the data a previous run saved (`PipelineCache::get_data`), so that
    /// [`Effects::warm`] at start-up compiles little. A manager moved to
    /// another device (`Manager::recreate`) drops the cache with the
    /// pipelines; give the new device's cache again. Cost: none per draw.
    pub fn set_pipeline_cache(&mut self, manager: &Manager, cache: Option<wgpu::PipelineCache>) {
        self.pipelines.follow_device(manager);
        self.pipelines.set_cache(cache);
    }

    /// Builds the pipeline of every pass of effect `id` under every flag
    /// combination its constraints allow (the combinations the whole-effect
    /// check composes; above [`EXHAUSTIVE_COMBINATIONS`] of them, its sample),
    /// render passes for `targets` and compute passes as they are. A later
    /// [`Effects::render_pipeline`] or [`Effects::compute_pipeline`] with
    /// those flags is then a cache hit; a pass that needs flags a
    /// combination lacks (`requires`) is skipped there.
    ///
    /// Cost: per combination not warmed yet, a composition and a
    /// registration on this thread, then the pipelines built on every core
    /// ([`Effects::warm_with`] picks the threads and reports progress);
    /// nothing for what is cached. On error, the pipelines built are kept
    /// and the first failure (in combination order) is returned.
    pub fn warm(
        &mut self,
        manager: &mut Manager,
        id: EffectId,
        targets: &Targets,
    ) -> Result<WarmReport, EffectError> {
        self.warm_with(manager, id, targets, 0, &mut |_| {})
    }

    /// [`Effects::warm`] on `threads` threads (0: one per core; on the web,
    /// always this one), calling `progress` on this thread after each
    /// pipeline is built.
    pub fn warm_with(
        &mut self,
        manager: &mut Manager,
        id: EffectId,
        targets: &Targets,
        threads: usize,
        progress: &mut dyn FnMut(WarmProgress),
    ) -> Result<WarmReport, EffectError> {
        let effect = self.checked(id, "effect id")?;
        // The flags the source tests, and those that decide which passes exist.
        let deciding = effect.passes.iter().fold(effect.tested, |bits, p| bits | p.deciding());
        let (combos, exhaustive) = effect.rules.combinations(deciding, EXHAUSTIVE_COMBINATIONS);
        let passes = effect.passes.len() as u32;
        let mut report = WarmReport { permutations: combos.len(), exhaustive, pipelines: 0 };
        let mut jobs = Vec::new();
        for bits in combos {
            let flags = FlagSet { effect: id, bits };
            for index in 0..passes {
                let pass = PassId { effect: id, index };
                if self.pass(pass).exists_under(bits) {
                    let render = self.pass(pass).vertex.is_some().then_some(targets);
                    jobs.extend(self.job(manager, pass, flags, render)?.1);
                    report.pipelines += 1;
                }
            }
        }
        self.build_jobs(manager, jobs, threads, progress).map(|()| report)
    }

    /// Builds `jobs` on up to `threads` threads and keeps each pipeline; the
    /// first that failed is the error, after every other is kept.
    pub(in crate::effect) fn build_jobs(
        &mut self,
        manager: &Manager,
        jobs: Vec<Job>,
        threads: usize,
        progress: &mut dyn FnMut(WarmProgress),
    ) -> Result<(), EffectError> {
        let built = build_all(manager, &jobs, self.pipelines.cache(), threads, progress);
        let mut first = None;
        for (job, built) in jobs.into_iter().zip(built) {
            match built {
                Ok(b) => self.keep(job, b),
                Err(e) => {
                    first.get_or_insert_with(|| self.register_error(job.flags, e));
                }
            }
        }
        first.map_or(Ok(()), Err)
    }
}

/// How far [`Effects::warm_with`] is: pipelines built of those it builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarmProgress {
    /// Pipelines built so far (failed ones included).
    pub done: usize,
    /// Pipelines to build: those the cache did not hold.
    pub total: usize,
}

/// Builds every job, on up to `threads` threads (0: one per core), and
/// returns the results in job order; `progress` runs on this thread.
#[cfg(not(target_arch = "wasm32"))]
fn build_all(
    manager: &Manager,
    jobs: &[Job],
    cache: Option<&wgpu::PipelineCache>,
    threads: usize,
    progress: &mut dyn FnMut(WarmProgress),
) -> Vec<Result<Built, freqbuf::Error>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let total = jobs.len();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = if threads == 0 { cores } else { threads }.min(total);
    if threads <= 1 {
        return build_here(manager, jobs, cache, progress);
    }
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<Result<Built, freqbuf::Error>>> = (0..total).map(|_| None).collect();
    std::thread::scope(|scope| {
        let (sender, receiver) = std::sync::mpsc::channel();
        for _ in 0..threads {
            let (sender, next) = (sender.clone(), &next);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    if sender.send((i, job.build(manager, cache))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        for (done, (i, built)) in receiver.into_iter().enumerate() {
            results[i] = Some(built);
            progress(WarmProgress { done: done + 1, total });
        }
    });
    results.into_iter().map(|r| r.expect("every job sends its result")).collect()
}

/// The web builds on its one thread.
#[cfg(target_arch = "wasm32")]
fn build_all(
    manager: &Manager,
    jobs: &[Job],
    cache: Option<&wgpu::PipelineCache>,
    _threads: usize,
    progress: &mut dyn FnMut(WarmProgress),
) -> Vec<Result<Built, freqbuf::Error>> {
    build_here(manager, jobs, cache, progress)
}

fn build_here(
    manager: &Manager,
    jobs: &[Job],
    cache: Option<&wgpu::PipelineCache>,
    progress: &mut dyn FnMut(WarmProgress),
) -> Vec<Result<Built, freqbuf::Error>> {
    let total = jobs.len();
    let mut results = Vec::with_capacity(total);
    for job in jobs {
        results.push(job.build(manager, cache));
        progress(WarmProgress { done: results.len(), total });
    }
    results
}
