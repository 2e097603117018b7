//! Material families with raw shaders: each shader a family of its own by
//! default, names resolved per family, instances bound to one family, the
//! plan's sharing switch, and declarations per family.

use crate::common;

use common::gpu::{self, read_words};
use freqbuf::reflect::{ShaderReflection, ShaderSource};
use freqbuf::{BindingPoint, Draw, Frequency, Manager, Registry, Sharing, SlotPlan};

const UNLIT: &str = "struct Material { color: vec4<f32> }
@group(2) @binding(0) var<uniform> material: Material;
@group(2) @binding(1) var<storage, read_write> out: array<vec4<f32>, 1>;
@compute @workgroup_size(1) fn main() { out[0] = material.color; }";
/// `color` again, at another offset: another material type.
const LIT: &str = "struct Material { roughness: f32, color: vec4<f32> }
@group(2) @binding(0) var<uniform> material: Material;
@group(2) @binding(1) var<storage, read_write> out: array<vec4<f32>, 1>;
@compute @workgroup_size(1) fn main() { out[0] = material.color * material.roughness; }";

fn wgsl(name: &str, src: &str) -> ShaderReflection {
    ShaderReflection::new(name, ShaderSource::Wgsl(src)).unwrap()
}

#[test]
fn raw_shaders_are_families_of_their_own_and_names_resolve_per_family() {
    let mut r = Registry::new(SlotPlan::default());
    r.add(wgsl("unlit.wgsl", UNLIT)).unwrap();
    r.add(wgsl("lit.wgsl", LIT)).unwrap();
    let point = BindingPoint::new(2, 0);
    let (unlit, lit) = (r.slot_in("unlit.wgsl", point).unwrap(), r.slot_in("lit.wgsl", point).unwrap());
    assert_ne!(unlit, lit);
    assert_eq!((r[unlit].size(), r[lit].size()), (16, 32));
    let e = r.resolve("color", None).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot use parameter `color`: the blocks of families `lit.wgsl`, `unlit.wgsl` declare it; resolve it in one (Manager::param_in), or set it on a material of one (Manager::create_material_in)"
    );
    assert_eq!(r.resolve_in("lit.wgsl", "color", None).unwrap().offset(), 16);
    assert_eq!(r.resolve_in("unlit.wgsl", "color", None).unwrap().offset(), 0);
    // One module cannot declare both families' slots at one point; one family's can be.
    let e = r.declarations().unwrap_err();
    assert_eq!(
        common::chain(&e),
        "slot @group(2) @binding(0) is not supported: families `lit.wgsl` and `unlit.wgsl` each have a slot here; declare one family's slots (declarations_in)"
    );
    assert!(r.declarations_in("lit.wgsl").unwrap().contains("roughness: f32"));

    // With materials shared, as before families, the two layouts conflict,
    // and the error says how to give each its own.
    let shared = SlotPlan::default().with_sharing(Frequency::Material, Sharing::Shared);
    let mut r = Registry::new(shared);
    r.add(wgsl("unlit.wgsl", UNLIT)).unwrap();
    let e = r.add(wgsl("lit.wgsl", LIT)).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot lay out @group(2) @binding(0): material blocks are shared in this slot plan, so every shader's merge into one layout; SlotPlan::with_sharing(material, PerFamily) gives each family its own: members overlap: `color` in unlit.wgsl:2:23 is vec4<f32> at offset 0 (size 16); but `roughness` in lit.wgsl:2:23 is f32 at offset 0 (size 4)"
    );
    // Named into one family, they conflict there.
    let mut r = Registry::new(SlotPlan::default());
    r.add(wgsl("unlit.wgsl", UNLIT).with_family("basic")).unwrap();
    let e = r.add(wgsl("lit.wgsl", LIT).with_family("basic")).unwrap_err();
    assert!(
        common::chain(&e).starts_with(
            "cannot lay out @group(2) @binding(0): in family `basic`, whose shaders share one layout here: members overlap"
        ),
        "{}",
        common::chain(&e)
    );
}

