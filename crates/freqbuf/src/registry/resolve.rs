//! Name resolution: a member path, a block, or a binding, among the slots of
//! a frequency and a family, with suggestions for unknown names.

use std::collections::{BTreeMap, BTreeSet};

use super::{Registry, SharedBinding};
use crate::errors::{ParamError, ParamErrorKind};
use crate::id::SlotId;
use crate::instance::family::{FamilyId, FamilyScope};
use crate::reflect::name::{closest, parse_path};
use crate::reflect::{ResourceClass, ResourceKind};
use crate::slot::layout::SlotLayout;
use crate::slot::plan::Frequency;
use crate::write::param::Param;

impl Registry {
    /// Resolves a name or path (`view_proj`, `lights[3].color`, `GMRTs[2]`) among the
    /// slots of `frequency`, or of every frequency when `None`.
    ///
    /// Unknown names get the closest known names as suggestions.
    pub fn resolve(&self, path: &str, frequency: Option<Frequency>) -> Result<Param, ParamError> {
        self.resolve_scoped(path, frequency, FamilyScope::Every)
    }

    /// [`Registry::resolve`] among the slots shaders of `family` use: the
    /// shared ones, and at per-family frequencies that family's own.
    pub fn resolve_in(
        &self,
        family: &str,
        path: &str,
        frequency: Option<Frequency>,
    ) -> Result<Param, ParamError> {
        // A family no shader named yet has no slots of its own: a name
        // outside the shared slots is then the family's fault, said so.
        let Some(id) = self.families.get(family) else {
            return self.resolve_scoped(path, frequency, FamilyScope::Unnamed).map_err(|e| match e.kind {
                ParamErrorKind::Unknown { .. } | ParamErrorKind::OtherFamily { .. } => ParamError {
                    name: path.to_owned(),
                    kind: ParamErrorKind::UnknownFamily {
                        family: family.to_owned(),
                        known: self.families.names().to_vec(),
                    },
                },
                _ => e,
            });
        };
        self.resolve_scoped(path, frequency, FamilyScope::Only(id))
    }

    /// The uniform block named `name` (its variable or struct name) among
    /// the shared slots and, at per-family frequencies, `family`'s (any
    /// family's when `None`). Cost: a pass over the slots.
    pub(crate) fn block(&self, name: &str, family: Option<&str>) -> Result<SlotId, ParamError> {
        let err = |kind| ParamError { name: name.to_owned(), kind };
        let scope = FamilyScope::of(&self.families, family);
        let in_scope = |s: &SlotLayout| scope.sees(s.family_id());
        let found = self
            .slots()
            .filter(|(_, s)| in_scope(s) && s.aliases().iter().any(|a| a == name))
            .collect::<Vec<_>>();
        match found[..] {
            [(id, _)] => Ok(id),
            [] => {
                let names = self.slots().filter(|(_, s)| in_scope(s)).flat_map(|(_, s)| s.aliases());
                Err(err(ParamErrorKind::Unknown { suggestions: closest(name, names.map(String::as_str)) }))
            }
            _ => {
                let families = found.iter().filter_map(|(_, s)| s.family()).map(str::to_owned).collect();
                Err(err(ParamErrorKind::InFamilies { families }))
            }
        }
    }

    /// Resolves among the slots of `frequency` (every one when `None`) that
    /// belong to no family or to a family in `scope`.
    pub(crate) fn resolve_scoped(
        &self,
        path: &str,
        frequency: Option<Frequency>,
        scope: FamilyScope,
    ) -> Result<Param, ParamError> {
        let err = |kind| ParamError { name: path.to_owned(), kind };
        let parsed = parse_path(path).map_err(err)?;
        let first = parsed[0].name;
        let in_scope =
            |s: &SlotLayout| frequency.is_none_or(|f| s.frequency() == f) && scope.sees(s.family_id());
        let candidates = || self.slots().filter(|(_, s)| in_scope(s));
        // A member name first; then a block name qualifying one: `mat_b.color`, `MatB.color`.
        let mut found: Vec<_> = candidates().filter(|(_, s)| s.member(first).is_some()).collect();
        let mut rest = &parsed[..];
        if found.is_empty() && parsed.len() > 1 && parsed[0].index.is_none() {
            found = candidates().filter(|(_, s)| s.aliases().iter().any(|a| a == first)).collect();
            rest = &parsed[1..];
        }
        match found[..] {
            [] => {}
            [(id, slot)] => {
                return slot.resolve(rest).map(|r| Param::new(id, slot.frequency(), &r)).map_err(err);
            }
            _ => {
                // One block per family: the family decides, not a qualifier.
                let families = found.iter().filter_map(|(_, s)| s.family()).collect::<BTreeSet<_>>();
                if families.len() == found.len() {
                    let families = families.into_iter().map(str::to_owned).collect();
                    return Err(err(ParamErrorKind::InFamilies { families }));
                }
                let tail = rest.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(".");
                let spellings = found
                    .iter()
                    .flat_map(|(_, s)| s.aliases().iter().map(|a| format!("{a}.{tail}")))
                    .collect();
                return Err(err(ParamErrorKind::Ambiguous { blocks: found.len(), spellings }));
            }
        }
        let elsewhere = self.slots().find(|(_, s)| s.member(first).is_some()).map(|(_, s)| s);
        if let Some(slot) = elsewhere {
            if let Some(wanted) = frequency.filter(|&f| f != slot.frequency()) {
                return Err(err(ParamErrorKind::WrongFrequency { wanted, actual: slot.frequency() }));
            }
            // In scope but for its family: another family's block has it.
            let own = match scope {
                FamilyScope::Only(own) => self.families.name(own),
                FamilyScope::Unnamed => Some(""),
                FamilyScope::Every => None,
            };
            if let (Some(member_family), Some(own)) = (slot.family(), own) {
                let instance_family = own.to_owned();
                let member_family = member_family.to_owned();
                return Err(err(ParamErrorKind::OtherFamily { member_family, instance_family }));
            }
        }
        if let Some(b) = self.bindings.values().find(|b| b.resource.name == first) {
            return Err(err(ParamErrorKind::NotUniform { kind: b.resource.kind.as_str() }));
        }
        let names = candidates().flat_map(|(_, s)| s.names()).collect::<Vec<_>>();
        Err(err(ParamErrorKind::Unknown { suggestions: closest(first, names) }))
    }

