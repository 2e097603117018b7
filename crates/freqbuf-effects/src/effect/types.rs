//! The handles and descriptions an effect library hands out.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use serde::{Deserialize, Serialize};

use toml::Spanned;

use super::source::file::{Blend, Cull, DepthState, ReadStage};

pub(crate) use super::source::constraints::Bits;

/// Flags an effect may declare.
pub(crate) const MAX_FLAGS: usize = Bits::BITS as usize;

/// An effect in an [`Effects`](super::Effects) library.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EffectId {
    pub(super) library: u32,
    pub(super) index: u32,
}

/// A pass of an effect's technique.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PassId {
    pub(super) effect: EffectId,
    pub(super) index: u32,
}

/// A set of an effect's flags (its `shader_defs`), from [`Effects::flags`](super::Effects::flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlagSet {
    pub(super) effect: EffectId,
    pub(super) bits: Bits,
}

/// The passes of a technique, in order; holds no borrow of the library.
#[derive(Clone, Debug)]
pub struct Passes {
    pub(super) effect: EffectId,
    pub(super) range: Range<u32>,
}

impl Iterator for Passes {
    type Item = PassId;
    fn next(&mut self) -> Option<PassId> {
        self.range.next().map(|index| PassId { effect: self.effect, index })
    }
}

/// What a render pipeline is built for: the render pass's attachments and the vertex buffers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Targets {
    /// One format per color attachment.
    pub color: Vec<wgpu::TextureFormat>,
    /// The depth attachment's format, if any.
    pub depth: Option<wgpu::TextureFormat>,
    /// Samples per pixel.
    pub samples: u32,
    /// Vertex buffer layouts (empty for vertex pulling).
    pub vertex_buffers: Vec<wgpu::VertexBufferLayout<'static>>,
}

impl Targets {
    /// One color attachment of `format`, no depth, one sample, no vertex buffers.
    pub fn color(format: wgpu::TextureFormat) -> Self {
        Self { color: vec![format], depth: None, samples: 1, vertex_buffers: Vec::new() }
    }

    /// With a depth attachment of `format`.
    pub fn with_depth(mut self, format: wgpu::TextureFormat) -> Self {
        self.depth = Some(format);
        self
    }
}

/// One pass as the effect file describes it.
#[derive(Clone, Debug)]
pub struct Pass {
    /// `technique.pass`.
    pub name: String,
    /// The vertex entry point.
    pub vertex: Option<String>,
    /// The fragment entry point (none for a depth-only pass).
    pub fragment: Option<String>,
    /// The compute entry point (a compute pass has only this).
    pub compute: Option<String>,
    /// Color blending.
    pub blend: Blend,
    /// Face culling.
    pub cull: Cull,
    /// Depth test and write; `None` when the pass has no depth state.
    pub depth: Option<DepthState>,
    /// Whether the pass writes color.
    pub color_write: bool,
    /// The flags the pass exists under (Bevy's entry points that exist only
    /// under a def), `!NAME` for one that must be off: other permutations
    /// do not have it.
    pub requires: Vec<String>,
    /// The flags of `requires` that must be on, as bits.
    pub(crate) required: Bits,
    /// Those (`!NAME`) that must be off, as bits.
    pub(crate) excluded: Bits,
    /// The file the vertex, fragment and compute entry points are taken
    /// from, as the effect file names it, where it is not the effect's
    /// `source` (`vertex = { source = "mesh2d.wgsl", entry = "vertex" }`).
    pub files: [Option<String>; 3],
    /// Per stage, where its entry point is: 0 the effect's source, `i` its
    /// `i`-th stage file ([`Effect::stage_files`]).
    pub(crate) parts: [u32; 3],
}

impl Pass {
    /// Whether the pass exists in the permutation of these flags.
    pub(crate) fn exists_under(&self, bits: Bits) -> bool {
        bits & self.required == self.required && bits & self.excluded == 0
    }

    /// The flags that decide whether it exists.
    pub(crate) fn deciding(&self) -> Bits {
        self.required | self.excluded
    }

    /// Its (vertex, fragment, compute) entry points with the part each is in.
    pub(crate) fn stages(&self) -> impl Iterator<Item = (&str, u32)> {
        [&self.vertex, &self.fragment, &self.compute]
            .into_iter()
            .zip(self.parts)
            .filter_map(|(e, part)| Some((e.as_deref()?, part)))
    }

    /// Whether a stage comes from a file other than the effect's source.
    pub(crate) fn is_linked(&self) -> bool {
        self.stages().any(|(_, part)| part != 0)
    }
}

/// A file a pass takes a stage from, other than the effect's source, or
/// the source with defs of the stage's own.
#[derive(Clone, Debug)]
pub(crate) struct StageSource {
    /// As the effect file names it.
    pub(crate) name: String,
    /// Its path, for errors.
    pub(crate) file: String,
    pub(crate) text: String,
    /// The stage's defs, over the effect's.
    pub(crate) defs: Vec<(String, naga_oil::compose::ShaderDefValue)>,
    /// The flags the stage never gets, as bits.
    pub(crate) without: Bits,
}

