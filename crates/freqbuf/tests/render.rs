//! Render passes: vertex and fragment stages read shared slots, materials bind
//! their own textures and samplers, and what the shaders saw is read back.

use crate::common;

use common::gpu::{self, read_words, render_pipeline, texel};
use common::scene::{Kind, Report, Rig, TestShader};
use freqbuf::{BindCalls, Binder, Draw, Manager, SlotPlan};

const SHADER: &str = r#"
struct Frame { time: f32, frame_index: u32 }
struct Material { color: vec4<f32>, roughness: f32 }
struct Object { world: mat4x4<f32>, id: u32 }
struct Out { counter: atomic<u32>, words: array<u32> }
@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read_write> out: Out;
@group(2) @binding(0) var<uniform> material: Material;
@group(2) @binding(1) var albedo: texture_2d<f32>;
@group(2) @binding(2) var albedo_sampler: sampler;
@group(3) @binding(0) var<uniform> object: Object;

struct VsOut { @builtin(position) pos: vec4<f32>, @location(0) @interpolate(flat) id: u32 }

@vertex fn vs(@builtin(vertex_index) i: u32) -> VsOut {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return VsOut(vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0), object.id);
}

@fragment fn fs(v: VsOut) -> @location(0) vec4<f32> {
    let b = atomicAdd(&out.counter, 1u) * 4u;
    out.words[b] = v.id;
    out.words[b + 1u] = bitcast<u32>(frame.time);
    out.words[b + 2u] = pack4x8unorm(textureSampleLevel(albedo, albedo_sampler, vec2<f32>(0.5), 0.0));
    out.words[b + 3u] = pack4x8unorm(material.color);
    return material.color;
}
"#;

const ARRAY_SHADER: &str = r#"
enable wgpu_binding_array;
struct Out { counter: atomic<u32>, words: array<u32> }
@group(0) @binding(1) var<storage, read_write> out: Out;
@group(2) @binding(3) var GMRTs: binding_array<texture_2d<f32>, 4>;
@group(3) @binding(0) var<uniform> object_id: vec4<u32>;

@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

@fragment fn fs() -> @location(0) vec4<f32> {
    let b = atomicAdd(&out.counter, 1u) * 4u;
    out.words[b] = object_id.x;
    out.words[b + 1u] = pack4x8unorm(textureLoad(GMRTs[1], vec2<i32>(0), 0));
    out.words[b + 2u] = pack4x8unorm(textureLoad(GMRTs[2], vec2<i32>(0), 0));
    out.words[b + 3u] = 0u;
    return vec4<f32>(1.0);
}
"#;

struct Target {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    out: wgpu::Buffer,
}

fn target(h: &freqbuf::Headless) -> Target {
    let texture = h.device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d { width: 1, height: 1, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = texture.create_view(&Default::default());
    let out = h.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 4 + 16 * 64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    Target { texture, view, out }
}

/// Draws once per entry, 3 vertices each, and returns the records and the final pixel.
fn render(
    h: &freqbuf::Headless,
    m: &mut Manager,
    t: &Target,
    p: &wgpu::RenderPipeline,
    draws: &[Draw],
) -> (Vec<[u32; 4]>, [u8; 4]) {
    let mut enc = h.device.create_command_encoder(&Default::default());
    enc.clear_buffer(&t.out, 0, None);
    {
        let mut pass = gpu::color_pass(&mut enc, &t.view);
        pass.set_pipeline(p);
        let mut binder = Binder::new();
        for d in draws {
            binder.bind(m, &mut pass, d).unwrap_or_else(|e| panic!("{e}"));
            pass.draw(0..3, 0..1);
        }
    }
    let pixel = h.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 256,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    enc.copy_texture_to_buffer(
        t.texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &pixel,
            layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(256), rows_per_image: None },
        },
        wgpu::Extent3d { width: 1, height: 1, depth_or_array_layers: 1 },
    );
    h.queue.submit([enc.finish()]);
    let words = read_words(h, &t.out);
    assert_eq!(words[0] as usize, draws.len(), "one fragment per draw");
    let recs = (0..draws.len())
        .map(|i| [words[1 + 4 * i], words[2 + 4 * i], words[3 + 4 * i], words[4 + 4 * i]])
        .collect();
    let px = read_words(h, &pixel)[0].to_le_bytes();
    (recs, px)
}

