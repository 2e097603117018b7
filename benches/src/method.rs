//! What every method shares: the `Method` trait and its `Cost`, the
//! pipelines (`Shared`), the render target, and the layout constants.

use freqbuf::Headless;
use freqbuf::{Manager, ShaderId, SlotPlan};

use crate::scene::{FrameChanges, Scene};

/// Offset alignment every method uses (WebGPU's default, what `headless` asks for).
pub const ALIGN: u64 = 256;

/// Bytes between objects in an object storage array (`Object { world, tint }`).
pub const OBJECT_STRIDE: u64 = 80;

/// Bytes between objects with the bindless shaders (`material: u32` and padding after `tint`).
pub const BINDLESS_OBJECT_STRIDE: u64 = 96;

/// Bytes between materials in the bindless shaders' material array.
pub const MATERIAL_STRIDE: u64 = 48;

/// Merged offsets of the shared blocks (see `scene::shader`).
pub mod off {
    pub const TIME: usize = 0;
    pub const FRAME_INDEX: usize = 4;
    pub const AMBIENT: usize = 16;
    pub const BASE_COLOR: usize = 0;
    pub const PARAMS: usize = 16;
    pub const EMISSIVE: usize = 32;
    pub const WORLD: usize = 0;
    pub const TINT: usize = 64;
    /// The bindless object's material element.
    pub const MATERIAL: usize = 80;
}

/// What one frame cost a method, besides CPU time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cost {
    pub bytes: u64,
    pub upload_calls: u64,
    pub bind_calls: u64,
    /// freqbuf's flush uploaded some slot as one whole span.
    pub whole_span: bool,
}

/// A way of getting the scene's uniform values to the GPU and drawing it.
pub trait Method {
    /// The name used in reports.
    fn name(&self) -> &'static str;
    /// Takes a frame's changes (`scene` already holds the new values), uploads
    /// what the method uploads, encodes every draw into `target`, and submits.
    fn frame(
        &mut self,
        gpu: &Headless,
        shared: &Shared,
        scene: &Scene,
        changes: &FrameChanges,
        target: &Target,
    ) -> Cost;
}

/// Pipelines shared by every method.
pub struct Shared {
    pub pipelines: Vec<wgpu::RenderPipeline>,
    /// The bindless shaders' pipelines, by the same index (empty without `bindless`).
    pub bindless_pipelines: Vec<wgpu::RenderPipeline>,
    /// The layout of every group: one dynamic-offset uniform at binding 0.
    pub group_layout: wgpu::BindGroupLayout,
    /// The layout of an object storage array at binding 0, as freqbuf makes it.
    pub storage_layout: wgpu::BindGroupLayout,
}

/// A render target (one per method, so that methods can run interleaved).
pub struct Target {
    pub texture: wgpu::Texture,
    pub view: wgpu::TextureView,
}

impl Target {
    pub fn new(gpu: &Headless) -> Self {
        let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("stress target"),
            size: wgpu::Extent3d { width: SIZE.0, height: SIZE.1, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        Self { texture, view }
    }

    /// Begins the pass a method draws its frame in.
    pub fn pass<'e>(&self, encoder: &'e mut wgpu::CommandEncoder) -> wgpu::RenderPass<'e> {
        self.pass_from(encoder, wgpu::LoadOp::Clear(wgpu::Color::BLACK))
    }

    /// A further pass of the same frame: it keeps what the passes before it drew.
    pub fn next_pass<'e>(&self, encoder: &'e mut wgpu::CommandEncoder) -> wgpu::RenderPass<'e> {
        self.pass_from(encoder, wgpu::LoadOp::Load)
    }

    fn pass_from<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        load: wgpu::LoadOp<wgpu::Color>,
    ) -> wgpu::RenderPass<'e> {
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("stress"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &self.view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations { load, store: wgpu::StoreOp::Store },
            })],
            ..Default::default()
        })
    }
}

pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
pub const SIZE: (u32, u32) = (512, 256);

