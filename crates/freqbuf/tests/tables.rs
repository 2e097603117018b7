//! Tables: the binding arrays a slab indexes, in Bevy 0.20's pattern
//! (`bindless_textures_2d[material_indices[slot].base_color_texture]`). Each
//! material's textures go into the family's one array through its slab
//! members; what each object's vertex shader loaded is read back against
//! a model across replacement, a free and reuse, and a device without
//! non-uniform indexing is refused before anything is created.

use crate::common;
use crate::slabs::{FORMAT, H, W, draw_points, pixel};

use common::gpu;
use freqbuf::{Draw, Manager, MaterialId};

/// Bevy's texture table: `bindless_textures_2d[material_indices[slot].base_color_texture]`.
const TEXTURED: &str = "
enable wgpu_binding_array;
struct Mesh { pos: vec4<f32>, slot: u32, _pad: vec3<u32> }
@group(3) @binding(0) var<storage> mesh: array<Mesh>;
struct Bindings { material: u32, base_color_texture: u32, emissive_texture: u32, _pad: u32 }
@group(2) @binding(0) var<storage> material_indices: array<Bindings>;
@group(2) @binding(5) var bindless_textures_2d: binding_array<texture_2d<f32>>;
struct Out { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }
@vertex fn vs(@builtin(instance_index) i: u32) -> Out {
    let slot = mesh[i].slot;
    let base = textureLoad(bindless_textures_2d[material_indices[slot].base_color_texture], vec2(0u), 0);
    let emissive = textureLoad(bindless_textures_2d[material_indices[slot].emissive_texture], vec2(0u), 0);
    return Out(vec4(mesh[i].pos.xy, 0.0, 1.0), vec4(base.xy, emissive.xy));
}
@fragment fn fs(in: Out) -> @location(0) vec4<f32> { return in.c; }
";

#[test]
fn slab_materials_place_their_textures_in_one_table_and_reuse_freed_elements() {
    let Some(h) = gpu::device() else { return };
    if !h.device.features().contains(wgpu::Features::TEXTURE_BINDING_ARRAY) {
        return gpu::skip_unoffered(h, "TEXTURE_BINDING_ARRAY");
    }
    if !gpu::renders_to(h, FORMAT) {
        return;
    }
    let mut fb = Manager::new(&h.device, freqbuf::SlotPlan::default());
    let shader = fb.register_wgsl("textured.wgsl", TEXTURED).unwrap();
    let pipeline = gpu::render_pipeline_for(h, &fb, shader, FORMAT, wgpu::PrimitiveTopology::PointList);
    let target = gpu::target(h, FORMAT, (W, H));
    // Material k: base color (k, 2k), emissive (3k, 1) out of 255; every fifth sets no emissive.
    let texel = |a: u32, b: u32| gpu::texel(h, [a as u8, b as u8, 0, 255]);
    let mut materials = Vec::new();
    let mut model = Vec::new();
    let set = |fb: &mut Manager, m, k: u32| {
        fb.material(m).set_texture("base_color_texture", &texel(k, 2 * k)).unwrap();
        if !k.is_multiple_of(5) {
            fb.material(m).set_texture("emissive_texture", &texel(3 * k, 1)).unwrap();
        }
        let emissive = if !k.is_multiple_of(5) { [3 * k, 1] } else { [0, 0] };
        [k, 2 * k, emissive[0], emissive[1]]
    };
    for k in 0..30 {
        let m = fb.create_material();
        model.push(set(&mut fb, m, k));
        materials.push(m);
    }
    let (pos, slot) = (fb.param("pos").unwrap(), fb.param("slot").unwrap());
    let objects = (0..90u32)
        .map(|i| {
            let o = fb.create_object();
            fb.object(o).set(pos, &pixel(i)).unwrap();
            fb.object(o).set(slot, &0xdead_0000u32).unwrap();
            o
        })
        .collect::<Vec<_>>();
    let frame = |fb: &mut Manager, materials: &[MaterialId], model: &[[u32; 4]]| {
        let draws = (0..90)
            .map(|i| Draw::new(shader).object(objects[i]).material(materials[i % 30]))
            .collect::<Vec<_>>();
        let px = draw_points(h, fb, &pipeline, &target, &draws);
        for i in 0..90 {
            let got = px[i].map(|c| (c * 255.0).round() as u32);
            assert_eq!(got, model[i % 30], "object {i}, material {}", i % 30);
        }
        // Each object's element holds its own pixel, so every other draw
        // alone shows a draw that read another object's element.
        let evens = draws.iter().step_by(2).cloned().collect::<Vec<_>>();
        let px = draw_points(h, fb, &pipeline, &target, &evens);
        for i in 0..90 {
            let got = px[i].map(|c| (c * 255.0).round() as u32);
            let want = if i % 2 == 0 { model[i % 30] } else { [0, 0, 0, 255] };
            assert_eq!(got, want, "object {i} with every other object drawn alone");
        }
    };
    frame(&mut fb, &materials, &model);
    // A new texture on one member replaces its element in place; a freed material's elements go to the next one made.
    model[7] = set(&mut fb, materials[7], 41);
    fb.free_material(materials[12]).unwrap();
    materials[12] = fb.create_material();
    model[12] = set(&mut fb, materials[12], 50);
    frame(&mut fb, &materials, &model);
}

