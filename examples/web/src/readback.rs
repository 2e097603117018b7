//! Reading the picture back and hashing it, the same way natively and in
//! the browser, where a mapping completes only when the page's event loop
//! runs again: so mapping is started, then asked after.

use std::sync::{Arc, OnceLock};

use crate::scene::SIZE;

/// Bytes of one row of the picture as copied (WebGPU copies rows 256-byte aligned).
const ROW: u32 = (SIZE * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);

/// A copy of the picture on its way back to the CPU.
#[derive(Debug)]
pub struct Readback {
    buffer: wgpu::Buffer,
    mapped: Arc<OnceLock<Result<(), String>>>,
}

impl Readback {
    /// Encodes a copy of `picture` (`SIZE`², 4 bytes a texel) into a new buffer.
    pub fn copy(device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder, picture: &wgpu::Texture) -> Self {
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("freqbuf-web readback"),
            size: u64::from(ROW * SIZE),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        encoder.copy_texture_to_buffer(
            picture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(ROW),
                    rows_per_image: None,
                },
            },
            wgpu::Extent3d { width: SIZE, height: SIZE, depth_or_array_layers: 1 },
        );
        Self { buffer, mapped: Arc::default() }
    }

    /// Starts mapping; call after the copy is submitted.
    pub fn map(&self) {
        let mapped = self.mapped.clone();
        self.buffer.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = mapped.set(r.map_err(|e| e.to_string()));
        });
    }

    /// The picture's pixels once mapped (RGBA, rows top to bottom, no
    /// padding). `None` while the mapping is pending.
    pub fn pixels(&self) -> Option<Result<Vec<u8>, String>> {
        let mapped = self.mapped.get()?;
        Some(mapped.clone().and_then(|()| {
            let data = self.buffer.slice(..).get_mapped_range().map_err(|e| e.to_string())?;
            Ok(data.chunks(ROW as usize).flat_map(|row| &row[..(SIZE * 4) as usize]).copied().collect())
        }))
    }

    /// The picture's checksum once mapped: FNV-1a (64 bit) over
    /// [`Readback::pixels`]. `None` while the mapping is pending.
    pub fn checksum(&self) -> Option<Result<u64, String>> {
        Some(self.pixels()?.map(|p| checksum(&p)))
    }
}

/// FNV-1a, 64 bit: small, and the same in every build.
pub fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}
