//! Full-text snapshots of freqbuf's error messages, one case per variant, the
//! way naga tests its WGSL errors: a change of wording shows in review.
//! Registry-level errors are also checked through a `Manager`, which must
//! refuse the same shaders with the same text as the CLI's `Registry`.
//!
//! Not here: `ReflectErrorKind::FeatureOff` (needs a build without `glsl` or
//! `spirv`), `Error::Wgpu` (freqbuf's checks run first, so no valid input
//! reaches wgpu's validation), and `Error::SlotTooLarge`, whose full text
//! `scale.rs` checks on a device with a 1 MiB `max_buffer_size`.

use crate::common;

use common::gpu;
use freqbuf::naga::ShaderStage;
use freqbuf::reflect::{ShaderReflection, ShaderSource};
use freqbuf::{Binder, BindingPoint, Draw, Frequency, Manager, Registry, SlotPlan};

/// Collects mismatches, so that one run shows every changed message.
#[derive(Default)]
struct Snapshots(Vec<String>);

impl Snapshots {
    /// Compares the chain as anyhow prints it, and checks that the tests'
    /// own `common::chain` prints it the same.
    fn check<E: std::error::Error + Send + Sync + 'static>(&mut self, case: &str, got: E, want: &str) {
        // Debug (what `main` prints) is the report.
        assert_eq!(format!("{got:?}"), freqbuf::Report(&got).to_string(), "{case}: Debug");
        let ours = common::chain(&got);
        let got_error = anyhow::Error::new(got);
        let got = format!("{got_error:#}");
        let got_error: &(dyn std::error::Error + 'static) = got_error.as_ref();
        assert_eq!(ours, got, "{case}: common::chain and anyhow disagree");
        // Each level says only its own part: none repeats its source's message.
        let mut level: &dyn std::error::Error = &got_error;
        while let Some(source) = level.source() {
            let (own, cause) = (level.to_string(), source.to_string());
            assert!(!own.contains(&cause), "{case}: `{own}` repeats its source `{cause}`");
            level = source;
        }
        // Report's one-line form is anyhow's.
        assert_eq!(format!("{:#}", freqbuf::Report(got_error)), got, "{case}: Report's one-line form");
        if got != want {
            self.0.push(format!("{case}:\n  got:  {got:?}\n  want: {want:?}"));
        }
    }

    fn finish(self) {
        assert!(self.0.is_empty(), "{} messages changed:\n{}", self.0.len(), self.0.join("\n"));
    }
}

fn wgsl(name: &str, src: &str) -> Result<ShaderReflection, freqbuf::error::ReflectError> {
    ShaderReflection::new(name, ShaderSource::Wgsl(src))
}

