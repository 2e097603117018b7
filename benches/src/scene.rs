//! The scene generator: objects (one draw each), shaders, materials, views, and
//! what changes every frame. Deterministic from the seed, so every method sees
//! the same frames and must render the same image.

use std::fmt::Write as _;

/// What a scene is made of and how much of it changes per frame.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneParams {
    /// Objects; each is drawn once per frame.
    pub objects: usize,
    /// Distinct shaders (families × permutations).
    pub shaders: usize,
    /// Materials; each uses one shader.
    pub materials: usize,
    /// Views; each object is drawn in one of them (split screen).
    pub views: usize,
    /// Fraction of objects that move each frame.
    pub moving: f64,
    /// Fraction of materials whose colour changes each frame.
    pub material_changes: f64,
    /// Whether the cameras move each frame.
    pub camera_moves: bool,
    /// Frames to run.
    pub frames: u32,
    /// Seed of everything random.
    pub seed: u64,
    /// Shaders read object data from an array slot
    /// (`var<storage, read> objects: array<Object>`) by instance index.
    pub object_storage: bool,
    /// Also generate each shader's bindless form (`Scene::bindless_shaders`):
    /// materials in one storage array (a slab), found through the object's
    /// `material` member. Needs `object_storage`.
    pub bindless: bool,
    /// The bindless shaders also read a texel of their material's texture
    /// from a binding array (`textures[material.texture]`, Bevy's
    /// `bindless_textures_2d`; `textures.rs`). Needs `bindless`.
    pub textures: bool,
}

impl SceneParams {
    /// 10,000 objects, 100 shaders, 1,000 materials, 2 views; 10% of objects and 1% of materials change per frame.
    pub fn reference() -> Self {
        Self {
            objects: 10_000,
            shaders: 100,
            materials: 1_000,
            views: 2,
            moving: 0.10,
            material_changes: 0.01,
            camera_moves: true,
            frames: 60,
            seed: 1,
            object_storage: false,
            bindless: false,
            textures: false,
        }
    }

    /// The reference scene with nothing moving: only the frame time changes.
    pub fn static_scene() -> Self {
        Self { moving: 0.0, material_changes: 0.0, camera_moves: false, ..Self::reference() }
    }

    /// The reference scene with every object and material changing every frame.
    pub fn everything_moves() -> Self {
        Self { moving: 1.0, material_changes: 1.0, ..Self::reference() }
    }
}

/// Column-major 4×4 matrix, as WGSL's `mat4x4<f32>`.
pub type Mat4 = [[f32; 4]; 4];

/// Which members of the shared blocks a shader declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decl {
    /// Frame block: `ambient` after `time` (else the prefix `time` only).
    pub ambient: bool,
    /// Material block: `params` (else the prefix `base_color` only, or with `emissive` a subset).
    pub params: bool,
    /// Material block: `emissive`.
    pub emissive: bool,
    /// Object block: `tint` after `world`.
    pub tint: bool,
}

/// One generated shader.
#[derive(Clone, Debug)]
pub struct ShaderDef {
    /// Name, e.g. `lit_07.wgsl`.
    pub name: String,
    /// WGSL source.
    pub wgsl: String,
    /// The members it declares.
    pub decl: Decl,
}

/// Values of one material.
#[derive(Clone, Debug, PartialEq)]
pub struct MaterialDef {
    pub shader: usize,
    pub base_color: [f32; 4],
    pub params: [f32; 4],
    pub emissive: [f32; 4],
}

/// Values of one object.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectDef {
    pub material: usize,
    pub view: usize,
    pub world: Mat4,
    pub tint: [f32; 4],
}

/// What changes in one frame.
#[derive(Clone, Debug, Default)]
pub struct FrameChanges {
    pub frame: u32,
    pub time: f32,
    /// New view matrices, by view (empty when the cameras do not move).
    pub views: Vec<(usize, Mat4)>,
    /// Moved objects and their new world matrices.
    pub objects: Vec<(usize, Mat4)>,
    /// Materials and their new base colours.
    pub materials: Vec<(usize, [f32; 4])>,
}

