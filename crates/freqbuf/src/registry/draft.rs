//! `Registry::draft`: every registration rule, checked on copies of the
//! slots a shader touches, so that a conflict changes nothing.

use std::collections::BTreeMap;

use super::{BindingKey, Draft, Key, Registry, SharedBinding};
use crate::errors::{Error, LayoutErrorKind, ResourceSite};
use crate::id::ShaderId;
use crate::instance::family::{FamilyId, NamedFamily};
use crate::reflect::{BlockLayout, IndexSource, Resource, ResourceKind, ShaderReflection};
use crate::slot::layout::SlotLayout;
use crate::slot::plan::{BindingPoint, Frequency};
use crate::slot::slab::{SlabFrom, SlabSource};

impl Registry {
    /// Checks `shader` against every registration rule and merges its blocks
    /// into copies of the slots it touches; changes nothing.
    pub(crate) fn draft(&self, shader: &ShaderReflection) -> Result<Draft, Error> {
        let family = match self.families.get(shader.family()) {
            Some(f) => (f, None),
            None => (self.families.next(), Some(shader.family().to_owned())),
        };
        // Merge into copies first so that a conflict leaves the registry as it was.
        let mut drafting = Drafting {
            registry: self,
            shader,
            id: ShaderId::new(self.tag, self.shaders.len() as u32),
            family: family.0,
            drafted: BTreeMap::new(),
            new_bindings: Vec::new(),
            now_sampled: Vec::new(),
            new_alternates: Vec::new(),
            array_frequency: None,
        };
        // Resources are sorted by binding point: two of one point are neighbours.
        let used = shader.used_resources().collect::<Vec<_>>();
        if let Some(pair) = used.windows(2).find(|w| w[0].binding == w[1].binding) {
            let kind = LayoutErrorKind::SharedPoint {
                first: drafting.site(pair[0]),
                second: drafting.site(pair[1]),
            };
            return Err(drafting.fail(pair[0].binding, kind));
        }
        for res in used {
            drafting.resource(res)?;
        }
        let Drafting { drafted, new_bindings, now_sampled, new_alternates, .. } = drafting;
        Ok(Draft { family, slots: drafted, new_bindings, now_sampled, new_alternates })
    }
}

/// One shader's registration being checked: what it adds, kept apart from
/// the registry until every rule holds.
struct Drafting<'a> {
    registry: &'a Registry,
    shader: &'a ShaderReflection,
    id: ShaderId,
    family: FamilyId,
    drafted: BTreeMap<BindingPoint, SlotLayout>,
    new_bindings: Vec<SharedBinding>,
    now_sampled: Vec<BindingKey>,
    new_alternates: Vec<(BindingKey, wgpu::BindingType)>,
    array_frequency: Option<(Frequency, String)>,
}

impl<'a> Drafting<'a> {
    fn fail(&self, binding: BindingPoint, kind: LayoutErrorKind) -> Error {
        layout_error(self.shader.name(), binding, kind)
    }

    fn site(&self, r: &Resource) -> ResourceSite {
        ResourceSite {
            shader: declared_in(r, self.shader.name()).to_owned(),
            location: r.location,
            name: r.name.clone(),
            kind: describe(r),
            entry_points: r.users.iter().map(|&i| self.shader.entry_points()[i].name.clone()).collect(),
        }
    }

    /// Every rule for one resource the shader uses, and what it adds.
    fn resource(&mut self, res: &Resource) -> Result<(), Error> {
        let (registry, name) = (self.registry, self.shader.name());
        let point = res.binding;
        res.binding_type().map_err(|e| Error::Unsupported {
            shader: name.to_owned(),
            what: format!("`{}`: {e}", res.name),
        })?;
        let frequency = registry.plan.frequency(point).ok_or_else(|| {
            self.fail(point, LayoutErrorKind::Unplanned { shader: name.to_owned(), name: res.name.clone() })
        })?;
        let key: Key = (point, registry.per_family(frequency).then_some(self.family));
        let bkey: BindingKey = (point, key.1, res.kind.class());
        if !res.is_slot() {
            self.one_owner_per_group(point, frequency)?;
        }
        let other = self.other_at(res, key, bkey);
        if let Some((other_shader, other_res)) = other {
            self.same_kind(res, bkey, other_shader, other_res)?;
        }
        match &res.block {
            Some(block) => self.merge_block(res, block, key, frequency),
            None if other.is_none() => {
                self.new_bindings.push(SharedBinding {
                    resource: res.clone(),
                    frequency,
                    shader: self.id,
                    family: key.1,
                    alternates: Vec::new(),
                    table: self.shader.is_table(point),
                });
                Ok(())
            }
            None => {
                if res.sampled && registry.bindings.get(&bkey).is_some_and(|b| !b.resource.sampled) {
                    self.now_sampled.push(bkey);
                }
                Ok(())
            }
        }
    }

