//! `Belt`: the bytes a flush uploads go through mapped staging memory that
//! is kept and reused (wgpu's `StagingBelt`), copied on the GPU in the
//! flush's encoder.
//!
//! `queue.write_buffer` makes a new staging allocation for every call; on
//! drivers that back memory lazily (lavapipe, and any that zero fresh pages)
//! each frame then pays a page fault per 4 KiB page written, and the driver
//! frees it again after the submit, in the thread the frame competes with.
//! The belt maps its chunks once and maps them again when the GPU is done
//! with a submit, so a steady frame allocates nothing. Its copies are
//! recorded in the encoder, in order with the commands that read their
//! target, so a second flush before the first encoder is submitted cannot
//! overwrite what that encoder will read (`queue.write_buffer` lands before
//! every command buffer of the next submit).

use crate::device::scope;
use crate::errors::Error;

/// Bytes of one belt chunk; a larger upload gets a chunk its own size.
const CHUNK: u64 = 1 << 20;

/// The largest single-range upload written straight into a slot through the
/// belt. Larger ones (a re-laid slot, a first upload) use `queue.write_buffer`:
/// keeping a chunk that size mapped for a one-off would cost more memory than
/// the fault saves. Packed chunks always use the belt: a chunk is at most a
/// quarter of a storage binding, and the staging buffer is as large anyway.
pub(super) const LARGEST: u64 = 16 << 20;

/// Flushes over which the largest one is compared with the belt's.
const WINDOW: u32 = 64;

/// The uploader's staging belt, made on first use, and made again after a
/// burst: wgpu's `StagingBelt` keeps every chunk it ever made, so a frame
/// that staged 80 MB would hold 80 MB of mapped memory for good.
#[derive(Debug, Default)]
pub(super) struct Belt {
    belt: Option<wgpu::util::StagingBelt>,
    trim: Trim,
}

/// When to drop the belt: when the most one flush staged since it was
/// made is over four times the most in the last `WINDOW` flushes, and at
/// least four default chunks. Its chunks in flight are freed when the GPU
/// is done with them (their return to a dropped belt is a no-op).
#[derive(Debug, Default)]
struct Trim {
    /// Bytes staged since the last flush ended.
    staged: u64,
    /// The most one flush staged since the belt was made, and in this window.
    held: u64,
    window: u64,
    flushes: u32,
}

impl Trim {
    fn staged(&mut self, len: u64) {
        self.staged += len;
    }

    /// A flush ended; whether to drop the belt.
    fn flushed(&mut self) -> bool {
        let staged = std::mem::take(&mut self.staged);
        self.held = self.held.max(staged);
        self.window = self.window.max(staged);
        self.flushes = self.flushes.wrapping_add(1);
        if !self.flushes.is_multiple_of(WINDOW) {
            return false;
        }
        let window = std::mem::take(&mut self.window);
        let drop = self.held >= 4 * CHUNK && self.held > 4 * window;
        if drop {
            self.held = window;
        }
        drop
    }
}

impl Belt {
    /// The belt, made on first use, with `len` more bytes counted for `Trim`.
    fn belt_for(&mut self, device: &wgpu::Device, len: wgpu::BufferSize) -> &mut wgpu::util::StagingBelt {
        self.trim.staged(len.get());
        self.belt.get_or_insert_with(|| wgpu::util::StagingBelt::new(device.clone(), CHUNK))
    }

    /// Starts an upload of `len` bytes to `target` at `offset`: a copy
    /// recorded in `encoder` from belt memory, returned to be written.
    pub(super) fn write(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::Buffer,
        offset: u64,
        len: wgpu::BufferSize,
    ) -> Result<wgpu::BufferViewMut, Error> {
        let belt = self.belt_for(device, len);
        let what = || format!("staging belt chunk for {len} bytes");
        scope::scoped(device, what, || belt.write_buffer(encoder, target, offset, len))
    }

    /// Belt memory of `len` bytes at a multiple of `align`, for the caller
    /// to record its own commands from (caller-owned rows): the chunk, the
    /// offset in it, and the mapped bytes to write.
    pub(super) fn allocate(
        &mut self,
        device: &wgpu::Device,
        len: wgpu::BufferSize,
        align: u64,
    ) -> Result<(wgpu::Buffer, u64, wgpu::BufferViewMut), Error> {
        let belt = self.belt_for(device, len);
        let align = wgpu::BufferSize::new(align.max(wgpu::COPY_BUFFER_ALIGNMENT)).expect("not zero");
        let what = || format!("staging belt chunk for {len} bytes of rows");
        scope::scoped(device, what, || {
            let slice = belt.allocate(len, align);
            let view = slice.get_mapped_range_mut().expect("belt chunks are mapped until finish");
            (slice.buffer().clone(), slice.offset(), view)
        })
    }

    /// The encoder the belt's copies went into is about to be submitted.
    pub(super) fn finish(&mut self) {
        if let Some(b) = &mut self.belt {
            b.finish();
        }
    }

    /// That encoder was submitted: chunks map again once the GPU is done.
    pub(super) fn recall(&mut self) {
        if let Some(b) = &mut self.belt {
            b.recall();
        }
    }

    /// A flush ended, its chunks closed: drops the belt after a burst
    /// (`Trim`); the next upload makes another.
    pub(super) fn flushed(&mut self) {
        if self.trim.flushed() {
            self.belt = None;
        }
    }

    /// The application will submit `encoder` (`flush_into`): chunks map
    /// again once that submission is done.
    pub(super) fn recall_on_submit(&mut self, encoder: &wgpu::CommandEncoder) {
        if let Some(b) = &mut self.belt {
            b.finish_and_recall_on_submit(encoder);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Flushes of `len` bytes each; how many of them dropped the belt.
    fn run(trim: &mut Trim, len: u64, flushes: u32) -> u32 {
        (0..flushes)
            .map(|_| {
                trim.staged(len);
                u32::from(trim.flushed())
            })
            .sum()
    }

    #[test]
    fn a_burst_is_let_go_once_flushes_stage_a_quarter_or_less() {
        let mut t = Trim::default();
        assert_eq!(run(&mut t, 80 << 20, 3), 0, "a burst of 80 MiB flushes");
        // The window holding the burst ends first; the next window decides.
        assert_eq!(run(&mut t, 1 << 20, 2 * WINDOW), 1, "then 1 MiB flushes: dropped once");
        assert_eq!(run(&mut t, 1 << 20, 4 * WINDOW), 0, "a steady size is kept");
        assert_eq!(run(&mut t, 3 << 20, 4 * WINDOW), 0, "under four chunks, never dropped");
    }

    #[test]
    fn a_size_that_varies_within_four_times_is_kept() {
        let mut t = Trim::default();
        let drops: u32 = (0..8 * WINDOW)
            .map(|i| {
                t.staged((2 + u64::from(i % 7)) << 20);
                u32::from(t.flushed())
            })
            .sum();
        assert_eq!(drops, 0);
    }
}
