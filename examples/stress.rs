//! The stress test: renders a generated scene headless with freqbuf and with
//! each baseline, and reports what each uploads, binds and costs per frame.
//!
//! `cargo run --release --all-features --example stress -- --help`

#[path = "../crates/freqbuf/benches/support/mod.rs"]
mod support;

#[path = "support/gpu.rs"]
#[allow(dead_code, reason = "the stress example opens its device with Headless: only PNGs and read-back")]
mod gpu;

use std::io::Write as _;
use std::time::{Duration, Instant};

use clap::Parser;
use freqbuf::Headless;
use support::methods::{
    self, Cost, EncodeFloor, Freqbuf, FullRewrite, Method, PerShaderCache, Shared, StorageInstancing, Target,
};
use support::scene::{Scene, SceneParams};

/// Render a generated scene with freqbuf and with per-shader caches, full rewrites
/// and the encode floor, and compare bytes, calls and CPU time per frame.
#[derive(Parser, Debug)]
#[command(name = "stress")]
struct Args {
    /// Objects, one draw each.
    #[arg(long, default_value_t = 10_000)]
    objects: usize,
    /// Distinct shaders.
    #[arg(long, default_value_t = 100)]
    shaders: usize,
    /// Materials.
    #[arg(long, default_value_t = 1_000)]
    materials: usize,
    /// Views (split screen; each object is drawn in one).
    #[arg(long, default_value_t = 2)]
    views: usize,
    /// Fraction of objects moving per frame.
    #[arg(long, default_value_t = 0.10)]
    moving: f64,
    /// Fraction of materials changing per frame.
    #[arg(long, default_value_t = 0.01)]
    material_changes: f64,
    /// Frames per method.
    #[arg(long, default_value_t = 60)]
    frames: u32,
    /// Seed of the scene.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    json: bool,
    /// Save the last frame as PNG.
    #[arg(long, value_name = "FILE")]
    png: Option<std::path::PathBuf>,
    /// Also run freqbuf replaying a render bundle (recorded again only when
    /// `Manager::generation` moves), as `freqbuf_bundles`.
    #[arg(long)]
    bundles: bool,
    /// Also run freqbuf encoding each frame on N threads at once (bundles
    /// recorded through binders with shared access), as `freqbuf_threads`.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Also run freqbuf with its flush recorded into the frame's encoder
    /// (`Manager::flush_into`): one submit per frame, as `freqbuf_one_submit`.
    #[arg(long)]
    one_submit: bool,
    /// Also run freqbuf issuing its draw list as multi-draw-indirect runs
    /// (`Binder::draw_indirect`), as `freqbuf_indirect` (needs --object-storage).
    #[arg(long)]
    indirect: bool,
    /// Write an SVG chart of CPU ms per frame for each method.
    #[arg(long, value_name = "FILE")]
    chart: Option<std::path::PathBuf>,
    /// Shaders read object data from an array slot
    /// (`var<storage, read> objects: array<Object>`) by instance index.
    #[arg(long)]
    object_storage: bool,
    /// Methods to run (freqbuf always runs first, as the reference). Default:
    /// freqbuf_members,per_shader_cache,full_rewrite,encode_floor; with
    /// --object-storage, storage_instancing instead of per_shader_cache (and
    /// storage_indirect with --indirect).
    #[arg(long, value_delimiter = ',')]
    baselines: Option<Vec<String>>,
}

struct Run {
    name: &'static str,
    /// CPU ms of each frame, in order.
    frames: Vec<f64>,
    cost: Cost,
    cpu_ms: f64,
    hash: u64,
    pixels: Vec<u8>,
}

