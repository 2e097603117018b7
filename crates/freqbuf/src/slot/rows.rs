//! `Rows`: a slot whose rows the application owns, written from its own
//! packed array with no CPU copy in freqbuf.
//!
//! Use it where the renderer already keeps every object's GPU row in one
//! array, in the order of an [`InstanceList`](crate::InstanceList), and most
//! rows move each frame: a write packs the changed rows straight into
//! freqbuf's staging memory, so the bytes are copied once, where a
//! [`Batch`](crate::Batch) writes the shadow and the flush copies it again.
//! Keep the shadow (the default) where values are set member by member, by
//! several parts of a renderer, or where unchanged values should be found
//! by freqbuf: a caller-owned slot gives up per-member `set` (a slot has one
//! source), the skipping of equal values (the changed list says what moved),
//! and keeping values across a device loss without the application (after
//! [`Manager::recreate`](crate::Manager::recreate) every row must be written
//! again before it is drawn).

use std::marker::PhantomData;

use crate::id::SlotId;

/// A slot handed to the application ([`Manager::own_rows`](crate::Manager::own_rows)):
/// rows of `T` (`bytemuck::Pod`, as long as the block) or bytes packed by a
/// closure ([`Manager::write_rows_with`](crate::Manager::write_rows_with)).
#[derive(Debug)]
pub struct Rows<T> {
    pub(crate) slot: SlotId,
    _row: PhantomData<fn(&T)>,
}

impl<T> Rows<T> {
    pub(crate) fn new(slot: SlotId) -> Self {
        Self { slot, _row: PhantomData }
    }

    /// The slot whose rows these are.
    pub fn slot(&self) -> SlotId {
        self.slot
    }
}

impl<T> Clone for Rows<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Rows<T> {}
