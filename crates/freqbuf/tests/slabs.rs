//! Material slabs, in Bevy 0.20's bindless pattern (`pbr_fragment.wesl`):
//! the draw's slot is a masked member of its object's element, which picks
//! the material's index table, whose `material` member picks its data.
//! Each object draws one point whose color is what the shader read through
//! that chain; the target is read back against a model of every value,
//! across value changes, flushes, relinks, frees and reuse.

use crate::common;

use common::gpu;
use freqbuf::{
    Binder, BindingPoint, Draw, DrawList, Error, Frequency, Headless, Manager, MaterialId, ObjectId,
};

const SHADER: &str = "
struct Mesh { pos: vec4<f32>, tint: vec4<f32>, material_and_lightmap_bind_group_slot: u32, _pad: vec3<u32> }
@group(3) @binding(0) var<storage> mesh: array<Mesh>;
struct Bindings { material: u32, base_color_texture: u32 }
struct Material { color: vec4<f32> }
@group(2) @binding(0) var<storage> material_indices: array<Bindings>;
@group(2) @binding(10) var<storage> material_array: array<Material>;
struct Out { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }
@vertex fn vs(@builtin(instance_index) i: u32) -> Out {
    let slot = mesh[i].material_and_lightmap_bind_group_slot & 0xffffu;
    let lightmap = f32(mesh[i].material_and_lightmap_bind_group_slot >> 16u);
    let color = material_array[material_indices[slot].material].color;
    return Out(vec4(mesh[i].pos.xy, 0.0, 1.0), vec4(color.xyz + mesh[i].tint.xyz, lightmap));
}
@fragment fn fs(in: Out) -> @location(0) vec4<f32> { return in.c; }
";

pub(crate) const W: u32 = 32;
pub(crate) const H: u32 = 16;
pub(crate) const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;

pub(crate) fn pixel(i: u32) -> [f32; 4] {
    gpu::pixel_centre(i, (W, H))
}

struct Scene<'h> {
    h: &'h Headless,
    fb: Manager,
    shader: freqbuf::ShaderId,
    pipeline: wgpu::RenderPipeline,
    target: wgpu::Texture,
    objects: Vec<ObjectId>,
    /// Per object: its material, by position in `materials`.
    uses: Vec<usize>,
    materials: Vec<MaterialId>,
    /// The model: each material's color.
    colors: Vec<[f32; 4]>,
}

impl<'h> Scene<'h> {
    fn new(h: &'h Headless) -> Self {
        let mut fb = Manager::new(&h.device, freqbuf::SlotPlan::default());
        let shader = fb.register_wgsl("slab.wgsl", SHADER).unwrap();
        let pipeline = gpu::render_pipeline_for(h, &fb, shader, FORMAT, wgpu::PrimitiveTopology::PointList);
        let target = gpu::target(h, FORMAT, (W, H));
        let (objects, uses, materials, colors) = Default::default();
        Self { h, fb, shader, pipeline, target, objects, uses, materials, colors }
    }

    fn add_material(&mut self, color: [f32; 4]) {
        let m = self.fb.create_material();
        let p = self.fb.param("material_array.color").unwrap();
        self.fb.material(m).set(p, &color).unwrap();
        self.materials.push(m);
        self.colors.push(color);
    }

    fn set_color(&mut self, k: usize, color: [f32; 4]) {
        let p = self.fb.param("color").unwrap();
        self.fb.material(self.materials[k]).set(p, &color).unwrap();
        self.colors[k] = color;
    }

    fn add_object(&mut self, material: usize) {
        let i = self.objects.len() as u32;
        let o = self.fb.create_object();
        let (pos, tint) = (self.fb.param("pos").unwrap(), self.fb.param("tint").unwrap());
        self.fb.object(o).set(pos, &pixel(i)).unwrap();
        self.fb.object(o).set(tint, &[0.0, 0.0, i as f32 * 1000.0, 0.0]).unwrap();
        // The application's half of the member: Bevy keeps the lightmap slot there.
        let slot = self.fb.param("material_and_lightmap_bind_group_slot").unwrap();
        self.fb.object(o).set(slot, &((i % 7) << 16)).unwrap();
        self.objects.push(o);
        self.uses.push(material);
    }

    fn draws(&self) -> Vec<Draw> {
        let draw =
            |(&o, &k): (&ObjectId, &usize)| Draw::new(self.shader).object(o).material(self.materials[k]);
        self.objects.iter().zip(&self.uses).map(draw).collect()
    }

