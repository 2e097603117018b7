//! Moving: one chunk's pieces from the staging buffer into the slot buffers,
//! by copies or scatter dispatches recorded after any growth copies, then one submit.

use super::scatter::Scatter;
use super::{Sink, Uploader};
use crate::device::scope;
use crate::errors::Error;
use crate::slot::shadow::Slot;
use crate::stats::FrameStats;

impl Uploader {
    /// Records the chunk's copies and dispatches, and submits them unless
    /// they go into the application's encoder.
    pub(super) fn move_chunk(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        slots: &[Slot],
        stats: &mut FrameStats,
        staging: &wgpu::Buffer,
        sink: &mut Sink<'_>,
    ) -> Result<(), Error> {
        let enc = sink.encoder(device);
        for job in self.jobs.iter().filter(|j| !j.scatter) {
            let dst = slots[job.slot].gpu_buffer().expect("grown in plan");
            let mut at = job.src;
            for &(lo, hi) in &self.pieces[job.ranges.clone()] {
                enc.copy_buffer_to_buffer(staging, at, dst, lo, hi - lo);
                at += hi - lo;
            }
            stats.slot_mut(slots[job.slot].id()).copy_commands += job.ranges.len() as u64;
        }
        if self.jobs.iter().any(|j| j.scatter) {
            #[cfg(feature = "fault-injection")]
            if crate::fault::hit(crate::fault::FaultSite::Scatter) {
                return Err(crate::device::scope::injected("scatter dispatch".into()));
            }
            if self.scatter.is_none() {
                let scatter =
                    scope::scoped(device, || "flush scatter pipeline".into(), || Scatter::new(device))?;
                self.scatter = Some(scatter);
            }
            let scatter = self.scatter.as_mut().expect("built above");
            for job in self.jobs.iter().filter(|j| j.scatter) {
                if !scatter.groups.contains_key(&job.slot) {
                    let slot = &slots[job.slot];
                    let dst = slot.gpu_buffer().expect("flushed slots have buffers");
                    let what = || format!("scatter bind group for slot {}", slot.binding());
                    let group =
                        scope::scoped(device, what, || scatter.group(device, staging, self.window, dst))?;
                    scatter.groups.insert(job.slot, group);
                }
            }
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("freqbuf scatter"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&scatter.pipeline);
            for job in self.jobs.iter().filter(|j| j.scatter) {
                pass.set_bind_group(0, &scatter.groups[&job.slot], &[job.table as u32]);
                let rows = job.ranges.len() as u64;
                let groups = rows.div_ceil(64) as u32;
                pass.dispatch_workgroups(groups.min(65535), groups.div_ceil(65535), 1);
                stats.slot_mut(slots[job.slot].id()).dispatches += 1;
            }
        }
        // An own encoder is submitted per chunk, so that a large flush's belt
        // memory comes back chunk by chunk.
        self.submit(queue, sink);
        Ok(())
    }
}
