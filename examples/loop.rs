//! The whole loop of a renderer on freqbuf, each call once, in the order an
//! application makes them, and the image checked against a CPU model.
//!
//! Start-up, twice, as a first and a second run of the application would:
//! 1. load an effect (flags, `[params]`) and check every permutation;
//! 2. open the pipeline cache file (`PipelineCacheFile`), where the backend keeps one;
//! 3. first start: build every pipeline on two threads with progress
//!    (`warm_with`), then save the pipeline log and the cache;
//! 4. second start: replay the log on two threads (`replay_pipeline_log_with`).
//!
//! Each frame, on the second start's library:
//! 1. write the objects that changed, by position in an `InstanceList`, with
//!    one batch (`set_all_in`) into a storage array of objects
//!    (`var<storage, read> objects: array<Object>`, one element per object);
//! 2. flush into the frame's encoder (`flush_into`);
//! 3. draw every object through one draw list as indirect runs
//!    (`IndirectDraws`, `draw_indirect`), setting the pipeline where a run
//!    changes material.
//!
//! `cargo run --release --all-features --example loop`

use std::time::Instant;

use freqbuf::{Binder, Draw, DrawArgs, Headless, IndirectDraws, Manager, ObjectId, SlotPlan};
use freqbuf_effects::{EffectId, Effects, Materials, PassId, PipelineCacheFile, Targets};

const EFFECT: &str = r#"
source = "loop.wgsl"
flags = ["TINTED"]

[[technique]]
name = "main"

  [[technique.pass]]
  name = "color"
  vertex = "vs"
  fragment = "fs"

[params]
tint = [1.0, 1.0, 1.0, 1.0]
"#;