    /// What object `i` must show.
    fn expected(&self, i: usize) -> [f32; 4] {
        let c = self.colors[self.uses[i]];
        [c[0], c[1], c[2] + i as f32 * 1000.0, (i % 7) as f32]
    }

    /// Draws through `list`; returns the bind calls and the pixels.
    fn draw(&mut self, list: &mut DrawList) -> Result<(u64, Vec<[f32; 4]>), Error> {
        self.fb.take_stats();
        let view = self.target.create_view(&Default::default());
        let mut enc = self.h.device.create_command_encoder(&Default::default());
        {
            let mut pass = gpu::color_pass(&mut enc, &view);
            pass.set_pipeline(&self.pipeline);
            Binder::new().bind_list(&mut self.fb, &mut pass, list, |pass, _, first| {
                pass.draw(0..1, first..first + 1)
            })?;
        }
        let binds = self.fb.take_stats().total().set_bind_group_calls;
        let words = gpu::read_texture(self.h, enc, &self.target, 16);
        Ok((binds, words.chunks(4).map(|c| [0, 1, 2, 3].map(|k| f32::from_bits(c[k]))).collect()))
    }

    /// Moves the manager to `h` (`Manager::recreate`) with a new pipeline and target there.
    fn move_to(&mut self, h: &'h Headless) {
        self.fb.recreate(&h.device).unwrap();
        self.pipeline =
            gpu::render_pipeline_for(h, &self.fb, self.shader, FORMAT, wgpu::PrimitiveTopology::PointList);
        self.target = gpu::target(h, FORMAT, (W, H));
        self.h = h;
    }

    /// Draws `list` as multi-draw-indirect runs; returns the draw calls and checks every object.
    fn check_indirect(&mut self, list: &mut DrawList, indirect: &mut freqbuf::IndirectDraws) -> u64 {
        self.fb.take_stats();
        let view = self.target.create_view(&Default::default());
        let mut enc = self.h.device.create_command_encoder(&Default::default());
        {
            let mut pass = gpu::color_pass(&mut enc, &view);
            let pipeline = &self.pipeline;
            Binder::new()
                .draw_indirect(&mut self.fb, &self.h.queue, &mut pass, list, indirect, |pass, _| {
                    pass.set_pipeline(pipeline)
                })
                .unwrap();
        }
        let calls = self.fb.take_stats().total().draw_calls;
        let words = gpu::read_texture(self.h, enc, &self.target, 16);
        for i in 0..self.objects.len() {
            let got = [0, 1, 2, 3].map(|k| f32::from_bits(words[i * 4 + k]));
            assert_eq!(got, self.expected(i), "object {i}, material {}", self.uses[i]);
        }
        calls
    }

    fn check(&mut self, list: &mut DrawList) {
        let (binds, px) = self.draw(list).unwrap();
        assert_eq!(
            binds, 4,
            "groups 0 and 1 (empty) and the material and object groups once each, whatever the materials"
        );
        for (i, px) in px.iter().enumerate().take(self.objects.len()) {
            assert_eq!(*px, self.expected(i), "object {i}, material {}", self.uses[i]);
        }
        // Each object's element holds its own pixel and tint: with every
        // object drawn, a draw that read another object's element would
        // leave the picture as it was. Every other one drawn alone shows it.
        let evens = self.draws().into_iter().step_by(2).collect::<Vec<_>>();
        let mut alone = self.fb.draw_list(&evens).unwrap();
        let (_, px) = self.draw(&mut alone).unwrap();
        for (i, px) in px.iter().enumerate().take(self.objects.len()) {
            let want = if i % 2 == 0 { self.expected(i) } else { [0.0, 0.0, 0.0, 1.0] };
            assert_eq!(*px, want, "object {i} with every other object drawn alone");
        }
    }
}

/// Flushes, lists and links `draws`, flushes the pointers, draws each as a
/// point through the list and reads the target back, a texel per pixel.
pub(crate) fn draw_points(
    h: &Headless,
    fb: &mut Manager,
    pipeline: &wgpu::RenderPipeline,
    target: &wgpu::Texture,
    draws: &[Draw],
) -> Vec<[f32; 4]> {
    fb.flush(&h.queue).unwrap();
    let mut list = fb.draw_list(draws).unwrap();
    fb.flush(&h.queue).unwrap();
    let view = target.create_view(&Default::default());
    let mut enc = h.device.create_command_encoder(&Default::default());
    {
        let mut pass = gpu::color_pass(&mut enc, &view);
        pass.set_pipeline(pipeline);
        Binder::new()
            .bind_list(fb, &mut pass, &mut list, |pass, _, first| pass.draw(0..1, first..first + 1))
            .unwrap();
    }
    let words = gpu::read_texture(h, enc, target, 16);
    words.chunks(4).map(|c| [0, 1, 2, 3].map(|k| f32::from_bits(c[k]))).collect()
}

