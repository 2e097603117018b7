//! The effect library: loaded effects, their permutations (composed and
//! registered once per combination of the flags their source tests), the
//! whole-effect check, and the pipeline cache.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use super::compose::{Compose, locate};
use super::file::{Blend, Cull, DepthState, EffectFile};
use crate::error::{EffectError, EffectErrorKind, Error};
use crate::id::ShaderId;
use crate::manager::Manager;
use crate::reflect::ShaderReflection;
use crate::registry::Registry;

/// Flags an effect may declare: they are bits of a `u32`.
const MAX_FLAGS: usize = 32;

/// Above this many tested flags, [`Effects::check`] checks every flag alone,
/// every pair and all together instead of all `2^n` combinations.
pub const EXHAUSTIVE_FLAGS: usize = 12;

/// An effect in an [`Effects`] library.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EffectId {
    library: u32,
    index: u32,
}

/// A pass of an effect's technique.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PassId {
    effect: EffectId,
    index: u32,
}

/// A set of an effect's flags (its `shader_defs`), from [`Effects::flags`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlagSet {
    effect: EffectId,
    bits: u32,
}

/// The passes of a technique, in order; holds no borrow of the library.
#[derive(Clone, Debug)]
pub struct Passes {
    effect: EffectId,
    range: Range<u32>,
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
}

/// A loaded effect: its flags, techniques and passes, and the tables the
/// materials layer reads.
#[derive(Debug)]
pub struct Effect {
    name: String,
    source_file: String,
    source: String,
    flags: Vec<String>,
    /// The flags the source (and what it imports) tests, as bits.
    tested: u32,
    params: std::collections::BTreeMap<String, toml::Value>,
    auto: Vec<(String, String)>,
    techniques: Vec<(String, Range<u32>)>,
    passes: Vec<Pass>,
}

impl Effect {
    /// The effect's name.
    pub fn name(&self) -> &str {
        &self.name
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

    /// The `[params]` table: material defaults by member name.
    pub fn params(&self) -> &std::collections::BTreeMap<String, toml::Value> {
        &self.params
    }

    /// The `[auto]` table: member name and semantic.
    pub fn auto(&self) -> &[(String, String)] {
        &self.auto
    }

    /// Flags joined by `+`, or `no flags`.
    fn describe(&self, bits: u32) -> String {
        let names =
            self.flags.iter().enumerate().filter(|(i, _)| bits & (1 << i) != 0).map(|(_, f)| f.as_str());
        let text = names.collect::<Vec<_>>().join("+");
        if text.is_empty() { "no flags".into() } else { text }
    }

    fn passes_using(&self) -> String {
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
}

/// What [`Effects::check`] proved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Flag combinations composed and merged.
    pub permutations: usize,
    /// Whether that was every combination of the flags the source tests.
    pub exhaustive: bool,
}

/// Loaded effects, their registered permutations and their pipelines.
///
/// Use an `Effects` with one [`Manager`]: permutations are registered with it
/// and share its slots. Cost: a permutation is composed and registered the
/// first time its flags are used; a pipeline is built the first time a
/// (pass, flags, targets) triple is used; after that both are hash lookups.
#[derive(Debug)]
pub struct Effects {
    tag: u32,
    compose: Compose,
    effects: Vec<Effect>,
    /// (effect, tested flag bits) → the registered permutation.
    shaders: HashMap<(u32, u32), ShaderId>,
    modules: HashMap<ShaderId, wgpu::ShaderModule>,
    render: HashMap<(PassId, u32, Targets), wgpu::RenderPipeline>,
    compute: HashMap<(PassId, u32), wgpu::ComputePipeline>,
    stats: EffectStats,
}

static NEXT_LIBRARY: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);

impl Default for Effects {
    fn default() -> Self {
        Self::new()
    }
}

impl Effects {
    /// An empty library.
    pub fn new() -> Self {
        Self {
            tag: NEXT_LIBRARY.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            compose: Compose::new(),
            effects: Vec::new(),
            shaders: HashMap::new(),
            modules: HashMap::new(),
            render: HashMap::new(),
            compute: HashMap::new(),
            stats: EffectStats::default(),
        }
    }

    /// Adds a WGSL module that effect sources `#import` (it names itself
    /// with `#define_import_path`), for example the output of [`declarations_module`](crate::declarations_module).
    pub fn add_module(&mut self, file: &str, source: &str) -> Result<(), EffectError> {
        self.compose.add_module(file, source)
    }

