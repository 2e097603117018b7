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
        "@group(0) @binding(1): `s_data` in shadow.wgsl:4:23 (var<storage, read>, used by lit) and `u_data` in \
         shadow.wgsl:5:23 (uniform block, used by lit_uniform) are both at this binding point; a pipeline \
         binds one resource there, so register each pipeline's entry points apart \
         (ShaderReflection::for_entry_points)"
    );
    let e = whole.for_entry_points(&["bake", "lights"]).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "shadow.wgsl: no entry point `lights`; the module has bake, lit, lit_uniform"
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
