//! A manager on wgpu's noop backend driven by structured operation sequences:
//! register (fixed shaders, hostile ones and fuzzed text), create, free, set,
//! set textures, flush and bind, in any order. wgpu-core validates every call
//! on the noop backend and its default handler panics on a validation error,
//! so any invalid object or command freqbuf makes is a crash here.
#![no_main]

use std::sync::OnceLock;

use arbitrary::Arbitrary;
use freqbuf::Headless;
use freqbuf::{Binder, Draw, InstanceId, Manager, SlotPlan};
use libfuzzer_sys::fuzz_target;

const SHADERS: &[&str] = &[
    "struct F { time: f32, n: u32 }\n@group(0) @binding(0) var<uniform> frame: F;\nstruct O { world: mat4x4<f32>, id: u32 }\n@group(3) @binding(0) var<uniform> object: O;\n@vertex fn vs() -> @builtin(position) vec4<f32> { return object.world[0] * frame.time; }",
    "struct O { world: mat4x4<f32>, id: u32, tint: vec4<f32>, _pad0: array<vec4<f32>, 12>, extra: vec4<f32> }\n@group(3) @binding(0) var<uniform> object: O;\n@fragment fn fs() -> @location(0) vec4<f32> { return object.extra + object.tint; }",
    "struct V { view_proj: mat4x4<f32>, eye: vec4<f32> }\n@group(1) @binding(0) var<uniform> view: V;\nstruct M { color: vec4<f32>, roughness: f32 }\n@group(2) @binding(0) var<uniform> material: M;\n@group(2) @binding(1) var albedo: texture_2d<f32>;\n@group(2) @binding(2) var samp: sampler;\n@fragment fn fs() -> @location(0) vec4<f32> { return textureSample(albedo, samp, vec2<f32>(0.5)) * material.color + view.eye; }",
    "struct MatA { color: vec4<f32> }\nstruct MatB { color: vec4<f32>, rough: f32 }\n@group(2) @binding(0) var<uniform> mat_a: MatA;\n@group(2) @binding(3) var<uniform> mat_b: MatB;\n@fragment fn fs() -> @location(0) vec4<f32> { return mat_a.color + mat_b.color * mat_b.rough; }",
    "struct Sh { coeffs: array<array<vec4<f32>, 3>, 9>, scale: f32 }\n@group(0) @binding(2) var<uniform> sh: Sh;\n@group(0) @binding(5) var<storage, read> data: array<vec4<f32>>;\n@fragment fn fs() -> @location(0) vec4<f32> { return sh.coeffs[8][2] * sh.scale + data[0]; }",
    "@group(2) @binding(4) var depth: texture_depth_2d;\n@group(2) @binding(5) var cmp: sampler_comparison;\n@group(2) @binding(6) var ints: texture_2d<u32>;\n@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(textureSampleCompare(depth, cmp, vec2<f32>(0.5), 0.5) + f32(textureLoad(ints, vec2<i32>(0), 0).x)); }",
    "@group(2) @binding(7) var height: texture_2d<f32>;\n@vertex fn vs() -> @builtin(position) vec4<f32> { return textureLoad(height, vec2<i32>(0), 0); }",
    "@group(7) @binding(0) var<uniform> far: vec4<f32>;\n@fragment fn fs() -> @location(0) vec4<f32> { return far; }",
    "@group(0) @binding(999) var<uniform> high: vec4<f32>;\n@fragment fn fs() -> @location(0) vec4<f32> { return high; }",
];

#[derive(Arbitrary, Debug)]
enum Op {
    Register(u8),
    RegisterText(String),
    Create(u8),
    Free(u8, u16),
    Set { name: u16, freq: u8, which: u16, bytes: Vec<u8> },
    SetByName { path: String, freq: u8, which: u16, value: [f32; 4] },
    SetTexture { name: u16, which: u16, texture: u8 },
    SetSampler { name: u16, which: u16, comparison: bool },
    SetBuffer { name: u16, which: u16, size: u16 },
    Flush,
    Frame(Vec<(u8, u16, u16, u16)>),
}

struct World {
    m: Manager,
    shaders: Vec<freqbuf::ShaderId>,
    live: [Vec<InstanceId>; 4],
}

impl World {
    fn pick(&self, freq: u8, which: u16) -> InstanceId {
        let f = (freq % 4) as usize;
        if f == 0 || self.live[f].is_empty() {
            return InstanceId::FRAME;
        }
        self.live[f][which as usize % self.live[f].len()]
    }

    fn name(&self, i: u16) -> Option<String> {
        let mut names = self.m.registry().slots().flat_map(|(_, s)| s.members().iter().map(|m| m.member.name.clone())).collect::<Vec<_>>();
        names.extend(self.bindings().into_iter().map(|b| b.0));
        (!names.is_empty()).then(|| names[i as usize % names.len()].clone())
    }

    /// Every registered texture, sampler and storage binding, with its frequency.
    fn bindings(&self) -> Vec<(String, freqbuf::Frequency)> {
        let r = self.m.registry();
        let mut b = r
            .shaders()
            .flat_map(|(_, s)| s.used_resources())
            .filter(|res| res.block.is_none())
            .filter_map(|res| Some((res.name.clone(), r.plan().frequency(res.binding)?)))
            .collect::<Vec<_>>();
        b.sort();
        b.dedup();
        b
    }

