//! `PerShaderCache` (D3DX Effect / bgfx): every shader owns a copy of every
//! block it declares, committed whole into a scratch ring when it changed.

use freqbuf::Headless;

use crate::method::*;
use crate::scene::{FrameChanges, Scene};

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

/// Draws per command buffer. Mesa 25's lavapipe crashes (a `memset` on a
/// worker thread) running one command buffer of about 64,800 dynamic-offset
/// binds (16,200 draws here; 16,100 run), which no wgpu limit bounds; this
/// method's 4 binds a draw reach that from 16,200 objects. Mesa 22.3 runs
/// them. docs/mesa-lavapipe-binds.md has the report.
const DRAWS_PER_PASS: usize = 8192;

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
        let mut buffers = Vec::new();
        for (k, draws) in scene.draws.chunks(DRAWS_PER_PASS).enumerate() {
            let mut enc = gpu.device.create_command_encoder(&Default::default());
            let mut pass = if k == 0 { target.pass(&mut enc) } else { target.next_pass(&mut enc) };
            let mut current = usize::MAX;
            let mut bound = [u32::MAX; 4];
            for &o in draws {
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
            drop(pass);
            buffers.push(enc.finish());
        }
        // Pad so the last binding's window stays inside the buffer.
        let end = (self.ring_cpu.len() as u64).next_multiple_of(ALIGN) + ALIGN;
        self.ring_cpu.resize(end.min(self.ring.size()) as usize, 0);
        gpu.queue.write_buffer(&self.ring, 0, &self.ring_cpu);
        cost.bytes = self.ring_cpu.len() as u64;
        cost.upload_calls = 1;
        gpu.queue.submit(buffers);
        cost
    }
}
