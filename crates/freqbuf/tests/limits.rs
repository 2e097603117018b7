//! Shaders beyond the device's limits or features are typed errors, found
//! before any wgpu object is created; a failed register changes nothing.
//! Device: WebGPU default limits on lavapipe (4 groups, 8 dynamic uniform
//! buffers, 16 sampled textures per stage, 1000 bindings per group).

use crate::common;

use common::gpu;
use freqbuf::error::LimitErrorKind;
use freqbuf::{Error, Frequency, Manager, SlotPlan};

fn limit_kind(e: Error) -> LimitErrorKind {
    match e {
        Error::Limit { kind, .. } => *kind,
        e => panic!("expected a limit error, got: {e}"),
    }
}

/// Registers a valid shader after a failure: ids and layouts must still agree.
fn still_consistent(m: &mut Manager) {
    let n = m.registry().shaders().len();
    let id = m
        .register_wgsl(
            &format!("ok{n}.wgsl"),
            "@group(0) @binding(0) var<uniform> t: vec4<f32>;\n@fragment fn fs() -> @location(0) vec4<f32> { return t; }",
        )
        .unwrap();
    assert_eq!(id.index(), n, "the failed shader took no id");
    m.pipeline_layout(id).unwrap();
    m.create_shader_module(id).unwrap();
}

fn textures(group: u32, first: u32, n: u32, stage: &str, name: &str) -> String {
    let mut s = String::new();
    for i in 0..n {
        s += &format!("@group({group}) @binding({}) var {name}{i}: texture_2d<f32>;\n", first + i);
    }
    let sum =
        (0..n).map(|i| format!("textureLoad({name}{i}, vec2<i32>(0), 0)")).collect::<Vec<_>>().join(" + ");
    match stage {
        "vertex" => s + &format!("@vertex fn vs() -> @builtin(position) vec4<f32> {{ return {sum}; }}\n"),
        _ => s + &format!("@fragment fn fs() -> @location(0) vec4<f32> {{ return {sum}; }}\n"),
    }
}

#[test]
fn binding_and_group_numbers_past_the_limits_are_errors() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::new(
        &h.device,
        SlotPlan::default().with_group(4, Frequency::Object).with_group(200_000, Frequency::Object),
    );
    let e = m
        .register_wgsl("b.wgsl", "@group(0) @binding(1000) var<uniform> u: vec4<f32>;\n@fragment fn fs() -> @location(0) vec4<f32> { return u; }")
        .unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot register b.wgsl:1:26 (`u` at @group(0) @binding(1000)): binding number 1000 is past the device's limit (max_bindings_per_bind_group = 1000)"
    );
    still_consistent(&mut m);
    for group in [4u32, 200_000] {
        let src = format!(
            "@group({group}) @binding(0) var<uniform> u: vec4<f32>;\n@fragment fn fs() -> @location(0) vec4<f32> {{ return u; }}"
        );
        let e = m.register_wgsl("g.wgsl", &src).unwrap_err();
        assert_eq!(limit_kind(e), LimitErrorKind::Group { group, limit: 4 });
        still_consistent(&mut m);
    }
}

#[test]
fn too_many_uniform_blocks_or_textures_are_errors() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut src = String::new();
    for i in 0..9 {
        src += &format!("@group({}) @binding({}) var<uniform> u{i}: vec4<f32>;\n", i % 4, i / 4);
    }
    let sum = (0..9).map(|i| format!("u{i}")).collect::<Vec<_>>().join(" + ");
    src += &format!("@fragment fn fs() -> @location(0) vec4<f32> {{ return {sum}; }}");
    let e = m.register_wgsl("nine.wgsl", &src).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot register nine.wgsl: the shader uses 9 uniform blocks (dynamic uniform buffers), over the limit of 8 (max_dynamic_uniform_buffers_per_pipeline_layout)"
    );
    still_consistent(&mut m);
    let e = m.register_wgsl("t17.wgsl", &textures(2, 0, 17, "fragment", "t")).unwrap_err();
    assert_eq!(
        limit_kind(e),
        LimitErrorKind::PerStage {
            stage: "fragment",
            what: "sampled textures",
            count: 17,
            limit: 16,
            limit_name: "max_sampled_textures_per_shader_stage"
        }
    );
    still_consistent(&mut m);
}

