//! Caller-owned rows on their way up: a write packs them straight into belt
//! memory ([`Uploader::stage_rows`]), and the next flush moves them into the
//! slot, after any growth copy ([`Uploader::move_rows`]).
//!
//! No CPU copy of the rows is kept: only their indices, so that rows whose
//! move failed (or that a re-lay made stale before the flush) become
//! unwritten again, and the next write packs them from the caller's array.

use std::ops::Range;

use super::belt::LARGEST;
use super::row_set::{RowSet, RowsToPack, Staged};
use super::scatter::{ROW, ROW_WORDS, Scatter, Table};
use super::{AUTO_COPY_LIMIT, FlushStrategy, Sink, Uploader};
use crate::device::scope;
use crate::errors::Error;
use crate::slot::shadow::Slot;
use crate::stats::FrameStats;

const PREFETCH_AHEAD: usize = 8;

impl Uploader {
    /// Packs `rows` into belt memory through `pack(position, n, bytes)`,
    /// which writes the rows of positions `position..position + n` (rows
    /// consecutive in the buffer and in the caller's array go as one): one
    /// copy per run of consecutive rows where there are few, else a scatter
    /// table, by the flush's own rule. On error the rows from the failed
    /// allocation on are returned to be marked unwritten.
    pub(crate) fn stage_rows(
        &mut self,
        device: &wgpu::Device,
        slot: &Slot,
        what: RowsToPack<'_>,
        pack: &mut impl FnMut(usize, usize, wgpu::WriteOnly<'_, [u8]>),
        ahead: &impl Fn(usize),
    ) -> Result<(), (Error, usize)> {
        let (row, stride) = (slot.size().next_multiple_of(4), slot.stride());
        let rows = what.rows;
        // Rows that touch in the buffer move as one run (array slots; a
        // dynamic-offset slot's rows lie a stride apart).
        let merge = row == stride;
        let runs = if merge { what.runs } else { rows.len() };
        let scatter = self.scatters(runs, slot.instances() as u64 * stride as u64);
        let align = self.limits.min_storage_buffer_offset_alignment as u64;
        // A scatter allocation is copied whole into the staging buffer, with its window after it.
        let cap = match scatter {
            true => (super::ranges::chunk_budget(&self.limits) - align).min(LARGEST),
            false => LARGEST,
        };
        let mut at = 0;
        while at < rows.len() {
            // As many rows as fit the allocation: their bytes, and a table row per 64 words of each run.
            let per_row = row as u64 + if scatter { ROW * (row as u64).div_ceil(ROW_WORDS * 4) } else { 0 };
            let fixed = if scatter { 2 * ROW + align } else { 0 };
            let n = (((cap - fixed) / per_row).max(1) as usize).min(rows.len() - at);
            // The write's runs are the group's where the group is the whole write.
            let group = (rows.sub(at, n), (n == rows.len()).then_some(what.runs));
            let form = (row, stride, merge);
            if let Err(e) = self.stage_group(device, what.slot, form, group, scatter, (pack, ahead)) {
                return Err((e, at));
            }
            at += n;
        }
        Ok(())
    }

    fn stage_group(
        &mut self,
        device: &wgpu::Device,
        slot: usize,
        (row, stride, merge): (u32, u32, bool),
        (rows, known_runs): (RowSet<'_>, Option<usize>),
        scatter: bool,
        (pack, ahead): (&mut impl FnMut(usize, usize, wgpu::WriteOnly<'_, [u8]>), &impl Fn(usize)),
    ) -> Result<(), Error> {
        let start = self.row_runs.len();
        // Scattered rows whose uniform table is smaller whatever their runs:
        // runs, rows and table in one pass over the pairs.
        let one_pass = match rows {
            RowSet::Pairs(pairs) => scatter && merge && uniform_anyway(pairs, row, known_runs),
            RowSet::Run { .. } => false,
        };
        if !one_pass {
            let runs = &mut self.row_runs;
            rows.stretches(|index, _, n| match runs[start..].last_mut() {
                Some((first, m)) if merge && *first + *m == index => *m += n,
                _ if merge => runs.push((index, n)),
                _ => runs.extend((index..index + n).map(|i| (i, 1))),
            });
        }
        let data = rows.len() as u64 * row as u64;
        let align = self.limits.min_storage_buffer_offset_alignment as u64;
        // Pairs cut each run into pieces of at most ROW_WORDS words; a
        // uniform table names each row: whichever is smaller.
        let (table, form, entries) = match scatter {
            true if one_pass => {
                (Some(data.next_multiple_of(align)), Table::Uniform { words: row / 4 }, rows.len() as u64)
            }
            true => {
                let runs = start..self.row_runs.len();
                let (form, entries) = self.row_table_form(runs, rows.len() as u64, row);
                (Some(data.next_multiple_of(align)), form, entries)
            }
            false => (None, Table::Pairs, 0),
        };
        let table_bytes = table.map_or(0, |_| form.bytes(entries));
        let len = table.map_or(data, |t| t + table_bytes);
        let size = wgpu::BufferSize::new(len).expect("rows have bytes");
        let (buffer, offset, mut view) = match self.belt.allocate(device, size, align) {
            Ok(a) => a,
            Err(e) => {
                self.row_runs.truncate(start);
                return Err(e);
            }
        };
        let mut out = view.slice(..);
        let (mut data_out, _) = out.slice(..).split_at(data as usize);
        let (runs, words) = (&mut self.row_runs, &mut self.table_words);
        if one_pass {
            words.clear();
        }
        match rows {
            // Scattered rows, each its own table entry: one row at a time,
            // with no search for stretches.
            RowSet::Pairs(pairs) if one_pass => {
                words.reserve(pairs.len());
                for (k, &(index, position)) in pairs.iter().enumerate() {
                    if let Some(&(_, p)) = pairs.get(k + PREFETCH_AHEAD) {
                        ahead(p as usize);
                    }
                    put(pack, &mut data_out, row, position, 1);
                    match runs[start..].last_mut() {
                        Some((f, m)) if *f + *m == index => *m += 1,
                        _ => runs.push((index, 1)),
                    }
                    form.push(words, index as u64 * stride as u64, k as u64 * row as u64);
                }
            }
            RowSet::Pairs(pairs) => {
                let mut k = 0;
                for same in pairs.chunk_by(|a, b| b.0 == a.0 + 1 && b.1 == a.1 + 1) {
                    if let Some(&(_, p)) = pairs.get(k + PREFETCH_AHEAD) {
                        ahead(p as usize);
                    }
                    put(pack, &mut data_out, row, same[0].1, same.len() as u32);
                    k += same.len();
                }
            }
            RowSet::Run { position, len, .. } => put(pack, &mut data_out, row, position, len),
        }
        let runs = start..self.row_runs.len();
        if let Some(t) = table {
            if !one_pass {
                row_table(&mut self.table_words, &self.row_runs[runs.clone()], form, (row, stride));
            }
            form.write(&mut out, t, (entries, 0, data), &self.table_words);
        }
        drop(view);
        self.staged.push(Staged {
            slot,
            stride,
            row,
            buffer,
            offset,
            data,
            table,
            entries,
            table_bytes,
            runs,
        });
        Ok(())
    }

    /// The smaller scatter table for the row runs `runs` (`n` rows of
    /// `row` bytes): pairs cut each run into pieces of at most `ROW_WORDS`
    /// words, a uniform table names each row. Returns the form and its entries.
    fn row_table_form(&self, runs: Range<usize>, n: u64, row: u32) -> (Table, u64) {
        let pieces = self.row_runs[runs]
            .iter()
            .map(|&(_, rows)| (rows as u64 * row as u64).div_ceil(ROW_WORDS * 4))
            .sum::<u64>();
        match uniform_smaller(n, row, pieces) {
            true => (Table::Uniform { words: row / 4 }, n),
            false => (Table::Pairs, pieces),
        }
    }

    /// Whether `ranges` ranges (or runs) go into a slot buffer of `size`
    /// bytes by the scatter pass: the strategy's rule (`Auto`: more than 32),
    /// where the buffer and the device can take it. The shadow's flush and
    /// caller-owned rows decide alike.
    pub(super) fn scatters(&self, ranges: usize, size: u64) -> bool {
        let wanted = match self.strategy {
            FlushStrategy::Copies => false,
            FlushStrategy::Scatter => true,
            FlushStrategy::Auto => ranges > AUTO_COPY_LIMIT,
        };
        wanted && self.can_scatter(size)
    }

    /// Whether a slot buffer of `size` bytes can take the scatter pass (it
    /// reads two storage buffers and writes a third).
    pub(super) fn can_scatter(&self, size: u64) -> bool {
        size <= self.limits.max_storage_buffer_binding_size
            && self.limits.max_storage_buffers_per_shader_stage >= 3
            && self.limits.max_storage_buffer_binding_size >= 4 * super::ranges::MIN_CHUNK
    }

    /// Records every staged write's moves into the flush's encoder (growth
    /// copies are already in it). Rows a re-lay voided, rows past the
    /// buffer, and every row from a failed move on, become unwritten;
    /// returns whether any did (recorded draws may read them).
    pub(super) fn move_rows(
        &mut self,
        device: &wgpu::Device,
        slots: &mut [Slot],
        stats: &mut FrameStats,
        sink: &mut Sink<'_>,
    ) -> Result<bool, Error> {
        let staged = std::mem::take(&mut self.staged);
        let mut result = Ok(false);
        for (k, st) in staged.iter().enumerate() {
            let slot = &slots[st.slot];
            let live = slot.caller_owned() && slot.gpu_stride() == st.stride && slot.stride() == st.stride;
            if !live || slot.gpu_buffer().is_none() {
                self.unwrite(st, slots, 0);
                result = Ok(true);
                continue;
            }
            // Rows past the buffer (it could not grow) stay unwritten.
            let capacity = slot.gpu_capacity();
            let moved = self.move_one(device, slot, st, stats, sink);
            let s = stats.slot_mut(slots[st.slot].id());
            match moved {
                Ok(commands) => {
                    s.upload_calls += 1;
                    s.bytes_uploaded += st.table.map_or(st.data, |t| t + st.table_bytes);
                    match st.table {
                        Some(_) => s.dispatches += 1,
                        None => s.copy_commands += commands,
                    }
                    if self.unwrite(st, slots, capacity) {
                        result = Ok(true);
                    }
                }
                Err(e) => {
                    for later in &staged[k..] {
                        self.unwrite(later, slots, 0);
                    }
                    result = Err(e);
                    break;
                }
            }
        }
        self.row_runs.clear();
        result
    }

    /// Marks the rows of `st` at or past `from` unwritten; returns whether any was.
    fn unwrite(&self, st: &Staged, slots: &mut [Slot], from: u32) -> bool {
        let mut any = false;
        // Runs ascend: after a move, only the last can pass the buffer.
        let runs = &self.row_runs[st.runs.clone()];
        let past = runs.partition_point(|&(first, n)| first + n <= from);
        for &(first, n) in &runs[past..] {
            for i in first.max(from)..first + n {
                slots[st.slot].mark_unwritten(i);
                any = true;
            }
        }
        any
    }

    /// Records one staged write's copies, or its copy into the staging
    /// buffer and scatter dispatch. Returns the copy commands recorded.
    fn move_one(
        &mut self,
        device: &wgpu::Device,
        slot: &Slot,
        st: &Staged,
        stats: &mut FrameStats,
        sink: &mut Sink<'_>,
    ) -> Result<u64, Error> {
        let dst = slot.gpu_buffer().expect("checked by the caller");
        let capacity = slot.gpu_capacity();
        // The scatter writes every row it is given: rows past the buffer go by copies, cut short.
        let fits = self.row_runs[st.runs.clone()].last().is_none_or(|&(f, n)| f + n <= capacity);
        let Some(table) = st.table.filter(|_| fits && self.can_scatter(dst.size())) else {
            let enc = sink.encoder(device);
            let (mut src, mut commands) = (st.offset, 0);
            for &(first, n) in &self.row_runs[st.runs.clone()] {
                let n = n.min(capacity.saturating_sub(first));
                if n > 0 {
                    let len = n as u64 * st.row as u64;
                    let (dst_at, whole) = (first as u64 * st.stride as u64, st.row == st.stride);
                    if whole {
                        enc.copy_buffer_to_buffer(&st.buffer, src, dst, dst_at, len);
                        commands += 1;
                    } else {
                        for r in 0..n as u64 {
                            let at = dst_at + r * st.stride as u64;
                            enc.copy_buffer_to_buffer(
                                &st.buffer,
                                src + r * st.row as u64,
                                dst,
                                at,
                                st.row as u64,
                            );
                            commands += 1;
                        }
                    }
                }
                src += n as u64 * st.row as u64;
            }
            return Ok(commands);
        };
        #[cfg(feature = "fault-injection")]
        if crate::fault::hit(crate::fault::FaultSite::Scatter) {
            return Err(crate::device::scope::injected("rows scatter dispatch".into()));
        }
        let len = table + st.table_bytes;
        let need_window = st.table_bytes.next_power_of_two().max(256);
        if need_window > self.window {
            self.window = need_window;
            self.staging = None;
        }
        let staging = self.staging_buffer(device, stats, len + self.window)?;
        if self.scatter.is_none() {
            let scatter = scope::scoped(device, || "flush scatter pipeline".into(), || Scatter::new(device))?;
            self.scatter = Some(scatter);
        }
        let scatter = self.scatter.as_mut().expect("built above");
        if !scatter.groups.contains_key(&st.slot) {
            let what = || format!("scatter bind group for slot {}", slot.binding());
            let group = scope::scoped(device, what, || scatter.group(device, &staging, self.window, dst))?;
            scatter.groups.insert(st.slot, group);
        }
        let enc = sink.encoder(device);
        enc.copy_buffer_to_buffer(&st.buffer, st.offset, &staging, 0, len);
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("freqbuf rows scatter"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&scatter.pipeline);
        pass.set_bind_group(0, &scatter.groups[&st.slot], &[table as u32]);
        let groups = st.entries.div_ceil(64) as u32;
        pass.dispatch_workgroups(groups.min(65535), groups.div_ceil(65535), 1);
        Ok(0)
    }
}

/// Packs `n` rows of `row` bytes from `position` on at the front of `out`.
/// Always inlined: a call per row cost as much as the row's copy.
#[inline(always)]
fn put(
    pack: &mut impl FnMut(usize, usize, wgpu::WriteOnly<'_, [u8]>),
    out: &mut wgpu::WriteOnly<'_, [u8]>,
    row: u32,
    position: u32,
    n: u32,
) {
    let bytes = n as usize * row as usize;
    pack(position as usize, n as usize, out.split_off(..bytes).expect("rows fit"));
}

/// The scatter tables' rule: a uniform table for `n` rows of `row` bytes
/// unless the pairs table of `pieces` pieces is smaller.
fn uniform_smaller(n: u64, row: u32, pieces: u64) -> bool {
    Table::Uniform { words: row / 4 }.bytes(n) <= Table::Pairs.bytes(pieces)
}

/// Whether the uniform table of `pairs` (rows of `row` bytes, ascending) is
/// no larger than the pairs table, whatever their runs' lengths: a run is
/// at least one piece, and a piece at most `ROW_WORDS` words. So the
/// table's form is known before the rows' runs are. `runs`, where known,
/// saves counting them.
fn uniform_anyway(pairs: &[(u32, u32)], row: u32, runs: Option<usize>) -> bool {
    let n = pairs.len() as u64;
    let pieces = |runs: u64| runs.max((n * row as u64).div_ceil(ROW_WORDS * 4));
    let count = || runs.unwrap_or_else(|| 1 + pairs.windows(2).filter(|w| w[1].0 != w[0].0 + 1).count());
    uniform_smaller(n, row, pieces(1)) || uniform_smaller(n, row, pieces(count() as u64))
}

/// Fills `words` with the `form` table of the row runs `runs` (first
/// row, rows), packed one after another (`row` bytes each) for a slot of
/// `stride`.
fn row_table(words: &mut Vec<u32>, runs: &[(u32, u32)], form: Table, (row, stride): (u32, u32)) {
    words.clear();
    let mut src = 0u64;
    for &(first, n) in runs {
        let (dst, end) = (first as u64 * stride as u64, src + n as u64 * row as u64);
        match form {
            Table::Uniform { .. } => {
                (0..n as u64).for_each(|j| form.push(words, dst + j * stride as u64, src + j * row as u64))
            }
            Table::Pairs => {
                let (mut s, mut d) = (src, dst);
                while s < end {
                    form.push(words, d, s);
                    let step = (end - s).min(ROW_WORDS * 4);
                    (s, d) = (s + step, d + step);
                }
            }
        }
        src = end;
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Where `uniform_anyway` says so, the table made from the rows'
        /// runs (`row_table_form`'s rule) is uniform too.
        #[test]
        fn the_uniform_table_is_known_before_the_runs(
            runs in proptest::collection::vec((1u32..4, 1u32..8), 1..40),
            row in (1u32..100).prop_map(|w| 4 * w),
        ) {
            // Runs of rows (gap before, length), as a frame's changes cluster.
            let mut at = 0;
            let pairs = runs
                .iter()
                .flat_map(|&(gap, len)| {
                    at += gap + len;
                    (at - len..at).map(|i| (i, i))
                })
                .collect::<Vec<_>>();
            let pieces = pairs
                .chunk_by(|a, b| b.0 == a.0 + 1)
                .map(|r| (r.len() as u64 * row as u64).div_ceil(ROW_WORDS * 4))
                .sum::<u64>();
            let n = pairs.len() as u64;
            let uniform = Table::Uniform { words: row / 4 }.bytes(n) <= Table::Pairs.bytes(pieces);
            if uniform_anyway(&pairs, row, None) {
                prop_assert!(uniform);
            }
            // The runs as the write counts them give the same answer.
            let counted = pairs.chunk_by(|a, b| b.0 == a.0 + 1).count();
            prop_assert_eq!(uniform_anyway(&pairs, row, Some(counted)), uniform_anyway(&pairs, row, None));
            // Rows that touch nowhere: one piece each, so the form is known.
            if pairs.windows(2).all(|w| w[1].0 > w[0].0 + 1) && row <= 256 {
                prop_assert!(uniform_anyway(&pairs, row, None));
            }
        }
    }
}