/// Object `i` covers pixel `(i % SIDE, i / SIDE)`; its colour is its element
/// of the storage array, found by the instance index.
const WGSL: &str = r#"
struct Material { tint: vec4<f32> }
struct Object { color: vec4<f32> }
@group(2) @binding(0) var<uniform> material: Material;
@group(3) @binding(0) var<storage, read> objects: array<Object>;
struct VsOut { @builtin(position) position: vec4<f32>, @location(0) @interpolate(flat) i: u32 }
@vertex fn vs(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> VsOut {
    let corner = array(vec2(0u, 0u), vec2(1u, 0u), vec2(0u, 1u), vec2(0u, 1u), vec2(1u, 0u), vec2(1u, 1u))[v];
    let cell = vec2(i % 64u, i / 64u) + corner;
    let ndc = vec2(f32(cell.x) / 32.0 - 1.0, 1.0 - f32(cell.y) / 32.0);
    return VsOut(vec4(ndc, 0.0, 1.0), i);
}
@fragment fn fs(in: VsOut) -> @location(0) vec4<f32> {
#ifdef TINTED
    return objects[in.i].color * material.tint;
#else
    return objects[in.i].color;
#endif
}
"#;

const SIDE: u32 = 64;
const OBJECTS: usize = (SIDE * SIDE) as usize;
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
const TINT: [f32; 4] = [1.0, 0.5, 0.25, 1.0];

type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// One start of the application: a manager, an effect library and the effect.
struct Start {
    fb: Manager,
    fx: Effects,
    effect: EffectId,
    pass: PassId,
    /// The pipeline cache the library builds through, to save at exit.
    cache: Option<wgpu::PipelineCache>,
}

impl Start {
    fn new(gpu: &Headless, cache: Option<&PipelineCacheFile>) -> Result<Self> {
        let fb = Manager::new(&gpu.device, SlotPlan::default());
        let mut fx = Effects::new();
        let effect = fx.add("loop.effect.toml", EFFECT, WGSL)?;
        let report = fx.check(fb.registry(), effect, None)?;
        println!("  check: {} permutations agree on one layout per slot", report.permutations);
        let cache = match cache {
            Some(file) => {
                let (cache, found) = file.load(&gpu.device)?;
                println!("  pipeline cache {}: {found:?}", file.path().display());
                fx.set_pipeline_cache(&fb, Some(cache.clone()));
                Some(cache)
            }
            None => None,
        };
        let pass = fx.only_pass(effect, "main")?;
        Ok(Self { fb, fx, effect, pass, cache })
    }
}

fn main() -> Result<()> {
    let gpu = Headless::new()?;
    println!("adapter: {} ({:?})", gpu.info.name, gpu.info.backend);
    let targets = Targets::color(FORMAT);
    let dir = std::env::temp_dir().join(format!("freqbuf-loop-{}", std::process::id()));
    let cache = PipelineCacheFile::new(&dir, &gpu.info)
        .filter(|_| gpu.device.features().contains(wgpu::Features::PIPELINE_CACHE));
    if cache.is_none() {
        println!("pipeline cache: this adapter keeps none (Features::PIPELINE_CACHE)");
    }
    let progress = &mut |p: freqbuf_effects::WarmProgress| println!("    {}/{} pipelines", p.done, p.total);

    println!("first start:");
    let t = Instant::now();
    let mut first = Start::new(&gpu, cache.as_ref())?;
    let warmed = first.fx.warm_with(&mut first.fb, first.effect, &targets, 2, progress)?;
    let log = first.fx.pipeline_log_toml();
    if let (Some(file), Some(c)) = (&cache, &first.cache) {
        file.save(c)?;
    }
    println!("  {} pipelines warmed in {:.1} ms", warmed.pipelines, ms(t));

    println!("second start:");
    let t = Instant::now();
    let Start { mut fb, mut fx, pass, effect, .. } = Start::new(&gpu, cache.as_ref())?;
    let replay =
        fx.replay_pipeline_log_with(&mut fb, "loop.pipelines.toml", &log, |_| targets.clone(), 2, progress)?;
    println!(
        "  {} pipelines replayed from the log in {:.1} ms, {} skipped",
        replay.built,
        ms(t),
        replay.skipped.len()
    );

    // Two materials, each its own permutation and pipeline.
    let mut mats = Materials::new();
    let plain = mats.create(&mut fx, &mut fb, effect, &[])?;
    let tinted = mats.create(&mut fx, &mut fb, effect, &["TINTED"])?;
    mats.set(&mut fb, tinted, "tint", &TINT)?;
    let material_of = |i: usize| if (i / SIDE as usize).is_multiple_of(2) { plain } else { tinted };

    let objects: Vec<ObjectId> = (0..OBJECTS).map(|_| fb.create_object()).collect();
    let list = fb.instance_list(objects.iter().copied())?;
    let color = fb.param("color")?;
    let mut model = vec![[0.0f32; 4]; OBJECTS];
    fb.batch::<[f32; 4]>(color)?.set_all_in(&list, model.iter().enumerate())?;
    // Lists are made once their instances are on the GPU.
    fb.flush(&gpu.queue)?;

    // One draw per object, sorted by material: the runs change pipeline once.
    let mut order: Vec<usize> = (0..OBJECTS).collect();
    order.sort_by_key(|&i| material_of(i) == tinted);
    let mut pipelines = Vec::with_capacity(OBJECTS);
    let mut draws = Vec::with_capacity(OBJECTS);
    for &i in &order {
        let m = material_of(i);
        let flags = mats.flags(m).ok_or("a material made above")?;
        let (shader, pipeline) = fx.render_pipeline(&mut fb, pass, flags, &targets)?;
        pipelines.push(pipeline.clone());
        draws.push(Draw::new(shader).material(m).object(objects[i]));
    }
    let mut draw_list = fb.draw_list(&draws)?;
    let args = vec![DrawArgs { count: 6, first: 0, base_vertex: 0, batch: 0 }; OBJECTS];
    let mut indirect = IndirectDraws::new(args);
    let target = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("loop target"),
        size: wgpu::Extent3d { width: SIDE, height: SIDE, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = target.create_view(&Default::default());

    for frame in 0..3u32 {
        let t = Instant::now();
        // A tenth of the objects change colour.
        let moved = (0..OBJECTS).filter(|i| (i + frame as usize).is_multiple_of(10)).collect::<Vec<_>>();
        for &i in &moved {
            model[i] = colour(i, frame);
        }
        fb.batch::<[f32; 4]>(color)?.set_all_in(&list, moved.iter().map(|&i| (i, &model[i])))?;
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        fb.flush_into(&gpu.queue, &mut encoder)?;
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                ..Default::default()
            });
            let mut binder = Binder::new();
            binder.draw_indirect(
                &mut fb,
                &gpu.queue,
                &mut pass,
                &mut draw_list,
                &mut indirect,
                |pass, i| {
                    pass.set_pipeline(&pipelines[i]);
                },
            )?;
        }
        gpu.queue.submit([encoder.finish()]);
        indirect.submitted();
        let stats = fb.take_stats().total();
        println!(
            "frame {frame}: {} objects moved, {} bytes uploaded in {} calls, {} bind calls, {} draw calls, {:.2} ms CPU",
            moved.len(),
            stats.bytes_uploaded,
            stats.upload_calls,
            stats.set_bind_group_calls,
            stats.draw_calls,
            ms(t)
        );
    }

    let pixels = read(&gpu, &target)?;
    let wrong = (0..OBJECTS)
        .filter(|&i| {
            let tint = if material_of(i) == tinted { TINT } else { [1.0; 4] };
            let want = std::array::from_fn::<u8, 4, _>(|c| (model[i][c] * tint[c] * 255.0).round() as u8);
            want.iter().zip(&pixels[i * 4..i * 4 + 4]).any(|(w, g)| w.abs_diff(*g) > 1)
        })
        .count();
    let _ = std::fs::remove_dir_all(&dir);
    if wrong > 0 {
        return Err(format!("{wrong} of {OBJECTS} pixels differ from the CPU model").into());
    }
    println!("image: all {OBJECTS} pixels match the CPU model");
    Ok(())
}

/// Object `i`'s colour in `frame`: exact in 8 bits, so the model is exact.
fn colour(i: usize, frame: u32) -> [f32; 4] {
    let k = (i as u32).wrapping_mul(2_654_435_761).wrapping_add(frame * 97);
    [(k & 0xff) as f32 / 255.0, (k >> 8 & 0xff) as f32 / 255.0, (k >> 16 & 0xff) as f32 / 255.0, 1.0]
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// The target's pixels, row by row (a 64-pixel row is 256 bytes: no padding).
fn read(gpu: &Headless, target: &wgpu::Texture) -> Result<Vec<u8>> {
    let size = u64::from(SIDE * SIDE * 4);
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("loop readback"),
        size,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        target.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(SIDE * 4),
                rows_per_image: None,
            },
        },
        target.size(),
    );
    gpu.queue.submit([encoder.finish()]);
    let slice = buffer.slice(..);
    slice.map_async(wgpu::MapMode::Read, |_| {});
    gpu.device.poll(wgpu::PollType::wait_indefinitely())?;
    let pixels = slice.get_mapped_range().map_err(|e| format!("{e:?}"))?.to_vec();
    Ok(pixels)
}
