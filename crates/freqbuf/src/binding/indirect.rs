//! `IndirectDraws`: a draw list issued as multi-draw-indirect runs.
//!
//! Use it instead of [`Binder::bind_list`](crate::Binder::bind_list) when a
//! pass draws many objects whose data is in array slots: draws that need no
//! bind group change, share a shader and share the application's geometry
//! batch form a run, and a run is one `multi_draw_indirect` call whose
//! arguments carry each object's element index as `first_instance` (Bevy's
//! design since 0.16). The arguments live in a buffer freqbuf keeps and
//! writes only where they changed, and the runs are planned once per list and
//! bind state, so a frame that changes nothing costs a call per run, not per
//! draw. Where the device lacks `Features::INDIRECT_FIRST_INSTANCE` (or
//! indirect execution), the same runs are drawn draw by draw.

use std::ops::Range;

/// One draw's geometry, as the application gives it: what
/// `draw(first..first + count, ..)` or `draw_indexed(first..first + count,
/// base_vertex, ..)` would take, and a batch number. Draws of one batch use
/// the same vertex and index buffers; a run never spans two batches, and the
/// application sets the buffers when the batch changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DrawArgs {
    /// Vertices (or indices, for indexed draws).
    pub count: u32,
    /// The first vertex (or index).
    pub first: u32,
    /// Added to each index (indexed draws only).
    pub base_vertex: i32,
    /// The application's geometry batch.
    pub batch: u32,
}

impl DrawArgs {
    /// `count` vertices from `first`, in batch 0.
    #[inline]
    pub fn vertices(count: u32, first: u32) -> Self {
        Self { count, first, base_vertex: 0, batch: 0 }
    }
}

/// The draws of a [`DrawList`](crate::DrawList) with their geometry, issued
/// by [`Binder::draw_indirect`](crate::Binder::draw_indirect). Keep one per
/// list, frame after frame: its argument buffer and run plan are kept.
#[derive(Debug)]
pub struct IndirectDraws {
    pub(crate) indexed: bool,
    pub(crate) args: Vec<DrawArgs>,
    /// The argument words the GPU buffer holds (4 or 5 per draw).
    pub(crate) words: Vec<u32>,
    pub(crate) buffer: Option<wgpu::Buffer>,
    /// The device serial ([`crate::Manager::device_serial`]) `buffer` was made
    /// on: a buffer of a device the manager left is made again, never used.
    pub(crate) device: u64,
    /// Whether a recorded indirect call reads `buffer` since it was last
    /// written: its encoder may be unsubmitted, and a `write_buffer` would
    /// land before it runs, so new arguments go to a new buffer.
    pub(crate) in_use: bool,
    /// Runs of the current plan, in draw order.
    pub(crate) runs: Vec<Run>,
    /// (list serial, recording generation, args version) the plan was made for.
    pub(crate) planned: Option<(u64, u64, u64)>,
    pub(crate) version: u64,
    /// Whether the words changed since they were written, and where.
    pub(crate) dirty: Option<Range<usize>>,
}

/// Draws `draws` of the list, drawn by one call after the bind commands
/// `commands` of the recording; `batch_change`: the shader or batch differs
/// from the run before, so the application sets its pipeline and buffers.
#[derive(Clone, Debug)]
pub(crate) struct Run {
    pub(crate) draws: Range<u32>,
    pub(crate) commands: Range<u32>,
    pub(crate) batch_change: bool,
}

impl IndirectDraws {
    /// Non-indexed draws (`multi_draw_indirect`), one [`DrawArgs`] per draw
    /// of the list, in its order.
    pub fn new(args: Vec<DrawArgs>) -> Self {
        Self::with_kind(false, args)
    }

    /// Indexed draws (`multi_draw_indexed_indirect`).
    pub fn indexed(args: Vec<DrawArgs>) -> Self {
        Self::with_kind(true, args)
    }

    fn with_kind(indexed: bool, args: Vec<DrawArgs>) -> Self {
        Self {
            indexed,
            args,
            words: Vec::new(),
            buffer: None,
            device: 0,
            in_use: false,
            runs: Vec::new(),
            planned: None,
            version: 0,
            dirty: None,
        }
    }

    /// Changes draw `i`'s geometry; the next draw writes only the changed
    /// arguments. Cost: a comparison; a new plan when it changed.
    ///
    /// # Panics
    /// When `i` is not a draw of it.
    pub fn set(&mut self, i: usize, args: DrawArgs) {
        if self.args[i] != args {
            self.args[i] = args;
            self.version += 1;
        }
    }

    /// Says that every encoder that drew these draws has been submitted, so
    /// that the next change of arguments writes only the changed ones into
    /// the buffer those encoders read. Without it, a change after a draw
    /// writes all of them into a new buffer: an encoder drawn into before
    /// may still be unsubmitted, and a `write_buffer` into its buffer would
    /// land before it runs (one `IndirectDraws` drawn in two passes with
    /// different geometry before one submit). Cost: none.
    #[inline]
    pub fn submitted(&mut self) {
        self.in_use = false;
    }

    /// The geometry of every draw.
    #[inline]
    pub fn args(&self) -> &[DrawArgs] {
        &self.args
    }

    /// The runs of the last plan: the calls one draw makes on a device with
    /// `INDIRECT_FIRST_INSTANCE`.
    #[inline]
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Words per draw in the argument buffer.
    #[inline]
    pub(crate) fn stride_words(&self) -> usize {
        if self.indexed { 5 } else { 4 }
    }

    /// Writes draw `i`'s arguments with its first instance, marking what changed.
    pub(crate) fn put(&mut self, i: usize, first_instance: u32) {
        let a = self.args[i];
        let n = self.stride_words();
        let at = i * n;
        let mut w = [0u32; 5];
        if self.indexed {
            w = [a.count, 1, a.first, a.base_vertex as u32, first_instance];
        } else {
            w[..4].copy_from_slice(&[a.count, 1, a.first, first_instance]);
        }
        if self.words[at..at + n] != w[..n] {
            self.words[at..at + n].copy_from_slice(&w[..n]);
            let d = self.dirty.get_or_insert(at..at + n);
            *d = d.start.min(at)..d.end.max(at + n);
        }
    }
}
