//! `Belt`: the bytes a flush uploads go through mapped staging memory that
//! is kept and reused (wgpu's `StagingBelt`), copied on the GPU in the
//! flush's encoder.
//!
//! `queue.write_buffer` makes a new staging allocation for every call; on
//! drivers that back memory lazily (lavapipe, and any that zero fresh pages)
//! each frame then pays a page fault per 4 KiB page written, and the driver
//! frees it again after the submit, in the thread the frame competes with.
//! The belt maps its chunks once and maps them again when the GPU is done
//! with a submit, so a steady frame allocates nothing. Uploads larger than
//! [`LARGEST`] (a re-laid slot, a first upload) still use `queue.write_buffer`:
//! keeping a chunk that size mapped for a one-off would cost more memory
//! than the fault saves.

use crate::error::Error;
use crate::scope;

/// Bytes of one belt chunk; a larger upload gets a chunk its own size.
const CHUNK: u64 = 1 << 20;

/// The largest upload that goes through the belt.
pub(super) const LARGEST: u64 = 16 << 20;

/// A write into mapped memory: the belt's, or the queue's own staging.
pub(super) enum Upload {
    Belt(wgpu::BufferViewMut),
    Queue(wgpu::QueueWriteBufferView),
}

impl Upload {
    /// The bytes `range` of the upload, to write.
    #[inline]
    pub(super) fn slice(&mut self, range: std::ops::Range<usize>) -> wgpu::WriteOnly<'_, [u8]> {
        match self {
            Upload::Belt(v) => v.slice(range),
            Upload::Queue(v) => v.slice(range),
        }
    }
}

/// The uploader's staging belt, made on first use.
#[derive(Debug, Default)]
pub(super) struct Belt {
    belt: Option<wgpu::util::StagingBelt>,
}

impl Belt {
    /// Starts an upload of `len` bytes to `target` at `offset`: through the
    /// belt (a copy recorded in `encoder`) up to [`LARGEST`], else through
    /// `queue.write_buffer_with`.
    pub(super) fn write(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::Buffer,
        offset: u64,
        len: wgpu::BufferSize,
    ) -> Result<Upload, Error> {
        if len.get() > LARGEST {
            let view = queue.write_buffer_with(target, offset, len).expect("the target holds the range");
            return Ok(Upload::Queue(view));
        }
        let belt = self.belt.get_or_insert_with(|| wgpu::util::StagingBelt::new(device.clone(), CHUNK));
        let what = || format!("staging belt chunk for {len} bytes");
        scope::scoped(device, what, || Upload::Belt(belt.write_buffer(encoder, target, offset, len)))
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

    /// The application will submit `encoder` (`flush_into`): chunks map
    /// again once that submission is done.
    pub(super) fn recall_on_submit(&mut self, encoder: &wgpu::CommandEncoder) {
        if let Some(b) = &mut self.belt {
            b.finish_and_recall_on_submit(encoder);
        }
    }
}

impl std::fmt::Debug for Upload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Upload::Belt(_) => "Upload::Belt",
            Upload::Queue(_) => "Upload::Queue",
        })
    }
}
