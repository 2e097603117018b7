//! Flush: moving the dirty bytes of every slot's CPU shadow to the GPU.
//!
//! Per slot, dirty instances give sorted, coalesced byte ranges. A slot with one
//! range is written directly with `queue.write_buffer`. The ranges of all other
//! slots are packed into one staging buffer with a single upload call, then moved
//! into place on the GPU by one of two [`FlushStrategy`]s. Either way a frame
//! makes at most one upload call per slot, and the work is proportional to the
//! dirty bytes, not to the number of instances.

use std::collections::HashMap;

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

/// One slot's share of the packed upload.
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
    staging: Option<wgpu::Buffer>,
    staging_epoch: u64,
    /// Size of the table window each scatter dispatch sees.
    window: u64,
    ranges: Vec<(u64, u64)>,
    jobs: Vec<Job>,
    scatter: Option<Scatter>,
}

impl Uploader {
    pub(crate) fn new(strategy: FlushStrategy) -> Self {
        Self {
            strategy,
            staging: None,
            staging_epoch: 0,
            window: 256,
            ranges: Vec::new(),
            jobs: Vec::new(),
            scatter: None,
        }
    }

    /// Uploads every slot's dirty ranges, growing GPU buffers first where the
    /// shadow outgrew them. Submits one small command buffer when GPU-side
    /// moves are needed. `epoch` is the manager's change counter.
    pub(crate) fn flush(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        slots: &mut [Slot],
        stats: &mut FrameStats,
        epoch: &mut u64,
    ) {
        let mut encoder: Option<wgpu::CommandEncoder> = None;
        self.ranges.clear();
        self.jobs.clear();
        let limits = device.limits();
        let storage_align = limits.min_storage_buffer_offset_alignment as u64;
        let mut packed = 0u64;
        let mut tables = 0u64;
        let mut max_rows = 0u64;

        for (i, slot) in slots.iter_mut().enumerate() {
            let need = slot.instances();
            let s = stats.slot_mut(slot.id);
            s.dirty_instances += slot.dirty_count() as u64;
            // Grow or re-lay the GPU buffer. Growth keeps the old bytes with a GPU
            // copy; a new stride needs the whole shadow again.
            let mut copied_over = false;
            let mut full = false;
            if slot.buffer.is_none() || slot.gpu_stride != slot.stride || slot.gpu_capacity < need {
                let capacity = grown_capacity(need);
                let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("freqbuf slot"),
                    size: capacity as u64 * slot.stride as u64,
                    usage: crate::slot::SLOT_USAGE,
                    mapped_at_creation: false,
                });
                if let Some(old) = &slot.buffer {
                    if slot.gpu_stride == slot.stride {
                        let bytes = slot.gpu_capacity as u64 * slot.stride as u64;
                        encoder_for(device, &mut encoder).copy_buffer_to_buffer(old, 0, &buffer, 0, bytes);
                        s.copy_commands += 1;
                        copied_over = true;
                    } else {
                        full = true;
                    }
                    s.buffer_growths += 1;
                }
                slot.buffer = Some(buffer);
                slot.gpu_capacity = capacity;
                slot.gpu_stride = slot.stride;
                slot.gpu_size = slot.size;
                *epoch += 1;
                slot.epoch = *epoch;
            } else if slot.gpu_size != slot.size {
                // Same buffer, larger block: bind groups must expose the new size.
                slot.gpu_size = slot.size;
                *epoch += 1;
                slot.epoch = *epoch;
            }
            let start = self.ranges.len();
            if full {
                slot.clear_dirty();
                self.ranges.push((0, slot.shadow.len() as u64));
            } else {
                slot.take_ranges(MERGE_GAP, &mut self.ranges);
            }
            let n = self.ranges.len() - start;
            if n == 0 {
                continue;
            }
            if n == 1 && !copied_over {
                let (lo, hi) = self.ranges.pop().unwrap_or_default();
                let buffer = slot.buffer.as_ref().expect("created above");
                queue.write_buffer(buffer, lo, &slot.shadow[lo as usize..hi as usize]);
                s.upload_calls += 1;
                s.bytes_uploaded += hi - lo;
                continue;
            }
            let bytes = self.ranges[start..].iter().map(|r| r.1 - r.0).sum::<u64>();
            s.bytes_uploaded += bytes;
            let buffer_size = slot.gpu_capacity as u64 * slot.stride as u64;
            let scatter = match self.strategy {
                FlushStrategy::Copies => false,
                FlushStrategy::Scatter => true,
                FlushStrategy::Auto => n > AUTO_COPY_LIMIT,
            } && buffer_size <= limits.max_storage_buffer_binding_size;
            if scatter {
                s.dispatches += 1;
                max_rows = max_rows.max(n as u64 + 2);
                tables += 1;
            } else {
                s.copy_commands += n as u64;
            }
            self.jobs.push(Job { slot: i, ranges: start..self.ranges.len(), src: packed, table: 0, scatter });
            packed += bytes;
        }

        // Every job has at least one non-empty range, so `packed > 0` here.
        if !self.jobs.is_empty() {
            // Layout of the staging buffer: packed data, then one table per scatter job.
            let mut size = packed;
            if tables > 0 {
                let need_window = (max_rows * ROW).next_power_of_two().max(256);
                if need_window > self.window {
                    self.window = need_window;
                    self.staging = None;
                }
                for job in self.jobs.iter_mut().filter(|j| j.scatter) {
                    size = size.next_multiple_of(storage_align);
                    job.table = size;
                    size += (job.ranges.len() as u64 + 2) * ROW;
                }
                size += self.window;
            }
            let size = size.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
            if self.staging.as_ref().is_none_or(|b| b.size() < size) {
                self.staging = Some(device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("freqbuf staging"),
                    size: size.next_power_of_two(),
                    usage: wgpu::BufferUsages::COPY_SRC
                        | wgpu::BufferUsages::COPY_DST
                        | wgpu::BufferUsages::STORAGE,
                    mapped_at_creation: false,
                }));
                *epoch += 1;
                self.staging_epoch = *epoch;
            }
            let staging = self.staging.clone().expect("created above");
            let write_len = if tables > 0 {
                self.jobs
                    .iter()
                    .filter(|j| j.scatter)
                    .map(|j| j.table + (j.ranges.len() as u64 + 2) * ROW)
                    .max()
                    .unwrap_or(packed)
            } else {
                packed
            };
            {
                let len = wgpu::BufferSize::new(write_len).expect("jobs have bytes");
                let mut view = queue.write_buffer_with(&staging, 0, len).expect("staging buffer fits");
                for job in &self.jobs {
                    let shadow = &slots[job.slot].shadow;
                    let mut at = job.src;
                    let mut row = job.table + ROW;
                    for &(lo, hi) in &self.ranges[job.ranges.clone()] {
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
                        view.slice(row as usize..(row + ROW) as usize)
                            .copy_from_slice(bytemuck::bytes_of(&end));
                        let header = [job.ranges.len() as u32, 0];
                        view.slice(job.table as usize..(job.table + ROW) as usize)
                            .copy_from_slice(bytemuck::bytes_of(&header));
                    }
                }
            }
            stats.shared.upload_calls += 1;
            stats.shared.bytes_uploaded += write_len - packed;

            let encoder = encoder_for(device, &mut encoder);
            for job in self.jobs.iter().filter(|j| !j.scatter) {
                let dst = slots[job.slot].buffer.as_ref().expect("created above");
                let mut at = job.src;
                for &(lo, hi) in &self.ranges[job.ranges.clone()] {
                    encoder.copy_buffer_to_buffer(&staging, at, dst, lo, hi - lo);
                    at += hi - lo;
                }
            }
            if tables > 0 {
                let window = self.window;
                let staging_epoch = self.staging_epoch;
                let scatter = self.scatter.get_or_insert_with(|| Scatter::new(device));
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("freqbuf scatter"),
                    timestamp_writes: None,
                });
                pass.set_pipeline(&scatter.pipeline);
                for job in self.jobs.iter().filter(|j| j.scatter) {
                    let slot = &slots[job.slot];
                    let stamp = (slot.epoch, staging_epoch);
                    let entry = scatter.groups.entry(job.slot);
                    let group = match entry {
                        std::collections::hash_map::Entry::Occupied(mut o) => {
                            if o.get().0 != stamp {
                                o.insert((
                                    stamp,
                                    scatter_group(device, &scatter.layout, &staging, window, slot),
                                ));
                            }
                            &o.into_mut().1
                        }
                        std::collections::hash_map::Entry::Vacant(v) => {
                            &v.insert((stamp, scatter_group(device, &scatter.layout, &staging, window, slot)))
                                .1
                        }
                    };
                    pass.set_bind_group(0, group, &[job.table as u32]);
                    let words = self.ranges[job.ranges.clone()].iter().map(|r| (r.1 - r.0) / 4).sum::<u64>();
                    let groups = words.div_ceil(64) as u32;
                    pass.dispatch_workgroups(groups.min(65535), groups.div_ceil(65535), 1);
                }
            }
        }
        if let Some(encoder) = encoder {
            queue.submit(std::iter::once(encoder.finish()));
        }
    }
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
