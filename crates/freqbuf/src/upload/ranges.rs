//! Planning: grow each slot's GPU buffer where its shadow outgrew it, take its
//! dirty ranges, write single ranges straight away, and cut the rest into
//! chunks that fit one staging upload.

use super::belt::LARGEST;
use super::cursor::{Cursor, Growth};
use super::scatter::{ROW, ROW_WORDS, Table};
use super::{FlushReport, MERGE_GAP, Sink, Uploader};
use crate::device::scope;
use crate::errors::Error;
use crate::slot::array::Addressing;
use crate::slot::plan::Frequency;
use crate::slot::shadow::{SLOT_USAGE, Slot, grown_capacity};
use crate::stats::{FrameStats, Stats};

/// One slot's share of one chunk of the packed upload.
#[derive(Debug)]
pub(super) struct Job {
    pub(super) slot: usize,
    /// Its pieces in `Uploader::pieces`.
    pub(super) ranges: std::ops::Range<usize>,
    /// Where its first piece starts in the staging buffer.
    pub(super) src: u64,
    /// Where its scatter table starts (scatter only).
    pub(super) table: u64,
    pub(super) scatter: bool,
    /// Its table's form (scatter only), set when it is staged.
    pub(super) form: Table,
}

impl Uploader {
    /// Marks dirty again every packed range from `from` on: a chunk failed
    /// to stage or move, so neither it nor any later chunk reached the GPU.
    pub(super) fn restore(&self, from: Cursor, slots: &mut [Slot]) {
        for (p, (slot, ranges, _)) in self.packed.iter().enumerate().skip(from.packed) {
            let first = if p == from.packed { from.range } else { ranges.start };
            for r in first..ranges.end {
                let (lo, hi) = self.ranges[r];
                let lo = if p == from.packed && r == from.range { lo + from.done } else { lo };
                slots[*slot].remark(lo, hi);
            }
        }
    }
}

impl Uploader {
    /// Grows every slot's buffer as needed and takes its dirty ranges: a single
    /// range is written at once, the others are packed for staging.
    #[allow(clippy::too_many_arguments, reason = "the flush's own state, passed down once")]
    pub(super) fn take_ranges(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        slots: &mut [Slot],
        highs: [u32; Frequency::COUNT],
        stats: &mut FrameStats,
        sink: &mut Sink<'_>,
        report: &mut FlushReport,
    ) {
        self.ranges.clear();
        self.packed.clear();
        for (i, slot) in slots.iter_mut().enumerate() {
            let s = stats.slot_mut(slot.id());
            s.dirty_instances += slot.dirty_count() as u64;
            let high = highs[slot.frequency().index()];
            let growth = match grow(device, self.sizes(), slot, high, sink, s) {
                Ok((g, over)) => {
                    // Instances past the limit stay dirty; the rest flush below.
                    if let Some(e) = over {
                        report.error.get_or_insert(e);
                    }
                    g
                }
                // Still upload what fits the buffer as it is laid out; the rest stays dirty.
                Err(e) => {
                    report.error.get_or_insert(e);
                    if !slot.gpu_matches_stride() {
                        continue;
                    }
                    Growth::None
                }
            };
            if growth != Growth::None {
                report.replaced.push(slot.id());
            }
            let start = self.ranges.len();
            // A caller-owned slot's dirty set holds unwritten rows: its writes staged their own.
            if slot.caller_owned() {
                continue;
            }
            let (n, bytes) = self.take(slot, growth, s);
            if n == 0 {
                continue;
            }
            // One range straight into the slot, unless a growth copy recorded
            // for this submit would land on top of it.
            if n == 1 && growth != Growth::Copied {
                let range = self.ranges.pop().unwrap_or_default();
                if let Err(e) = self.write_direct(device, queue, slot, range, sink, s) {
                    report.error.get_or_insert(e);
                }
                continue;
            }
            s.bytes_uploaded += bytes;
            let buffer_size = slot.gpu_capacity() as u64 * slot.gpu_stride() as u64;
            let scatter = self.scatters(n, buffer_size);
            self.packed.push((i, start..self.ranges.len(), scatter));
        }
    }

