//! Reflection, name normalization, slot planning and merging, on the shader corpus
//! in `tests/shaders`.

use crate::common;

use common::rules::{Field, Rules, Ty, align_size, f, field_offsets, stride};
use freqbuf::error::{LayoutErrorKind, ParamErrorKind, ReflectErrorKind};
use freqbuf::naga::ShaderStage;
use freqbuf::reflect::{Member, MemberType, ResourceKind, ShaderReflection, ShaderSource};
use freqbuf::{BindingPoint, Error, Frequency, Registry, SlotPlan};

fn shader(name: &str) -> ShaderReflection {
    let path = format!("{}/tests/shaders/{name}", env!("CARGO_MANIFEST_DIR"));
    ShaderReflection::from_path(&path, None).unwrap_or_else(|e| panic!("{e}"))
}

/// The files registered together, as one family: their material blocks merge.
fn registry(names: &[&str]) -> Registry {
    let mut r = Registry::new(SlotPlan::default());
    for n in names {
        r.add(shader(n).with_family("corpus")).unwrap_or_else(|e| panic!("{e}"));
    }
    r
}

fn source(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/shaders/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Checks reflected members against the fields and the rules, recursively.
fn check_members(members: &[Member], fields: &[Field], rules: Rules, base: &str) {
    let offsets = field_offsets(fields, rules);
    let members = members.iter().filter(|m| !m.name.starts_with("_pad")).collect::<Vec<_>>();
    assert_eq!(members.len(), fields.len(), "{base}: member count");
    for ((m, fl), off) in members.iter().zip(fields).zip(offsets) {
        let what = format!("{base}.{}", fl.name);
        assert_eq!(m.name, fl.name, "{what}: name");
        assert_eq!(m.offset, off, "{what}: offset");
        assert_eq!(m.size, align_size(&fl.ty, rules).1, "{what}: size");
        let elem = match &fl.ty {
            Ty::Array(e, n) => {
                assert_eq!(m.count, *n, "{what}: count");
                assert_eq!(m.stride, stride(&fl.ty, rules), "{what}: stride");
                e.as_ref()
            }
            t => {
                assert_eq!((m.count, m.stride), (1, 0), "{what}: not an array");
                t
            }
        };
        if let Ty::Struct(name, sub) = elem {
            let MemberType::Struct { name: n, fields, size } = &m.ty else { panic!("{what}: not a struct") };
            assert_eq!(n, name);
            assert_eq!(*size, align_size(elem, rules).1, "{what}: struct size");
            check_members(fields, sub, rules, &what);
        } else {
            assert_eq!(m.ty.size(), align_size(elem, rules).1, "{what}: element size");
        }
    }
}

fn light() -> Ty {
    Ty::Struct(
        "Light",
        vec![
            f("position", Ty::Vec(3)),
            f("radius", Ty::Scalar),
            f("color", Ty::Vec(3)),
            f("kind", Ty::Scalar),
        ],
    )
}

/// The fields of `Object` in `tests/shaders/padding.wgsl`, as written there.
fn object_fields() -> Vec<Field> {
    let inner = Ty::Struct("Inner", vec![f("a", Ty::Vec(2)), f("b", Ty::Scalar)]);
    let outer = Ty::Struct(
        "Outer",
        vec![
            f("x", Ty::Scalar),
            Field { name: "inner", ty: inner, align_attr: Some(16) },
            f("y", Ty::Scalar),
        ],
    );
    vec![
        f("world", Ty::Mat(4, 4)),
        f("tint", Ty::Vec(3)),
        f("alpha", Ty::Scalar),
        f("normal_mat", Ty::Mat(3, 3)),
        f("nested", outer),
        f("lights", Ty::Array(Box::new(light()), 4)),
        f("flag", Ty::Scalar),
    ]
}

#[test]
fn wgsl_padding_follows_the_wgsl_rules() {
    let s = shader("padding.wgsl");
    let object = s.resource(BindingPoint::new(3, 0)).unwrap();
    let block = object.block.as_ref().unwrap();
    let fields = object_fields();
    check_members(&block.members, &fields, Rules::Wgsl, "Object");
    assert_eq!(block.size, align_size(&Ty::Struct("Object", fields), Rules::Wgsl).1);
    // vec3 followed by f32 packs into one 16-byte row.
    assert_eq!(block.members[2].offset, block.members[1].offset + 12);
    assert_eq!(block.members[3].ty.name(), "mat3x3<f32>");
    assert_eq!(block.members[3].size, 48);
    assert_eq!(block.members[5].ty.name(), "Light");
}

#[test]
fn glsl_std140_padding() {
    let s = shader("frame.vert");
    let padded = s.resource(BindingPoint::new(1, 2)).unwrap();
    assert_eq!(padded.name, "padded");
    let fields = vec![
        f("dir", Ty::Vec(3)),
        f("intensity", Ty::Scalar),
        f("weights", Ty::Array(Box::new(Ty::Scalar), 3)),
        f("basis", Ty::Mat(3, 3)),
        f("tail", Ty::Vec(4)),
    ];
    let block = padded.block.as_ref().unwrap();
    check_members(&block.members, &fields, Rules::Std140, "Padded");
    assert_eq!(block.size, align_size(&Ty::Struct("Padded", fields), Rules::Std140).1);
    // std140 strides a float array at 16 bytes, unlike a packed array.
    assert_eq!(block.members[2].stride, 16);
}

#[test]
fn glsl_block_without_instance_name_takes_its_type_name() {
    let s = shader("frame.vert");
    assert_eq!(s.resource(BindingPoint::new(0, 0)).unwrap().name, "Frame");
    assert_eq!(s.entry_points()[0].stage, ShaderStage::Vertex);
}

#[test]
fn non_struct_uniform_is_one_member_named_after_the_variable() {
    let s = shader("padding.wgsl");
    let r = s.resource(BindingPoint::new(0, 3)).unwrap();
    let block = r.block.as_ref().unwrap();
    assert_eq!(block.members.len(), 1);
    let m = &block.members[0];
    let ty = Ty::Array(Box::new(Ty::Vec(4)), 4);
    assert_eq!((m.name.as_str(), m.offset, m.count), ("cascade_splits", 0, 4));
    assert_eq!(m.stride, stride(&ty, Rules::Wgsl));
    assert_eq!(m.size, align_size(&ty, Rules::Wgsl).1);
    assert_eq!(m.ty.name(), "vec4<f32>");
}

#[test]
fn wgsl_and_glsl_declare_the_same_block() {
    let r = registry(&["frame.wgsl", "frame.vert"]);
    let slot = &r[r.slot_at(BindingPoint::new(0, 0)).unwrap()];
    let fields = vec![
        f("time", Ty::Scalar),
        f("delta", Ty::Scalar),
        f("resolution", Ty::Vec(2)),
        f("view_proj", Ty::Mat(4, 4)),
    ];
    let members = slot.members().iter().map(|m| m.member.clone()).collect::<Vec<_>>();
    check_members(&members, &fields, Rules::Wgsl, "Frame");
    check_members(&members, &fields, Rules::Std140, "Frame");
    assert_eq!(slot.users().len(), 2);
    assert_eq!(slot.frequency(), Frequency::Frame);
}

#[test]
fn prefix_and_subset_declarations_merge() {
    let r = registry(&["prefix_short.wgsl", "subset.wgsl", "prefix_full.wgsl"]);
    let slot = &r[r.slot_at(BindingPoint::new(2, 0)).unwrap()];
    let names = slot.members().iter().map(|m| m.member.name.as_str()).collect::<Vec<_>>();
    assert_eq!(names, ["base_color", "roughness", "metallic", "emissive", "uv_scale"]);
    let full = Ty::Struct(
        "Mat",
        vec![
            f("base_color", Ty::Vec(4)),
            f("roughness", Ty::Scalar),
            f("metallic", Ty::Scalar),
            f("emissive", Ty::Vec(3)),
            f("uv_scale", Ty::Vec(2)),
        ],
    );
    assert_eq!(slot.size(), align_size(&full, Rules::Wgsl).1);
    assert_eq!(slot.users().len(), 3);
    assert_eq!(slot.frequency(), Frequency::Material);
    // A prefix alone gives a smaller slot; the full declaration grows it.
    let short = registry(&["prefix_short.wgsl"]);
    assert!(short[short.slot_at(BindingPoint::new(2, 0)).unwrap()].size() < slot.size());
}

#[test]
fn high_binding_numbers_keep_their_binding() {
    let r = registry(&["frame.wgsl", "high_binding.wgsl"]);
    assert!(r.slot_at(BindingPoint::new(1, 0)).is_none());
    let id = r.slot_at(BindingPoint::new(1, 13)).expect("slot at binding 13");
    assert_eq!(r[id].binding(), BindingPoint::new(1, 13));
    assert_eq!(r[id].frequency(), Frequency::View);
}

#[test]
fn texture_binding_arrays_have_counts_and_bare_names() {
    let s = shader("texture_array.wgsl");
    let t = s.resource(BindingPoint::new(2, 3)).unwrap();
    assert_eq!(t.name, "GMRTs");
    assert_eq!(t.count, 4);
    assert!(matches!(t.kind, ResourceKind::Texture { .. }));
    let smp = s.resource(BindingPoint::new(2, 4)).unwrap();
    assert_eq!((smp.kind.as_str(), smp.count), ("sampler", 1));
    assert_eq!(s.entry_points()[0].name, "fs");
    assert_eq!(t.users, [0]);
}

#[test]
fn unused_blocks_neither_create_nor_change_slots() {
    let s = shader("unused.wgsl");
    let unused = s.unused_blocks().map(|r| r.name.clone()).collect::<Vec<_>>();
    assert_eq!(unused, ["debug_view"]);
    let r = registry(&["unused.wgsl", "frame.wgsl"]);
    assert!(r.slot_at(BindingPoint::new(1, 0)).is_none());
    // `debug_view` would conflict with a real view block at (1, 0), but is ignored.
    let mut r = registry(&["unused.wgsl"]);
    let view = ShaderReflection::new(
        "view.wgsl",
        ShaderSource::Wgsl(
            "@group(1) @binding(0) var<uniform> v: vec4<f32>;\n@vertex fn vs() -> @builtin(position) vec4<f32> { return v; }",
        ),
    )
    .unwrap();
    r.add(view).unwrap();
}

#[test]
fn spirv_and_naga_modules_reflect_like_their_wgsl() {
    let text = source("padding.wgsl");
    let module = freqbuf::naga::front::wgsl::parse_str(&text).unwrap();
    let info =
        freqbuf::naga::valid::Validator::new(Default::default(), freqbuf::naga::valid::Capabilities::all())
            .validate(&module)
            .unwrap();
    let options =
        naga::back::spv::Options { flags: naga::back::spv::WriterFlags::DEBUG, ..Default::default() };
    let words = naga::back::spv::write_vec(&module, &info, &options, None).unwrap();
    let bytes = words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<_>>();
    let from_spv = ShaderReflection::new("padding.spv", ShaderSource::SpirV(&bytes)).unwrap();
    let from_wgsl = shader("padding.wgsl");
    let from_naga = ShaderReflection::from_module("padding", module).unwrap();
    let blocks = |s: &ShaderReflection| {
        s.resources().iter().map(|r| (r.binding, r.block.clone().map(|b| b.members))).collect::<Vec<_>>()
    };
    assert_eq!(blocks(&from_naga), blocks(&from_wgsl));
    let spv_object = from_spv.resource(BindingPoint::new(3, 0)).unwrap().block.clone().unwrap();
    let wgsl_object = from_wgsl.resource(BindingPoint::new(3, 0)).unwrap().block.clone().unwrap();
    // naga's SPIR-V writer wraps every uniform in a one-member `Block` struct
    // (glslang does not); the wrapped struct must have the WGSL layout.
    assert_eq!(spv_object.members.len(), 1);
    let MemberType::Struct { fields, size, .. } = &spv_object.members[0].ty else { panic!("not wrapped") };
    assert_eq!(*size, wgsl_object.size);
    // SPIR-V records no struct's trailing padding, so a nested struct's size can
    // come back smaller; offsets, counts and strides must all agree.
    let offsets = |ms: &[Member]| {
        ms.iter()
            .map(|m| (m.name.clone(), m.offset, m.count, m.stride, m.ty.name().to_owned()))
            .collect::<Vec<_>>()
    };
    assert_eq!(offsets(fields), offsets(&wgsl_object.members));
}

#[test]
fn names_resolve_with_indices_and_fields() {
    let r = registry(&["padding.wgsl"]);
    let p = r.resolve("lights[3].color", None).unwrap();
    let light_fields = match light() {
        Ty::Struct(_, fl) => fl,
        _ => unreachable!(),
    };
    // Offset of `lights` in Object, from the rules.
    let object_fields_offset = field_offsets(&object_fields(), Rules::Wgsl)[5];
    let light_stride = align_size(&light(), Rules::Wgsl).1;
    assert_eq!(
        p.offset(),
        object_fields_offset + 3 * light_stride + field_offsets(&light_fields, Rules::Wgsl)[2]
    );
    assert_eq!(p.value_type().unwrap().to_string(), "vec3<f32>");
    assert_eq!(r[p.slot()].frequency(), Frequency::Object);

    let whole = r.resolve("cascade_splits", None).unwrap();
    assert_eq!((whole.count(), whole.stride()), (4, 16));
    let elem = r.resolve("cascade_splits[2]", Some(Frequency::Frame)).unwrap();
    assert_eq!((elem.offset(), elem.count()), (32, 1));
    // The D3D spelling of the declaration is the whole array.
    let decl = r.resolve("cascade_splits[4]", None).unwrap();
    assert_eq!(decl, whole);

    let kind = |path: &str| r.resolve(path, None).unwrap_err().kind;
    assert_eq!(
        kind("cascade_splits[5]"),
        ParamErrorKind::IndexOutOfRange { member: "cascade_splits".into(), index: 5, count: 4 }
    );
    assert_eq!(
        kind("lights[4].color"),
        ParamErrorKind::IndexOutOfRange { member: "lights".into(), index: 4, count: 4 }
    );
    assert_eq!(kind("world[0]"), ParamErrorKind::NotAnArray { member: "world".into() });
    assert_eq!(kind("world.x"), ParamErrorKind::NotAStruct { member: "world".into() });
    assert_eq!(kind("lights.color"), ParamErrorKind::NeedsIndex { member: "lights".into() });
    assert_eq!(kind("lights[1].colour"), ParamErrorKind::Unknown { suggestions: vec!["color".into()] });
    assert_eq!(kind("lights[1"), ParamErrorKind::Malformed);
    match kind("wrold") {
        ParamErrorKind::Unknown { suggestions } => {
            assert_eq!(suggestions.first().map(String::as_str), Some("world"))
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        r.resolve("world", Some(Frequency::Material)).unwrap_err().kind,
        ParamErrorKind::WrongFrequency { wanted: Frequency::Material, actual: Frequency::Object }
    );
}

#[test]
fn custom_plans_by_group_and_point() {
    let plan = SlotPlan::empty()
        .with_group(0, Frequency::Frame)
        .with_group(1, Frequency::Object)
        .with_point(BindingPoint::new(1, 13), Frequency::Material);
    let mut r = Registry::new(plan);
    r.add(shader("high_binding.wgsl")).unwrap();
    assert_eq!(r[r.slot_at(BindingPoint::new(1, 13)).unwrap()].frequency(), Frequency::Material);
    // Group 2 is not in this plan.
    let err = r.add(shader("prefix_full.wgsl")).unwrap_err();
    assert!(
        matches!(err, Error::Layout { ref kind, .. } if matches!(**kind, LayoutErrorKind::Unplanned { .. })),
        "{err}"
    );
}

// ---- errors -----------------------------------------------------------------

/// (line, column) of the first occurrence of `needle` in `text`, 1-based.
fn position_of(text: &str, needle: &str) -> (u32, u32) {
    let at = text.find(needle).unwrap();
    let line = text[..at].matches('\n').count() as u32 + 1;
    let col = (at - text[..at].rfind('\n').map_or(0, |n| n + 1)) as u32 + 1;
    (line, col)
}

#[test]
fn wgsl_syntax_error_has_file_line_and_column() {
    let path = format!("{}/tests/shaders/bad/syntax.wgsl", env!("CARGO_MANIFEST_DIR"));
    let e = ShaderReflection::from_path(&path, None).unwrap_err();
    assert!(matches!(e.kind, ReflectErrorKind::Wgsl(_)));
    let loc = e.location.unwrap();
    assert_eq!((loc.line, loc.column), position_of(&source("bad/syntax.wgsl"), ";\n}"));
    assert!(
        common::chain(&e).starts_with(&format!("cannot reflect {path}:{}:{}: ", loc.line, loc.column)),
        "{e}"
    );
}

#[test]
fn glsl_syntax_error_has_line_and_column() {
    let e = ShaderReflection::new(
        "syntax.frag",
        ShaderSource::Glsl { source: &source("bad/syntax.frag"), stage: ShaderStage::Fragment },
    )
    .unwrap_err();
    assert!(matches!(e.kind, ReflectErrorKind::Glsl(_)));
    let loc = e.location.unwrap();
    assert_eq!((loc.line, loc.column), position_of(&source("bad/syntax.frag"), "* 2.0"));
}

#[test]
fn validation_error_names_the_variable_and_position() {
    let e =
        ShaderReflection::new("invalid.wgsl", ShaderSource::Wgsl(&source("bad/invalid.wgsl"))).unwrap_err();
    let ReflectErrorKind::Validation(_) = &e.kind else { panic!("{e}") };
    let msg = common::chain(&e.kind);
    assert!(msg.contains("weights") && msg.contains("stride"), "{msg}");
    let loc = e.location.unwrap();
    assert_eq!(loc.line, position_of(&source("bad/invalid.wgsl"), "var<uniform> weights").0);
}

#[test]
fn broken_spirv_and_unknown_extensions_are_errors() {
    let e = ShaderReflection::new("junk.spv", ShaderSource::SpirV(&[1, 2, 3, 4, 5])).unwrap_err();
    assert!(matches!(e.kind, ReflectErrorKind::Spirv(_)), "{e}");
    let e = ShaderReflection::from_path("shader.hlsl", None).unwrap_err();
    assert_eq!(e.kind, ReflectErrorKind::UnknownFormat);
    let e = ShaderReflection::from_path("does/not/exist.wgsl", None).unwrap_err();
    assert!(matches!(e.kind, ReflectErrorKind::Io(_)));
}

fn add_err(r: &mut Registry, name: &str) -> (String, LayoutErrorKind) {
    match r.add(shader(name)).unwrap_err() {
        Error::Layout { shader, kind, .. } => (shader, *kind),
        e => panic!("{e}"),
    }
}

#[test]
fn conflicting_member_names_both_shaders_offsets_and_types() {
    let mut r = registry(&["frame.wgsl"]);
    let (who, kind) = add_err(&mut r, "bad/conflict_type.wgsl");
    assert!(who.ends_with("conflict_type.wgsl"));
    let LayoutErrorKind::MemberMismatch { ref first, ref second } = kind else { panic!("{kind:?}") };
    assert!(first.shader.ends_with("frame.wgsl") && second.shader.ends_with("conflict_type.wgsl"));
    assert_eq!((first.member.as_str(), first.ty.as_str(), first.offset), ("time", "f32", 0));
    assert_eq!((second.member.as_str(), second.ty.as_str(), second.offset), ("time", "vec2<f32>", 0));
    let text = kind.to_string();
    assert!(
        text.contains("frame.wgsl") && text.contains("conflict_type.wgsl") && text.contains("vec2<f32>"),
        "{text}"
    );
    // Nothing changed: the slot still has frame.wgsl's members and one user.
    let slot = &r[r.slot_at(BindingPoint::new(0, 0)).unwrap()];
    assert_eq!(slot.users().len(), 1);
    assert_eq!(slot.member("time").unwrap().ty.name(), "f32");
    assert_eq!(r.shaders().len(), 1);
}

#[test]
fn overlapping_members_are_rejected() {
    let mut r = registry(&["frame.wgsl"]);
    let (_, kind) = add_err(&mut r, "bad/conflict_overlap.wgsl");
    let LayoutErrorKind::Overlap { first, second } = kind else { panic!() };
    assert_eq!((first.member.as_str(), second.member.as_str()), ("time", "seconds"));
    assert!(r.slot_at(BindingPoint::new(0, 0)).map(|s| r[s].member("seconds").is_none()).unwrap());
}

/// A storage buffer the application sets may be read in one shader and
/// written in another at one point (Bevy's `cluster_raster` by flag): each
/// pipeline's layout takes its own access, and the binding keeps the other
/// as an alternate.
#[test]
fn a_storage_buffer_may_differ_in_access_at_one_point() {
    let mut r = registry(&["frame_storage.wgsl"]);
    r.add(shader("bad/conflict_access.wgsl")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.shaders().len(), 2);
    // What each pipeline sees is `resources.rs`' GPU test.
}

/// One texture where another shader of the family declares a binding array
/// of them: a binding holds one count, so the second is refused.
#[test]
fn different_counts_at_one_binding_point_are_rejected() {
    let mut r = Registry::new(SlotPlan::default());
    r.add(shader("texture_array.wgsl").with_family("gmrt")).unwrap();
    let e = r.add(shader("bad/conflict_count.wgsl").with_family("gmrt")).unwrap_err();
    let Error::Layout { kind, .. } = e else { panic!("{e}") };
    let LayoutErrorKind::KindMismatch { first_kind, second_kind, .. } = *kind else { panic!() };
    assert_eq!(
        (first_kind.as_str(), second_kind.as_str()),
        ("binding_array<texture_2d<f32>, 4>", "texture_2d<f32>")
    );
    assert_eq!(r.shaders().len(), 1);
}

/// A uniform block, a texture and a storage buffer at one point in three
/// shaders: each pipeline's layout declares its own, so all register, the
/// slot keeps its block, and the others are bindings of their own there.
#[test]
fn a_slot_and_other_resources_share_a_point_across_shaders() {
    let files = ["frame.wgsl", "bad/conflict_kind.wgsl", "frame_storage.wgsl"];
    for order in [[0, 1, 2], [1, 2, 0], [2, 0, 1]] {
        let r = registry(&order.map(|i| files[i]));
        let slot = &r[r.slot_at(BindingPoint::new(0, 0)).unwrap()];
        assert_eq!(slot.users().len(), 1, "{order:?}");
        assert_eq!(slot.member("time").unwrap().ty.name(), "f32");
        assert_eq!(r.shaders().len(), 3);
    }
}

#[test]
fn blocks_over_the_limit_are_rejected_with_size_and_limit() {
    let mut r = Registry::new(SlotPlan::default());
    let (_, kind) = add_err(&mut r, "bad/too_large.wgsl");
    let size = align_size(&Ty::Array(Box::new(Ty::Vec(4)), 4097), Rules::Wgsl).1;
    assert_eq!(
        kind,
        LayoutErrorKind::TooLarge { shader: kind_shader(&kind), block: "huge".into(), size, limit: 65536 }
    );
    // A device with a larger limit accepts it.
    let mut big = Registry::with_limit(SlotPlan::default(), 1 << 20);
    big.add(shader("bad/too_large.wgsl")).unwrap();
}

fn kind_shader(k: &LayoutErrorKind) -> String {
    match k {
        LayoutErrorKind::TooLarge { shader, .. } => shader.clone(),
        _ => unreachable!(),
    }
}

#[test]
fn unplanned_groups_are_rejected() {
    let mut r = Registry::new(SlotPlan::default());
    let (_, kind) = add_err(&mut r, "bad/unplanned.wgsl");
    assert!(matches!(kind, LayoutErrorKind::Unplanned { ref name, .. } if name == "x"));
}

// Generated declarations (`Registry::declarations`) reflect back to exactly
// the merged layouts they were generated from.

/// Generated declarations reflect back to exactly the merged layouts, for
/// every shader of the corpus in `tests/shaders/` and for them all merged.
#[test]
fn declarations_round_trip_on_the_shader_corpus() {
    let dir = format!("{}/tests/shaders", env!("CARGO_MANIFEST_DIR"));
    let mut files = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect::<Vec<_>>();
    files.sort();
    let mut all = Registry::new(SlotPlan::default());
    let mut checked = 0;
    for file in &files {
        // `.glsl` does not say its stage; tint.glsl is a fragment shader.
        let stage =
            file.extension().is_some_and(|e| e == "glsl").then_some(freqbuf::naga::ShaderStage::Fragment);
        let shader = freqbuf::reflect::ShaderReflection::from_path(file, stage).unwrap();
        let mut one = Registry::new(SlotPlan::default());
        one.add(shader.clone()).unwrap();
        if file.ends_with("frame.vert") {
            // std140 `float weights[N]` has stride 16: WGSL has no spelling for it.
            let e = one.declarations().unwrap_err();
            assert_eq!(
                common::chain(&e),
                "slot @group(1) @binding(2) is not supported: `weights` is an array of f32 with stride 16, which WGSL cannot declare (its stride would be 4)"
            );
            continue;
        }
        round_trip(&one, &file.display().to_string());
        let _ = all.add(shader.with_family("corpus"));
        checked += 1;
    }
    round_trip(&all, "the merged corpus");
    assert!(checked >= 10, "{checked} files");
}

fn round_trip(registry: &Registry, what: &str) {
    let text = registry.declarations().unwrap();
    let uses = registry
        .slots()
        .map(|(_, s)| {
            let var = text
                .lines()
                .find(|l| {
                    l.contains(&format!("@group({}) @binding({})", s.binding().group, s.binding().binding))
                })
                .unwrap();
            let name = var.split("> ").nth(1).unwrap().split(':').next().unwrap();
            format!("    _ = &{name};\n")
        })
        .collect::<String>();
    let source = format!("{text}@compute @workgroup_size(1) fn main() {{\n{uses}}}\n");
    let back = freqbuf::reflect::ShaderReflection::new(
        "declared.wgsl",
        freqbuf::reflect::ShaderSource::Wgsl(&source),
    )
    .unwrap_or_else(|e| panic!("{what}: {e}\n{source}"));
    let mut again = Registry::new(SlotPlan::default());
    again.add(back).unwrap_or_else(|e| panic!("{what}: {e}"));
    let layouts = |r: &Registry| {
        let mut v = r
            .slots()
            .map(|(_, s)| {
                (
                    s.binding(),
                    s.frequency(),
                    s.size(),
                    s.is_array(),
                    s.members().iter().map(|m| m.member.clone()).collect::<Vec<_>>(),
                )
            })
            .collect::<Vec<_>>();
        v.sort_by_key(|s| s.0);
        v
    };
    assert_eq!(layouts(&again), layouts(registry), "{what}:\n{source}");
    // The composable module names itself for `#import`.
    let module = registry.declarations_module("freqbuf::slots").unwrap();
    assert!(module.starts_with("#define_import_path freqbuf::slots\n"));
}

/// An array slot is declared as the storage array it is, and two slots whose
/// structs share a name but not a layout each get a struct of their own.
#[test]
fn array_slots_and_structs_that_share_a_name_round_trip() {
    let shaders = [
        (
            "a.wgsl",
            "struct Data { color: vec4<f32> }\n@group(1) @binding(0) var<uniform> view_data: Data;\n@fragment fn fs() -> @location(0) vec4<f32> { return view_data.color; }",
        ),
        (
            "b.wgsl",
            "struct Data { scale: f32, offset: vec2<f32> }\n@group(2) @binding(0) var<uniform> material_data: Data;\n@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(material_data.offset, material_data.scale, 1.0); }",
        ),
        (
            "c.wgsl",
            "struct Object { world: mat4x4<f32>, tint: vec4<f32> }\n@group(3) @binding(0) var<storage, read> objects: array<Object>;\n@vertex fn vs(@builtin(instance_index) i: u32) -> @builtin(position) vec4<f32> { return objects[i].world[3] * objects[i].tint; }",
        ),
    ];
    let mut registry = Registry::new(SlotPlan::default());
    for (name, source) in shaders {
        let shader =
            freqbuf::reflect::ShaderReflection::new(name, freqbuf::reflect::ShaderSource::Wgsl(source))
                .unwrap();
        registry.add(shader).unwrap();
    }
    let text = registry.declarations().unwrap();
    assert!(text.contains("var<storage, read> objects: array<Object>;"), "{text}");
    assert!(text.contains("struct Data {") && text.contains("struct Data_2 {"), "{text}");
    round_trip(&registry, "array slot and two `Data` structs");
}

/// naga keeps no `@size`: the room it leaves is reported as the member's
/// size where the source declares it, and not where `@align` on the next
/// member leaves it. Another shader may put a member in that room.
#[test]
fn size_attributes_are_reported_and_align_gaps_are_not() {
    let src = "struct M { a: vec3<f32>, @size(20) z: f32, b: f32, c: f32, @align(16) d: f32 }
@group(2) @binding(0) var<uniform> m: M;
@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(m.a, m.z + m.b + m.c + m.d); }";
    let s = freqbuf::reflect::ShaderReflection::new("size.wgsl", freqbuf::reflect::ShaderSource::Wgsl(src))
        .unwrap();
    let block = s.resource(BindingPoint::new(2, 0)).unwrap().block.clone().unwrap();
    let sizes =
        block.members.iter().map(|m| (m.name.as_str(), m.offset, m.size, m.extent())).collect::<Vec<_>>();
    assert_eq!(
        sizes,
        [("a", 0, 12, 12), ("z", 12, 20, 4), ("b", 32, 4, 4), ("c", 36, 4, 4), ("d", 48, 4, 4)]
    );
    let mut r = Registry::new(SlotPlan::default());
    r.add(s.clone()).unwrap();
    round_trip(&r, "@size members");
    // In one family, another shader's member in `z`'s room merges.
    let mut r = Registry::new(SlotPlan::default());
    r.add(s.with_family("m")).unwrap();
    let other = "struct M { a: vec3<f32>, z: f32, w: f32 }
@group(2) @binding(0) var<uniform> m: M;
@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(m.a, m.z + m.w); }";
    let o =
        freqbuf::reflect::ShaderReflection::new("other.wgsl", freqbuf::reflect::ShaderSource::Wgsl(other))
            .unwrap();
    r.add(o.with_family("m")).unwrap();
    let slot = &r[r.slot_at(BindingPoint::new(2, 0)).unwrap()];
    assert_eq!(
        slot.members().iter().map(|m| m.member.name.as_str()).collect::<Vec<_>>(),
        ["a", "z", "w", "b", "c", "d"]
    );
}

/// A layout-only reflection keeps what registration reads and drops the
/// module: the whole-effect check merges thousands of permutations this way.
#[test]
fn a_layout_only_reflection_merges_like_the_full_one() {
    let full = shader("prefix_full.wgsl");
    let light = full.clone().layout_only();
    assert!(light.module().global_variables.is_empty() && light.source().is_none());
    assert_eq!(light.resources(), full.resources());
    assert_eq!(light.entry_points().len(), full.entry_points().len());
    let (mut a, mut b) = (Registry::new(SlotPlan::default()), Registry::new(SlotPlan::default()));
    a.add(full).unwrap();
    b.add(light).unwrap();
    let layout =
        |r: &Registry| r.slots().map(|(_, s)| (s.binding(), s.size(), s.members().len())).collect::<Vec<_>>();
    assert_eq!(layout(&a), layout(&b));
}
