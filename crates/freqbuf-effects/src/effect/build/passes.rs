//! The shader a pass's pipelines use: the permutation narrowed to the pass's
//! entry points, so a depth pass's layout holds no fragment-only material
//! bindings, and two passes may use different resources at one binding point.
//! A pass whose stages come from several files links their narrowed parts.

use freqbuf::reflect::{Resource, ShaderReflection};
use freqbuf::{Manager, ShaderId};

use crate::effect::library::Effects;
use crate::effect::types::{FlagSet, PassId};
use crate::error::{EffectError, EffectErrorKind};

impl Effects {
    /// The shader `pass`'s pipelines use with `flags`: the permutation
    /// narrowed to the pass's entry points
    /// ([`ShaderReflection::for_entry_points`]), registered the first time.
    /// When they use all the permutation uses, it is the permutation's own
    /// shader ([`Effects::shader`]). Cost: a hash lookup once registered.
    pub fn pass_shader(
        &mut self,
        manager: &mut Manager,
        pass: PassId,
        flags: FlagSet,
    ) -> Result<ShaderId, EffectError> {
        let effect = self.checked(flags.effect, "flag set")?;
        let bits = effect.on_device(flags.bits, manager) & effect.tested;
        let flags = FlagSet { bits, ..flags };
        let key = (flags.effect.index, bits, pass.index);
        if let Some(id) = self.permutations.pass_shader(key).filter(|&id| manager.registry().owns(id)) {
            return Ok(id);
        }
        let id = if self.pass(pass).is_linked() {
            self.register_linked(manager, pass, FlagSet { bits, ..flags })?
        } else {
            let whole = self.composed(flags.effect, bits, 0)?;
            match self.narrowed(&whole, pass, flags)? {
                None => self.shader(manager, flags)?,
                Some(narrowed) => self.register_reflection(manager, flags.effect, bits, narrowed)?,
            }
        };
        self.permutations.keep_pass_shader(key, id);
        Ok(id)
    }

    /// Registers each file's part of a linked pass (for its stages'
    /// modules) and then their link (for the pipeline layout).
    fn register_linked(
        &mut self,
        manager: &mut Manager,
        pass: PassId,
        flags: FlagSet,
    ) -> Result<ShaderId, EffectError> {
        let parts = self.parts(pass, flags)?;
        let mut ids = Vec::new();
        for (_, part) in &parts {
            ids.push(self.register_reflection(manager, flags.effect, flags.bits, part.clone())?);
        }
        let linked = self.linked(pass, flags, &parts);
        let id = self.register_reflection(manager, flags.effect, flags.bits, linked)?;
        let p = self.pass(pass);
        let mut stages = [None; 3];
        for (i, entry) in [&p.vertex, &p.fragment, &p.compute].into_iter().enumerate() {
            let at = parts.iter().position(|(part, _)| *part == p.parts[i]);
            stages[i] = entry.as_ref().and(at).map(|at| ids[at]);
        }
        self.permutations.keep_stage_shaders(id, stages);
        Ok(id)
    }

    /// The module a stage (0 vertex, 1 fragment, 2 compute) of `shader`'s
    /// pipelines is built from: its part's, for a linked pass.
    pub(in crate::effect) fn stage_shader(&self, shader: ShaderId, stage: usize) -> ShaderId {
        self.permutations.stage_shader(shader, stage)
    }

    /// Each file's permutation a linked pass uses, narrowed to its stages there.
    fn parts(&mut self, pass: PassId, flags: FlagSet) -> Result<Vec<(u32, ShaderReflection)>, EffectError> {
        let mut wanted: Vec<(u32, Vec<String>)> = Vec::new();
        for (entry, part) in self.pass(pass).stages() {
            match wanted.iter_mut().find(|(p, _)| *p == part) {
                Some((_, entries)) => entries.push(entry.to_owned()),
                None => wanted.push((part, vec![entry.to_owned()])),
            }
        }
        let mut parts = Vec::new();
        for (part, entries) in wanted {
            let whole = self.composed(flags.effect, flags.bits, part)?;
            let entries = entries.iter().map(String::as_str).collect::<Vec<_>>();
            // Each resource named by its file and position, not by the
            // effect: a conflict points into each file.
            let effect = self.effect(flags.effect);
            let file = match part.checked_sub(1) {
                None => effect.source_file.clone(),
                Some(i) => effect.stage_files[i as usize].file.clone(),
            };
            let sites = self.permutations.composed((flags.effect.index, flags.bits, part)).map(|(_, s)| s);
            let site = |r: &Resource| {
                sites.and_then(|s| s.get(&r.name)).cloned().unwrap_or_else(|| (file.clone(), None))
            };
            parts.push((part, self.narrow(&whole, &entries, flags)?.declared_at(site)));
        }
        Ok(parts)
    }