    /// Takes a slot's dirty ranges into `self.ranges`: all of a re-laid
    /// slot, else one range where the dirty bytes fill their span, else one per
    /// run of dirty instances. Returns how many it took, and their bytes.
    fn take(&mut self, slot: &mut Slot, growth: Growth, s: &mut Stats) -> (usize, u64) {
        let start = self.ranges.len();
        if growth == Growth::Relaid {
            slot.clear_dirty();
            let end = (slot.gpu_capacity() as u64 * slot.stride() as u64).min(slot.shadow().len() as u64);
            self.ranges.push((0, end));
            return (1, end);
        }
        if let Some(range) = slot.take_whole_span(self.span_fraction, slot.gpu_capacity()) {
            // Mostly dirty, found from the set's ends without a range per instance.
            self.ranges.push(range);
            s.whole_spans += 1;
            return (1, range.1 - range.0);
        }
        slot.take_ranges(MERGE_GAP, slot.gpu_capacity(), &mut self.ranges);
        let n = self.ranges.len() - start;
        let dirty = self.ranges[start..].iter().map(|r| r.1 - r.0).sum::<u64>();
        // Mostly dirty: one upload of the whole span beats thousands of
        // ranges. The clean bytes inside equal what the GPU already holds.
        if n > 1 {
            let (lo, hi) = (self.ranges[start].0, self.ranges[self.ranges.len() - 1].1);
            if crate::slot::dirty::fills_span(dirty, hi - lo, self.span_fraction) {
                self.ranges.truncate(start);
                self.ranges.push((lo, hi));
                s.whole_spans += 1;
                return (1, hi - lo);
            }
        }
        (n, dirty)
    }

    /// Writes the shadow bytes `lo..hi` straight into the slot's buffer; on
    /// failure they stay dirty for the next flush.
    fn write_direct(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        slot: &mut Slot,
        (lo, hi): (u64, u64),
        sink: &mut Sink<'_>,
        s: &mut Stats,
    ) -> Result<(), Error> {
        let buffer = slot.gpu_buffer().expect("grown above");
        // A re-laid slot whose buffer holds no instance yet has an empty range.
        let Some(len) = wgpu::BufferSize::new(hi - lo) else { return Ok(()) };
        let bytes = &slot.shadow()[lo as usize..hi as usize];
        let written = if len.get() > LARGEST {
            queue.write_buffer(buffer, lo, bytes);
            Ok(())
        } else {
            let upload = self.belt.write(device, sink.encoder(device), buffer, lo, len);
            upload.map(|mut view| view.slice(..).copy_from_slice(bytes))
        };
        match written {
            Ok(()) => {
                s.upload_calls += 1;
                s.bytes_uploaded += hi - lo;
                Ok(())
            }
            Err(e) => {
                slot.remark(lo, hi);
                Err(e)
            }
        }
    }

    /// Cuts the next chunk from the packed ranges at `cursor`: at most a
    /// [`chunk_budget`] of data plus scatter tables. Fills `jobs` and `pieces`;
    /// returns the data bytes.
    pub(super) fn plan_chunk(&mut self, cursor: &mut Cursor) -> u64 {
        let budget = chunk_budget(&self.limits);
        let storage_align = self.limits.min_storage_buffer_offset_alignment as u64;
        self.jobs.clear();
        self.pieces.clear();
        let (mut used, mut data) = (0u64, 0u64);
        while cursor.packed < self.packed.len() {
            let (slot, ref ranges, scatter) = self.packed[cursor.packed];
            let (row, overhead) = if scatter { (ROW, 2 * ROW + storage_align) } else { (0, 0) };
            if used + overhead + row + 4 > budget {
                break;
            }
            used += overhead;
            let first = self.pieces.len();
            let mut full = false;
            while cursor.range < ranges.end {
                let (lo, hi) = self.ranges[cursor.range];
                let lo = lo + cursor.done;
                let room = budget.saturating_sub(used + row) & !3;
                if room == 0 {
                    full = true;
                    break;
                }
                // A scatter row moves at most ROW_WORDS words: longer ranges take several.
                let most = if scatter { room.min(ROW_WORDS * 4) } else { room };
                let take = (hi - lo).min(most);
                self.pieces.push((lo, lo + take));
                used += take + row;
                data += take;
                if lo + take == hi {
                    cursor.range += 1;
                    cursor.done = 0;
                } else {
                    cursor.done += take;
                    if take == most && most < room {
                        continue; // the next row of the same range
                    }
                    full = true;
                    break;
                }
            }
            if self.pieces.len() > first {
                self.jobs.push(Job {
                    slot,
                    ranges: first..self.pieces.len(),
                    src: 0,
                    table: 0,
                    scatter,
                    form: Table::Pairs,
                });
            }
            if full {
                break;
            }
            cursor.packed += 1;
            cursor.range = self.packed.get(cursor.packed).map_or(0, |p| p.1.start);
        }
        // The budget always admits one job's overhead and a word, so every chunk progresses.
        debug_assert!(!self.jobs.is_empty(), "a chunk made no progress");
        let mut at = 0;
        for job in &mut self.jobs {
            job.src = at;
            at += self.pieces[job.ranges.clone()].iter().map(|r| r.1 - r.0).sum::<u64>();
        }
        data
    }
}