#[test]
fn textures_split_between_stages_get_the_visibility_of_their_stage() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    // 9 textures read by the vertex stage and 9 others by the fragment stage:
    // 18 in every stage if all were visible everywhere, 9 per stage as used.
    let vs = textures(2, 0, 9, "vertex", "v");
    let fs = textures(2, 9, 9, "fragment", "f");
    let id = m.register_wgsl("split.wgsl", &format!("{vs}\n{fs}")).unwrap();
    let scope = h.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let _pipeline = gpu::render_pipeline(h, &m, id);
    let err = pollster::block_on(scope.pop());
    assert!(err.is_none(), "{err:?}");
}

#[test]
fn capabilities_the_device_lacks_are_errors_with_a_location() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    assert!(!h.device.features().contains(wgpu::Features::SHADER_F16));
    let e = m
        .register_wgsl("half.wgsl", "enable f16;\n@group(0) @binding(0) var<uniform> u: vec4<f16>;\n@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(u); }")
        .unwrap_err();
    assert!(matches!(limit_kind(e.clone()), LimitErrorKind::Capability { .. }), "{e}");
    assert!(common::chain(&e).starts_with("cannot register half.wgsl"), "{e}");
    assert!(common::chain(&e).contains("FLOAT16"), "{e}");
    still_consistent(&mut m);
    let e = m
        .register_wgsl("long.wgsl", "@group(0) @binding(0) var<uniform> u: vec2<i64>;\n@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(f32(u.x)); }")
        .unwrap_err();
    assert!(matches!(limit_kind(e.clone()), LimitErrorKind::Capability { .. }), "{e}");
    let glsl = freqbuf::reflect::ShaderReflection::new(
        "double.frag",
        freqbuf::reflect::ShaderSource::Glsl {
            source: "#version 450\nlayout(set = 0, binding = 0) uniform U { dvec4 d; };\nlayout(location = 0) out vec4 o;\nvoid main() { o = vec4(d); }",
            stage: freqbuf::naga::ShaderStage::Fragment,
        },
    )
    .unwrap();
    let e = m.register(glsl).unwrap_err();
    assert!(matches!(limit_kind(e.clone()), LimitErrorKind::Capability { .. }), "{e}");
    assert!(common::chain(&e).contains("FLOAT64"), "{e}");
    still_consistent(&mut m);
}

/// A binding array without a fixed size takes its length from the device
/// (a sixteenth of the binding-array limit, at most 1,024); a device without
/// binding arrays refuses it.
#[test]
fn unsized_binding_arrays_take_their_length_from_the_device() {
    let Some(h) = gpu::device() else { return };
    let wgsl = "enable wgpu_binding_array;\n@group(2) @binding(0) var ts: binding_array<texture_2d<f32>>;\n@fragment fn fs() -> @location(0) vec4<f32> { return textureLoad(ts[0], vec2<i32>(0), 0); }";
    if h.device.features().contains(wgpu::Features::TEXTURE_BINDING_ARRAY) {
        let mut m = Manager::new(&h.device, SlotPlan::default());
        let id = m.register_wgsl("bindless.wgsl", wgsl).unwrap();
        let len = (h.device.limits().max_binding_array_elements_per_shader_stage / 16).min(1024);
        assert_eq!(m.registry()[id].resources()[0].count, len);
    }
    let Some(plain) = gpu::device_with(wgpu::Features::empty(), |_| {}) else { return };
    let mut m = Manager::new(&plain.device, SlotPlan::default());
    let e = m.register_wgsl("bindless.wgsl", wgsl).unwrap_err();
    assert_eq!(limit_kind(e), LimitErrorKind::UnsizedBindingArray);
    still_consistent(&mut m);
}

/// Binding-array elements count against the binding-array limits only, as
/// wgpu counts them: 20 textures in an array fit a stage that allows 16
/// sampled textures, and 20 plain textures do not.
#[test]
fn binding_array_elements_count_only_against_the_binding_array_limit() {
    use freqbuf::Registry;
    use freqbuf::reflect::{ShaderReflection, ShaderSource};
    let limits = wgpu::Limits {
        max_binding_array_elements_per_shader_stage: 64,
        max_binding_array_sampler_elements_per_shader_stage: 64,
        ..wgpu::Limits::default()
    };
    let features = wgpu::Features::TEXTURE_BINDING_ARRAY
        | wgpu::Features::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING;
    let array = "enable wgpu_binding_array;\n@group(2) @binding(0) var ts: binding_array<texture_2d<f32>, 20>;\n@fragment fn fs() -> @location(0) vec4<f32> { return textureLoad(ts[0], vec2<i32>(0), 0); }";
    let s = ShaderReflection::new("array.wgsl", ShaderSource::Wgsl(array)).unwrap();
    Registry::check_device(&s, &limits, features).unwrap();
    let over = wgpu::Limits { max_binding_array_elements_per_shader_stage: 19, ..limits.clone() };
    let e = Registry::check_device(&s, &over, features).unwrap_err();
    assert!(common::chain(&e).contains("max_binding_array_elements_per_shader_stage"), "{e}");
    let plain = (0..20)
        .map(|i| format!("@group(2) @binding({i}) var t{i}: texture_2d<f32>;\n"))
        .chain(std::iter::once(format!(
            "@fragment fn fs() -> @location(0) vec4<f32> {{ return {}; }}",
            (0..20).map(|i| format!("textureLoad(t{i}, vec2<i32>(0), 0)")).collect::<Vec<_>>().join(" + ")
        )))
        .collect::<String>();
    let s = ShaderReflection::new("plain.wgsl", ShaderSource::Wgsl(&plain)).unwrap();
    let e = Registry::check_device(&s, &limits, features).unwrap_err();
    assert!(common::chain(&e).contains("max_sampled_textures_per_shader_stage"), "{e}");
}

