//! The registry: every registered shader, and the merged slot layouts they share.
//!
//! Shaders and slots live in arenas addressed by [`ShaderId`] and [`SlotId`];
//! index the registry with either. Registration is all-or-nothing: a shader
//! that conflicts with what is registered changes nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Index;

use crate::error::{Error, LayoutErrorKind, ParamError, ParamErrorKind, ResourceSite};
use crate::id::{NEXT_TAG, ShaderId, SlotId};
use crate::layout::SlotLayout;
use crate::limits::{self, DeviceCaps};
use crate::name::{closest, parse_path};
use crate::param::Param;
use crate::plan::{BindingPoint, Frequency, Sharing, SlotPlan};
use crate::reflect::{Resource, ResourceKind, ShaderReflection};

/// A binding that is not a uniform block, as first registered at its binding point.
#[derive(Clone, Debug)]
pub(crate) struct SharedBinding {
    /// The resource as the first shader that used it declared it; `sampled` is
    /// set when any registered shader samples it.
    pub resource: Resource,
    /// The frequency the plan gives it.
    pub frequency: Frequency,
    /// The shader that first declared it.
    pub shader: ShaderId,
    /// Its family's index, at a per-family frequency.
    pub family: Option<u32>,
}

/// A shader's registration, checked and merged but not committed.
#[derive(Debug)]
pub(crate) struct Staged {
    /// The shader's family: an index, and the name when it is new.
    family: (u32, Option<String>),
    slots: BTreeMap<BindingPoint, SlotLayout>,
    new_bindings: Vec<SharedBinding>,
    now_sampled: Vec<Key>,
}

/// All registered shaders and the merged layouts of their slots.
#[derive(Debug)]
pub struct Registry {
    tag: u32,
    plan: SlotPlan,
    max_uniform_binding_size: u32,
    shaders: Vec<ShaderReflection>,
    slots: Vec<SlotLayout>,
    /// Slots by binding point and family (`None` at a shared frequency).
    slot_by_point: BTreeMap<Key, SlotId>,
    bindings: BTreeMap<Key, SharedBinding>,
    /// Family names, by index; and each shader's family, by shader index.
    families: Vec<String>,
    shader_family: Vec<u32>,
}

/// Where a slot or binding lives: its point, and its family at a per-family frequency.
type Key = (BindingPoint, Option<u32>);

impl Registry {
    /// WebGPU's default `max_uniform_buffer_binding_size`, used when there is no device.
    pub const DEFAULT_MAX_UNIFORM_BINDING_SIZE: u32 = 65536;

    /// An empty registry with WebGPU's default uniform binding size limit (65536 bytes).
    pub fn new(plan: SlotPlan) -> Self {
        Self::with_limit(plan, Self::DEFAULT_MAX_UNIFORM_BINDING_SIZE)
    }

    /// An empty registry that rejects blocks over `max_uniform_binding_size` bytes
    /// (pass `device.limits().max_uniform_buffer_binding_size`).
    pub fn with_limit(plan: SlotPlan, max_uniform_binding_size: u32) -> Self {
        Self {
            tag: NEXT_TAG.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            plan,
            max_uniform_binding_size,
            shaders: Vec::new(),
            slots: Vec::new(),
            slot_by_point: BTreeMap::new(),
            bindings: BTreeMap::new(),
            families: Vec::new(),
            shader_family: Vec::new(),
        }
    }

    /// A copy to try registrations on, as the whole-effect check does: it
    /// holds the same shaders and slots, registering into it leaves this
    /// registry as it is, and ids of either are foreign to the other.
    ///
    /// Cost: a clone of every registered shader's reflection.
    pub fn scratch(&self) -> Registry {
        Registry {
            tag: NEXT_TAG.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            plan: self.plan.clone(),
            max_uniform_binding_size: self.max_uniform_binding_size,
            shaders: self.shaders.clone(),
            slots: self.slots.clone(),
            slot_by_point: self.slot_by_point.clone(),
            bindings: self.bindings.clone(),
            families: self.families.clone(),
            shader_family: self.shader_family.clone(),
        }
    }

