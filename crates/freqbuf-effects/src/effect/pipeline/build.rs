//! Building many pipelines at once (`Effects::warm_with` and the log's
//! replay): this thread makes each job (composition, registration, modules,
//! which need the library and the manager), and worker threads build the
//! pipelines as the jobs arrive, so the shaders of the first pipelines
//! compile while the later ones are still being composed. When this thread
//! has made every job it builds too.

use freqbuf::{Creator, Manager};

use crate::effect::library::Effects;
#[cfg(not(target_arch = "wasm32"))]
use crate::effect::pipeline::job::Job;
use crate::effect::pipeline::job::{Done, Jobs};
use crate::effect::reports::WarmProgress;
use crate::error::EffectError;

impl Effects {
    /// Builds the jobs `produce` makes, on up to `threads` threads (0: one
    /// per core; on the web, this one), and keeps each pipeline. A worker
    /// starts with the first job it can take, so a call with nothing to
    /// build starts none. `progress` runs on this thread once per pipeline
    /// built, from when `produce` has returned and the total is known.
    ///
    /// Every job made is built and kept, even after `produce` failed or a
    /// build did; the error is the first in job order, `produce`'s last.
    pub(in crate::effect) fn build_streamed(
        &mut self,
        manager: &mut Manager,
        threads: usize,
        progress: &mut dyn FnMut(WarmProgress),
        produce: impl FnOnce(&mut Self, &mut Manager, &mut Jobs<'_>) -> Result<(), EffectError>,
    ) -> Result<(), EffectError> {
        // The cache of the device the manager is on now (a recreate drops the old one's).
        self.pipelines.follow_device(manager);
        let creator = manager.creator();
        let cache = self.pipelines.cache().cloned();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = if threads == 0 { cores } else { threads };
        let (made, done) = if threads <= 1 || cfg!(target_arch = "wasm32") {
            let mut jobs = Vec::new();
            let mut send = |j| jobs.push(j);
            let mut list = Jobs::new(&mut send);
            let made = produce(self, manager, &mut list);
            let total = jobs.len();
            let mut done = Vec::with_capacity(total);
            for job in jobs {
                let built = job.build(&creator, cache.as_ref());
                done.push((job, built));
                progress(WarmProgress { done: done.len(), total });
            }
            (made, done)
        } else {
            self.build_on_threads(manager, &creator, cache.as_ref(), threads, progress, produce)
        };
        let mut first = None;
        for (job, built) in done {
            match built {
                Ok(b) => self.keep(job, b),
                Err(e) => {
                    first.get_or_insert_with(|| self.register_error(job.flags, e));
                }
            }
        }
        match first {
            Some(e) => Err(e),
            None => made,
        }
    }

    /// [`Effects::build_streamed`] with up to `threads - 1` workers; returns
    /// what `produce` returned, and every job with its result in job order.
    #[cfg(not(target_arch = "wasm32"))]
    fn build_on_threads(
        &mut self,
        manager: &mut Manager,
        creator: &Creator,
        cache: Option<&wgpu::PipelineCache>,
        threads: usize,
        progress: &mut dyn FnMut(WarmProgress),
        produce: impl FnOnce(&mut Self, &mut Manager, &mut Jobs<'_>) -> Result<(), EffectError>,
    ) -> (Result<(), EffectError>, Vec<Done>) {
        use std::sync::mpsc::channel;
        use std::sync::{Mutex, PoisonError};
        let (send_job, jobs) = channel::<(usize, Job)>();
        let jobs = Mutex::new(jobs);
        let (send_done, done) = channel::<(usize, Done)>();
        // The next queued job: waiting for one until the queue closes, or `None` when it is empty.
        let next = |wait: bool| {
            let queue = jobs.lock().unwrap_or_else(PoisonError::into_inner);
            if wait { queue.recv().ok() } else { queue.try_recv().ok() }
        };
        let build = |(i, job): (usize, Job)| {
            let built = job.build(creator, cache);
            (i, (job, built))
        };
        let (next, build) = (&next, &build);
        std::thread::scope(|scope| {
            let mut workers = Vec::new();
            let mut made = 0;
            let mut send = |job| {
                if workers.len() + 1 < threads {
                    let send_done = send_done.clone();
                    workers.push(scope.spawn(move || {
                        while let Some(job) = next(true) {
                            if send_done.send(build(job)).is_err() {
                                break;
                            }
                        }
                    }));
                }
                // The queue's receiver outlives this sender: a send cannot fail.
                let _ = send_job.send((made, job));
                made += 1;
            };
            let mut list = Jobs::new(&mut send);
            let result = produce(self, manager, &mut list);
            drop(send_job);
            let mut results: Vec<Option<Done>> = (0..made).map(|_| None).collect();
            let mut count = 0;
            let mut record = |(i, d): (usize, Done)| {
                results[i] = Some(d);
                count += 1;
                progress(WarmProgress { done: count, total: made });
            };
            // This thread builds what the workers have not taken, and reports theirs as they come.
            while let Some(job) = next(false) {
                record(build(job));
                done.try_iter().for_each(&mut record);
            }
            drop(send_done);
            done.iter().for_each(&mut record);
            if results.iter().any(Option::is_none) {
                // A worker panicked: raise its panic here.
                for w in workers {
                    if let Err(panic) = w.join() {
                        std::panic::resume_unwind(panic);
                    }
                }
            }
            let results = results.into_iter().map(|d| d.expect("every job sends its result")).collect();
            (result, results)
        })
    }

    /// The web builds on its one thread ([`Effects::build_streamed`] never calls this there).
    #[cfg(target_arch = "wasm32")]
    fn build_on_threads(
        &mut self,
        _: &mut Manager,
        _: &Creator,
        _: Option<&wgpu::PipelineCache>,
        _: usize,
        _: &mut dyn FnMut(WarmProgress),
        _: impl FnOnce(&mut Self, &mut Manager, &mut Jobs<'_>) -> Result<(), EffectError>,
    ) -> (Result<(), EffectError>, Vec<Done>) {
        unreachable!("one thread on the web")
    }
}
