//! `StorageInstancing` and its multi-draw-indirect forms `storage_indirect`
//! and `storage_bindless`: Bevy's and Ogre-Next's design written by hand,
//! at its best.

use freqbuf::Headless;
use freqbuf::{Binder, DrawList, Manager, SlotPlan};

use crate::freqbuf::*;
use crate::method::*;
use crate::objects::*;
use crate::scene::{FrameChanges, Scene};

/// Bevy's and Ogre-Next's design, at its best: objects in one storage array
/// at their own stride, read by instance index, bound once per pass.
pub struct StorageInstancing {
    inner: Freqbuf,
    /// With `storage_indirect`: Bevy's multi-draw-indirect form of the design.
    indirect: Option<HandIndirect>,
    objects: wgpu::Buffer,
    group: wgpu::BindGroup,
    scatter: Scatter,
    /// Mapped staging memory, kept and reused: the upload packs straight
    /// into it, and its copies go into the frame's encoder (no fresh
    /// allocation, and no page faults, per frame).
    belt: wgpu::util::StagingBelt,
    count: usize,
    /// Bytes per object element: 80, or 96 with the bindless shaders.
    stride: usize,
    /// `storage_bindless`: the material array and its group, bound once.
    materials: Option<(wgpu::Buffer, wgpu::BindGroup)>,
}

/// The sparse-upload compute pass: element `e` of `src` goes to element `idx[e]` of `dst`.
struct Scatter {
    pipeline: wgpu::ComputePipeline,
    src: wgpu::Buffer,
    /// The count of elements, then each one's destination.
    idx: wgpu::Buffer,
    /// Made once over the whole buffers: the count bounds the pass, as
    /// freqbuf's tables do (a group made each frame cost this baseline 7%
    /// of its frame at 100,000 objects).
    group: wgpu::BindGroup,
}

/// `WORDS` (the words of one element) is prepended.
const SCATTER: &str = "
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read> idx: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let e = g.x / WORDS;
    if e >= idx[0] { return; }
    dst[idx[e + 1u] * WORDS + g.x % WORDS] = src[g.x];
}";

/// At most this many coalesced runs are copied one by one; more go through
/// the scatter pass.
const RUNS_WRITTEN: usize = 32;

/// Writes `items` (elements of `N` bytes) at `offset` of `target` through
/// the belt, copied in `enc`; returns the bytes.
fn put<const N: usize>(
    belt: &mut wgpu::util::StagingBelt,
    enc: &mut wgpu::CommandEncoder,
    target: &wgpu::Buffer,
    offset: u64,
    items: impl ExactSizeIterator<Item = [u8; N]>,
) -> usize {
    let len = items.len() * N;
    let size = wgpu::BufferSize::new(len as u64).expect("objects changed");
    belt.write_buffer(enc, target, offset, size).slice(..).into_chunks::<N>().0.write_iter(items);
    len
}

/// Writes `bytes` at `offset` of `target` through the belt, copied in
/// `enc`; returns the bytes.
fn put_bytes(
    belt: &mut wgpu::util::StagingBelt,
    enc: &mut wgpu::CommandEncoder,
    target: &wgpu::Buffer,
    offset: u64,
    bytes: &[u8],
) -> usize {
    let size = wgpu::BufferSize::new(bytes.len() as u64).expect("objects changed");
    belt.write_buffer(enc, target, offset, size).slice(..).copy_from_slice(bytes);
    bytes.len()
}

/// Material `k`'s element of the bindless shaders' material array; with
/// textures, the index of its texture in the bound array in the last lane of `params`.
fn packed_material(scene: &Scene, k: usize) -> [u8; MATERIAL_STRIDE as usize] {
    let m = &scene.materials[k];
    let mut out = [0; MATERIAL_STRIDE as usize];
    out[off::BASE_COLOR..off::BASE_COLOR + 16].copy_from_slice(bytemuck::bytes_of(&m.base_color));
    out[off::PARAMS..off::PARAMS + 16].copy_from_slice(bytemuck::bytes_of(&m.params));
    out[off::EMISSIVE..off::EMISSIVE + 16].copy_from_slice(bytemuck::bytes_of(&m.emissive));
    if scene.params.textures {
        let t = crate::textures::of(k) as u32;
        out[crate::textures::OFFSET..][..4].copy_from_slice(&t.to_le_bytes());
    }
    out
}

