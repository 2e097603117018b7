//! freqbuf and the baselines it is measured against, each rendering the same
//! scene with the same shaders and pipelines.
//!
//! * `freqbuf`: shared slots, dirty-byte flush, the draw binder.
//! * `per_shader_cache` (D3DX Effect / bgfx): every shader owns a copy of every
//!   block it declares; shared values are set in every shader; at every draw
//!   where the shader or its values changed, its whole constant data is committed
//!   into a per-frame scratch ring bound with dynamic offsets, uploaded once.
//! * `full_rewrite`: frame, view and material data through freqbuf; every
//!   object's data re-uploaded every frame into one dynamic-offset buffer.
//! * `encode_floor`: the same draws with bind groups built and offsets computed
//!   beforehand, and no uploads: the cost of encoding alone.
//! * `storage_instancing` (Bevy's `GpuArrayBuffer`, Ogre-Next's `drawId`;
//!   scenes with `object_storage` only): object data in one storage array at
//!   its own stride, read by instance index; only changed objects uploaded,
//!   coalesced, scattered by a compute pass when they are many; the object
//!   group bound once per pass. Frame, view and material data go through
//!   freqbuf's uniform slots, the best uniform handling at hand.
//!
//! With `object_storage`, `full_rewrite` rewrites the whole storage array every
//! frame and `encode_floor` binds it once; `per_shader_cache` does not apply.

use freqbuf::Headless;
use freqbuf::{
    Binder, Draw, DrawArgs, DrawList, IndirectDraws, InstanceList, Manager, MaterialId, ObjectId, Param,
    ShaderId, SlotPlan, ViewId,
};

use super::scene::{FrameChanges, Scene};

/// Offset alignment every method uses (WebGPU's default, what `headless` asks for).
pub const ALIGN: u64 = 256;

/// Bytes between objects in an object storage array (`Object { world, tint }`).
pub const OBJECT_STRIDE: u64 = 80;

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
}

/// What one frame cost a method, besides CPU time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cost {
    pub bytes: u64,
    pub upload_calls: u64,
    pub bind_calls: u64,
    /// freqbuf's flush uploaded some slot as one span (its dense form).
    pub dense: bool,
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
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("stress"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &self.view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    store: wgpu::StoreOp::Store,
                },
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
        Self { pipelines, group_layout, storage_layout }
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
    let register = |s: &super::scene::ShaderDef| {
        let source = freqbuf::reflect::ShaderSource::Wgsl(&s.wgsl);
        let reflection = freqbuf::reflect::ShaderReflection::new(s.name.as_str(), source)
            .unwrap_or_else(|e| panic!("{e}"));
        m.register(reflection.with_family("scene")).unwrap_or_else(|e| panic!("{e}"))
    };
    scene.shaders.iter().map(register).collect()
}

fn pipeline(gpu: &Headless, m: &Manager, id: ShaderId, format: wgpu::TextureFormat) -> wgpu::RenderPipeline {
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

fn bundle_encoder(gpu: &Headless) -> wgpu::RenderBundleEncoder<'_> {
    gpu.device.create_render_bundle_encoder(&wgpu::RenderBundleEncoderDescriptor {
        label: Some("freqbuf bundle"),
        color_formats: &[Some(FORMAT)],
        depth_stencil: None,
        sample_count: 1,
        multiview: None,
    })
}

fn bytes_of_mat(m: &[[f32; 4]; 4]) -> &[u8] {
    bytemuck::cast_slice(m)
}

// ---------------------------------------------------------------------------

/// freqbuf: shared slots, values set once where they change.
pub struct Freqbuf {
    m: Manager,
    shaders: Vec<ShaderId>,
    views: Vec<ViewId>,
    materials: Vec<MaterialId>,
    objects: Vec<ObjectId>,
    p: Params,
    /// Draw order, prepared once: (pipeline index, draw).
    draws: Vec<(usize, Draw)>,
    name: &'static str,
    /// With `--bundles`: the draws recorded once, and the manager generation
    /// they were recorded at (recorded again when it moves).
    bundle: Option<Option<(u64, wgpu::RenderBundle)>>,
    /// With `--threads N`: N threads encode bundles each frame, and the
    /// generation the bind groups were last prepared at.
    threads: Option<(usize, Option<u64>)>,
    /// The draws with their handles resolved once (`Manager::draw_list`).
    list: Option<DrawList>,
    /// The pipeline of each draw, in draw order.
    pipelines: Vec<usize>,
    /// With `--one-submit`: the flush is recorded into the frame's encoder
    /// (`Manager::flush_into`), one submit per frame.
    one_submit: bool,
    /// With `--indirect`: the draw list issued as multi-draw-indirect runs
    /// (`Binder::draw_indirect`), its arguments kept across frames.
    indirect: Option<IndirectDraws>,
    /// `freqbuf_members`: moved objects written one `object(id).set(..)`
    /// each, instead of through one `Manager::batch`.
    members: bool,
    /// The objects resolved once (`Manager::instance_list`): the scene
    /// frees none, so batches write them by position.
    object_list: Option<InstanceList>,
}

struct Params {
    time: Param,
    frame_index: Option<Param>,
    view_proj: Param,
    base_color: Param,
    world: Param,
}

