//! Materials: an effect, a set of its flags and one material instance, with
//! values set by name, defaults from the effect's `[params]`, and instances
//! derived from another material (Unreal's material instances).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::value::{Stored, check_tables, default_value};
use crate::effect::{EffectId, Effects, FlagSet};
use crate::error::{MaterialError, MaterialErrorKind};
use freqbuf::Frequency;
use freqbuf::Manager;
use freqbuf::MaterialId;
use freqbuf::Registry;
use freqbuf::ShaderId;
use freqbuf::Uniform;
use freqbuf::reflect::ValueType;

mod adopt;

/// A texture or sampler set by name.
#[derive(Clone, Debug)]
enum Resource {
    Texture(wgpu::TextureView),
    Sampler(wgpu::Sampler),
}

impl Resource {
    fn set(&self, fb: &mut Manager, instance: MaterialId, name: &str) -> Result<(), freqbuf::Error> {
        match self {
            Resource::Texture(v) => fb.material(instance).set_texture(name, v),
            Resource::Sampler(s) => fb.material(instance).set_sampler(name, s),
        }
    }
}

#[derive(Debug)]
struct MaterialData {
    effect: EffectId,
    flags: FlagSet,
    parent: Option<MaterialId>,
    children: Vec<MaterialId>,
    /// Values set on this material (and `[params]` defaults on a root).
    own: BTreeMap<String, Stored>,
    /// Textures and samplers set on this material, by name.
    textures: BTreeMap<String, Resource>,
    /// The bytes the store last wrote into the instance, by name: where the
    /// instance holds others, they were written past the store (`adopt`).
    written: BTreeMap<String, Vec<u8>>,
}

/// Materials of effects: values by name, flags, and derived instances.
///
/// Cost: `set` is a name lookup and a copy into the material's slot shadow;
/// it also writes the value into every derived material that does not
/// override it. A flag change registers the new permutation (once per
/// combination) and writes the material's values again.
///
/// A material is named by the core's [`MaterialId`] of the instance that
/// holds its values: the same handle draws take. One the store did not
/// create (the manager's own, or another store's) is an error. Values
/// written on it past the store (`fb.material(m).set(..)` or `set_struct`)
/// are adopted as its own before the store writes it again (a flag change,
/// a derived material, a value set on an ancestor): none is lost.
#[derive(Debug, Default)]
pub struct Materials {
    /// By the material instance that holds each one's values.
    materials: HashMap<MaterialId, MaterialData>,
    /// Every permutation of each effect merged, and the names they declare.
    effects: HashMap<EffectId, EffectInfo>,
}

/// An effect's permutations, merged once.
#[derive(Debug)]
struct EffectInfo {
    name: String,
    /// The family its permutations and materials are in.
    family: String,
    merged: Registry,
    names: BTreeSet<String>,
}

impl Materials {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// A material of `effect` with `flags` switched on: a new material
    /// instance whose values start from the effect's `[params]`.
    pub fn create(
        &mut self,
        fx: &mut Effects,
        fb: &mut Manager,
        effect: EffectId,
        flags: &[&str],
    ) -> Result<MaterialId, MaterialError> {
        let flags = fx.flags(effect, flags)?;
        fx.register_passes(fb, flags)?;
        self.info(fx, fb, effect)?;
        let mut own = BTreeMap::new();
        let info = &self.effects[&effect];
        for (name, value) in fx.effect(effect).params() {
            own.insert(name.clone(), default_value(&info.merged, &info.family, name, value)?);
        }
        let instance = fb.create_material_in(fx.effect(effect).family());
        self.materials.insert(
            instance,
            MaterialData {
                effect,
                flags,
                parent: None,
                children: Vec::new(),
                own,
                textures: BTreeMap::new(),
                written: BTreeMap::new(),
            },
        );
        self.apply(fb, instance)?;
        Ok(instance)
    }

    /// A material instance of `parent`: its flags and current values, with
    /// values set on it later overriding the parent's.
    pub fn derive(&mut self, fb: &mut Manager, parent: MaterialId) -> Result<MaterialId, MaterialError> {
        self.check(parent)?;
        // The parent's values written past the store are what it passes on.
        self.adopt(fb, parent, None)?;
        let p = &self.materials[&parent];
        let (effect, flags) = (p.effect, p.flags);
        let family = self.effects[&effect].family.clone();
        let instance = fb.create_material_in(&family);
        self.materials.insert(
            instance,
            MaterialData {
                effect,
                flags,
                parent: Some(parent),
                children: Vec::new(),
                own: BTreeMap::new(),
                textures: BTreeMap::new(),
                written: BTreeMap::new(),
            },
        );
        self.data(parent).children.push(instance);
        self.apply(fb, instance)?;
        Ok(instance)
    }