fn file(name: &str) -> ShaderReflection {
    let path = format!("{}/tests/shaders/{name}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap();
    wgsl(name, &src).unwrap()
}

const FS: &str = "@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(0.0); }";

/// What `fn main() -> Result<(), E>` prints after `Error: `, for a message
/// alone, one cause and several: the Debug form, not a structure dump.
#[test]
fn debug_is_the_report() {
    let param = freqbuf::ParamError { name: "a[".into(), kind: freqbuf::error::ParamErrorKind::Malformed };
    let parse = wgsl("a.wgsl", "fn f( {").unwrap_err();
    let invalid = "@group(0) @binding(0) var<uniform> weights: array<f32, 4>;\n@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(weights[0]); }";
    let invalid = wgsl("b.wgsl", invalid).unwrap_err();
    let boxed: Box<dyn std::error::Error> = Box::new(invalid);
    let got = [format!("{param:?}"), format!("{parse:?}"), format!("{boxed:?}")];
    let want = [
        // One cause is not numbered.
        "cannot use parameter `a[`\n\nCaused by:\n    malformed path; expected `name`, `name[i]` or `name[i].field`",
        "cannot reflect a.wgsl:1:7\n\nCaused by:\n    0: WGSL parse error\n    1: expected identifier, found \"{\"",
        "cannot reflect b.wgsl:1:23\n\nCaused by:\n    0: validation error\n    1: Global variable [0] 'weights' is invalid\n    2: Alignment requirements for address space Uniform are not met by [1]\n    3: The array stride 4 is not a multiple of the required alignment 16",
    ];
    assert_eq!(got, want);
    // A freqbuf error inside another error's chain keeps its levels.
    let one = freqbuf::Error::Param(freqbuf::ParamError {
        name: "x".into(),
        kind: freqbuf::error::ParamErrorKind::Malformed,
    });
    let wrapped = std::io::Error::other(one);
    assert_eq!(
        format!("{}", freqbuf::Report(&Outer(wrapped))),
        "outer\n\nCaused by:\n    0: cannot use parameter `x`\n    1: malformed path; expected `name`, `name[i]` or `name[i].field`"
    );
}

/// Every one-level message is a sentence that says what failed: the outer
/// levels used to be bare names and sites (`parameter `x``, `a.wgsl:1:7`),
/// which a log line of `{e}` alone could not explain. `common::chain`
/// asserts this of every error the tests print; here, that the rule can fail.
#[test]
fn one_level_messages_say_what_failed() {
    use common::says_what_failed;
    for bare in [
        "parameter `x`",
        "a.wgsl:1:7",
        "@group(2) @binding(0)",
        "rows of slot @group(3) @binding(0)",
        "[A, B]",
    ] {
        assert!(!says_what_failed(bare), "{bare}");
    }
    let param = freqbuf::ParamError { name: "a[".into(), kind: freqbuf::error::ParamErrorKind::Malformed };
    let parse = wgsl("a.wgsl", "fn f( {").unwrap_err();
    assert_eq!(param.to_string(), "cannot use parameter `a[`");
    assert_eq!(parse.to_string(), "cannot reflect a.wgsl:1:7");
    assert!(says_what_failed(&param.to_string()) && says_what_failed(&parse.to_string()));
}

/// An error whose source is an io::Error wrapping a freqbuf error, for one cause.
#[derive(Debug)]
struct Outer(std::io::Error);

impl std::fmt::Display for Outer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("outer")
    }
}

impl std::error::Error for Outer {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.get_ref().map(|e| e as _)
    }
}

#[test]
fn reflection_messages() {
    let mut s = Snapshots::default();
    s.check(
        "wgsl",
        wgsl("a.wgsl", "fn f( {").unwrap_err(),
        "cannot reflect a.wgsl:1:7: WGSL parse error: expected identifier, found \"{\"",
    );
    let glsl =
        ShaderSource::Glsl { source: "#version 450\nvoid main() { x = 1; }", stage: ShaderStage::Fragment };
    s.check(
        "glsl",
        ShaderReflection::new("a.frag", glsl).unwrap_err(),
        "cannot reflect a.frag:2:15: GLSL parse error: Unknown variable: x",
    );
    s.check(
        "spirv",
        ShaderReflection::new("a.spv", ShaderSource::SpirV(&[1, 2, 3, 4, 5])).unwrap_err(),
        "cannot reflect a.spv: SPIR-V parse error: incomplete data",
    );
    let invalid = "@group(0) @binding(0) var<uniform> weights: array<f32, 4>;\n@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(weights[0]); }";
    s.check("validation", wgsl("invalid.wgsl", invalid).unwrap_err(), "cannot reflect invalid.wgsl:1:23: validation error: Global variable [0] 'weights' is invalid: Alignment requirements for address space Uniform are not met by [1]: The array stride 4 is not a multiple of the required alignment 16");
    s.check("format", ShaderReflection::from_path("shader.hlsl", None).unwrap_err(), "cannot reflect shader.hlsl: cannot tell the shader language or stage from the name; use .wgsl, .spv, .vert, .frag or .comp, or give the stage");
    s.check(
        "io",
        ShaderReflection::from_path("/nonexistent/a.wgsl", None).unwrap_err(),
        "cannot reflect /nonexistent/a.wgsl: cannot read the file: No such file or directory (os error 2)",
    );
    let deep = format!(
        "@group(0) @binding(0) var<uniform> u: {}vec4<f32>{};\n{FS}",
        "array<".repeat(65),
        ", 1>".repeat(65)
    );
    s.check(
        "too deep",
        wgsl("deep.wgsl", &deep).unwrap_err(),
        "cannot reflect deep.wgsl:1:23: uniform `u` nests structs and arrays more than 64 levels deep",
    );
    let unbound = ShaderSource::Glsl {
        source: "#version 450\nlayout(std140) uniform B { vec4 a; };\nlayout(location = 0) out vec4 o;\nvoid main() { o = a; }",
        stage: ShaderStage::Fragment,
    };
    s.check(
        "no binding",
        ShaderReflection::new("b.frag", unbound).unwrap_err(),
        "cannot reflect b.frag:2:24: GLSL parse error: uniform/buffer blocks require layout(binding=X)",
    );
    s.check(
        "unknown entry point",
        wgsl("e.wgsl", FS).unwrap().for_entry_points(&["vs"]).unwrap_err(),
        "cannot reflect e.wgsl: no entry point `vs`; the module has fs",
    );
    s.finish();
}