#[test]
fn objects_find_their_material_through_the_slab_across_changes_frees_and_reuse() {
    let Some(h) = gpu::device() else { return };
    if !gpu::renders_to(h, FORMAT) {
        return;
    }
    let mut s = Scene::new(h);
    let slab = s.fb.registry().slot_at(BindingPoint::new(2, 0)).unwrap();
    let source = s.fb.registry()[slab].slab().expect("found through the mesh").clone();
    assert_eq!(source.from, freqbuf::SlabFrom::Array(BindingPoint::new(3, 0)));
    assert_eq!(
        (source.member.as_str(), source.offset, source.mask),
        ("material_and_lightmap_bind_group_slot", 32, 0xffff)
    );
    for k in 0..40 {
        s.add_material([k as f32, 2.0 * k as f32, 0.0, 0.0]);
    }
    for i in 0..300 {
        s.add_object((i * 7 + i / 40) % 40);
    }
    s.fb.flush(&h.queue).unwrap();
    let mut list = s.fb.draw_list(&s.draws()).unwrap();
    assert!(
        matches!(s.draw(&mut list), Err(Error::NotFlushed(Frequency::Object))),
        "pointers not uploaded yet"
    );
    s.fb.flush(&h.queue).unwrap();
    s.check(&mut list);

    // 1% of the materials change: the same list, one flush, no bind more.
    s.set_color(3, [100.0, 0.5, 0.0, 0.0]);
    s.fb.flush(&h.queue).unwrap();
    s.check(&mut list);

    // An object moves to another material: lists made before are stale.
    assert_eq!(s.uses[17], 39);
    s.uses[17] = 5;
    let mut relinked = s.fb.draw_list(&s.draws()).unwrap();
    assert!(matches!(s.draw(&mut list), Err(Error::StaleList)), "object 17 no longer points where it did");
    s.fb.flush(&h.queue).unwrap();
    s.check(&mut relinked);

    // A freed material's element goes to the next one made: objects relinked to it read the new values.
    let freed = s.uses[0];
    s.fb.free_material(s.materials[freed]).unwrap();
    let m = s.fb.create_material();
    s.materials[freed] = m;
    let p = s.fb.param("color").unwrap();
    s.fb.material(m).set(p, &[-1.0, -2.0, 0.0, 0.0]).unwrap();
    s.colors[freed] = [-1.0, -2.0, 0.0, 0.0];
    assert!(matches!(s.draw(&mut relinked), Err(Error::StaleList)));
    s.fb.flush(&h.queue).unwrap();
    let mut list = s.fb.draw_list(&s.draws()).unwrap();
    s.fb.flush(&h.queue).unwrap();
    s.check(&mut list);

    // Growth of both slabs: more materials and objects than the buffers held.
    for k in 0..200 {
        s.add_material([0.0, k as f32, 1.0, 0.0]);
    }
    for i in 300..512 {
        s.add_object(40 + (i % 200));
    }
    s.fb.flush(&h.queue).unwrap();
    let mut list = s.fb.draw_list(&s.draws()).unwrap();
    s.fb.flush(&h.queue).unwrap();
    s.check(&mut list);
}

#[test]
fn a_draw_bound_alone_must_be_linked_and_flushed() {
    let Some(h) = gpu::device() else { return };
    if !gpu::renders_to(h, FORMAT) {
        return;
    }
    let mut s = Scene::new(h);
    s.add_material([1.0, 0.0, 0.0, 0.0]);
    s.add_material([2.0, 0.0, 0.0, 0.0]);
    s.add_object(1);
    s.fb.flush(&h.queue).unwrap();
    let draw = s.draws()[0];
    let bind = |s: &mut Scene| {
        let view = s.target.create_view(&Default::default());
        let mut enc = h.device.create_command_encoder(&Default::default());
        let mut pass = gpu::color_pass(&mut enc, &view);
        Binder::new().bind(&mut s.fb, &mut pass, &draw).map(drop)
    };
    let err = bind(&mut s).unwrap_err();
    assert_eq!(
        err.to_string(),
        "slab.wgsl: the draw's object element does not point at its material element in slab @group(2) @binding(0) (member `material_and_lightmap_bind_group_slot`); link the draw first (Manager::link, or Manager::draw_list), then flush"
    );
    s.fb.link([&draw]).unwrap();
    assert!(matches!(bind(&mut s), Err(Error::NotFlushed(Frequency::Object))));
    s.fb.flush(&h.queue).unwrap();
    bind(&mut s).unwrap();
}

