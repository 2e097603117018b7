//! The effect library: loaded effects, their permutations (composed and
//! registered once per combination of the flags their source tests), the
//! whole-effect check, and the pipeline cache.

use super::catalog::Catalog;
use super::compose::Compose;
use super::source::sites::Sites;
use super::types::{Bits, Effect, EffectId, EffectStats, FlagSet, Pass, PassId, Passes};
use crate::error::{EffectError, EffectErrorKind};
use freqbuf::Error;
use freqbuf::Manager;
use freqbuf::ShaderId;
use freqbuf::reflect::ShaderReflection;

/// While an effect's flag rules allow at most this many combinations,
/// [`Effects::check`] and [`Effects::warm`] take every one of them, whatever
/// the flag count (Bevy 0.20.1's `prepass` allows 5,408 of 2^17); above it,
/// no flag, every flag alone, every pair and all together, each moved to an
/// allowed combination near it.
pub const EXHAUSTIVE_COMBINATIONS: usize = 16_384;

/// Loaded effects, their registered permutations and their pipelines.
///
/// Use an `Effects` with one [`Manager`]: permutations are registered with it
/// and share its slots. Cost: a permutation is composed and registered the
/// first time its flags are used; a pipeline is built the first time a
/// (pass, flags, targets) triple is used; after that both are hash lookups.
#[derive(Debug)]
pub struct Effects {
    /// The loaded effects and their `with_defs` copies, by id.
    pub(super) catalog: Catalog,
    pub(super) compose: Compose,
    /// Compositions and the shaders registered from them.
    pub(super) permutations: super::build::permutations::Permutations,
    /// Modules and pipelines, for one device.
    pub(super) pipelines: super::pipeline::pipelines::Pipelines,
    pub(super) stats: EffectStats,
    /// Module files added, and those [`Effects::add_module_dir`] found.
    pub(super) module_files: super::source::module_files::ModuleFiles,
    /// Defs of [`Effects::set_defs`], given to every effect loaded after.
    pub(super) code_defs: Vec<(String, naga_oil::compose::ShaderDefValue)>,
    /// WESL packages for every effect, and the package files read.
    #[cfg_attr(not(feature = "wesl"), allow(dead_code, reason = "no packages without WESL"))]
    pub(super) wesl: super::source::wesl::Library,
    /// The libraries the whole-effect check composes on, one per core (none
    /// on the web, where it composes on one thread).
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) workers: Workers,
}

impl Default for Effects {
    fn default() -> Self {
        Self::new()
    }
}

impl Effects {
    /// An empty library.
    pub fn new() -> Self {
        Self {
            catalog: Catalog::new(),
            compose: Compose::new(),
            permutations: Default::default(),
            pipelines: Default::default(),
            stats: EffectStats::default(),
            module_files: Default::default(),
            code_defs: Vec::new(),
            wesl: Default::default(),
            #[cfg(not(target_arch = "wasm32"))]
            workers: Default::default(),
        }
    }

    /// A loaded effect.
    ///
    /// # Panics
    /// On an id of another library, as indexing an arena would.
    pub fn effect(&self, id: EffectId) -> &Effect {
        self.catalog.effect(id)
    }

    /// A loaded effect, or [`EffectErrorKind::Foreign`] for an id of another library.
    pub(crate) fn checked(&self, id: EffectId, what: &'static str) -> Result<&Effect, EffectError> {
        self.catalog.checked(id, what)
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
        let effect = &self.catalog[id.index as usize];
        let registered = self.permutations.registered(id.index);
        if effect.family != family && registered {
            return Err(EffectError {
                file: effect.source_file.clone(),
                location: None,
                kind: Box::new(EffectErrorKind::FamilyFixed { family: effect.family.clone() }),
            });
        }
        self.catalog[id.index as usize].family = family.to_owned();
        // Composed permutations carry the family they were composed for.
        self.permutations.drop_compositions(id.index, None);
        Ok(())
    }

    /// Drops what was built from effect `id`'s flags (its permutations and
    /// pipelines), once the flags it tests have changed: the one place where
    /// loading reaches what the later stages keep.
    pub(super) fn forget(&mut self, id: EffectId) {
        self.permutations.forget(id.index);
        self.pipelines.forget(id);
    }