/// Registry errors, each also through a manager when there is a device.
#[test]
fn registry_messages() {
    let h = gpu::device();
    let mut s = Snapshots::default();
    let both = |s: &mut Snapshots, case: &str, plan: SlotPlan, shaders: &[ShaderReflection], want: &str| {
        let (last, first) = shaders.split_last().unwrap();
        // What the CLI does: WebGPU's default limits, every feature.
        let cli = |r: &mut Registry, shader: &ShaderReflection| {
            Registry::check_device(shader, &wgpu::Limits::default(), wgpu::Features::all())?;
            r.add(shader.clone())
        };
        let mut r = Registry::new(plan.clone());
        first.iter().for_each(|f| assert!(cli(&mut r, f).is_ok()));
        s.check(case, cli(&mut r, last).unwrap_err(), want);
        if let Some(h) = h {
            let mut m = Manager::new(&h.device, plan);
            first.iter().for_each(|f| assert!(m.register(f.clone()).is_ok()));
            s.check(&format!("{case} (manager)"), m.register(last.clone()).unwrap_err(), want);
        }
    };
    let plan = SlotPlan::default;
    both(
        &mut s,
        "member mismatch",
        plan(),
        &[file("frame.wgsl"), file("bad/conflict_type.wgsl")],
        "cannot lay out @group(0) @binding(0): member `time` differs: `time` in frame.wgsl:7:23 is f32 at offset 0 (size 4); but `time` in bad/conflict_type.wgsl:4:23 is vec2<f32> at offset 0 (size 8)",
    );
    both(
        &mut s,
        "overlap",
        plan(),
        &[file("frame.wgsl"), file("bad/conflict_overlap.wgsl")],
        "cannot lay out @group(0) @binding(0): members overlap: `time` in frame.wgsl:7:23 is f32 at offset 0 (size 4); but `seconds` in bad/conflict_overlap.wgsl:4:23 is f32 at offset 0 (size 4)",
    );
    // Registry only: a manager needs binding arrays, which the GL run's device lacks.
    let gmrt = |name: &str| file(name).with_family("gmrt");
    let mut r = Registry::new(plan());
    r.add(gmrt("texture_array.wgsl")).unwrap();
    s.check(
        "kind mismatch",
        r.add(gmrt("bad/conflict_count.wgsl")).unwrap_err(),
        "cannot lay out @group(2) @binding(3): `GMRTs` in texture_array.wgsl is binding_array<texture_2d<f32>, 4>, but `GMRTs` in bad/conflict_count.wgsl is texture_2d<f32>",
    );
    both(
        &mut s,
        "too large",
        plan(),
        &[file("bad/too_large.wgsl")],
        "cannot lay out @group(3) @binding(0): uniform block `huge` in bad/too_large.wgsl is 65552 bytes, over the limit of 65536 bytes (max_uniform_buffer_binding_size)",
    );
    both(
        &mut s,
        "unplanned group past the limit",
        plan(),
        &[file("bad/unplanned.wgsl")],
        "cannot register bad/unplanned.wgsl:4:23 (`x` at @group(5) @binding(0)): group 5 is past the device's last bind group (max_bind_groups = 4)",
    );
    let shared = "@group(0) @binding(0) var<uniform> a: vec4<f32>;\n@group(0) @binding(0) var t: texture_2d<f32>;\n@fragment fn fs() -> @location(0) vec4<f32> { return a; }\n@fragment fn fs_t() -> @location(0) vec4<f32> { return textureLoad(t, vec2<i32>(0), 0); }";
    both(
        &mut s,
        "two resources at one binding point",
        plan(),
        &[wgsl("shared.wgsl", shared).unwrap()],
        "cannot lay out @group(0) @binding(0): `a` in shared.wgsl:1:23 (uniform block, used by fs) and `t` in shared.wgsl:2:23 (texture_2d<f32>, used by fs_t) are both at this binding point; a pipeline binds one resource there, so register each pipeline's entry points apart (ShaderReflection::for_entry_points)",
    );
    // A pipeline linked from two files: each resource at its own file's
    // line:column, never the pipeline's name or the other part's position.
    let vs = "// vertex stage\n\n@group(0) @binding(0) var<uniform> w: vec4<f32>;\n@vertex fn vs() -> @builtin(position) vec4<f32> { return w; }";
    let fs = "@group(0) @binding(0)\n  var<uniform> v: vec4<f32>;\n@fragment fn fs() -> @location(0) vec4<f32> { return v; }";
    let link = |vs: &str, fs: &str| {
        let parts = [wgsl("link/vs.wgsl", vs).unwrap(), wgsl("link/fs.wgsl", fs).unwrap()];
        ShaderReflection::link("pipeline", &[&parts[0], &parts[1]])
    };
    both(
        &mut s,
        "link: two files at one binding point",
        plan(),
        &[link(vs, fs)],
        "cannot lay out @group(0) @binding(0): `w` in link/vs.wgsl:3:23 (uniform block, used by vs) and `v` in link/fs.wgsl:2:3 (uniform block, used by fs) are both at this binding point; a pipeline binds one resource there, so register each pipeline's entry points apart (ShaderReflection::for_entry_points)",
    );
    let time = "\n@group(0) @binding(0) var<uniform> time: vec2<f32>;\n@fragment fn fs() -> @location(0) vec4<f32> { return time.xyxy; }";
    both(
        &mut s,
        "link: a part's member against a registered shader",
        plan(),
        &[file("frame.wgsl"), link(vs.replace("@group(0)", "@group(3)").as_str(), time)],
        "cannot lay out @group(0) @binding(0): member `time` differs: `time` in frame.wgsl:7:23 is f32 at offset 0 (size 4); but `time` in link/fs.wgsl:2:23 is vec2<f32> at offset 0 (size 8)",
    );
    // The linked pipeline registered first: its part is the first side.
    both(
        &mut s,
        "link: a registered part's member against a shader",
        plan(),
        &[link(vs.replace("@group(0)", "@group(3)").as_str(), time), file("frame.wgsl")],
        "cannot lay out @group(0) @binding(0): member `time` differs: `time` in link/fs.wgsl:2:23 is vec2<f32> at offset 0 (size 8); but `time` in frame.wgsl:7:23 is f32 at offset 0 (size 4)",
    );
    // Registry only, as for "kind mismatch": the first needs binding arrays.
    let texture = "@group(2) @binding(3) var GMRTs: texture_2d<f32>;\n@fragment fn fs() -> @location(0) vec4<f32> { return textureLoad(GMRTs, vec2<i32>(0), 0); }";
    let mut r = Registry::new(plan());
    r.add(gmrt("texture_array.wgsl")).unwrap();
    let part = link(vs.replace("@group(0)", "@group(3)").as_str(), texture).with_family("gmrt");
    s.check(
        "link: a part's kind against a registered shader",
        r.add(part).unwrap_err(),
        "cannot lay out @group(2) @binding(3): `GMRTs` in texture_array.wgsl is binding_array<texture_2d<f32>, 4>, but `GMRTs` in link/fs.wgsl is texture_2d<f32>",
    );
    let frame_only = SlotPlan::empty().with_group(0, Frequency::Frame);
    let unplanned = "@group(1) @binding(0) var<uniform> x: vec4<f32>;\n@fragment fn fs() -> @location(0) vec4<f32> { return x; }";
    both(
        &mut s,
        "unplanned",
        frame_only,
        &[wgsl("unplanned.wgsl", unplanned).unwrap()],
        "cannot lay out @group(1) @binding(0): `x` in unplanned.wgsl is in no frequency of the slot plan",
    );
    let mixed = SlotPlan::default().with_point(BindingPoint::new(2, 5), Frequency::Object);
    let t = |b| format!("@group(2) @binding({b}) var t{b}: texture_2d<f32>;\n");
    let src = format!(
        "{}{}@fragment fn fs() -> @location(0) vec4<f32> {{ return textureLoad(t0, vec2<i32>(0), 0) + textureLoad(t5, vec2<i32>(0), 0); }}",
        t(0),
        t(5)
    );
    both(
        &mut s,
        "mixed group",
        mixed,
        &[wgsl("mixed.wgsl", &src).unwrap()],
        "cannot lay out @group(2) @binding(5) for mixed.wgsl: group 2 holds both material and object resources that are not uniform blocks; a bind group has one owner",
    );
    // External textures: the CLI checks with every feature, so it reaches
    // freqbuf's own refusal; a device without TEXTURE_EXTERNAL refuses first.
    let external = "@group(2) @binding(0) var img: texture_external;\n@fragment fn fs() -> @location(0) vec4<f32> { return textureLoad(img, vec2<i32>(0)); }";
    let img = wgsl("img.wgsl", external).unwrap();
    let cli = Registry::check_device(&img, &wgpu::Limits::default(), wgpu::Features::all())
        .and_then(|()| Registry::new(plan()).add(img).map(drop));
    s.check(
        "unsupported",
        cli.unwrap_err(),
        "img.wgsl is not supported: `img`: external textures are not supported",
    );

    let mut r = Registry::new(SlotPlan::default());
    for f in ["frame.wgsl", "padding.wgsl", "two_materials.wgsl", "texture_array.wgsl"] {
        r.add(file(f)).unwrap_or_else(|e| panic!("{e}"));
    }
    let param = |path: &str, f: Option<Frequency>| r.resolve(path, f).unwrap_err();
    s.check(
        "malformed",
        param("a[", None),
        "cannot use parameter `a[`: malformed path; expected `name`, `name[i]` or `name[i].field`",
    );
    s.check("unknown", param("tme", None), "cannot use parameter `tme`: unknown name; did you mean `time`?");
    s.check("ambiguous", param("color", None), "cannot use parameter `color`: 2 blocks declare it; write one of `mat_a.color`, `MatA.color`, `mat_b.color`, `MatB.color`");
    s.check(
        "index out of range",
        param("cascade_splits[5]", None),
        "cannot use parameter `cascade_splits[5]`: index 5 is out of range for `cascade_splits` (count 4)",
    );
    s.check("not an array", param("time[0]", None), "cannot use parameter `time[0]`: `time` is not an array");
    s.check(
        "needs index",
        param("lights.color", None),
        "cannot use parameter `lights.color`: `lights` is an array; give an element, as in `lights[0]`",
    );
    s.check("not a struct", param("time.x", None), "cannot use parameter `time.x`: `time` is not a struct");
    s.check(
        "wrong frequency of a name",
        param("time", Some(Frequency::Object)),
        "cannot use parameter `time`: it belongs to the frame frequency, not to object",
    );
    s.check(
        "not uniform",
        param("GMRTs", None),
        "cannot use parameter `GMRTs`: it is a texture binding, not a uniform value",
    );
    s.finish();
}

