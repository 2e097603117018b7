//! Textures, samplers and buffers are checked when set: a mismatch is a typed
//! error and the instance keeps its old resource. A texture that is only
//! loaded gets an unfilterable layout, so R32Float works.

use crate::common;

use common::gpu::{self, texel, texture_view as view};
use common::scene::{Kind, Report, Rig, TestShader};
use freqbuf::error::ParamErrorKind;
use freqbuf::{Draw, Error, Manager, SlotPlan};

const TEXTURES: TestShader = TestShader {
    tag: 51,
    wgsl: r#"
@group(2) @binding(1) var albedo: texture_2d<f32>;
@group(2) @binding(2) var samp: sampler;
@group(2) @binding(3) var height: texture_2d<f32>;
@group(2) @binding(4) var<storage, read> table: array<vec4<u32>>;
@compute @workgroup_size(1) fn main() {
    begin(51u);
    put4(textureSampleLevel(albedo, samp, vec2<f32>(0.5), 0.0));
    putf(textureLoad(height, vec2<i32>(0), 0).x);
    put(table[0].x);
}
"#,
    reports: &[
        Report { name: "albedo", kind: Kind::Vec4 },
        Report { name: "height", kind: Kind::F32 },
        Report { name: "table", kind: Kind::U32 },
    ],
};

fn incompatible(e: Error) -> String {
    match e {
        Error::Param(p) => match p.kind {
            ParamErrorKind::Incompatible { ref expected, .. } => {
                format!("{expected} | {}", crate::common::chain(&p))
            }
            k => panic!("expected Incompatible, got {k}"),
        },
        e => panic!("expected a param error, got {e}"),
    }
}

#[test]
fn resources_that_do_not_fit_are_refused_and_the_old_ones_stay() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 1);
    let id = rig.register(&h.device, &mut m, &TEXTURES);
    let mat = m.create_material();
    m.material(mat).set_texture("albedo", &texel(h, [255, 0, 0, 255])).unwrap();
    let table = h.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    h.queue.write_buffer(&table, 0, bytemuck::cast_slice(&[42u32, 0, 0, 0]));
    m.material(mat).set_buffer("table", &table).unwrap();
    // An R32Float height map read with textureLoad fits the unfilterable layout.
    m.material(mat)
        .set_texture("height", &view(h, wgpu::TextureFormat::R32Float, 1, None, bytemuck::bytes_of(&0.75f32)))
        .unwrap();

    let bad = [
        view(h, wgpu::TextureFormat::R32Float, 1, None, &[]),
        view(h, wgpu::TextureFormat::Depth32Float, 1, None, &[]),
        view(h, wgpu::TextureFormat::Rgba8Uint, 1, None, &[]),
        view(h, wgpu::TextureFormat::Rgba8Unorm, 2, Some(wgpu::TextureViewDimension::D2Array), &[]),
    ];
    for v in &bad {
        let e = incompatible(m.material(mat).set_texture("albedo", v).unwrap_err());
        assert!(e.starts_with("a D2 texture view of a filterable float format | cannot use parameter `albedo`: it does not fit the binding"), "{e}");
    }
    let cmp = h.device.create_sampler(&wgpu::SamplerDescriptor {
        compare: Some(wgpu::CompareFunction::Less),
        ..Default::default()
    });
    let e = incompatible(m.material(mat).set_sampler("samp", &cmp).unwrap_err());
    assert!(e.starts_with("a filtering sampler"), "{e}");
    let uniform_only = h.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::UNIFORM,
        mapped_at_creation: false,
    });
    let e = incompatible(m.material(mat).set_buffer("table", &uniform_only).unwrap_err());
    assert!(e.starts_with("a read-only storage buffer of at least 16 bytes"), "{e}");
    let small = h.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 4,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    incompatible(m.material(mat).set_buffer("table", &small).unwrap_err());

    m.flush(&h.queue).unwrap();
    let rec = &rig.run(h, &mut m, &[Draw::new(id).material(mat)])[0];
    let f = rec[1..6].iter().map(|&w| f32::from_bits(w)).collect::<Vec<_>>();
    assert_eq!(f, [1.0, 0.0, 0.0, 1.0, 0.75], "the red texture and the R32Float height stayed");
    assert_eq!(rec[6], 42, "the storage buffer stayed");
}