/// Grows or re-lays a slot's GPU buffer where the shadow outgrew it: to the
/// next power of two of instances, capped by `max_buffer_size`. Past the cap
/// the buffer still grows to it, so the instances that fit flush; the
/// returned [`Error::SlotTooLarge`] names the ones that do not.
fn grow(
    device: &wgpu::Device,
    (max_buffer_size, max_storage_binding): (u64, u64),
    slot: &mut Slot,
    high: u32,
    sink: &mut Sink<'_>,
    s: &mut Stats,
) -> Result<(Growth, Option<Error>), Error> {
    let need = high.min(slot.instances());
    if slot.gpu_matches_stride() && slot.gpu_capacity() >= need {
        return Ok((if slot.expose_size() { Growth::Exposed } else { Growth::None }, None));
    }
    let stride = slot.stride() as u64;
    // An array slot in a storage buffer is bound whole: one binding holds it all.
    let (limit, limit_name) = match slot.addressing() {
        Addressing::Storage if max_storage_binding < max_buffer_size => {
            (max_storage_binding, "max_storage_buffer_binding_size")
        }
        _ => (max_buffer_size, "max_buffer_size"),
    };
    let most = (limit / stride).min(u32::MAX as u64) as u32;
    let most = match slot.addressing() {
        Addressing::Batched { per } => most / per * per,
        _ => most,
    };
    let over = (need > most).then(|| Error::SlotTooLarge {
        binding: slot.binding(),
        instances: need,
        stride: slot.stride(),
        limit,
        limit_name,
    });
    let capacity = grown_capacity(need, slot.addressing()).min(most);
    if capacity == 0 {
        return over.map_or(Ok((Growth::None, None)), Err);
    }
    if slot.gpu_matches_stride() && slot.gpu_capacity() >= capacity {
        let exposed = slot.expose_size();
        return Ok((if exposed { Growth::Exposed } else { Growth::None }, over));
    }
    let desc = wgpu::BufferDescriptor {
        label: Some(slot.label()),
        size: capacity as u64 * stride,
        usage: SLOT_USAGE,
        mapped_at_creation: false,
    };
    let what = || format!("slot {} buffer of {} bytes", slot.binding(), desc.size);
    let buffer = scope::scoped(device, what, || device.create_buffer(&desc))?;
    let growth = match slot.gpu_buffer() {
        Some(old) if slot.gpu_matches_stride() => {
            let bytes = slot.gpu_capacity().min(capacity) as u64 * stride;
            sink.encoder(device).copy_buffer_to_buffer(old, 0, &buffer, 0, bytes);
            s.copy_commands += 1;
            s.buffer_growths += 1;
            Growth::Copied
        }
        Some(_) => {
            s.buffer_growths += 1;
            Growth::Relaid
        }
        None => Growth::Created,
    };
    slot.install(buffer, capacity);
    Ok((growth, over))
}

impl Uploader {
    /// `max_buffer_size` and `max_storage_buffer_binding_size`.
    fn sizes(&self) -> (u64, u64) {
        (self.limits.max_buffer_size, self.limits.max_storage_buffer_binding_size)
    }
}

/// Bytes of data and tables in one chunk: a quarter of what one storage
/// binding (and one buffer) may hold, so that data, tables and the table
/// window together always fit one binding.
/// Devices without storage buffers (WebGL2) only copy, bounded by `max_buffer_size`.
pub(super) fn chunk_budget(limits: &wgpu::Limits) -> u64 {
    ((staging_limit(limits) & !255) / 4).max(MIN_CHUNK)
}

/// The smallest chunk: one scatter job's tables (at the largest storage
/// offset alignment) and a word. The scatter pass needs a storage binding of
/// four of these; below that, slots flush by copies.
pub(super) const MIN_CHUNK: u64 = 512;

/// The largest staging buffer: one storage binding where the device has
/// storage buffers (the scatter binds it whole), else one buffer.
pub(super) fn staging_limit(limits: &wgpu::Limits) -> u64 {
    match limits.max_storage_buffer_binding_size {
        0 => limits.max_buffer_size,
        b => limits.max_buffer_size.min(b),
    }
}