impl StorageInstancing {
    pub fn new(gpu: &Headless, shared: &Shared, scene: &Scene) -> Self {
        Self::with_form(gpu, shared, scene, false)
    }

    /// Bevy 0.20's bindless design by hand: the bindless shaders, materials
    /// in one storage array bound once, each object's element holding its
    /// material's; drawn as `storage_indirect` is, with runs that only a
    /// pipeline or view ends.
    pub fn bindless(gpu: &Headless, shared: &Shared, scene: &Scene) -> Self {
        assert!(scene.params.bindless, "storage_bindless needs a scene with bindless shaders");
        Self::with_form(gpu, shared, scene, true).with_indirect(gpu, scene)
    }

    fn with_form(gpu: &Headless, shared: &Shared, scene: &Scene, bindless: bool) -> Self {
        assert!(scene.params.object_storage, "storage_instancing needs a scene with object storage");
        let m = Manager::new(&gpu.device, SlotPlan::default());
        let inner = Freqbuf::with_form(gpu, scene, m, false, "storage_instancing", bindless);
        let stride = if bindless { BINDLESS_OBJECT_STRIDE } else { OBJECT_STRIDE };
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
        let objects = buffer("objects", n * stride, storage);
        debug_assert_eq!(scene.rows(bindless).len() as u64, n * stride);
        gpu.queue.write_buffer(&objects, 0, scene.rows(bindless));
        let group = shared.storage_group(gpu, &objects);
        let materials = bindless.then(|| {
            let data =
                (0..scene.materials.len()).flat_map(|k| packed_material(scene, k)).collect::<Vec<u8>>();
            let materials = buffer("materials", data.len() as u64, storage);
            gpu.queue.write_buffer(&materials, 0, &data);
            // The layout freqbuf made for the pipelines: its visibility is the stages that read it.
            let shader = inner.draws[0].1.shader();
            let layouts = inner.m.bind_group_layouts(shader).expect("registered");
            let layout = layouts.iter().find(|(g, _)| *g == 2).expect("a material group").1;
            // With textures: the scene's, repeated to the length freqbuf's layout declares.
            let textures = scene.params.textures.then(|| {
                let len = inner.m.registry()[shader]
                    .resource(freqbuf::BindingPoint::new(2, 1))
                    .expect("textures")
                    .count;
                let views = crate::textures::views(gpu);
                (0..len as usize).map(|i| views[i % views.len()].clone()).collect::<Vec<_>>()
            });
            let views = textures.iter().flat_map(|t| t.iter()).collect::<Vec<_>>();
            let mut entries =
                vec![wgpu::BindGroupEntry { binding: 0, resource: materials.as_entire_binding() }];
            if textures.is_some() {
                entries.push(wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureViewArray(&views),
                });
            }
            let group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("hand materials"),
                layout,
                entries: &entries,
            });
            (materials, group)
        });
        let source = format!("const WORDS: u32 = {}u;{SCATTER}", stride / 4);
        let module = gpu.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("scatter"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let pipeline = gpu.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("scatter"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let (src, idx) =
            (buffer("scatter src", n * stride, storage), buffer("scatter idx", (n + 1) * 4, storage));
        let scatter_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("scatter"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: src.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: idx.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: objects.as_entire_binding() },
            ],
        });
        let scatter = Scatter { pipeline, src, idx, group: scatter_group };
        Self {
            inner,
            indirect: None,
            objects,
            group,
            scatter,
            belt: wgpu::util::StagingBelt::new(gpu.device.clone(), 1 << 20),
            count: n as usize,
            stride: stride as usize,
            materials,
        }
    }

    /// The same design drawn as Bevy 0.16 draws it: the draws of one
    /// pipeline, view and material are one `multi_draw_indirect` call, with
    /// arguments (first instance: the object's element) written once, since
    /// the draw set never changes. Binding per run goes through a draw list
    /// of each run's first draw, replayed while the bind groups hold.
    pub fn with_indirect(mut self, gpu: &Headless, scene: &Scene) -> Self {
        // With materials in one array, a material change ends no run.
        let bindless = self.materials.is_some();
        let key = |o: usize| {
            let obj = &scene.objects[o];
            (scene.materials[obj.material].shader, obj.view, if bindless { 0 } else { obj.material })
        };
        // Runs of (first draw, first command, commands); a run's draws of
        // consecutive elements are one instanced command, as Bevy batches.
        let mut runs: Vec<(usize, usize, u32)> = Vec::new();
        let mut args: Vec<u32> = Vec::new();
        for (i, &o) in scene.draws.iter().enumerate() {
            let same_run = runs.last().is_some_and(|&(start, ..)| key(scene.draws[start]) == key(o));
            let at = args.len();
            if same_run && args[at - 1] + args[at - 3] == o as u32 {
                args[at - 3] += 1;
                continue;
            }
            args.extend([4, 1, 0, o as u32]);
            match runs.last_mut() {
                Some((_, _, n)) if same_run => *n += 1,
                _ => runs.push((i, at / 4, 1)),
            }
        }
        let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("hand indirect args"),
            size: args.len() as u64 * 4,
            usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        gpu.queue.write_buffer(&buffer, 0, bytemuck::cast_slice(&args));
        let firsts = runs.iter().map(|&(i, ..)| &self.inner.draws[i].1).collect::<Vec<_>>();
        let list = self.inner.m.draw_list(firsts).expect("flushed, live");
        self.indirect = Some(HandIndirect { buffer, runs, list });
        self
    }

    /// Uploads the changed objects (sorted, distinct), packed straight into
    /// the staging belt: one copy of everything when most changed, one copy
    /// per run when runs are few, else the packed elements and their indices
    /// for the scatter pass. Returns (bytes, copies).
    fn upload(
        &mut self,
        scene: &Scene,
        changes: &FrameChanges,
        enc: &mut wgpu::CommandEncoder,
    ) -> (u64, u64) {
        let (bytes, calls) = self.upload_materials(scene, changes, enc);
        let (more, more_calls) = match self.stride {
            96 => self.upload_objects::<{ BINDLESS_OBJECT_STRIDE as usize }>(scene, changes, enc),
            _ => self.upload_objects::<{ OBJECT_STRIDE as usize }>(scene, changes, enc),
        };
        (bytes + more, calls + more_calls)
    }

    /// The bindless form's changed materials: each run of consecutive ones
    /// one copy of their base colours (what changes), through the belt.
    fn upload_materials(
        &mut self,
        scene: &Scene,
        changes: &FrameChanges,
        enc: &mut wgpu::CommandEncoder,
    ) -> (u64, u64) {
        let Some((materials, _)) = &self.materials else { return (0, 0) };
        let (mut bytes, mut calls) = (0, 0);
        for run in changes.materials.chunk_by(|a, b| b.0 == a.0 + 1) {
            let offset = run[0].0 as u64 * MATERIAL_STRIDE;
            if run.len() == 1 {
                let color = bytemuck::bytes_of(&scene.materials[run[0].0].base_color);
                let color: [u8; 16] = color.try_into().expect("vec4");
                bytes += put(&mut self.belt, enc, materials, offset, std::iter::once(color));
            } else {
                let all = run.iter().map(|&(m, _)| packed_material(scene, m));
                bytes += put(&mut self.belt, enc, materials, offset, all);
            }
            calls += 1;
        }
        (bytes as u64, calls)
    }

    fn upload_objects<const N: usize>(
        &mut self,
        scene: &Scene,
        changes: &FrameChanges,
        enc: &mut wgpu::CommandEncoder,
    ) -> (u64, u64) {
        let changed = &changes.objects;
        if changed.is_empty() {
            return (0, 0);
        }
        // The scene's own packed array: runs go up as slices of it.
        let (belt, objects, rows) =
            (&mut self.belt, &self.objects, scene.rows(N as u64 == BINDLESS_OBJECT_STRIDE));
        let packed_at =
            |&(o, _): &(usize, _)| -> [u8; N] { rows[o * N..(o + 1) * N].try_into().expect("a row") };
        if changed.len() * 2 >= self.count {
            return (put_bytes(belt, enc, objects, 0, rows) as u64, 1);
        }
        let runs = 1 + changed.windows(2).filter(|w| w[1].0 != w[0].0 + 1).count();
        if runs <= RUNS_WRITTEN {
            let mut calls = 0;
            for run in changed.chunk_by(|a, b| b.0 == a.0 + 1) {
                let (first, end) = (run[0].0 * N, (run[run.len() - 1].0 + 1) * N);
                put_bytes(belt, enc, objects, first as u64, &rows[first..end]);
                calls += 1;
            }
            return ((changed.len() * N) as u64, calls);
        }
        let data = put(belt, enc, &self.scatter.src, 0, changed.iter().map(packed_at));
        // The count, then each element's destination.
        let word = |k: usize| if k == 0 { changed.len() as u32 } else { changed[k - 1].0 as u32 };
        let index_bytes =
            put(belt, enc, &self.scatter.idx, 0, (0..changed.len() + 1).map(|k| word(k).to_le_bytes()));
        let s = &self.scatter;
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&s.pipeline);
        pass.set_bind_group(0, &s.group, &[]);
        pass.dispatch_workgroups((data as u32 / 4).div_ceil(64), 1, 1);
        ((data + index_bytes) as u64, 2)
    }
}

