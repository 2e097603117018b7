//! Where a flush stands and what happened to a slot's buffer: the state the
//! chunk planning in `ranges.rs` keeps between chunks. Nothing here names
//! the `Uploader`, whose methods use it.

/// Where chunk planning stands: a packed slot, a range of it, bytes of that range already taken.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cursor {
    pub(super) packed: usize,
    pub(super) range: usize,
    pub(super) done: u64,
}

impl Cursor {
    pub(super) fn new(packed: &[(usize, std::ops::Range<usize>, bool)]) -> Self {
        Self { packed: 0, range: packed.first().map_or(0, |p| p.1.start), done: 0 }
    }

    pub(super) fn done(&self, packed: &[(usize, std::ops::Range<usize>, bool)]) -> bool {
        self.packed >= packed.len()
    }
}

/// How a slot's GPU buffer changed in this flush.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Growth {
    None,
    /// Same buffer; its bind groups must expose a larger block.
    Exposed,
    /// A first buffer: its dirty ranges cover what was written, the rest is zero.
    Created,
    /// Replaced by a larger one, old contents copied on the GPU in this submit.
    Copied,
    /// Replaced with a new stride: the whole shadow must be uploaded.
    Relaid,
}