/// A loaded effect: its flags, techniques and passes, and the tables the
/// materials layer reads.
#[derive(Clone, Debug)]
pub struct Effect {
    pub(super) name: String,
    /// The effect file, for errors.
    pub(super) file: String,
    /// The family its permutations register in (its material slots').
    pub(super) family: String,
    pub(super) source_file: String,
    pub(super) source: String,
    /// Files that passes take stages from, each once (part `i + 1`).
    pub(crate) stage_files: Vec<StageSource>,
    pub(super) flags: Vec<String>,
    /// Which combinations of `flags` exist.
    pub(super) rules: super::source::constraints::FlagRules,
    /// The flags the device sets (`device_flags`), as bits, with what each needs.
    pub(super) device: Vec<(Bits, DeviceCap)>,
    /// `[defs]`: shader defs with fixed values, for every permutation.
    pub(super) defs: Vec<(String, naga_oil::compose::ShaderDefValue)>,
    /// `[defs]` strings, pasted into the texts at load: their names.
    pub(super) pasted: Vec<String>,
    /// A WESL effect's files and what they test (`None` for naga_oil WGSL).
    pub(crate) wesl: Option<std::sync::Arc<super::source::wesl::Sources>>,
    /// The flags the source (and what it imports) tests, as bits.
    pub(super) tested: Bits,
    pub(super) params: std::collections::BTreeMap<String, toml::Value>,
    pub(super) auto: Vec<(String, String)>,
    pub(super) techniques: Vec<(String, Range<u32>)>,
    pub(super) passes: Vec<Pass>,
}

/// What a device must offer for a device flag to be on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DeviceCap {
    /// `binding_arrays`: binding arrays of textures and samplers indexed
    /// per draw, and storage buffers in the vertex stage (what slabs and
    /// tables need): on Vulkan, Metal and DX12 devices, off on WebGPU and
    /// WebGL2 today.
    BindingArrays,
}

impl DeviceCap {
    pub(super) const NAMES: [&'static str; 1] = ["binding_arrays"];

    pub(super) fn parse(name: &str) -> Option<Self> {
        (name == "binding_arrays").then_some(Self::BindingArrays)
    }

    /// Whether a device with `features` and `limits` offers it.
    pub(super) fn offered(self, features: wgpu::Features, limits: &wgpu::Limits) -> bool {
        match self {
            Self::BindingArrays => {
                let wanted = wgpu::Features::TEXTURE_BINDING_ARRAY
                    | wgpu::Features::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING;
                features.contains(wanted)
                    && limits.max_storage_buffers_per_shader_stage > 0
                    && limits.max_binding_array_elements_per_shader_stage > 0
            }
        }
    }
}

impl Effect {
    /// The bits of the flags the device sets.
    pub(super) fn device_bits(&self) -> Bits {
        self.device.iter().fold(0, |m, (b, _)| m | b)
    }

    /// `bits` with each device flag as the manager's device sets it (from
    /// the manager's cached features and limits: this runs per pipeline
    /// request, which the render queue makes per item per encode).
    pub(super) fn on_device(&self, bits: Bits, manager: &freqbuf::Manager) -> Bits {
        self.on_caps(bits, manager.features(), manager.limits())
    }

    /// `bits` with each device flag as a device with `features` and `limits` sets it.
    pub(super) fn on_caps(&self, bits: Bits, features: wgpu::Features, limits: &wgpu::Limits) -> Bits {
        let on = |cap: DeviceCap| cap.offered(features, limits);
        self.device.iter().fold(bits, |b, &(bit, cap)| if on(cap) { b | bit } else { b & !bit })
    }

    /// The effect's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The family its permutations register in: `family` in the effect
    /// file, [`crate::Effects::set_family`], or by default the effect's
    /// name (`lit` for `lit.effect.toml`), a family of its own. Its materials are
    /// [`freqbuf::Manager::create_material_in`] this family.
    pub fn family(&self) -> &str {
        &self.family
    }

    /// Its flags, in declaration order.
    pub fn flags(&self) -> &[String] {
        &self.flags
    }

    /// Technique names, in order.
    pub fn techniques(&self) -> impl Iterator<Item = &str> {
        self.techniques.iter().map(|(n, _)| n.as_str())
    }

    /// Every pass of every technique, in file order.
    pub fn passes(&self) -> &[Pass] {
        &self.passes
    }

    /// The `[params]` table: material defaults by member name (crate-only,
    /// so that no `toml` type is in the public API; materials apply them).
    pub(crate) fn params(&self) -> &std::collections::BTreeMap<String, toml::Value> {
        &self.params
    }

    /// The `[auto]` table: member name and semantic.
    pub fn auto(&self) -> &[(String, String)] {
        &self.auto
    }

    /// Its flag constraints (`one_of`, `at_most_one`, `[implies]`).
    pub fn constraints(&self) -> &super::source::constraints::FlagRules {
        &self.rules
    }

