//! Slabs found through the immediate data (`materials[imm.material]`):
//! the binder sets each draw's material element with `set_immediates`, only
//! where it changes, and again after a shader switch (wgpu clears
//! immediates when the pipeline layout changes). Every object draws one
//! point whose color is what its shader read; the target is read back
//! against a model, through single binds, a draw list, its replay and
//! indirect runs, across value changes and a freed and reused element.

use crate::common;

use common::gpu;
use freqbuf::{
    BindTarget, Binder, BindingPoint, Draw, DrawList, Headless, IndirectDraws, Manager, MaterialId, ObjectId,
    SlabFrom, SlabSource,
};

use crate::slabs::{FORMAT, H, W};

/// `app` is the application's immediate, beside freqbuf's `material`.
const SHADER: &str = "
struct Mesh { pos: vec4<f32>, tint: vec4<f32> }
@group(3) @binding(0) var<storage> mesh: array<Mesh>;
struct Material { color: vec4<f32> }
@group(2) @binding(10) var<storage> material_array: array<Material>;
struct Imm { app: u32, material: u32 }
var<immediate> imm: Imm;
struct Out { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }
@vertex fn vs(@builtin(instance_index) i: u32) -> Out {
    let color = material_array[imm.material].color * SCALE;
    return Out(vec4(mesh[i].pos.xy, 0.0, 1.0), vec4(color.xyz + mesh[i].tint.xyz, f32(imm.app)));
}
@fragment fn fs(in: Out) -> @location(0) vec4<f32> { return in.c; }
";