    /// How array slot `res` is indexed: through one member of another of
    /// the shader's array slots or of its immediate data (a slab), or by the
    /// instance index (`None`).
    /// A slab indexed two ways is an error: a pointer holds one element.
    #[allow(clippy::result_large_err, reason = "internal; the error becomes `Error::Layout`")]
    fn slab_source(&self, res: &Resource) -> Result<Option<SlabSource>, LayoutErrorKind> {
        let used = self.shader.used_resources();
        let arrays = used.filter(|r| r.is_array_slot()).map(|r| r.binding).collect::<Vec<_>>();
        let (mut through, mut other) = (None::<SlabSource>, false);
        for by in self.shader.indexing().iter().filter(|i| i.array == res.binding).map(|i| &i.by) {
            let s = match by {
                IndexSource::Member { array, member, offset, mask }
                    if *array != res.binding && arrays.contains(array) =>
                {
                    SlabSource {
                        from: SlabFrom::Array(*array),
                        member: member.clone(),
                        offset: *offset,
                        mask: *mask,
                    }
                }
                IndexSource::Immediate { member, offset, mask } => SlabSource {
                    from: SlabFrom::Immediate,
                    member: member.clone(),
                    offset: *offset,
                    mask: *mask,
                },
                _ => {
                    other = true;
                    continue;
                }
            };
            if let Some(t) = through.as_ref().filter(|t| **t != s) {
                let (first, second) = (read_how(Some(t)), read_how(Some(&s)));
                return Err(LayoutErrorKind::SlabSources { name: res.name.clone(), first, second });
            }
            through = Some(s);
        }
        match (through, other) {
            (Some(t), true) => Err(LayoutErrorKind::SlabSources {
                name: res.name.clone(),
                first: read_how(Some(&t)),
                second: read_how(None),
            }),
            (t, _) => Ok(t),
        }
    }

    /// The instance of one frequency owns a group's textures, samplers and buffers.
    fn one_owner_per_group(&self, point: BindingPoint, frequency: Frequency) -> Result<(), Error> {
        let group = point.group;
        let owner = self
            .registry
            .bindings
            .values()
            .map(|b| (b.resource.binding, b.frequency))
            .chain(self.new_bindings.iter().map(|b| (b.resource.binding, b.frequency)))
            .find(|(p, _)| p.group == group)
            .map(|(_, f)| f);
        match owner.filter(|&f| f != frequency) {
            Some(first) => {
                Err(self.fail(point, LayoutErrorKind::MixedGroup { group, first, second: frequency }))
            }
            None => Ok(()),
        }
    }

    /// What another shader uses at `res`'s point, of its kind. A block meets
    /// the slot at its point, any other resource the binding of its class
    /// there: a slot, a texture, a sampler and a buffer may share a point,
    /// since a pipeline uses one of them (each shader's layout declares its
    /// own, as wgpu's shadow example's two light arrays and Bevy's SMAA
    /// passes need).
    fn other_at(
        &self,
        res: &Resource,
        key: Key,
        bkey: BindingKey,
    ) -> Option<(&'a ShaderReflection, &'a Resource)> {
        let registry = self.registry;
        if res.is_slot() {
            registry.slot_by_point.get(&key).and_then(|s| {
                let user = &registry.shaders[registry.slots[s.index()].users().first()?.index()];
                // What it uses there: an unused global may share the point.
                Some((user, user.used_resources().find(|r| r.binding == res.binding && r.is_slot())?))
            })
        } else {
            registry.bindings.get(&bkey).map(|b| (&registry.shaders[b.shader.index()], &b.resource))
        }
    }

    /// `res` against what another shader declares at its point: an
    /// alternate type to add, the same kind, or a `KindMismatch`.
    fn same_kind(
        &mut self,
        res: &Resource,
        bkey: BindingKey,
        other_shader: &ShaderReflection,
        other_res: &Resource,
    ) -> Result<(), Error> {
        if let Some(ty) = alternate_type(other_res, res) {
            let known = self.registry.bindings.get(&bkey).is_some_and(|b| b.alternates.contains(&ty))
                || self.new_alternates.contains(&(bkey, ty));
            if !known {
                self.new_alternates.push((bkey, ty));
            }
            return Ok(());
        }
        let table = |shader: &ShaderReflection, r: &Resource| shader.is_table(r.binding);
        if other_res.kind != res.kind
            || other_res.count != res.count
            || table(other_shader, other_res) != table(self.shader, res)
            || other_res.is_array_slot() != res.is_array_slot()
        {
            return Err(self.fail(
                res.binding,
                LayoutErrorKind::KindMismatch {
                    first_shader: declared_in(other_res, other_shader.name()).to_owned(),
                    first_name: other_res.name.clone(),
                    first_kind: describe(other_res),
                    second_shader: declared_in(res, self.shader.name()).to_owned(),
                    second_name: res.name.clone(),
                    second_kind: describe(res),
                },
            ));
        }
        Ok(())
    }

