//! Reflection per entry point: a module whose entry points use different
//! resources at one binding point (wgpu's shadow example) is refused whole,
//! naming both, and registers as one shader per pipeline, each reading its own data.

use crate::common;

use common::gpu::{self, read_words};
use freqbuf::reflect::ShaderReflection;
use freqbuf::{Draw, Manager, SlotPlan};

/// The shadow example's shape: `bake` reads the globals only; `lit` reads a
/// storage buffer at (0, 1), `lit_uniform` a uniform block there instead.
const SHADER: &str = "struct Globals { base: vec4<f32> }
struct Data { v: vec4<f32> }
@group(0) @binding(0) var<uniform> globals: Globals;
@group(0) @binding(1) var<storage, read> s_data: Data;
@group(0) @binding(1) var<uniform> u_data: Data;
@group(2) @binding(0) var<storage, read_write> out: array<vec4<f32>, 3>;
@compute @workgroup_size(1) fn bake() { out[0] = globals.base; }
@compute @workgroup_size(1) fn lit() { out[1] = globals.base + s_data.v; }
@compute @workgroup_size(1) fn lit_uniform() { out[2] = globals.base * u_data.v; }
";

#[test]
fn a_module_whose_entry_points_share_a_binding_point_is_refused_whole_naming_both() {
    let whole = ShaderReflection::new("shadow.wgsl", freqbuf::reflect::ShaderSource::Wgsl(SHADER)).unwrap();
    let mut registry = freqbuf::Registry::new(SlotPlan::default());
    let e = registry.add(whole.clone()).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot lay out @group(0) @binding(1): `s_data` in shadow.wgsl:4:23 (var<storage, read>, used by lit) and `u_data` in \
         shadow.wgsl:5:23 (uniform block, used by lit_uniform) are both at this binding point; a pipeline \
         binds one resource there, so register each pipeline's entry points apart \
         (ShaderReflection::for_entry_points)"
    );
    let e = whole.for_entry_points(&["bake", "lights"]).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot reflect shadow.wgsl: no entry point `lights`; the module has bake, lit, lit_uniform"
    );
    // Narrowed: the pipeline's entry points and what they use, nothing else.
    let lit = whole.for_entry_points(&["lit"]).unwrap();
    assert_eq!(lit.name(), "shadow.wgsl[lit]");
    let used = lit.used_resources().map(|r| r.name.as_str()).collect::<Vec<_>>();
    assert_eq!(used, ["globals", "s_data", "out"]);
    // A pipeline that really uses both is still refused.
    let e = registry.add(whole.for_entry_points(&["lit", "lit_uniform"]).unwrap()).unwrap_err();
    assert!(common::chain(&e).contains("are both at this binding point"), "{}", common::chain(&e));
}

#[test]
fn wgpus_shadow_example_registers_per_pipeline() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/shaders/wgpu/shadow.wgsl");
    let whole = ShaderReflection::from_path(path, None).unwrap();
    let e = freqbuf::Registry::new(SlotPlan::default()).add(whole.clone()).unwrap_err();
    let text = common::chain(&e);
    assert!(text.contains("`s_lights`") && text.contains("used by fs_main_without_storage"), "{text}");
    // The example's two pipelines on a device with storage buffers, and the
    // two on one without: each set registers together.
    for pipelines in
        [[&["vs_bake"][..], &["vs_main", "fs_main"]], [&["vs_bake"], &["vs_main", "fs_main_without_storage"]]]
    {
        let mut registry = freqbuf::Registry::new(SlotPlan::default());
        for p in pipelines {
            registry.add(whole.for_entry_points(p).unwrap()).unwrap();
        }
    }
}

#[test]
fn each_pipeline_of_a_shared_binding_point_reads_its_own_data() {
    let Some(h) = gpu::device() else { return };
    let whole = ShaderReflection::new("shadow.wgsl", freqbuf::reflect::ShaderSource::Wgsl(SHADER)).unwrap();
    let base = [1.0f32, 2.0, 3.0, 4.0];
    let data = [10.0f32, 20.0, 30.0, 40.0];
    // One manager per variant of the light data, as the example picks one by device.
    for (entry, expect) in
        [("lit", [11.0f32, 22.0, 33.0, 44.0]), ("lit_uniform", [10.0f32, 40.0, 90.0, 160.0])]
    {
        let mut fb = Manager::new(&h.device, SlotPlan::default());
        let bake = fb.register(whole.for_entry_points(&["bake"]).unwrap()).unwrap();
        let lit = fb.register(whole.for_entry_points(&[entry]).unwrap()).unwrap();
        let p = fb.param("base").unwrap();
        fb.frame().set(p, &base).unwrap();
        let bytes = data.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<_>>();
        let buffer = |usage| {
            let b = h.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: 48,
                usage: usage | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            h.queue.write_buffer(&b, 0, &bytes);
            b
        };
        let light_buffer = buffer(wgpu::BufferUsages::STORAGE);
        match entry {
            "lit" => fb.frame().set_buffer("s_data", &light_buffer).unwrap(),
            _ => {
                let v = fb.param("u_data.v").unwrap();
                fb.frame().set(v, &data).unwrap();
            }
        }
        let out = buffer(wgpu::BufferUsages::STORAGE);
        h.queue.write_buffer(&out, 0, &[0u8; 48]);
        let m = fb.create_material();
        fb.material(m).set_buffer("out", &out).unwrap();
        fb.flush(&h.queue).unwrap();
        let draws = [(Draw::new(bake).material(m), "bake"), (Draw::new(lit).material(m), entry)];
        gpu::dispatch(h, &mut fb, &draws);
        let got = read_words(h, &out).into_iter().map(f32::from_bits).collect::<Vec<_>>();
        let slot = if entry == "lit" { 1 } else { 2 };
        assert_eq!(got[..4], base, "{entry}: bake read the globals");
        assert_eq!(got[slot * 4..slot * 4 + 4], expect, "{entry} read its own data at (0, 1)");
    }
}

