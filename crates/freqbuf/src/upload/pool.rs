//! `StagingPool`: staging buffers that `flush_into` lent to application
//! encoders, reused once the queue has finished with them.
//!
//! A staging buffer whose copies were recorded into the application's
//! encoder cannot be written by the next flush (that encoder may still be
//! unsubmitted), so the uploader stages into another one. Making a new buffer
//! each frame costs an allocation and, on drivers that back memory lazily, a
//! page fault per page on first use; so lent buffers wait here. The flush
//! contract says an encoder is submitted before the next flush, so at that
//! flush each waiting buffer asks the queue to say when the work submitted so
//! far is done ([`wgpu::Queue::on_submitted_work_done`]); after that it is
//! free to stage into again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Lent buffers kept for reuse; beyond this the oldest is dropped (wgpu keeps
/// it alive for the work that reads it).
const KEPT: usize = 4;

#[derive(Debug)]
struct Lent {
    buffer: wgpu::Buffer,
    /// Set by the queue once the work submitted before the next flush is done;
    /// `None` until that flush asks.
    done: Option<Arc<AtomicBool>>,
}

/// Staging buffers lent to application encoders.
#[derive(Debug, Default)]
pub(super) struct StagingPool {
    lent: Vec<Lent>,
}

impl StagingPool {
    /// `buffer` is read by copies in an encoder that is not submitted yet.
    pub(super) fn lend(&mut self, buffer: wgpu::Buffer) {
        if self.lent.len() == KEPT {
            self.lent.remove(0);
        }
        self.lent.push(Lent { buffer, done: None });
    }

    /// A flush begins: the encoders of earlier flushes were submitted, so
    /// each buffer lent to one is free once the queue finishes what it has.
    pub(super) fn submitted(&mut self, queue: &wgpu::Queue) {
        for lent in self.lent.iter_mut().filter(|l| l.done.is_none()) {
            let done = Arc::new(AtomicBool::new(false));
            let flag = done.clone();
            queue.on_submitted_work_done(move || flag.store(true, Ordering::Release));
            lent.done = Some(done);
        }
    }

    /// A buffer of at least `size` bytes that no pending work reads.
    pub(super) fn take(&mut self, size: u64) -> Option<wgpu::Buffer> {
        let free =
            |l: &Lent| l.buffer.size() >= size && l.done.as_ref().is_some_and(|d| d.load(Ordering::Acquire));
        let i = self.lent.iter().position(free)?;
        Some(self.lent.remove(i).buffer)
    }
}