    /// A uniform block (or array slot) merged into a copy of its slot.
    fn merge_block(
        &mut self,
        res: &Resource,
        block: &BlockLayout,
        key: Key,
        frequency: Frequency,
    ) -> Result<(), Error> {
        let (registry, name, point) = (self.registry, self.shader.name(), res.binding);
        // Not `self.fail`: the drafted slot below borrows `self`.
        let fail = |kind| layout_error(name, point, kind);
        let slab = if res.is_array_slot() { self.slab_source(res).map_err(fail)? } else { None };
        if res.is_array_slot() && slab.is_none() {
            one_array_frequency(&mut self.array_frequency, frequency, res).map_err(fail)?;
        } else if !res.is_array_slot() && block.size > registry.max_uniform_binding_size {
            return Err(fail(LayoutErrorKind::TooLarge {
                shader: name.to_owned(),
                block: res.name.clone(),
                size: block.size,
                limit: registry.max_uniform_binding_size,
            }));
        }
        let family = self.shader.family();
        let slot = self.drafted.entry(point).or_insert_with(|| match registry.slot_by_point.get(&key) {
            Some(s) => registry.slots[s.index()].clone(),
            None => {
                let fam = key.1.map(|id| NamedFamily { id, name: family.to_owned() });
                SlotLayout::new(point, frequency, res.is_array_slot(), fam)
            }
        });
        if res.is_array_slot() {
            let first = slot.users().first().map(|s| registry.shaders[s.index()].name().to_owned());
            slot.read_through(slab.clone()).map_err(|before| {
                fail(LayoutErrorKind::SlabMismatch {
                    name: res.name.clone(),
                    first_shader: first.unwrap_or_default(),
                    first: read_how(before.as_ref()),
                    second: read_how(slab.as_ref()),
                })
            })?;
        }
        // Every user indexes the same elements: one stride.
        let size = slot.size();
        if res.is_array_slot() && !slot.users().is_empty() && size != block.size {
            let kind = LayoutErrorKind::ArrayStride {
                first_shader: registry.shaders[slot.users()[0].index()].name().to_owned(),
                first: size,
                second_shader: name.to_owned(),
                second: block.size,
            };
            return Err(fail(kind));
        }
        let merged = slot.merge(self.id, declared_in(res, name), &res.name, res.location, block);
        merged.map_err(|k| fail(registry.explain(k, frequency, key.1)))
    }
}

/// A layout conflict of shader `shader` at `binding`.
fn layout_error(shader: &str, binding: BindingPoint, kind: LayoutErrorKind) -> Error {
    Error::Layout { shader: shader.to_owned(), binding, kind: Box::new(kind) }
}

/// `res`'s binding type when it may differ from `first`'s at one point: two
/// textures (sampled, depth or storage: Bevy's `MESHLET` reads a depth
/// pyramid's first mip as an r32uint storage texture), two samplers of one
/// count, or two storage buffers the application sets that differ in access
/// (Bevy's `cluster_raster` reads with `POPULATE_PASS` what it writes
/// without), whose types each pipeline layout declares for itself. Uniform
/// blocks and array slots share bytes freqbuf lays out, so they keep one
/// type; a texture in one permutation and a sampler in another are two
/// bindings of their own (`ResourceClass`), never alternates. `None` when
/// the types are equal.
fn alternate_type(first: &Resource, res: &Resource) -> Option<wgpu::BindingType> {
    use ResourceKind as K;
    let texture = |k: &ResourceKind| matches!(k, K::Texture { .. } | K::StorageTexture { .. });
    let buffer = |r: &Resource| matches!(r.kind, K::Storage { .. }) && !r.is_slot() && !r.is_array_slot();
    let same_kind = (texture(&first.kind) && texture(&res.kind))
        || (buffer(first) && buffer(res))
        || matches!((&first.kind, &res.kind), (K::Sampler { .. }, K::Sampler { .. }));
    if !same_kind || first.kind == res.kind || first.count != res.count {
        return None;
    }
    res.binding_type().ok()
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
        ResourceKind::Storage { read_only: true } => "var<storage, read>".into(),
        ResourceKind::Storage { read_only: false } => "var<storage, read_write>".into(),
        ref k => k.as_str().replace('_', " "),
    };
    if r.count > 1 { format!("binding_array<{base}, {}>", r.count) } else { base }
}

/// How an array slot is indexed, for errors: `through objects.material & 0xffff`.
fn read_how(source: Option<&SlabSource>) -> String {
    match source {
        Some(s) if s.mask == !0 => format!("through member `{}` of {}", s.member, s.from),
        Some(s) => format!("through member `{}` of {} masked with {:#x}", s.member, s.from, s.mask),
        None => "by the instance index (or a vertex output, or arithmetic)".into(),
    }
}

/// The file a resource of `shader` is declared in: its linked part's, else the shader's.
fn declared_in<'a>(res: &'a Resource, shader: &'a str) -> &'a str {
    res.file.as_deref().unwrap_or(shader)
}
