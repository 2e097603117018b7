//! Flush: moving the dirty bytes of every slot's CPU shadow to the GPU.
//!
//! Per slot, dirty instances give sorted, coalesced byte ranges. A slot with one
//! range is written directly with `queue.write_buffer`. The ranges of all other
//! slots are packed into one staging buffer with a single upload call, then moved
//! into place on the GPU by one of two [`FlushStrategy`]s. Either way a frame
//! makes at most one upload call per slot, and the work is proportional to the
//! dirty bytes, not to the number of instances.

use std::collections::HashMap;

use crate::error::Error;
use crate::scope;
use crate::slot::{Slot, grown_capacity};
use crate::stats::FrameStats;

/// How packed dirty ranges move from the staging buffer into slot buffers.
///
/// Measured with `cargo bench --bench flush` (figures in design.md): a copy
/// command costs wgpu a few microseconds of CPU each, so the scatter pass wins
/// from about a hundred ranges on, while a handful of copies beats a dispatch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FlushStrategy {
    /// Per slot: copies up to [`AUTO_COPY_LIMIT`] ranges, the scatter pass above.
    #[default]
    Auto,
    /// One `copy_buffer_to_buffer` per coalesced range.
    Copies,
    /// One compute dispatch per slot that scatters every range (an invocation per word).
    /// Falls back to copies for slot buffers larger than a storage binding may be.
    Scatter,
}

/// Up to this many ranges in a slot, [`FlushStrategy::Auto`] uses copies.
pub const AUTO_COPY_LIMIT: usize = 32;

/// Ranges closer than this are uploaded as one (the bytes between are clean but
/// identical on the GPU, so correctness holds; a copy command costs more).
const MERGE_GAP: u32 = 16;

/// Bytes in one row of a scatter table: destination word and source word. Row 0
/// holds the row count; a last row holds the end of the data, so a row's length
/// is the next row's source minus its own.
const ROW: u64 = 8;

// One invocation per word: a binary search over the table's source offsets
// (prefix sums of the range lengths) finds the range a word belongs to, so
// every lane does work however short or long the ranges are.
const SCATTER_WGSL: &str = r#"
@group(0) @binding(0) var<storage, read> data: array<u32>;
@group(0) @binding(1) var<storage, read> table: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(64)
fn scatter(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let count = table[0].x;
    let w = table[1].y + gid.x + gid.y * groups.x * 64u;
    if w >= table[count + 1u].y { return; }
    var lo = 1u;
    var hi = count;
    while lo < hi {
        let mid = (lo + hi + 1u) / 2u;
        if table[mid].y <= w { lo = mid; } else { hi = mid - 1u; }
    }
    let r = table[lo];
    dst[r.x + (w - r.y)] = data[w];
}
"#;

/// One slot's share of one chunk of the packed upload.
#[derive(Debug)]
struct Job {
    slot: usize,
    ranges: std::ops::Range<usize>,
    /// Where its first range starts in the staging buffer.
    src: u64,
    /// Where its scatter table starts (scatter only).
    table: u64,
    scatter: bool,
}

/// Lazily built compute scatter pipeline.
#[derive(Debug)]
struct Scatter {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
    /// Bind group per slot index, with the (slot epoch, staging epoch) it was built for.
    groups: HashMap<usize, ((u64, u64), wgpu::BindGroup)>,
}

/// Uploads slots' dirty bytes; owns the staging buffer.
#[derive(Debug)]
pub(crate) struct Uploader {
    pub(crate) strategy: FlushStrategy,
    /// The device's limits: buffer and storage-binding sizes bound the chunks.
    limits: wgpu::Limits,
    staging: Option<wgpu::Buffer>,
    staging_epoch: u64,
    /// Size of the table window each scatter dispatch sees.
    window: u64,
    /// Packed ranges of every slot that goes through the staging buffer.
    ranges: Vec<(u64, u64)>,
    /// Per slot with packed ranges: (slot, ranges, scatter).
    packed: Vec<(usize, std::ops::Range<usize>, bool)>,
    jobs: Vec<Job>,
    /// The same ranges cut to fit the chunks.
    pieces: Vec<(u64, u64)>,
    scatter: Option<Scatter>,
}

