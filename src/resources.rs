//! Textures, samplers and storage buffers that instances own, and the
//! placeholders that stand in for those not set yet, so that every bind group
//! can be built as soon as a shader is registered.

use std::collections::HashMap;

use crate::plan::BindingPoint;
use crate::reflect::ResourceKind;

/// A resource bound at one binding point (and array element) of an instance.
#[derive(Clone, Debug)]
pub(crate) enum Bound {
    Texture(wgpu::TextureView),
    Sampler(wgpu::Sampler),
    Buffer(wgpu::Buffer),
}

/// The resources one instance owns.
#[derive(Debug, Default)]
pub(crate) struct InstanceResources {
    /// Changes whenever an item changes, so bind groups know to rebuild.
    pub(crate) epoch: u64,
    pub(crate) items: Vec<(BindingPoint, u32, Bound)>,
}

impl InstanceResources {
    pub(crate) fn get(&self, point: BindingPoint, element: u32) -> Option<&Bound> {
        self.items.iter().find(|(p, e, _)| *p == point && *e == element).map(|(_, _, b)| b)
    }

    pub(crate) fn set(&mut self, point: BindingPoint, element: u32, bound: Bound, epoch: u64) {
        match self.items.iter_mut().find(|(p, e, _)| *p == point && *e == element) {
            Some(item) => item.2 = bound,
            None => self.items.push((point, element, bound)),
        }
        self.epoch = epoch;
    }
}

/// The wgpu binding type of a non-uniform resource, or why it has none.
/// `sampled`: a float texture is sampled with a sampler somewhere, so it must be filterable.
pub(crate) fn binding_type(kind: &ResourceKind, sampled: bool) -> Result<wgpu::BindingType, &'static str> {
    use naga::{ImageClass, ImageDimension as D, ScalarKind};
    Ok(match *kind {
        ResourceKind::Texture { dim, arrayed, class } => {
            let view_dimension = match (dim, arrayed) {
                (D::D1, _) => wgpu::TextureViewDimension::D1,
                (D::D2, false) => wgpu::TextureViewDimension::D2,
                (D::D2, true) => wgpu::TextureViewDimension::D2Array,
                (D::D3, _) => wgpu::TextureViewDimension::D3,
                (D::Cube, false) => wgpu::TextureViewDimension::Cube,
                (D::Cube, true) => wgpu::TextureViewDimension::CubeArray,
            };
            let (sample_type, multisampled) = match class {
                ImageClass::Sampled { kind, multi } => (
                    match kind {
                        ScalarKind::Sint => wgpu::TextureSampleType::Sint,
                        ScalarKind::Uint => wgpu::TextureSampleType::Uint,
                        _ => wgpu::TextureSampleType::Float { filterable: sampled && !multi },
                    },
                    multi,
                ),
                ImageClass::Depth { multi } => (wgpu::TextureSampleType::Depth, multi),
                _ => return Err("external and storage images are not supported"),
            };
            wgpu::BindingType::Texture { sample_type, view_dimension, multisampled }
        }
        ResourceKind::Sampler { comparison } => wgpu::BindingType::Sampler(if comparison {
            wgpu::SamplerBindingType::Comparison
        } else {
            wgpu::SamplerBindingType::Filtering
        }),
        ResourceKind::Storage { read_only } => wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        ResourceKind::StorageTexture { .. } => {
            return Err("storage textures are not supported yet");
        }
        ResourceKind::AccelerationStructure => {
            return Err("acceleration structures are not supported");
        }
        ResourceKind::Uniform => unreachable!("uniform blocks are slots"),
    })
}

/// A binding type in words, for errors: `texture_2d<f32> (filterable)`.
pub(crate) fn describe(ty: wgpu::BindingType) -> String {
    match ty {
        wgpu::BindingType::Texture { sample_type, view_dimension, multisampled } => {
            let sample = match sample_type {
                wgpu::TextureSampleType::Float { filterable: true } => "filterable float",
                wgpu::TextureSampleType::Float { filterable: false } => "unfilterable float",
                wgpu::TextureSampleType::Depth => "depth",
                wgpu::TextureSampleType::Sint => "sint",
                wgpu::TextureSampleType::Uint => "uint",
            };
            let ms = if multisampled { ", multisampled" } else { "" };
            format!("a {view_dimension:?} texture view of a {sample} format{ms}")
        }
        wgpu::BindingType::Sampler(kind) => format!("a {kind:?} sampler").to_lowercase(),
        wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            min_binding_size,
            ..
        } => {
            let access = if read_only { "read-only" } else { "read-write" };
            let min = min_binding_size.map_or(String::new(), |m| format!(" of at least {m} bytes"));
            format!("a {access} storage buffer{min}")
        }
        other => format!("{other:?}"),
    }
}

/// Zeroed stand-ins for resources an instance has not set.
#[derive(Debug, Default)]
pub(crate) struct Placeholders {
    views: HashMap<wgpu::BindingType, wgpu::TextureView>,
    samplers: HashMap<bool, wgpu::Sampler>,
}

impl Placeholders {
    /// A 1-texel (1×1×6 for cubes) zeroed texture matching `ty`.
    pub(crate) fn view(
        &mut self,
        device: &wgpu::Device,
        ty: wgpu::BindingType,
    ) -> Option<&wgpu::TextureView> {
        let wgpu::BindingType::Texture { sample_type, view_dimension, multisampled } = ty else {
            return None;
        };
        Some(self.views.entry(ty).or_insert_with(|| {
            use wgpu::TextureViewDimension as V;
            let format = match sample_type {
                wgpu::TextureSampleType::Sint => wgpu::TextureFormat::Rgba8Sint,
                wgpu::TextureSampleType::Uint => wgpu::TextureFormat::Rgba8Uint,
                wgpu::TextureSampleType::Depth => wgpu::TextureFormat::Depth32Float,
                wgpu::TextureSampleType::Float { .. } => wgpu::TextureFormat::Rgba8Unorm,
            };
            let (dimension, layers) = match view_dimension {
                V::D1 => (wgpu::TextureDimension::D1, 1),
                V::D3 => (wgpu::TextureDimension::D3, 1),
                V::Cube | V::CubeArray => (wgpu::TextureDimension::D2, 6),
                V::D2 | V::D2Array => (wgpu::TextureDimension::D2, 1),
            };
            let mut usage = wgpu::TextureUsages::TEXTURE_BINDING;
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