fn main() {
    let args = Args::parse();
    if args.objects == 0 || args.shaders == 0 || args.materials == 0 || args.views == 0 || args.frames == 0 {
        eprintln!("error: --objects, --shaders, --materials, --views and --frames must be at least 1");
        std::process::exit(2);
    }
    let params = SceneParams {
        objects: args.objects,
        shaders: args.shaders,
        materials: args.materials,
        views: args.views,
        moving: args.moving.clamp(0.0, 1.0),
        material_changes: args.material_changes.clamp(0.0, 1.0),
        camera_moves: args.moving > 0.0 || args.material_changes > 0.0,
        frames: args.frames,
        seed: args.seed,
        object_storage: args.object_storage,
    };
    let baselines = args.baselines.clone().unwrap_or_else(|| {
        let first = if args.object_storage { "storage_instancing" } else { "per_shader_cache" };
        let mut list = ["freqbuf_members", first, "full_rewrite", "encode_floor"].map(String::from).to_vec();
        if args.indirect {
            list.insert(1, "storage_indirect".into());
        }
        list
    });
    let (gpu, real) = match Headless::new() {
        Ok(g) => (g, true),
        Err(e) => {
            eprintln!("!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!");
            eprintln!("!! {e}");
            eprintln!("!! Falling back to wgpu's NOOP backend: NOTHING IS RENDERED, images are not");
            eprintln!("!! compared, and CPU times leave out all GPU work and driver cost.");
            eprintln!("!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!");
            (Headless::noop().expect("the noop backend is always available"), false)
        }
    };
    eprintln!("adapter: {} ({:?}, {})", gpu.info.name, gpu.info.backend, gpu.info.driver_info);

    let scene0 = Scene::new(&params);
    let t = Instant::now();
    let shared = Shared::new(&gpu, &scene0);
    eprintln!("built {} pipelines in {:.1} s", shared.pipelines.len(), t.elapsed().as_secs_f64());

    // The floor of bytes, and the final state the encode floor draws.
    let mut final_scene = scene0.clone();
    let mut minimal = 0u64;
    for f in 1..=params.frames {
        let c = final_scene.changes(f);
        minimal += final_scene.minimal_bytes(&c);
        final_scene.apply(&c);
    }
    let minimal = minimal as f64 / params.frames as f64;

    // Every method has its own scene state and target. Frames run interleaved
    // (frame 1 of each method, then frame 2, ...), and each frame starts with
    // the next method in turn, so that machine noise and the cost of running
    // right after another method's frame fall on all methods alike.
    struct Entry {
        method: Box<dyn Method>,
        scene: Scene,
        target: Target,
        times: Vec<Duration>,
        total: Cost,
    }
    let mut entries = Vec::new();
    let bundles = args.bundles.then_some("freqbuf_bundles");
    let threads = args.threads.map(|_| "freqbuf_threads");
    let one_submit = args.one_submit.then_some("freqbuf_one_submit");
    let indirect = args.indirect.then_some("freqbuf_indirect");
    if args.indirect && !args.object_storage {
        eprintln!("error: --indirect needs --object-storage (runs need object data in an array slot)");
        std::process::exit(2);
    }
    for name in std::iter::once("freqbuf")
        .chain(bundles)
        .chain(threads)
        .chain(one_submit)
        .chain(indirect)
        .chain(baselines.iter().map(String::as_str).filter(|n| !n.is_empty()))
    {
        if name == "per_shader_cache" && args.object_storage {
            eprintln!(
                "error: per_shader_cache keeps per-shader uniform copies; it has no --object-storage form"
            );
            std::process::exit(2);
        }
        if (name == "storage_instancing" || name == "storage_indirect") && !args.object_storage {
            eprintln!("error: storage_instancing needs --object-storage (its shaders read a storage array)");
            std::process::exit(2);
        }
        let method: Box<dyn Method> = match name {
            "freqbuf" => Box::new(Freqbuf::new(&gpu, &scene0)),
            "freqbuf_bundles" => Box::new(Freqbuf::new(&gpu, &scene0).with_bundles()),
            "freqbuf_members" => Box::new(Freqbuf::new(&gpu, &scene0).with_members()),
            "freqbuf_one_submit" => Box::new(Freqbuf::new(&gpu, &scene0).with_one_submit()),
            "freqbuf_indirect" => Box::new(Freqbuf::new(&gpu, &scene0).with_indirect()),
            "storage_indirect" => {
                Box::new(StorageInstancing::new(&gpu, &shared, &scene0).with_indirect(&gpu, &scene0))
            }
            "freqbuf_threads" => {
                Box::new(Freqbuf::new(&gpu, &scene0).with_threads(args.threads.unwrap_or(1)))
            }
            "per_shader_cache" => Box::new(PerShaderCache::new(&gpu, &shared, &scene0)),
            "full_rewrite" => Box::new(FullRewrite::new(&gpu, &shared, &scene0)),
            "encode_floor" => Box::new(EncodeFloor::new(&gpu, &shared, &final_scene)),
            "storage_instancing" => Box::new(StorageInstancing::new(&gpu, &shared, &scene0)),
            other => {
                eprintln!(
                    "error: unknown baseline `{other}`; known: freqbuf_members, per_shader_cache, full_rewrite, encode_floor, storage_instancing, storage_indirect"
                );
                std::process::exit(2);
            }
        };
        entries.push(Entry {
            method,
            scene: scene0.clone(),
            target: Target::new(&gpu),
            times: Vec::new(),
            total: Cost::default(),
        });
    }
    wait(&gpu);
    let started = Instant::now();
    for f in 1..=params.frames {
        let n = entries.len();
        for k in 0..n {
            let e = &mut entries[(k + f as usize) % n];
            let changes = e.scene.changes(f);
            e.scene.apply(&changes);
            let start = Instant::now();
            let cost = e.method.frame(&gpu, &shared, &e.scene, &changes, &e.target);
            e.times.push(start.elapsed());
            // The GPU's own time is not the CPU cost: wait outside the timing.
            wait(&gpu);
            e.total.bytes += cost.bytes;
            e.total.upload_calls += cost.upload_calls;
            e.total.bind_calls += cost.bind_calls;
        }
        if f % 5 == 0 || f == params.frames {
            eprint!(
                "\rframe {f}/{} ({} methods, {:.0} s)",
                params.frames,
                entries.len(),
                started.elapsed().as_secs_f64()
            );
            let _ = std::io::stderr().flush();
        }
    }
    eprintln!();
    let n = params.frames as u64;
    let runs = entries
        .into_iter()
        .map(|mut e| {
            let frames = e.times.iter().map(|&t| ms(t)).collect();
            e.times.sort();
            let pixels = read_target(&gpu, &e.target);
            Run {
                name: e.method.name(),
                frames,
                cost: Cost {
                    bytes: e.total.bytes / n,
                    upload_calls: e.total.upload_calls / n,
                    bind_calls: e.total.bind_calls / n,
                },
                cpu_ms: ms(e.times[e.times.len() / 2]),
                hash: fnv1a(&pixels),
                pixels,
            }
        })
        .collect::<Vec<_>>();

    if let Some(path) = &args.png {
        if let Err(e) = gpu::save_png(path, &runs[0].pixels, methods::SIZE) {
            eprintln!("error: cannot write {}: {e}", path.display());
            std::process::exit(1);
        }
    }
    if let Some(path) = &args.chart {
        if let Err(e) = chart(path, &params, &runs) {
            eprintln!("error: cannot write {}: {e}", path.display());
            std::process::exit(1);
        }
        eprintln!("chart: {}", path.display());
    }
    let same = runs.iter().all(|r| r.hash == runs[0].hash);
    if args.json {
        print_json(&params, &runs, minimal);
    } else {
        print_table(&params, &runs, minimal, real);
    }
    if real && !same {
        eprintln!("error: the methods rendered different images:");
        for r in &runs {
            eprintln!("  {:<18} {:016x}", r.name, r.hash);
        }
        std::process::exit(1);
    }
}