    /// How many combinations of the flags its sources test the rules allow:
    /// what the whole-effect check composes, up to
    /// [`EXHAUSTIVE_COMBINATIONS`](crate::EXHAUSTIVE_COMBINATIONS). Counted
    /// without walking them; `None` where the count runs past `u64` or its
    /// search.
    pub fn allowed(&self) -> Option<u64> {
        self.rules.count(self.tested)
    }

    /// The texts its permutations compose: the source, then each stage file.
    pub(crate) fn sources(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.source.as_str()).chain(self.stage_files.iter().map(|f| f.text.as_str()))
    }

    /// The flags of `bits` part `part` is composed with: all but those its
    /// stage never gets.
    pub(crate) fn part_bits(&self, part: u32, bits: Bits) -> Bits {
        part.checked_sub(1).map_or(bits, |i| bits & !self.stage_files[i as usize].without)
    }

    /// The defs part `part` is composed with: the effect's, with a stage's
    /// own over them (part 0, the source, has none of its own).
    pub(crate) fn part_defs(
        &self,
        part: u32,
    ) -> std::borrow::Cow<'_, [(String, naga_oil::compose::ShaderDefValue)]> {
        let own = part.checked_sub(1).map_or(&[][..], |i| &self.stage_files[i as usize].defs[..]);
        if own.is_empty() {
            return std::borrow::Cow::Borrowed(&self.defs);
        }
        let mut defs =
            self.defs.iter().filter(|(n, _)| !own.iter().any(|(o, _)| o == n)).cloned().collect::<Vec<_>>();
        defs.extend(own.iter().cloned());
        std::borrow::Cow::Owned(defs)
    }

    /// The names of the flags in `bits`, in declaration order.
    pub(super) fn flags_on(&self, bits: Bits) -> Vec<&str> {
        let on = self.flags.iter().enumerate().filter(|(i, _)| bits & (1 << i) != 0);
        on.map(|(_, f)| f.as_str()).collect()
    }

    /// Flags joined by `+`, or `no flags`.
    pub(super) fn describe(&self, bits: Bits) -> String {
        let text = self.flags_on(bits).join("+");
        if text.is_empty() { "no flags".into() } else { text }
    }

    pub(super) fn passes_using(&self) -> String {
        self.passes.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
    }
}

/// Counters of what a library composed and built (each is done once and cached).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EffectStats {
    /// Flag combinations composed with naga_oil (the check composes too).
    pub compositions: u64,
    /// Permutations registered with a manager.
    pub registered: u64,
    /// Render and compute pipelines built.
    pub pipelines: u64,
    /// Module files read and added (listed, globbed or found in a module
    /// directory), each once however many effects import it.
    pub module_files: u64,
}

/// What [`Effects::check`](super::Effects::check) proved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Flag combinations checked.
    pub permutations: usize,
    /// Of those, the ones composed and merged: combinations whose
    /// preprocessed text and imported flags equal an earlier one's compose
    /// to the same module (a flag tested only inside another's `#ifdef`).
    pub distinct: usize,
    /// Whether that was every combination of the flags the source tests.
    pub exhaustive: bool,
    /// How many combinations of those flags the rules allow: `permutations`
    /// where `exhaustive`, else counted without composing them (what a
    /// sampled check left out); `None` for a check of one flag set, past
    /// `u64`, or where counting ran past its steps.
    pub allowed: Option<u64>,
}

/// The attachments a render pipeline was built for, formats by wgpu's
/// name (`Rgba8Unorm`). Vertex buffer layouts are the application's to give
/// again: replay asks it for each entry's [`Targets`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LoggedTargets {
    /// One format per color attachment.
    pub color: Vec<String>,
    /// The depth attachment's format, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<String>,
    /// Samples per pixel.
    pub samples: u32,
}

impl LoggedTargets {
    /// The attachments of `targets`.
    pub fn of(targets: &Targets) -> Self {
        Self {
            color: targets.color.iter().map(|f| format!("{f:?}")).collect(),
            depth: targets.depth.map(|f| format!("{f:?}")),
            samples: targets.samples,
        }
    }
}

/// What an effect file says about its sources, for `Effects::prepare_wesl`.
#[cfg_attr(not(feature = "wesl"), allow(dead_code, reason = "read only to compile WESL"))]
pub(crate) struct WeslInput<'a> {
    /// The effect file and its text, for errors.
    pub(crate) file: &'a str,
    pub(crate) toml_text: &'a str,
    /// `[packages]`, relative to the effect file.
    pub(crate) packages: &'a BTreeMap<String, Spanned<String>>,
    /// The effect file's folder when its files are on disk (`Effects::load`);
    /// `None` when they come through `read` by name (`add`, `add_files`).
    pub(crate) disk: Option<&'a Path>,
    /// The source: its path (for errors), its text, and where the effect file names it.
    pub(crate) source: (&'a str, &'a str, Range<usize>),
    pub(crate) stages: &'a [StageSource],
    /// Reads a file by its name relative to the effect file.
    pub(crate) read: ReadStage<'a>,
}