    /// Sets a value by name (`base_color`, `lights[2].color`) on `m` and on
    /// the materials derived from it that do not override it. A name that the
    /// current permutation lacks is kept and written when the flags select
    /// one that has it; a name no permutation has is an error.
    pub fn set<T: Uniform>(
        &mut self,
        fb: &mut Manager,
        m: MaterialId,
        name: &str,
        value: &T,
    ) -> Result<(), MaterialError> {
        self.check(m)?;
        self.check_name(m, name)?;
        let stored = Stored { ty: Some(T::TYPE), bytes: bytemuck::bytes_of(&value.to_gpu()).to_vec() };
        // Checked against the merge of every permutation, before anything
        // changes, whichever permutations the manager has registered yet.
        let info = &self.effects[&self.materials[&m].effect];
        if let Ok(param) = info.merged.resolve_in(&info.family, name, Some(Frequency::Material)) {
            check_type(name, param.value_type(), &stored)?;
        }
        self.store(fb, m, name, stored)
    }

    /// Sets a texture by name on `m` and on the materials derived from it
    /// that do not override it.
    pub fn set_texture(
        &mut self,
        fb: &mut Manager,
        m: MaterialId,
        name: &str,
        view: &wgpu::TextureView,
    ) -> Result<(), MaterialError> {
        self.set_resource(fb, m, name, Resource::Texture(view.clone()))
    }

    /// Sets a sampler by name on `m` and on the materials derived from it
    /// that do not override it.
    pub fn set_sampler(
        &mut self,
        fb: &mut Manager,
        m: MaterialId,
        name: &str,
        sampler: &wgpu::Sampler,
    ) -> Result<(), MaterialError> {
        self.set_resource(fb, m, name, Resource::Sampler(sampler.clone()))
    }

    fn set_resource(
        &mut self,
        fb: &mut Manager,
        m: MaterialId,
        name: &str,
        resource: Resource,
    ) -> Result<(), MaterialError> {
        self.check(m)?;
        self.check_name(m, name)?;
        resource.set(fb, m, name)?;
        self.data(m).textures.insert(name.to_owned(), resource.clone());
        for target in self.inheritors(m, name, true) {
            resource.set(fb, target, name)?;
        }
        Ok(())
    }

    /// Switches `m` to other flags: registers that permutation (once) and
    /// writes the material's values again; none that it still has is lost.
    pub fn set_flags(
        &mut self,
        fx: &mut Effects,
        fb: &mut Manager,
        m: MaterialId,
        flags: &[&str],
    ) -> Result<(), MaterialError> {
        self.check(m)?;
        let effect = self.materials[&m].effect;
        let flags = fx.flags(effect, flags)?;
        fx.register_passes(fb, flags)?;
        // Values written past the store (the core's set or set_struct on
        // its id) are adopted first, so the switch writes them back.
        self.adopt(fb, m, None)?;
        // Every value must fit the permutation before the material switches.
        for name in self.visible(m).0 {
            self.check_write(fb, m, &name)?;
        }
        self.data(m).flags = flags;
        self.apply(fb, m)
    }

    /// After [`Manager::recreate`]: forgets every texture and sampler set
    /// on a material (they were the lost device's, and the manager dropped
    /// them too). Values, flags and derivations stay; set the resources
    /// again on the new device.
    pub fn recreate(&mut self) {
        self.materials.values_mut().for_each(|d| d.textures.clear());
    }

    /// The shader (permutation) `m` draws with.
    pub fn shader(
        &self,
        fx: &mut Effects,
        fb: &mut Manager,
        m: MaterialId,
    ) -> Result<ShaderId, MaterialError> {
        Ok(fx.shader(fb, self.materials[&self.check(m)?].flags)?)
    }

    /// The material's flags, to build its pipelines with (`None`: not a
    /// material of this store).
    pub fn flags(&self, m: MaterialId) -> Option<FlagSet> {
        self.checked_flags(m).ok()
    }

    /// The material's flags, or the error for one the store did not create.
    pub(crate) fn checked_flags(&self, m: MaterialId) -> Result<FlagSet, MaterialError> {
        Ok(self.materials[&self.check(m)?].flags)
    }

    /// `m`, or the error for a material the store did not create.
    fn check(&self, m: MaterialId) -> Result<MaterialId, MaterialError> {
        match self.materials.contains_key(&m) {
            true => Ok(m),
            false => Err(MaterialError {
                subject: "cannot use the material".into(),
                kind: Box::new(MaterialErrorKind::Foreign),
            }),
        }
    }

    /// A material's data, to change; `m` was checked.
    fn data(&mut self, m: MaterialId) -> &mut MaterialData {
        self.materials.get_mut(&m).expect("a checked material")
    }

    /// The merge of every permutation of `effect`, and its names (once per effect).
    /// The permutations are those `fb`'s device can register (its setting of any device flags).
    fn info(&mut self, fx: &mut Effects, fb: &Manager, effect: EffectId) -> Result<(), MaterialError> {
        if self.effects.contains_key(&effect) {
            return Ok(());
        }
        let mut merged = fb.registry().scratch();
        fx.merge_for(&mut merged, effect, None, Some(fb.device()))?;
        let family = fx.effect(effect).family().to_owned();
        let mut names = BTreeSet::new();
        // What its shaders see: shared slots and its family's own.
        for (_, slot) in merged.slots().filter(|(_, s)| s.family().is_none_or(|f| f == family)) {
            names.extend(slot.members().iter().map(|m| m.member.name.clone()));
            names.extend(slot.aliases().iter().cloned());
        }
        for (_, shader) in merged.shaders().filter(|(_, s)| s.family() == family) {
            names.extend(shader.used_resources().map(|r| r.name.clone()));
        }
        let name = fx.effect(effect).name().to_owned();
        self.effects.insert(effect, EffectInfo { name, family, merged, names });
        Ok(())
    }