impl Freqbuf {
    /// Registers every shader, creates every instance and sets the frame-0 values.
    pub fn new(gpu: &Headless, scene: &Scene) -> Self {
        Self::with_manager(gpu, scene, Manager::new(&gpu.device, SlotPlan::default()), true, "freqbuf")
    }

    fn with_manager(
        gpu: &Headless,
        scene: &Scene,
        mut m: Manager,
        objects: bool,
        name: &'static str,
    ) -> Self {
        let shaders = register_all(&mut m, scene);
        let param = |m: &Manager, n: &str| m.param(n).unwrap_or_else(|e| panic!("{e}"));
        let p = Params {
            time: param(&m, "time"),
            frame_index: m.param("frame_index").ok(),
            view_proj: param(&m, "view_proj"),
            base_color: param(&m, "base_color"),
            world: param(&m, "world"),
        };
        let (ambient, params, emissive, tint) =
            (m.param("ambient").ok(), m.param("params").ok(), m.param("emissive").ok(), m.param("tint").ok());
        if let Some(a) = ambient {
            m.frame().set(a, &scene.ambient).expect("vec4");
        }
        let views = scene
            .views
            .iter()
            .map(|vp| {
                let v = m.create_view();
                m.view(v).set(p.view_proj, vp).expect("mat4");
                v
            })
            .collect::<Vec<_>>();
        let materials = scene
            .materials
            .iter()
            .map(|mat| {
                let id = m.create_material();
                let mut i = m.material(id);
                i.set(p.base_color, &mat.base_color).expect("vec4");
                if let Some(pp) = params {
                    i.set(pp, &mat.params).expect("vec4");
                }
                if let Some(e) = emissive {
                    i.set(e, &mat.emissive).expect("vec4");
                }
                id
            })
            .collect::<Vec<_>>();
        let object_ids = if objects {
            scene
                .objects
                .iter()
                .map(|o| {
                    let id = m.create_object();
                    let mut i = m.object(id);
                    i.set(p.world, &o.world).expect("mat4");
                    if let Some(t) = tint {
                        i.set(t, &o.tint).expect("vec4");
                    }
                    id
                })
                .collect::<Vec<_>>()
        } else {
            Vec::new()
        };
        m.flush(&gpu.queue).expect("flush");
        m.take_stats();
        let draws: Vec<(usize, Draw)> = scene
            .draws
            .iter()
            .map(|&o| {
                let obj = &scene.objects[o];
                let s = scene.materials[obj.material].shader;
                let mut d = Draw::new(shaders[s]).view(views[obj.view]).material(materials[obj.material]);
                if objects {
                    d = d.object(object_ids[o]);
                }
                (s, d)
            })
            .collect();
        let object_list = objects.then(|| m.instance_list(object_ids.iter().copied()).expect("live objects"));
        Self {
            m,
            shaders,
            views,
            materials,
            objects: object_ids,
            p,
            name,
            bundle: None,
            threads: None,
            list: None,
            pipelines: draws.iter().map(|&(s, _)| s).collect(),
            draws,
            one_submit: false,
            indirect: None,
            members: false,
            object_list,
        }
    }

    /// Writes each moved object with its own `object(id).set(param, value)`
    /// (a handle, frequency, type and bounds check per call), as
    /// `freqbuf_members`, beside the batch the other freqbuf rows use.
    pub fn with_members(mut self) -> Self {
        self.members = true;
        self.name = "freqbuf_members";
        self
    }

    /// Writes the moved objects' world matrices: one batch (the member
    /// checked once), or one set per object with `with_members`.
    fn set_objects(&mut self, changes: &FrameChanges) {
        if self.members {
            for &(o, ref w) in &changes.objects {
                self.m.object(self.objects[o]).set(self.p.world, w).expect("mat4");
            }
            return;
        }
        let mut worlds = self.m.batch(self.p.world).expect("a mat4 member");
        let list = self.object_list.as_ref().expect("a scene with object data");
        for &(o, ref w) in &changes.objects {
            worlds.set_in(list, o, w).expect("a live object");
        }
    }

