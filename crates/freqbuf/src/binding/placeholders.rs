//! Placeholders: zeroed textures, default samplers and zeroed storage
//! buffers (for elements of a buffer array) that stand in for the resources
//! an instance has not set, so that every bind group can be built as soon as
//! a shader is registered. A plain storage buffer has none: not setting it
//! is `Error::Unset`.

use std::collections::HashMap;

/// Zeroed stand-ins for resources an instance has not set.
#[derive(Debug, Default)]
pub(crate) struct Placeholders {
    views: HashMap<wgpu::BindingType, wgpu::TextureView>,
    samplers: HashMap<bool, wgpu::Sampler>,
    /// By size in bytes.
    buffers: HashMap<u64, wgpu::Buffer>,
}

impl Placeholders {
    /// A 1-texel (1×1×6 for cubes) zeroed texture matching `ty`.
    pub(crate) fn view(
        &mut self,
        device: &wgpu::Device,
        ty: wgpu::BindingType,
    ) -> Option<&wgpu::TextureView> {
        // A storage texture's placeholder has its format and takes (and
        // drops) what a shader writes.
        let (format, view_dimension, multisampled, usage) = match ty {
            wgpu::BindingType::Texture { sample_type, view_dimension, multisampled } => {
                let format = match sample_type {
                    wgpu::TextureSampleType::Sint => wgpu::TextureFormat::Rgba8Sint,
                    wgpu::TextureSampleType::Uint => wgpu::TextureFormat::Rgba8Uint,
                    wgpu::TextureSampleType::Depth => wgpu::TextureFormat::Depth32Float,
                    wgpu::TextureSampleType::Float { .. } => wgpu::TextureFormat::Rgba8Unorm,
                };
                (format, view_dimension, multisampled, wgpu::TextureUsages::TEXTURE_BINDING)
            }
            wgpu::BindingType::StorageTexture { format, view_dimension, .. } => {
                (format, view_dimension, false, wgpu::TextureUsages::STORAGE_BINDING)
            }
            _ => return None,
        };
        Some(self.views.entry(ty).or_insert_with(|| {
            use wgpu::TextureViewDimension as V;
            let (dimension, layers) = match view_dimension {
                V::D1 => (wgpu::TextureDimension::D1, 1),
                V::D3 => (wgpu::TextureDimension::D3, 1),
                V::Cube | V::CubeArray => (wgpu::TextureDimension::D2, 6),
                V::D2 | V::D2Array => (wgpu::TextureDimension::D2, 1),
            };
            let mut usage = usage;
            if multisampled {
                usage |= wgpu::TextureUsages::RENDER_ATTACHMENT;
            }
            let texture = device.create_texture(&wgpu::TextureDescriptor {
                label: Some("freqbuf placeholder"),
                size: wgpu::Extent3d { width: 1, height: 1, depth_or_array_layers: layers },
                mip_level_count: 1,
                sample_count: if multisampled { 4 } else { 1 },
                dimension,
                format,
                usage,
                view_formats: &[],
            });
            texture.create_view(&wgpu::TextureViewDescriptor {
                dimension: Some(view_dimension),
                ..Default::default()
            })
        }))
    }

    /// A zeroed storage buffer of at least `min_size` bytes (16 or more, a
    /// multiple of 16), for an element of a buffer array; what a shader
    /// writes to it is dropped with it.
    pub(crate) fn buffer(&mut self, device: &wgpu::Device, min_size: u32) -> &wgpu::Buffer {
        let size = u64::from(min_size.max(16)).next_multiple_of(16);
        self.buffers.entry(size).or_insert_with(|| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("freqbuf placeholder"),
                size,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        })
    }

    /// A default sampler (a comparison sampler when `comparison`).
    pub(crate) fn sampler(&mut self, device: &wgpu::Device, comparison: bool) -> &wgpu::Sampler {
        self.samplers.entry(comparison).or_insert_with(|| {
            device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("freqbuf placeholder"),
                compare: comparison.then_some(wgpu::CompareFunction::LessEqual),
                ..Default::default()
            })
        })
    }
}
