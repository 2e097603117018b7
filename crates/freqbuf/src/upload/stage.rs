//! Staging: one chunk's pieces and scatter tables, written to the staging
//! buffer with a single upload call.

use super::scatter::Table;
use super::{Sink, Uploader};
use crate::device::scope;
use crate::errors::Error;
use crate::slot::shadow::Slot;
use crate::stats::FrameStats;

/// Pieces ahead of the one copied whose shadow bytes are fetched.
const PREFETCH_AHEAD: usize = 8;

impl Uploader {
    /// Lays out the chunk (data, then one table per scatter job, then the
    /// table window), grows the staging buffer if needed, and writes it.
    /// Returns the staging buffer.
    pub(super) fn stage(
        &mut self,
        device: &wgpu::Device,
        stats: &mut FrameStats,
        slots: &[Slot],
        data: u64,
        sink: &mut Sink<'_>,
    ) -> Result<wgpu::Buffer, Error> {
        let storage_align = self.limits.min_storage_buffer_offset_alignment as u64;
        let mut size = data;
        let mut max_table = 0;
        for job in self.jobs.iter_mut().filter(|j| j.scatter) {
            size = size.next_multiple_of(storage_align);
            job.table = size;
            job.form = Table::of(self.pieces[job.ranges.clone()].iter().map(|&(lo, hi)| hi - lo));
            let bytes = job.form.bytes(job.ranges.len() as u64);
            size += bytes;
            max_table = max_table.max(bytes);
        }
        let write_len = size;
        if max_table > 0 {
            let need_window = max_table.next_power_of_two().max(256);
            if need_window > self.window {
                self.window = need_window;
                self.staging = None;
            }
            size += self.window;
        }
        let staging = self.staging_buffer(device, stats, size)?;
        #[cfg(feature = "fault-injection")]
        if crate::fault::hit(crate::fault::FaultSite::Upload) {
            return Err(crate::device::scope::injected("staging upload".into()));
        }
        let len = wgpu::BufferSize::new(write_len).expect("jobs have bytes");
        let mut view = self.belt.write(device, sink.encoder(device), &staging, 0, len)?;
        // Taken once: each `BufferViewMut::slice` goes through wgpu's backend dispatch.
        let mut out = view.slice(..);
        let words = &mut self.table_words;
        for job in &self.jobs {
            let shadow = slots[job.slot].shadow();
            let mut at = job.src;
            let pieces = &self.pieces[job.ranges.clone()];
            words.clear();
            for (p, &(lo, hi)) in pieces.iter().enumerate() {
                // The pieces lie far apart in a shadow larger than the caches:
                // fetch a later one's bytes while this one is copied.
                if let Some(&(lo, hi)) = pieces.get(p + PREFETCH_AHEAD) {
                    crate::write::behind::prefetch(&shadow[lo as usize..hi as usize]);
                }
                let len = hi - lo;
                out.slice(at as usize..(at + len) as usize)
                    .copy_from_slice(&shadow[lo as usize..hi as usize]);
                if job.scatter {
                    job.form.push(words, lo, at);
                }
                at += len;
            }
            if job.scatter {
                job.form.write(&mut out, job.table, (pieces.len() as u64, job.src, at), words);
            }
        }
        drop(view);
        stats.shared.upload_calls += 1;
        stats.shared.bytes_uploaded += write_len - data;
        Ok(staging)
    }

    /// The staging buffer, made anew when smaller than `size` bytes (then
    /// the scatter groups that bind the old one are dropped).
    pub(super) fn staging_buffer(
        &mut self,
        device: &wgpu::Device,
        stats: &mut FrameStats,
        size: u64,
    ) -> Result<wgpu::Buffer, Error> {
        let size = size.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        if self.staging.as_ref().is_none_or(|b| b.size() < size) {
            let desc = wgpu::BufferDescriptor {
                label: Some("freqbuf staging"),
                size: size.next_power_of_two().min(super::ranges::staging_limit(&self.limits)).max(size),
                usage: wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            };
            let what = || format!("staging buffer of {} bytes", desc.size);
            self.staging = Some(scope::scoped(device, what, || device.create_buffer(&desc))?);
            stats.shared.staging_buffers_created += 1;
            // Scatter groups bind the staging buffer.
            if let Some(s) = self.scatter.as_mut() {
                s.groups.clear();
            }
        }
        Ok(self.staging.clone().expect("created above"))
    }
}
