//! Material families: the registry's table of family names, the id that
//! indexes it, and the scope a name lookup has among families.
//!
//! Slots, bindings, shaders and instances carry a [`FamilyId`] instead of a
//! name or a bare index; the name is looked up where a message needs it.

use std::num::NonZeroU32;

/// A material family: its place in the registry's [`Families`] table. Four
/// bytes, and `Option<FamilyId>` too, for per-instance tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct FamilyId(NonZeroU32);

impl FamilyId {
    fn new(index: usize) -> Self {
        let raw = u32::try_from(index + 1).expect("fewer than u32::MAX families");
        Self(NonZeroU32::new(raw).expect("index + 1 is not zero"))
    }

    fn index(self) -> usize {
        self.0.get() as usize - 1
    }
}

/// Family names, in the order shaders (or `create_material_in`) first named them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Families(Vec<String>);

impl Families {
    /// The family of that name, if one was named.
    pub(crate) fn get(&self, name: &str) -> Option<FamilyId> {
        self.0.iter().position(|f| f == name).map(FamilyId::new)
    }

    /// The family of that name, added when none was named yet.
    pub(crate) fn intern(&mut self, name: &str) -> FamilyId {
        self.get(name).unwrap_or_else(|| {
            self.0.push(name.to_owned());
            FamilyId::new(self.0.len() - 1)
        })
    }

    /// The id the next new family gets (a shader being staged names it
    /// before it is added).
    pub(crate) fn next(&self) -> FamilyId {
        FamilyId::new(self.0.len())
    }

    /// A family's name; `None` for one being staged, not added yet.
    pub(crate) fn name(&self, id: FamilyId) -> Option<&str> {
        self.0.get(id.index()).map(String::as_str)
    }

    /// Every family's name, in order.
    pub(crate) fn names(&self) -> &[String] {
        &self.0
    }
}

/// The families a lookup sees, besides the slots no family owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FamilyScope {
    /// Every family's slots.
    Every,
    /// One family's.
    Only(FamilyId),
    /// None: a family no shader named yet has no slots of its own.
    Unnamed,
}

impl FamilyScope {
    /// Whether a slot of family `slot` (`None`: shared) is in scope.
    pub(crate) fn sees(self, slot: Option<FamilyId>) -> bool {
        match (self, slot) {
            (_, None) | (FamilyScope::Every, _) => true,
            (FamilyScope::Only(own), Some(f)) => own == f,
            (FamilyScope::Unnamed, Some(_)) => false,
        }
    }

    /// The scope of `family` (every family when `None`), by name.
    pub(crate) fn of(families: &Families, family: Option<&str>) -> Self {
        match family {
            None => FamilyScope::Every,
            Some(name) => families.get(name).map_or(FamilyScope::Unnamed, FamilyScope::Only),
        }
    }
}

/// A family with its name, for what must say the name without the registry
/// at hand (a slot's layout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NamedFamily {
    pub(crate) id: FamilyId,
    pub(crate) name: String,
}

impl From<Option<FamilyId>> for FamilyScope {
    /// An instance's scope: its family's, or every family's when it has none.
    fn from(family: Option<FamilyId>) -> Self {
        family.map_or(FamilyScope::Every, FamilyScope::Only)
    }
}