fn wait(gpu: &Headless) {
    gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn read_target(gpu: &Headless, target: &Target) -> Vec<u8> {
    let enc = gpu.device.create_command_encoder(&Default::default());
    gpu::read_back(&gpu.device, &gpu.queue, enc, &target.texture).expect("read back")
}

/// An SVG line chart of CPU ms per frame, one line per method, so that
/// transients (first frames, growth, re-recorded bundles) show.
fn chart(path: &std::path::Path, p: &SceneParams, runs: &[Run]) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    let root = SVGBackend::new(path, (960, 540)).into_drawing_area();
    root.fill(&WHITE)?;
    let top = runs.iter().flat_map(|r| r.frames.iter().copied()).fold(0.0f64, f64::max) * 1.1;
    let title = format!(
        "CPU ms per frame: {} objects{}, {:.0}% moving",
        p.objects,
        if p.object_storage { " (object storage)" } else { "" },
        p.moving * 100.0
    );
    let mut c = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(1u32..p.frames.max(2), 0.0..top.max(0.1))?;
    c.configure_mesh().x_desc("frame").y_desc("CPU ms").draw()?;
    for (i, r) in runs.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let points = r.frames.iter().enumerate().map(|(f, &t)| (f as u32 + 1, t));
        c.draw_series(LineSeries::new(points, color.stroke_width(2)))?
            .label(format!("{} (median {:.2})", r.name, r.cpu_ms))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
    }
    c.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
    root.present()?;
    Ok(())
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