    /// Checks every registered uniform block against a uniform binding limit
    /// of `limit` bytes (`Manager::recreate`, before it moves).
    pub(crate) fn check_uniform_limit(&self, limit: u32) -> Result<(), Error> {
        for shader in &self.shaders {
            let over = shader
                .used_resources()
                .filter(|r| !r.is_array_slot())
                .find_map(|r| r.block.as_ref().filter(|b| b.size > limit).map(|b| (r, b.size)));
            if let Some((res, size)) = over {
                let kind = LayoutErrorKind::TooLarge {
                    shader: shader.name().to_owned(),
                    block: res.name.clone(),
                    size,
                    limit,
                };
                return Err(Error::Layout {
                    shader: shader.name().to_owned(),
                    binding: res.binding,
                    kind: Box::new(kind),
                });
            }
        }
        Ok(())
    }

    /// Later registrations meet a uniform binding limit of `limit` bytes.
    pub(crate) fn set_uniform_limit(&mut self, limit: u32) {
        self.max_uniform_binding_size = limit;
    }

    /// The tag its ids carry.
    #[inline]
    pub(crate) fn tag(&self) -> u32 {
        self.tag
    }

    /// Whether `id` was made by this registry.
    #[inline]
    pub fn owns(&self, id: ShaderId) -> bool {
        id.tag() == self.tag && id.index() < self.shaders.len()
    }

    /// Whether `slot` was made by this registry.
    #[inline]
    pub fn owns_slot(&self, slot: SlotId) -> bool {
        slot.tag() == self.tag && slot.index() < self.slots.len()
    }

    /// The slot plan.
    #[inline]
    pub fn plan(&self) -> &SlotPlan {
        &self.plan
    }

    /// Registers a shader and merges its used uniform blocks into the slots.
    ///
    /// Every rule that does not depend on a device is checked here, so a set
    /// of shaders this accepts is one a `Manager` accepts on a device with the
    /// same uniform size limit, with the same errors. Unused blocks are
    /// ignored. On any error nothing changes.
    /// Cost: proportional to the shader's members times the slot's members.
    pub fn add(&mut self, shader: ShaderReflection) -> Result<ShaderId, Error> {
        let shader = self.planned(shader);
        let staged = self.stage(&shader)?;
        Ok(self.commit(shader, staged))
    }

    /// The shader as the plan sees it: array slots at frame frequency are
    /// plain storage buffers the frame owns (it has one instance).
    pub(crate) fn planned(&self, shader: ShaderReflection) -> ShaderReflection {
        shader.plain_arrays(|point| self.plan.frequency(point) == Some(Frequency::Frame))
    }

