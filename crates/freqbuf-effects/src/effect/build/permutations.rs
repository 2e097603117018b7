//! The library's permutations: each effect's compositions (of its source
//! and of each stage file, per combination of the flags it tests) and the
//! shaders registered from them, whole or narrowed to a pass. The part of
//! [`Effects`](crate::effect::library::Effects) that holds what composition made.

use std::collections::HashMap;

use freqbuf::ShaderId;
use freqbuf::reflect::ShaderReflection;

use crate::effect::source::sites::Sites;
use crate::effect::types::Bits;

/// (effect index, tested flag bits)
type Key = (u32, Bits);

/// Permutations, composed and registered; see the module's doc.
#[derive(Debug, Default)]
pub(in crate::effect) struct Permutations {
    /// → the registered permutation.
    shaders: HashMap<Key, ShaderId>,
    /// (effect, bits, pass) → the shader the pass's pipelines use.
    pass_shaders: HashMap<(u32, Bits, u32), ShaderId>,
    /// A pass shader linked from several files → the shader of each stage's
    /// part (vertex, fragment, compute), whose modules its pipelines use.
    stage_shaders: HashMap<ShaderId, [Option<ShaderId>; 3]>,
    /// (effect, bits, part: 0 the source, `i` the `i`-th stage file) → the
    /// composition, kept for the passes that narrow it, with where its
    /// resources are declared (for a linked pass's errors).
    composed: HashMap<(u32, Bits, u32), (ShaderReflection, Sites)>,
}

impl Permutations {
    pub(in crate::effect) fn shader(&self, key: Key) -> Option<ShaderId> {
        self.shaders.get(&key).copied()
    }

    pub(in crate::effect) fn keep_shader(&mut self, key: Key, id: ShaderId) {
        self.shaders.insert(key, id);
    }

    pub(in crate::effect) fn pass_shader(&self, key: (u32, Bits, u32)) -> Option<ShaderId> {
        self.pass_shaders.get(&key).copied()
    }

    pub(in crate::effect) fn keep_pass_shader(&mut self, key: (u32, Bits, u32), id: ShaderId) {
        self.pass_shaders.insert(key, id);
    }

    /// The shader a stage (0 vertex, 1 fragment, 2 compute) of `shader`'s
    /// pipelines is built from: its part's, for a linked pass.
    pub(in crate::effect) fn stage_shader(&self, shader: ShaderId, stage: usize) -> ShaderId {
        self.stage_shaders.get(&shader).and_then(|s| s[stage]).unwrap_or(shader)
    }

    pub(in crate::effect) fn keep_stage_shaders(&mut self, shader: ShaderId, stages: [Option<ShaderId>; 3]) {
        self.stage_shaders.insert(shader, stages);
    }

    /// Whether any permutation of effect `effect` is registered.
    pub(in crate::effect) fn registered(&self, effect: u32) -> bool {
        self.shaders.keys().any(|&(e, _)| e == effect)
            || self.pass_shaders.keys().any(|&(e, _, _)| e == effect)
    }

    pub(in crate::effect) fn composed(&self, key: (u32, Bits, u32)) -> Option<&(ShaderReflection, Sites)> {
        self.composed.get(&key)
    }

    pub(in crate::effect) fn keep_composed(
        &mut self,
        key: (u32, Bits, u32),
        composed: (ShaderReflection, Sites),
    ) {
        self.composed.insert(key, composed);
    }

    /// Which of the `parts` parts of `(effect, bits)` are composed and kept.
    pub(in crate::effect) fn composed_parts(&self, effect: u32, bits: Bits, parts: u32) -> Vec<u32> {
        (0..parts).filter(|&p| self.composed.contains_key(&(effect, bits, p))).collect()
    }

    /// Drops the compositions of `(effect, bits)` but the parts in `kept`:
    /// a check over many combinations keeps only what was kept before it.
    pub(in crate::effect) fn drop_composed_but(&mut self, effect: u32, bits: Bits, parts: u32, kept: &[u32]) {
        for part in (0..parts).filter(|p| !kept.contains(p)) {
            self.composed.remove(&(effect, bits, part));
        }
    }

    /// Drops the compositions of `effect`, of every combination or of `bits` only.
    pub(in crate::effect) fn drop_compositions(&mut self, effect: u32, bits: Option<Bits>) {
        self.composed.retain(|k, _| k.0 != effect || bits.is_some_and(|b| k.1 != b));
    }

    /// Drops everything of `effect` (its tested flags changed).
    pub(in crate::effect) fn forget(&mut self, effect: u32) {
        self.shaders.retain(|k, _| k.0 != effect);
        self.pass_shaders.retain(|k, _| k.0 != effect);
        self.drop_compositions(effect, None);
    }
}
