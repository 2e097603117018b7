//! The page's scene: 1,024 squares in two views, four material types with
//! unrelated layouts (one family each), object data in an array slot. Every
//! corner is a whole pixel and every colour a multiple of 1/255 that no sum
//! rounds, so any conforming rasterizer (lavapipe natively, SwiftShader behind
//! Chromium's WebGPU or WebGL2) writes the same bytes, and one checksum can be
//! compared across them.

use crate::passes::{clear_pass, vs_fs_pipeline};
use freqbuf::{
    Addressing, Binder, Draw, Error, Manager, MaterialId, ObjectId, Param, ShaderId, SlotPlan, ViewId,
};

/// Width and height of the picture, in pixels.
pub const SIZE: u32 = 256;
/// The picture's format.
pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
/// The frame whose picture is checksummed (frames count from 0).
pub const CHECK_FRAME: u32 = 30;
/// Squares, one draw each.
pub const OBJECTS: usize = (2 * COLS * ROWS) as usize;

const CELL: u32 = 8;
/// Columns of cells in each of the two views (left and right half).
const COLS: u32 = SIZE / 2 / CELL;
const ROWS: u32 = SIZE / CELL;
const MATERIALS_PER_TYPE: usize = 8;

/// Frame, view and object data every shader shares, and the vertex stage.
/// `Frame` is padded to 16 bytes, which WebGL2 needs of every uniform type.
/// On a device without vertex storage freqbuf rewrites `objects` to batches
/// of a uniform array.
const COMMON: &str = "
struct Frame { phase: u32, _pad: vec3<u32> }
struct View { origin: vec4<f32> }
struct Object { rect: vec4<f32>, tint: vec4<f32> }
@group(0) @binding(0) var<uniform> frame: Frame;
@group(1) @binding(0) var<uniform> view: View;
@group(3) @binding(0) var<storage, read> objects: array<Object>;
struct VsOut { @builtin(position) pos: vec4<f32>, @location(0) @interpolate(flat) tint: vec4<f32> }
@vertex fn vs(@builtin(vertex_index) i: u32, @builtin(instance_index) ii: u32) -> VsOut {
    let o = objects[ii];
    let corner = vec2<f32>(f32(i & 1u), f32(i >> 1u));
    let p = view.origin.xy + o.rect.xy + corner * o.rect.zw;
    return VsOut(vec4<f32>(p.x / 128.0 - 1.0, 1.0 - p.y / 128.0, 0.0, 1.0), o.tint);
}
";

/// The material types: name, fragment part, and the member whose colour
/// changes at run time.
const TYPES: [(&str, &str, &str); 4] = [
    (
        "flat.wgsl",
        "struct Material { color: vec4<f32> }
@group(2) @binding(0) var<uniform> material: Material;
@fragment fn fs(v: VsOut) -> @location(0) vec4<f32> { return material.color; }",
        "color",
    ),
    (
        "tinted.wgsl",
        "struct Material { base: vec4<f32>, tint_on: f32 }
@group(2) @binding(0) var<uniform> material: Material;
@fragment fn fs(v: VsOut) -> @location(0) vec4<f32> { return material.base + v.tint * material.tint_on; }",
        "base",
    ),
    (
        "striped.wgsl",
        "struct Material { width: u32, even: vec4<f32>, odd: vec4<f32> }
@group(2) @binding(0) var<uniform> material: Material;
@fragment fn fs(v: VsOut) -> @location(0) vec4<f32> {
    let x = u32(v.pos.x) + frame.phase;
    if ((x / material.width) & 1u) == 0u { return material.even + v.tint; }
    return material.odd;
}",
        "even",
    ),
    // Compiled from WESL by the effects layer (`CHECKER_WESL`), not registered as WGSL.
    ("checker.wgsl", "", "light"),
];

/// The checker type as a WESL effect: its tint is an `@if` flag, switched
/// on, and its bind group a `constants` value from the effect's `[defs]`,
/// as Bevy 0.20 writes its materials. Draws what a WGSL checker would.
const CHECKER_TOML: &str = r#"source = "checker.wesl"
family = "checker.wgsl"
flags = ["TINTED"]
[defs]
MATERIAL_GROUP = 2
[[technique]]
name = "t"
  [[technique.pass]]
  name = "p"
  vertex = "vs"
  fragment = "fs"
"#;
const CHECKER_FRAGMENT: &str = "
struct Material { cells: vec2<u32>, light: vec4<f32>, dark: vec4<f32> }
@group(constants::MATERIAL_GROUP) @binding(0) var<uniform> material: Material;
@fragment fn fs(v: VsOut) -> @location(0) vec4<f32> {
    let c = vec2<u32>(v.pos.xy) / material.cells;
    if ((c.x + c.y + frame.phase / 4u) & 1u) == 0u { return material.light; }
    var dark = material.dark;
    @if(TINTED)
    dark = dark + v.tint;
    return dark;
}";

