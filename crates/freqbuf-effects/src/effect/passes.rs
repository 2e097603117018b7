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
        let p = self.pass(pass);
        let entries = [&p.vertex, &p.fragment, &p.compute].into_iter().flatten().map(String::as_str);
        let narrowed = whole.for_entry_points(&entries.collect::<Vec<_>>()).map_err(|e| {
            let effect = self.effect(flags.effect);
            EffectError {
                file: effect.source_file.clone(),
                location: e.location,
                kind: Box::new(EffectErrorKind::Register {
                    flags: effect.describe(bits),
                    source: Box::new(e.into()),
                }),
            }
        })?;
        let id = match uses(&narrowed) == uses(&whole) && narrowed.immediate_size() == whole.immediate_size()
        {
            true => self.shader(manager, flags)?,
            false => self.register_reflection(manager, flags.effect, bits, narrowed)?,
        };
        self.pass_shaders.insert(key, id);
        Ok(id)
    }
}

/// The resources a shader uses, by binding point and name.
fn uses(shader: &ShaderReflection) -> Vec<(freqbuf::BindingPoint, &str)> {
    shader.used_resources().map(|r| (r.binding, r.name.as_str())).collect()
}
