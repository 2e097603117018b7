//! Caller-owned rows as a write names them (`RowsToPack`, `RowSet`) and as
//! the belt holds them until the flush (`Staged`). `rows.rs` packs and moves
//! them; nothing here names the `Uploader`.

use std::ops::Range;

/// Rows one write packed into one belt allocation, waiting for the flush.
#[derive(Debug)]
pub(crate) struct Staged {
    pub(super) slot: usize,
    /// The slot's stride they were packed for: a re-lay before the flush voids them.
    pub(super) stride: u32,
    /// Bytes of one row (the block, in whole words).
    pub(super) row: u32,
    pub(super) buffer: wgpu::Buffer,
    pub(super) offset: u64,
    /// Bytes of rows; the scatter table follows at `table`.
    pub(super) data: u64,
    /// Where the scatter table starts in the allocation; `None` moves by copies.
    pub(super) table: Option<u64>,
    /// The table's entries and bytes (scatter only).
    pub(super) entries: u64,
    pub(super) table_bytes: u64,
    /// Its runs of consecutive rows in `Uploader::row_runs`: (first index, rows).
    pub(super) runs: Range<usize>,
}

/// What a write packs: a slot's rows, ascending and distinct, each with the
/// position in the caller's array it comes from.
pub(crate) struct RowsToPack<'a> {
    pub(crate) slot: usize,
    pub(crate) rows: RowSet<'a>,
    /// Runs of consecutive rows among them.
    pub(crate) runs: usize,
}

/// Rows and the positions they come from: pairs, or one run where both
/// are consecutive (everything moved, in list order), kept as its ends.
#[derive(Clone, Copy, Debug)]
pub(crate) enum RowSet<'a> {
    Pairs(&'a [(u32, u32)]),
    Run { index: u32, position: u32, len: u32 },
}

impl RowSet<'_> {
    pub(crate) fn len(&self) -> usize {
        match self {
            RowSet::Pairs(p) => p.len(),
            RowSet::Run { len, .. } => *len as usize,
        }
    }

    /// Rows `at..at + n`.
    pub(super) fn sub(&self, at: usize, n: usize) -> Self {
        match *self {
            RowSet::Pairs(p) => RowSet::Pairs(&p[at..at + n]),
            RowSet::Run { index, position, .. } => {
                RowSet::Run { index: index + at as u32, position: position + at as u32, len: n as u32 }
            }
        }
    }

    /// Rows `at..`.
    pub(crate) fn sub_from(&self, at: usize) -> Self {
        self.sub(at, self.len() - at)
    }

    /// Calls `f(index, position, n)` for each stretch consecutive in both.
    pub(crate) fn stretches(&self, mut f: impl FnMut(u32, u32, u32)) {
        match *self {
            RowSet::Pairs(p) => {
                for same in p.chunk_by(|a, b| b.0 == a.0 + 1 && b.1 == a.1 + 1) {
                    f(same[0].0, same[0].1, same.len() as u32);
                }
            }
            RowSet::Run { index, position, len } => f(index, position, len),
        }
    }
}