    fn check_name(&self, m: MaterialId, name: &str) -> Result<(), MaterialError> {
        let info = &self.effects[&self.materials[&m].effect];
        let known = &info.names;
        let first = name.split(['.', '[']).next().unwrap_or_default().trim().to_owned();
        if known.contains(&first) {
            return Ok(());
        }
        Err(MaterialError {
            subject: format!("cannot set `{name}` on the material"),
            kind: Box::new(MaterialErrorKind::Unknown {
                effect: info.name.clone(),
                suggestions: crate::error::closest(&first, known.iter().map(String::as_str)),
            }),
        })
    }

    /// `m` and its descendants that take `name` from it (no override of their own).
    fn inheritors(&self, m: MaterialId, name: &str, texture: bool) -> Vec<MaterialId> {
        let mut out = Vec::new();
        let mut stack = vec![m];
        while let Some(x) = stack.pop() {
            out.push(x);
            for &c in &self.materials[&x].children {
                let d = &self.materials[&c];
                let overrides =
                    if texture { d.textures.contains_key(name) } else { d.own.contains_key(name) };
                if !overrides {
                    stack.push(c);
                }
            }
        }
        out
    }

    /// The value `m` sees for `name`: its own, else its nearest ancestor's.
    fn effective(&self, m: MaterialId, name: &str) -> Option<&Stored> {
        let mut at = Some(m);
        while let Some(x) = at {
            if let Some(v) = self.materials[&x].own.get(name) {
                return Some(v);
            }
            at = self.materials[&x].parent;
        }
        None
    }

    /// What `m` sees for `name` and the member it goes to, if its
    /// permutation has it, checked for type.
    fn check_write(
        &self,
        fb: &Manager,
        m: MaterialId,
        name: &str,
    ) -> Result<Option<(freqbuf::Param, Stored)>, MaterialError> {
        let Some(stored) = self.effective(m, name).cloned() else { return Ok(None) };
        let family = &self.effects[&self.materials[&m].effect].family;
        let Ok(param) = fb.registry().resolve_in(family, name, Some(Frequency::Material)) else {
            return Ok(None);
        };
        check_type(name, param.value_type(), &stored)?;
        Ok(Some((param, stored)))
    }

    /// Writes what `m` sees for `name` into its instance, if its permutation has it.
    fn write(&mut self, fb: &mut Manager, m: MaterialId, name: &str) -> Result<(), MaterialError> {
        if let Some((param, stored)) = self.check_write(fb, m, name)? {
            fb.material(m).set_bytes(param, &stored.bytes)?;
            self.data(m).written.insert(name.to_owned(), stored.bytes);
        }
        Ok(())
    }

    /// The value names and the textures `m` sees, its own or inherited.
    fn visible(&self, m: MaterialId) -> (BTreeSet<String>, BTreeMap<&str, &Resource>) {
        let mut names = BTreeSet::new();
        let mut textures: BTreeMap<&str, &Resource> = BTreeMap::new();
        let mut at = Some(m);
        while let Some(x) = at {
            names.extend(self.materials[&x].own.keys().cloned());
            for (k, v) in &self.materials[&x].textures {
                textures.entry(k.as_str()).or_insert(v);
            }
            at = self.materials[&x].parent;
        }
        (names, textures)
    }

    /// Writes every value and texture `m` sees (after creation or a flag change).
    fn apply(&mut self, fb: &mut Manager, m: MaterialId) -> Result<(), MaterialError> {
        let (names, textures) = self.visible(m);
        for (name, resource) in textures {
            resource.set(fb, m, name)?;
        }
        for name in names {
            self.write(fb, m, &name)?;
        }
        Ok(())
    }
}

fn check_type(name: &str, member: Option<ValueType>, stored: &Stored) -> Result<(), MaterialError> {
    match (member, stored.ty) {
        (Some(m), Some(v)) if m != v => Err(MaterialError {
            subject: format!("cannot set `{name}` on the material"),
            kind: Box::new(MaterialErrorKind::BadValue { expected: m.to_string(), found: format!("is {v}") }),
        }),
        _ => Ok(()),
    }
}

/// Checks an effect's `[params]` and `[auto]` tables against `merged`, the
/// merge of its permutations ([`Effects::merge`]): every name must resolve,
/// every default fit its member, every semantic its member's frequency and type.
///
/// With `all` false, `merged` holds only some permutations (a check of one):
/// a name none of them declares is skipped, since another permutation may;
/// the names they do declare are checked in full.
pub fn validate_tables(
    fx: &Effects,
    effect: EffectId,
    merged: &Registry,
    all: bool,
) -> Result<(), MaterialError> {
    let e = fx.checked(effect, "effect id")?;
    check_tables(e.family(), e.params(), e.auto(), merged, all, None).map(drop)
}