impl Uploader {
    pub(crate) fn new(strategy: FlushStrategy, limits: wgpu::Limits) -> Self {
        Self {
            strategy,
            limits,
            staging: None,
            staging_epoch: 0,
            window: 256,
            ranges: Vec::new(),
            packed: Vec::new(),
            jobs: Vec::new(),
            pieces: Vec::new(),
            scatter: None,
        }
    }

    /// Uploads every slot's dirty ranges, growing GPU buffers first where the
    /// shadow outgrew them. `epoch` is the manager's change counter.
    ///
    /// Three steps: plan (grow buffers, take ranges, choose copies or scatter
    /// per slot), then per chunk of at most a quarter of a storage binding,
    /// stage (one upload call) and move (copies and dispatches, one submit).
    /// A slot that cannot grow within `max_buffer_size` keeps its buffer and
    /// its dirty bytes, and its error is returned after the others flushed.
    pub(crate) fn flush(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        slots: &mut [Slot],
        highs: [u32; 4],
        stats: &mut FrameStats,
        epoch: &mut u64,
    ) -> Result<(), Error> {
        let mut encoder: Option<wgpu::CommandEncoder> = None;
        let mut failed = None;
        self.ranges.clear();
        self.packed.clear();
        for (i, slot) in slots.iter_mut().enumerate() {
            let s = stats.slot_mut(slot.id);
            s.dirty_instances += slot.dirty_count() as u64;
            let high = highs[slot.frequency as usize];
            let growth = match grow(device, self.limits.max_buffer_size, slot, high, &mut encoder, s, epoch) {
                Ok(g) => g,
                // Still upload what fits the buffer as it is laid out; the rest stays dirty.
                Err(e) => {
                    failed.get_or_insert(e);
                    if slot.buffer.is_none() || slot.gpu_stride != slot.stride {
                        continue;
                    }
                    Growth::None
                }
            };
            let start = self.ranges.len();
            if growth == Growth::Relaid {
                slot.clear_dirty();
                let end = (slot.gpu_capacity as u64 * slot.stride as u64).min(slot.shadow.len() as u64);
                self.ranges.push((0, end));
            } else {
                slot.take_ranges(MERGE_GAP, slot.gpu_capacity, &mut self.ranges);
            }
            let n = self.ranges.len() - start;
            if n == 0 {
                continue;
            }
            // One range straight into the slot, unless a growth copy recorded
            // for this submit would land on top of it.
            if n == 1 && growth != Growth::Copied {
                let (lo, hi) = self.ranges.pop().unwrap_or_default();
                let buffer = slot.buffer.as_ref().expect("grown above");
                queue.write_buffer(buffer, lo, &slot.shadow[lo as usize..hi as usize]);
                s.upload_calls += 1;
                s.bytes_uploaded += hi - lo;
                continue;
            }
            s.bytes_uploaded += self.ranges[start..].iter().map(|r| r.1 - r.0).sum::<u64>();
            let buffer_size = slot.gpu_capacity as u64 * slot.gpu_stride as u64;
            let scatter = match self.strategy {
                FlushStrategy::Copies => false,
                FlushStrategy::Scatter => true,
                FlushStrategy::Auto => n > AUTO_COPY_LIMIT,
            } && buffer_size <= self.limits.max_storage_buffer_binding_size;
            self.packed.push((i, start..self.ranges.len(), scatter));
        }

        let budget = chunk_budget(&self.limits);
        let storage_align = self.limits.min_storage_buffer_offset_alignment as u64;
        let mut cursor = Cursor { packed: 0, range: self.packed.first().map_or(0, |p| p.1.start), done: 0 };
        while cursor.packed < self.packed.len() {
            let data = self.plan_chunk(&mut cursor, budget, storage_align);
            // The budget always admits one job's overhead and a word, so every chunk progresses.
            debug_assert!(!self.jobs.is_empty(), "a chunk made no progress");
            self.stage_and_move(device, queue, slots, stats, epoch, &mut encoder, data)?;
        }
        if let Some(encoder) = encoder {
            queue.submit(std::iter::once(encoder.finish()));
        }
        failed.map_or(Ok(()), Err)
    }