    /// Resolves a texture, sampler or storage buffer name (`albedo_tex`, or
    /// `GMRTs[2]` for an element of a binding array) among the bindings of
    /// `frequency` that an instance of `family` (any, when `None`) can set:
    /// the binding and the array element. `want` is the kind the
    /// caller sets (`texture`, `sampler`, `storage`).
    pub(crate) fn resolve_binding(
        &self,
        path: &str,
        frequency: Frequency,
        scope: FamilyScope,
        want: ResourceClass,
    ) -> Result<(&SharedBinding, u32), ParamError> {
        let err = |kind| ParamError { name: path.to_owned(), kind };
        let parsed = parse_path(path).map_err(err)?;
        let [seg] = &parsed[..] else {
            return Err(err(ParamErrorKind::Malformed));
        };
        // An instance of a family sees the shared bindings and its family's.
        let in_scope = |b: &&SharedBinding| scope.sees(b.family);
        let named = |b: &&SharedBinding| in_scope(b) && b.resource.name == seg.name;
        // One name may be a texture in one pipeline and a sampler in another.
        let shared = self.bindings().filter(named).find(|b| b.resource.kind.class() == want);
        let Some(shared) = shared.or_else(|| self.bindings().find(named)) else {
            if self.resolve_scoped(seg.name, None, scope).is_ok() {
                let found = want.as_str().into();
                return Err(err(ParamErrorKind::TypeMismatch { expected: "a uniform value".into(), found }));
            }
            let names = self.bindings().map(|b| b.resource.name.as_str());
            return Err(err(ParamErrorKind::Unknown { suggestions: closest(seg.name, names) }));
        };
        let kind = match shared.resource.kind {
            ResourceKind::Uniform | ResourceKind::AccelerationStructure { .. } => {
                shared.resource.kind.as_str()
            }
            ref k => k.class().as_str(),
        };
        if kind != want.as_str() {
            return Err(err(ParamErrorKind::TypeMismatch {
                expected: kind.into(),
                found: want.as_str().into(),
            }));
        }
        if shared.frequency != frequency {
            return Err(err(ParamErrorKind::WrongFrequency { wanted: frequency, actual: shared.frequency }));
        }
        let (count, member) = (shared.resource.count, seg.name.to_owned());
        let element = match seg.index {
            None if count > 1 => return Err(err(ParamErrorKind::NeedsIndex { member })),
            None => 0,
            Some(_) if count == 1 => return Err(err(ParamErrorKind::NotAnArray { member })),
            Some(index) if index >= count => {
                return Err(err(ParamErrorKind::IndexOutOfRange { member, index, count }));
            }
            Some(i) => i,
        };
        Ok((shared, element))
    }

    /// Member names that more than one slot of a frequency declares, with the
    /// slots: a bare name is then ambiguous and must be qualified by its block.
    pub fn ambiguous_names(&self) -> Vec<(Frequency, String, Vec<SlotId>)> {
        // Within one family's view: blocks of two families never meet in a shader.
        let mut seen: BTreeMap<(Frequency, Option<FamilyId>, &str), Vec<SlotId>> = BTreeMap::new();
        for (id, slot) in self.slots() {
            for name in slot.names() {
                seen.entry((slot.frequency(), slot.family_id(), name)).or_default().push(id);
            }
        }
        seen.into_iter().filter(|(_, s)| s.len() > 1).map(|((f, _, n), s)| (f, n.to_owned(), s)).collect()
    }
}
