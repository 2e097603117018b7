//! `Binder::draw_indirect`: a draw list issued as multi-draw-indirect runs.
//! It records the list's bind commands (building bind groups on a miss), so
//! it takes the manager, as the other binder entries that build groups do.

use super::Manager;
use super::bind::NoPass;
use crate::binding::{Binder, DrawList, IndirectDraws, Recorder, Run};
use crate::error::Error;
use crate::limits::MAX_GROUPS;
use crate::scope;

impl Binder {
    /// Draws every draw of `list` with the geometry `draws` gives it: the
    /// bind commands [`Binder::bind_list`] would set, and one
    /// `multi_draw_indirect` (or `multi_draw_indexed_indirect`) call per run
    /// of draws between them. A run also ends where the shader or the
    /// geometry batch changes; there `set(pass, i)` is called with the run's
    /// first draw, so that the application sets the pipeline and the vertex
    /// and index buffers of draw `i`. Each draw's `first_instance` is its
    /// element in the shader's array slots.
    ///
    /// Without `Features::INDIRECT_FIRST_INSTANCE` or
    /// `DownlevelFlags::INDIRECT_EXECUTION` the same runs are drawn with one
    /// `draw` per draw, which gives the same image.
    ///
    /// A stale list is [`Error::StaleList`], and geometry for another number
    /// of draws [`Error::Indirect`], before anything is bound. Cost, while
    /// the list, the manager's generation and the geometry hold: one
    /// `set_bind_group` per recorded command and one call per run, no
    /// per-draw work and no upload. Otherwise one pass over the draws to plan
    /// the runs, and one `write_buffer` of the arguments that changed.
    pub fn draw_indirect(
        &mut self,
        manager: &mut Manager,
        queue: &wgpu::Queue,
        pass: &mut wgpu::RenderPass<'_>,
        list: &mut DrawList,
        draws: &mut IndirectDraws,
        mut set: impl FnMut(&mut wgpu::RenderPass<'_>, usize),
    ) -> Result<(), Error> {
        list.check(manager.registry.tag(), &manager.instances)?;
        if draws.args.len() != list.len() {
            let what = format!("{} draws in the list, geometry for {}", list.len(), draws.args.len());
            return Err(Error::Indirect { what });
        }
        let (mask, generation) = ((1u32 << MAX_GROUPS) - 1, manager.generation());
        if list.recorded(generation, mask).is_none() {
            self.record(manager, list, mask)?;
        }
        let recorded = list.recorded(generation, mask).expect("recorded above");
        let key = (list.serial(), generation, draws.version);
        if draws.planned != Some(key) {
            plan(draws, list, recorded);
            draws.planned = Some(key);
        }
        upload(manager, queue, draws)?;
        // What is bound afterwards is the recording's, which this binder does not hold.
        self.reset();
        let caps = &manager.caps;
        let indirect = caps.features.contains(wgpu::Features::INDIRECT_FIRST_INSTANCE)
            && caps.downlevel.contains(wgpu::DownlevelFlags::INDIRECT_EXECUTION);
        let buffer = draws.buffer.as_ref();
        let n = draws.stride_words();
        let (mut calls, mut draw_calls) = (0, 0);
        for run in &draws.runs {
            recorded.replay_commands(pass, run.commands.clone());
            calls += run.commands.len() as u64;
            if run.batch_change {
                set(pass, run.draws.start as usize);
            }
            let count = run.draws.end - run.draws.start;
            match (indirect, buffer) {
                (true, Some(buffer)) => {
                    let offset = (run.draws.start as usize * n * 4) as u64;
                    if draws.indexed {
                        pass.multi_draw_indexed_indirect(buffer, offset, count);
                    } else {
                        pass.multi_draw_indirect(buffer, offset, count);
                    }
                    draw_calls += 1;
                }
                _ => {
                    draw_each(pass, draws, run);
                    draw_calls += count as u64;
                }
            }
        }
        // The encoder now reads the buffer until it is submitted.
        draws.in_use |= indirect && draws.buffer.is_some() && !draws.runs.is_empty();
        manager.stats.shared.draw_calls += draw_calls;
        self.calls += calls;
        manager.stats.shared.set_bind_group_calls += calls;
        Ok(())
    }

    /// Records the list's bind commands without a pass (building groups on
    /// a miss); nothing is bound, so nothing is counted.
    fn record(&mut self, manager: &mut Manager, list: &mut DrawList, mask: u32) -> Result<(), Error> {
        self.reset();
        let (calls, generation) = (manager.stats.shared.set_bind_group_calls, manager.generation());
        let mut none = NoPass;
        let mut recorder = Recorder::new(&mut none, generation, mask);
        let mut result = Ok(());
        for &(shader, index) in list.draws() {
            match self.bind_resolved(manager.draw_inputs(), &mut recorder, shader, index, mask) {
                Ok(first) => recorder.end_draw(first),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        manager.stats.shared.set_bind_group_calls = calls;
        self.reset();
        result.map(|()| list.keep(recorder.recorded))
    }
}

/// Splits the list into runs and writes each draw's arguments.
fn plan(draws: &mut IndirectDraws, list: &DrawList, recorded: &crate::binding::Recorded) {
    let n = draws.stride_words();
    if draws.words.len() != list.len() * n {
        draws.words = vec![0; list.len() * n];
        draws.dirty = Some(0..draws.words.len());
    }
    draws.runs.clear();
    let shaders = list.draws();
    for i in 0..list.len() {
        let commands = recorded.commands(i);
        draws.put(i, recorded.draws[i].1);
        let change =
            i == 0 || shaders[i].0 != shaders[i - 1].0 || draws.args[i].batch != draws.args[i - 1].batch;
        match draws.runs.last_mut() {
            Some(run) if !change && commands.is_empty() => run.draws.end += 1,
            _ => draws.runs.push(Run { draws: i as u32..i as u32 + 1, commands, batch_change: change }),
        }
    }
}

/// Writes the changed arguments: the whole buffer when it is new or grew.
fn upload(manager: &mut Manager, queue: &wgpu::Queue, draws: &mut IndirectDraws) -> Result<(), Error> {
    let bytes = (draws.words.len() * 4) as u64;
    if bytes == 0 {
        return Ok(());
    }
    if draws.device != manager.device_serial() {
        // Made on a device the manager left (recreate), or for another manager.
        draws.buffer = None;
    }
    // A buffer an unsubmitted encoder may read is not written: its writes
    // would land before that encoder runs. New arguments go to a new one.
    let stale = draws.in_use && draws.dirty.is_some();
    if stale || draws.buffer.as_ref().is_none_or(|b| b.size() < bytes) {
        let limit = manager.caps.limits.max_buffer_size;
        if bytes > limit {
            return Err(Error::Indirect {
                what: format!("{bytes} bytes of arguments, over max_buffer_size ({limit} bytes)"),
            });
        }
        let size = bytes.next_power_of_two().min(limit);
        let device = &manager.device;
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
        draws.buffer = Some(buffer);
        draws.device = manager.device_serial();
        draws.in_use = false;
        draws.dirty = Some(0..draws.words.len());
    }
    if let (Some(range), Some(buffer)) = (draws.dirty.take(), &draws.buffer) {
        let data: &[u8] = bytemuck::cast_slice(&draws.words[range.clone()]);
        queue.write_buffer(buffer, (range.start * 4) as u64, data);
        manager.stats.shared.bytes_uploaded += data.len() as u64;
        manager.stats.shared.upload_calls += 1;
    }
    Ok(())
}

/// One run draw by draw, for devices without indirect first instances.
fn draw_each(pass: &mut wgpu::RenderPass<'_>, draws: &IndirectDraws, run: &Run) {
    let n = draws.stride_words();
    for i in run.draws.clone() {
        let (a, first) = (draws.args[i as usize], draws.words[i as usize * n + n - 1]);
        if draws.indexed {
            pass.draw_indexed(a.first..a.first + a.count, a.base_vertex, first..first + 1);
        } else {
            pass.draw(a.first..a.first + a.count, first..first + 1);
        }
    }
}