    /// Binds the groups in `groups` of every draw from the draw list (made
    /// once: the scene frees no instance), setting each draw's pipeline when it
    /// changes, then calls `draw(pass, i, first)`.
    fn encode_listed(
        &mut self,
        shared: &Shared,
        pass: &mut wgpu::RenderPass<'_>,
        groups: std::ops::Range<u32>,
        mut draw: impl FnMut(&mut wgpu::RenderPass<'_>, usize, u32),
    ) {
        let (m, draws) = (&self.m, &self.draws);
        let list = self
            .list
            .get_or_insert_with(|| m.draw_list(draws.iter().map(|(_, d)| d)).expect("flushed, live"));
        let pipelines = &self.pipelines;
        let mut current = usize::MAX;
        Binder::new()
            .bind_list_groups(&mut self.m, pass, list, groups, |pass, i, first| {
                if pipelines[i] != current {
                    current = pipelines[i];
                    pass.set_pipeline(&shared.pipelines[current]);
                }
                draw(pass, i, first);
            })
            .expect("bind");
    }

    /// Issues the draw list as multi-draw-indirect runs: one call per run of
    /// draws that share a pipeline and bind groups. The flush is recorded
    /// into the frame's encoder (`flush_into`), so the frame is one submit,
    /// as the hand-written `storage_indirect` records its scatter: the
    /// fastest documented form of a GPU-driven frame.
    pub fn with_indirect(mut self) -> Self {
        self.indirect = Some(IndirectDraws::new(vec![DrawArgs::vertices(4, 0); self.draws.len()]));
        self.one_submit = true;
        self.name = "freqbuf_indirect";
        self
    }

    /// Records each frame's flush into the frame's encoder: one submit.
    pub fn with_one_submit(mut self) -> Self {
        self.one_submit = true;
        self.name = "freqbuf_one_submit";
        self
    }

    /// Replays the draws from a render bundle, recorded again only when the
    /// manager's generation says a bind group it holds was replaced.
    pub fn with_bundles(mut self) -> Self {
        self.bundle = Some(None);
        self.name = "freqbuf_bundles";
        self
    }

    /// Encodes the draws on `n` threads each frame, each into its own bundle
    /// through a binder with shared access to the manager.
    pub fn with_threads(mut self, n: usize) -> Self {
        self.threads = Some((n.max(1), None));
        self.name = "freqbuf_threads";
        self
    }

    /// Records the draws on the threads into bundles; returns them and the bind calls.
    fn record_threaded(
        &mut self,
        gpu: &Headless,
        shared: &Shared,
        n: usize,
    ) -> (Vec<wgpu::RenderBundle>, u64) {
        let (state, draws) = (self.m.state(), &self.draws);
        let chunk = draws.len().div_ceil(n).max(1);
        std::thread::scope(|scope| {
            let workers = draws
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        let mut enc = bundle_encoder(gpu);
                        let mut binder = Binder::new();
                        let mut current = usize::MAX;
                        for (s, d) in part {
                            if *s != current {
                                enc.set_pipeline(&shared.pipelines[*s]);
                                current = *s;
                            }
                            let first = binder.bind_prepared(&state, &mut enc, d).expect("prepared");
                            enc.draw(0..4, first..first + 1);
                        }
                        (enc.finish(&Default::default()), binder.calls())
                    })
                })
                .collect::<Vec<_>>();
            let done = workers.into_iter().map(|w| w.join().expect("no panic")).collect::<Vec<_>>();
            let calls = done.iter().map(|d| d.1).sum();
            (done.into_iter().map(|d| d.0).collect(), calls)
        })
    }

    fn record(&mut self, gpu: &Headless, shared: &Shared) -> wgpu::RenderBundle {
        let mut enc = bundle_encoder(gpu);
        let mut binder = Binder::new();
        let mut current = usize::MAX;
        for (s, d) in &self.draws {
            if *s != current {
                enc.set_pipeline(&shared.pipelines[*s]);
                current = *s;
            }
            let first = binder.bind(&mut self.m, &mut enc, d).expect("bind");
            enc.draw(0..4, first..first + 1);
        }
        enc.finish(&Default::default())
    }

    fn set_shared(&mut self, changes: &FrameChanges) {
        self.m.frame().set(self.p.time, &changes.time).expect("f32");
        if let Some(fi) = self.p.frame_index {
            self.m.frame().set(fi, &changes.frame).expect("u32");
        }
        for &(v, ref vp) in &changes.views {
            self.m.view(self.views[v]).set(self.p.view_proj, vp).expect("mat4");
        }
        for &(mat, ref c) in &changes.materials {
            self.m.material(self.materials[mat]).set(self.p.base_color, c).expect("vec4");
        }
    }
}

impl Method for Freqbuf {
    fn name(&self) -> &'static str {
        self.name
    }

    fn frame(
        &mut self,
        gpu: &Headless,
        shared: &Shared,
        _scene: &Scene,
        changes: &FrameChanges,
        target: &Target,
    ) -> Cost {
        self.set_shared(changes);
        self.set_objects(changes);
        if !self.one_submit {
            self.m.flush(&gpu.queue).expect("flush");
        }
        if let Some((n, prepared)) = self.threads {
            // Bind groups stay built until the generation moves.
            let generation = self.m.generation();
            if prepared != Some(generation) {
                self.m.prepare(self.draws.iter().map(|(_, d)| d)).expect("prepare");
                self.threads = Some((n, Some(generation)));
            }
            let (bundles, binds) = self.record_threaded(gpu, shared, n);
            let mut enc = gpu.device.create_command_encoder(&Default::default());
            target.pass(&mut enc).execute_bundles(&bundles);
            gpu.queue.submit([enc.finish()]);
            let s = self.m.take_stats().total();
            return Cost {
                bytes: s.bytes_uploaded,
                upload_calls: s.upload_calls,
                bind_calls: binds,
                dense: s.dense_spans > 0,
            };
        }
        if let Some(cached) = &self.bundle {
            let generation = self.m.generation();
            if cached.as_ref().is_none_or(|(g, _)| *g != generation) {
                let bundle = self.record(gpu, shared);
                self.bundle = Some(Some((generation, bundle)));
            }
            let mut enc = gpu.device.create_command_encoder(&Default::default());
            {
                let mut pass = target.pass(&mut enc);
                let (_, bundle) = self.bundle.as_ref().and_then(Option::as_ref).expect("recorded above");
                pass.execute_bundles([bundle]);
            }
            gpu.queue.submit([enc.finish()]);
            let s = self.m.take_stats().total();
            return Cost {
                bytes: s.bytes_uploaded,
                upload_calls: s.upload_calls,
                bind_calls: s.set_bind_group_calls,
                dense: s.dense_spans > 0,
            };
        }
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        if self.one_submit {
            self.m.flush_into(&gpu.queue, &mut enc).expect("flush");
        }
        if let Some(mut indirect) = self.indirect.take() {
            let mut pass = target.pass(&mut enc);
            let (m, draws) = (&self.m, &self.draws);
            let list = self
                .list
                .get_or_insert_with(|| m.draw_list(draws.iter().map(|(_, d)| d)).expect("flushed, live"));
            let pipelines = &self.pipelines;
            Binder::new()
                .draw_indirect(&mut self.m, &gpu.queue, &mut pass, list, &mut indirect, |pass, i| {
                    pass.set_pipeline(&shared.pipelines[pipelines[i]])
                })
                .expect("draw");
            self.indirect = Some(indirect);
        } else {
            let mut pass = target.pass(&mut enc);
            self.encode_listed(shared, &mut pass, 0..4, |pass, _, first| pass.draw(0..4, first..first + 1));
        }
        gpu.queue.submit([enc.finish()]);
        let s = self.m.take_stats().total();
        Cost {
            bytes: s.bytes_uploaded,
            upload_calls: s.upload_calls,
            bind_calls: s.set_bind_group_calls,
            dense: s.dense_spans > 0,
        }
    }
}