    /// The layout a linked pass's pipelines use: its parts linked.
    fn linked(&self, pass: PassId, flags: FlagSet, parts: &[(u32, ShaderReflection)]) -> ShaderReflection {
        let effect = self.effect(flags.effect);
        let name = format!("{}[{}] pass {}", effect.name, effect.describe(flags.bits), self.pass(pass).name);
        ShaderReflection::link(name, &parts.iter().map(|(_, r)| r).collect::<Vec<_>>())
    }

    /// Registers what every pass that exists under `flags` uses (the
    /// permutation itself when the effect has no such pass): what a
    /// material of those flags needs before its values are set.
    pub(crate) fn register_passes(
        &mut self,
        manager: &mut Manager,
        flags: FlagSet,
    ) -> Result<(), EffectError> {
        let passes = self.passes_under(flags)?;
        if passes.is_empty() {
            return self.shader(manager, flags).map(drop);
        }
        passes.into_iter().try_for_each(|pass| self.pass_shader(manager, pass, flags).map(drop))
    }

    /// What the passes under `bits` register, each once: the permutation, or
    /// a pass's narrowed part of it where it uses less.
    pub(in crate::effect) fn pass_reflections(
        &mut self,
        flags: FlagSet,
    ) -> Result<Vec<ShaderReflection>, EffectError> {
        let whole = self.composed(flags.effect, flags.bits, 0)?;
        let mut out: Vec<ShaderReflection> = Vec::new();
        let passes = self.passes_under(flags)?;
        for pass in &passes {
            let shader = if self.pass(*pass).is_linked() {
                let parts = self.parts(*pass, flags)?;
                self.linked(*pass, flags, &parts)
            } else {
                self.narrowed(&whole, *pass, flags)?.unwrap_or_else(|| whole.clone())
            };
            if !out.iter().any(|s| s.name() == shader.name()) {
                out.push(shader);
            }
        }
        if passes.is_empty() {
            out.push(whole);
        }
        Ok(out)
    }

    /// The passes of `flags`' effect that exist under them.
    fn passes_under(&self, flags: FlagSet) -> Result<Vec<PassId>, EffectError> {
        let effect = self.checked(flags.effect, "flag set")?;
        Ok((0..effect.passes.len() as u32)
            .map(|index| PassId { effect: flags.effect, index })
            .filter(|&p| self.pass(p).exists_under(flags.bits))
            .collect())
    }

    /// `whole` narrowed to `pass`'s entry points, or `None` when they use all of it.
    fn narrowed(
        &self,
        whole: &ShaderReflection,
        pass: PassId,
        flags: FlagSet,
    ) -> Result<Option<ShaderReflection>, EffectError> {
        let entries = self.pass(pass).stages().map(|(e, _)| e).collect::<Vec<_>>();
        let narrowed = self.narrow(whole, &entries, flags)?;
        let same = uses(&narrowed) == uses(whole) && narrowed.immediate_size() == whole.immediate_size();
        Ok((!same).then_some(narrowed))
    }
}

impl Effects {
    fn narrow(
        &self,
        whole: &ShaderReflection,
        entries: &[&str],
        flags: FlagSet,
    ) -> Result<ShaderReflection, EffectError> {
        whole.for_entry_points(entries).map_err(|e| {
            let effect = self.effect(flags.effect);
            EffectError {
                file: effect.source_file.clone(),
                location: e.location,
                kind: Box::new(EffectErrorKind::Register {
                    flags: effect.describe(flags.bits),
                    source: Box::new(e.into()),
                }),
            }
        })
    }
}

/// The resources a shader uses, by binding point and name.
fn uses(shader: &ShaderReflection) -> Vec<(freqbuf::BindingPoint, &str)> {
    shader.used_resources().map(|r| (r.binding, r.name.as_str())).collect()
}