impl Shared {
    /// Builds one pipeline per shader from the layouts freqbuf generates. Every
    /// method's bind group layouts have the same entries, so wgpu treats them as
    /// the same layout and the pipelines serve all methods.
    pub fn new(gpu: &Headless, scene: &Scene) -> Self {
        Self::with_format(gpu, scene, FORMAT)
    }

    /// Like [`Shared::new`], with pipelines that draw into `format`.
    pub fn with_format(gpu: &Headless, scene: &Scene, format: wgpu::TextureFormat) -> Self {
        let mut m = Manager::new(&gpu.device, SlotPlan::default());
        let ids = register_all(&mut m, scene);
        let pipelines = ids.iter().map(|&id| pipeline(gpu, &m, id, format)).collect();
        let mut m = Manager::new(&gpu.device, SlotPlan::default());
        let ids = register_bindless(&mut m, scene);
        let bindless_pipelines = ids.iter().map(|&id| pipeline(gpu, &m, id, format)).collect();
        let group_layout = gpu.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("uniform group"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT | wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: true,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let storage_layout = gpu.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("object storage group"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT | wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: true },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        Self { pipelines, bindless_pipelines, group_layout, storage_layout }
    }

    /// A bind group over a whole object storage array.
    pub fn storage_group(&self, gpu: &Headless, buffer: &wgpu::Buffer) -> wgpu::BindGroup {
        gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &self.storage_layout,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: buffer.as_entire_binding() }],
        })
    }

    /// A bind group over `buffer` for one group, `size` bytes per draw.
    pub fn group(&self, gpu: &Headless, buffer: &wgpu::Buffer, size: u64) -> wgpu::BindGroup {
        gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &self.group_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset: 0,
                    size: wgpu::BufferSize::new(size),
                }),
            }],
        })
    }
}

/// Registers every shader of the scene, in order, as one family: they are
/// variants of one material type (its blocks are prefixes and subsets of one
/// `Material`), so their material blocks merge and switching between them
/// rebinds nothing.
pub fn register_all(m: &mut Manager, scene: &Scene) -> Vec<ShaderId> {
    register(m, &scene.shaders)
}

/// Registers the bindless form of every shader, as one family: one material slab.
pub fn register_bindless(m: &mut Manager, scene: &Scene) -> Vec<ShaderId> {
    register(m, &scene.bindless_shaders)
}

fn register(m: &mut Manager, shaders: &[crate::scene::ShaderDef]) -> Vec<ShaderId> {
    let register = |s: &crate::scene::ShaderDef| {
        let source = freqbuf::reflect::ShaderSource::Wgsl(&s.wgsl);
        let reflection = freqbuf::reflect::ShaderReflection::new(s.name.as_str(), source)
            .unwrap_or_else(|e| panic!("{e}"));
        m.register(reflection.with_family("scene")).unwrap_or_else(|e| panic!("{e}"))
    };
    shaders.iter().map(register).collect()
}

pub(crate) fn pipeline(
    gpu: &Headless,
    m: &Manager,
    id: ShaderId,
    format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    let module = m.create_shader_module(id).expect("registered");
    gpu.device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: None,
        layout: Some(m.pipeline_layout(id).expect("registered")),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs"),
            compilation_options: Default::default(),
            targets: &[Some(format.into())],
        }),
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleStrip,
            ..Default::default()
        },
        depth_stencil: None,
        multisample: Default::default(),
        multiview_mask: None,
        cache: None,
    })
}

pub(crate) fn bundle_encoder(gpu: &Headless) -> wgpu::RenderBundleEncoder<'_> {
    gpu.device.create_render_bundle_encoder(&wgpu::RenderBundleEncoderDescriptor {
        label: Some("freqbuf bundle"),
        color_formats: &[Some(FORMAT)],
        depth_stencil: None,
        sample_count: 1,
        multiview: None,
    })
}

pub(crate) fn bytes_of_mat(m: &[[f32; 4]; 4]) -> &[u8] {
    bytemuck::cast_slice(m)
}
