//! The shader a pass's pipelines use: the permutation narrowed to the pass's
//! entry points, so a depth pass's layout holds no fragment-only material
//! bindings, and two passes may use different resources at one binding point.

use freqbuf::reflect::ShaderReflection;
use freqbuf::{Manager, ShaderId};

use super::library::Effects;
use super::types::{FlagSet, PassId};
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
        let bits = flags.bits & effect.tested;
        let key = (flags.effect.index, bits, pass.index);
        if let Some(&id) = self.pass_shaders.get(&key).filter(|id| manager.registry().owns(**id)) {
            return Ok(id);
        }
        let whole = self.composed(flags.effect, bits)?;
        let id = match self.narrowed(&whole, pass, flags)? {
            None => self.shader(manager, flags)?,
            Some(narrowed) => self.register_reflection(manager, flags.effect, bits, narrowed)?,
        };
        self.pass_shaders.insert(key, id);
        Ok(id)
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
    pub(super) fn pass_reflections(&mut self, flags: FlagSet) -> Result<Vec<ShaderReflection>, EffectError> {
        let whole = self.composed(flags.effect, flags.bits)?;
        let mut out: Vec<ShaderReflection> = Vec::new();
        let passes = self.passes_under(flags)?;
        for pass in &passes {
            let shader = self.narrowed(&whole, *pass, flags)?.unwrap_or_else(|| whole.clone());
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
            .filter(|&p| flags.bits & self.pass(p).required == self.pass(p).required)
            .collect())
    }

    /// `whole` narrowed to `pass`'s entry points, or `None` when they use all of it.
    fn narrowed(
        &self,
        whole: &ShaderReflection,
        pass: PassId,
        flags: FlagSet,
    ) -> Result<Option<ShaderReflection>, EffectError> {
        let p = self.pass(pass);
        let entries = [&p.vertex, &p.fragment, &p.compute].into_iter().flatten().map(String::as_str);
        let narrowed = whole.for_entry_points(&entries.collect::<Vec<_>>()).map_err(|e| {
            let effect = self.effect(flags.effect);
            EffectError {
                file: effect.source_file.clone(),
                location: e.location,
                kind: Box::new(EffectErrorKind::Register {
                    flags: effect.describe(flags.bits),
                    source: Box::new(e.into()),
                }),
            }
        })?;
        let same = uses(&narrowed) == uses(whole) && narrowed.immediate_size() == whole.immediate_size();
        Ok((!same).then_some(narrowed))
    }
}

/// The resources a shader uses, by binding point and name.
fn uses(shader: &ShaderReflection) -> Vec<(freqbuf::BindingPoint, &str)> {
    shader.used_resources().map(|r| (r.binding, r.name.as_str())).collect()
}