#[test]
fn a_slab_indexed_two_ways_is_refused_with_both() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, freqbuf::SlotPlan::default());
    let two_ways = SHADER.replace(
        "let color = material_array[material_indices[slot].material].color;",
        "let color = material_array[material_indices[slot].material].color + material_array[i].color;",
    );
    let err = fb.register_wgsl("two_ways.wgsl", &two_ways).unwrap_err();
    assert_eq!(
        format!("{:#}", freqbuf::Report(&err)),
        "cannot lay out @group(2) @binding(10) for two_ways.wgsl: array slot `material_array` is indexed through member `material` of the array at @group(2) @binding(0), and also by the instance index (or a vertex output, or arithmetic); a slab is found through one member of another array slot, which freqbuf writes"
    );
    // A slab and an array of its own frequency read by the instance index: one instance index, refused as before.
    fb.register_wgsl("slab.wgsl", SHADER).unwrap();
    let direct = "struct Material { color: vec4<f32> }
@group(2) @binding(10) var<storage> material_array: array<Material>;
@vertex fn vs(@builtin(instance_index) i: u32) -> @builtin(position) vec4<f32> { return material_array[i].color; }";
    let direct =
        freqbuf::reflect::ShaderReflection::new("direct.wgsl", freqbuf::reflect::ShaderSource::Wgsl(direct));
    let err = fb.register(direct.unwrap().with_family("slab.wgsl")).unwrap_err();
    assert_eq!(
        format!("{:#}", freqbuf::Report(&err)),
        "cannot lay out @group(2) @binding(10) for direct.wgsl: array slot `material_array` is indexed through member `material` of the array at @group(2) @binding(0) in slab.wgsl, but by the instance index (or a vertex output, or arithmetic) here; every user of an array slot finds its elements the same way"
    );
}

/// Bevy's sprite metadata: an object array read through another object
/// array's member, which the application points (meshes of one asset share
/// an element). Linking writes the material pointer and leaves that one.
#[test]
fn an_array_read_through_a_member_of_its_own_frequency_keeps_the_applications_pointer() {
    let Some(h) = gpu::device() else { return };
    if !gpu::renders_to(h, FORMAT) {
        return;
    }
    let shader_text = "
struct Mesh { pos: vec4<f32>, metadata_index: u32, material_slot: u32, _pad: vec2<u32> }
@group(3) @binding(0) var<storage> mesh: array<Mesh>;
struct Metadata { value: vec4<f32> }
@group(3) @binding(1) var<storage> metadata: array<Metadata>;
struct Material { color: vec4<f32> }
@group(2) @binding(0) var<storage> materials: array<Material>;
struct Out { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }
@vertex fn vs(@builtin(instance_index) i: u32) -> Out {
    let c = metadata[mesh[i].metadata_index].value + materials[mesh[i].material_slot].color;
    return Out(vec4(mesh[i].pos.xy, 0.0, 1.0), c);
}
@fragment fn fs(in: Out) -> @location(0) vec4<f32> { return in.c; }
";
    let mut fb = Manager::new(&h.device, freqbuf::SlotPlan::default());
    let shader = fb.register_wgsl("metadata.wgsl", shader_text).unwrap();
    let metadata = fb.registry().slot_at(BindingPoint::new(3, 1)).unwrap();
    assert_eq!(fb.registry()[metadata].slab().map(|s| s.member.as_str()), Some("metadata_index"));
    let pipeline = gpu::render_pipeline_for(h, &fb, shader, FORMAT, wgpu::PrimitiveTopology::PointList);
    let target = gpu::target(h, FORMAT, (W, H));
    let materials = (0..3)
        .map(|k| {
            let m = fb.create_material();
            fb.material(m).set_by_name("color", &[k as f32, 0.0, 0.0, 0.0]).unwrap();
            m
        })
        .collect::<Vec<_>>();
    let objects = (0..8u32)
        .map(|i| {
            let o = fb.create_object();
            fb.object(o).set_by_name("pos", &pixel(i)).unwrap();
            fb.object(o).set_by_name("value", &[0.0, 10.0 * i as f32, 0.0, 0.0]).unwrap();
            // Every object reads the metadata of object 2 or 5.
            fb.object(o).set_by_name("metadata_index", &if i % 2 == 0 { 2u32 } else { 5 }).unwrap();
            o
        })
        .collect::<Vec<_>>();
    let draws =
        (0..8).map(|i| Draw::new(shader).object(objects[i]).material(materials[i % 3])).collect::<Vec<_>>();
    let px = draw_points(h, &mut fb, &pipeline, &target, &draws);
    for (i, px) in px.iter().enumerate().take(8) {
        let got = [px[0], px[1]];
        let shared = if i % 2 == 0 { 20.0 } else { 50.0 };
        assert_eq!(got, [(i % 3) as f32, shared], "object {i}");
    }
}