/// A generated scene and its current values.
#[derive(Clone, Debug)]
pub struct Scene {
    pub params: SceneParams,
    pub shaders: Vec<ShaderDef>,
    /// With `bindless`: the same shaders reading materials from a slab
    /// (the same images); else empty.
    pub bindless_shaders: Vec<ShaderDef>,
    pub materials: Vec<MaterialDef>,
    pub objects: Vec<ObjectDef>,
    /// View matrices.
    pub views: Vec<Mat4>,
    pub ambient: [f32; 4],
    /// Object indices in draw order: sorted by view, shader, then material
    /// (the objects are numbered so, so this is `0..n`).
    pub draws: Vec<usize>,
    pub time: f32,
    pub frame_index: u32,
    /// With object storage: every object's element as the object array lays
    /// it out (world and tint), kept by [`Scene::apply`]: the application's
    /// own packed array, which the storage peers and `freqbuf_rows` upload
    /// from. Else empty.
    pub rows: Vec<u8>,
    /// With bindless: the same for the bindless shaders, whose element also
    /// holds the material's element in the material array. Else empty.
    pub bindless_rows: Vec<u8>,
}

/// splitmix64: small, seedable and reproducible.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

const FAMILIES: [&str; 4] = ["lit", "unlit", "emissive", "fancy"];

impl Scene {
    /// Generates the scene at frame 0.
    pub fn new(params: &SceneParams) -> Self {
        let mut rng = Rng::new(params.seed);
        let form = |bindless| Form {
            storage: params.object_storage || bindless,
            bindless,
            textures: bindless && params.textures,
        };
        let shaders = (0..params.shaders).map(|i| shader(i, params.shaders, form(false))).collect::<Vec<_>>();
        let bindless_shaders = match params.bindless {
            true => (0..params.shaders).map(|i| shader(i, params.shaders, form(true))).collect(),
            false => Vec::new(),
        };
        let materials = (0..params.materials)
            .map(|i| MaterialDef {
                shader: i % params.shaders.max(1),
                base_color: [rng.unit(), rng.unit(), rng.unit(), 1.0],
                params: [rng.unit(), rng.unit(), 0.0, 0.0],
                emissive: [rng.unit() * 0.2, rng.unit() * 0.2, rng.unit() * 0.2, 0.0],
            })
            .collect::<Vec<_>>();
        let objects = (0..params.objects)
            .map(|i| ObjectDef {
                material: rng.below(params.materials.max(1)),
                view: i % params.views.max(1),
                world: world(&mut rng),
                tint: [0.5 + rng.unit() * 0.5, 0.5 + rng.unit() * 0.5, 0.5 + rng.unit() * 0.5, 1.0],
            })
            .collect::<Vec<_>>();
        let mut draws = (0..objects.len()).collect::<Vec<_>>();
        // View by view, as a renderer draws each view's pass: runs of one
        // pipeline and material then span consecutive draws.
        draws.sort_by_key(|&o| {
            (objects[o].view, materials[objects[o].material].shader, objects[o].material, o)
        });
        // Objects numbered in draw order, as a renderer that sorts its
        // objects keeps them (Bevy's batches): a run's objects are then
        // consecutive elements, and an indirect run is one instanced command.
        let objects = draws.iter().map(|&o| objects[o].clone()).collect::<Vec<_>>();
        let draws = (0..objects.len()).collect::<Vec<_>>();
        let views = (0..params.views).map(|v| view_matrix(v, params.views, 0.0)).collect();
        let mut scene = Self {
            params: params.clone(),
            shaders,
            bindless_shaders,
            materials,
            objects,
            views,
            ambient: [0.05, 0.05, 0.08, 0.0],
            draws,
            time: 0.0,
            frame_index: 0,
            rows: Vec::new(),
            bindless_rows: Vec::new(),
        };
        let n = scene.objects.len();
        if params.object_storage || params.bindless {
            scene.rows = vec![0; n * crate::OBJECT_STRIDE as usize];
        }
        if params.bindless {
            scene.bindless_rows = vec![0; n * crate::BINDLESS_OBJECT_STRIDE as usize];
        }
        (0..n).for_each(|o| scene.pack_row(o));
        scene
    }

