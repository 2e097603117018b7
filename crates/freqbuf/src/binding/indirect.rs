//! `IndirectDraws`: a draw list issued as multi-draw-indirect runs.
//!
//! Use it instead of [`Binder::bind_list`](crate::Binder::bind_list) when a
//! pass draws many objects whose data is in array slots: draws that need no
//! bind group change, share a shader and share the application's geometry
//! batch form a run, and a run is one `multi_draw_indirect` call whose
//! arguments carry each object's element index as `first_instance` (Bevy's
//! design since 0.16). Consecutive draws of a run with the same geometry and
//! consecutive elements are one instanced command (`instance_count` > 1):
//! objects of one pipeline and material created one after another cost
//! wgpu's indirect validation and the GPU one command, not one each. The
//! arguments live in a buffer freqbuf keeps and
//! writes only where they changed, and the runs are planned once per list and
//! bind state, so a frame that changes nothing costs a call per run, not per
//! draw. Where the device lacks `Features::INDIRECT_FIRST_INSTANCE` (or
//! indirect execution), the same runs are drawn draw by draw.
//!
//! The body of [`Binder::draw_indirect`](crate::Binder::draw_indirect)
//! past the binder's part (`IndirectDraws::issue`; the entry is in
//! `manager/bind.rs`, the binder's part in `replay.rs`) lives here with the
//! run splitting and the argument upload, so only this file touches an
//! `IndirectDraws`' fields, and it never names the binder.

use std::ops::Range;

use crate::binding::context::BindContext;
use crate::binding::list::{DrawList, Recorded};
use crate::binding::target::ALL_GROUPS;
use crate::device::scope;
use crate::errors::Error;

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

/// The draws of a [`DrawList`] with their geometry, issued
/// by [`Binder::draw_indirect`](crate::Binder::draw_indirect). Keep one per
/// list, frame after frame: its argument buffer and run plan are kept.
#[derive(Debug)]
pub struct IndirectDraws {
    indexed: bool,
    args: Vec<DrawArgs>,
    /// The argument words the GPU buffer holds (4 or 5 per command).
    words: Vec<u32>,
    /// The last plan's words, kept to plan into: planning again allocates nothing.
    spare: Vec<u32>,
    buffer: Option<wgpu::Buffer>,
    /// The device serial ([`crate::Manager::device_serial`]) `buffer` was made
    /// on: a buffer of a device the manager left is made again, never used.
    device: u64,
    /// Whether a recorded indirect call reads `buffer` since it was last
    /// written: its encoder may be unsubmitted, and a `write_buffer` would
    /// land before it runs, so new arguments go to a new buffer.
    in_use: bool,
    /// Runs of the current plan, in draw order.
    runs: Vec<Run>,
    /// (list serial, recording generation, args version) the plan was made for.
    planned: Option<(u64, u64, u64)>,
    version: u64,
    /// Whether the words changed since they were written, and where.
    dirty: Option<Range<usize>>,
}

/// Draws `draws` of the list, drawn by one call after the bind commands
/// `commands` of the recording, as the indirect commands `calls` of the
/// argument buffer; `batch_change`: the shader or batch differs from the run
/// before, so the application sets its pipeline and buffers.
#[derive(Clone, Debug)]
struct Run {
    draws: Range<u32>,
    commands: Range<u32>,
    calls: Range<u32>,
    batch_change: bool,
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
            spare: Vec::new(),
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
    fn stride_words(&self) -> usize {
        if self.indexed { 5 } else { 4 }
    }

    /// Splits the list into runs and writes their commands, unless the plan
    /// was made for this list, recording and geometry. A draw with the same
    /// geometry as the one before it and the next element joins its command
    /// (one more instance). Only the words that changed are marked for upload.
    /// Cost: one pass over the draws when planning, else a comparison.
    fn split_runs(&mut self, list: &DrawList, recorded: &Recorded) {
        let key = (list.serial(), recorded.generation, self.version);
        if self.planned == Some(key) {
            return;
        }
        let n = self.stride_words();
        let mut words = std::mem::take(&mut self.spare);
        words.clear();
        self.runs.clear();
        let shaders = list.draws();
        for i in 0..list.len() {
            let commands = recorded.commands(i);
            let first_instance = recorded.draws[i].1;
            let a = self.args[i];
            let change = i == 0 || shaders[i].0 != shaders[i - 1].0 || a.batch != self.args[i - 1].batch;
            let calls = (words.len() / n) as u32;
            match self.runs.last_mut() {
                Some(run) if !change && commands.is_empty() => {
                    run.draws.end += 1;
                    // The run's last command: same geometry, the next element.
                    let at = words.len() - n;
                    let last = &mut words[at..];
                    let (count, first, next) = (last[0], last[2], last[n - 1] + last[1]);
                    // Non-indexed draws ignore `base_vertex`.
                    let same_base = !self.indexed || last[3] as i32 == a.base_vertex;
                    if (count, first, next) == (a.count, a.first, first_instance) && same_base {
                        last[1] += 1;
                        continue;
                    }
                    run.calls.end += 1;
                }
                _ => self.runs.push(Run {
                    draws: i as u32..i as u32 + 1,
                    commands,
                    calls: calls..calls + 1,
                    batch_change: change,
                }),
            }
            if self.indexed {
                words.extend([a.count, 1, a.first, a.base_vertex as u32, first_instance]);
            } else {
                words.extend([a.count, 1, a.first, first_instance]);
            }
        }
        // Mark what differs from what the buffer holds.
        if words.len() != self.words.len() {
            // Another number of commands: every word moves.
            self.dirty = Some(0..words.len());
        } else if let Some(lo) = words.iter().zip(&self.words).position(|(a, b)| a != b) {
            let hi = words.iter().zip(&self.words).rposition(|(a, b)| a != b).expect("one differs") + 1;
            let d = self.dirty.get_or_insert(lo..hi);
            *d = d.start.min(lo)..d.end.max(hi);
        }
        self.spare = std::mem::replace(&mut self.words, words);
        self.planned = Some(key);
    }