    /// Cuts the next chunk from the packed ranges at `cursor`: at most `budget`
    /// bytes of data plus scatter tables. Fills `jobs` and `pieces`; returns the data bytes.
    fn plan_chunk(&mut self, cursor: &mut Cursor, budget: u64, storage_align: u64) -> u64 {
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
                let take = (hi - lo).min(room);
                self.pieces.push((lo, lo + take));
                used += take + row;
                data += take;
                if lo + take == hi {
                    cursor.range += 1;
                    cursor.done = 0;
                } else {
                    cursor.done += take;
                    full = true;
                    break;
                }
            }
            if self.pieces.len() > first {
                self.jobs.push(Job { slot, ranges: first..self.pieces.len(), src: data, table: 0, scatter });
            }
            if full {
                break;
            }
            cursor.packed += 1;
            cursor.range = self.packed.get(cursor.packed).map_or(0, |p| p.1.start);
        }
        // `src` held each job's end; make it its start.
        let mut at = 0;
        for job in &mut self.jobs {
            let len = self.pieces[job.ranges.clone()].iter().map(|r| r.1 - r.0).sum::<u64>();
            job.src = at;
            at += len;
        }
        data
    }

    /// Stages one chunk with one upload call, records its copies and scatter
    /// dispatches after any growth copies in `encoder`, and submits.
    #[allow(clippy::too_many_arguments, reason = "the flush's own state, passed down once")]
    fn stage_and_move(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        slots: &[Slot],
        stats: &mut FrameStats,
        epoch: &mut u64,
        encoder: &mut Option<wgpu::CommandEncoder>,
        packed: u64,
    ) -> Result<(), Error> {
        if self.jobs.is_empty() {
            return Ok(());
        }
        let storage_align = self.limits.min_storage_buffer_offset_alignment as u64;
        // Layout of the staging buffer: packed data, then one table per scatter job, then the window.
        let mut size = packed;
        let mut tables = false;
        let mut max_rows = 0;
        for job in self.jobs.iter_mut().filter(|j| j.scatter) {
            size = size.next_multiple_of(storage_align);
            job.table = size;
            let rows = job.ranges.len() as u64 + 2;
            size += rows * ROW;
            max_rows = max_rows.max(rows);
            tables = true;
        }
        let write_len = size;
        if tables {
            let need_window = (max_rows * ROW).next_power_of_two().max(256);
            if need_window > self.window {
                self.window = need_window;
                self.staging = None;
            }
            size += self.window;
        }
        let size = size.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        if self.staging.as_ref().is_none_or(|b| b.size() < size) {
            let max = self.limits.max_buffer_size;
            let desc = wgpu::BufferDescriptor {
                label: Some("freqbuf staging"),
                size: size.next_power_of_two().min(max).max(size),
                usage: wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            };
            let what = || format!("staging buffer of {} bytes", desc.size);
            self.staging = Some(scope::scoped(device, what, || device.create_buffer(&desc))?);
            *epoch += 1;
            self.staging_epoch = *epoch;
        }
        let staging = self.staging.clone().expect("created above");
        {
            let len = wgpu::BufferSize::new(write_len).expect("jobs have bytes");
            let mut view =
                queue.write_buffer_with(&staging, 0, len).expect("the staging buffer fits the chunk");
            for job in &self.jobs {
                let shadow = &slots[job.slot].shadow;
                let mut at = job.src;
                let mut row = job.table + ROW;
                for &(lo, hi) in &self.pieces[job.ranges.clone()] {
                    let len = hi - lo;
                    view.slice(at as usize..(at + len) as usize)
                        .copy_from_slice(&shadow[lo as usize..hi as usize]);
                    if job.scatter {
                        let r = [(lo / 4) as u32, (at / 4) as u32];
                        view.slice(row as usize..(row + ROW) as usize)
                            .copy_from_slice(bytemuck::bytes_of(&r));
                        row += ROW;
                    }
                    at += len;
                }
                if job.scatter {
                    let end = [0, (at / 4) as u32];
                    view.slice(row as usize..(row + ROW) as usize).copy_from_slice(bytemuck::bytes_of(&end));
                    let header = [job.ranges.len() as u32, 0];
                    view.slice(job.table as usize..(job.table + ROW) as usize)
                        .copy_from_slice(bytemuck::bytes_of(&header));
                }
            }
        }
        stats.shared.upload_calls += 1;
        stats.shared.bytes_uploaded += write_len - packed;

        let enc = encoder_for(device, encoder);
        for job in self.jobs.iter().filter(|j| !j.scatter) {
            let dst = slots[job.slot].buffer.as_ref().expect("grown in plan");
            let mut at = job.src;
            for &(lo, hi) in &self.pieces[job.ranges.clone()] {
                enc.copy_buffer_to_buffer(&staging, at, dst, lo, hi - lo);
                at += hi - lo;
            }
            stats.slot_mut(slots[job.slot].id).copy_commands += job.ranges.len() as u64;
        }
        if tables {
            if self.scatter.is_none() {
                self.scatter =
                    Some(scope::scoped(device, || "flush scatter pipeline".into(), || Scatter::new(device))?);
            }
            let scatter = self.scatter.as_mut().expect("built above");
            for job in self.jobs.iter().filter(|j| j.scatter) {
                let slot = &slots[job.slot];
                let stamp = (slot.epoch, self.staging_epoch);
                if scatter.groups.get(&job.slot).is_none_or(|g| g.0 != stamp) {
                    let what = || format!("scatter bind group for slot {}", slot.binding);
                    let group = scope::scoped(device, what, || {
                        scatter_group(device, &scatter.layout, &staging, self.window, slot)
                    })?;
                    scatter.groups.insert(job.slot, (stamp, group));
                }
            }
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("freqbuf scatter"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&scatter.pipeline);
            for job in self.jobs.iter().filter(|j| j.scatter) {
                pass.set_bind_group(0, &scatter.groups[&job.slot].1, &[job.table as u32]);
                let words = self.pieces[job.ranges.clone()].iter().map(|r| (r.1 - r.0) / 4).sum::<u64>();
                let groups = words.div_ceil(64) as u32;
                pass.dispatch_workgroups(groups.min(65535), groups.div_ceil(65535), 1);
                stats.slot_mut(slots[job.slot].id).dispatches += 1;
            }
        }
        // Submit per chunk: the next chunk's upload reuses the staging buffer.
        if let Some(e) = encoder.take() {
            queue.submit(std::iter::once(e.finish()));
        }
        Ok(())
    }
}