fn textures(n: u32) -> String {
    let mut src = String::new();
    for i in 0..n {
        src += &format!("@group(2) @binding({i}) var t{i}: texture_2d<f32>;\n");
    }
    let sum = (0..n).map(|i| format!("textureLoad(t{i}, vec2<i32>(0), 0)")).collect::<Vec<_>>().join(" + ");
    src + &format!("@fragment fn fs() -> @location(0) vec4<f32> {{ return {sum}; }}")
}

#[test]
fn device_limit_messages() {
    let Some(h) = gpu::device() else { return };
    let mut s = Snapshots::default();
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut reg = |src: &str| m.register_wgsl("l.wgsl", src).unwrap_err();
    let u = |g: u32, b: u32| format!("@group({g}) @binding({b}) var<uniform> u{g}_{b}: vec4<f32>;\n");
    let uses = |name: &str| format!("@fragment fn fs() -> @location(0) vec4<f32> {{ return {name}; }}");
    s.check("group", reg(&format!("{}{}", u(7, 0), uses("u7_0"))), "cannot register l.wgsl:1:23 (`u7_0` at @group(7) @binding(0)): group 7 is past the device's last bind group (max_bind_groups = 4)");
    s.check("binding", reg(&format!("{}{}", u(0, 1000), uses("u0_1000"))), "cannot register l.wgsl:1:26 (`u0_1000` at @group(0) @binding(1000)): binding number 1000 is past the device's limit (max_bindings_per_bind_group = 1000)");
    let nine = (0..9).map(|b| u(1, b)).collect::<String>();
    let sum = (0..9).map(|b| format!("u1_{b}")).collect::<Vec<_>>().join(" + ");
    s.check("per pipeline", reg(&format!("{nine}@fragment fn fs() -> @location(0) vec4<f32> {{ return {sum}; }}")), "cannot register l.wgsl: the shader uses 9 uniform blocks (dynamic uniform buffers), over the limit of 8 (max_dynamic_uniform_buffers_per_pipeline_layout)");
    s.check("per stage", reg(&textures(17)), "cannot register l.wgsl: the fragment stage uses 17 sampled textures, over the limit of 16 (max_sampled_textures_per_shader_stage)");
    let unsized_array = "enable wgpu_binding_array;\n@group(2) @binding(0) var ts: binding_array<texture_2d<f32>>;\n@fragment fn fs() -> @location(0) vec4<f32> { return textureLoad(ts[0], vec2<i32>(0), 0); }";
    // Its length comes from the device's binding-array limits: a device without binding arrays refuses it.
    if let Some(plain) = gpu::device_with(wgpu::Features::empty(), |_| {}) {
        let e = Manager::new(&plain.device, SlotPlan::default())
            .register_wgsl("l.wgsl", unsized_array)
            .unwrap_err();
        s.check("unsized binding array", e, "cannot register l.wgsl:2:23 (`ts` at @group(2) @binding(0)): a binding array without a fixed size takes its length from the device's binding-array limits, and this device has no binding arrays; give the array a length");
    }
    let beside = "enable wgpu_binding_array;\n@group(2) @binding(0) var ts: binding_array<texture_2d<f32>, 2>;\n@group(2) @binding(1) var<uniform> k: vec4<f32>;\n@fragment fn fs() -> @location(0) vec4<f32> { return textureLoad(ts[0], vec2<i32>(0), 0) * k; }";
    // Binding arrays need a feature lavapipe lacks: check this one without a device.
    let shader = wgsl("l.wgsl", beside).unwrap();
    let e = Registry::check_device(&shader, &wgpu::Limits::default(), wgpu::Features::all()).unwrap_err();
    s.check("array beside uniform", e, "cannot register l.wgsl:2:23 (`ts` at @group(2) @binding(0)): a binding array may not share its group with the uniform block `k`; move one of them");
    if !h.device.features().contains(wgpu::Features::TEXTURE_BINDING_ARRAY) {
        s.check(
            "binding array without the feature",
            reg(beside),
            "l.wgsl is not supported: `ts` is a binding array of 2, and the device lacks Features::TEXTURE_BINDING_ARRAY",
        );
    }
    let half = "enable f16;\n@group(0) @binding(0) var<uniform> u: vec4<f16>;\n@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(u); }";
    s.check("capability", reg(half), "cannot register l.wgsl: the device cannot run this shader: Type [0] '' is invalid: Using `f16` values requires the `naga::valid::Capabilities::FLOAT16` flag");
    s.finish();
}