// ---------------------------------------------------------------------------

/// Where a value lives in one shader's own copy of its blocks.
#[derive(Clone, Copy, Debug)]
struct Handle {
    block: usize,
    offset: usize,
}

/// One shader's private constant data (D3DX Effect / bgfx style).
struct ShaderCache {
    blocks: [Vec<u8>; 4],
    dirty: bool,
    time: Option<Handle>,
    frame_index: Option<Handle>,
    ambient: Option<Handle>,
    view_proj: Option<Handle>,
    base_color: Option<Handle>,
    params: Option<Handle>,
    emissive: Option<Handle>,
    world: Option<Handle>,
    tint: Option<Handle>,
}

impl ShaderCache {
    /// Sets a value through a handle resolved once, comparing first so that an
    /// unchanged value does not dirty the shader.
    #[inline]
    fn set(&mut self, h: Option<Handle>, bytes: &[u8]) {
        if let Some(h) = h {
            let dst = &mut self.blocks[h.block][h.offset..h.offset + bytes.len()];
            if dst != bytes {
                dst.copy_from_slice(bytes);
                self.dirty = true;
            }
        }
    }
}

/// Per-shader constant caches committed whole into a per-frame scratch ring.
pub struct PerShaderCache {
    caches: Vec<ShaderCache>,
    ring: wgpu::Buffer,
    ring_cpu: Vec<u8>,
    groups: [wgpu::BindGroup; 4],
}

impl PerShaderCache {
    pub fn new(gpu: &Headless, shared: &Shared, scene: &Scene) -> Self {
        let caches = scene
            .shaders
            .iter()
            .map(|s| {
                let r = freqbuf::reflect::ShaderReflection::new(
                    &s.name,
                    freqbuf::reflect::ShaderSource::Wgsl(&s.wgsl),
                )
                .expect("valid");
                let mut blocks: [Vec<u8>; 4] = Default::default();
                let find = |name: &str| -> Option<Handle> {
                    r.resources().iter().find_map(|res| {
                        let b = res.block.as_ref()?;
                        let m = b.members.iter().find(|m| m.name == name)?;
                        Some(Handle { block: res.binding.group as usize, offset: m.offset as usize })
                    })
                };
                let c = ShaderCache {
                    blocks: Default::default(),
                    dirty: true,
                    time: find("time"),
                    frame_index: find("frame_index"),
                    ambient: find("ambient"),
                    view_proj: find("view_proj"),
                    base_color: find("base_color"),
                    params: find("params"),
                    emissive: find("emissive"),
                    world: find("world"),
                    tint: find("tint"),
                };
                for res in r.resources() {
                    if let Some(b) = &res.block {
                        blocks[res.binding.group as usize] = vec![0; b.size as usize];
                    }
                }
                let mut c = c;
                c.blocks = blocks;
                c.set(c.ambient, bytemuck::bytes_of(&scene.ambient));
                c
            })
            .collect::<Vec<_>>();
        // Worst case: every draw commits four blocks.
        let capacity = scene.draws.len() as u64 * 4 * ALIGN + 4 * ALIGN;
        let ring = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("scratch ring"),
            size: capacity,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let max_block =
            |g: usize| caches.iter().map(|c| c.blocks[g].len()).max().unwrap_or(16).max(16) as u64;
        let groups = [0, 1, 2, 3].map(|g| shared.group(gpu, &ring, max_block(g).next_multiple_of(16)));
        Self { caches, ring, ring_cpu: Vec::with_capacity(capacity as usize), groups }
    }
}