/// A storage texture is bound like any texture: a compute shader writes
/// through the one the material set (read back), a placeholder stands in
/// before one is set, and a view the binding cannot take is refused.
#[test]
fn storage_textures_are_written_through_the_view_an_instance_set() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let shader = fb
        .register_wgsl(
            "write.wgsl",
            "struct M { color: vec4<f32> }
@group(2) @binding(0) var<uniform> m: M;
@group(2) @binding(1) var out: texture_storage_2d<rgba8unorm, write>;
@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    textureStore(out, vec2<i32>(id.xy), m.color);
}",
        )
        .unwrap();
    let color = fb.param("color").unwrap();
    let (a, b) = (fb.create_material(), fb.create_material());
    fb.material(a).set(color, &[1.0f32, 0.0, 0.0, 1.0]).unwrap();
    fb.material(b).set(color, &[0.0f32, 0.0, 1.0, 1.0]).unwrap();
    let size = wgpu::Extent3d { width: 2, height: 2, depth_or_array_layers: 1 };
    let usage = wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC;
    let target = gpu::texture(h, wgpu::TextureFormat::Rgba8Unorm, size, usage);
    fb.material(a).set_texture("out", &target.create_view(&Default::default())).unwrap();
    // A sampled-only texture cannot be a storage binding: refused, `a` keeps its view.
    let sampled =
        gpu::texture(h, wgpu::TextureFormat::Rgba8Unorm, size, wgpu::TextureUsages::TEXTURE_BINDING);
    let e = fb.material(a).set_texture("out", &sampled.create_view(&Default::default())).unwrap_err();
    assert!(incompatible(e).starts_with("a D2 storage texture view of format Rgba8Unorm (WriteOnly)"));
    fb.flush(&h.queue).unwrap();
    let layout = fb.pipeline_layout(shader).unwrap();
    let module = fb.create_shader_module(shader).unwrap();
    let pipeline = h.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: Some(layout),
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let mut enc = h.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        let mut binder = freqbuf::Binder::new();
        // `b` has set nothing: its placeholder takes the writes.
        binder.bind(&mut fb, &mut pass, &Draw::new(shader).material(b)).unwrap();
        pass.dispatch_workgroups(2, 2, 1);
        binder.bind(&mut fb, &mut pass, &Draw::new(shader).material(a)).unwrap();
        pass.dispatch_workgroups(2, 2, 1);
    }
    let texels = gpu::read_texture(h, enc, &target, 4);
    assert_eq!(texels, vec![u32::from_le_bytes([255, 0, 0, 255]); 4]);
}

const PLAIN_DEPTH: TestShader = TestShader {
    tag: 52,
    wgsl: r#"
@group(2) @binding(1) var depth: texture_depth_2d;
@compute @workgroup_size(1) fn main() {
    begin(52u);
    putf(textureLoad(depth, vec2<i32>(0), 0));
}
"#,
    reports: &[Report { name: "depth", kind: Kind::F32 }],
};

/// The same material's permutation under Bevy's `MULTISAMPLED`: one binding
/// point, another texture type.
const MULTISAMPLED_DEPTH: TestShader = TestShader {
    tag: 53,
    wgsl: r#"
@group(2) @binding(1) var depth: texture_depth_multisampled_2d;
@compute @workgroup_size(1) fn main() {
    begin(53u);
    putf(textureLoad(depth, vec2<i32>(0), 3));
}
"#,
    reports: &[Report { name: "depth", kind: Kind::F32 }],
};

/// A 1×1 Depth32Float texture with `samples` samples, cleared to `value`.
fn depth(h: &freqbuf::Headless, samples: u32, value: f32) -> wgpu::TextureView {
    let t = h.device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d { width: 1, height: 1, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: samples,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Depth32Float,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let view = t.create_view(&Default::default());
    let mut enc = h.device.create_command_encoder(&Default::default());
    enc.begin_render_pass(&wgpu::RenderPassDescriptor {
        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
            view: &view,
            depth_ops: Some(wgpu::Operations {
                load: wgpu::LoadOp::Clear(value),
                store: wgpu::StoreOp::Store,
            }),
            stencil_ops: None,
        }),
        ..Default::default()
    });
    h.queue.submit([enc.finish()]);
    view
}