    /// The names (`technique.pass`) of every loaded effect's passes.
    pub(crate) fn pass_names(&self) -> impl Iterator<Item = &str> {
        self.catalog.iter().flat_map(|e| e.passes.iter().map(|p| p.name.as_str()))
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
            if effect.device_bits() & (1 << i) != 0 {
                return Err(EffectError {
                    file: effect.name.clone(),
                    location: None,
                    kind: Box::new(EffectErrorKind::DeviceFlag {
                        effect: effect.name.clone(),
                        flag: (*name).to_owned(),
                    }),
                });
            }
            bits |= 1 << i;
        }
        if let Some(rule) = effect.rules.broken(bits) {
            return Err(EffectError {
                file: effect.name.clone(),
                location: None,
                kind: Box::new(EffectErrorKind::FlagsNotAllowed {
                    effect: effect.name.clone(),
                    flags: effect.describe(bits),
                    rule,
                }),
            });
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

    /// The one pass of a one-pass technique (most are), without a loop;
    /// a technique of several passes is [`EffectErrorKind::NotOnePass`].
    pub fn only_pass(&self, id: EffectId, technique: &str) -> Result<PassId, EffectError> {
        let mut passes = self.technique(id, technique)?;
        match (passes.next(), passes.count()) {
            (Some(pass), 0) => Ok(pass),
            (first, rest) => {
                let effect = self.effect(id).name.clone();
                let passes = usize::from(first.is_some()) + rest;
                let kind = EffectErrorKind::NotOnePass {
                    effect: effect.clone(),
                    technique: technique.to_owned(),
                    passes,
                };
                Err(EffectError { file: effect, location: None, kind: Box::new(kind) })
            }
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
        let bits = effect.on_device(flags.bits, manager) & effect.tested;
        let key = (flags.effect.index, bits);
        if let Some(id) = self.permutations.shader(key).filter(|&id| manager.registry().owns(id)) {
            return Ok(id);
        }
        let reflection = self.composed(flags.effect, bits, 0)?;
        let id = self.register_reflection(manager, flags.effect, bits, reflection)?;
        self.permutations.keep_shader(key, id);
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
        if let Some((r, _)) = self.permutations.composed((id.index, bits, part)) {
            return Ok(r.clone());
        }
        let (reflection, sites) = self.permutation(id, bits, part)?;
        self.permutations.keep_composed((id.index, bits, part), (reflection.clone(), sites));
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
        let shared_with = (self.catalog.iter().enumerate())
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
        let effect = &self.catalog[id.index as usize];
        let defs = effect.flags_on(effect.part_bits(part, bits));
        let flags = effect.describe(bits);
        let (file, text) = match part.checked_sub(1) {
            None => (&effect.source_file, &effect.source),
            Some(i) => (&effect.stage_files[i as usize].file, &effect.stage_files[i as usize].text),
        };
        let part_defs = effect.part_defs(part);
        let (module, sites, wesl) = match &effect.wesl {
            Some(w) => {
                let c = super::source::wesl::permutation(w, part, &part_defs, &defs, (&effect.name, &flags))?;
                (c.module, c.sites, Some(c.map))
            }
            None => {
                let module = self.compose.compose(file, text, &part_defs, &defs, &flags)?;
                let sites = self.compose.sites(&module, file, text);
                (module, sites, None)
            }
        };
        self.stats.compositions += 1;
        for pass in effect.passes.iter().filter(|p| p.exists_under(bits)) {
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
        let reflection = ShaderReflection::from_module(name, module).map_err(|e| match &wesl {
            Some(map) => map.reflect_error(e, &flags),
            None => EffectError {
                file: file.clone(),
                location: e.location,
                kind: Box::new(EffectErrorKind::Register { flags, source: Box::new(e.into()) }),
            },
        })?;
        Ok((reflection.with_family(effect.family.clone()), sites))
    }
}

#[cfg(not(target_arch = "wasm32"))]
/// The libraries the whole-effect check composes on, one per core, each
/// with its own composer. Kept while no module is added: forking a composer
/// adds every module again.
#[derive(Debug, Default)]
pub(super) struct Workers {
    libraries: Vec<Effects>,
}

#[cfg(not(target_arch = "wasm32"))]
impl Workers {
    /// One library per core holding `main`'s effects, or `None` on one core
    /// (or where threads cannot be had, as on the web). Forked once, and again
    /// after a module is added; lent until [`Workers::give_back`].
    pub(super) fn lend(&mut self, main: &Effects) -> Option<Vec<Effects>> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
        if cores < 2 {
            return None;
        }
        let modules = main.compose.module_count();
        let stale = self.libraries.len() != cores
            || self.libraries.iter().any(|w| w.compose.module_count() != modules);
        if stale {
            let fork = || -> Result<Effects, EffectError> {
                let mut worker = Effects::new();
                worker.catalog = Catalog::fork(&main.catalog);
                worker.compose = main.compose.fork()?;
                Ok(worker)
            };
            self.libraries = (0..cores).map(|_| fork()).collect::<Result<Vec<_>, _>>().ok()?;
        }
        let mut lent = std::mem::take(&mut self.libraries);
        for w in &mut lent {
            w.catalog.mirror(&main.catalog);
        }
        Some(lent)
    }

    /// Keeps the lent libraries for the next check.
    pub(super) fn give_back(&mut self, libraries: Vec<Effects>) {
        self.libraries = libraries;
    }
}