impl Method for PerShaderCache {
    fn name(&self) -> &'static str {
        "per_shader_cache"
    }

    fn frame(
        &mut self,
        gpu: &Headless,
        shared: &Shared,
        scene: &Scene,
        changes: &FrameChanges,
        target: &Target,
    ) -> Cost {
        // Shared values are set in every shader that uses them.
        for c in &mut self.caches {
            c.set(c.time, bytemuck::bytes_of(&changes.time));
            c.set(c.frame_index, bytemuck::bytes_of(&changes.frame));
        }
        self.ring_cpu.clear();
        let mut cost = Cost::default();
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = target.pass(&mut enc);
            let mut current = usize::MAX;
            let mut bound = [u32::MAX; 4];
            let max_block = self.groups.len();
            let _ = max_block;
            for &o in &scene.draws {
                let obj = &scene.objects[o];
                let mat = &scene.materials[obj.material];
                let s = mat.shader;
                let c = &mut self.caches[s];
                // The application sets this draw's values into the shader's cache.
                c.set(c.view_proj, bytes_of_mat(&scene.views[obj.view]));
                c.set(c.base_color, bytemuck::bytes_of(&mat.base_color));
                c.set(c.params, bytemuck::bytes_of(&mat.params));
                c.set(c.emissive, bytemuck::bytes_of(&mat.emissive));
                c.set(c.world, bytes_of_mat(&obj.world));
                c.set(c.tint, bytemuck::bytes_of(&obj.tint));
                if s != current {
                    pass.set_pipeline(&shared.pipelines[s]);
                }
                if s != current || c.dirty {
                    // Commit the shader's whole constant data into the ring.
                    let mut offsets = [0u32; 4];
                    for (g, block) in c.blocks.iter().enumerate() {
                        let at = (self.ring_cpu.len() as u64).next_multiple_of(ALIGN) as usize;
                        self.ring_cpu.resize(at, 0);
                        self.ring_cpu.extend_from_slice(block);
                        offsets[g] = at as u32;
                    }
                    c.dirty = false;
                    for g in 0..4 {
                        if bound[g] != offsets[g] {
                            pass.set_bind_group(g as u32, &self.groups[g], &[offsets[g]]);
                            bound[g] = offsets[g];
                            cost.bind_calls += 1;
                        }
                    }
                }
                current = s;
                pass.draw(0..4, 0..1);
            }
        }
        // Pad so the last binding's window stays inside the buffer.
        let end = (self.ring_cpu.len() as u64).next_multiple_of(ALIGN) + ALIGN;
        self.ring_cpu.resize(end.min(self.ring.size()) as usize, 0);
        gpu.queue.write_buffer(&self.ring, 0, &self.ring_cpu);
        cost.bytes = self.ring_cpu.len() as u64;
        cost.upload_calls = 1;
        gpu.queue.submit([enc.finish()]);
        cost
    }
}

// ---------------------------------------------------------------------------

/// The bytes between objects: `ALIGN` for uniform objects, the element for storage.
fn object_stride(scene: &Scene) -> u64 {
    if scene.params.object_storage { OBJECT_STRIDE } else { ALIGN }
}

/// One object as the object slot lays it out.
#[inline]
fn pack_object(o: &super::scene::ObjectDef, out: &mut [u8]) {
    out[off::WORLD..off::WORLD + 64].copy_from_slice(bytes_of_mat(&o.world));
    out[off::TINT..off::TINT + 16].copy_from_slice(bytemuck::bytes_of(&o.tint));
}

/// Object data packed as the object slot lays it out.
fn pack_objects(scene: &Scene, out: &mut Vec<u8>) {
    let stride = object_stride(scene) as usize;
    out.clear();
    out.resize(scene.objects.len() * stride, 0);
    for (o, chunk) in scene.objects.iter().zip(out.chunks_exact_mut(stride)) {
        pack_object(o, chunk);
    }
}

/// The usage of an object buffer: uniform with dynamic offsets, or a storage array.
fn object_usage(scene: &Scene) -> wgpu::BufferUsages {
    let bind =
        if scene.params.object_storage { wgpu::BufferUsages::STORAGE } else { wgpu::BufferUsages::UNIFORM };
    bind | wgpu::BufferUsages::COPY_DST
}

/// The object group: a storage array bound whole, or a uniform window of one object.
fn object_group(gpu: &Headless, shared: &Shared, scene: &Scene, buffer: &wgpu::Buffer) -> wgpu::BindGroup {
    if scene.params.object_storage {
        shared.storage_group(gpu, buffer)
    } else {
        shared.group(gpu, buffer, 80)
    }
}

/// Encodes the draws with groups 0 to 2 through freqbuf's binder and the
/// method's own object group: a storage array bound once (the object's index as
/// the instance), or a uniform buffer bound per draw. Returns its binds.
fn encode_own_objects(
    inner: &mut Freqbuf,
    shared: &Shared,
    scene: &Scene,
    pass: &mut wgpu::RenderPass<'_>,
    group: &wgpu::BindGroup,
) -> u64 {
    let storage = scene.params.object_storage;
    let mut binds = 0;
    if storage {
        pass.set_bind_group(3, group, &[]);
        binds += 1;
    }
    inner.encode_listed(shared, pass, 0..3, |pass, i, _| {
        let o = scene.draws[i] as u32;
        if storage {
            pass.draw(0..4, o..o + 1);
        } else {
            pass.set_bind_group(3, group, &[o * ALIGN as u32]);
            binds += 1;
            pass.draw(0..4, 0..1);
        }
    });
    binds
}

