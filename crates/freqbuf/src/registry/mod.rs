//! The registry: every registered shader, and the merged slot layouts they share.
//!
//! Shaders and slots live in arenas addressed by [`ShaderId`] and [`SlotId`];
//! index the registry with either. Registration is all-or-nothing: a shader
//! that conflicts with what is registered changes nothing.

use crate::instance::family::FamilyScope;
use crate::instance::table::TableKey;
use crate::reflect::IndexSource;
use crate::slot::slab::{Link, SlabFrom};
use std::collections::BTreeMap;
use std::ops::Index;

use crate::device::limits::{self, DeviceCaps};
use crate::errors::{Error, LayoutErrorKind};
use crate::id::{Counter, ShaderId, SlotId};
use crate::instance::family::{Families, FamilyId};
use crate::reflect::{Resource, ResourceClass, ShaderReflection};
use crate::slot::layout::SlotLayout;
use crate::slot::plan::{BindingPoint, Frequency, Sharing, SlotPlan};

mod draft;
mod resolve;

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
    /// Its family, at a per-family frequency.
    pub family: Option<FamilyId>,
    /// The texture or sampler types other shaders declare here (a
    /// permutation's `texture_depth_multisampled_2d` where the first has
    /// `texture_depth_2d`): each pipeline layout declares its own, and an
    /// instance's resource is checked against the one it is drawn with.
    pub alternates: Vec<wgpu::BindingType>,
    /// A table: a binding array a slab indexes, filled per family (`instance/table.rs`).
    pub table: bool,
}

/// A `u32` member of a slab that holds an element of a table: what
/// `set_texture(member, ..)` on a slab material fills.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TableMember {
    /// The slab slot's index, and the member's name and offset in its element.
    pub(crate) slab: usize,
    pub(crate) member: String,
    pub(crate) offset: u32,
    /// The table it indexes, and its length.
    pub(crate) table: TableKey,
    pub(crate) len: u32,
}

/// A shader's registration, checked and merged but not committed.
#[derive(Debug)]
pub(crate) struct Draft {
    /// The shader's family, and its name when it is new.
    family: (FamilyId, Option<String>),
    slots: BTreeMap<BindingPoint, SlotLayout>,
    new_bindings: Vec<SharedBinding>,
    now_sampled: Vec<BindingKey>,
    new_alternates: Vec<(BindingKey, wgpu::BindingType)>,
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
    bindings: BTreeMap<BindingKey, SharedBinding>,
    /// Family names; and each shader's family, by shader index.
    families: Families,
    shader_family: Vec<FamilyId>,
    /// Each shader's slab pointers, by shader index (`slot/slab.rs`).
    links: Vec<Vec<Link>>,
    /// Every slab member that indexes a table, once each.
    table_members: Vec<TableMember>,
}

/// Where a slot or binding lives: its point, and its family at a per-family frequency.
type Key = (BindingPoint, Option<FamilyId>);

