//! The stress test: renders a generated scene headless with freqbuf and with
//! each baseline, and reports what each uploads, binds and costs per frame.
//!
//! `cargo run --release --all-features --example stress -- --help`

mod report;

#[path = "../support/gpu.rs"]
#[allow(dead_code, reason = "the stress example opens its device with Headless: only PNGs and read-back")]
mod gpu;

use std::io::Write as _;
use std::time::{Duration, Instant};

use clap::Parser;
use freqbuf::Headless;
use freqbuf_bench::scene::{Rng, Scene, SceneParams};
use freqbuf_bench::{
    Cost, EncodeFloor, Freqbuf, FullRewrite, Method, PerShaderCache, Shared, StorageInstancing, Target,
};

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
    /// Percent of objects moving per frame; a list (`--moving 1,10,50,100`)
    /// runs the comparison once per share and adds a summary of CPU ms per
    /// frame and ns per moved object.
    #[arg(long, value_delimiter = ',', default_value = "10")]
    moving: Vec<f64>,
    /// Percent of materials changing per frame.
    #[arg(long, default_value_t = 1.0)]
    material_changes: f64,
    /// Frames per method.
    #[arg(long, default_value_t = 60)]
    frames: u32,
    /// Seed of the scene.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Runs the whole comparison N times, methods interleaved each time, and
    /// reports each method's median CPU ms (of each run's median frame) with
    /// the spread, and each ratio's median and range.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
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
    /// (`Binder::draw_indirect`), as `freqbuf_indirect` (needs --object-storage),
    /// and so again with the object rows packed from the scene's own objects
    /// (`Manager::own_rows`), as `freqbuf_rows`.
    #[arg(long)]
    indirect: bool,
    /// Also run freqbuf with the bindless form of every shader (materials in
    /// one slab, found through each object's `material`), drawn as
    /// multi-draw-indirect runs, as `freqbuf_bindless`; the default baselines
    /// then include `storage_bindless`, the same design by hand. And so again
    /// with the object rows the scene's, as `freqbuf_bindless_rows`. Implies
    /// --object-storage.
    #[arg(long)]
    bindless: bool,
    /// The bindless shaders also read a texel of their material's texture
    /// through a binding array (Bevy's `bindless_textures_2d`): freqbuf
    /// places the textures in its family's table, `storage_bindless` binds
    /// one array. Only the bindless methods run, since the other forms'
    /// shaders read no texture. Implies --bindless and --indirect; needs
    /// binding arrays.
    #[arg(long)]
    textures: bool,
    /// Run only this method of those the other options select (`freqbuf_rows`,
    /// `storage_indirect`, ...): to profile one method's frames alone, e.g.
    /// under `perf record`, with no other method's work in the process.
    #[arg(long, value_name = "METHOD")]
    only: Option<String>,
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

/// One method's frames at one moving share.
struct Run {
    name: &'static str,
    /// CPU ms of each frame, in order.
    frames: Vec<f64>,
    cost: Cost,
    /// The median frame's CPU ms; with `--repeat`, the median of each run's.
    cpu_ms: f64,
    /// Each repeat's median frame, in order (one without `--repeat`).
    repeats: Vec<f64>,
    hash: u64,
    pixels: Vec<u8>,
    /// Frames whose flush uploaded some slot as one whole span.
    span_frames: u32,
}

/// Every method's frames at one moving share.
struct Share {
    params: SceneParams,
    runs: Vec<Run>,
    /// Bytes per frame of the values that changed.
    minimal: f64,
}

