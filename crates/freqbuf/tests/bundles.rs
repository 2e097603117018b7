//! Render bundles: a bundle recorded once through the binder sees every
//! flush's new values when replayed, and `Manager::generation` says when a
//! bundle must be recorded again (a slot buffer was replaced by growth).

use crate::common;

use common::gpu;
use freqbuf::{Binder, Draw, Manager, SlotPlan};

const SHADER: &str = "struct Object { color: vec4<f32> }\n@group(3) @binding(0) var<uniform> object: Object;\n@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {\n    let p = array(vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0))[i];\n    return vec4(p, 0.0, 1.0);\n}\n@fragment fn fs() -> @location(0) vec4<f32> { return object.color; }\n";

#[test]
fn a_replayed_bundle_sees_each_flush_and_growth_changes_the_generation() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let shader = fb.register_wgsl("bundle.wgsl", SHADER).unwrap();
    let pipeline = gpu::render_pipeline(h, &fb, shader);
    let color = fb.param("color").unwrap();
    let object = fb.create_object();
    fb.flush(&h.queue).unwrap();

    let record = |fb: &mut Manager| {
        let mut encoder = h.device.create_render_bundle_encoder(&wgpu::RenderBundleEncoderDescriptor {
            label: None,
            color_formats: &[Some(wgpu::TextureFormat::Rgba8Unorm)],
            depth_stencil: None,
            sample_count: 1,
            multiview: None,
        });
        encoder.set_pipeline(&pipeline);
        Binder::new().bind(fb, &mut encoder, &Draw::new(shader).object(object)).unwrap();
        encoder.draw(0..3, 0..1);
        encoder.finish(&Default::default())
    };
    let bundle = record(&mut fb);
    let generation = fb.generation();
    let size = wgpu::Extent3d { width: 1, height: 1, depth_or_array_layers: 1 };
    let target = gpu::texture(
        h,
        wgpu::TextureFormat::Rgba8Unorm,
        size,
        wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
    );
    let view = target.create_view(&Default::default());
    let replay = |bundle: &wgpu::RenderBundle| {
        let mut enc = h.device.create_command_encoder(&Default::default());
        {
            let mut pass = gpu::color_pass(&mut enc, &view);
            pass.execute_bundles([bundle]);
        }
        gpu::read_texture(h, enc, &target, 4)[0].to_le_bytes()
    };
    // Values change every frame; the bundle recorded once sees each flush.
    for (rgba, bytes) in
        [([1.0f32, 0.0, 0.0, 1.0], [255, 0, 0, 255]), ([0.0, 1.0, 0.0, 1.0], [0, 255, 0, 255])]
    {
        fb.object(object).set(color, &rgba).unwrap();
        fb.flush(&h.queue).unwrap();
        assert_eq!(replay(&bundle), bytes);
        assert_eq!(fb.generation(), generation, "values alone keep the bundle valid");
    }
    // Enough new objects to outgrow the object buffer: the generation moves.
    for _ in 0..100 {
        fb.create_object();
    }
    fb.flush(&h.queue).unwrap();
    assert_ne!(fb.generation(), generation, "growth replaced the buffer the bundle binds");
    // Recorded again, the bundle sees new values through the new buffer.
    let bundle = record(&mut fb);
    fb.object(object).set(color, &[0.0f32, 0.0, 1.0, 1.0]).unwrap();
    fb.flush(&h.queue).unwrap();
    assert_eq!(replay(&bundle), [0, 0, 255, 255]);
    // Creating an object that fits the buffer is not a change.
    let generation = fb.generation();
    fb.create_object();
    fb.flush(&h.queue).unwrap();
    assert_eq!(fb.generation(), generation);
}