/// Where chunk planning stands: a packed slot, a range of it, bytes of that range already taken.
#[derive(Debug)]
struct Cursor {
    packed: usize,
    range: usize,
    done: u64,
}

/// How a slot's GPU buffer changed in this flush.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Growth {
    None,
    /// Replaced by a larger one, old contents copied on the GPU in this submit.
    Copied,
    /// Replaced with a new stride (or created): the whole shadow must be uploaded.
    Relaid,
}

/// Grows or re-lays a slot's GPU buffer where the shadow outgrew it: to the
/// next power of two of instances, capped by `max_buffer_size`.
fn grow(
    device: &wgpu::Device,
    max_buffer_size: u64,
    slot: &mut Slot,
    high: u32,
    encoder: &mut Option<wgpu::CommandEncoder>,
    s: &mut crate::stats::Stats,
    epoch: &mut u64,
) -> Result<Growth, Error> {
    let need = high.min(slot.instances());
    if slot.buffer.is_some() && slot.gpu_stride == slot.stride && slot.gpu_capacity >= need {
        if slot.gpu_size != slot.size {
            // Same buffer, larger block: bind groups must expose the new size.
            slot.gpu_size = slot.size;
            *epoch += 1;
            slot.epoch = *epoch;
        }
        return Ok(Growth::None);
    }
    let stride = slot.stride as u64;
    let most = (max_buffer_size / stride).min(u32::MAX as u64) as u32;
    if need > most {
        return Err(Error::SlotTooLarge {
            binding: slot.binding,
            instances: need,
            stride: slot.stride,
            limit: max_buffer_size,
        });
    }
    let capacity = grown_capacity(need).min(most);
    let desc = wgpu::BufferDescriptor {
        label: Some("freqbuf slot"),
        size: capacity as u64 * stride,
        usage: crate::slot::SLOT_USAGE,
        mapped_at_creation: false,
    };
    let what = || format!("slot {} buffer of {} bytes", slot.binding, desc.size);
    let buffer = scope::scoped(device, what, || device.create_buffer(&desc))?;
    let growth = match &slot.buffer {
        Some(old) if slot.gpu_stride == slot.stride => {
            let bytes = slot.gpu_capacity.min(capacity) as u64 * stride;
            encoder_for(device, encoder).copy_buffer_to_buffer(old, 0, &buffer, 0, bytes);
            s.copy_commands += 1;
            s.buffer_growths += 1;
            Growth::Copied
        }
        Some(_) => {
            s.buffer_growths += 1;
            Growth::Relaid
        }
        // A new slot: its dirty ranges cover what was written; the rest is zero.
        None => Growth::None,
    };
    slot.buffer = Some(buffer);
    slot.gpu_capacity = capacity;
    slot.gpu_stride = slot.stride;
    slot.gpu_size = slot.size;
    *epoch += 1;
    slot.epoch = *epoch;
    Ok(growth)
}