    /// Checks `shader` against every registration rule and merges its blocks
    /// into copies of the slots it touches; changes nothing.
    pub(crate) fn stage(&self, shader: &ShaderReflection) -> Result<Staged, Error> {
        let id = ShaderId::new(self.tag, self.shaders.len() as u32);
        let name = shader.name();
        let fail = |binding, kind| Error::Layout { shader: name.to_owned(), binding, kind: Box::new(kind) };
        // Merge into copies first so that a conflict leaves the registry as it was.
        let mut staged: BTreeMap<BindingPoint, SlotLayout> = BTreeMap::new();
        let mut new_bindings: Vec<SharedBinding> = Vec::new();
        let mut now_sampled: Vec<Key> = Vec::new();
        let mut array_frequency: Option<(Frequency, String)> = None;
        let family = match self.family_index(shader.family()) {
            Some(i) => (i, None),
            None => (self.families.len() as u32, Some(shader.family().to_owned())),
        };
        let key_of = |point, frequency| (point, self.per_family(frequency).then_some(family.0));
        // Resources are sorted by binding point: two of one point are neighbours.
        let used = shader.used_resources().collect::<Vec<_>>();
        if let Some(pair) = used.windows(2).find(|w| w[0].binding == w[1].binding) {
            let site = |r: &Resource| ResourceSite {
                shader: declared_in(r, name).to_owned(),
                location: r.location,
                name: r.name.clone(),
                kind: describe(r),
                entry_points: r.users.iter().map(|&i| shader.entry_points()[i].name.clone()).collect(),
            };
            let kind = LayoutErrorKind::SharedPoint { first: site(pair[0]), second: site(pair[1]) };
            return Err(fail(pair[0].binding, kind));
        }
        for res in used {
            let point = res.binding;
            res.binding_type().map_err(|e| Error::Unsupported {
                shader: name.to_owned(),
                what: format!("`{}`: {e}", res.name),
            })?;
            let frequency = self.plan.frequency(point).ok_or_else(|| {
                fail(point, LayoutErrorKind::Unplanned { shader: name.to_owned(), name: res.name.clone() })
            })?;
            let key = key_of(point, frequency);
            // The instance of one frequency owns a group's textures, samplers and buffers.
            if !res.is_slot() {
                let group = point.group;
                let owner = self
                    .bindings
                    .values()
                    .map(|b| (b.resource.binding, b.frequency))
                    .chain(new_bindings.iter().map(|b| (b.resource.binding, b.frequency)))
                    .find(|(p, _)| p.group == group)
                    .map(|(_, f)| f);
                if let Some(first) = owner.filter(|&f| f != frequency) {
                    return Err(fail(point, LayoutErrorKind::MixedGroup { group, first, second: frequency }));
                }
            }
            let other =
                self.bindings.get(&key).map(|b| (&self.shaders[b.shader.index()], &b.resource)).or_else(
                    || {
                        let slot = &self.slots[self.slot_by_point.get(&key)?.index()];
                        let user = &self.shaders[slot.users().first()?.index()];
                        Some((user, user.resource(point)?))
                    },
                );
            if let Some((other_shader, other_res)) = other {
                if other_res.kind != res.kind
                    || other_res.count != res.count
                    || other_res.is_array_slot() != res.is_array_slot()
                {
                    return Err(fail(
                        point,
                        LayoutErrorKind::KindMismatch {
                            first_shader: declared_in(other_res, other_shader.name()).to_owned(),
                            first_name: other_res.name.clone(),
                            first_kind: describe(other_res),
                            second_shader: declared_in(res, name).to_owned(),
                            second_name: res.name.clone(),
                            second_kind: describe(res),
                        },
                    ));
                }
            }
            match &res.block {
                Some(block) => {
                    if res.is_array_slot() {
                        one_array_frequency(&mut array_frequency, frequency, res)
                            .map_err(|k| fail(point, k))?;
                    } else if block.size > self.max_uniform_binding_size {
                        return Err(fail(
                            point,
                            LayoutErrorKind::TooLarge {
                                shader: name.to_owned(),
                                block: res.name.clone(),
                                size: block.size,
                                limit: self.max_uniform_binding_size,
                            },
                        ));
                    }
                    let slot = staged.entry(point).or_insert_with(|| match self.slot_by_point.get(&key) {
                        Some(s) => self.slots[s.index()].clone(),
                        None => {
                            let fam = key.1.map(|i| (i, shader.family().to_owned()));
                            SlotLayout::new(point, frequency, res.is_array_slot(), fam)
                        }
                    });
                    // Every user indexes the same elements: one stride.
                    let size = slot.size();
                    if res.is_array_slot() && !slot.users().is_empty() && size != block.size {
                        return Err(fail(
                            point,
                            LayoutErrorKind::ArrayStride {
                                first_shader: self.shaders[slot.users()[0].index()].name().to_owned(),
                                first: size,
                                second_shader: name.to_owned(),
                                second: block.size,
                            },
                        ));
                    }
                    slot.merge(id, declared_in(res, name), &res.name, res.location, block)
                        .map_err(|k| fail(point, self.explain(k, frequency, key.1)))?;
                }
                None if other.is_none() => new_bindings.push(SharedBinding {
                    resource: res.clone(),
                    frequency,
                    shader: id,
                    family: key.1,
                }),
                None => {
                    if res.sampled && self.bindings.get(&key).is_some_and(|b| !b.resource.sampled) {
                        now_sampled.push(key);
                    }
                }
            }
        }
        Ok(Staged { family, slots: staged, new_bindings, now_sampled })
    }

