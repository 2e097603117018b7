//! The effect file: TOML read with serde. Field names are the file's; every
//! value that can be wrong keeps its span, so errors point at `file:line:column`.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

/// An effect file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EffectFile {
    /// Defaults to the file stem.
    pub(crate) name: Option<String>,
    /// The family whose material layout it shares (`family = "pbr"`);
    /// defaults to its own, named as the effect is.
    pub(crate) family: Option<String>,
    /// WGSL with naga_oil directives, or WESL (`.wesl`), relative to the effect file.
    pub(crate) source: Spanned<String>,
    /// naga_oil modules (`#define_import_path`) the source imports, relative
    /// to the effect file; each file is added to the library once.
    #[serde(default)]
    pub(crate) modules: Vec<Spanned<String>>,
    /// Shader defs that materials switch on.
    #[serde(default)]
    pub(crate) flags: Vec<Spanned<String>>,
    /// Flags the device sets, never a material: flag → what the device
    /// must offer for it to be on (`BINDLESS = "binding_arrays"`, Bevy's
    /// rule). Each setting is checked as its own layout set.
    #[serde(default)]
    pub(crate) device_flags: BTreeMap<Spanned<String>, Spanned<String>>,
    /// Groups of flags of which exactly one is on (`multi_compile A B C`).
    #[serde(default)]
    pub(crate) one_of: Vec<Spanned<Vec<Spanned<String>>>>,
    /// Groups of flags of which at most one is on.
    #[serde(default)]
    pub(crate) at_most_one: Vec<Spanned<Vec<Spanned<String>>>>,
    /// Flag → the flags it needs on (`VERTEX_TANGENTS = ["VERTEX_NORMALS"]`).
    #[serde(default)]
    pub(crate) implies: BTreeMap<Spanned<String>, Vec<Spanned<String>>>,
    /// Flag → flags of which exactly one is on when it is (Bevy pushes one
    /// tonemapping method under `TONEMAP_IN_SHADER`).
    #[serde(default)]
    pub(crate) implies_one_of: BTreeMap<Spanned<String>, Vec<Spanned<String>>>,
    /// Flag → flags of which at least one is on when it is.
    #[serde(default)]
    pub(crate) implies_any_of: BTreeMap<Spanned<String>, Vec<Spanned<String>>>,
    /// Shader defs with fixed values for every permutation (Bevy's valued
    /// defs): `true`/`false`, or an integer (`u32` when not negative, as Bevy
    /// declares counts and binding indices; `i32` when negative).
    #[serde(default)]
    pub(crate) defs: BTreeMap<String, Spanned<toml::Value>>,
    /// WESL packages the source imports: name → folder, relative to the
    /// effect file (`bevy_render = "crates/bevy_render/src"`).
    #[serde(default)]
    pub(crate) packages: BTreeMap<String, Spanned<String>>,
    /// Material defaults (Ogre's `param_named`), kept for the materials layer.
    #[serde(default)]
    pub(crate) params: BTreeMap<String, toml::Value>,
    /// Member → semantic (Ogre's `param_named_auto`), kept for the materials layer.
    #[serde(default)]
    pub(crate) auto: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    pub(crate) technique: Vec<TechniqueFile>,
}

