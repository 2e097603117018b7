//! Flush: moving the dirty bytes of every slot's CPU shadow to the GPU.
//!
//! Per slot, dirty instances give sorted, coalesced byte ranges. A slot with one
//! range is written straight into its buffer through the kept staging belt
//! (`queue.write_buffer` only past 16 MiB, a re-laid slot or a first upload).
//! The ranges of all other slots are packed into one staging buffer with a
//! single upload call, then moved into place on the GPU by one of two
//! [`FlushStrategy`]s. Either way a frame makes at most one upload call per
//! slot, and the work is proportional to the dirty bytes, not to the number of
//! instances.
//!
//! The steps, one file each: `ranges` (grow buffers, take ranges, write
//! single ranges, cut chunks), `stage` (one upload call per chunk), `moves`
//! (copies and scatter dispatches), with the scatter pipeline in `scatter` and
//! the kept staging memory in `belt`.
mod belt;
mod cursor;
mod moves;
mod ranges;
mod row_set;
mod rows;
mod scatter;
mod stage;

use crate::errors::Error;
use crate::id::SlotId;
use crate::slot::plan::Frequency;
use crate::slot::shadow::Slot;
use crate::stats::FrameStats;
pub(crate) use row_set::{RowSet, RowsToPack};

/// How packed dirty ranges move from the staging buffer into slot buffers.
///
/// Measured with `cargo bench --bench flush` (figures in design.md): a copy
/// command costs wgpu a few microseconds of CPU each, so the scatter pass wins
/// from about a hundred ranges on, while a handful of copies beats a dispatch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FlushStrategy {
    /// Per slot: copies up to 32 ranges, the scatter pass above.
    #[default]
    Auto,
    /// One `copy_buffer_to_buffer` per coalesced range.
    Copies,
    /// One compute dispatch per slot that scatters every range (an invocation per word).
    /// Falls back to copies for slot buffers larger than a storage binding may be.
    Scatter,
}

/// Up to this many ranges in a slot, [`FlushStrategy::Auto`] uses copies.
const AUTO_COPY_LIMIT: usize = 32;

/// The default of `Uploader::span_fraction`, chosen with `cargo bench --bench flush`
/// (`flush_density`, figures in design.md).
pub(crate) const SPAN_FRACTION: f32 = 0.2;

/// Ranges closer than this are uploaded as one (the bytes between are clean but
/// identical on the GPU, so correctness holds; a copy command costs more).
const MERGE_GAP: u32 = 16;

/// What one flush did to the slots, for the layers above it.
#[derive(Debug, Default)]
pub(crate) struct FlushReport {
    /// Slots whose GPU buffer or exposed block size changed: their bind groups are stale.
    pub(crate) replaced: Vec<SlotId>,
    /// The first error; every slot that could flush did.
    pub(crate) error: Option<Error>,
    /// Caller-owned rows written before this flush are unwritten again:
    /// recorded draws must be checked anew.
    pub(crate) rows_lost: bool,
}

/// Uploads slots' dirty bytes; owns the staging buffer.
#[derive(Debug)]
pub(crate) struct Uploader {
    pub(crate) strategy: FlushStrategy,
    /// A slot whose dirty bytes cover at least this fraction of the span from
    /// its first to its last dirty byte is uploaded as that one span.
    pub(crate) span_fraction: f32,
    /// The device's limits: buffer and storage-binding sizes bound the chunks.
    limits: wgpu::Limits,
    staging: Option<wgpu::Buffer>,
    /// Size of the table window each scatter dispatch sees.
    window: u64,
    /// Packed ranges of every slot that goes through the staging buffer.
    ranges: Vec<(u64, u64)>,
    /// Per slot with packed ranges: (slot, ranges, scatter).
    packed: Vec<(usize, std::ops::Range<usize>, bool)>,
    /// The current chunk: one job per slot share, and the ranges cut to fit it.
    jobs: Vec<ranges::Job>,
    pieces: Vec<(u64, u64)>,
    /// One scatter table's entries as they are packed, kept to reuse their allocation.
    table_words: Vec<u32>,
    scatter: Option<scatter::Scatter>,
    /// Mapped memory the uploaded bytes go through, kept across flushes. Its
    /// copies into the staging buffer are recorded in the flush's encoder, in
    /// order with the moves that read it, so the staging buffer is never
    /// written while an earlier encoder's moves still have to read it.
    belt: belt::Belt,
    /// Caller-owned rows packed by writes since the last flush ([`rows`]).
    staged: Vec<row_set::Staged>,
    /// Their runs of consecutive rows: (first index, rows).
    row_runs: Vec<(u32, u32)>,
    /// A write's (row, position) pairs, kept to reuse their allocation.
    pub(crate) row_pairs: Vec<(u32, u32)>,
    /// A write's changed positions, gathered first where the list is a table.
    pub(crate) row_positions: Vec<usize>,
}