    /// The packed object array for the plain or the bindless shaders.
    pub fn rows(&self, bindless: bool) -> &[u8] {
        if bindless { &self.bindless_rows } else { &self.rows }
    }

    /// Packs object `o` into its element of [`Scene::rows`] and [`Scene::bindless_rows`].
    fn pack_row(&mut self, o: usize) {
        let object = &self.objects[o];
        for (rows, n) in [
            (&mut self.rows, crate::OBJECT_STRIDE as usize),
            (&mut self.bindless_rows, crate::BINDLESS_OBJECT_STRIDE as usize),
        ] {
            let Some(row) = rows.get_mut(o * n..(o + 1) * n) else { continue };
            crate::objects::pack_object(object, row);
            if n > crate::method::off::MATERIAL {
                let m = object.material as u32;
                row[crate::method::off::MATERIAL..][..4].copy_from_slice(&m.to_le_bytes());
            }
        }
    }

    /// The changes of frame `frame` (1-based: frame 0 is the initial state).
    pub fn changes(&self, frame: u32) -> FrameChanges {
        let p = &self.params;
        let mut rng = Rng::new(p.seed.wrapping_mul(1_000_003).wrapping_add(frame as u64));
        let time = frame as f32 / 60.0;
        let views = if p.camera_moves {
            (0..p.views).map(|v| (v, view_matrix(v, p.views, time))).collect()
        } else {
            Vec::new()
        };
        let pick = |rng: &mut Rng, n: usize, fraction: f64| -> Vec<usize> {
            let k = ((n as f64) * fraction).round() as usize;
            if k >= n {
                return (0..n).collect();
            }
            // Distinct picks without a full shuffle: stride through a random start.
            let start = rng.below(n.max(1));
            let step = (n / k.max(1)).max(1);
            (0..k)
                .map(|i| (start + i * step + rng.below(step)) % n)
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect()
        };
        let objects = pick(&mut rng, p.objects, p.moving).into_iter().map(|o| (o, world(&mut rng))).collect();
        let materials = pick(&mut rng, p.materials, p.material_changes)
            .into_iter()
            .map(|m| (m, [rng.unit(), rng.unit(), rng.unit(), 1.0]))
            .collect();
        FrameChanges { frame, time, views, objects, materials }
    }

    /// Applies a frame's changes to the scene's values.
    pub fn apply(&mut self, c: &FrameChanges) {
        self.time = c.time;
        self.frame_index = c.frame;
        for &(v, m) in &c.views {
            self.views[v] = m;
        }
        for &(o, w) in &c.objects {
            self.objects[o].world = w;
            self.pack_row(o);
        }
        for &(m, col) in &c.materials {
            self.materials[m].base_color = col;
        }
    }

    /// The bytes whose values changed in a frame, counted by value (member):
    /// a changed matrix counts 64 bytes. Every design must send at least these.
    pub fn minimal_bytes(&self, c: &FrameChanges) -> u64 {
        let mut bytes = 0u64;
        if c.time != self.time {
            bytes += 4;
        }
        if c.frame != self.frame_index && self.shaders.iter().any(|s| s.decl.ambient) {
            bytes += 4;
        }
        bytes += c.views.iter().filter(|(v, m)| self.views[*v] != *m).count() as u64 * 64;
        bytes += c.objects.iter().filter(|(o, w)| self.objects[*o].world != *w).count() as u64 * 64;
        bytes +=
            c.materials.iter().filter(|(m, col)| self.materials[*m].base_color != *col).count() as u64 * 16;
        bytes
    }
}