/// Both light variants in one manager: `lit` binds the frame's storage
/// buffer at (0, 1), `lit_uniform` the frame's uniform slot there, and each
/// reads its own, whichever registered first and with all three dispatched
/// in one submit.
#[test]
fn one_manager_holds_pipelines_that_bind_different_resources_at_one_point() {
    let Some(h) = gpu::device() else { return };
    let whole = ShaderReflection::new("shadow.wgsl", freqbuf::reflect::ShaderSource::Wgsl(SHADER)).unwrap();
    let (base, s_data, u_data) =
        ([1.0f32, 2.0, 3.0, 4.0], [10.0f32, 20.0, 30.0, 40.0], [5.0f32, 6.0, 7.0, 8.0]);
    for order in [["lit", "lit_uniform"], ["lit_uniform", "lit"]] {
        let mut fb = Manager::new(&h.device, SlotPlan::default());
        let bake = fb.register(whole.for_entry_points(&["bake"]).unwrap()).unwrap();
        let first = fb.register(whole.for_entry_points(&[order[0]]).unwrap()).unwrap();
        let second = fb.register(whole.for_entry_points(&[order[1]]).unwrap()).unwrap();
        let (lit, lit_uniform) = if order[0] == "lit" { (first, second) } else { (second, first) };
        // The whole module is still refused as one pipeline.
        assert!(fb.register(whole.clone()).is_err());
        let p = fb.param("base").unwrap();
        fb.frame().set(p, &base).unwrap();
        let v = fb.param("u_data.v").unwrap();
        fb.frame().set(v, &u_data).unwrap();
        let buffer = |bytes: &[u8], usage| {
            let b = h.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: 48,
                usage: usage | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            h.queue.write_buffer(&b, 0, bytes);
            b
        };
        let storage = buffer(bytemuck::cast_slice(&s_data), wgpu::BufferUsages::STORAGE);
        fb.frame().set_buffer("s_data", &storage).unwrap();
        let out = buffer(&[0u8; 48], wgpu::BufferUsages::STORAGE);
        let m = fb.create_material();
        fb.material(m).set_buffer("out", &out).unwrap();
        fb.flush(&h.queue).unwrap();
        let draws = [
            (Draw::new(lit).material(m), "lit"),
            (Draw::new(bake).material(m), "bake"),
            (Draw::new(lit_uniform).material(m), "lit_uniform"),
        ];
        gpu::dispatch(h, &mut fb, &draws);
        let got = read_words(h, &out).into_iter().map(f32::from_bits).collect::<Vec<_>>();
        let plus = std::array::from_fn::<f32, 4, _>(|i| base[i] + s_data[i]);
        let times = std::array::from_fn::<f32, 4, _>(|i| base[i] * u_data[i]);
        assert_eq!(got, [base, plus, times].concat(), "{order:?}");
    }
}