impl EffectFile {
    /// The first technique, or pass within a technique, whose name an
    /// earlier one has: (`technique` or `pass`, its name as selected, the
    /// earlier one's span, its span). A second one could never be selected.
    pub(crate) fn duplicate_name(
        &self,
    ) -> Option<(&'static str, String, std::ops::Range<usize>, std::ops::Range<usize>)> {
        for (i, t) in self.technique.iter().enumerate() {
            if let Some(first) = self.technique[..i].iter().find(|e| e.name.get_ref() == t.name.get_ref()) {
                return Some(("technique", t.name.get_ref().clone(), first.name.span(), t.name.span()));
            }
            for (j, p) in t.pass.iter().enumerate() {
                if let Some(first) = t.pass[..j].iter().find(|e| e.name.get_ref() == p.name.get_ref()) {
                    let name = format!("{}.{}", t.name.get_ref(), p.name.get_ref());
                    return Some(("pass", name, first.name.span(), p.name.span()));
                }
            }
        }
        None
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TechniqueFile {
    pub(crate) name: Spanned<String>,
    #[serde(default)]
    pub(crate) pass: Vec<PassFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PassFile {
    pub(crate) name: Spanned<String>,
    pub(crate) vertex: Option<Spanned<StageFile>>,
    pub(crate) fragment: Option<Spanned<StageFile>>,
    pub(crate) compute: Option<Spanned<StageFile>>,
    /// Flags the pass exists under (its entry points exist only with them);
    /// `!NAME` for a flag that must be off.
    #[serde(default)]
    pub(crate) requires: Vec<Spanned<String>>,
    #[serde(default)]
    pub(crate) blend: Blend,
    #[serde(default)]
    pub(crate) cull: Cull,
    pub(crate) depth: Option<DepthState>,
    #[serde(default = "yes")]
    pub(crate) color_write: bool,
}

/// A stage's entry point: a bare name is in the effect's `source`;
/// `{ source = "mesh2d.wgsl", entry = "vertex" }` takes it from another
/// file (relative to the effect file), composed with the same flags and defs;
/// `defs = { VERTEX_SHADER = true }` gives the stage defs of its own over
/// the effect's (Bevy's `VertexState::shader_defs`), and `without =
/// ["PERSPECTIVE"]` names flags the stage never gets (Bevy pushes them to
/// the other stage's defs only), so its module is composed apart from the
/// other stages'.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum StageFile {
    Entry(String),
    From(StageFrom),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StageFrom {
    pub(crate) source: Option<String>,
    pub(crate) entry: String,
    /// Not spanned: an untagged enum's fields cannot be (errors point at the stage).
    #[serde(default)]
    pub(crate) defs: BTreeMap<String, toml::Value>,
    #[serde(default)]
    pub(crate) without: Vec<String>,
}

impl StageFile {
    /// The entry point, the file it is in when not the effect's source, the
    /// stage's own defs and the flags it never gets.
    pub(crate) fn split(self) -> (String, Option<String>, BTreeMap<String, toml::Value>, Vec<String>) {
        match self {
            StageFile::Entry(entry) => (entry, None, BTreeMap::new(), Vec::new()),
            StageFile::From(f) => (f.entry, f.source, f.defs, f.without),
        }
    }
}

fn yes() -> bool {
    true
}

/// How a pass blends its color output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Blend {
    /// Replace.
    #[default]
    Opaque,
    /// `src * a + dst * (1 - a)`.
    Alpha,
    /// `src + dst`.
    Additive,
    /// `src + dst * (1 - a)`, for premultiplied colors.
    Premultiplied,
}

/// Which triangles a pass culls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cull {
    /// None.
    #[default]
    None,
    /// Front faces (counter-clockwise).
    Front,
    /// Back faces.
    Back,
}

/// A pass's depth test and write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DepthState {
    /// The comparison against the depth buffer.
    pub compare: Compare,
    /// Whether passing fragments write their depth.
    #[serde(default)]
    pub write: bool,
}

/// A depth comparison, as WGSL and wgpu name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs, reason = "the names say it")]
pub enum Compare {
    Never,
    Less,
    Equal,
    LessEqual,
    Greater,
    NotEqual,
    GreaterEqual,
    Always,
}

impl Blend {
    /// The name the effect file uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Blend::Opaque => "opaque",
            Blend::Alpha => "alpha",
            Blend::Additive => "additive",
            Blend::Premultiplied => "premultiplied",
        }
    }

    pub(crate) fn to_wgpu(self) -> Option<wgpu::BlendState> {
        use wgpu::{BlendComponent, BlendFactor as F, BlendOperation as Op};
        let c = |src, dst| BlendComponent { src_factor: src, dst_factor: dst, operation: Op::Add };
        match self {
            Blend::Opaque => None,
            Blend::Alpha => Some(wgpu::BlendState::ALPHA_BLENDING),
            Blend::Additive => Some(wgpu::BlendState { color: c(F::One, F::One), alpha: c(F::One, F::One) }),
            Blend::Premultiplied => Some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING),
        }
    }
}

impl Cull {
    /// The name the effect file uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Cull::None => "none",
            Cull::Front => "front",
            Cull::Back => "back",
        }
    }

    pub(crate) fn to_wgpu(self) -> Option<wgpu::Face> {
        match self {
            Cull::None => None,
            Cull::Front => Some(wgpu::Face::Front),
            Cull::Back => Some(wgpu::Face::Back),
        }
    }
}

impl Compare {
    /// The name the effect file uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Compare::Never => "never",
            Compare::Less => "less",
            Compare::Equal => "equal",
            Compare::LessEqual => "less_equal",
            Compare::Greater => "greater",
            Compare::NotEqual => "not_equal",
            Compare::GreaterEqual => "greater_equal",
            Compare::Always => "always",
        }
    }

    pub(crate) fn to_wgpu(self) -> wgpu::CompareFunction {
        use wgpu::CompareFunction as C;
        match self {
            Compare::Never => C::Never,
            Compare::Less => C::Less,
            Compare::Equal => C::Equal,
            Compare::LessEqual => C::LessEqual,
            Compare::Greater => C::Greater,
            Compare::NotEqual => C::NotEqual,
            Compare::GreaterEqual => C::GreaterEqual,
            Compare::Always => C::Always,
        }
    }
}

/// Finds a stage file by the name the effect file gives: its path (for
/// errors) and text, or why not.
pub(crate) type ReadStage<'a> = &'a mut dyn FnMut(&str) -> Result<(String, String), String>;

/// Reads an effect file or a WGSL source as `ShaderReflection::from_path`
/// reads shaders: a regular UTF-8 file within the same size limit.
pub(crate) fn read_text(path: &std::path::Path) -> Result<String, String> {
    let bytes = freqbuf::__effects::read_file(path, freqbuf::reflect::ShaderReflection::MAX_FILE_SIZE)?;
    String::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))
}