#[test]
fn materials_bind_their_textures_and_both_stages_see_the_slots() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let t = target(h);
    let id = m.register_wgsl("lit.wgsl", SHADER).unwrap();
    m.frame().set_buffer("out", &t.out).unwrap();
    let p = render_pipeline(h, &m, id);
    let time = m.param("time").unwrap();
    let color = m.param("color").unwrap();
    let oid = m.param("id").unwrap();
    m.frame().set(time, &3.25f32).unwrap();

    let texels = [[255u8, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]];
    let colors = [[1.0f32, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]];
    let sampler = h.device.create_sampler(&Default::default());
    let mats = (0..3)
        .map(|i| {
            let mat = m.create_material();
            m.material(mat).set(color, &colors[i]).unwrap();
            if i < 2 {
                m.material(mat).set_texture("albedo", &texel(h, texels[i])).unwrap();
                m.material(mat).set_sampler("albedo_sampler", &sampler).unwrap();
            }
            mat
        })
        .collect::<Vec<_>>();
    let objs = (0..6u32)
        .map(|i| {
            let o = m.create_object();
            m.object(o).set(oid, &(100 + i)).unwrap();
            o
        })
        .collect::<Vec<_>>();
    m.flush(&h.queue).unwrap();
    let draws = objs
        .iter()
        .enumerate()
        .map(|(i, &o)| Draw::new(id).material(mats[i / 2]).object(o))
        .collect::<Vec<_>>();
    let (recs, px) = render(h, &mut m, &t, &p, &draws);
    let mut recs = recs;
    recs.sort();
    for (i, rec) in recs.iter().enumerate() {
        let mat = i / 2;
        assert_eq!(rec[0], 100 + i as u32, "the vertex stage saw object.id");
        assert_eq!(f32::from_bits(rec[1]), 3.25);
        // Material 2 set no texture: the placeholder is zero.
        let tex = if mat < 2 { u32::from_le_bytes(texels[mat]) } else { 0 };
        assert_eq!(rec[2], tex, "draw {i} sampled its material's texture");
        let c = colors[mat].map(|x| (x * 255.0) as u8);
        assert_eq!(rec[3], u32::from_le_bytes(c));
    }
    assert_eq!(px, [0, 0, 255, 255], "the last draw's material colour reached the target");
    // Group 0 once, the empty group 1 (no view here) once, group 2 once per
    // material (draws are sorted by material), group 3 at every draw.
    let frame = m.take_stats();
    let s = frame.total();
    assert_eq!(s.set_bind_group_calls, 1 + 1 + 3 + 6, "{s:?}");
    // Each call once by group and once by reason: four first binds, the
    // materials' own bind groups (they own textures), the objects' offsets.
    assert_eq!(breakdown(&frame.bind_calls), ([1, 1, 3, 6, 0, 0, 0, 0], [4, 0, 2, 5, 0]));

    // Replacing a texture rebuilds that material's bind group only.
    m.material(mats[0]).set_texture("albedo", &texel(h, [9, 9, 9, 9])).unwrap();
    m.flush(&h.queue).unwrap();
    let (recs, _) = render(h, &mut m, &t, &p, &draws[..1]);
    assert_eq!(recs[0][2], u32::from_le_bytes([9, 9, 9, 9]));
    assert_eq!(m.take_stats().total().bind_groups_created, 1);

    // Resource errors: unknown names suggest, indexes are checked.
    let err = m.material(mats[0]).set_texture("albedo_tex", &texel(h, [0; 4])).unwrap_err();
    assert!(common::chain(&err).contains("`albedo`"), "{err}");
    let err = m.material(mats[0]).set_texture("albedo[1]", &texel(h, [0; 4])).unwrap_err();
    assert!(common::chain(&err).contains("not an array"), "{err}");
    let err = m.object(objs[0]).set_texture("albedo", &texel(h, [0; 4])).unwrap_err();
    assert!(common::chain(&err).contains("material"), "{err}");
}

