//! A scene through materials, auto constants and the render queue: 1,200
//! objects, three effects with flags, a depth pre-pass, an opaque pass and an
//! additive transparent pass, a moving camera and moving objects.
//!
//! It renders the frames twice, through the queue (sorted, bins kept between
//! frames) and with the same items in submission order, prints the bind
//! calls of both, and exits non-zero if the images differ, or if the last
//! frame's pixels differ from a CPU model of the scene (`scene/model.rs`:
//! a ray per sampled pixel, each effect's fragment shader as WGSL runs it).
//!
//! With `--warm`, every pipeline the effects allow is built before the first
//! frame (`Effects::warm`); either way it prints the first frame's CPU time
//! and the pipelines built during it. With `--pipeline-cache DIR`, the
//! pipelines are built through a `wgpu::PipelineCache` loaded from DIR at
//! start and saved there at exit (`PipelineCacheFile`), so a second start
//! shows what the cache saves.
//!
//! `--warm-threads N` builds them on N threads (default: every core).
//!
//! `cargo run --release --features effects --example scene [-- --frames N --png FILE --json --warm --warm-threads N --pipeline-cache DIR]`

#[path = "support/gpu.rs"]
mod gpu;
#[path = "scene/model.rs"]
mod model;

use freqbuf::{Binder, Manager, SlotPlan};
use freqbuf_effects::{
    AutoConstants, Camera, Effects, Geometry, Materials, Order, PipelineCacheFile, QueueContext, QueueItem,
    RenderQueue, Targets,
};
use glam::{Mat4, Quat, Vec3};

const SIZE: u32 = 256;
const OBJECTS: usize = 1200;
const GLASS: usize = 120;
const COLOR: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
const PASSES: [&str; 3] = ["main.depth", "main.opaque", "main.transparent"];

struct Args {
    frames: u32,
    png: Option<String>,
    json: bool,
    warm: bool,
    /// Threads `--warm` builds pipelines on (0: every core).
    warm_threads: usize,
    pipeline_cache: Option<String>,
}

/// A run's per-frame counts, its last image, its first frame and the check
/// of its last frame against the model.
type Run = (Vec<Counts>, Vec<u8>, FirstFrame, model::Checked);

/// The first frame of a run: its CPU time (up to the submit), the pipelines
/// built during it, and what warming built before it.
struct FirstFrame {
    ms: f64,
    pipelines: u64,
    warmed: Option<(usize, f64)>,
}

