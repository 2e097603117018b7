//! The whole per-frame flow in one place: register two shaders of one
//! material family, so that they share slots, set values, flush, draw, and
//! print what it cost.
//!
//! `cargo run --release --all-features --example flow`

use freqbuf::reflect::{ShaderReflection, ShaderSource};
use freqbuf::{Binder, Draw, Headless, Manager, SlotPlan};

const LIT: &str = r#"
struct Frame { time: f32 }
struct View { view_proj: mat4x4<f32> }
struct Material { color: vec4<f32>, roughness: f32 }
struct Object { world: mat4x4<f32> }
@group(0) @binding(0) var<uniform> frame: Frame;
@group(1) @binding(0) var<uniform> view: View;
@group(2) @binding(0) var<uniform> material: Material;
@group(3) @binding(0) var<uniform> object: Object;
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let p = vec4<f32>(f32(i & 1u), f32(i >> 1u), 0.0, 1.0);
    return view.view_proj * object.world * p + vec4<f32>(frame.time * 0.0);
}
@fragment fn fs() -> @location(0) vec4<f32> { return material.color * (1.0 - material.roughness); }
"#;

// Declares only a prefix of the material block, and no view.
const UNLIT: &str = r#"
struct Material { color: vec4<f32> }
struct Object { world: mat4x4<f32> }
@group(2) @binding(0) var<uniform> material: Material;
@group(3) @binding(0) var<uniform> object: Object;
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    return object.world * vec4<f32>(f32(i & 1u), f32(i >> 1u), 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4<f32> { return material.color; }
"#;

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let gpu = Headless::new()?;
    println!("adapter: {} ({:?})", gpu.info.name, gpu.info.backend);
    let mut fb = Manager::new(&gpu.device, SlotPlan::default());
    // One material type: unlit's block is a prefix of lit's, and in one
    // family they merge into one material slot. (Unrelated material structs
    // would each be a family of their own, the default.)
    let family = |name, source| {
        ShaderReflection::new(name, ShaderSource::Wgsl(source)).map(|s| s.with_family("basic"))
    };
    let lit = fb.register(family("lit.wgsl", LIT)?)?;
    let unlit = fb.register(family("unlit.wgsl", UNLIT)?)?;

    // Pipelines use the layouts freqbuf generated; no bind group layout is written by hand.
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let pipelines = [lit, unlit].map(|id| {
        let module = fb.create_shader_module(id).expect("registered above");
        gpu.device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: None,
            layout: Some(fb.pipeline_layout(id).expect("registered above")),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: None,
                compilation_options: Default::default(),
                buffers: &[],
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: None,
                compilation_options: Default::default(),
                targets: &[Some(format.into())],
            }),
            primitive: Default::default(),
            depth_stencil: None,
            multisample: Default::default(),
            multiview_mask: None,
            cache: None,
        })
    });

    // Resolve names once; set through the handles every frame.
    let (time, view_proj) = (fb.param("time")?, fb.param("view_proj")?);
    let (color, roughness, world) = (fb.param("color")?, fb.param("roughness")?, fb.param("world")?);
    let view = fb.create_view();
    let materials = [[1.0, 0.2, 0.2, 1.0], [0.2, 1.0, 0.2, 1.0]].map(|c| {
        let m = fb.create_material();
        fb.material(m).set(color, &c).expect("vec4");
        m
    });
    fb.material(materials[0]).set(roughness, &0.5f32)?;
    let objects = (0..8).map(|_| fb.create_object()).collect::<Vec<_>>();
    let identity = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]];
    fb.view(view).set(view_proj, &identity)?;

    let target = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d { width: 64, height: 64, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let target = target.create_view(&Default::default());

    for frame in 0..3u32 {
        fb.frame().set(time, &(frame as f32 / 60.0))?;
        // Only one object moves per frame; the rest upload nothing.
        let mut w = identity;
        w[3][0] = frame as f32 * 0.1;
        fb.object(objects[frame as usize % objects.len()]).set(world, &w)?;
        fb.flush(&gpu.queue).expect("flush");

        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: None,
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations::default(),
                })],
                ..Default::default()
            });
            let mut binder = Binder::new();
            // Draws sorted by shader, then material, as a render queue would.
            for (s, shader) in [lit, unlit].into_iter().enumerate() {
                pass.set_pipeline(&pipelines[s]);
                for (i, &o) in objects.iter().enumerate() {
                    let draw = Draw::new(shader).view(view).material(materials[i / 4]).object(o);
                    binder.bind(&mut fb, &mut pass, &draw)?;
                    pass.draw(0..4, 0..1);
                }
            }
        }
        gpu.queue.submit([enc.finish()]);
        let s = fb.take_stats().total();
        println!(
            "frame {frame}: {} bytes in {} upload calls, {} copies, {} dirty instances, {} set_bind_group for 16 draws",
            s.bytes_uploaded, s.upload_calls, s.copy_commands, s.dirty_instances, s.set_bind_group_calls
        );
    }
    for (id, s) in fb.registry().slots() {
        let (stride, users) = (fb.slot_stride(id).unwrap_or(0), s.users().len());
        println!(
            "slot {} {}: {} bytes, stride {stride}, {users} users",
            s.binding(),
            s.frequency(),
            s.size()
        );
    }
    Ok(())
}