/// wgpu's shadow example as it ships: `fs_main` (lights in a storage
/// buffer) and `fs_main_without_storage` (the same lights as a uniform
/// array) in one manager, drawn into two targets in one submit; each pixel
/// is checked against the example's lighting computed here.
#[test]
fn wgpus_shadow_example_draws_both_light_paths_from_one_manager() {
    let Some(h) = gpu::device() else { return };
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/shaders/wgpu/shadow.wgsl");
    let whole = ShaderReflection::from_path(path, None).unwrap();
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let storage = fb.register(whole.for_entry_points(&["vs_main", "fs_main"]).unwrap()).unwrap();
    let uniform =
        fb.register(whole.for_entry_points(&["vs_main", "fs_main_without_storage"]).unwrap()).unwrap();
    let identity =
        [[1.0f32, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]];
    let entity = fb.create_view();
    let p = fb.param("view_proj").unwrap();
    fb.frame().set(p, &identity).unwrap();
    let p = fb.param("world").unwrap();
    fb.view(entity).set(p, &identity).unwrap();
    let p = fb.param("num_lights").unwrap();
    fb.frame().set(p, &[1u32, 0, 0, 0]).unwrap();
    let p = fb.param("color").unwrap();
    fb.view(entity).set(p, &[1.0f32; 4]).unwrap();
    // One light: a zero projection (w = 0: no shadow lookup), above the quad.
    let light = |color: [f32; 4]| -> Vec<f32> {
        let mut l = vec![0.0f32; 16];
        l.extend([0.0, 0.0, 10.0, 1.0]);
        l.extend(color);
        l
    };
    let (red, green) = ([0.5f32, 0.0, 0.0, 1.0], [0.0f32, 0.5, 0.0, 1.0]);
    let lights = h.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("s_lights"),
        size: 96,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    h.queue.write_buffer(&lights, 0, bytemuck::cast_slice(&light(red)));
    fb.frame().set_buffer("s_lights", &lights).unwrap();
    let p = fb.param("u_lights[0].pos").unwrap();
    fb.frame().set(p, &[0.0f32, 0.0, 10.0, 1.0]).unwrap();
    let p = fb.param("u_lights[0].color").unwrap();
    fb.frame().set(p, &green).unwrap();
    let sampler = h.device.create_sampler(&wgpu::SamplerDescriptor {
        compare: Some(wgpu::CompareFunction::LessEqual),
        ..Default::default()
    });
    fb.frame().set_sampler("sampler_shadow", &sampler).unwrap();
    fb.flush(&h.queue).unwrap();

    let vertex = |data: &[i32]| {
        let b = h.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: (data.len() * 4) as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        h.queue.write_buffer(&b, 0, bytemuck::cast_slice(data));
        b
    };
    let positions = vertex(&[-1, -1, 0, 1, 3, -1, 0, 1, -1, 3, 0, 1]);
    let normals = vertex(&[0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0]);
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let pipeline = |id, fs: &str| {
        let module = fb.create_shader_module(id).unwrap();
        let attributes = [0, 1].map(|shader_location| {
            [wgpu::VertexAttribute { format: wgpu::VertexFormat::Sint32x4, offset: 0, shader_location }]
        });
        let layout = |location: usize| wgpu::VertexBufferLayout {
            array_stride: 16,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &attributes[location],
        };
        h.device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(fs),
            layout: Some(fb.pipeline_layout(id).unwrap()),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[Some(layout(0)), Some(layout(1))],
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some(fs),
                compilation_options: Default::default(),
                targets: &[Some(format.into())],
            }),
            primitive: Default::default(),
            depth_stencil: None,
            multisample: Default::default(),
            multiview_mask: None,
            cache: None,
        })
    };
    let pipelines = [
        (storage, pipeline(storage, "fs_main"), red),
        (uniform, pipeline(uniform, "fs_main_without_storage"), green),
    ];
    let size = wgpu::Extent3d { width: 4, height: 4, depth_or_array_layers: 1 };
    let usage = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
    let targets = [gpu::texture(h, format, size, usage), gpu::texture(h, format, size, usage)];
    let mut enc = h.device.create_command_encoder(&Default::default());
    for ((id, pipeline, _), target) in pipelines.iter().zip(&targets) {
        let view = target.create_view(&Default::default());
        let mut pass = gpu::color_pass(&mut enc, &view);
        pass.set_pipeline(pipeline);
        pass.set_vertex_buffer(0, positions.slice(..));
        pass.set_vertex_buffer(1, normals.slice(..));
        freqbuf::Binder::new().bind(&mut fb, &mut pass, &Draw::new(*id).view(entity)).unwrap();
        pass.draw(0..3, 0..1);
    }
    h.queue.submit([enc.finish()]);
    for ((_, _, light), target) in pipelines.iter().zip(&targets) {
        let enc = h.device.create_command_encoder(&Default::default());
        let texels = gpu::read_texture(h, enc, target, 4);
        for (i, &texel) in texels.iter().enumerate() {
            let (x, y) = ((i % 4) as f32, (i / 4) as f32);
            let (px, py) = ((x + 0.5) / 2.0 - 1.0, 1.0 - (y + 0.5) / 2.0);
            let diffuse = 10.0 / (px * px + py * py + 100.0f32).sqrt();
            let want = [0, 1, 2].map(|c| 0.05 + diffuse * light[c]);
            let got = texel.to_le_bytes();
            for c in 0..3 {
                let w = (want[c] * 255.0).round();
                assert!(
                    (f32::from(got[c]) - w).abs() <= 2.0,
                    "pixel {i} channel {c}: {got:?} against {want:?}"
                );
            }
            assert_eq!(got[3], 255);
        }
    }
}