/// Where a binding lives: a slot's key and the class of resource (a
/// texture, a sampler and a buffer may share a point, each for the
/// pipelines that declare it).
type BindingKey = TableKey;

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
            tag: Counter::RegistryTag.next_tag(),
            plan,
            max_uniform_binding_size,
            shaders: Vec::new(),
            slots: Vec::new(),
            slot_by_point: BTreeMap::new(),
            bindings: BTreeMap::new(),
            families: Families::default(),
            shader_family: Vec::new(),
            links: Vec::new(),
            table_members: Vec::new(),
        }
    }

    /// A copy to try registrations on, as the whole-effect check does: it
    /// holds the same shaders and slots, registering into it leaves this
    /// registry as it is, and ids of either are foreign to the other.
    ///
    /// Cost: a clone of every registered shader's reflection.
    pub fn scratch(&self) -> Registry {
        Registry {
            tag: Counter::RegistryTag.next_tag(),
            plan: self.plan.clone(),
            max_uniform_binding_size: self.max_uniform_binding_size,
            shaders: self.shaders.clone(),
            slots: self.slots.clone(),
            slot_by_point: self.slot_by_point.clone(),
            bindings: self.bindings.clone(),
            families: self.families.clone(),
            shader_family: self.shader_family.clone(),
            links: self.links.clone(),
            table_members: self.table_members.clone(),
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
        let draft = self.draft(&shader)?;
        Ok(self.commit(shader, draft))
    }

    /// The shader as the plan sees it: array slots at frame frequency (it
    /// has one instance) and at the application's buffers
    /// ([`SlotPlan::with_buffer`]) are plain storage buffers.
    pub(crate) fn planned(&self, shader: ShaderReflection) -> ShaderReflection {
        shader.plain_arrays(|point| self.plan.is_plain_array(point))
    }

    /// Commits what [`Registry::draft`] checked for the same shader.
    pub(crate) fn commit(&mut self, shader: ShaderReflection, draft: Draft) -> ShaderId {
        let id = ShaderId::new(self.tag, self.shaders.len() as u32);
        let Draft { family, slots, new_bindings, now_sampled, new_alternates } = draft;
        if let Some(name) = family.1 {
            self.families.intern(&name);
        }
        for (point, layout) in slots {
            let key = (point, layout.family_id());
            match self.slot_by_point.get(&key) {
                Some(s) => self.slots[s.index()] = layout,
                None => {
                    self.slot_by_point.insert(key, SlotId::new(self.tag, self.slots.len() as u32));
                    self.slots.push(layout);
                }
            }
        }
        for b in new_bindings {
            self.bindings.insert((b.resource.binding, b.family, b.resource.kind.class()), b);
        }
        for key in now_sampled {
            if let Some(b) = self.bindings.get_mut(&key) {
                b.resource.sampled = true;
            }
        }
        for (key, ty) in new_alternates {
            if let Some(b) = self.bindings.get_mut(&key) {
                b.alternates.push(ty);
            }
        }
        self.shader_family.push(family.0);
        self.links.push(self.links_of(&shader, family.0));
        for m in self.table_members_of(&shader, family.0) {
            if !self.table_members.contains(&m) {
                self.table_members.push(m);
            }
        }
        self.shaders.push(shader);
        id
    }

    /// The pointers a draw of `shader` needs: one per slab it reads.
    fn links_of(&self, shader: &ShaderReflection, family: FamilyId) -> Vec<Link> {
        let slot = |point| {
            let f = self.plan.frequency(point)?;
            self.slot_by_point.get(&(point, self.per_family(f).then_some(family))).map(|s| s.index())
        };
        let arrays = shader.used_resources().filter(|r| r.is_array_slot());
        arrays
            .filter_map(|r| {
                let to = slot(r.binding)?;
                let slab = self.slots[to].slab()?;
                let SlabFrom::Array(point) = slab.from else {
                    return Some(Link { from: None, offset: slab.offset, mask: slab.mask, to });
                };
                let from = slot(point)?;
                // An array of the pointer's own frequency read through a member
                // of an array the instance index reads (Bevy's mesh metadata,
                // shared by the meshes of one asset): the application's pointer.
                let (f, t) = (&self.slots[from], &self.slots[to]);
                if f.frequency() == t.frequency() && f.slab().is_none() {
                    return None;
                }
                Some(Link { from: Some(from), offset: slab.offset, mask: slab.mask, to })
            })
            .collect()
    }

    /// The slab members of `shader` that index its tables.
    fn table_members_of(&self, shader: &ShaderReflection, family: FamilyId) -> Vec<TableMember> {
        let key = |point| {
            let f = self.plan.frequency(point)?;
            Some((point, self.per_family(f).then_some(family)))
        };
        let mut out = Vec::new();
        for r in shader.used_resources().filter(|r| shader.is_table(r.binding)) {
            let Some((point, fam)) = key(r.binding) else { continue };
            for by in shader.indexing().iter().filter(|i| i.array == r.binding).map(|i| &i.by) {
                let IndexSource::Member { array, member, offset, .. } = by else { continue };
                let Some(slab) = key(*array).and_then(|k| self.slot_by_point.get(&k)) else { continue };
                let table = (point, fam, r.kind.class());
                out.push(TableMember {
                    slab: slab.index(),
                    member: member.clone(),
                    offset: *offset,
                    table,
                    len: r.count,
                });
            }
        }
        out
    }

    /// The table member `name` of class `class` that an instance of
    /// `frequency` in `scope` sets, if a slab of its family has one.
    pub(crate) fn table_member(
        &self,
        name: &str,
        frequency: Frequency,
        scope: FamilyScope,
        class: ResourceClass,
    ) -> Option<&TableMember> {
        self.table_members.iter().find(|m| {
            m.member == name
                && m.table.2 == class
                && scope.sees(m.table.1)
                && self.plan.frequency(m.table.0) == Some(frequency)
        })
    }

    /// The table at `point` that `shader`'s layout binds, of `class`, if it is one.
    pub(crate) fn table_of(
        &self,
        shader: ShaderId,
        point: BindingPoint,
        class: ResourceClass,
    ) -> Option<TableKey> {
        let f = self.plan.frequency(point)?;
        let family = *self.shader_family.get(shader.index())?;
        let key = (point, self.per_family(f).then_some(family), class);
        self.bindings.get(&key).filter(|b| b.table).map(|_| key)
    }

    /// Whether draws of `shader` that differ only in their instance of
    /// `frequency` bind a group of their own: a uniform block (a dynamic
    /// offset) or a resource the instance owns. A slab's and a table's
    /// instances share one bind group, so a renderer may order such draws
    /// by anything else (the render queue orders them front to back).
    /// Cost: a scan of the shader's resources.
    pub fn binds_per_instance(&self, shader: ShaderId, frequency: Frequency) -> bool {
        let Some(s) = self.shaders.get(shader.index()).filter(|_| self.owns(shader)) else { return true };
        s.used_resources().filter(|r| self.plan.frequency(r.binding) == Some(frequency)).any(|r| {
            let table = s.is_table(r.binding);
            !(r.is_array_slot() || table)
        })
    }

    /// The slab pointers a draw of `shader` needs written. Cost: an index.
    #[inline]
    pub(crate) fn links(&self, shader: ShaderId) -> &[Link] {
        self.links.get(shader.index()).map_or(&[], Vec::as_slice)
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
        let sized = shader.clone().sized_arrays(|c| caps.table_len(c));
        limits::check_shader(&sized, &caps).map(drop)
    }

    /// Every registered shader, with its id.
    pub fn shaders(&self) -> impl ExactSizeIterator<Item = (ShaderId, &ShaderReflection)> {
        self.shaders.iter().enumerate().map(|(i, s)| (ShaderId::new(self.tag, i as u32), s))
    }

    /// Every slot, with its id, in creation order.
    pub fn slots(&self) -> impl ExactSizeIterator<Item = (SlotId, &SlotLayout)> {
        self.slots.iter().enumerate().map(|(i, s)| (SlotId::new(self.tag, i as u32), s))
    }

    /// The slot at `index` (a slot index, as a `Link` holds it).
    #[inline]
    pub(crate) fn slot_by_index(&self, index: usize) -> Option<&SlotLayout> {
        self.slots.get(index)
    }

    /// The slot at a binding point, if a used uniform block is there; at a
    /// per-family frequency, the first family's ([`Registry::slot_in`] picks one).
    #[inline]
    pub fn slot_at(&self, point: BindingPoint) -> Option<SlotId> {
        self.slot_by_point.range((point, None)..).next().filter(|(k, _)| k.0 == point).map(|(_, &s)| s)
    }

    /// The slot that shaders of `family` use at a binding point: the shared
    /// slot there, or at a per-family frequency that family's own.
    pub fn slot_in(&self, family: &str, point: BindingPoint) -> Option<SlotId> {
        let frequency = self.plan.frequency(point)?;
        match self.families.get(family) {
            Some(f) => self.slot_for(point, f),
            // A family no shader named yet has no slots of its own.
            None if self.per_family(frequency) => None,
            None => self.slot_by_point.get(&(point, None)).copied(),
        }
    }

    /// The slot a registered shader uses at a binding point.
    pub(crate) fn slot_of(&self, shader: ShaderId, point: BindingPoint) -> Option<SlotId> {
        self.slot_for(point, self.shader_family[shader.index()])
    }

    /// The slot shaders of `family` use at `point`.
    fn slot_for(&self, point: BindingPoint, family: FamilyId) -> Option<SlotId> {
        let frequency = self.plan.frequency(point)?;
        self.slot_by_point.get(&(point, self.per_family(frequency).then_some(family))).copied()
    }

    /// A merge conflict with what the slot plan makes of it: inside a family,
    /// or at a shared material frequency (which is per family by default).
    fn explain(
        &self,
        conflict: LayoutErrorKind,
        frequency: Frequency,
        family: Option<FamilyId>,
    ) -> LayoutErrorKind {
        let conflict = Box::new(conflict);
        match family {
            Some(f) => LayoutErrorKind::InFamily { family: self.family_name_or_new(f), conflict },
            None if frequency == Frequency::Material => LayoutErrorKind::Shared { frequency, conflict },
            None => *conflict,
        }
    }

    /// A family's name; a family being drafted is not in the list yet.
    fn family_name_or_new(&self, family: FamilyId) -> String {
        self.families.name(family).unwrap_or_default().to_owned()
    }

    /// Whether `frequency`'s blocks get a slot per family.
    #[inline]
    pub(crate) fn per_family(&self, frequency: Frequency) -> bool {
        self.plan.sharing(frequency) == Sharing::PerFamily
    }

    /// A family's id, adding the family when no shader named it yet.
    pub(crate) fn intern_family(&mut self, family: &str) -> FamilyId {
        self.families.intern(family)
    }

    /// A family's name.
    #[inline]
    pub(crate) fn family_name(&self, family: FamilyId) -> &str {
        self.families.name(family).expect("a family the registry named")
    }

    /// Bindings that are not uniform blocks (textures, samplers, storage), by binding point.
    pub(crate) fn bindings(&self) -> impl Iterator<Item = &SharedBinding> {
        self.bindings.values()
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