/// A shader without immediates, drawn between two draws of one material: its
/// pipeline's layout clears the immediates, so the next draw must set them.
const OTHER: &str = "
struct Mesh { pos: vec4<f32>, tint: vec4<f32> }
@group(3) @binding(0) var<storage> mesh: array<Mesh>;
@vertex fn vs(@builtin(instance_index) i: u32) -> @builtin(position) vec4<f32> {
    return vec4(mesh[i].pos.xy, 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4<f32> { return vec4(1.0); }
";

/// Pixel of the object the other shader draws: past the checked ones.
const OTHER_PIXEL: u32 = 400;

/// Forwards to a pass and counts the immediates set.
struct Counting<'p, 'e>(&'p mut wgpu::RenderPass<'e>, u32);

impl BindTarget for Counting<'_, '_> {
    fn set_bind_group(&mut self, index: u32, group: &wgpu::BindGroup, offsets: &[u32]) {
        self.0.set_bind_group(index, group, offsets);
    }
    fn set_immediates(&mut self, offset: u32, data: &[u8]) {
        self.1 += 1;
        self.0.set_immediates(offset, data);
    }
}

struct Scene {
    h: Headless,
    fb: Manager,
    /// Two shaders (scale 1 and 2), each with its own pipeline layout.
    shaders: [freqbuf::ShaderId; 2],
    pipelines: [wgpu::RenderPipeline; 2],
    target: wgpu::Texture,
    objects: Vec<ObjectId>,
    /// Per object: its material (by position in `materials`) and shader.
    uses: Vec<(usize, usize)>,
    materials: Vec<MaterialId>,
    colors: Vec<[f32; 4]>,
    /// The other shader, its pipeline and its object.
    other: (freqbuf::ShaderId, wgpu::RenderPipeline, ObjectId),
}

/// Registers `source` in family `imm`, whose materials both shaders draw.
fn register(fb: &mut Manager, name: &str, source: &str) -> freqbuf::ShaderId {
    let r =
        freqbuf::reflect::ShaderReflection::new(name, freqbuf::reflect::ShaderSource::Wgsl(source)).unwrap();
    fb.register(r.with_family("imm")).unwrap()
}

/// The application's immediate for shader `s`.
fn app(s: usize) -> u32 {
    7 + s as u32
}

impl Scene {
    fn new() -> Option<Self> {
        let base = gpu::device()?;
        if !base.adapter.features().contains(wgpu::Features::IMMEDIATES) {
            gpu::skip_unoffered(base, "IMMEDIATES");
            return None;
        }
        if !gpu::renders_to(base, FORMAT) {
            return None;
        }
        let h = gpu::device_with(wgpu::Features::IMMEDIATES, |l| l.max_immediate_size = 8)?;
        let mut fb = Manager::new(&h.device, freqbuf::SlotPlan::default());
        let shaders =
            ["1.0", "2.0"].map(|k| register(&mut fb, &format!("imm{k}.wgsl"), &SHADER.replace("SCALE", k)));
        let pipelines =
            shaders.map(|s| gpu::render_pipeline_for(&h, &fb, s, FORMAT, wgpu::PrimitiveTopology::PointList));
        let target = gpu::target(&h, FORMAT, (W, H));
        let (objects, uses, materials, colors) = Default::default();
        let other = fb.register_wgsl("other.wgsl", OTHER).unwrap();
        let other_pipeline =
            gpu::render_pipeline_for(&h, &fb, other, FORMAT, wgpu::PrimitiveTopology::PointList);
        let o = fb.create_object();
        let pos = fb.param("pos").unwrap();
        fb.object(o).set(pos, &gpu::pixel_centre(OTHER_PIXEL, (W, H))).unwrap();
        let other = (other, other_pipeline, o);
        Some(Self { h, fb, shaders, pipelines, target, objects, uses, materials, colors, other })
    }

    fn add_material(&mut self, color: [f32; 4]) -> MaterialId {
        let m = self.fb.create_material_in("imm");
        let p = self.fb.param_in("imm", "material_array.color").unwrap();
        self.fb.material(m).set(p, &color).unwrap();
        self.materials.push(m);
        self.colors.push(color);
        m
    }

    fn add_object(&mut self, material: usize, shader: usize) {
        let i = self.objects.len() as u32;
        let o = self.fb.create_object();
        let (pos, tint) = (self.fb.param("pos").unwrap(), self.fb.param("tint").unwrap());
        self.fb.object(o).set(pos, &gpu::pixel_centre(i, (W, H))).unwrap();
        self.fb.object(o).set(tint, &[0.0, 0.0, i as f32 * 1000.0, 0.0]).unwrap();
        self.objects.push(o);
        self.uses.push((material, shader));
    }

    fn draws(&self) -> Vec<Draw> {
        let draw = |(&o, &(m, s)): (&ObjectId, &(usize, usize))| {
            Draw::new(self.shaders[s]).object(o).material(self.materials[m])
        };
        self.objects.iter().zip(&self.uses).map(draw).collect()
    }

    fn expected(&self, i: usize) -> [f32; 4] {
        let (m, s) = self.uses[i];
        let k = (s + 1) as f32;
        let c = self.colors[m];
        [c[0] * k, c[1] * k, c[2] * k + i as f32 * 1000.0, app(s) as f32]
    }

    /// Renders with `encode` and checks every object against the model.
    fn check<R>(&mut self, what: &str, encode: impl FnOnce(&mut Self, &mut wgpu::RenderPass<'_>) -> R) -> R {
        let view = self.target.create_view(&Default::default());
        let mut enc = self.h.device.create_command_encoder(&Default::default());
        let r = {
            let mut pass = gpu::color_pass(&mut enc, &view);
            encode(self, &mut pass)
        };
        let words = gpu::read_texture(&self.h, enc, &self.target, 16);
        for i in 0..self.objects.len() {
            let got = [0, 1, 2, 3].map(|k| f32::from_bits(words[i * 4 + k]));
            assert_eq!(got, self.expected(i), "{what}: object {i}, uses {:?}", self.uses[i]);
        }
        r
    }

    /// Sets the pipeline of shader `s` and the application's immediate.
    fn set_pipeline(&self, pass: &mut wgpu::RenderPass<'_>, s: usize) {
        pass.set_pipeline(&self.pipelines[s]);
        pass.set_immediates(0, &app(s).to_le_bytes());
    }

    /// Binds draw by draw, the pipeline set before each shader's first
    /// draw, and the other shader drawn wherever the next draw has the same
    /// material and shader; returns the immediates freqbuf set.
    fn by_bind(&mut self) -> u32 {
        self.check("bind", |s, pass| {
            let mut binder = Binder::new();
            let mut counting = Counting(pass, 0);
            let mut shader = None;
            let other = Draw::new(s.other.0).object(s.other.2);
            for (i, d) in s.draws().iter().enumerate() {
                let k = s.uses[i].1;
                if shader != Some(k) {
                    s.set_pipeline(counting.0, k);
                    shader = Some(k);
                }
                let first = binder.bind(&mut s.fb, &mut counting, d).unwrap();
                counting.0.draw(0..1, first..first + 1);
                if s.uses.get(i + 1) == Some(&s.uses[i]) {
                    counting.0.set_pipeline(&s.other.1);
                    let first = binder.bind(&mut s.fb, &mut counting, &other).unwrap();
                    counting.0.draw(0..1, first..first + 1);
                    shader = None;
                }
            }
            counting.1
        })
    }

    /// Draws `list`: the pipeline of the next draw is set after each draw,
    /// so that it comes before that draw's bind.
    fn by_list(&mut self, list: &mut DrawList) {
        self.check("list", |s, pass| {
            let uses = s.uses.clone();
            s.set_pipeline(pass, uses[0].1);
            let pipelines = &s.pipelines;
            Binder::new()
                .bind_list(&mut s.fb, pass, list, |pass, i, first| {
                    pass.draw(0..1, first..first + 1);
                    if let Some(&(_, k)) = uses.get(i + 1).filter(|n| n.1 != uses[i].1) {
                        pass.set_pipeline(&pipelines[k]);
                        pass.set_immediates(0, &app(k).to_le_bytes());
                    }
                })
                .unwrap();
        })
    }

    /// Draws `list` as indirect runs; returns the draw calls.
    fn by_indirect(&mut self, list: &mut DrawList, args: &mut IndirectDraws) -> u64 {
        self.fb.take_stats();
        self.check("indirect", |s, pass| {
            let uses = s.uses.clone();
            let (pipelines, queue) = (&s.pipelines, &s.h.queue);
            Binder::new()
                .draw_indirect(&mut s.fb, queue, pass, list, args, |pass, i| {
                    pass.set_pipeline(&pipelines[uses[i].1]);
                    pass.set_immediates(0, &app(uses[i].1).to_le_bytes());
                })
                .unwrap();
        });
        self.fb.take_stats().total().draw_calls
    }
}

#[test]
fn draws_find_their_material_through_the_immediate_data() {
    let Some(mut s) = Scene::new() else { return };
    let slab = s.fb.registry().slot_at(BindingPoint::new(2, 10)).unwrap();
    assert_eq!(
        s.fb.registry()[slab].slab(),
        Some(&SlabSource { from: SlabFrom::Immediate, member: "material".into(), offset: 4, mask: !0 })
    );
    for k in 0..40 {
        s.add_material([k as f32, 1.0 + k as f32 / 10.0, 0.5, 1.0]);
    }
    // Runs of 1 to 3 objects per material, the shader switching every 100
    // objects without a change of material there: the switch alone must set
    // the element again, as the new pipeline layout cleared it.
    let material = |i: usize| (i / (1 + i % 3)) % 40;
    for i in 0..300usize {
        s.add_object(if i % 100 == 0 && i > 0 { material(i - 1) } else { material(i) }, i / 100 % 2);
    }
    s.fb.flush(&s.h.queue).unwrap();
    let changes = (0..300).filter(|&i| i == 0 || s.uses[i] != s.uses[i - 1]).count() as u32;
    // Binds also set it again after each of the other shader's draws.
    let after_other = (1..300).filter(|&i| s.uses[i] == s.uses[i - 1]).count() as u32;
    assert!(after_other >= 5, "{after_other} draws after the other shader's");
    assert_eq!(s.by_bind(), changes + after_other, "one set_immediates per change of material or shader");

    // No link is needed, so the list draws before any second flush.
    let draws = s.draws();
    let mut list = s.fb.draw_list(&draws).unwrap();
    s.by_list(&mut list);
    s.by_list(&mut list); // the replay

    let mut args = IndirectDraws::new(vec![freqbuf::DrawArgs::vertices(1, 0); 300]);
    let calls = s.by_indirect(&mut list, &mut args);
    let indirect = s.h.adapter.features().contains(wgpu::Features::INDIRECT_FIRST_INSTANCE);
    if indirect {
        assert_eq!(calls, changes as u64, "an indirect run ends where the element changes");
    }

    // Values change; material 3 is freed and its element reused by a new one.
    let color = s.fb.param_in("imm", "color").unwrap();
    s.fb.material(s.materials[5]).set(color, &[50.0, 0.0, 0.0, 1.0]).unwrap();
    s.colors[5] = [50.0, 0.0, 0.0, 1.0];
    s.fb.free_material(s.materials[3]).unwrap();
    let fresh = s.add_material([0.0, 0.0, 33.0, 1.0]);
    for u in s.uses.iter_mut().filter(|u| u.0 == 3) {
        u.0 = 40;
    }
    assert_eq!(s.fb.slab_element(fresh).ok(), Some(3), "the freed element is reused");
    s.fb.flush(&s.h.queue).unwrap();
    s.by_bind();
    let draws = s.draws();
    let mut list = s.fb.draw_list(&draws).unwrap();
    s.by_list(&mut list);
    s.by_indirect(&mut list, &mut args);
}

#[test]
fn an_element_past_the_immediates_mask_is_refused_at_the_bind() {
    let Some(mut s) = Scene::new() else { return };
    let masked = SHADER.replace("SCALE", "1.0").replace("[imm.material]", "[imm.material & 0x3u]");
    let r =
        freqbuf::reflect::ShaderReflection::new("masked.wgsl", freqbuf::reflect::ShaderSource::Wgsl(&masked));
    let shader = s.fb.register(r.unwrap().with_family("masked")).unwrap();
    let materials = (0..5).map(|_| s.fb.create_material_in("masked")).collect::<Vec<_>>();
    let o = s.fb.create_object();
    s.fb.flush(&s.h.queue).unwrap();
    let view = s.target.create_view(&Default::default());
    let mut enc = s.h.device.create_command_encoder(&Default::default());
    let mut pass = gpu::color_pass(&mut enc, &view);
    let mut binder = Binder::new();
    let fits = Draw::new(shader).object(o).material(materials[3]);
    binder.bind(&mut s.fb, &mut pass, &fits).unwrap();
    let e = binder.bind(&mut s.fb, &mut pass, &Draw::new(shader).object(o).material(materials[4]));
    assert_eq!(
        common::chain(&e.unwrap_err()),
        "masked.wgsl: element 4 of slab @group(2) @binding(10) does not fit member `material` under mask 0x3; free instances so that their elements are reused"
    );
}
