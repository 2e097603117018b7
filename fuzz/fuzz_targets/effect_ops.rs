//! Materials, auto constants and the render queue on wgpu's noop backend,
//! driven by structured operation sequences in any order: materials created,
//! derived, set (names and types right or wrong) and switched between flag
//! sets; views and objects created and freed with or without `forget`;
//! inputs, updates, flushes; queue items inserted, moved and removed, and
//! passes encoded; the manager moved to another device. wgpu-core validates
//! every call on the noop backend and panics on a validation error.
#![no_main]

use std::sync::OnceLock;

use arbitrary::Arbitrary;
use freqbuf::{Binder, Headless, Manager, SlotPlan};
use freqbuf_effects::{AutoConstants, Camera, Effects, Geometry, Materials, Order, QueueContext, QueueItem, RenderQueue, Targets};
use libfuzzer_sys::fuzz_target;

const TOML: &str = r#"
source = "fx.wgsl"
flags = ["TINT", "SCALE", "UNUSED"]
[params]
color = [1.0, 0.5, 0.25, 1.0]
count = 3
[auto]
view_proj = "view_proj"
world = "world"
time = "time"
[[technique]]
name = "t"
  [[technique.pass]]
  name = "opaque"
  vertex = "vs"
  fragment = "fs"
  depth = { compare = "less", write = true }
  [[technique.pass]]
  name = "glass"
  vertex = "vs"
  fragment = "fs"
  blend = "alpha"
"#;

const WGSL: &str = r#"
struct Frame { time: f32 }
struct View { view_proj: mat4x4<f32> }
struct Material {
    color: vec4<f32>,
    count: u32,
#ifdef TINT
    tint: vec4<f32>,
#endif
#ifdef SCALE
    scale: f32,
#endif
}
struct Object { world: mat4x4<f32> }
@group(0) @binding(0) var<uniform> frame: Frame;
@group(1) @binding(0) var<uniform> view: View;
@group(2) @binding(0) var<uniform> material: Material;
@group(3) @binding(0) var<uniform> object: Object;
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    var p = view.view_proj * object.world * vec4<f32>(f32(i), frame.time, 0.0, 1.0);
#ifdef SCALE
    p = p * material.scale;
#endif
    return p;
}
@fragment fn fs() -> @location(0) vec4<f32> {
    var c = material.color * f32(material.count);
#ifdef TINT
    c = c * material.tint;
#endif
    return c;
}
"#;

const NAMES: &[&str] = &["color", "count", "tint", "scale", "world", "nope", "color[1]", ""];
const FLAGS: &[&str] = &["TINT", "SCALE", "UNUSED", "MISSING"];

#[derive(Arbitrary, Debug)]
enum Value {
    F32(f32),
    U32(u32),
    Vec4([f32; 4]),
    Mat4([[f32; 4]; 4]),
}

#[derive(Arbitrary, Debug)]
enum Op {
    Material(u8),
    Derive(u8),
    Set(u8, u8, Value),
    SetFlags(u8, u8),
    View,
    Object,
    FreeView(u8, bool),
    FreeObject(u8, bool),
    Camera(u8, [f32; 4]),
    World(u8, [f32; 4]),
    Time(f32),
    Update,
    Flush,
    Insert { pass: bool, material: u8, view: u8, object: u8, depth: f32 },
    Move(u8, u8, f32),
    Remove(u8),
    Encode(bool),
    Recreate,
}

fn device() -> &'static Headless {
    static DEV: OnceLock<Headless> = OnceLock::new();
    DEV.get_or_init(|| Headless::noop().expect("the noop backend"))
}

fn pick<T: Copy>(v: &[T], i: u8) -> Option<T> {
    (!v.is_empty()).then(|| v[i as usize % v.len()])
}

fn flags(bits: u8) -> Vec<&'static str> {
    FLAGS.iter().enumerate().filter(|(i, _)| bits & (1 << i) != 0).map(|(_, f)| *f).collect()
}

fn matrix(v: [f32; 4]) -> [[f32; 4]; 4] {
    [[v[0], 0.0, 0.0, 0.0], [0.0, v[1], 0.0, 0.0], [0.0, 0.0, v[2], 0.0], [v[3], 0.0, 0.0, 1.0]]
}