const OBJECT: &str = "struct Object { world: mat4x4<f32>, tint: vec4<f32> }\n@group(3) @binding(0) var<uniform> object: Object;\n@group(2) @binding(0) var tex: texture_2d<f32>;\n@group(2) @binding(1) var<storage, read> data: array<vec4<f32>>;\n@fragment fn fs() -> @location(0) vec4<f32> { return object.tint * textureLoad(tex, vec2<i32>(0), 0) + data[0]; }";

#[test]
fn runtime_messages() {
    let Some(h) = gpu::device() else { return };
    let mut s = Snapshots::default();
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let id = m.register_wgsl("object.wgsl", OBJECT).unwrap();
    let tint = m.param("tint").unwrap();
    let world = m.param("world").unwrap();
    let (mat, obj) = (m.create_material(), m.create_object());
    s.check(
        "type mismatch",
        m.object(obj).set(tint, &1.0f32).unwrap_err(),
        "cannot use parameter `tint`: wrong type: the member is vec4<f32>, the value is f32",
    );
    s.check(
        "size mismatch",
        m.object(obj).set_bytes(world, &[0; 12]).unwrap_err(),
        "cannot use parameter `world`: wrong size: the member takes 64 bytes, the value has 12",
    );
    s.check(
        "wrong frequency",
        m.material(mat).set(tint, &[1.0f32; 4]).unwrap_err(),
        "cannot use parameter `tint`: it belongs to the object frequency, not to material",
    );
    let depth = gpu::texture_view(h, wgpu::TextureFormat::R32Uint, 1, None, &[0; 4]);
    s.check("incompatible", m.material(mat).set_texture("tex", &depth).unwrap_err(), "cannot use parameter `tex`: it does not fit the binding (a D2 texture view of an unfilterable float format): Texture binding 0 expects sample type Float { filterable: false }, but was given a view with format R32Uint (sample type Uint)");
    s.check(
        "not a texture",
        m.material(mat).set_texture("data", &depth).unwrap_err(),
        "cannot use parameter `data`: wrong type: the member is storage, the value is texture",
    );

    let mut encoder = h.device.create_command_encoder(&Default::default());
    let mut pass = encoder.begin_compute_pass(&Default::default());
    let mut binder = Binder::new();
    let mut bind = |m: &mut Manager, draw: Draw| binder.bind(m, &mut pass, &draw).unwrap_err();
    s.check(
        "not flushed",
        bind(&mut m, Draw::new(id).material(mat).object(obj)),
        "the object instance or slot is newer than the last flush; call flush before drawing with it",
    );
    m.flush(&h.queue).unwrap();
    s.check(
        "missing instance",
        bind(&mut m, Draw::new(id).object(obj)),
        "object.wgsl needs a material instance, and the draw gives none",
    );
    s.check(
        "unset",
        bind(&mut m, Draw::new(id).material(mat).object(obj)),
        "`data` at @group(2) @binding(1) has not been set",
    );
    let gone = m.create_object();
    m.free_object(gone).unwrap();
    s.check("stale handle", m.free_object(gone).unwrap_err(), "the object handle was freed");
    let mut other = Manager::new(&h.device, SlotPlan::default());
    let foreign = other.register_wgsl("object.wgsl", OBJECT).unwrap();
    let foreign_param = other.param("tint").unwrap();
    let _ = other.register_wgsl("second.wgsl", FS).unwrap();
    s.check(
        "foreign",
        m.object(obj).set(foreign_param, &[0.0f32; 4]).unwrap_err(),
        "this parameter belongs to another manager",
    );
    let unknown = other.register_wgsl("third.wgsl", FS).unwrap();
    s.check("unknown shader", m.pipeline_layout(unknown).unwrap_err(), "no shader of this manager has id 2");
    let _ = foreign;
    drop(pass);
    s.finish();
}