    /// Writes the changed arguments: the whole buffer when it is new or grew.
    /// Cost: one `write_buffer` of the changed span, if any.
    fn upload(&mut self, cx: &mut BindContext<'_>, queue: &wgpu::Queue) -> Result<(), Error> {
        let bytes = (self.words.len() * 4) as u64;
        if bytes == 0 {
            return Ok(());
        }
        if self.device != cx.device_serial {
            // Made on a device the manager left (recreate), or for another manager.
            self.buffer = None;
        }
        // A buffer an unsubmitted encoder may read is not written: its writes
        // would land before that encoder runs. New arguments go to a new one.
        let stale = self.in_use && self.dirty.is_some();
        if stale || self.buffer.as_ref().is_none_or(|b| b.size() < bytes) {
            let limit = cx.caps.limits.max_buffer_size;
            if bytes > limit {
                return Err(Error::Indirect {
                    what: format!("{bytes} bytes of arguments, over max_buffer_size ({limit} bytes)"),
                });
            }
            let size = bytes.next_power_of_two().min(limit);
            let device = cx.device;
            let buffer = scope::scoped(
                device,
                || "indirect draw arguments".into(),
                || {
                    device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("freqbuf indirect args"),
                        size,
                        usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    })
                },
            )?;
            self.buffer = Some(buffer);
            self.device = cx.device_serial;
            self.in_use = false;
            self.dirty = Some(0..self.words.len());
        }
        if let (Some(range), Some(buffer)) = (self.dirty.take(), &self.buffer) {
            let data: &[u8] = bytemuck::cast_slice(&self.words[range.clone()]);
            queue.write_buffer(buffer, (range.start * 4) as u64, data);
            cx.stats.shared.bytes_uploaded += data.len() as u64;
            cx.stats.shared.upload_calls += 1;
        }
        Ok(())
    }

    /// One run command by command, for devices without indirect first instances.
    fn draw_each(&self, pass: &mut wgpu::RenderPass<'_>, run: &Run) {
        let n = self.stride_words();
        for c in run.calls.clone() {
            let w = &self.words[c as usize * n..(c as usize + 1) * n];
            let (count, instances, first, first_instance) = (w[0], w[1], w[2], w[n - 1]);
            let instances = first_instance..first_instance + instances;
            if self.indexed {
                pass.draw_indexed(first..first + count, w[3] as i32, instances);
            } else {
                pass.draw(first..first + count, instances);
            }
        }
    }
}

impl IndirectDraws {
    /// Refuses geometry for another number of draws than `list` holds.
    pub(super) fn fits(&self, list: &DrawList) -> Result<(), Error> {
        if self.args.len() != list.len() {
            let what = format!("{} draws in the list, geometry for {}", list.len(), self.args.len());
            return Err(Error::Indirect { what });
        }
        Ok(())
    }

    /// [`Binder::draw_indirect`](crate::Binder::draw_indirect) once `list` is
    /// checked and recorded: plans the runs, uploads the arguments, and
    /// replays each run's commands before its draw call. Returns the
    /// `set_bind_group` calls sent, for the binder's count.
    pub(super) fn issue(
        &mut self,
        cx: &mut BindContext<'_>,
        queue: &wgpu::Queue,
        pass: &mut wgpu::RenderPass<'_>,
        list: &DrawList,
        mut set: impl FnMut(&mut wgpu::RenderPass<'_>, usize),
    ) -> Result<u64, Error> {
        let recorded = list.recorded(cx.parts.generation, ALL_GROUPS).expect("recorded by the binder");
        self.split_runs(list, recorded);
        self.upload(cx, queue)?;
        let caps = cx.caps;
        let indirect = caps.features.contains(wgpu::Features::INDIRECT_FIRST_INSTANCE)
            && caps.downlevel.contains(wgpu::DownlevelFlags::INDIRECT_EXECUTION);
        let buffer = self.buffer.as_ref();
        let n = self.stride_words();
        let (mut commands, mut draw_calls) = (0, 0);
        for run in &self.runs {
            // The pipeline first: a new layout clears the immediates a replay sets.
            if run.batch_change {
                set(pass, run.draws.start as usize);
            }
            recorded.replay_commands(pass, run.commands.clone());
            commands += run.commands.len();
            let count = run.calls.end - run.calls.start;
            match (indirect, buffer) {
                (true, Some(buffer)) => {
                    let offset = (run.calls.start as usize * n * 4) as u64;
                    if self.indexed {
                        pass.multi_draw_indexed_indirect(buffer, offset, count);
                    } else {
                        pass.multi_draw_indirect(buffer, offset, count);
                    }
                    draw_calls += 1;
                }
                _ => {
                    self.draw_each(pass, run);
                    draw_calls += count as u64;
                }
            }
        }
        // The encoder now reads the buffer until it is submitted.
        self.in_use |= indirect && self.buffer.is_some() && !self.runs.is_empty();
        cx.stats.shared.draw_calls += draw_calls;
        // The runs replay every recorded command once.
        debug_assert_eq!(commands, recorded.len());
        cx.sent(recorded.counts());
        Ok(recorded.calls())
    }
}