fuzz_target!(|ops: Vec<Op>| {
    let h = device();
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let effect = fx.add("fx.effect.toml", TOML, WGSL).expect("the effect loads");
    let passes = fx.technique(effect, "t").expect("technique").collect::<Vec<_>>();
    let mut mats = Materials::new();
    let mut auto = AutoConstants::new();
    let mut rq = RenderQueue::new();
    let (mut materials, mut views, mut objects, mut items) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let targets = Targets::color(wgpu::TextureFormat::Rgba8Unorm).with_depth(wgpu::TextureFormat::Depth32Float);
    for op in ops.into_iter().take(64) {
        match op {
            Op::Material(bits) => {
                if let Ok(m) = mats.create(&mut fx, &mut fb, effect, &flags(bits)) {
                    materials.push(m);
                    if materials.len() == 1 {
                        let _ = auto.bind_effect(fb.registry(), fx.effect(effect));
                    }
                }
            }
            Op::Derive(i) => {
                if let Some(m) = pick(&materials, i) {
                    materials.extend(mats.derive(&mut fb, m).ok());
                }
            }
            Op::Set(i, name, value) => {
                let Some(m) = pick(&materials, i) else { continue };
                let name = NAMES[name as usize % NAMES.len()];
                let _ = match value {
                    Value::F32(v) => mats.set(&mut fb, m, name, &v),
                    Value::U32(v) => mats.set(&mut fb, m, name, &v),
                    Value::Vec4(v) => mats.set(&mut fb, m, name, &v),
                    Value::Mat4(v) => mats.set(&mut fb, m, name, &v),
                };
            }
            Op::SetFlags(i, bits) => {
                if let Some(m) = pick(&materials, i) {
                    let _ = mats.set_flags(&mut fx, &mut fb, m, &flags(bits));
                }
            }
            Op::View => views.push(fb.create_view()),
            Op::Object => objects.push(fb.create_object()),
            Op::FreeView(i, forget) if !views.is_empty() => {
                let v = views.swap_remove(i as usize % views.len());
                fb.free_view(v).expect("a live view frees");
                if forget {
                    auto.forget(Some(v), None);
                }
            }
            Op::FreeObject(i, forget) if !objects.is_empty() => {
                let o = objects.swap_remove(i as usize % objects.len());
                fb.free_object(o).expect("a live object frees");
                if forget {
                    auto.forget(None, Some(o));
                }
            }
            Op::Camera(i, v) => {
                if let Some(view) = pick(&views, i) {
                    let camera = Camera { view: matrix(v), proj: matrix([v[3], v[2], v[1], v[0]]), viewport: [v[0], v[1]] };
                    auto.set_camera(view, camera);
                }
            }
            Op::World(i, v) => {
                if let Some(o) = pick(&objects, i) {
                    auto.set_world(o, matrix(v));
                }
            }
            Op::Time(t) => auto.set_time(t, t, 1),
            Op::Update => {
                let _ = auto.update(&mut fb);
            }
            Op::Flush => {
                let _ = fb.flush(&h.queue);
            }
            Op::Insert { pass, material, view, object, depth } => {
                let Some(m) = pick(&materials, material) else { continue };
                let item = QueueItem {
                    pass: passes[usize::from(pass)],
                    material: m,
                    view: pick(&views, view),
                    object: pick(&objects, object),
                    geometry: Geometry::vertices(0..3),
                    depth,
                };
                if let Ok(id) = rq.insert(&fx, &mats, item.clone()) {
                    items.push((id, item));
                }
            }
            Op::Move(i, material, depth) => {
                if let (Some(k), Some(m)) = ((!items.is_empty()).then(|| i as usize % items.len()), pick(&materials, material)) {
                    let item = QueueItem { material: m, depth, ..items[k].1.clone() };
                    if rq.update(&fx, &mats, items[k].0, item.clone()).is_ok() {
                        items[k].1 = item;
                    }
                }
            }
            Op::Remove(i) if !items.is_empty() => {
                let (id, _) = items.swap_remove(i as usize % items.len());
                let _ = rq.remove(id);
            }
            Op::Encode(glass) => {
                let size = wgpu::Extent3d { width: 4, height: 4, depth_or_array_layers: 1 };
                let texture = |format| {
                    h.device.create_texture(&wgpu::TextureDescriptor {
                        label: None,
                        size,
                        mip_level_count: 1,
                        sample_count: 1,
                        dimension: wgpu::TextureDimension::D2,
                        format,
                        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                        view_formats: &[],
                    })
                };
                let (color, depth) = (texture(wgpu::TextureFormat::Rgba8Unorm), texture(wgpu::TextureFormat::Depth32Float));
                let (color, depth) = (color.create_view(&Default::default()), depth.create_view(&Default::default()));
                let mut enc = h.device.create_command_encoder(&Default::default());
                {
                    let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                        label: None,
                        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                            view: &color,
                            depth_slice: None,
                            resolve_target: None,
                            ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
                        })],
                        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                            view: &depth,
                            depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(1.0), store: wgpu::StoreOp::Store }),
                            stencil_ops: None,
                        }),
                        timestamp_writes: None,
                        occlusion_query_set: None,
                        multiview_mask: None,
                    });
                    let name = if glass { "t.glass" } else { "t.opaque" };
                    let mut binder = Binder::new();
                    let _ = rq.encode(
    name,
    Order::Sorted,
    &mut QueueContext { effects: &mut fx, manager: &mut fb, materials: &mats, targets: &targets, pass: &mut pass, binder: &mut binder },
);
                }
                h.queue.submit([enc.finish()]);
            }
            Op::Recreate => {
                if fb.recreate(&h.device).is_ok() {
                    mats.recreate();
                }
            }
            _ => {}
        }
    }
});