/// `k / 255`: a value that 8-bit unorm stores exactly, and that sums of
/// such values keep exact.
#[inline]
fn unorm(k: u32) -> f32 {
    k as f32 / 255.0
}

/// A colour from a seed, each channel at most `max / 255`.
fn color(seed: u32, max: u32) -> [f32; 4] {
    let h = seed.wrapping_mul(0x9E37_79B9) ^ (seed >> 7);
    [unorm((h >> 3) % (max + 1)), unorm((h >> 11) % (max + 1)), unorm((h >> 19) % (max + 1)), 1.0]
}

/// What one frame cost, from freqbuf's statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameInfo {
    /// The frame just drawn (from 0).
    pub frame: u32,
    /// Bytes uploaded by the flush.
    pub bytes: u64,
    /// `set_bind_group` calls.
    pub binds: u64,
    /// Draw calls.
    pub draws: u64,
}

/// The scene, its freqbuf manager, its pipelines and the picture it draws into.
#[derive(Debug)]
pub struct Demo {
    m: Manager,
    pipelines: Vec<wgpu::RenderPipeline>,
    /// The changing colour of each material type.
    colors: Vec<Param>,
    rect: Param,
    phase: Param,
    materials: Vec<(usize, MaterialId)>,
    objects: Vec<ObjectId>,
    /// (pipeline, draw) in draw order: by view, material type, then material.
    draws: Vec<(usize, Draw)>,
    target: wgpu::Texture,
    frame: u32,
}