/// freqbuf for frame, view and material data; all object data re-uploaded every frame.
pub struct FullRewrite {
    inner: Freqbuf,
    objects: wgpu::Buffer,
    objects_cpu: Vec<u8>,
    group: wgpu::BindGroup,
}

impl FullRewrite {
    pub fn new(gpu: &Headless, shared: &Shared, scene: &Scene) -> Self {
        let inner = Freqbuf::with_manager(
            gpu,
            scene,
            Manager::new(&gpu.device, SlotPlan::default()),
            false,
            "full_rewrite",
        );
        let objects = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("objects"),
            size: scene.objects.len() as u64 * object_stride(scene),
            usage: object_usage(scene),
            mapped_at_creation: false,
        });
        let group = object_group(gpu, shared, scene, &objects);
        Self { inner, objects, objects_cpu: Vec::new(), group }
    }
}

impl Method for FullRewrite {
    fn name(&self) -> &'static str {
        "full_rewrite"
    }

    fn frame(
        &mut self,
        gpu: &Headless,
        shared: &Shared,
        scene: &Scene,
        changes: &FrameChanges,
        target: &Target,
    ) -> Cost {
        self.inner.set_shared(changes);
        // The shared values' flush goes into the frame's encoder: one submit.
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        self.inner.m.flush_into(&gpu.queue, &mut enc).expect("flush");
        pack_objects(scene, &mut self.objects_cpu);
        gpu.queue.write_buffer(&self.objects, 0, &self.objects_cpu);
        let binds =
            encode_own_objects(&mut self.inner, shared, scene, &mut target.pass(&mut enc), &self.group);
        gpu.queue.submit([enc.finish()]);
        let s = self.inner.m.take_stats().total();
        Cost {
            bytes: s.bytes_uploaded + self.objects_cpu.len() as u64,
            upload_calls: s.upload_calls + 1,
            bind_calls: s.set_bind_group_calls + binds,
            dense: false,
        }
    }
}

// ---------------------------------------------------------------------------

enum Cmd {
    Pipeline(usize),
    Bind(u32, u32),
    /// A draw with its first instance (the object, for storage arrays).
    Draw(u32),
}

/// Pre-built bind groups, precomputed offsets, no uploads: encoding alone.
pub struct EncodeFloor {
    groups: [wgpu::BindGroup; 4],
    cmds: Vec<Cmd>,
    _buffers: Vec<wgpu::Buffer>,
}

impl EncodeFloor {
    /// Uploads `final_scene`'s values once, so the image matches the other
    /// methods' last frame, and records the minimal command list.
    pub fn new(gpu: &Headless, shared: &Shared, final_scene: &Scene) -> Self {
        let s = final_scene;
        let upload = |data: &[u8]| {
            let b = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: (data.len() as u64).max(ALIGN),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            gpu.queue.write_buffer(&b, 0, data);
            b
        };
        let mut frame = vec![0u8; ALIGN as usize];
        frame[off::TIME..off::TIME + 4].copy_from_slice(bytemuck::bytes_of(&s.time));
        frame[off::FRAME_INDEX..off::FRAME_INDEX + 4].copy_from_slice(bytemuck::bytes_of(&s.frame_index));
        frame[off::AMBIENT..off::AMBIENT + 16].copy_from_slice(bytemuck::bytes_of(&s.ambient));
        let mut views = vec![0u8; s.views.len() * ALIGN as usize];
        for (i, v) in s.views.iter().enumerate() {
            views[i * ALIGN as usize..i * ALIGN as usize + 64].copy_from_slice(bytes_of_mat(v));
        }
        let mut mats = vec![0u8; s.materials.len() * ALIGN as usize];
        for (i, m) in s.materials.iter().enumerate() {
            let at = i * ALIGN as usize;
            mats[at + off::BASE_COLOR..at + off::BASE_COLOR + 16]
                .copy_from_slice(bytemuck::bytes_of(&m.base_color));
            mats[at + off::PARAMS..at + off::PARAMS + 16].copy_from_slice(bytemuck::bytes_of(&m.params));
            mats[at + off::EMISSIVE..at + off::EMISSIVE + 16]
                .copy_from_slice(bytemuck::bytes_of(&m.emissive));
        }
        let mut objs = Vec::new();
        pack_objects(s, &mut objs);
        let storage = s.params.object_storage;
        let objects = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: (objs.len() as u64).max(ALIGN),
            usage: object_usage(s),
            mapped_at_creation: false,
        });
        gpu.queue.write_buffer(&objects, 0, &objs);
        let buffers = vec![upload(&frame), upload(&views), upload(&mats), objects];
        let sizes = [32, 64, 48];
        let groups = [0, 1, 2].map(|g| shared.group(gpu, &buffers[g], sizes[g]));
        let object_group = object_group(gpu, shared, s, &buffers[3]);
        let [g0, g1, g2] = groups;
        let groups = [g0, g1, g2, object_group];
        let mut cmds = Vec::new();
        if storage {
            cmds.push(Cmd::Bind(3, u32::MAX));
        }
        let mut current = usize::MAX;
        let mut bound = [u32::MAX; 4];
        for &o in &s.draws {
            let obj = &s.objects[o];
            let sh = s.materials[obj.material].shader;
            if sh != current {
                cmds.push(Cmd::Pipeline(sh));
                current = sh;
            }
            let offsets =
                [0, obj.view as u64 * ALIGN, obj.material as u64 * ALIGN, o as u64 * ALIGN].map(|x| x as u32);
            let uniform_groups = if storage { 3 } else { 4 };
            for g in 0..uniform_groups {
                if bound[g] != offsets[g] {
                    cmds.push(Cmd::Bind(g as u32, offsets[g]));
                    bound[g] = offsets[g];
                }
            }
            cmds.push(Cmd::Draw(if storage { o as u32 } else { 0 }));
        }
        Self { groups, cmds, _buffers: buffers }
    }
}