    fn binding(&self, i: u16) -> Option<(String, freqbuf::Frequency)> {
        let b = self.bindings();
        (!b.is_empty()).then(|| b[i as usize % b.len()].clone())
    }
}

fn device() -> &'static Headless {
    static DEV: OnceLock<Headless> = OnceLock::new();
    DEV.get_or_init(|| freqbuf::Headless::noop().expect("the noop backend"))
}

fn texture(h: &Headless, kind: u8) -> wgpu::TextureView {

    let (format, layers, dimension) = match kind % 5 {
        0 => (wgpu::TextureFormat::Rgba8Unorm, 1, None),
        1 => (wgpu::TextureFormat::R32Float, 1, None),
        2 => (wgpu::TextureFormat::Depth32Float, 1, None),
        3 => (wgpu::TextureFormat::Rgba8Uint, 1, None),
        _ => (wgpu::TextureFormat::Rgba8Unorm, 2, Some(wgpu::TextureViewDimension::D2Array)),
    };
    let t = h.device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d { width: 1, height: 1, depth_or_array_layers: layers },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    });
    t.create_view(&wgpu::TextureViewDescriptor { dimension, ..Default::default() })
}



fuzz_target!(|ops: Vec<Op>| {
    let h = device();
    let mut w = World { m: Manager::new(&h.device, SlotPlan::default().with_group(7, freqbuf::Frequency::Object)), shaders: Vec::new(), live: Default::default() };
    for op in ops.into_iter().take(64) {
        match op {
            Op::Register(i) => {
                if let Ok(id) = w.m.register_wgsl("s.wgsl", SHADERS[i as usize % SHADERS.len()]) {
                    w.shaders.push(id);
                }
            }
            Op::RegisterText(text) => {
                if let Ok(id) = w.m.register_wgsl("fuzz.wgsl", &text) {
                    let _ = w.m.create_shader_module(id);
                    w.shaders.push(id);
                }
            }
            Op::Create(f) => match f % 3 {
                0 => w.live[1].push(InstanceId::from(w.m.create_view())),
                1 => w.live[2].push(InstanceId::from(w.m.create_material())),
                _ => w.live[3].push(InstanceId::from(w.m.create_object())),
            },
            Op::Free(f, which) => {
                let f = 1 + (f % 3) as usize;
                if !w.live[f].is_empty() {
                    let n = w.live[f].len();
                    let id = w.live[f].swap_remove(which as usize % n);
                    w.m.free(id).expect("a live handle frees");
                }
            }
            Op::Set { name, freq, which, bytes } => {
                if let Some(p) = w.name(name).and_then(|n| w.m.param(&n).ok()) {
                    let id = w.pick(freq, which);
                    let _ = w.m.instance(id).set_bytes(p, &bytes);
                    let _ = w.m.instance(id).get_bytes(p);
                }
            }
            Op::SetByName { path, freq, which, value } => {
                let id = w.pick(freq, which);
                let _ = w.m.instance(id).set_by_name(&path, &value);
                let _ = w.m.instance(id).set_by_name(&path, &value[0]);
            }
            Op::SetTexture { name, which, texture: kind } => {
                if let Some((n, f)) = w.binding(name) {
                    let id = w.pick(f as u8, which);
                    let _ = w.m.instance(id).set_texture(&n, &texture(h, kind));
                }
            }
            Op::SetSampler { name, which, comparison } => {
                if let Some((n, f)) = w.binding(name) {
                    let id = w.pick(f as u8, which);
                    let s = h.device.create_sampler(&wgpu::SamplerDescriptor {
                        compare: comparison.then_some(wgpu::CompareFunction::Less),
                        ..Default::default()
                    });
                    let _ = w.m.instance(id).set_sampler(&n, &s);
                }
            }
            Op::SetBuffer { name, which, size } => {
                if let Some((n, f)) = w.binding(name) {
                    let id = w.pick(f as u8, which);
                    let usage = if size % 2 == 0 { wgpu::BufferUsages::STORAGE } else { wgpu::BufferUsages::UNIFORM };
                    let b = h.device.create_buffer(&wgpu::BufferDescriptor {
                        label: None,
                        size: (size as u64 % 1024 + 1) * 4,
                        usage,
                        mapped_at_creation: false,
                    });
                    let _ = w.m.instance(id).set_buffer(&n, &b);
                }
            }
            Op::Flush => {
                let _ = w.m.flush(&h.queue);
            }
            Op::Frame(draws) => {
                let mut enc = h.device.create_command_encoder(&Default::default());
                {
                    let mut pass = enc.begin_compute_pass(&Default::default());
                    let mut binder = Binder::new();
                    for (s, v, mat, o) in draws.into_iter().take(32) {
                        if w.shaders.is_empty() {
                            break;
                        }
                        let shader = w.shaders[s as usize % w.shaders.len()];
                        let d = [w.pick(1, v), w.pick(2, mat), w.pick(3, o)].into_iter().fold(Draw::new(shader), Draw::with);
                        let _ = binder.bind(&mut w.m, &mut pass, &d);
                    }
                }
                h.queue.submit([enc.finish()]);
            }
        }
    }
});