/// Bytes of data and tables in one chunk: a quarter of what one storage
/// binding (and one buffer) may hold, so that data, tables and the table
/// window together always fit one binding.
/// Devices without storage buffers (WebGL2) only copy, bounded by `max_buffer_size`.
fn chunk_budget(limits: &wgpu::Limits) -> u64 {
    let mut most = limits.max_buffer_size;
    if limits.max_storage_buffer_binding_size > 0 {
        most = most.min(limits.max_storage_buffer_binding_size);
    }
    ((most & !255) / 4).max(4096)
}

fn encoder_for<'e>(
    device: &wgpu::Device,
    e: &'e mut Option<wgpu::CommandEncoder>,
) -> &'e mut wgpu::CommandEncoder {
    e.get_or_insert_with(|| {
        device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("freqbuf flush") })
    })
}

impl Scatter {
    fn new(device: &wgpu::Device) -> Self {
        let storage = |binding, read_only, dynamic| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: dynamic,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("freqbuf scatter"),
            entries: &[storage(0, true, false), storage(1, true, true), storage(2, false, false)],
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("freqbuf scatter"),
            source: wgpu::ShaderSource::Wgsl(SCATTER_WGSL.into()),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("freqbuf scatter"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("freqbuf scatter"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("scatter"),
            compilation_options: Default::default(),
            cache: None,
        });
        Self { layout, pipeline, groups: HashMap::new() }
    }
}

fn scatter_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    staging: &wgpu::Buffer,
    window: u64,
    slot: &Slot,
) -> wgpu::BindGroup {
    let dst = slot.buffer.as_ref().expect("flushed slots have buffers");
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("freqbuf scatter"),
        layout,
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: staging.as_entire_binding() },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: staging,
                    offset: 0,
                    size: wgpu::BufferSize::new(window),
                }),
            },
            wgpu::BindGroupEntry { binding: 2, resource: dst.as_entire_binding() },
        ],
    })
}