impl Method for EncodeFloor {
    fn name(&self) -> &'static str {
        "encode_floor"
    }

    fn frame(
        &mut self,
        gpu: &Headless,
        shared: &Shared,
        _scene: &Scene,
        _changes: &FrameChanges,
        target: &Target,
    ) -> Cost {
        let mut binds = 0;
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = target.pass(&mut enc);
            for c in &self.cmds {
                match *c {
                    Cmd::Pipeline(p) => pass.set_pipeline(&shared.pipelines[p]),
                    // u32::MAX: a storage array, bound without an offset.
                    Cmd::Bind(g, u32::MAX) => {
                        pass.set_bind_group(g, &self.groups[g as usize], &[]);
                        binds += 1;
                    }
                    Cmd::Bind(g, off) => {
                        pass.set_bind_group(g, &self.groups[g as usize], &[off]);
                        binds += 1;
                    }
                    Cmd::Draw(first) => pass.draw(0..4, first..first + 1),
                }
            }
        }
        gpu.queue.submit([enc.finish()]);
        Cost { bytes: 0, upload_calls: 0, bind_calls: binds, dense: false }
    }
}

// ---------------------------------------------------------------------------

/// Bevy's and Ogre-Next's design, at its best: objects in one storage array
/// at their own stride, read by instance index, bound once per pass.
pub struct StorageInstancing {
    inner: Freqbuf,
    /// With `storage_indirect`: Bevy's multi-draw-indirect form of the design.
    indirect: Option<HandIndirect>,
    objects: wgpu::Buffer,
    group: wgpu::BindGroup,
    scatter: Scatter,
    /// Changed elements, packed, and their indices (the scatter's input).
    packed: Vec<u8>,
    indices: Vec<u32>,
    count: usize,
}

/// The sparse-upload compute pass: element `e` of `src` goes to element `idx[e]` of `dst`.
struct Scatter {
    pipeline: wgpu::ComputePipeline,
    src: wgpu::Buffer,
    idx: wgpu::Buffer,
}

const SCATTER: &str = "
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read> idx: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
const WORDS: u32 = 20u;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let e = g.x / WORDS;
    if e >= arrayLength(&idx) { return; }
    dst[idx[e] * WORDS + g.x % WORDS] = src[g.x];
}";

/// At most this many coalesced runs are written one `write_buffer` each
/// (about 3 µs per call); more go through the scatter pass.
const RUNS_WRITTEN: usize = 32;

impl StorageInstancing {
    pub fn new(gpu: &Headless, shared: &Shared, scene: &Scene) -> Self {
        assert!(scene.params.object_storage, "storage_instancing needs a scene with object storage");
        let inner = Freqbuf::with_manager(
            gpu,
            scene,
            Manager::new(&gpu.device, SlotPlan::default()),
            false,
            "storage_instancing",
        );
        let n = scene.objects.len() as u64;
        let buffer = |label, size, usage| {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: usage | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let storage = wgpu::BufferUsages::STORAGE;
        let objects = buffer("objects", n * OBJECT_STRIDE, storage);
        let mut all = Vec::new();
        pack_objects(scene, &mut all);
        gpu.queue.write_buffer(&objects, 0, &all);
        let group = shared.storage_group(gpu, &objects);
        let module = gpu.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("scatter"),
            source: wgpu::ShaderSource::Wgsl(SCATTER.into()),
        });
        let pipeline = gpu.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("scatter"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let scatter = Scatter {
            pipeline,
            src: buffer("scatter src", n * OBJECT_STRIDE, storage),
            idx: buffer("scatter idx", n * 4, storage),
        };
        Self {
            inner,
            indirect: None,
            objects,
            group,
            scatter,
            packed: Vec::new(),
            indices: Vec::new(),
            count: n as usize,
        }
    }

    /// The same design drawn as Bevy 0.16 draws it: the draws of one
    /// pipeline, view and material are one `multi_draw_indirect` call, with
    /// arguments (first instance: the object's element) written once, since
    /// the draw set never changes. Binding per run goes through a draw list
    /// of each run's first draw, replayed while the bind groups hold.
    pub fn with_indirect(mut self, gpu: &Headless, scene: &Scene) -> Self {
        let key = |o: usize| {
            let obj = &scene.objects[o];
            (scene.materials[obj.material].shader, obj.view, obj.material)
        };
        let mut runs: Vec<(usize, u32)> = Vec::new();
        let mut args: Vec<u32> = Vec::new();
        for (i, &o) in scene.draws.iter().enumerate() {
            args.extend([4, 1, 0, o as u32]);
            match runs.last_mut() {
                Some((start, n)) if key(scene.draws[*start]) == key(o) => *n += 1,
                _ => runs.push((i, 1)),
            }
        }
        let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("hand indirect args"),
            size: args.len() as u64 * 4,
            usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        gpu.queue.write_buffer(&buffer, 0, bytemuck::cast_slice(&args));
        let firsts = runs.iter().map(|&(i, _)| &self.inner.draws[i].1).collect::<Vec<_>>();
        let list = self.inner.m.draw_list(firsts).expect("flushed, live");
        self.indirect = Some(HandIndirect { buffer, runs, list });
        self
    }