/// A binder skips a group whose inputs (manager, generation, variant,
/// instance indices) match what it bound last; two managers with the same
/// generation, variant and indices must still rebind.
#[test]
fn one_binder_over_two_managers_binds_each_ones_groups() {
    let Some(h) = gpu::device() else { return };
    let managers = [[1.0f32, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0]].map(|rgba| {
        let mut fb = Manager::new(&h.device, SlotPlan::default());
        let shader = fb.register_wgsl("bundle.wgsl", SHADER).unwrap();
        let color = fb.param("color").unwrap();
        let object = fb.create_object();
        fb.object(object).set(color, &rgba).unwrap();
        fb.flush(&h.queue).unwrap();
        (fb, Draw::new(shader).object(object))
    });
    assert_eq!(managers[0].0.generation(), managers[1].0.generation());
    let [(mut red, red_draw), (mut green, green_draw)] = managers;
    let pipeline = gpu::render_pipeline(h, &red, red_draw.shader());
    let size = wgpu::Extent3d { width: 1, height: 1, depth_or_array_layers: 1 };
    let usage = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
    let target = gpu::texture(h, wgpu::TextureFormat::Rgba8Unorm, size, usage);
    let view = target.create_view(&Default::default());
    let mut enc = h.device.create_command_encoder(&Default::default());
    {
        let mut pass = gpu::color_pass(&mut enc, &view);
        pass.set_pipeline(&pipeline);
        let mut binder = Binder::new();
        binder.bind(&mut red, &mut pass, &red_draw).unwrap();
        pass.draw(0..3, 0..1);
        // The last draw wins the pixel: it must read the green manager's object.
        binder.bind(&mut green, &mut pass, &green_draw).unwrap();
        pass.draw(0..3, 0..1);
        // Groups 0 to 2 are empty (the shader uses group 3), bound once per manager.
        assert_eq!(binder.calls(), 8);
    }
    assert_eq!(gpu::read_texture(h, enc, &target, 4)[0].to_le_bytes(), [0, 255, 0, 255]);
}

/// The contract for recorded draws: a bundle keeps the offsets of its
/// recording, so a freed object whose index a new object takes would make a
/// replay draw the new object's values. Any free moves the generation, so a
/// renderer that checks it records again, and a draw list made before the
/// free is `StaleList`.
#[test]
fn a_free_moves_the_generation_so_a_bundle_never_draws_a_reused_index() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let shader = fb.register_wgsl("bundle.wgsl", SHADER).unwrap();
    let color = fb.param("color").unwrap();
    let old = fb.create_object();
    fb.object(old).set(color, &[1.0f32, 0.0, 0.0, 1.0]).unwrap();
    fb.flush(&h.queue).unwrap();
    let mut list = fb.draw_list(&[Draw::new(shader).object(old)]).unwrap();
    let generation = fb.generation();

    fb.free_object(old).unwrap();
    let new = fb.create_object();
    fb.object(new).set(color, &[0.0f32, 1.0, 0.0, 1.0]).unwrap();
    fb.flush(&h.queue).unwrap();
    assert_ne!(fb.generation(), generation, "the freed index went to another object");
    let mut binder = Binder::new();
    let mut enc = h.device.create_render_bundle_encoder(&wgpu::RenderBundleEncoderDescriptor {
        label: None,
        color_formats: &[Some(wgpu::TextureFormat::Rgba8Unorm)],
        depth_stencil: None,
        sample_count: 1,
        multiview: None,
    });
    let stale = binder.bind_list(&mut fb, &mut enc, &mut list, |_, _, _| {});
    assert!(matches!(stale, Err(freqbuf::Error::StaleList)), "{stale:?}");

    // Without a free, flushes and creations that fit keep it.
    let generation = fb.generation();
    fb.create_object();
    fb.object(new).set(color, &[0.0f32, 0.0, 1.0, 1.0]).unwrap();
    fb.flush(&h.queue).unwrap();
    assert_eq!(fb.generation(), generation);
}

/// A manager behind a box or a lock guard binds as a `&mut Manager` did
/// (by deref coercion), and its statistics count the binds.
#[test]
fn a_boxed_or_locked_manager_binds_and_counts() {
    let Some(h) = gpu::device() else { return };
    let mut boxed = Box::new(Manager::new(&h.device, SlotPlan::default()));
    let shader = boxed.register_wgsl("bundle.wgsl", SHADER).unwrap();
    let object = boxed.create_object();
    boxed.flush(&h.queue).unwrap();
    let draw = Draw::new(shader).object(object);
    let encoder = || {
        h.device.create_render_bundle_encoder(&wgpu::RenderBundleEncoderDescriptor {
            label: None,
            color_formats: &[Some(wgpu::TextureFormat::Rgba8Unorm)],
            depth_stencil: None,
            sample_count: 1,
            multiview: None,
        })
    };
    let mut binder = Binder::new();
    binder.bind(&mut boxed, &mut encoder(), &draw).unwrap();
    let locked = std::sync::Mutex::new(*boxed);
    binder.reset();
    binder.bind(&mut locked.lock().unwrap(), &mut encoder(), &draw).unwrap();
    // Groups 0 to 2 are empty and group 3 holds the object: four per bind.
    assert_eq!(binder.calls(), 8);
    assert_eq!(locked.into_inner().unwrap().stats().shared.set_bind_group_calls, 8);
}
