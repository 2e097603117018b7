//! Instances: creating and freeing views, materials and objects, and
//! borrowing one to set values and resources on ([`InstanceMut`]).

use super::Manager;
use crate::errors::Error;
use crate::instance::family::FamilyId;
use crate::instance::handles::{FromRaw, InstanceId, MaterialId, ObjectId, ViewId};
use crate::slot::plan::Frequency;
use crate::write::setters::InstanceMut;

impl Manager {
    /// Creates a view instance; its values start at zero.
    pub fn create_view(&mut self) -> ViewId {
        self.create(None)
    }

    /// Creates a material instance; its values start at zero and its textures are placeholders.
    /// It belongs to no family: it has a place in every family's material
    /// slots, and any of them can be set on it. Prefer
    /// [`Manager::create_material_in`] when materials are per family.
    pub fn create_material(&mut self) -> MaterialId {
        self.create(None)
    }

    /// Creates a material instance of `family` (a shader's
    /// [`ShaderReflection::family`](crate::reflect::ShaderReflection::family)):
    /// names set on it resolve among its family's blocks, and a member of
    /// another family's block is
    /// [`ParamErrorKind::OtherFamily`](crate::error::ParamErrorKind::OtherFamily).
    /// A family no shader has named yet is made, empty.
    ///
    /// Cost: as [`Manager::create_material`], and one family lookup.
    pub fn create_material_in(&mut self, family: &str) -> MaterialId {
        let index = self.registry.intern_family(family);
        self.create(Some(index))
    }

    /// Creates an object instance; its values start at zero.
    pub fn create_object(&mut self) -> ObjectId {
        self.create(None)
    }

    fn create<K: FromRaw>(&mut self, family: Option<FamilyId>) -> K {
        let f = K::FREQUENCY;
        let (key, index) = self.instances.insert::<K>(family);
        let high = self.instances.high(f);
        for slot in self.slots.iter_mut().filter(|s| s.frequency() == f) {
            slot.reserve(high);
            slot.clear_instance(index);
        }
        key
    }

    /// Frees a view; its slot space is reused by the next view created.
    pub fn free_view(&mut self, v: ViewId) -> Result<(), Error> {
        self.free(v.into())
    }

    /// Frees a material, dropping its textures and samplers.
    pub fn free_material(&mut self, m: MaterialId) -> Result<(), Error> {
        self.free(m.into())
    }

    /// Frees an object.
    pub fn free_object(&mut self, o: ObjectId) -> Result<(), Error> {
        self.free(o.into())
    }

    /// Frees any instance; freeing twice (or the frame) is [`Error::StaleHandle`].
    pub fn free(&mut self, id: InstanceId) -> Result<(), Error> {
        self.instances.remove(id).map(drop)
    }

    /// Live instances of a frequency (the frame counts as one).
    pub fn instance_count(&self, frequency: Frequency) -> usize {
        self.instances.len(frequency)
    }

    /// The frame instance, to set values on.
    #[inline]
    pub fn frame(&mut self) -> InstanceMut<'_> {
        self.instance(InstanceId::FRAME)
    }

    /// A view instance, to set values on.
    #[inline]
    pub fn view(&mut self, v: ViewId) -> InstanceMut<'_> {
        self.instance(v)
    }

    /// A material instance, to set values, textures and samplers on.
    #[inline]
    pub fn material(&mut self, m: MaterialId) -> InstanceMut<'_> {
        self.instance(m)
    }

    /// An object instance, to set values on.
    #[inline]
    pub fn object(&mut self, o: ObjectId) -> InstanceMut<'_> {
        self.instance(o)
    }

    /// Any instance, to set values on.
    #[inline]
    pub fn instance(&mut self, id: impl Into<InstanceId>) -> InstanceMut<'_> {
        InstanceMut {
            device: &self.device,
            registry: &self.registry,
            slots: &mut self.slots,
            instances: &mut self.instances,
            groups: &mut self.groups,
            id: id.into(),
        }
    }
}