    /// Commits what [`Registry::stage`] checked for the same shader.
    pub(crate) fn commit(&mut self, shader: ShaderReflection, staged: Staged) -> ShaderId {
        let id = ShaderId::new(self.tag, self.shaders.len() as u32);
        let Staged { family, slots, new_bindings, now_sampled } = staged;
        if let Some(name) = family.1 {
            self.families.push(name);
        }
        for (point, layout) in slots {
            let key = (point, layout.family_index());
            match self.slot_by_point.get(&key) {
                Some(s) => self.slots[s.index()] = layout,
                None => {
                    self.slot_by_point.insert(key, SlotId::new(self.tag, self.slots.len() as u32));
                    self.slots.push(layout);
                }
            }
        }
        for b in new_bindings {
            self.bindings.insert((b.resource.binding, b.family), b);
        }
        for key in now_sampled {
            if let Some(b) = self.bindings.get_mut(&key) {
                b.resource.sampled = true;
            }
        }
        self.shader_family.push(family.0);
        self.shaders.push(shader);
        id
    }

    /// Checks `shader` against a device's limits and features without a
    /// device: what [`crate::Manager::register`] checks first on a device with
    /// these. The CLI runs it with WebGPU's default limits.
    pub fn check_device(
        shader: &ShaderReflection,
        limits: &wgpu::Limits,
        features: wgpu::Features,
    ) -> Result<(), Error> {
        let caps = DeviceCaps::from_parts(limits.clone(), features, wgpu::DownlevelFlags::compliant());
        limits::check(shader, &caps).map(drop).map_err(|e| e.into_error(shader.name()))
    }

    /// Every registered shader, with its id.
    pub fn shaders(&self) -> impl ExactSizeIterator<Item = (ShaderId, &ShaderReflection)> {
        self.shaders.iter().enumerate().map(|(i, s)| (ShaderId::new(self.tag, i as u32), s))
    }

    /// Every slot, with its id, in creation order.
    pub fn slots(&self) -> impl ExactSizeIterator<Item = (SlotId, &SlotLayout)> {
        self.slots.iter().enumerate().map(|(i, s)| (SlotId::new(self.tag, i as u32), s))
    }

    /// The slot at a binding point, if a used uniform block is there; at a
    /// per-family frequency, the first family's ([`Registry::slot_in`] picks one).
    #[inline]
    pub fn slot_at(&self, point: BindingPoint) -> Option<SlotId> {
        self.slot_by_point.range((point, None)..=(point, Some(u32::MAX))).next().map(|(_, &s)| s)
    }

    /// The slot that shaders of `family` use at a binding point: the shared
    /// slot there, or at a per-family frequency that family's own.
    pub fn slot_in(&self, family: &str, point: BindingPoint) -> Option<SlotId> {
        // A family no shader named yet has no slots of its own.
        self.slot_for(point, self.family_index(family).unwrap_or(u32::MAX))
    }

    /// The slot a registered shader uses at a binding point.
    pub(crate) fn slot_of(&self, shader: ShaderId, point: BindingPoint) -> Option<SlotId> {
        self.slot_for(point, self.shader_family[shader.index()])
    }

    /// The slot shaders of the family with index `family` use at `point`.
    fn slot_for(&self, point: BindingPoint, family: u32) -> Option<SlotId> {
        let frequency = self.plan.frequency(point)?;
        self.slot_by_point.get(&(point, self.per_family(frequency).then_some(family))).copied()
    }

    /// A merge conflict with what the slot plan makes of it: inside a family,
    /// or at a shared material frequency (which is per family by default).
    fn explain(
        &self,
        conflict: LayoutErrorKind,
        frequency: Frequency,
        family: Option<u32>,
    ) -> LayoutErrorKind {
        let conflict = Box::new(conflict);
        match family {
            Some(f) => LayoutErrorKind::InFamily { family: self.family_name_or_new(f), conflict },
            None if frequency == Frequency::Material => LayoutErrorKind::Shared { frequency, conflict },
            None => *conflict,
        }
    }

    /// A family's name; a family being staged is not in the list yet.
    fn family_name_or_new(&self, index: u32) -> String {
        self.families.get(index as usize).cloned().unwrap_or_default()
    }

    /// Whether `frequency`'s blocks get a slot per family.
    #[inline]
    pub(crate) fn per_family(&self, frequency: Frequency) -> bool {
        self.plan.sharing(frequency) == Sharing::PerFamily
    }