/// WebGL2 (no `BUFFER_BINDINGS_NOT_16_BYTE_ALIGNED`) refuses a pipeline whose
/// uniform type is not a multiple of 16 bytes, by panicking in wgpu's default
/// handler; freqbuf refuses the shader first. Found by the web page's test.
#[test]
fn uniform_types_off_16_bytes_are_errors_where_the_device_needs_them() {
    let Some(h) = gpu::device() else { return };
    let webgl2 =
        wgpu::DownlevelFlags::compliant() - wgpu::DownlevelFlags::BUFFER_BINDINGS_NOT_16_BYTE_ALIGNED;
    let short = "struct Frame { phase: u32 }\n@group(0) @binding(0) var<uniform> frame: Frame;\n@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(f32(frame.phase)); }";
    let mut m = Manager::with_downlevel(&h.device, SlotPlan::default(), webgl2);
    let e = m.register_wgsl("short.wgsl", short).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot register short.wgsl:2:23 (`frame` at @group(0) @binding(0)): its type is 4 bytes, and this device needs buffer types of a multiple of 16 bytes (no DownlevelFlags::BUFFER_BINDINGS_NOT_16_BYTE_ALIGNED, as on WebGL2); pad the struct to 16 bytes"
    );
    still_consistent(&mut m);
    let padded = short.replace("phase: u32 }", "phase: u32, _pad: vec3<u32> }");
    let mut m = Manager::with_downlevel(&h.device, SlotPlan::default(), webgl2);
    m.register_wgsl("padded.wgsl", &padded).unwrap();
    // A device that allows it takes the short type as it is.
    Manager::new(&h.device, SlotPlan::default()).register_wgsl("short.wgsl", short).unwrap();
}

/// Every device rule lives in one place: `Registry::check_device` gives the
/// answer `Manager::register` gives, for every shader of the tests' corpus
/// (`tests/shaders`, its `bad/` and wgpu's examples), on a device with
/// binding arrays and on one without.
#[test]
fn check_device_answers_as_register_does() {
    let Some(h) = gpu::device() else { return };
    let Some(plain) = gpu::device_with(wgpu::Features::empty(), |_| {}) else { return };
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/shaders");
    let mut paths = Vec::new();
    for dir in ["", "/bad", "/wgpu"] {
        for entry in std::fs::read_dir(format!("{root}{dir}")).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                paths.push(path);
            }
        }
    }
    paths.sort();
    let mut compared = 0;
    for device in [&h.device, &plain.device] {
        for path in &paths {
            // Files that do not reflect never reach either check.
            let Ok(shader) = freqbuf::reflect::ShaderReflection::from_path(path, None) else { continue };
            let checked = freqbuf::Registry::check_device(&shader, &device.limits(), device.features());
            let registered = Manager::new(device, SlotPlan::default()).register(shader).map(drop);
            let text = |r: &Result<(), Error>| r.as_ref().err().map(|e| common::chain(e));
            match (&checked, &registered) {
                // The registry's own rules (a block over the uniform limit) come after the device's.
                (Ok(()), Err(Error::Layout { .. })) => {}
                _ => assert_eq!(text(&checked), text(&registered), "{}", path.display()),
            }
            compared += 1;
        }
    }
    assert!(compared > 30, "{compared} shaders compared");
    let arrays =
        freqbuf::reflect::ShaderReflection::from_path(format!("{root}/texture_array.wgsl"), None).unwrap();
    let refused = freqbuf::Registry::check_device(&arrays, &plain.device.limits(), plain.device.features());
    assert!(matches!(refused, Err(Error::Unsupported { .. })), "{refused:?}");
}