/// Textures may change type with a flag (Bevy's `MULTISAMPLED` switches
/// `texture_depth_2d` to `texture_depth_multisampled_2d`): both permutations
/// register at one binding point, each pipeline layout declares its own
/// type, and the material's texture is checked against the permutation it
/// is drawn with, a mismatch being a typed error, not a wgpu panic.
#[test]
fn a_texture_may_change_type_between_permutations_at_one_binding() {
    let Some(h) = gpu::device() else { return };
    if h.info.backend == wgpu::Backend::Gl {
        // wgpu panics creating the rig's pipeline: the shader reads depth with textureLoad.
        return gpu::skip_unoffered(h, "textureLoad-of-depth");
    }
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 1);
    let plain = rig.register(&h.device, &mut m, &PLAIN_DEPTH);
    let multi = rig.register(&h.device, &mut m, &MULTISAMPLED_DEPTH);
    let mat = m.create_material();
    m.material(mat).set_texture("depth", &depth(h, 1, 0.25)).unwrap();
    m.flush(&h.queue).unwrap();
    let rec = &rig.run(h, &mut m, &[Draw::new(plain).material(mat)])[0];
    assert_eq!(f32::from_bits(rec[1]), 0.25, "the plain permutation read the plain depth texture");
    // The material's flags change: its texture changes with them.
    m.material(mat).set_texture("depth", &depth(h, 4, 0.75)).unwrap();
    let rec = &rig.run(h, &mut m, &[Draw::new(multi).material(mat)])[0];
    assert_eq!(f32::from_bits(rec[1]), 0.75, "the multisampled permutation read sample 3");
    // Drawn with the other permutation, the texture does not fit: typed error.
    let e = rig.try_run(h, &mut m, &[Draw::new(plain).material(mat)]).remove(0).unwrap_err();
    let e = incompatible(e);
    assert!(e.starts_with("a D2 texture view of a depth format | cannot use parameter `depth`"), "{e}");
    // A texture that fits neither type is refused when set, naming both.
    let e = incompatible(
        m.material(mat)
            .set_texture("depth", &view(h, wgpu::TextureFormat::Rgba8Uint, 1, None, &[]))
            .unwrap_err(),
    );
    assert!(
        e.starts_with(
            "a D2 texture view of a depth format or a D2 texture view of a depth format, multisampled | cannot use parameter `depth`"
        ),
        "{e}"
    );
}

/// Which declarations may differ between shaders at one point: textures of
/// any type (Bevy's `MESHLET` reads a depth mip as an r32uint storage
/// texture), samplers of either kind, a texture in one and a sampler in
/// another (Bevy's SMAA passes), each an instance holds apart, and a storage
/// buffer read in one and written in another (Bevy's `cluster_raster`).
#[test]
fn textures_samplers_and_storage_buffer_access_may_change_at_one_point() {
    let shader = |name: &str, decl: &str, body: &str| {
        let wgsl = format!("{decl}\n@compute @workgroup_size(1) fn main() {{ {body} }}\n");
        // One family: material bindings of two families never meet.
        freqbuf::reflect::ShaderReflection::new(name, freqbuf::reflect::ShaderSource::Wgsl(&wgsl))
            .unwrap()
            .with_family("m")
    };
    let depth =
        shader("a", "@group(2) @binding(1) var t: texture_depth_2d;", "_ = textureLoad(t, vec2<i32>(0), 0);");
    let storage = shader(
        "b",
        "@group(2) @binding(1) var t: texture_storage_2d<r32uint, read>;",
        "_ = textureLoad(t, vec2<i32>(0));",
    );
    let sampler = shader(
        "c",
        "@group(2) @binding(1) var s: sampler;\n@group(2) @binding(2) var x: texture_2d<f32>;",
        "_ = textureSampleLevel(x, s, vec2<f32>(0.0), 0.0);",
    );
    let mut r = freqbuf::Registry::new(SlotPlan::default());
    r.add(depth).unwrap();
    r.add(storage).unwrap();
    r.add(sampler).unwrap();
    let block = |name: &str, access: &str| {
        shader(name, &format!("@group(2) @binding(1) var<storage, {access}> b: array<u32>;"), "_ = b[0];")
    };
    let mut r = freqbuf::Registry::new(SlotPlan::default());
    r.add(block("d", "read")).unwrap();
    r.add(block("e", "read_write")).unwrap();
}