fn main() {
    let mut args = Args::parse();
    if args.textures {
        (args.bindless, args.indirect) = (true, true);
        if args.materials >= 1024 {
            eprintln!(
                "error: --textures places a texture per material in a table of at most 1,024 elements; use --materials 1023 or fewer"
            );
            std::process::exit(2);
        }
        if args.baselines.as_ref().is_some_and(|b| b.iter().any(|n| !n.is_empty() && n != "storage_bindless"))
        {
            eprintln!(
                "error: with --textures only storage_bindless applies (the other forms read no texture)"
            );
            std::process::exit(2);
        }
    }
    if args.objects == 0 || args.shaders == 0 || args.materials == 0 || args.views == 0 || args.frames == 0 {
        eprintln!("error: --objects, --shaders, --materials, --views and --frames must be at least 1");
        std::process::exit(2);
    }
    if args.moving.iter().any(|m| !(0.0..=100.0).contains(m)) {
        eprintln!("error: --moving takes percentages from 0 to 100");
        std::process::exit(2);
    }
    let baselines = args.baselines.clone().unwrap_or_else(|| {
        let first =
            if args.object_storage || args.bindless { "storage_instancing" } else { "per_shader_cache" };
        let mut list = ["freqbuf_members", first, "full_rewrite", "encode_floor"].map(String::from).to_vec();
        if args.indirect {
            list.insert(1, "storage_indirect".into());
        }
        if args.bindless {
            list.insert(1, "storage_bindless".into());
        }
        if args.textures {
            list.retain(|n| n == "storage_bindless");
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
    let arrays = wgpu::Features::TEXTURE_BINDING_ARRAY
        | wgpu::Features::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING;
    if args.textures && real && !gpu.device.features().contains(arrays) {
        eprintln!("error: --textures needs {arrays:?}, which {} lacks", gpu.info.name);
        std::process::exit(2);
    }
    // The shaders do not depend on what moves: one set of pipelines for every share.
    let scene0 = Scene::new(&params(&args, args.moving[0]));
    let t = Instant::now();
    let shared = Shared::new(&gpu, &scene0);
    eprintln!("built {} pipelines in {:.1} s", shared.pipelines.len(), t.elapsed().as_secs_f64());

    let shares = args
        .moving
        .iter()
        .map(|&m| measure_repeated(&args, &gpu, &shared, &baselines, params(&args, m)))
        .collect::<Vec<_>>();
    let last = shares.last().expect("--moving has a value");
    if let Some(path) = &args.png {
        if let Err(e) = gpu::save_png(path, &last.runs[0].pixels, freqbuf_bench::SIZE) {
            eprintln!("error: cannot write {}: {e}", path.display());
            std::process::exit(1);
        }
    }
    if let Some(path) = &args.chart {
        if let Err(e) = report::chart(path, &shares) {
            eprintln!("error: cannot write {}: {e}", path.display());
            std::process::exit(1);
        }
        eprintln!("chart: {}", path.display());
    }
    if args.json {
        report::print_json(&shares);
    } else {
        for share in &shares {
            report::print_table(share, real);
        }
        if shares.len() > 1 {
            report::print_summary(&shares);
        }
    }
    let mut different = false;
    for share in &shares {
        let runs = &share.runs;
        if real && !runs.iter().all(|r| r.hash == runs[0].hash) {
            eprintln!(
                "error: the methods rendered different images ({:.0}% moving):",
                share.params.moving * 100.0
            );
            for r in runs {
                eprintln!("  {:<18} {:016x}", r.name, r.hash);
            }
            different = true;
        }
    }
    if different {
        std::process::exit(1);
    }
}

/// The scene the arguments describe, with `moving` percent of objects moving.
fn params(args: &Args, moving: f64) -> SceneParams {
    let material_changes = (args.material_changes / 100.0).clamp(0.0, 1.0);
    SceneParams {
        objects: args.objects,
        shaders: args.shaders,
        materials: args.materials,
        views: args.views,
        moving: moving / 100.0,
        material_changes,
        camera_moves: moving > 0.0 || material_changes > 0.0,
        frames: args.frames,
        seed: args.seed,
        object_storage: args.object_storage || args.bindless,
        bindless: args.bindless,
        textures: args.textures,
    }
}

/// [`measure`] `--repeat` times: each method's CPU ms is the median of its
/// runs' medians, each run kept in `repeats`; a run whose image differs from
/// the first run's marks the method's image as different.
fn measure_repeated(
    args: &Args,
    gpu: &Headless,
    shared: &Shared,
    baselines: &[String],
    params: SceneParams,
) -> Share {
    let mut share = measure(args, gpu, shared, baselines, params.clone());
    for k in 1..args.repeat {
        eprintln!("repeat {}/{}", k + 1, args.repeat);
        let again = measure(args, gpu, shared, baselines, params.clone());
        for (run, other) in share.runs.iter_mut().zip(again.runs) {
            run.repeats.push(other.cpu_ms);
            if other.hash != run.hash {
                run.hash = 0;
            }
        }
    }
    for run in &mut share.runs {
        run.cpu_ms = median(&run.repeats);
    }
    share
}

/// The middle value (the mean of the middle two for an even count).
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

/// Runs every method over the frames of one scene and reads their images back.
fn measure(args: &Args, gpu: &Headless, shared: &Shared, baselines: &[String], params: SceneParams) -> Share {
    let scene0 = Scene::new(&params);
    // The floor of bytes, and the final state the encode floor draws.
    let mut final_scene = scene0.clone();
    // The untimed frame 0 every method draws first (below) moves it too.
    final_scene.apply(&final_scene.changes(0));
    let mut minimal = 0u64;
    for f in 1..=params.frames {
        let c = final_scene.changes(f);
        minimal += final_scene.minimal_bytes(&c);
        final_scene.apply(&c);
    }
    let minimal = minimal as f64 / params.frames as f64;

    // Every method has its own scene state and target. Frames run interleaved
    // (frame 1 of each method, then frame 2, ...), each frame in a new order
    // drawn from the seed, so that machine noise and the cost of running
    // right after another method's frame (its caches, lavapipe's threads)
    // fall on all methods alike. (Starting each frame with the next method in
    // turn kept every method behind the same one: at 100,000 objects with
    // nothing moving, whichever row ran right after plain freqbuf read 1.9×
    // the one after it.)
    struct Entry {
        method: Box<dyn Method>,
        scene: Scene,
        target: Target,
        times: Vec<Duration>,
        total: Cost,
        span_frames: u32,
    }
    let mut entries = Vec::new();
    let bundles = args.bundles.then_some("freqbuf_bundles");
    let threads = args.threads.map(|_| "freqbuf_threads");
    let one_submit = args.one_submit.then_some("freqbuf_one_submit");
    // With --indirect and --bindless, each freqbuf form runs twice: its object
    // rows in freqbuf's shadow, and the scene's own (`freqbuf_rows`).
    let indirect = args.indirect.then_some(["freqbuf_indirect", "freqbuf_rows"]);
    let bindless = args.bindless.then_some(["freqbuf_bindless", "freqbuf_bindless_rows"]);
    if args.indirect && !(args.object_storage || args.bindless) {
        eprintln!("error: --indirect needs --object-storage (runs need object data in an array slot)");
        std::process::exit(2);
    }
    // With textures only the bindless forms draw the same image.
    let plain = (!args.textures).then_some("freqbuf");
    let (bundles, threads, one_submit, indirect) = match args.textures {
        true => (None, None, None, None),
        false => (bundles, threads, one_submit, indirect),
    };
    for name in plain
        .into_iter()
        .chain(bundles)
        .chain(threads)
        .chain(one_submit)
        .chain(indirect.into_iter().flatten())
        .chain(bindless.into_iter().flatten())
        .chain(baselines.iter().map(String::as_str).filter(|n| !n.is_empty()))
    {
        if name == "per_shader_cache" && (args.object_storage || args.bindless) {
            eprintln!(
                "error: per_shader_cache keeps per-shader uniform copies; it has no --object-storage form"
            );
            std::process::exit(2);
        }
        let storage = ["storage_instancing", "storage_indirect"].contains(&name);
        if storage && !(args.object_storage || args.bindless) {
            eprintln!("error: storage_instancing needs --object-storage (its shaders read a storage array)");
            std::process::exit(2);
        }
        if args.only.as_deref().is_some_and(|only| only != name) {
            continue;
        }
        let method: Box<dyn Method> = match name {
            "freqbuf" => Box::new(Freqbuf::new(gpu, &scene0)),
            "freqbuf_bundles" => Box::new(Freqbuf::new(gpu, &scene0).with_bundles()),
            "freqbuf_members" => Box::new(Freqbuf::new(gpu, &scene0).with_members()),
            "freqbuf_one_submit" => Box::new(Freqbuf::new(gpu, &scene0).with_one_submit()),
            "freqbuf_indirect" => Box::new(Freqbuf::new(gpu, &scene0).with_indirect()),
            "freqbuf_bindless" => Box::new(Freqbuf::bindless(gpu, &scene0)),
            "freqbuf_rows" => Box::new(Freqbuf::new(gpu, &scene0).with_indirect().with_rows()),
            "freqbuf_bindless_rows" => Box::new(Freqbuf::bindless(gpu, &scene0).with_rows()),
            "storage_bindless" if !args.bindless => {
                eprintln!("error: storage_bindless needs --bindless (its shaders read a material array)");
                std::process::exit(2);
            }
            "storage_bindless" => Box::new(StorageInstancing::bindless(gpu, shared, &scene0)),
            "storage_indirect" => {
                Box::new(StorageInstancing::new(gpu, shared, &scene0).with_indirect(gpu, &scene0))
            }
            "freqbuf_threads" => Box::new(Freqbuf::new(gpu, &scene0).with_threads(args.threads.unwrap_or(1))),
            "per_shader_cache" => Box::new(PerShaderCache::new(gpu, shared, &scene0)),
            "full_rewrite" => Box::new(FullRewrite::new(gpu, shared, &scene0)),
            "encode_floor" => Box::new(EncodeFloor::new(gpu, shared, &final_scene)),
            "storage_instancing" => Box::new(StorageInstancing::new(gpu, shared, &scene0)),
            other => {
                eprintln!(
                    "error: unknown baseline `{other}`; known: freqbuf_members, per_shader_cache, full_rewrite, encode_floor, storage_instancing, storage_indirect, storage_bindless"
                );
                std::process::exit(2);
            }
        };
        entries.push(Entry {
            method,
            scene: scene0.clone(),
            target: Target::new(gpu),
            times: Vec::new(),
            total: Cost::default(),
            span_frames: 0,
        });
    }
    // One untimed frame each (frame 0's changes, the same for every method):
    // what a method builds once, at its first frame, is start-up, not a
    // frame's cost. freqbuf_indirect's first draw uploads its whole argument
    // buffer, which the hand-written peer fills at setup; timed, it read as
    // bytes "every" static frame, amortized over the run.
    for e in &mut entries {
        let changes = e.scene.changes(0);
        e.scene.apply(&changes);
        e.method.frame(gpu, shared, &e.scene, &changes, &e.target);
        wait(gpu);
    }
    let started = Instant::now();
    let mut rng = Rng::new(params.seed ^ 0x5eed);
    let mut order = (0..entries.len()).collect::<Vec<_>>();
    for f in 1..=params.frames {
        let n = entries.len();
        for k in (1..n).rev() {
            order.swap(k, rng.below(k + 1));
        }
        for &at in &order {
            let e = &mut entries[at];
            let changes = e.scene.changes(f);
            e.scene.apply(&changes);
            let start = Instant::now();
            let cost = e.method.frame(gpu, shared, &e.scene, &changes, &e.target);
            e.times.push(start.elapsed());
            // The GPU's own time is not the CPU cost: wait outside the timing.
            wait(gpu);
            e.total.bytes += cost.bytes;
            e.total.upload_calls += cost.upload_calls;
            e.total.bind_calls += cost.bind_calls;
            e.span_frames += u32::from(cost.whole_span);
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
            let pixels = read_target(gpu, &e.target);
            Run {
                name: e.method.name(),
                frames,
                cost: Cost {
                    bytes: e.total.bytes / n,
                    upload_calls: e.total.upload_calls / n,
                    bind_calls: e.total.bind_calls / n,
                    whole_span: false,
                },
                cpu_ms: ms(e.times[e.times.len() / 2]),
                repeats: vec![ms(e.times[e.times.len() / 2])],
                hash: fnv1a(&pixels),
                pixels,
                span_frames: e.span_frames,
            }
        })
        .collect::<Vec<_>>();
    Share { params, runs, minimal }
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

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}