/// A random small rotated, translated quad transform; every element but the last row changes.
fn world(rng: &mut Rng) -> Mat4 {
    let (ax, ay) = (rng.unit() * std::f32::consts::TAU, rng.unit() * std::f32::consts::TAU);
    let s = 0.01 + rng.unit() * 0.02;
    let (sx, cx, sy, cy) = (ax.sin(), ax.cos(), ay.sin(), ay.cos());
    [
        [cy * s, sx * sy * s, -cx * sy * s, 0.0],
        [0.0, cx * s, sx * s, 0.0],
        [sy * s, -sx * cy * s, cx * cy * s, 0.0],
        [rng.unit() * 2.0 - 1.0, rng.unit() * 2.0 - 1.0, 0.5, 1.0],
    ]
}

/// View `v` of `n`: a slowly rotating camera drawn into its own vertical strip.
fn view_matrix(v: usize, n: usize, time: f32) -> Mat4 {
    let n = n.max(1) as f32;
    let (s, c) = (time * 0.5).sin_cos();
    let w = 1.0 / n;
    let x = -1.0 + w * (2.0 * v as f32 + 1.0);
    [[c * w, s, 0.0, 0.0], [-s * w, c, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [x, 0.0, 0.0, 1.0]]
}

/// How a generated shader reads its data.
#[derive(Clone, Copy)]
struct Form {
    /// Objects in an array slot read by instance index.
    storage: bool,
    /// Materials in a slab, `materials[objects[i].material]`.
    bindless: bool,
    /// And a texel of `textures[material.texture]` (bindless only).
    textures: bool,
}

/// Shader `i` of `n`: a family and a permutation of declared members. With
/// `storage`, object data is an array slot that every shader declares with
/// the same 80-byte element (a shader without `tint` pads it); `bindless`
/// adds the object's `material` (96 bytes) and reads a 48-byte material
/// element from a slab, padded where the permutation declares less.
fn shader(i: usize, n: usize, form: Form) -> ShaderDef {
    let Form { storage, bindless, textures } = form;
    let family = FAMILIES[i % FAMILIES.len()];
    let perm = i / FAMILIES.len();
    let decl = match family {
        "unlit" => Decl { ambient: false, params: false, emissive: false, tint: perm % 2 == 1 },
        "emissive" => Decl {
            ambient: perm.is_multiple_of(2),
            params: false,
            emissive: true,
            tint: perm.is_multiple_of(3),
        },
        "fancy" => Decl { ambient: true, params: true, emissive: true, tint: true },
        _ => Decl {
            ambient: perm % 2 == 1,
            params: true,
            emissive: perm % 3 == 1,
            tint: perm.is_multiple_of(2),
        },
    };
    let mut w = String::new();
    if textures {
        w.push_str("enable wgpu_binding_array;\n");
    }
    let _ = writeln!(w, "// {family} permutation {perm} of {n}");
    w.push_str(if decl.ambient {
        "struct Frame { time: f32, frame_index: u32, _pad0: vec2<f32>, ambient: vec4<f32> }\n"
    } else {
        "struct Frame { time: f32 }\n"
    });
    w.push_str("struct View { view_proj: mat4x4<f32> }\n");
    let material = match (decl.params, decl.emissive, bindless) {
        (true, true, _) => {
            "struct Material { base_color: vec4<f32>, params: vec4<f32>, emissive: vec4<f32> }\n"
        }
        (true, false, false) => "struct Material { base_color: vec4<f32>, params: vec4<f32> }\n",
        (true, false, true) => {
            "struct Material { base_color: vec4<f32>, params: vec4<f32>, _pad1: vec4<f32> }\n"
        }
        (false, true, _) => {
            "struct Material { base_color: vec4<f32>, _pad0: vec4<f32>, emissive: vec4<f32> }\n"
        }
        (false, false, false) => "struct Material { base_color: vec4<f32> }\n",
        (false, false, true) => {
            "struct Material { base_color: vec4<f32>, _pad0: vec4<f32>, _pad1: vec4<f32> }\n"
        }
    };
    w.push_str(&match textures {
        // The texture's element in the vec4's last lane: the element stays 48 bytes.
        true => crate::textures::material_struct(material),
        false => material.to_owned(),
    });
    let pointer = if bindless { ", material: u32, _pad1: u32, _pad2: u32, _pad3: u32" } else { "" };
    let _ = match (decl.tint, storage) {
        (true, _) => writeln!(w, "struct Object {{ world: mat4x4<f32>, tint: vec4<f32>{pointer} }}"),
        (false, true) => writeln!(w, "struct Object {{ world: mat4x4<f32>, _pad0: vec4<f32>{pointer} }}"),
        (false, false) => writeln!(w, "struct Object {{ world: mat4x4<f32> }}"),
    };
    w.push_str(
        "@group(0) @binding(0) var<uniform> frame: Frame;\n\
         @group(1) @binding(0) var<uniform> view: View;\n",
    );
    w.push_str(if bindless {
        "@group(2) @binding(0) var<storage, read> materials: array<Material>;\n"
    } else {
        "@group(2) @binding(0) var<uniform> material: Material;\n"
    });
    if textures {
        w.push_str("@group(2) @binding(1) var textures: binding_array<texture_2d<f32>>;\n");
    }
    w.push_str(if storage {
        "@group(3) @binding(0) var<storage, read> objects: array<Object>;\n"
    } else {
        "@group(3) @binding(0) var<uniform> object: Object;\n"
    });
    let instance = if bindless { ", @location(1) @interpolate(flat) instance: u32" } else { "" };
    let _ = writeln!(
        w,
        "struct VsOut {{ @builtin(position) pos: vec4<f32>, @location(0) tint: vec4<f32>{instance} }}"
    );
    w.push_str(
        "@vertex fn vs(@builtin(vertex_index) i: u32, @builtin(instance_index) ii: u32) -> VsOut {\n\
             let corner = vec2<f32>(f32(i & 1u), f32((i >> 1u) & 1u)) * 2.0 - 1.0;\n",
    );
    if storage {
        w.push_str("    let object = objects[ii];\n");
    }
    w.push_str("    let p = view.view_proj * object.world * vec4<f32>(corner, 0.0, 1.0);\n");
    let tint = if decl.tint { "object.tint" } else { "vec4<f32>(1.0)" };
    let ii = if bindless { ", ii" } else { "" };
    let _ = writeln!(w, "    return VsOut(vec4<f32>(p.xy, 0.5, 1.0), {tint}{ii});\n}}");
    w.push_str("@fragment fn fs(v: VsOut) -> @location(0) vec4<f32> {\n");
    if bindless {
        w.push_str("    let material = materials[objects[v.instance].material];\n");
    }
    w.push_str("    var c = material.base_color * v.tint;\n");
    if textures {
        w.push_str(
            "    c = c * textureLoad(textures[material.texture], vec2<i32>(v.pos.xy) & vec2<i32>(3), 0);\n",
        );
    }
    if decl.params {
        w.push_str("    c = c * (1.0 - 0.5 * material.params.x);\n");
    }
    if decl.emissive {
        w.push_str("    c = c + material.emissive;\n");
    }
    if decl.ambient {
        w.push_str("    c = c + frame.ambient;\n");
    }
    let _ = writeln!(
        w,
        "    return vec4<f32>(c.rgb * {:.4} + vec3<f32>(frame.time * 0.0), 1.0);\n}}",
        1.0 - perm as f32 * 0.001
    );
    ShaderDef { name: format!("{family}_{perm:02}.wgsl"), wgsl: w, decl }
}