/// One storage buffer, written by one pipeline and read by another at one
/// point: each pipeline's layout takes its own access, and what the reader
/// saw is what the writer wrote. The buffer must allow both uses: one
/// without STORAGE is refused, naming both.
#[test]
fn a_storage_buffer_written_by_one_pipeline_is_read_by_another() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let writer = m
        .register_wgsl(
            "writer.wgsl",
            "@group(0) @binding(0) var<storage, read_write> data: array<u32>;
             @compute @workgroup_size(1) fn main() { data[0] = 7u; data[1] = 9u; }",
        )
        .unwrap();
    let reader = m
        .register_wgsl(
            "reader.wgsl",
            "@group(0) @binding(0) var<storage, read> data: array<u32>;
             @group(0) @binding(1) var<storage, read_write> out: array<u32>;
             @compute @workgroup_size(1) fn main() { out[0] = data[0] * 10u + data[1]; }",
        )
        .unwrap();
    let buffer = |usage| {
        h.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 16,
            usage,
            mapped_at_creation: false,
        })
    };
    let (data, out) = (
        buffer(wgpu::BufferUsages::STORAGE),
        buffer(wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC),
    );
    let err = m.frame().set_buffer("data", &buffer(wgpu::BufferUsages::UNIFORM)).unwrap_err();
    let text = common::chain(&err);
    assert!(text.contains("parameter `data`") && text.contains(" and "), "{text}");
    m.frame().set_buffer("data", &data).unwrap();
    m.frame().set_buffer("out", &out).unwrap();
    m.flush(&h.queue).unwrap();
    gpu::dispatch(h, &mut m, &[(Draw::new(writer), "main"), (Draw::new(reader), "main")]);
    assert_eq!(gpu::read_words(h, &out)[0], 79);
}

/// Bevy's SMAA shape: one pass reads a texture at (2, 1), another samples
/// through a sampler there. One material holds both, each pipeline's bind
/// group takes its own, and what each read is checked, in one submit and
/// after the texture is replaced.
#[test]
fn a_texture_and_a_sampler_at_one_point_bind_for_their_own_pipelines() {
    let Some(h) = gpu::device() else { return };
    let out = "@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>, 2>;";
    let wgsl = |decl: &str, body: &str| {
        format!("{out}\n{decl}\n@compute @workgroup_size(1) fn main() {{ {body} }}\n")
    };
    let edges = wgsl(
        "@group(2) @binding(1) var edges: texture_2d<f32>;",
        "out[0] = textureLoad(edges, vec2<i32>(0), 0);",
    );
    let blend = wgsl(
        "@group(2) @binding(1) var s: sampler;\n@group(2) @binding(2) var area: texture_2d<f32>;",
        "out[1] = textureSampleLevel(area, s, vec2<f32>(0.5), 0.0);",
    );
    let reflect = |name: &str, src: &str| {
        freqbuf::reflect::ShaderReflection::new(name, freqbuf::reflect::ShaderSource::Wgsl(src))
            .unwrap()
            .with_family("smaa")
    };
    for edges_first in [true, false] {
        let mut fb = Manager::new(&h.device, SlotPlan::default());
        let (edge_shader, blend_shader) = if edges_first {
            let e = fb.register(reflect("edges.wgsl", &edges)).unwrap();
            (e, fb.register(reflect("blend.wgsl", &blend)).unwrap())
        } else {
            let b = fb.register(reflect("blend.wgsl", &blend)).unwrap();
            (fb.register(reflect("edges.wgsl", &edges)).unwrap(), b)
        };
        let target = h.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("out"),
            size: 32,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        fb.frame().set_buffer("out", &target).unwrap();
        let m = fb.create_material_in("smaa");
        let sampler = h.device.create_sampler(&Default::default());
        fb.material(m).set_texture("edges", &gpu::texel(h, [255, 0, 0, 255])).unwrap();
        fb.material(m).set_sampler("s", &sampler).unwrap();
        fb.material(m).set_texture("area", &gpu::texel(h, [0, 0, 255, 255])).unwrap();
        fb.flush(&h.queue).unwrap();
        let draws =
            [(Draw::new(edge_shader).material(m), "main"), (Draw::new(blend_shader).material(m), "main")];
        gpu::dispatch(h, &mut fb, &draws);
        let got = gpu::read_words(h, &target).into_iter().map(f32::from_bits).collect::<Vec<_>>();
        assert_eq!(got, [1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0], "edges first: {edges_first}");
        // A new edges texture reaches the edge pass only.
        fb.material(m).set_texture("edges", &gpu::texel(h, [0, 255, 0, 255])).unwrap();
        gpu::dispatch(h, &mut fb, &draws);
        let got = gpu::read_words(h, &target).into_iter().map(f32::from_bits).collect::<Vec<_>>();
        assert_eq!(got, [0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0]);
    }
}
