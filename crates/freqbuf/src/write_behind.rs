//! `WriteBehind`: the writes of one `set_all` call, each held back a few
//! items so that its instance's shadow bytes are fetched from memory while
//! the items before it land.
//!
//! A frame's moved objects are scattered over a shadow far larger than the
//! CPU's caches, so a write that compares and copies its bytes at once waits
//! for a cache miss on every item (about 100 ns at 100,000 objects, against
//! 20–40 ns when the shadow is warm). Queuing the write, prefetching its
//! bytes and landing it `DEPTH` items later overlaps those misses. The queue
//! is drained before `set_all` returns, so nothing can see a write that has
//! not landed.

use crate::slot::Slot;

/// Writes in flight: enough items to cover a miss, few enough to stay in L1.
const DEPTH: usize = 8;

/// How a queued write lands: `(slot, instance index, offset, bytes)`.
pub(crate) type Apply = fn(&mut Slot, u32, u32, &[u8]);

/// Up to `DEPTH` queued writes of `width` bytes at `offset` of their instance.
#[derive(Debug)]
pub(crate) struct WriteBehind {
    indices: [u32; DEPTH],
    bytes: Vec<u8>,
    width: usize,
    offset: u32,
    head: usize,
    len: usize,
    apply: Apply,
}

impl WriteBehind {
    /// An empty queue; its buffer is made by the first [`WriteBehind::ready`],
    /// so a batch that only writes one call at a time allocates nothing.
    pub(crate) fn new(width: usize, offset: u32, apply: Apply) -> Self {
        Self { indices: [0; DEPTH], bytes: Vec::new(), width, offset, head: 0, len: 0, apply }
    }

    /// Makes the queue's buffer, once, before the first [`WriteBehind::push`].
    pub(crate) fn ready(&mut self) {
        if self.bytes.is_empty() {
            self.bytes = vec![0; self.width * DEPTH];
        }
    }

    /// Queues a write to instance `index` whose bytes `fill` writes, and
    /// lands the oldest queued write when the queue is full.
    #[inline]
    pub(crate) fn push(&mut self, slot: &mut Slot, index: u32, fill: impl FnOnce(&mut [u8])) {
        if let Some(bytes) = slot.shadow_span(index, self.offset, self.width) {
            prefetch(bytes);
        }
        if self.len == DEPTH {
            self.land_oldest(slot);
        }
        let at = (self.head + self.len) % DEPTH;
        self.indices[at] = index;
        fill(&mut self.bytes[at * self.width..(at + 1) * self.width]);
        self.len += 1;
    }

    /// Lands every queued write, oldest first.
    pub(crate) fn drain(&mut self, slot: &mut Slot) {
        while self.len > 0 {
            self.land_oldest(slot);
        }
    }

    #[inline]
    fn land_oldest(&mut self, slot: &mut Slot) {
        let at = self.head;
        (self.apply)(
            slot,
            self.indices[at],
            self.offset,
            &self.bytes[at * self.width..(at + 1) * self.width],
        );
        self.head = (at + 1) % DEPTH;
        self.len -= 1;
    }
}

/// Asks the CPU to bring `bytes` (its first and last cache line) into its
/// caches. A hint only: it reads nothing and cannot fault.
#[inline]
pub(crate) fn prefetch(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    if let (Some(first), Some(last)) = (bytes.first(), bytes.last()) {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is part of x86_64; a prefetch dereferences nothing.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(first).cast());
            _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(last).cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}