#[test]
fn a_table_indexed_per_draw_needs_non_uniform_indexing() {
    let Some(h) = gpu::device() else { return };
    if !h.device.features().contains(wgpu::Features::TEXTURE_BINDING_ARRAY) {
        return gpu::skip_unoffered(h, "TEXTURE_BINDING_ARRAY");
    }
    let arrays = |l: &mut wgpu::Limits| {
        l.max_binding_array_elements_per_shader_stage = 1 << 16;
        l.max_binding_array_sampler_elements_per_shader_stage = 1 << 16;
    };
    let Some(uniform_only) = gpu::device_with(wgpu::Features::TEXTURE_BINDING_ARRAY, arrays) else { return };
    let mut fb = Manager::new(&uniform_only.device, freqbuf::SlotPlan::default());
    let err = fb.register_wgsl("textured.wgsl", TEXTURED).unwrap_err();
    assert_eq!(
        format!("{:#}", freqbuf::Report(&err)),
        "cannot register textured.wgsl:11:28: the device cannot run this shader without Features::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING: Entry point vs at Vertex is invalid: Expression [10] is invalid: Shader requires capability Capabilities(TEXTURE_AND_SAMPLER_BINDING_ARRAY_NON_UNIFORM_INDEXING)"
    );
}

/// A table's length comes from its declaration or, unsized, from the
/// device: filling it is a typed error naming which, and loses nothing (the
/// member keeps its element, the other materials theirs).
#[test]
fn a_full_table_is_an_error_naming_what_sized_it() {
    let Some(h) = gpu::device() else { return };
    if !h.device.features().contains(wgpu::Features::TEXTURE_BINDING_ARRAY) {
        return gpu::skip_unoffered(h, "TEXTURE_BINDING_ARRAY");
    }
    let sized = TEXTURED.replace("binding_array<texture_2d<f32>>", "binding_array<texture_2d<f32>, 4>");
    let mut fb = Manager::new(&h.device, freqbuf::SlotPlan::default());
    fb.register_wgsl("four.wgsl", &sized).unwrap();
    let texel = gpu::texel(h, [1, 2, 3, 255]);
    let materials = (0..4).map(|_| fb.create_material()).collect::<Vec<_>>();
    for &m in &materials[..3] {
        fb.material(m).set_texture("base_color_texture", &texel).unwrap();
    }
    // Setting a member again reuses its element: no new one is needed.
    fb.material(materials[0]).set_texture("base_color_texture", &texel).unwrap();
    let err = fb.material(materials[3]).set_texture("base_color_texture", &texel).unwrap_err();
    assert_eq!(
        format!("{:#}", freqbuf::Report(&err)),
        "table `bindless_textures_2d` at @group(2) @binding(5) is full: all 4 elements (its declared length) are taken, element 0 by the placeholder, so `base_color_texture` cannot take one; free materials to reuse theirs"
    );
    fb.free_material(materials[1]).unwrap();
    fb.material(materials[3]).set_texture("base_color_texture", &texel).unwrap();

    // Unsized: a sixteenth of the device's limit, at most 1,024.
    let small = |l: &mut wgpu::Limits| l.max_binding_array_elements_per_shader_stage = 64;
    let features = wgpu::Features::TEXTURE_BINDING_ARRAY
        | wgpu::Features::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING;
    if !h.device.features().contains(features) {
        return gpu::skip_unoffered(h, "SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING");
    }
    let Some(d) = gpu::device_with(features, small) else { return };
    let mut fb = Manager::new(&d.device, freqbuf::SlotPlan::default());
    fb.register_wgsl("unsized.wgsl", TEXTURED).unwrap();
    let texel = gpu::texel(&d, [1, 2, 3, 255]);
    for k in 0..4 {
        let m = fb.create_material();
        let set = fb.material(m).set_texture("base_color_texture", &texel);
        if k < 3 {
            set.unwrap();
        } else {
            assert_eq!(
                format!("{:#}", freqbuf::Report(&set.unwrap_err())),
                "table `bindless_textures_2d` at @group(2) @binding(5) is full: all 4 elements (a sixteenth of the device's max_binding_array_elements_per_shader_stage, at most 1,024) are taken, element 0 by the placeholder, so `base_color_texture` cannot take one; free materials to reuse theirs"
            );
        }
    }
}
