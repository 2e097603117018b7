//! `Catalog`: the effects a library loaded, by index, and the copies
//! [`Effects::with_defs`](crate::Effects::with_defs) made of them.
//!
//! Every [`EffectId`] carries its library's tag: the catalog makes the ids
//! and is the one place that tells an id of another library from its own.

use std::collections::HashMap;

use super::types::{Effect, EffectId};
use crate::error::{EffectError, EffectErrorKind};

#[derive(Debug)]
pub(super) struct Catalog {
    tag: u32,
    effects: Vec<Effect>,
    /// (base effect, its defs as given) → the copy made with those defs.
    copies: HashMap<(u32, String), u32>,
}

impl Catalog {
    /// An empty catalog with a tag of its own.
    pub(super) fn new() -> Self {
        Self { tag: crate::tag::Counter::Library.next(), effects: Vec::new(), copies: HashMap::new() }
    }

    /// An empty catalog whose ids are `main`'s: a worker library that
    /// composes `main`'s effects (filled by [`Catalog::mirror`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn fork(main: &Catalog) -> Self {
        Self { tag: main.tag, effects: Vec::new(), copies: HashMap::new() }
    }

    /// Holds the same effects as `main`, reusing its own allocations.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn mirror(&mut self, main: &Catalog) {
        self.effects.clone_from(&main.effects);
    }

    /// The id of the effect at `index`.
    pub(super) fn id(&self, index: u32) -> EffectId {
        EffectId { library: self.tag, index }
    }

    /// The effect of `id`.
    ///
    /// # Panics
    /// On an id of another library, as indexing an arena would.
    pub(super) fn effect(&self, id: EffectId) -> &Effect {
        assert_eq!(id.library, self.tag, "an EffectId of another library");
        &self.effects[id.index as usize]
    }

    /// The effect of `id`, or [`EffectErrorKind::Foreign`] naming `what`
    /// for an id of another library.
    pub(super) fn checked(&self, id: EffectId, what: &'static str) -> Result<&Effect, EffectError> {
        match self.effects.get(id.index as usize).filter(|_| id.library == self.tag) {
            Some(effect) => Ok(effect),
            None => Err(EffectError {
                file: "effect library".into(),
                location: None,
                kind: Box::new(EffectErrorKind::Foreign { what }),
            }),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.effects.len()
    }

    pub(super) fn iter(&self) -> std::slice::Iter<'_, Effect> {
        self.effects.iter()
    }

    /// Adds a loaded effect; returns its id.
    pub(super) fn push(&mut self, effect: Effect) -> EffectId {
        self.effects.push(effect);
        self.id(self.effects.len() as u32 - 1)
    }

    /// The copy of `base` already made with `defs` (as given, spelled by `Debug`).
    pub(super) fn copy(&self, base: u32, defs: &str) -> Option<EffectId> {
        self.copies.get(&(base, defs.to_owned())).map(|&index| self.id(index))
    }

    /// Adds `effect`, the copy of `base` with `defs`; returns its id.
    pub(super) fn push_copy(&mut self, base: u32, defs: String, effect: Effect) -> EffectId {
        let id = self.push(effect);
        self.copies.insert((base, defs), id.index);
        id
    }

    /// The effect the effect at `index` is a copy of, if it is one.
    pub(super) fn base_of(&self, index: u32) -> Option<u32> {
        self.copies.iter().find(|&(_, &i)| i == index).map(|(&(base, _), _)| base)
    }
}

impl std::ops::Index<usize> for Catalog {
    type Output = Effect;

    fn index(&self, index: usize) -> &Effect {
        &self.effects[index]
    }
}

impl std::ops::IndexMut<usize> for Catalog {
    fn index_mut(&mut self, index: usize) -> &mut Effect {
        &mut self.effects[index]
    }
}