/// A deterministic generator, so both runs see the same scene.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// One frame's draw and bind counts.
#[derive(Default, Clone, Copy)]
struct Counts {
    draws: u64,
    binds: u64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut argv = std::env::args().skip(1);
    let mut args =
        Args { frames: 8, png: None, json: false, warm: false, warm_threads: 0, pipeline_cache: None };
    while let Some(a) = argv.next() {
        match a.as_str() {
            "--frames" => args.frames = argv.next().ok_or("--frames N")?.parse()?,
            "--png" => args.png = Some(argv.next().ok_or("--png FILE")?),
            "--json" => args.json = true,
            "--warm" => args.warm = true,
            "--warm-threads" => args.warm_threads = argv.next().ok_or("--warm-threads N")?.parse()?,
            "--pipeline-cache" => args.pipeline_cache = Some(argv.next().ok_or("--pipeline-cache DIR")?),
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let (device, queue, adapter) = gpu::device()?;
    let cache = match &args.pipeline_cache {
        Some(dir) => {
            Some(PipelineCacheFile::new(dir, &adapter).ok_or("this backend keeps no pipeline cache data")?)
        }
        None => None,
    };
    let (sorted, image, first, checked) = run(&device, &queue, &args, true, cache.as_ref())?;
    let (unsorted, image_unsorted, ..) = run(&device, &queue, &args, false, None)?;
    let hash = fnv1a(&image);
    let per_frame = |c: &[Counts], f: fn(&Counts) -> u64| c.iter().map(f).sum::<u64>() / c.len() as u64;
    if args.json {
        println!(
            "{{\"frames\":{},\"draws_per_frame\":{},\"binds_per_frame_queue\":{},\"binds_per_frame_unsorted\":{},\"first_frame_ms\":{:.2},\"first_frame_pipelines\":{},\"image_hash\":\"{hash:016x}\"}}",
            args.frames,
            per_frame(&sorted, |c| c.draws),
            per_frame(&sorted, |c| c.binds),
            per_frame(&unsorted, |c| c.binds),
            first.ms,
            first.pipelines,
        );
    } else {
        println!("frame  draws  binds (queue)  binds (submission order)");
        for (i, (s, u)) in sorted.iter().zip(&unsorted).enumerate() {
            println!("{i:>5}  {:>5}  {:>13}  {:>24}", s.draws, s.binds, u.binds);
        }
        println!(
            "image: {hash:016x} both ways: {}",
            if image == image_unsorted { "identical" } else { "DIFFERENT" }
        );
        println!(
            "pixels: {} sampled match the CPU model, {} of them through glass ({} skipped within half a pixel of an edge)",
            checked.matched, checked.blended, checked.skipped
        );
        let warmed = match first.warmed {
            Some((n, ms)) => format!("warmed before it: {n} pipelines in {ms:.1} ms"),
            None => "not warmed (--warm builds them first)".into(),
        };
        println!(
            "first frame: {:.1} ms on the CPU, {} pipelines built in it; {warmed}",
            first.ms, first.pipelines
        );
    }
    if let Some(path) = &args.png {
        gpu::save_png(path, &image, (SIZE, SIZE))?;
    }
    if image != image_unsorted {
        return Err("the queue's image differs from the submission-order image".into());
    }
    Ok(())
}

/// Renders every frame; returns the per-frame counts and the last image.
fn run(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    args: &Args,
    use_queue: bool,
    cache: Option<&PipelineCacheFile>,
) -> Result<Run, Box<dyn std::error::Error>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scene");
    let mut fb = Manager::new(device, SlotPlan::default());
    let mut fx = Effects::new();
    let solid = fx.load(format!("{dir}/solid.effect.toml"))?;
    let stripes = fx.load(format!("{dir}/stripes.effect.toml"))?;
    let glass = fx.load(format!("{dir}/glass.effect.toml"))?;
    for e in [solid, stripes, glass] {
        fx.check(fb.registry(), e, None)?;
    }
    // Materials: each effect with and without its flag, a few colors each.
    let mut mats = Materials::new();
    // Each material with what it draws (its effect, flags and values), for the model.
    let mut palette: Vec<(freqbuf::MaterialId, model::Look)> = Vec::new();
    let mut rng = Lcg(7);
    // Each effect's own material struct: its two colours have its own names.
    for (effect, flag, transparent, [first, second]) in [
        (solid, "TINT", false, ["color", "tint"]),
        (stripes, "WIDE", false, ["dark", "light"]),
        (glass, "BRIGHT", true, ["color", "bright"]),
    ] {
        for k in 0..8 {
            let flags: &[&str] = if k % 2 == 0 { &[] } else { &[flag] };
            let m = mats.create(&mut fx, &mut fb, effect, flags)?;
            // Multiples of 1/255, so additive blending is exact in any order.
            let mut c = || (rng.next() * 5.0).floor() * 51.0 / 255.0;
            let scale = if transparent { 0.2 } else { 1.0 };
            let (a, b) =
                ([c() * scale, c() * scale, c() * scale, 1.0], [c() * scale, c() * scale, c() * scale, 1.0]);
            mats.set(&mut fb, m, first, &a)?;
            mats.set(&mut fb, m, second, &b)?;
            let (a, b, on) = (glam::Vec4::from_array(a), glam::Vec4::from_array(b), k % 2 == 1);
            let look = match flag {
                "TINT" => model::Look::Solid { color: a, tint: on.then_some(b) },
                "WIDE" => model::Look::Stripes { dark: a, light: b, width: if on { 8.0 } else { 4.0 } },
                _ => model::Look::Glass(if on { b } else { a }),
            };
            palette.push((m, look));
        }
    }
    let mut auto = AutoConstants::new();
    for e in [solid, stripes, glass] {
        auto.bind_effect(fb.registry(), fx.effect(e))?;
    }
    let view = fb.create_view();
    let targets = Targets::color(COLOR).with_depth(DEPTH);
    let loaded = match cache {
        Some(file) => {
            let (cache, found) = file.load(device)?;
            if !args.json {
                println!("pipeline cache {}: {found:?}", file.path().display());
            }
            fx.set_pipeline_cache(&fb, Some(cache.clone()));
            Some((file, cache))
        }
        None => None,
    };
    let warmed = if args.warm {
        let start = std::time::Instant::now();
        let mut built = 0;
        for e in [solid, stripes, glass] {
            built += fx.warm_with(&mut fb, e, &targets, args.warm_threads, &mut |_| {})?.pipelines;
        }
        Some((built, start.elapsed().as_secs_f64() * 1e3))
    } else {
        None
    };
    let mut first = FirstFrame { ms: 0.0, pipelines: 0, warmed };

    // Objects: opaque ones everywhere, glass panes in front.
    let mut rq = RenderQueue::new();
    let mut objects = Vec::new();
    for i in 0..OBJECTS + GLASS {
        let glass_pane = i >= OBJECTS;
        let is_glass = |look: &model::Look| matches!(look, model::Look::Glass(_));
        let candidates = palette.iter().filter(|(_, look)| is_glass(look) == glass_pane).collect::<Vec<_>>();
        let (m, look) = *candidates[(rng.next() * candidates.len() as f32) as usize % candidates.len()];
        let position =
            Vec3::new(rng.next() * 40.0 - 20.0, rng.next() * 40.0 - 20.0, rng.next() * 40.0 - 20.0);
        let spin = rng.next() * std::f32::consts::TAU;
        let object = fb.create_object();
        let effect = match look {
            model::Look::Solid { .. } => solid,
            model::Look::Stripes { .. } => stripes,
            model::Look::Glass(_) => glass,
        };
        let mut items = Vec::new();
        for pass in fx.technique(effect, "main")? {
            let item = QueueItem {
                pass,
                material: m,
                view: Some(view),
                object: Some(object),
                geometry: Geometry::vertices(0..6),
                depth: 0.0,
            };
            items.push((rq.insert(&fx, &mats, item.clone())?, item));
        }
        objects.push((object, position, spin, items, (Mat4::IDENTITY, look)));
    }

    let mut counts = Vec::new();
    let mut image = Vec::new();
    let mut view_proj = Mat4::IDENTITY;
    for frame in 0..args.frames {
        let (start, built) = (std::time::Instant::now(), fx.stats().pipelines);
        let t = frame as f32 * 0.1;
        let eye = Vec3::new(60.0 * t.cos(), 15.0, 60.0 * t.sin());
        let view_m = look_at(eye, Vec3::ZERO, Vec3::Y);
        let proj = perspective(0.8, 1.0, 200.0);
        auto.set_time(t, 0.1, frame);
        auto.set_camera(view, Camera::new(view_m, proj, [SIZE as f32; 2]));
        view_proj = proj * view_m;
        // A tenth of the objects move each frame.
        for (i, (object, position, spin, items, (world_now, _))) in objects.iter_mut().enumerate() {
            if frame == 0 || i % 10 == frame as usize % 10 {
                *spin += 0.3;
                let world = Mat4::from_scale_rotation_translation(
                    Vec3::new(3.0, 2.0, 1.0),
                    Quat::from_rotation_y(*spin),
                    *position,
                );
                auto.set_world(*object, world);
                *world_now = world;
            }
            // Blending passes draw back to front by distance.
            for (id, item) in items.iter_mut() {
                if fx.pass(item.pass).blend != freqbuf_effects::Blend::Opaque {
                    item.depth = (eye - *position).length();
                    rq.update(&fx, &mats, *id, item.clone())?;
                }
            }
        }
        auto.update(&mut fb)?;
        fb.flush(queue)?;
        fb.take_stats();
        let (texture, depth_texture) = (gpu::target(device, COLOR, SIZE), gpu::target(device, DEPTH, SIZE));
        let (color_view, depth_view) =
            (texture.create_view(&Default::default()), depth_texture.create_view(&Default::default()));
        let mut encoder = device.create_command_encoder(&Default::default());
        let mut c = Counts::default();
        for (k, name) in PASSES.iter().enumerate() {
            let color = (k > 0).then_some(wgpu::RenderPassColorAttachment {
                view: &color_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: if k == 1 { wgpu::LoadOp::Clear(wgpu::Color::BLACK) } else { wgpu::LoadOp::Load },
                    store: wgpu::StoreOp::Store,
                },
            });
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some(name),
                color_attachments: &color.into_iter().map(Some).collect::<Vec<_>>(),
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &depth_view,
                    depth_ops: Some(wgpu::Operations {
                        load: if k == 0 { wgpu::LoadOp::Clear(1.0) } else { wgpu::LoadOp::Load },
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            let mut binder = Binder::new();
            let order = if use_queue { Order::Sorted } else { Order::Queued };
            let mut cx = QueueContext::new(&mut fx, &mut fb, &mats, &targets, &mut pass, &mut binder);
            let s = rq.encode(name, order, &mut cx)?;
            c.draws += s.draws;
        }
        c.binds = fb.stats().shared.set_bind_group_calls;
        counts.push(c);
        if frame == 0 {
            first.ms = start.elapsed().as_secs_f64() * 1e3;
            first.pipelines = fx.stats().pipelines - built;
        }
        image = gpu::read_back(device, queue, encoder, &texture).expect("read back");
    }
    // Saved at exit, for the next start.
    if let Some((file, cache)) = loaded {
        file.save(&cache)?;
    }
    let drawn = objects.iter().map(|o| o.4).collect::<Vec<_>>();
    let checked = model::check(&image, SIZE, 4, view_proj, &drawn)
        .map_err(|e| format!("the last frame differs from the CPU model: {e}"))?;
    Ok((counts, image, first, checked))
}

/// A right-handed view matrix looking from `eye` at `at`.
fn look_at(eye: Vec3, at: Vec3, up: Vec3) -> Mat4 {
    let f = (at - eye).normalize();
    let s = f.cross(up).normalize();
    let u = s.cross(f);
    Mat4::from_cols(s.extend(0.0), u.extend(0.0), (-f).extend(0.0), glam::Vec4::W).transpose()
        * Mat4::from_translation(-eye)
}

/// A right-handed perspective projection to WebGPU's depth range 0..1.
fn perspective(fov_y: f32, near: f32, far: f32) -> Mat4 {
    let h = 1.0 / (fov_y / 2.0).tan();
    let r = far / (near - far);
    Mat4::from_cols(
        glam::Vec4::new(h, 0.0, 0.0, 0.0),
        glam::Vec4::new(0.0, h, 0.0, 0.0),
        glam::Vec4::new(0.0, 0.0, r, -1.0),
        glam::Vec4::new(0.0, 0.0, r * near, 0.0),
    )
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}