    /// The index of a family a registered shader belongs to.
    #[inline]
    pub(crate) fn family_index(&self, family: &str) -> Option<u32> {
        self.families.iter().position(|f| f == family).map(|i| i as u32)
    }

    /// A family's index, adding the family when no shader named it yet.
    pub(crate) fn intern_family(&mut self, family: &str) -> u32 {
        self.family_index(family).unwrap_or_else(|| {
            self.families.push(family.to_owned());
            self.families.len() as u32 - 1
        })
    }

    /// A family's name, by its index.
    #[inline]
    pub(crate) fn family_name(&self, index: u32) -> &str {
        &self.families[index as usize]
    }

    /// Bindings that are not uniform blocks (textures, samplers, storage), by binding point.
    pub(crate) fn bindings(&self) -> impl Iterator<Item = &SharedBinding> {
        self.bindings.values()
    }

    /// Resolves a name or path (`view_proj`, `lights[3].color`, `GMRTs[2]`) among the
    /// slots of `frequency`, or of every frequency when `None`.
    ///
    /// Unknown names get the closest known names as suggestions.
    pub fn resolve(&self, path: &str, frequency: Option<Frequency>) -> Result<Param, ParamError> {
        self.resolve_scoped(path, frequency, None)
    }

    /// [`Registry::resolve`] among the slots shaders of `family` use: the
    /// shared ones, and at per-family frequencies that family's own.
    pub fn resolve_in(
        &self,
        family: &str,
        path: &str,
        frequency: Option<Frequency>,
    ) -> Result<Param, ParamError> {
        // A family no shader named yet has no slots of its own.
        let index = self.family_index(family).unwrap_or(u32::MAX);
        self.resolve_scoped(path, frequency, Some(index))
    }