fn print_table(p: &SceneParams, runs: &[Run], minimal: f64, real: bool) {
    println!(
        "scene: {} objects{}, {} shaders, {} materials, {} views, {:.0}% moving, {:.0}% materials changing, {} frames",
        p.objects,
        if p.object_storage { " (object storage)" } else { "" },
        p.shaders,
        p.materials,
        p.views,
        p.moving * 100.0,
        p.material_changes * 100.0,
        p.frames
    );
    println!();
    println!(
        "{:<18} {:>14} {:>13} {:>13} {:>12} {:>9} {:>10} {:>10}",
        "method",
        "bytes/frame",
        "uploads/frame",
        "binds/frame",
        "cpu ms/frame",
        "ns/draw",
        "bytes ×fb",
        "cpu ×fb"
    );
    let fb = &runs[0];
    for r in runs {
        println!(
            "{:<18} {:>14} {:>13} {:>13} {:>12.2} {:>9.0} {:>10} {:>10.2}",
            r.name,
            r.cost.bytes,
            r.cost.upload_calls,
            r.cost.bind_calls,
            r.cpu_ms,
            r.cpu_ms * 1e6 / p.objects as f64,
            if fb.cost.bytes > 0 {
                format!("{:.2}", r.cost.bytes as f64 / fb.cost.bytes as f64)
            } else {
                "-".into()
            },
            r.cpu_ms / fb.cpu_ms
        );
    }
    println!();
    println!("minimal bytes/frame (changed values): {minimal:.0}");
    println!("freqbuf bytes / minimal:              {:.3}", fb.cost.bytes as f64 / minimal.max(1.0));
    if let Some(floor) = runs.iter().find(|r| r.name == "encode_floor") {
        println!("freqbuf cpu / encode floor:           {:.3}", fb.cpu_ms / floor.cpu_ms);
        println!(
            "freqbuf overhead per draw:            {:.0} ns",
            (fb.cpu_ms - floor.cpu_ms) * 1e6 / p.objects as f64
        );
    }
    if real {
        let same = runs.iter().all(|r| r.hash == fb.hash);
        println!(
            "final images:                         {} ({:016x})",
            if same { "identical" } else { "DIFFERENT" },
            fb.hash
        );
    } else {
        println!("final images:                         not compared (noop backend renders nothing)");
    }
}

fn print_json(p: &SceneParams, runs: &[Run], minimal: f64) {
    let methods = runs
        .iter()
        .map(|r| {
            (
                r.name.to_owned(),
                serde_json::json!({
                    "bytes_per_frame": r.cost.bytes,
                    "upload_calls_per_frame": r.cost.upload_calls,
                    "bind_calls_per_frame": r.cost.bind_calls,
                    "cpu_ms_per_frame": r.cpu_ms,
                    "cpu_ns_per_draw": r.cpu_ms * 1e6 / p.objects as f64,
                    "image_hash": format!("{:016x}", r.hash),
                }),
            )
        })
        .collect::<serde_json::Map<_, _>>();
    let v = serde_json::json!({
        "scene": {"objects": p.objects, "object_storage": p.object_storage, "shaders": p.shaders, "materials": p.materials, "views": p.views,
                  "moving": p.moving, "material_changes": p.material_changes, "frames": p.frames, "seed": p.seed},
        "methods": methods,
        "minimal_bytes_per_frame": minimal,
    });
    println!("{}", serde_json::to_string_pretty(&v).expect("plain values"));
}