/// A family no registered shader has is named as the problem, with the
/// families there are, not as an unknown member; a name in a shared slot
/// still resolves without one.
#[test]
fn an_unknown_family_is_an_error_listing_the_families() {
    let mut r = Registry::new(SlotPlan::default());
    let e = r.resolve_in("lit", "roughness", None).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot use parameter `roughness`: no registered shader is of family `lit`; the families are none (an effect's permutations register when a material, pipeline or Effects::shader first needs them)"
    );
    r.add(wgsl("unlit.wgsl", UNLIT).with_family("unlit")).unwrap();
    r.add(wgsl("lit.wgsl", LIT).with_family("lit.effect.toml")).unwrap();
    let e = r.resolve_in("lit", "roughness", None).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot use parameter `roughness`: no registered shader is of family `lit`; the families are `unlit`, `lit.effect.toml`"
    );
    assert!(r.resolve_in("lit.effect.toml", "roughness", None).is_ok());
}

#[test]
fn materials_of_a_family_set_only_its_members_and_every_draw_reads_its_own() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let unlit = fb.register(wgsl("unlit.wgsl", UNLIT)).unwrap();
    let lit = fb.register(wgsl("lit.wgsl", LIT)).unwrap();
    let buffer = || {
        h.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 16,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        })
    };
    let mut draws = Vec::new();
    for k in 0..3 {
        let v = k as f32;
        let a = fb.create_material_in("unlit.wgsl");
        // Names set on a family's material resolve in its family.
        fb.material(a).set_by_name("color", &[v, 1.0, 2.0, 3.0]).unwrap();
        let b = fb.create_material_in("lit.wgsl");
        fb.material(b).set_by_name("color", &[1.0f32, v, 1.0, 1.0]).unwrap();
        fb.material(b).set_by_name("roughness", &2.0f32).unwrap();
        let e = fb.material(a).set_by_name("roughness", &2.0f32).unwrap_err();
        assert_eq!(
            common::chain(&e),
            "cannot use parameter `roughness`: it is a member of family `lit.wgsl`, but the instance belongs to family `unlit.wgsl`"
        );
        let lit_color = fb.param_in("lit.wgsl", "color").unwrap();
        let e = fb.material(a).set(lit_color, &[0.0f32; 4]).unwrap_err();
        assert_eq!(
            common::chain(&e),
            "cannot use parameter `color`: it is a member of family `lit.wgsl`, but the instance belongs to family `unlit.wgsl`"
        );
        let (out_a, out_b) = (buffer(), buffer());
        fb.material(a).set_buffer("out", &out_a).unwrap();
        fb.material(b).set_buffer("out", &out_b).unwrap();
        draws.push((unlit, a, out_a, [v, 1.0, 2.0, 3.0]));
        draws.push((lit, b, out_b, [2.0, 2.0 * v, 2.0, 2.0]));
    }
    // A material of no family has a place in every family's slot.
    let any = fb.create_material();
    let p = fb.param_in("unlit.wgsl", "color").unwrap();
    fb.material(any).set(p, &[9.0f32; 4]).unwrap();
    let out = buffer();
    fb.material(any).set_buffer("out", &out).unwrap();
    draws.push((unlit, any, out, [9.0; 4]));
    fb.flush(&h.queue).unwrap();
    let dispatches =
        draws.iter().map(|(shader, m, _, _)| (Draw::new(*shader).material(*m), "main")).collect::<Vec<_>>();
    gpu::dispatch(h, &mut fb, &dispatches);
    for (i, (_, _, out, expect)) in draws.iter().enumerate() {
        let got = read_words(h, out).into_iter().map(f32::from_bits).collect::<Vec<_>>();
        assert_eq!(got, expect, "draw {i}");
    }
}