    /// The uniform block named `name` (its variable or struct name) among
    /// the shared slots and, at per-family frequencies, `family`'s (any
    /// family's when `None`). Cost: a pass over the slots.
    pub(crate) fn block(&self, name: &str, family: Option<&str>) -> Result<SlotId, ParamError> {
        let err = |kind| ParamError { name: name.to_owned(), kind };
        let own = family.map(|f| self.family_index(f).unwrap_or(u32::MAX));
        let in_scope = |s: &SlotLayout| own.is_none_or(|fi| s.family_index().is_none_or(|sf| sf == fi));
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
    /// belong to no family or to `family` (every family when `None`).
    pub(crate) fn resolve_scoped(
        &self,
        path: &str,
        frequency: Option<Frequency>,
        family: Option<u32>,
    ) -> Result<Param, ParamError> {
        let err = |kind| ParamError { name: path.to_owned(), kind };
        let parsed = parse_path(path).map_err(err)?;
        let first = parsed[0].name;
        let in_scope = |s: &SlotLayout| {
            frequency.is_none_or(|f| s.frequency() == f)
                && family.is_none_or(|fi| s.family_index().is_none_or(|sf| sf == fi))
        };
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
            if let (Some(member_family), Some(own)) = (slot.family(), family) {
                let instance_family = self.families.get(own as usize).cloned().unwrap_or_default();
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
        family: Option<u32>,
        want: &'static str,
    ) -> Result<(&SharedBinding, u32), ParamError> {
        let err = |kind| ParamError { name: path.to_owned(), kind };
        let parsed = parse_path(path).map_err(err)?;
        let [seg] = &parsed[..] else {
            return Err(err(ParamErrorKind::Malformed));
        };
        // An instance of a family sees the shared bindings and its family's.
        let in_scope = |b: &&SharedBinding| family.is_none_or(|fi| b.family.is_none_or(|bf| bf == fi));
        let Some(shared) = self.bindings().filter(in_scope).find(|b| b.resource.name == seg.name) else {
            if self.resolve_scoped(seg.name, None, family).is_ok() {
                let found = want.into();
                return Err(err(ParamErrorKind::TypeMismatch { expected: "a uniform value".into(), found }));
            }
            let names = self.bindings().map(|b| b.resource.name.as_str());
            return Err(err(ParamErrorKind::Unknown { suggestions: closest(seg.name, names) }));
        };
        let kind = match shared.resource.kind {
            ResourceKind::Texture { .. } | ResourceKind::StorageTexture { .. } => "texture",
            ResourceKind::Sampler { .. } => "sampler",
            ResourceKind::Storage { .. } => "storage",
            ref k => k.as_str(),
        };
        if kind != want {
            return Err(err(ParamErrorKind::TypeMismatch { expected: kind.into(), found: want.into() }));
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
        let mut seen: BTreeMap<(Frequency, Option<u32>, &str), Vec<SlotId>> = BTreeMap::new();
        for (id, slot) in self.slots() {
            for name in slot.names() {
                seen.entry((slot.frequency(), slot.family_index(), name)).or_default().push(id);
            }
        }
        seen.into_iter().filter(|(_, s)| s.len() > 1).map(|((f, _, n), s)| (f, n.to_owned(), s)).collect()
    }
}

/// Panics on an id of another registry, as naga's arenas do; check with
/// [`Registry::owns`] first where the id may be foreign.
impl Index<ShaderId> for Registry {
    type Output = ShaderReflection;
    #[inline]
    fn index(&self, id: ShaderId) -> &ShaderReflection {
        assert_eq!(id.tag(), self.tag, "a ShaderId of another registry");
        &self.shaders[id.index()]
    }
}

impl Index<SlotId> for Registry {
    type Output = SlotLayout;
    #[inline]
    fn index(&self, id: SlotId) -> &SlotLayout {
        assert_eq!(id.tag(), self.tag, "a SlotId of another registry");
        &self.slots[id.index()]
    }
}

/// A resource kind in WGSL's spelling, for conflicts: `texture_2d<f32>`, `sampler_comparison`.
/// A draw passes one instance index, so a shader's array slots share one frequency.
#[allow(clippy::result_large_err, reason = "internal; the error becomes `Error::Layout`")]
fn one_array_frequency(
    seen: &mut Option<(Frequency, String)>,
    frequency: Frequency,
    res: &Resource,
) -> Result<(), LayoutErrorKind> {
    match seen {
        Some((f, first)) if *f != frequency => Err(LayoutErrorKind::ArrayFrequencies {
            first: first.clone(),
            first_frequency: *f,
            second: res.name.clone(),
            second_frequency: frequency,
        }),
        Some(_) => Ok(()),
        None => {
            *seen = Some((frequency, res.name.clone()));
            Ok(())
        }
    }
}

fn describe(r: &Resource) -> String {
    use naga::{ImageClass, ImageDimension as D, ScalarKind};
    let dim = |d, arrayed: bool| {
        let d = match d {
            D::D1 => "1d",
            D::D2 => "2d",
            D::D3 => "3d",
            D::Cube => "cube",
        };
        if arrayed { format!("{d}_array") } else { d.to_owned() }
    };
    let base = match r.kind {
        ResourceKind::Texture { dim: d, arrayed, class }
        | ResourceKind::StorageTexture { dim: d, arrayed, class } => {
            let ms = |multi| if multi { "multisampled_" } else { "" };
            match class {
                ImageClass::Sampled { kind, multi } => {
                    let scalar = match kind {
                        ScalarKind::Sint => "i32",
                        ScalarKind::Uint => "u32",
                        _ => "f32",
                    };
                    format!("texture_{}{}<{scalar}>", ms(multi), dim(d, arrayed))
                }
                ImageClass::Depth { multi } => format!("texture_depth_{}{}", ms(multi), dim(d, arrayed)),
                ImageClass::Storage { format, access } => {
                    format!("texture_storage_{}<{format:?}, {access:?}>", dim(d, arrayed)).to_lowercase()
                }
                ImageClass::External => "texture_external".into(),
            }
        }
        ResourceKind::Sampler { comparison: true } => "sampler_comparison".into(),
        ResourceKind::Sampler { comparison: false } => "sampler".into(),
        ResourceKind::Uniform => "uniform block".into(),
        _ if r.is_array_slot() => "array slot (storage array of structs)".into(),
        ref k => k.as_str().replace('_', " "),
    };
    if r.count > 1 { format!("binding_array<{base}, {}>", r.count) } else { base }
}

/// The file a resource of `shader` is declared in: its linked part's, else the shader's.
fn declared_in<'a>(res: &'a Resource, shader: &'a str) -> &'a str {
    res.file.as_deref().unwrap_or(shader)
}