/// The same chain across the orders that lose things elsewhere: indirect
/// runs that span every material (one call, not one per material), a flush
/// that fails halfway (nothing lost: the next one uploads it), and a move to
/// another device, where the pointers come back from the shadow.
#[test]
fn slabs_survive_a_failed_flush_and_recreate_and_draw_one_indirect_run_across_materials() {
    let Some(h) = gpu::device() else { return };
    if !gpu::renders_to(h, FORMAT) {
        return;
    }
    let Some(other) = gpu::device_with_limits(|_| {}) else { return };
    let mut s = Scene::new(h);
    for k in 0..40 {
        s.add_material([k as f32, 1.0, 0.0, 0.0]);
    }
    for i in 0..300 {
        s.add_object((i * 13) % 40);
    }
    s.fb.flush(&h.queue).unwrap();
    let mut list = s.fb.draw_list(&s.draws()).unwrap();
    s.fb.flush(&h.queue).unwrap();
    let mut indirect = freqbuf::IndirectDraws::new(vec![freqbuf::DrawArgs::vertices(1, 0); 300]);
    let first_instance = h.device.features().contains(wgpu::Features::INDIRECT_FIRST_INSTANCE);
    let calls = s.check_indirect(&mut list, &mut indirect);
    assert_eq!(calls, if first_instance { 1 } else { 300 }, "one run: materials bind nothing");

    // A failed staging upload: the values and pointers stay dirty, and the next flush sends them.
    for k in (0..40).step_by(9) {
        s.set_color(k, [k as f32, 2.0, 0.0, 0.0]);
    }
    s.uses[5] = 39;
    let mut relinked = s.fb.draw_list(&s.draws()).unwrap();
    freqbuf::fault::fail_nth(freqbuf::fault::FaultSite::Upload, 0);
    assert!(s.fb.flush(&h.queue).is_err(), "the injected fault fires");
    assert!(!freqbuf::fault::disarm());
    s.fb.flush(&h.queue).unwrap();
    s.check_indirect(&mut relinked, &mut indirect);

    // Another device: shadows, pointers and slabs move; the list binds again after a flush.
    s.move_to(&other);
    s.fb.flush(&other.queue).unwrap();
    let mut list = s.fb.draw_list(&s.draws()).unwrap();
    s.check_indirect(&mut list, &mut indirect);
    s.check(&mut list);
}

#[test]
fn a_slab_is_refused_where_it_cannot_be_addressed() {
    if gpu::device().is_none() {
        return;
    }
    // No storage buffers in the vertex stage: array slots fall back to uniform batches, which a slab cannot use.
    let Some(small) = gpu::device_with_limits(|l| l.max_storage_buffers_per_shader_stage = 0) else { return };
    let mut fb = Manager::with_downlevel(&small.device, freqbuf::SlotPlan::default(), small.downlevel);
    let err = fb.register_wgsl("slab.wgsl", SHADER).unwrap_err();
    assert_eq!(
        format!("{:#}", freqbuf::Report(&err)),
        "cannot register slab.wgsl:6:23 (`material_indices` at @group(2) @binding(0)): the device cannot read storage buffers in every stage (DownlevelFlags::VERTEX_STORAGE, max_storage_buffers_per_shader_stage), and the array slot cannot fall back to a uniform array: it is a slab, found through member `material_and_lightmap_bind_group_slot` of another array, and a uniform batch holds only the elements near the draw's; register the permutation without slabs on this device (Bevy's BINDLESS off)"
    );
}
