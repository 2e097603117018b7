//! The effect library: loaded effects, their permutations (composed and
//! registered once per combination of the flags their source tests), the
//! whole-effect check, and the pipeline cache.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use super::compose::{Compose, Sites, locate};
use super::file::EffectFile;
use super::types::{
    Bits, Effect, EffectId, EffectStats, FlagSet, MAX_FLAGS, Pass, PassId, Passes, StageSource, Targets,
};
use crate::error::{EffectError, EffectErrorKind};
use freqbuf::Error;
use freqbuf::Manager;
use freqbuf::ShaderId;
use freqbuf::reflect::ShaderReflection;

/// Above this many tested flags, [`Effects::check`] checks every flag alone,
/// every pair and all together instead of all `2^n` combinations.
pub const EXHAUSTIVE_FLAGS: usize = 12;

/// Loaded effects, their registered permutations and their pipelines.
///
/// Use an `Effects` with one [`Manager`]: permutations are registered with it
/// and share its slots. Cost: a permutation is composed and registered the
/// first time its flags are used; a pipeline is built the first time a
/// (pass, flags, targets) triple is used; after that both are hash lookups.
#[derive(Debug)]
pub struct Effects {
    pub(super) tag: u32,
    pub(super) compose: Compose,
    pub(super) effects: Vec<Effect>,
    /// (effect, tested flag bits) → the registered permutation.
    pub(super) shaders: HashMap<(u32, Bits), ShaderId>,
    /// (effect, tested flag bits, pass) → the shader the pass's pipelines use.
    pub(super) pass_shaders: HashMap<(u32, Bits, u32), ShaderId>,
    /// A pass shader linked from several files → the shader of each stage's
    /// part (vertex, fragment, compute), whose modules its pipelines use.
    pub(super) stage_shaders: HashMap<ShaderId, [Option<ShaderId>; 3]>,
    /// Composed permutations by (effect, bits, part: 0 the source, `i` the
    /// `i`-th stage file), kept for the passes that narrow them, with
    /// where their resources are declared (for a linked pass's errors).
    pub(super) composed: HashMap<(u32, Bits, u32), (ShaderReflection, Sites)>,
    pub(super) modules: HashMap<ShaderId, wgpu::ShaderModule>,
    /// By (pass, permutation), one pipeline per targets it was built for
    /// (usually one). The shader id names the manager and the flags, the
    /// pass its state and entry points: everything a pipeline is built from
    /// but the device, which `device` holds for all of them.
    pub(super) render: HashMap<(PassId, ShaderId), Vec<(Targets, wgpu::RenderPipeline)>>,
    pub(super) compute: HashMap<(PassId, ShaderId), wgpu::ComputePipeline>,
    /// The manager's device serial the modules and pipelines were made for;
    /// a manager moved to another device (`Manager::recreate`) drops them all.
    pub(super) device: u64,
    pub(super) stats: EffectStats,
    /// Module files added so far (canonical paths), each added once.
    pub(super) module_files: std::collections::HashSet<std::path::PathBuf>,
    /// Modules in the directories of [`Effects::add_module_dir`], by import
    /// path, read when an effect imports them.
    pub(super) module_index: HashMap<String, std::path::PathBuf>,
    /// (base effect, its defs as given) → the effect [`Effects::with_defs`] made.
    pub(super) variants: HashMap<(u32, String), u32>,
    /// Libraries the whole-effect check composes on, one per core, kept
    /// while no module is added (forking a composer adds every module again).
    #[cfg_attr(
        target_arch = "wasm32",
        allow(dead_code, reason = "the check composes on one thread on the web")
    )]
    pub(super) workers: Vec<Effects>,
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
            pass_shaders: HashMap::new(),
            stage_shaders: HashMap::new(),
            composed: HashMap::new(),
            modules: HashMap::new(),
            render: HashMap::new(),
            compute: HashMap::new(),
            device: 0,
            stats: EffectStats::default(),
            module_files: Default::default(),
            module_index: HashMap::new(),
            variants: HashMap::new(),
            workers: Vec::new(),
        }
    }

    /// Adds a WGSL module that effect sources `#import` (it names itself
    /// with `#define_import_path`), for example the output of [`Registry::declarations_module`](freqbuf::Registry::declarations_module).
    ///
    /// Effects loaded before it that import it (directly or not) learn the
    /// flags it tests: their permutations are keyed again, and any composed
    /// without it are dropped.
    pub fn add_module(&mut self, file: &str, source: &str) -> Result<(), EffectError> {
        self.compose.add_module(file, source)?;
        for index in 0..self.effects.len() {
            let effect = &self.effects[index];
            let tested = self.tested_bits(effect.sources(), &effect.flags, &effect.passes);
            if tested != self.effects[index].tested {
                self.effects[index].tested = tested;
                let library = self.tag;
                let effect = EffectId { library, index: index as u32 };
                self.shaders.retain(|k, _| k.0 != index as u32);
                self.pass_shaders.retain(|k, _| k.0 != index as u32);
                self.composed.retain(|k, _| k.0 != index as u32);
                self.render.retain(|k, _| k.0.effect != effect);
                self.compute.retain(|k, _| k.0.effect != effect);
            }
        }
        Ok(())
    }

    /// The bits of `flags` that `source` or what it imports tests, and those
    /// a pass requires: they decide whether the pass exists, so they change
    /// the permutation even where the source never tests them.
    fn tested_bits<'a>(
        &self,
        sources: impl Iterator<Item = &'a str>,
        flags: &[String],
        passes: &[Pass],
    ) -> Bits {
        let names = sources.flat_map(|s| self.compose.tested(s)).collect::<std::collections::BTreeSet<_>>();
        let tested =
            flags.iter().enumerate().filter(|(_, f)| names.contains(*f)).fold(0, |m, (i, _)| m | 1 << i);
        passes.iter().fold(tested, |m, p| m | p.required)
    }

    /// Reads an effect file and the WGSL source it names (relative to it).
    pub fn load(&mut self, path: impl AsRef<Path>) -> Result<EffectId, EffectError> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let toml_text = read_text(path).map_err(|e| EffectError {
            file: file.clone(),
            location: None,
            kind: Box::new(EffectErrorKind::Io(e)),
        })?;
        let parsed = parse(&file, &toml_text)?;
        let dir = path.parent().unwrap_or(Path::new(""));
        self.add_listed_modules(&file, &toml_text, dir, &parsed.modules)?;
        let source_path = dir.join(parsed.source.get_ref());
        let source_file = source_path.display().to_string();
        let source = read_text(&source_path).map_err(|e| EffectError {
            file: file.clone(),
            location: Some(locate(&toml_text, parsed.source.span().start)),
            kind: Box::new(EffectErrorKind::Io(format!("{source_file}: {e}"))),
        })?;
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("effect");
        let stem = stem.strip_suffix(".effect").unwrap_or(stem);
        let mut read = |name: &str| {
            let at = dir.join(name);
            read_text(&at)
                .map(|text| (at.display().to_string(), text))
                .map_err(|e| format!("{}: {e}", at.display()))
        };
        self.insert(&file, &toml_text, parsed, stem, (source_file, source), &mut read)
    }

    /// Adds an effect from text: `file` names the TOML in errors, and the
    /// WGSL `source` stands for the file its `source` field names.
    /// Its `modules` must have been added with [`Effects::add_module`]
    /// (only [`Effects::load`] reads files).
    pub fn add(&mut self, file: &str, toml_text: &str, source: &str) -> Result<EffectId, EffectError> {
        let parsed = parse(file, toml_text)?;
        let name = parsed.source.get_ref().clone();
        self.add_parsed(file, toml_text, parsed, (name, source), &[])
    }

    /// Like [`Effects::add`] for an effect whose passes take stages from
    /// other files (`vertex = { source = "mesh2d.wgsl", entry = "vertex" }`):
    /// `files` holds each by the name the effect file gives it, the `source`
    /// among them. A name not in `files` is an error at its place in the file.
    pub fn add_files(
        &mut self,
        file: &str,
        toml_text: &str,
        files: &[(&str, &str)],
    ) -> Result<EffectId, EffectError> {
        let parsed = parse(file, toml_text)?;
        let name = parsed.source.get_ref().clone();
        let Some(&(_, source)) = files.iter().find(|(n, _)| *n == name) else {
            return Err(EffectError {
                file: file.to_owned(),
                location: Some(locate(toml_text, parsed.source.span().start)),
                kind: Box::new(EffectErrorKind::Io(format!("{name}: not among the files given"))),
            });
        };
        self.add_parsed(file, toml_text, parsed, (name, source), files)
    }

    fn add_parsed(
        &mut self,
        file: &str,
        toml_text: &str,
        parsed: EffectFile,
        (name, source): (String, &str),
        files: &[(&str, &str)],
    ) -> Result<EffectId, EffectError> {
        let stem = Path::new(file).file_stem().and_then(|s| s.to_str()).unwrap_or("effect");
        let stem = stem.strip_suffix(".effect").unwrap_or(stem).to_owned();
        let mut read = |wanted: &str| match files.iter().find(|(n, _)| *n == wanted) {
            Some(&(n, text)) => Ok((n.to_owned(), text.to_owned())),
            None => Err(format!("{wanted}: not among the files given")),
        };
        self.insert(file, toml_text, parsed, &stem, (name, source.to_owned()), &mut read)
    }

    fn insert(
        &mut self,
        file: &str,
        toml_text: &str,
        parsed: EffectFile,
        stem: &str,
        (source_file, source): (String, String),
        read: ReadStage<'_>,
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
        if let Some((what, name, first, second)) = parsed.duplicate_name() {
            let first = locate(toml_text, first.start);
            return Err(at(second, EffectErrorKind::DuplicateName { what, name, first }));
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
        let mut defs = Vec::new();
        for (name, value) in &parsed.defs {
            let bad = |what: String| at(value.span(), EffectErrorKind::BadDef { name: name.clone(), what });
            if flags.contains(name) {
                return Err(bad("is also a flag; a def has one value for every permutation".into()));
            }
            use naga_oil::compose::ShaderDefValue as V;
            let v = match value.get_ref() {
                toml::Value::Boolean(b) => V::Bool(*b),
                toml::Value::Integer(i) if *i >= 0 => {
                    V::UInt(u32::try_from(*i).map_err(|_| bad(format!("is {i}, which u32 cannot hold")))?)
                }
                toml::Value::Integer(i) => {
                    V::Int(i32::try_from(*i).map_err(|_| bad(format!("is {i}, which i32 cannot hold")))?)
                }
                other => {
                    return Err(bad(format!("is a {}; a def is a boolean or an integer", other.type_str())));
                }
            };
            defs.push((name.clone(), v));
        }
        let mut techniques = Vec::new();
        let mut passes = Vec::new();
        let mut stage_files: Vec<StageSource> = Vec::new();
        for t in parsed.technique {
            let start = passes.len() as u32;
            for p in t.pass {
                let name = format!("{}.{}", t.name.get_ref(), p.name.get_ref());
                let bad = |what| at(p.name.span(), EffectErrorKind::BadPass { pass: name.clone(), what });
                let mut files: [Option<String>; 3] = Default::default();
                let mut parts = [0; 3];
                let mut entries: [Option<String>; 3] = Default::default();
                for (i, stage) in [p.vertex, p.fragment, p.compute].into_iter().enumerate() {
                    let Some(stage) = stage else { continue };
                    let span = stage.span();
                    let (entry, from) = stage.into_inner().split();
                    entries[i] = Some(entry);
                    let Some(from) = from else { continue };
                    let part = match stage_files.iter().position(|f| f.name == from) {
                        Some(at) => at,
                        None => {
                            let (path, text) = read(&from).map_err(|e| at(span, EffectErrorKind::Io(e)))?;
                            stage_files.push(StageSource { name: from.clone(), file: path, text });
                            stage_files.len() - 1
                        }
                    };
                    parts[i] = part as u32 + 1;
                    files[i] = Some(from);
                }
                let [vertex, fragment, compute] = entries;
                let render = vertex.is_some() || fragment.is_some();
                match (render, &compute) {
                    (true, Some(_)) => {
                        return Err(bad("mixes a compute entry point with vertex or fragment ones"));
                    }
                    (false, None) => return Err(bad("names neither a vertex nor a compute entry point")),
                    _ if render && vertex.is_none() => {
                        return Err(bad("has a fragment but no vertex entry point"));
                    }
                    _ => {}
                }
                let mut required = 0;
                for r in &p.requires {
                    let Some(i) = flags.iter().position(|f| f == r.get_ref()) else {
                        let what =
                            format!("requires `{}`, which is not one of the effect's flags", r.get_ref());
                        return Err(at(r.span(), EffectErrorKind::BadFlags(format!("pass `{name}` {what}"))));
                    };
                    required |= 1 << i;
                }
                passes.push(Pass {
                    name,
                    vertex,
                    fragment,
                    compute,
                    blend: p.blend,
                    cull: p.cull,
                    depth: p.depth,
                    color_write: p.color_write,
                    requires: p.requires.into_iter().map(toml::Spanned::into_inner).collect(),
                    required,
                    files,
                    parts,
                });
            }
            techniques.push((t.name.into_inner(), start..passes.len() as u32));
        }
        // Modules of the searched directories that it imports, before its flags are read.
        self.add_imported_modules(&source_file, &source)?;
        for f in &stage_files {
            self.add_imported_modules(&f.file, &f.text)?;
        }
        let texts = std::iter::once(source.as_str()).chain(stage_files.iter().map(|f| f.text.as_str()));
        let tested = self.tested_bits(texts, &flags, &passes);
        let effect = Effect {
            name: parsed.name.unwrap_or_else(|| stem.to_owned()),
            family: parsed.family.unwrap_or_else(|| file.to_owned()),
            source_file,
            source,
            stage_files,
            flags,
            defs,
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

    /// A loaded effect, or [`EffectErrorKind::Foreign`] for an id of another library.
    pub(crate) fn checked(&self, id: EffectId, what: &'static str) -> Result<&Effect, EffectError> {
        match self.effects.get(id.index as usize).filter(|_| id.library == self.tag) {
            Some(effect) => Ok(effect),
            None => Err(EffectError {
                file: "effect library".into(),
                location: None,
                kind: Box::new(EffectErrorKind::Foreign { what }),
            }),
        }
    }

    /// A pass, or [`EffectErrorKind::Foreign`] for a pass of another library.
    pub(crate) fn checked_pass(&self, id: PassId) -> Result<&Pass, EffectError> {
        Ok(&self.checked(id.effect, "pass")?.passes[id.index as usize])
    }

    /// Puts an effect's permutations in `family`, shared with other effects
    /// that name it: their material blocks then merge into one layout, as one
    /// material type. Set it before the effect's first permutation is
    /// registered; after, it is [`EffectErrorKind::FamilyFixed`].
    pub fn set_family(&mut self, id: EffectId, family: &str) -> Result<(), EffectError> {
        self.checked(id, "effect")?;
        let effect = &self.effects[id.index as usize];
        let registered = self.shaders.keys().any(|&(e, _)| e == id.index)
            || self.pass_shaders.keys().any(|&(e, _, _)| e == id.index);
        if effect.family != family && registered {
            return Err(EffectError {
                file: effect.source_file.clone(),
                location: None,
                kind: Box::new(EffectErrorKind::FamilyFixed { family: effect.family.clone() }),
            });
        }
        self.effects[id.index as usize].family = family.to_owned();
        // Composed permutations carry the family they were composed for.
        self.composed.retain(|k, _| k.0 != id.index);
        Ok(())
    }

    /// The names (`technique.pass`) of every loaded effect's passes.
    pub(crate) fn pass_names(&self) -> impl Iterator<Item = &str> {
        self.effects.iter().flat_map(|e| e.passes.iter().map(|p| p.name.as_str()))
    }

    /// A pass of a loaded effect.
    pub fn pass(&self, id: PassId) -> &Pass {
        &self.effect(id.effect).passes[id.index as usize]
    }

    /// A number that is equal for two (pass, flags) pairs exactly when they
    /// draw with the same pipeline (for targets alike): a queue's sort key.
    pub(crate) fn pipeline_key(&self, pass: PassId, flags: FlagSet) -> (u32, u32, Bits) {
        let bits = flags.bits & self.effect(pass.effect).tested;
        (pass.effect.index, pass.index, bits)
    }

    /// The flag set with `names` switched on; an unknown name is an error
    /// that lists the effect's flags.
    pub fn flags(&self, id: EffectId, names: &[&str]) -> Result<FlagSet, EffectError> {
        let effect = self.checked(id, "effect id")?;
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
        let effect = self.checked(id, "effect id")?;
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
        let effect = self.checked(flags.effect, "flag set")?;
        let bits = flags.bits & effect.tested;
        let key = (flags.effect.index, bits);
        if let Some(&id) = self.shaders.get(&key).filter(|id| manager.registry().owns(**id)) {
            return Ok(id);
        }
        let reflection = self.composed(flags.effect, bits, 0)?;
        let id = self.register_reflection(manager, flags.effect, bits, reflection)?;
        self.shaders.insert(key, id);
        Ok(id)
    }

    /// A permutation of the effect's source (`part` 0) or of its `part`-th
    /// stage file, composed once and kept (passes narrow it again).
    pub(super) fn composed(
        &mut self,
        id: EffectId,
        bits: Bits,
        part: u32,
    ) -> Result<ShaderReflection, EffectError> {
        if let Some((r, _)) = self.composed.get(&(id.index, bits, part)) {
            return Ok(r.clone());
        }
        let (reflection, sites) = self.permutation(id, bits, part)?;
        self.composed.insert((id.index, bits, part), (reflection.clone(), sites));
        Ok(reflection)
    }

    /// Registers a permutation (or a pass's part of one) with `manager`.
    pub(super) fn register_reflection(
        &mut self,
        manager: &mut Manager,
        id: EffectId,
        bits: Bits,
        reflection: ShaderReflection,
    ) -> Result<ShaderId, EffectError> {
        let effect = self.effect(id);
        let shader = manager.register(reflection).map_err(|e| EffectError {
            file: effect.source_file.clone(),
            location: None,
            kind: Box::new(match e {
                e @ Error::Layout { .. } => self.conflict(id, bits, e),
                e => EffectErrorKind::Register { flags: effect.describe(bits), source: Box::new(e) },
            }),
        })?;
        self.stats.registered += 1;
        Ok(shader)
    }

    /// The error of a permutation whose blocks conflict with its family's slots.
    pub(super) fn conflict(&self, id: EffectId, bits: Bits, source: Error) -> EffectErrorKind {
        let effect = self.effect(id);
        let shared_with = (self.effects.iter().enumerate())
            .filter(|&(i, e)| i != id.index as usize && e.family == effect.family)
            .map(|(_, e)| e.name.clone())
            .collect();
        EffectErrorKind::Conflict {
            flags: effect.describe(bits),
            passes: effect.passes_using(),
            family: effect.family.clone(),
            shared_with,
            source: Box::new(source),
        }
    }

    /// Composes and reflects one permutation of the effect's source or of
    /// a stage file (`part`), and checks that it has every entry point its
    /// passes take from it.
    pub(super) fn permutation(
        &mut self,
        id: EffectId,
        bits: Bits,
        part: u32,
    ) -> Result<(ShaderReflection, Sites), EffectError> {
        let effect = &self.effects[id.index as usize];
        let defs = effect.flags_on(bits);
        let flags = effect.describe(bits);
        let (file, text) = match part.checked_sub(1) {
            None => (&effect.source_file, &effect.source),
            Some(i) => (&effect.stage_files[i as usize].file, &effect.stage_files[i as usize].text),
        };
        let module = self.compose.compose(file, text, &effect.defs, &defs, &flags)?;
        let sites = self.compose.sites(&module, file, text);
        self.stats.compositions += 1;
        for pass in effect.passes.iter().filter(|p| bits & p.required == p.required) {
            let kinds = [
                ("vertex", naga::ShaderStage::Vertex),
                ("fragment", naga::ShaderStage::Fragment),
                ("compute", naga::ShaderStage::Compute),
            ];
            let entries = [&pass.vertex, &pass.fragment, &pass.compute].into_iter().zip(pass.parts);
            for ((stage, kind), (entry, from)) in kinds.into_iter().zip(entries) {
                let Some(entry) = entry.as_ref().filter(|_| from == part) else { continue };
                if !module.entry_points.iter().any(|e| &e.name == entry && e.stage == kind) {
                    return Err(EffectError {
                        file: file.clone(),
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
        let name = match part {
            0 => format!("{}[{flags}]", effect.name),
            _ => format!("{}[{flags}] {}", effect.name, effect.stage_files[part as usize - 1].name),
        };
        let reflection = ShaderReflection::from_module(name, module).map_err(|e| EffectError {
            file: file.clone(),
            location: e.location,
            kind: Box::new(EffectErrorKind::Register { flags, source: Box::new(e.into()) }),
        })?;
        Ok((reflection.with_family(effect.family.clone()), sites))
    }
}

/// Finds a stage file by the name the effect file gives: its path (for
/// errors) and text, or why not.
type ReadStage<'a> = &'a mut dyn FnMut(&str) -> Result<(String, String), String>;

/// Reads an effect file or a WGSL source as `ShaderReflection::from_path`
/// reads shaders: a regular UTF-8 file within the same size limit.
pub(super) fn read_text(path: &Path) -> Result<String, String> {
    let bytes = freqbuf::reflect::read_file(path, ShaderReflection::MAX_FILE_SIZE)?;
    String::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))
}

fn parse(file: &str, text: &str) -> Result<EffectFile, EffectError> {
    toml::from_str(text).map_err(|e: toml::de::Error| EffectError {
        file: file.to_owned(),
        location: e.span().map(|s| locate(text, s.start)),
        kind: Box::new(EffectErrorKind::Toml(e.message().trim_end().to_owned())),
    })
}
