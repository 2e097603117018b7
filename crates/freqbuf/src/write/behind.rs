//! Write-behind: the writes of one `set_all` call, each held back a few
//! items so that its instance's shadow bytes are fetched from memory while
//! the items before it land.
//!
//! A frame's moved objects are scattered over a shadow far larger than the
//! CPU's caches, so a write that compares and copies its bytes at once waits
//! for a cache miss on every item (about 100 ns at 100,000 objects, against
//! 20–40 ns when the shadow is warm). Queuing the write, prefetching its
//! bytes and landing it `DEPTH` items later overlaps those misses. The queue
//! holds the caller's references, not copies of the values, and is drained
//! before `set_all` returns (or unwinds), so nothing can see a write that has
//! not landed, and none is lost.

use crate::slot::shadow::Slot;

/// Writes in flight: enough items to cover a miss, few enough to stay in L1.
const DEPTH: usize = 8;

/// Lands every `(key, value)` of `items` on the instance `index(key)`
/// resolves to, with `land(slot, index, value)`, each `DEPTH` items after its
/// shadow bytes (`width` at `offset` of the instance) were prefetched. Stops
/// at the first key that does not resolve, with the items before it landed;
/// if `items` or `index` panics, the items before it land too, as they
/// would in a loop of single writes.
#[inline]
pub(crate) fn write_all<K, V: Copy, E>(
    slot: &mut Slot,
    (offset, width): (u32, usize),
    items: impl IntoIterator<Item = (K, V)>,
    mut index: impl FnMut(K) -> Result<u32, E>,
    land: impl FnMut(&mut Slot, u32, V),
) -> Result<(), E> {
    let mut pending = Pending { slot, queue: [None; DEPTH], at: 0, land };
    items.into_iter().try_for_each(|(key, value)| {
        let i = index(key)?;
        if let Some(bytes) = pending.slot.shadow_span(i, offset, width) {
            prefetch(bytes);
        }
        if let Some((i, v)) = pending.queue[pending.at].replace((i, value)) {
            (pending.land)(pending.slot, i, v);
        }
        pending.at = (pending.at + 1) % DEPTH;
        Ok(())
    })
    // `pending` drops here, or while unwinding, and lands what it holds.
}

/// The writes queued and not landed yet; dropping it lands them.
struct Pending<'s, V: Copy, L: FnMut(&mut Slot, u32, V)> {
    slot: &'s mut Slot,
    queue: [Option<(u32, V)>; DEPTH],
    /// The oldest entry's place in `queue`.
    at: usize,
    land: L,
}

impl<V: Copy, L: FnMut(&mut Slot, u32, V)> Drop for Pending<'_, V, L> {
    fn drop(&mut self) {
        // The oldest first: a later write to the same instance lands last.
        for k in 0..DEPTH {
            if let Some((i, v)) = self.queue[(self.at + k) % DEPTH].take() {
                (self.land)(self.slot, i, v);
            }
        }
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