#[test]
fn binding_array_elements_are_set_by_index() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let shader = freqbuf::reflect::ShaderReflection::new(
        "gmrt.wgsl",
        freqbuf::reflect::ShaderSource::Wgsl(ARRAY_SHADER),
    )
    .unwrap();
    if !h.device.features().contains(wgpu::Features::TEXTURE_BINDING_ARRAY) {
        let err = m.register(shader).unwrap_err();
        assert!(err.to_string().contains("TEXTURE_BINDING_ARRAY"), "{err}");
        // The error is checked; what the elements hold needs the feature.
        return gpu::skip_unoffered(h, "TEXTURE_BINDING_ARRAY");
    }
    let t = target(h);
    let id = m.register(shader).unwrap();
    m.frame().set_buffer("out", &t.out).unwrap();
    let p = render_pipeline(h, &m, id);
    let mat = m.create_material();
    let o = m.create_object();
    m.object(o).set_by_name("object_id", &[77u32, 0, 0, 0]).unwrap();
    m.material(mat).set_texture("GMRTs[2]", &texel(h, [1, 2, 3, 4])).unwrap();
    let err = m.material(mat).set_texture("GMRTs[4]", &texel(h, [0; 4])).unwrap_err();
    assert!(common::chain(&err).contains("out of range"), "{err:?}");
    let err = m.material(mat).set_texture("GMRTs", &texel(h, [0; 4])).unwrap_err();
    assert!(common::chain(&err).contains("GMRTs[0]"), "{err:?}");
    m.flush(&h.queue).unwrap();
    let (recs, _) = render(h, &mut m, &t, &p, &[Draw::new(id).material(mat).object(o)]);
    assert_eq!(recs[0][0], 77);
    assert_eq!(recs[0][1], 0, "element 1 is the placeholder");
    assert_eq!(recs[0][2], u32::from_le_bytes([1, 2, 3, 4]), "element 2 is the texture set as GMRTs[2]");
}

#[test]
fn binding_arrays_without_the_feature_are_a_clear_error() {
    if gpu::device().is_none() {
        return;
    }
    // A device that does not enable TEXTURE_BINDING_ARRAY, whatever the adapter offers.
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: (wgpu::Backends::VULKAN | wgpu::Backends::GL).with_env(),
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).expect("an adapter");
    let (device, _queue) = pollster::block_on(adapter.request_device(&Default::default())).expect("a device");
    let mut m = Manager::new(&device, SlotPlan::default());
    let shader = freqbuf::reflect::ShaderReflection::new(
        "gmrt.wgsl",
        freqbuf::reflect::ShaderSource::Wgsl(ARRAY_SHADER),
    )
    .unwrap();
    let err = m.register(shader).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, freqbuf::Error::Unsupported { .. }), "{text}");
    assert!(
        text.contains("gmrt.wgsl") && text.contains("GMRTs") && text.contains("TEXTURE_BINDING_ARRAY"),
        "{text}"
    );
    assert_eq!(m.registry().shaders().len(), 0, "nothing was registered");
}