/// The hand-written multi-draw-indirect state: the argument buffer, the
/// runs (first draw, first command, commands) and a draw list of each run's
/// first draw.
struct HandIndirect {
    buffer: wgpu::Buffer,
    runs: Vec<(usize, usize, u32)>,
    list: DrawList,
}

impl Method for StorageInstancing {
    fn name(&self) -> &'static str {
        match (&self.indirect, &self.materials) {
            (Some(_), Some(_)) => "storage_bindless",
            (Some(_), None) => "storage_indirect",
            _ => "storage_instancing",
        }
    }

    fn frame(
        &mut self,
        gpu: &Headless,
        shared: &Shared,
        scene: &Scene,
        changes: &FrameChanges,
        target: &Target,
    ) -> Cost {
        match self.materials {
            Some(_) => self.inner.set_frame_and_views(changes),
            None => self.inner.set_shared(changes),
        }
        // The shared values' flush and the object scatter go into the
        // frame's encoder: one submit, the best form of the design.
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        self.inner.m.flush_into(&gpu.queue, &mut enc).expect("flush");
        let (bytes, calls) = self.upload(scene, changes, &mut enc);
        let binds = match &mut self.indirect {
            None => {
                encode_own_objects(&mut self.inner, shared, scene, &mut target.pass(&mut enc), &self.group)
            }
            Some(hand) => {
                let mut pass = target.pass(&mut enc);
                pass.set_bind_group(3, &self.group, &[]);
                // The material array, bound once: freqbuf binds the frame and views only.
                let (groups, built) = match &self.materials {
                    Some((_, group)) => {
                        pass.set_bind_group(2, group, &[]);
                        (0..2, &shared.bindless_pipelines)
                    }
                    None => (0..3, &shared.pipelines),
                };
                let (pipelines, runs, buffer) = (&self.inner.pipelines, &hand.runs, &hand.buffer);
                let mut current = usize::MAX;
                Binder::new()
                    .bind_list_groups(&mut self.inner.m, &mut pass, &mut hand.list, groups, |pass, k, _| {
                        let (start, command, n) = runs[k];
                        if pipelines[start] != current {
                            current = pipelines[start];
                            pass.set_pipeline(&built[current]);
                        }
                        pass.multi_draw_indirect(buffer, command as u64 * 16, n);
                    })
                    .expect("bind");
                1 + u64::from(self.materials.is_some())
            }
        };
        self.belt.finish();
        gpu.queue.submit([enc.finish()]);
        self.belt.recall();
        let s = self.inner.m.take_stats().total();
        Cost {
            bytes: s.bytes_uploaded + bytes,
            upload_calls: s.upload_calls + calls,
            bind_calls: s.set_bind_group_calls + binds,
            whole_span: false,
        }
    }
}