    /// Uploads the changed objects (sorted, distinct): one write when most
    /// changed, one write per run when runs are few, else a packed upload and
    /// the scatter pass. Returns (bytes, write calls).
    fn upload(
        &mut self,
        gpu: &Headless,
        scene: &Scene,
        changes: &FrameChanges,
        enc: &mut wgpu::CommandEncoder,
    ) -> (u64, u64) {
        let changed = &changes.objects;
        if changed.is_empty() {
            return (0, 0);
        }
        let stride = OBJECT_STRIDE as usize;
        if changed.len() * 2 >= self.count {
            pack_objects(scene, &mut self.packed);
            gpu.queue.write_buffer(&self.objects, 0, &self.packed);
            return (self.packed.len() as u64, 1);
        }
        let runs = 1 + changed.windows(2).filter(|w| w[1].0 != w[0].0 + 1).count();
        self.packed.clear();
        self.packed.resize(changed.len() * stride, 0);
        for (&(o, _), chunk) in changed.iter().zip(self.packed.chunks_exact_mut(stride)) {
            pack_object(&scene.objects[o], chunk);
        }
        if runs <= RUNS_WRITTEN {
            let (mut at, mut calls) = (0, 0);
            for run in changed.chunk_by(|a, b| b.0 == a.0 + 1) {
                let len = run.len() * stride;
                gpu.queue.write_buffer(&self.objects, (run[0].0 * stride) as u64, &self.packed[at..at + len]);
                at += len;
                calls += 1;
            }
            return (self.packed.len() as u64, calls);
        }
        self.indices.clear();
        self.indices.extend(changed.iter().map(|&(o, _)| o as u32));
        let s = &self.scatter;
        gpu.queue.write_buffer(&s.src, 0, &self.packed);
        gpu.queue.write_buffer(&s.idx, 0, bytemuck::cast_slice(&self.indices));
        fn bytes(b: &wgpu::Buffer, n: usize) -> wgpu::BufferBinding<'_> {
            wgpu::BufferBinding { buffer: b, offset: 0, size: wgpu::BufferSize::new(n as u64) }
        }
        let group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("scatter"),
            layout: &s.pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(bytes(&s.src, self.packed.len())),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Buffer(bytes(&s.idx, self.indices.len() * 4)),
                },
                wgpu::BindGroupEntry { binding: 2, resource: self.objects.as_entire_binding() },
            ],
        });
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&s.pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups((self.packed.len() as u32 / 4).div_ceil(64), 1, 1);
        ((self.packed.len() + self.indices.len() * 4) as u64, 2)
    }
}

/// The hand-written multi-draw-indirect state: the argument buffer, the
/// runs (first draw, draws) and a draw list of each run's first draw.
struct HandIndirect {
    buffer: wgpu::Buffer,
    runs: Vec<(usize, u32)>,
    list: DrawList,
}

impl Method for StorageInstancing {
    fn name(&self) -> &'static str {
        if self.indirect.is_some() { "storage_indirect" } else { "storage_instancing" }
    }

    fn frame(
        &mut self,
        gpu: &Headless,
        shared: &Shared,
        scene: &Scene,
        changes: &FrameChanges,
        target: &Target,
    ) -> Cost {
        self.inner.set_shared(changes);
        // The shared values' flush and the object scatter go into the
        // frame's encoder: one submit, the best form of the design.
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        self.inner.m.flush_into(&gpu.queue, &mut enc).expect("flush");
        let (bytes, calls) = self.upload(gpu, scene, changes, &mut enc);
        let binds = match &mut self.indirect {
            None => {
                encode_own_objects(&mut self.inner, shared, scene, &mut target.pass(&mut enc), &self.group)
            }
            Some(hand) => {
                let mut pass = target.pass(&mut enc);
                pass.set_bind_group(3, &self.group, &[]);
                let (pipelines, runs, buffer) = (&self.inner.pipelines, &hand.runs, &hand.buffer);
                let mut current = usize::MAX;
                Binder::new()
                    .bind_list_groups(&mut self.inner.m, &mut pass, &mut hand.list, 0..3, |pass, k, _| {
                        let (start, n) = runs[k];
                        if pipelines[start] != current {
                            current = pipelines[start];
                            pass.set_pipeline(&shared.pipelines[current]);
                        }
                        pass.multi_draw_indirect(buffer, start as u64 * 16, n);
                    })
                    .expect("bind");
                1
            }
        };
        gpu.queue.submit([enc.finish()]);
        let s = self.inner.m.take_stats().total();
        Cost {
            bytes: s.bytes_uploaded + bytes,
            upload_calls: s.upload_calls + calls,
            bind_calls: s.set_bind_group_calls + binds,
            dense: false,
        }
    }
}