    /// Reads an effect file and the WGSL source it names (relative to it).
    pub fn load(&mut self, path: impl AsRef<Path>) -> Result<EffectId, EffectError> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let io = |file: &str, e: std::io::Error| EffectError {
            file: file.to_owned(),
            location: None,
            kind: Box::new(EffectErrorKind::Io(e.to_string())),
        };
        let toml_text = std::fs::read_to_string(path).map_err(|e| io(&file, e))?;
        let parsed = parse(&file, &toml_text)?;
        let source_path = path.parent().unwrap_or(Path::new("")).join(parsed.source.get_ref());
        let source_file = source_path.display().to_string();
        let source = std::fs::read_to_string(&source_path).map_err(|e| EffectError {
            file: file.clone(),
            location: Some(locate(&toml_text, parsed.source.span().start)),
            kind: Box::new(EffectErrorKind::Io(format!("{source_file}: {e}"))),
        })?;
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("effect");
        let stem = stem.strip_suffix(".effect").unwrap_or(stem);
        self.insert(&file, &toml_text, parsed, stem, source_file, source)
    }

    /// Adds an effect from text: `file` names the TOML in errors, and the
    /// WGSL `source` stands for the file its `source` field names.
    pub fn add(&mut self, file: &str, toml_text: &str, source: &str) -> Result<EffectId, EffectError> {
        let parsed = parse(file, toml_text)?;
        let source_file = parsed.source.get_ref().clone();
        let stem = Path::new(file).file_stem().and_then(|s| s.to_str()).unwrap_or("effect");
        let stem = stem.strip_suffix(".effect").unwrap_or(stem).to_owned();
        self.insert(file, toml_text, parsed, &stem, source_file, source.to_owned())
    }

    fn insert(
        &mut self,
        file: &str,
        toml_text: &str,
        parsed: EffectFile,
        stem: &str,
        source_file: String,
        source: String,
    ) -> Result<EffectId, EffectError> {
        let at = |span: Range<usize>, kind| EffectError {
            file: file.to_owned(),
            location: Some(locate(toml_text, span.start)),
            kind: Box::new(kind),
        };
        if parsed.flags.len() > MAX_FLAGS {
            let what = format!("{} flags; an effect may declare at most {MAX_FLAGS}", parsed.flags.len());
            return Err(at(parsed.flags[MAX_FLAGS].span(), EffectErrorKind::BadFlags(what)));
        }
        let mut flags: Vec<String> = Vec::new();
        for f in &parsed.flags {
            if flags.contains(f.get_ref()) {
                return Err(at(
                    f.span(),
                    EffectErrorKind::BadFlags(format!("flag `{}` is declared twice", f.get_ref())),
                ));
            }
            flags.push(f.get_ref().clone());
        }
        let mut techniques = Vec::new();
        let mut passes = Vec::new();
        for t in parsed.technique {
            let start = passes.len() as u32;
            for p in t.pass {
                let name = format!("{}.{}", t.name.get_ref(), p.name.get_ref());
                let bad = |what| at(p.name.span(), EffectErrorKind::BadPass { pass: name.clone(), what });
                let render = p.vertex.is_some() || p.fragment.is_some();
                match (render, &p.compute) {
                    (true, Some(_)) => {
                        return Err(bad("mixes a compute entry point with vertex or fragment ones"));
                    }
                    (false, None) => return Err(bad("names neither a vertex nor a compute entry point")),
                    _ if render && p.vertex.is_none() => {
                        return Err(bad("has a fragment but no vertex entry point"));
                    }
                    _ => {}
                }
                let get = |s: Option<toml::Spanned<String>>| s.map(toml::Spanned::into_inner);
                passes.push(Pass {
                    name,
                    vertex: get(p.vertex),
                    fragment: get(p.fragment),
                    compute: get(p.compute),
                    blend: p.blend,
                    cull: p.cull,
                    depth: p.depth,
                    color_write: p.color_write,
                });
            }
            techniques.push((t.name.into_inner(), start..passes.len() as u32));
        }
        let tested_names = self.compose.tested(&source);
        let tested = flags
            .iter()
            .enumerate()
            .filter(|(_, f)| tested_names.contains(*f))
            .fold(0, |m, (i, _)| m | 1 << i);
        let effect = Effect {
            name: parsed.name.unwrap_or_else(|| stem.to_owned()),
            source_file,
            source,
            flags,
            tested,
            params: parsed.params,
            auto: parsed.auto.into_iter().map(|(k, v)| (k, v.into_inner())).collect(),
            techniques,
            passes,
        };
        self.effects.push(effect);
        Ok(EffectId { library: self.tag, index: self.effects.len() as u32 - 1 })
    }

    /// A loaded effect.
    ///
    /// # Panics
    /// On an id of another library, as indexing an arena would.
    pub fn effect(&self, id: EffectId) -> &Effect {
        assert_eq!(id.library, self.tag, "an EffectId of another library");
        &self.effects[id.index as usize]
    }

    /// A pass of a loaded effect.
    pub fn pass(&self, id: PassId) -> &Pass {
        &self.effect(id.effect).passes[id.index as usize]
    }

    /// The flag set with `names` switched on; an unknown name is an error
    /// that lists the effect's flags.
    pub fn flags(&self, id: EffectId, names: &[&str]) -> Result<FlagSet, EffectError> {
        let effect = self.effect(id);
        let mut bits = 0;
        for name in names {
            let Some(i) = effect.flags.iter().position(|f| f == name) else {
                return Err(EffectError {
                    file: effect.name.clone(),
                    location: None,
                    kind: Box::new(EffectErrorKind::UnknownFlag {
                        effect: effect.name.clone(),
                        flag: (*name).to_owned(),
                        known: effect.flags.clone(),
                    }),
                });
            };
            bits |= 1 << i;
        }
        Ok(FlagSet { effect: id, bits })
    }

    /// The passes of a technique, to loop over as D3DX's `Pass(i)`.
    pub fn technique(&self, id: EffectId, name: &str) -> Result<Passes, EffectError> {
        let effect = self.effect(id);
        match effect.techniques.iter().find(|(n, _)| n == name) {
            Some((_, range)) => Ok(Passes { effect: id, range: range.clone() }),
            None => Err(EffectError {
                file: effect.name.clone(),
                location: None,
                kind: Box::new(EffectErrorKind::UnknownTechnique {
                    effect: effect.name.clone(),
                    name: name.to_owned(),
                    known: effect.techniques().map(str::to_owned).collect(),
                }),
            }),
        }
    }

    /// What the library has composed, registered and built so far.
    pub fn stats(&self) -> EffectStats {
        self.stats
    }

    /// The permutation of `flags`, composed, reflected and registered with
    /// `manager` the first time; cached by the flags the source tests, so
    /// flags it never tests do not make new permutations.
    pub fn shader(&mut self, manager: &mut Manager, flags: FlagSet) -> Result<ShaderId, EffectError> {
        let effect = self.effect(flags.effect);
        let bits = flags.bits & effect.tested;
        let key = (flags.effect.index, bits);
        if let Some(&id) = self.shaders.get(&key).filter(|id| manager.registry().owns(**id)) {
            return Ok(id);
        }
        let reflection = self.permutation(flags.effect, bits)?;
        let effect = self.effect(flags.effect);
        let id = manager.register(reflection).map_err(|e| EffectError {
            file: effect.source_file.clone(),
            location: None,
            kind: Box::new(match e {
                e @ Error::Layout { .. } => EffectErrorKind::Conflict {
                    flags: effect.describe(bits),
                    passes: effect.passes_using(),
                    source: Box::new(e),
                },
                e => EffectErrorKind::Register { flags: effect.describe(bits), source: Box::new(e) },
            }),
        })?;
        self.stats.registered += 1;
        self.shaders.insert(key, id);
        Ok(id)
    }

    /// Composes and reflects one permutation and checks that it has every
    /// entry point its passes name.
    fn permutation(&mut self, id: EffectId, bits: u32) -> Result<ShaderReflection, EffectError> {
        let effect = &self.effects[id.index as usize];
        let defs =
            effect.flags.iter().enumerate().filter(|(i, _)| bits & (1 << i) != 0).map(|(_, f)| f.as_str());
        let defs = defs.collect::<Vec<_>>();
        let flags = effect.describe(bits);
        let module = self.compose.compose(&effect.source_file, &effect.source, &defs, &flags)?;
        self.stats.compositions += 1;
        for pass in &effect.passes {
            let wanted = [
                ("vertex", &pass.vertex, naga::ShaderStage::Vertex),
                ("fragment", &pass.fragment, naga::ShaderStage::Fragment),
                ("compute", &pass.compute, naga::ShaderStage::Compute),
            ];
            for (stage, entry, kind) in wanted {
                let Some(entry) = entry else { continue };
                if !module.entry_points.iter().any(|e| &e.name == entry && e.stage == kind) {
                    return Err(EffectError {
                        file: effect.source_file.clone(),
                        location: None,
                        kind: Box::new(EffectErrorKind::MissingEntryPoint {
                            pass: pass.name.clone(),
                            flags,
                            stage,
                            entry: entry.clone(),
                        }),
                    });
                }
            }
        }
        let name = format!("{}[{flags}]", effect.name);
        ShaderReflection::from_module(name, module).map_err(|e| EffectError {
            file: effect.source_file.clone(),
            location: e.location,
            kind: Box::new(EffectErrorKind::Register { flags, source: Box::new(e.into()) }),
        })
    }

    /// The whole-effect check: composes the permutations and merges them
    /// into a copy of `registry` (nothing is registered), proving that they
    /// agree with each other and with the registered shaders on one layout
    /// per slot. `only`: one flag set instead of all.
    ///
    /// All `2^n` combinations of the `n` flags the source tests are checked
    /// up to [`EXHAUSTIVE_FLAGS`]; above that, no flag, each flag alone, each
    /// pair and all of them (`CheckReport::exhaustive` is then false).
    pub fn check(
        &mut self,
        registry: &Registry,
        id: EffectId,
        only: Option<FlagSet>,
    ) -> Result<CheckReport, EffectError> {
        let effect = self.effect(id);
        let tested: Vec<u32> =
            (0..effect.flags.len() as u32).filter(|i| effect.tested & (1 << i) != 0).collect();
        let (combos, exhaustive) = match only {
            Some(f) => (vec![f.bits & effect.tested], false),
            None => combinations(&tested),
        };
        let mut scratch = registry.scratch();
        for &bits in &combos {
            let reflection = self.permutation(id, bits)?;
            let effect = self.effect(id);
            scratch.add(reflection).map_err(|e| EffectError {
                file: effect.source_file.clone(),
                location: None,
                kind: Box::new(EffectErrorKind::Conflict {
                    flags: effect.describe(bits),
                    passes: effect.passes_using(),
                    source: Box::new(e),
                }),
            })?;
        }
        Ok(CheckReport { permutations: combos.len(), exhaustive: exhaustive && only.is_none() })
    }

    fn module(&mut self, manager: &Manager, shader: ShaderId) -> Result<&wgpu::ShaderModule, Error> {
        Ok(match self.modules.entry(shader) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(manager.create_shader_module(shader)?),
        })
    }

    /// The render pipeline of `pass` with `flags` for `targets`: the
    /// permutation's shader (registered on first use) and the pass's render
    /// state, built once per (pass, flags, targets) and cached.
    pub fn render_pipeline(
        &mut self,
        manager: &mut Manager,
        pass: PassId,
        flags: FlagSet,
        targets: &Targets,
    ) -> Result<(ShaderId, &wgpu::RenderPipeline), EffectError> {
        let shader = self.shader(manager, flags)?;
        let p = self.pass(pass).clone();
        let Some(vertex) = p.vertex.clone() else {
            return Err(self.wrong_kind(pass, "render"));
        };
        let bits = flags.bits & self.effect(flags.effect).tested;
        let key = (pass, bits, targets.clone());
        if !self.render.contains_key(&key) {
            let fail = |this: &Self, e: Error| this.register_error(flags, e);
            let module = match self.module(manager, shader) {
                Ok(m) => m.clone(),
                Err(e) => return Err(fail(self, e)),
            };
            let layout = manager.pipeline_layout(shader).map_err(|e| fail(self, e))?;
            let write = if p.color_write { wgpu::ColorWrites::ALL } else { wgpu::ColorWrites::empty() };
            let color = targets
                .color
                .iter()
                .map(|&format| {
                    Some(wgpu::ColorTargetState { format, blend: p.blend.to_wgpu(), write_mask: write })
                })
                .collect::<Vec<_>>();
            let depth_stencil = targets.depth.map(|format| wgpu::DepthStencilState {
                format,
                depth_write_enabled: Some(p.depth.is_some_and(|d| d.write)),
                depth_compare: Some(p.depth.map_or(wgpu::CompareFunction::Always, |d| d.compare.to_wgpu())),
                stencil: Default::default(),
                bias: Default::default(),
            });
            let buffers = targets.vertex_buffers.iter().cloned().map(Some).collect::<Vec<_>>();
            let device = manager.device();
            let what = || format!("{}: render pipeline", p.name);
            let pipeline = crate::scope::scoped(device, what, || {
                device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                    label: Some(&p.name),
                    layout: Some(layout),
                    vertex: wgpu::VertexState {
                        module: &module,
                        entry_point: Some(&vertex),
                        compilation_options: Default::default(),
                        buffers: &buffers,
                    },
                    fragment: p.fragment.as_deref().map(|fs| wgpu::FragmentState {
                        module: &module,
                        entry_point: Some(fs),
                        compilation_options: Default::default(),
                        targets: &color,
                    }),
                    primitive: wgpu::PrimitiveState { cull_mode: p.cull.to_wgpu(), ..Default::default() },
                    depth_stencil,
                    multisample: wgpu::MultisampleState { count: targets.samples, ..Default::default() },
                    multiview_mask: None,
                    cache: None,
                })
            })
            .map_err(|e| fail(self, e))?;
            self.stats.pipelines += 1;
            self.render.insert(key.clone(), pipeline);
        }
        Ok((shader, &self.render[&key]))
    }

    /// The compute pipeline of a compute pass with `flags`, built once and cached.
    pub fn compute_pipeline(
        &mut self,
        manager: &mut Manager,
        pass: PassId,
        flags: FlagSet,
    ) -> Result<(ShaderId, &wgpu::ComputePipeline), EffectError> {
        let shader = self.shader(manager, flags)?;
        let p = self.pass(pass).clone();
        let Some(entry) = p.compute.clone() else {
            return Err(self.wrong_kind(pass, "compute"));
        };
        let key = (pass, flags.bits & self.effect(flags.effect).tested);
        if !self.compute.contains_key(&key) {
            let fail = |this: &Self, e: Error| this.register_error(flags, e);
            let module = match self.module(manager, shader) {
                Ok(m) => m.clone(),
                Err(e) => return Err(fail(self, e)),
            };
            let layout = manager.pipeline_layout(shader).map_err(|e| fail(self, e))?;
            let device = manager.device();
            let what = || format!("{}: compute pipeline", p.name);
            let pipeline = crate::scope::scoped(device, what, || {
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(&p.name),
                    layout: Some(layout),
                    module: &module,
                    entry_point: Some(&entry),
                    compilation_options: Default::default(),
                    cache: None,
                })
            })
            .map_err(|e| fail(self, e))?;
            self.stats.pipelines += 1;
            self.compute.insert(key, pipeline);
        }
        Ok((shader, &self.compute[&key]))
    }

    fn register_error(&self, flags: FlagSet, e: Error) -> EffectError {
        let effect = self.effect(flags.effect);
        EffectError {
            file: effect.source_file.clone(),
            location: None,
            kind: Box::new(EffectErrorKind::Register {
                flags: effect.describe(flags.bits),
                source: Box::new(e),
            }),
        }
    }

    fn wrong_kind(&self, pass: PassId, wanted: &'static str) -> EffectError {
        let effect = self.effect(pass.effect);
        EffectError {
            file: effect.name.clone(),
            location: None,
            kind: Box::new(EffectErrorKind::WrongKind { pass: self.pass(pass).name.clone(), wanted }),
        }
    }
}

/// The flag combinations to check over the `tested` flag indices: all of
/// them up to [`EXHAUSTIVE_FLAGS`], else none, singles, pairs and all.
fn combinations(tested: &[u32]) -> (Vec<u32>, bool) {
    let bit = |i: &u32| 1u32 << i;
    if tested.len() <= EXHAUSTIVE_FLAGS {
        let n = tested.len();
        let all = (0u32..1 << n)
            .map(|c| tested.iter().enumerate().filter(|(k, _)| c & (1 << k) != 0).map(|(_, i)| bit(i)).sum())
            .collect();
        return (all, true);
    }
    let mut out = vec![0, tested.iter().map(bit).sum()];
    for (k, a) in tested.iter().enumerate() {
        out.push(bit(a));
        out.extend(tested[k + 1..].iter().map(|b| bit(a) | bit(b)));
    }
    (out, false)
}

fn parse(file: &str, text: &str) -> Result<EffectFile, EffectError> {
    toml::from_str(text).map_err(|e: toml::de::Error| EffectError {
        file: file.to_owned(),
        location: e.span().map(|s| locate(text, s.start)),
        kind: Box::new(EffectErrorKind::Toml(e)),
    })
}
