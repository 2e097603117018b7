//! The crate's process-wide counters, in one place: tags that tell one
//! effect library's or queue's handles from another's (the core keeps its
//! own in its `id` module). Tags start at 1, so a default handle (tag 0)
//! belongs to nothing.

use std::sync::atomic::{AtomicU32, Ordering};

#[derive(Clone, Copy, Debug)]
pub(crate) enum Counter {
    /// Effect libraries: `EffectId` and `PassId` carry it.
    Library,
    /// Render queues: `ItemId` carries it.
    Queue,
}

static COUNTERS: [AtomicU32; 2] = [const { AtomicU32::new(1) }; 2];

impl Counter {
    /// The next tag; cost: one relaxed atomic add.
    #[inline]
    pub(crate) fn next(self) -> u32 {
        COUNTERS[self as usize].fetch_add(1, Ordering::Relaxed)
    }
}