/// `var<immediate>` data: the pipeline layout gets the shader's immediate
/// size, and what `set_immediates` sets reaches the shader beside freqbuf's
/// slots. A device without the feature, or with too small a limit, is a
/// typed error at register.
#[test]
fn immediates_reach_the_shader_through_the_pipeline_layout() {
    const SHADER: &str = "struct M { scale: vec4<f32> }
@group(2) @binding(0) var<uniform> m: M;
@group(2) @binding(1) var<storage, read_write> out: array<vec4<f32>, 1>;
var<immediate> k: vec4<f32>;
@compute @workgroup_size(1) fn main() { out[0] = k * m.scale; }";
    let Some(plain) = gpu::device() else { return };
    let e = Manager::new(&plain.device, SlotPlan::default()).register_wgsl("imm.wgsl", SHADER).unwrap_err();
    assert!(common::chain(&e).contains("IMMEDIATE"), "{}", common::chain(&e));
    let Some(h) = gpu::device_with(wgpu::Features::IMMEDIATES, |l| l.max_immediate_size = 16) else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let shader = fb.register_wgsl("imm.wgsl", SHADER).unwrap();
    assert_eq!(fb.registry()[shader].immediate_size(), 16);
    let wide = SHADER
        .replace("var<immediate> k: vec4<f32>;", "var<immediate> k: array<vec4<f32>, 2>;")
        .replace("k * m", "k[1] * m");
    let e = fb.register_wgsl("wide.wgsl", &wide).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot register wide.wgsl: the shader reads 32 bytes of immediate data, over the limit of 16 (max_immediate_size)"
    );
    let mat = fb.create_material();
    let scale = fb.param("scale").unwrap();
    fb.material(mat).set(scale, &[2.0f32, 3.0, 4.0, 5.0]).unwrap();
    let out = h.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    fb.material(mat).set_buffer("out", &out).unwrap();
    fb.flush(&h.queue).unwrap();
    let module = fb.create_shader_module(shader).unwrap();
    let pipeline = h.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: Some(fb.pipeline_layout(shader).unwrap()),
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let mut enc = h.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        Binder::new().bind(&mut fb, &mut pass, &Draw::new(shader).material(mat)).unwrap();
        let k = [1.0f32, 10.0, 100.0, 1000.0].iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<_>>();
        pass.set_immediates(0, &k);
        pass.dispatch_workgroups(1, 1, 1);
    }
    h.queue.submit([enc.finish()]);
    let got = read_words(&h, &out).into_iter().map(f32::from_bits).collect::<Vec<_>>();
    assert_eq!(got, [2.0, 30.0, 400.0, 5000.0]);
}

const ONE_BLOCK: TestShader = TestShader {
    tag: 41,
    wgsl: r#"
struct MatA { color: vec4<f32> }
@group(2) @binding(0) var<uniform> mat_a: MatA;
@compute @workgroup_size(1) fn main() { begin(41u); put4(mat_a.color); }
"#,
    reports: &[Report { name: "color", kind: Kind::Vec4 }],
};

const TWO_BLOCKS_AT_2: TestShader = TestShader {
    tag: 42,
    wgsl: r#"
struct MatA { color: vec4<f32> }
struct MatB { rough: f32 }
@group(2) @binding(0) var<uniform> mat_a: MatA;
@group(2) @binding(2) var<uniform> mat_b: MatB;
@compute @workgroup_size(1) fn main() { begin(42u); put4(mat_a.color); putf(mat_b.rough); }
"#,
    reports: &[Report { name: "color", kind: Kind::Vec4 }, Report { name: "rough", kind: Kind::F32 }],
};

/// A shader switch binds again only where the layouts differ, and the
/// statistics say so: `layout` for the other shader's group 2, `offsets`
/// for another material in the same uniform slot, `first` for a new pass.
#[test]
fn bind_calls_say_why_each_was_made() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 8);
    let one = rig.register(&h.device, &mut m, &ONE_BLOCK);
    let two = rig.register(&h.device, &mut m, &TWO_BLOCKS_AT_2);
    let color = m.param("color").unwrap();
    let mats = [m.create_material(), m.create_material()];
    m.material(mats[0]).set(color, &[1.0f32; 4]).unwrap();
    m.material(mats[1]).set(color, &[2.0f32; 4]).unwrap();
    m.flush(&h.queue).unwrap();
    m.take_stats();
    let draws = [(one, 0), (two, 0), (two, 1), (one, 1)].map(|(s, k)| Draw::new(s).material(mats[k]));
    let seen = rig.run(h, &mut m, &draws);
    assert_eq!(seen.iter().map(|r| f32::from_bits(r[1])).collect::<Vec<_>>(), [1.0, 1.0, 2.0, 2.0]);
    let frame = m.take_stats();
    // Group 1, the gap before the material group, is bound once, empty.
    assert_eq!(breakdown(&frame.bind_calls), ([1, 1, 4, 0, 0, 0, 0, 0], [3, 2, 0, 1, 0]));
    assert_eq!(frame.total().set_bind_group_calls, frame.bind_calls.total());
}

/// Calls by group, and by reason: first, layout, new group, offsets, replayed.
fn breakdown(c: &BindCalls) -> ([u64; 8], [u64; 5]) {
    (c.by_group(), [c.first(), c.layout(), c.new_group(), c.offsets(), c.replayed()])
}