impl Uploader {
    pub(crate) fn new(strategy: FlushStrategy, limits: wgpu::Limits) -> Self {
        Self {
            strategy,
            span_fraction: SPAN_FRACTION,
            limits,
            staging: None,
            window: 256,
            ranges: Vec::new(),
            packed: Vec::new(),
            jobs: Vec::new(),
            pieces: Vec::new(),
            table_words: Vec::new(),
            scatter: None,
            belt: belt::Belt::default(),
            staged: Vec::new(),
            row_runs: Vec::new(),
            row_pairs: Vec::new(),
            row_positions: Vec::new(),
        }
    }

    /// Uploads every slot's dirty ranges, growing GPU buffers first where the
    /// shadow outgrew them; `highs` are the instance counts per frequency.
    ///
    /// Plan (grow buffers, take ranges, choose copies or scatter per slot),
    /// then per chunk of at most a quarter of a storage binding: stage (one
    /// upload call) and move (copies and dispatches, one submit). A slot that
    /// cannot grow within `max_buffer_size` keeps its buffer and its dirty
    /// bytes; its error is reported after the others flushed.
    pub(crate) fn flush(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        slots: &mut [Slot],
        highs: [u32; Frequency::COUNT],
        stats: &mut FrameStats,
        mut sink: Sink<'_>,
    ) -> FlushReport {
        let mut report = FlushReport::default();
        self.take_ranges(device, queue, slots, highs, stats, &mut sink, &mut report);
        // A replaced buffer's scatter group binds the old one: drop it before
        // any move, staged rows' included (they once scattered into a buffer
        // that a growth in the same flush had just replaced, and were lost).
        for (i, slot) in slots.iter().enumerate() {
            if report.replaced.contains(&slot.id()) {
                if let Some(s) = self.scatter.as_mut() {
                    s.groups.remove(&i);
                }
            }
        }
        // Before any submit: the belt memory the rows lie in is unmapped at the first.
        match self.move_rows(device, slots, stats, &mut sink) {
            Ok(lost) => report.rows_lost = lost,
            Err(e) => {
                report.rows_lost = true;
                report.error.get_or_insert(e);
            }
        }
        let mut cursor = cursor::Cursor::new(&self.packed);
        while !cursor.done(&self.packed) {
            let start = cursor;
            let data = self.plan_chunk(&mut cursor);
            if let Err(e) = self
                .stage(device, stats, slots, data, &mut sink)
                .and_then(|staging| self.move_chunk(device, queue, slots, stats, &staging, &mut sink))
            {
                // Nothing from this chunk on reached the GPU: keep it dirty for the next flush.
                self.restore(start, slots);
                report.error.get_or_insert(e);
                break;
            }
        }
        self.submit(queue, &mut sink);
        if let Sink::External(enc) = &sink {
            self.belt.recall_on_submit(enc);
        }
        self.belt.flushed();
        report
    }

    /// Submits what an own encoder recorded (the belt's chunks closed before,
    /// recalled after); the application submits its own.
    fn submit(&mut self, queue: &wgpu::Queue, sink: &mut Sink<'_>) {
        if let Sink::Own(e) = sink {
            if let Some(e) = e.take() {
                self.belt.finish();
                queue.submit(std::iter::once(e.finish()));
                self.belt.recall();
            }
        }
    }
}

/// Where a flush records its copies and dispatches.
#[derive(Debug)]
pub(crate) enum Sink<'e> {
    /// Its own encoder, submitted per chunk and at the end.
    Own(Option<wgpu::CommandEncoder>),
    /// The application's frame encoder: nothing is submitted.
    External(&'e mut wgpu::CommandEncoder),
}

impl Sink<'_> {
    /// The encoder to record into, made on first use for [`Sink::Own`].
    fn encoder(&mut self, device: &wgpu::Device) -> &mut wgpu::CommandEncoder {
        match self {
            Sink::Own(e) => e.get_or_insert_with(|| {
                device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("freqbuf flush") })
            }),
            Sink::External(e) => e,
        }
    }
}
