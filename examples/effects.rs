//! Effects: a two-pass technique (depth pre-pass, then color with
//! `less_equal` and no depth write) drawn headless with several flag
//! combinations of one effect. Prints what was composed, registered and
//! built, and checks the image; `--png FILE` saves it.
//!
//! `cargo run --release --features effects --example effects [-- --png out.png]`

#[path = "support/gpu.rs"]
mod gpu;

use freqbuf::{Binder, Draw, Manager, SlotPlan};
use freqbuf_effects::{Effects, Targets};

const SIZE: u32 = 64;
const COLOR: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// One drawn thing: flags, color, rectangle (clip space), depth.
struct Item {
    flags: &'static [&'static str],
    color: [f32; 4],
    rect: [f32; 4],
    depth: f32,
}

const ITEMS: [Item; 4] = [
    // A red backdrop over everything, far away.
    Item { flags: &[], color: [1.0, 0.0, 0.0, 1.0], rect: [-1.0, -1.0, 1.0, 1.0], depth: 0.9 },
    // Green, nearer, left half; NORMAL_MAP halves its color.
    Item { flags: &["NORMAL_MAP"], color: [0.0, 1.0, 0.0, 1.0], rect: [-1.0, -1.0, 0.0, 1.0], depth: 0.5 },
    // Blue, nearest, top right quarter; ALPHA_TEST keeps it (alpha 0.75 over the cutoff 0.5).
    // (The depth pass has no fragment stage, so it could not discard: alpha-tested
    // geometry that must be cut out needs a fragment entry point there too.)
    Item { flags: &["ALPHA_TEST"], color: [0.0, 0.0, 1.0, 0.75], rect: [0.0, 0.0, 1.0, 1.0], depth: 0.1 },
    // White, bottom right quarter, SKINNED and FOG (which the source never tests).
    Item { flags: &["SKINNED", "FOG"], color: [1.0, 1.0, 1.0, 1.0], rect: [0.0, -1.0, 1.0, 0.0], depth: 0.3 },
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let png = std::env::args().skip_while(|a| a != "--png").nth(1);
    let (device, queue, adapter) = gpu::device()?;
    println!("adapter: {} ({:?})", adapter.name, adapter.backend);
    let mut fb = Manager::new(&device, SlotPlan::default());
    let mut fx = Effects::new();
    let lit = fx.load(concat!(env!("CARGO_MANIFEST_DIR"), "/effects/lit.effect.toml"))?;
    let report = fx.check(fb.registry(), lit, None)?;
    println!("whole-effect check: {} permutations agree on every slot", report.permutations);

    let targets = Targets::color(COLOR).with_depth(DEPTH);
    let passes = fx.technique(lit, "forward")?.collect::<Vec<_>>();
    let mut draws = Vec::new();
    for item in &ITEMS {
        let flags = fx.flags(lit, item.flags)?;
        let shader = fx.shader(&mut fb, flags)?;
        draws.push((item, flags, shader, fb.create_material(), fb.create_object()));
    }
    let p = |name| fb.param(name);
    let (color, cutoff, strength, rect, depth) =
        (p("base_color")?, p("alpha_cutoff")?, p("normal_strength")?, p("rect")?, p("depth")?);
    for &(item, _, _, m, o) in &draws {
        let mut mat = fb.material(m);
        mat.set(color, &item.color)?;
        mat.set(cutoff, &0.5f32)?;
        mat.set(strength, &0.5f32)?;
        fb.object(o).set(rect, &item.rect)?;
        fb.object(o).set(depth, &item.depth)?;
    }
    fb.flush(&queue)?;

    let target = gpu::target(&device, COLOR, SIZE);
    let depth_target = gpu::target(&device, DEPTH, SIZE);
    let (view, depth_view) =
        (target.create_view(&Default::default()), depth_target.create_view(&Default::default()));
    let mut encoder = device.create_command_encoder(&Default::default());
    // The D3DX loop: for each pass of the technique, set its pipeline and draw.
    for (k, &pass) in passes.iter().enumerate() {
        let info = fx.pass(pass).clone();
        let mut pipelines = Vec::new();
        for &(_, flags, _, _, _) in &draws {
            pipelines.push(fx.render_pipeline(&mut fb, pass, flags, &targets)?.1.clone());
        }
        let color = info.fragment.is_some().then_some(wgpu::RenderPassColorAttachment {
            view: &view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                store: wgpu::StoreOp::Store,
            },
        });
        let load = if k == 0 { wgpu::LoadOp::Clear(1.0) } else { wgpu::LoadOp::Load };
        let mut rpass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(&info.name),
            color_attachments: &color.into_iter().map(Some).collect::<Vec<_>>(),
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &depth_view,
                depth_ops: Some(wgpu::Operations { load, store: wgpu::StoreOp::Store }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        let mut binder = Binder::new();
        for (&(_, _, shader, m, o), pipeline) in draws.iter().zip(&pipelines) {
            rpass.set_pipeline(pipeline);
            binder.bind(&mut fb, &mut rpass, &Draw::new(shader).material(m).object(o))?;
            rpass.draw(0..6, 0..1);
        }
    }
    let pixels = gpu::read_back(&device, &queue, encoder, &target)?;

    let stats = fx.stats();
    println!(
        "items drawn: {} with flags {:?}",
        ITEMS.len(),
        ITEMS.iter().map(|i| i.flags.join("+")).collect::<Vec<_>>()
    );
    println!("composed with naga_oil: {} (the check's {} included)", stats.compositions, report.permutations);
    // Each permutation, and its depth pass's part (the vertex stage alone binds no material).
    println!(
        "shaders registered: {} (4 permutations and their depth passes; FOG is never tested, so SKINNED+FOG is SKINNED)",
        stats.registered
    );
    println!("pipelines built: {} ({} passes x 4 permutations)", stats.pipelines, passes.len());
    // Expected: left green at half strength, top right blue, bottom right white.
    let at = |x: u32, y: u32| &pixels[((y * SIZE + x) * 4) as usize..][..4];
    let expected =
        [((8, 32), [0, 128, 0, 255]), ((48, 8), [0, 0, 255, 191]), ((48, 56), [255, 255, 255, 255])];
    for ((x, y), want) in expected {
        let got = at(x, y);
        if got.iter().zip(want).any(|(&g, w)| g.abs_diff(w) > 1) {
            return Err(format!("pixel ({x}, {y}) is {got:?}, expected {want:?}").into());
        }
    }
    println!("image: as expected (depth pre-pass, less_equal color pass, alpha test, normal map)");
    if let Some(path) = png {
        gpu::save_png(&path, &pixels, (SIZE, SIZE))?;
        println!("saved {path}");
    }
    Ok(())
}