impl Demo {
    /// Registers the shaders, builds their pipelines and sets frame 0's
    /// values. `downlevel` is the adapter's: with the device's limits it
    /// decides whether objects live in a storage buffer or in batched uniform arrays.
    pub fn new(device: &wgpu::Device, downlevel: wgpu::DownlevelFlags) -> Result<Self, DemoError> {
        let mut m = Manager::with_downlevel(device, SlotPlan::default(), downlevel);
        let mut shaders = Vec::new();
        for (name, fragment, _) in &TYPES[..3] {
            shaders.push(m.register_wgsl(name, &format!("{COMMON}{fragment}"))?);
        }
        shaders.push(checker(&mut m)?);
        let pipelines =
            shaders.iter().map(|&s| pipeline(device, &m, s)).collect::<Result<Vec<_>, Error>>()?;
        let colors =
            TYPES.iter().map(|(name, _, member)| m.param_in(name, member)).collect::<Result<Vec<_>, _>>()?;
        let (rect, tint, phase, origin) =
            (m.param("rect")?, m.param("tint")?, m.param("phase")?, m.param("origin")?);

        let views: Vec<ViewId> = (0..2).map(|_| m.create_view()).collect();
        for (v, &id) in views.iter().enumerate() {
            m.view(id).set(origin, &[(v as u32 * SIZE / 2) as f32, 0.0, 0.0, 0.0])?;
        }
        let mut materials = Vec::new();
        for (t, (name, _, _)) in TYPES.iter().enumerate() {
            for j in 0..MATERIALS_PER_TYPE {
                let id = m.create_material_in(name);
                let seed = (t * MATERIALS_PER_TYPE + j) as u32;
                m.material(id).set(colors[t], &color(seed, 191))?;
                set_type_values(&mut m, name, id, seed)?;
                materials.push((t, id));
            }
        }
        let mut objects = Vec::with_capacity(OBJECTS);
        let mut order = Vec::with_capacity(OBJECTS);
        for o in 0..OBJECTS as u32 {
            let id = m.create_object();
            m.object(id).set(rect, &square(o, 0))?;
            m.object(id).set(tint, &color(o + 1000, 63))?;
            let material = (o as usize * 7 + o as usize / 3) % materials.len();
            order.push((view_of(o), materials[material].0, material, o));
            objects.push(id);
        }
        order.sort_unstable();
        let draws = order
            .into_iter()
            .map(|(v, t, mat, o)| {
                let draw = Draw::new(shaders[t]).view(views[v]).material(materials[mat].1);
                (t, draw.object(objects[o as usize]))
            })
            .collect();
        let target = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("freqbuf-web picture"),
            size: wgpu::Extent3d { width: SIZE, height: SIZE, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        Ok(Self { m, pipelines, colors, rect, phase, materials, objects, draws, target, frame: 0 })
    }

    /// How freqbuf addresses the objects on this device, in words: a
    /// storage buffer, or batched uniform arrays where there is none.
    pub fn objects_in(&self) -> String {
        let slot = self.m.registry().slots().find(|(_, layout)| layout.is_array()).map(|(id, _)| id);
        match slot.and_then(|id| self.m.slot_addressing(id)) {
            Some(Addressing::Storage) => "a storage buffer".to_owned(),
            Some(Addressing::Batched { per }) => format!("batched uniform arrays of {per}"),
            other => format!("{other:?}"),
        }
    }

    /// The picture: what the last [`Demo::draw`] drew.
    pub fn picture(&self) -> &wgpu::Texture {
        &self.target
    }

    /// Sets the next frame's changes (every tenth object moves, one
    /// material's colour changes, the stripes' phase), flushes, and encodes
    /// every draw into the picture.
    pub fn draw(
        &mut self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<FrameInfo, Error> {
        let f = self.frame;
        self.m.frame().set(self.phase, &f)?;
        if f > 0 {
            for (o, &id) in self.objects.iter().enumerate() {
                if (o as u32 + f).is_multiple_of(10) {
                    self.m.object(id).set(self.rect, &square(o as u32, f))?;
                }
            }
            let (t, id) = self.materials[f as usize % self.materials.len()];
            self.m.material(id).set(self.colors[t], &color(f * 37, 191))?;
        }
        self.m.flush(queue)?;
        let view = self.target.create_view(&Default::default());
        let mut pass = clear_pass(encoder, &view, "freqbuf-web scene");
        let mut binder = Binder::new();
        let mut current = usize::MAX;
        for (p, draw) in &self.draws {
            if *p != current {
                pass.set_pipeline(&self.pipelines[*p]);
                current = *p;
            }
            let first = binder.bind(&mut self.m, &mut pass, draw)?;
            pass.draw(0..4, first..first + 1);
        }
        drop(pass);
        let stats = self.m.take_stats().total();
        self.frame += 1;
        Ok(FrameInfo {
            frame: f,
            bytes: stats.bytes_uploaded,
            binds: stats.set_bind_group_calls,
            draws: self.draws.len() as u64,
        })
    }
}

/// The view (left or right half) an object is in.
fn view_of(o: u32) -> usize {
    (o / (COLS * ROWS)) as usize
}

/// Object `o`'s square at frame `f`: a 6-pixel square in its cell, shifted
/// by whole pixels whenever it moves, never leaving the cell (so squares
/// never overlap and draw order cannot change a pixel).
fn square(o: u32, f: u32) -> [f32; 4] {
    let i = o % (COLS * ROWS);
    let shift = (o + f / 10) % 3;
    let x = (i % COLS) * CELL + shift;
    let y = (i / COLS) * CELL + (shift + 1) % 3;
    [x as f32, y as f32, 6.0, 6.0]
}

/// The members only one material type has.
fn set_type_values(m: &mut Manager, family: &str, id: MaterialId, seed: u32) -> Result<(), Error> {
    match family {
        "tinted.wgsl" => set_in(m, family, id, "tint_on", &((seed % 2) as f32)),
        "striped.wgsl" => {
            set_in(m, family, id, "width", &(1 + seed % 4))?;
            set_in(m, family, id, "odd", &color(seed + 500, 191))
        }
        "checker.wgsl" => {
            set_in(m, family, id, "cells", &[1 + seed % 3, 2 + seed % 2])?;
            set_in(m, family, id, "dark", &color(seed + 700, 127))
        }
        _ => Ok(()),
    }
}

fn set_in<T: freqbuf::Uniform>(
    m: &mut Manager,
    family: &str,
    id: MaterialId,
    name: &str,
    value: &T,
) -> Result<(), Error> {
    let p = m.param_in(family, name)?;
    m.material(id).set(p, value)
}

/// Why the scene could not be made: the core or the effects layer said so.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// The core refused a shader or a value.
    #[error(transparent)]
    Manager(#[from] Error),
    /// A name the scene looks up is not in its shaders.
    #[error(transparent)]
    Param(#[from] freqbuf::ParamError),
    /// The WESL effect did not load or compose.
    #[error(transparent)]
    Effect(#[from] freqbuf_effects::EffectError),
}

/// The checker type's shader: its WESL effect loaded from text, composed
/// with `TINTED` on and registered in `m`.
fn checker(m: &mut Manager) -> Result<ShaderId, DemoError> {
    let mut fx = freqbuf_effects::Effects::new();
    let effect = fx.add("checker.effect.toml", CHECKER_TOML, &format!("{COMMON}{CHECKER_FRAGMENT}"))?;
    let flags = fx.flags(effect, &["TINTED"])?;
    Ok(fx.shader(m, flags)?)
}

/// The type's pipeline: the scene's vertex stage and its fragment stage.
fn pipeline(device: &wgpu::Device, m: &Manager, shader: ShaderId) -> Result<wgpu::RenderPipeline, Error> {
    let module = m.create_shader_module(shader)?;
    let layout = m.pipeline_layout(shader)?;
    Ok(vs_fs_pipeline(device, &module, Some(layout), FORMAT, wgpu::PrimitiveTopology::TriangleStrip))
}