/// Render shaders of two families with one material member each, for draws
/// that mix a family's shader with another family's material.
const RENDER_A: &str = "struct Material { a: vec4<f32> }
@group(2) @binding(0) var<uniform> material: Material;
@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4(0.0, 0.0, 0.0, 1.0); }
@fragment fn fs() -> @location(0) vec4<f32> { return material.a; }";
const RENDER_B: &str = "struct Material { pad: f32, b: vec4<f32> }
@group(2) @binding(0) var<uniform> material: Material;
@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4(0.0, 0.0, 0.0, 1.0); }
@fragment fn fs() -> @location(0) vec4<f32> { return material.b; }";

/// A draw whose material was made in another family than the shader's is
/// refused, naming both families, by `bind`, by draw lists and by indirect
/// draws (it would read the shader family's instance at that index); a
/// material of no family is drawn with either.
#[test]
fn a_draw_with_a_material_of_another_family_is_refused_naming_both() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let sa = fb.register(wgsl("fa", RENDER_A).with_family("fa")).unwrap();
    let sb = fb.register(wgsl("fb", RENDER_B).with_family("fb")).unwrap();
    let ma = fb.create_material_in("fa");
    let any = fb.create_material();
    fb.flush(&h.queue).unwrap();
    let target = gpu::texture(
        h,
        wgpu::TextureFormat::Rgba8Unorm,
        wgpu::Extent3d { width: 1, height: 1, depth_or_array_layers: 1 },
        wgpu::TextureUsages::RENDER_ATTACHMENT,
    );
    let view = target.create_view(&Default::default());
    let mut enc = h.device.create_command_encoder(&Default::default());
    let mut pass = gpu::color_pass(&mut enc, &view);
    let says = "fb is of family `fb`, but the draw's material instance belongs to family `fa`";
    let mut binder = freqbuf::Binder::new();
    binder.bind(&mut fb, &mut pass, &Draw::new(sa).material(ma)).unwrap();
    binder.bind(&mut fb, &mut pass, &Draw::new(sb).material(any)).unwrap();
    let e = binder.bind(&mut fb, &mut pass, &Draw::new(sb).material(ma)).unwrap_err();
    assert!(matches!(e, freqbuf::Error::OtherFamily { .. }));
    assert_eq!(common::chain(&e), says);
    let draws = [Draw::new(sa).material(ma), Draw::new(sb).material(ma)];
    let mut list = fb.draw_list(&draws).unwrap();
    let e = binder.bind_list(&mut fb, &mut pass, &mut list, |_, _, _| {}).unwrap_err();
    assert_eq!(common::chain(&e), says);
    let mut args = freqbuf::IndirectDraws::new(vec![freqbuf::DrawArgs::vertices(1, 0); 2]);
    let e = binder.draw_indirect(&mut fb, &h.queue, &mut pass, &mut list, &mut args, |_, _| {}).unwrap_err();
    assert_eq!(common::chain(&e), says);
    drop(pass);
    h.queue.submit([enc.finish()]);
}

/// A later shader is compared with what an earlier one *uses* at a point,
/// not with an unused global declared there too (Bevy's meshlet raster
/// shaders import `view` at the binding their cluster array uses): this
/// was refused as "uniform block against array slot".
#[test]
fn an_unused_global_at_a_used_point_is_not_what_later_shaders_meet() {
    let source = "struct V { m: mat4x4<f32> }\nstruct Item { a: vec4<f32> }\n\
        @group(3) @binding(0) var<storage, read> items: array<Item>;\n\
        @group(3) @binding(0) var<uniform> view: V;\n\
        @group(2) @binding(0) var<storage, read_write> out: array<vec4<f32>>;\n\
        @compute @workgroup_size(1) fn main() { out[0] = items[0].a; }\n";
    let mut r = Registry::new(SlotPlan::default());
    r.add(wgsl("first.wgsl", source).with_family("m")).unwrap();
    r.add(wgsl("second.wgsl", source).with_family("m")).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
}
