//! `Batch` and `StructBatch`: one member, or one typed block, written on many
//! instances in a loop.
//!
//! Use a batch where a frame writes the same member on many instances (the
//! world matrices of the objects that moved): the slot, the member, the
//! value type, the bounds and the family rule are checked once, when the
//! batch is made, and each write then costs a handle lookup, a compare and
//! copy of the value's bytes and a dirty bit. `set_all` and `set_all_in`
//! take a whole frame's writes in one call and hold each back a few items
//! while its shadow bytes are fetched ([`crate::write::behind`]): the fastest
//! path where the written instances are scattered over a large slot. Use
//! [`InstanceMut`](crate::InstanceMut) for a few values on one instance, or
//! for several members of it. Both write the same shadow and are flushed
//! alike; a failed write changes nothing.
//!
//! The two public types are one writer (`Writes`) generic over how a value
//! lands (`Land`: a member at its offset, or a typed block's fields), so
//! both check and queue their writes by the same code.

use std::marker::PhantomData;

use crate::errors::{Error, ParamErrorKind};
use crate::instance::family::FamilyId;
use crate::instance::handles::{InstanceId, InstanceTable};
use crate::instance::list::InstanceList;
use crate::registry::Registry;
use crate::slot::shadow::Slot;
use crate::write::behind;
use crate::write::param::{Param, Uniform};
use crate::write::setters::{check_family, check_param, check_type, param_error};
use crate::write::typed::{ShaderStruct, StructParam};

/// What a batch borrows from its manager to check a write: the instance
/// table its handles resolve in, and the member's slot rules.
#[derive(Debug)]
struct Check<'a> {
    registry: &'a Registry,
    instances: &'a InstanceTable,
    param: Param,
    /// The slot's family, for a slot that has one per family.
    family: Option<FamilyId>,
}

/// The slot a batch writes, and how it checks each write.
#[derive(Debug)]
struct Target<'a> {
    check: Check<'a>,
    slot: &'a mut Slot,
    /// Bytes `offset..offset + width` of an instance: what each write covers.
    span: (u32, usize),
}

impl<'a> Target<'a> {
    /// Checks everything about `param` that does not depend on the instance;
    /// a write covers `span` (offset, width) of an instance.
    fn new(
        registry: &'a Registry,
        slots: &'a mut [Slot],
        instances: &'a InstanceTable,
        param: Param,
        span: (u32, usize),
    ) -> Result<Self, Error> {
        check_param(registry, slots, param.frequency, param)?;
        let family = registry[param.slot].family_id();
        let slot = &mut slots[param.slot.index()];
        Ok(Self { check: Check { registry, instances, param, family }, slot, span })
    }

    /// Lands each item whose instance `index` resolves, through the
    /// write-behind queue; stops at the first that does not, with the items
    /// before it written.
    #[inline]
    fn write_all<K, V: Copy>(
        &mut self,
        items: impl IntoIterator<Item = (K, V)>,
        index: impl Fn(&Check<'a>, K) -> Result<u32, Error>,
        land: impl FnMut(&mut Slot, u32, V),
    ) -> Result<(), Error> {
        let check = &self.check;
        behind::write_all(self.slot, self.span, items, |key| index(check, key), land)
    }
}

impl Check<'_> {
    /// The dense index of `id`, once it is live, of the param's frequency and
    /// of a family whose members it may hold.
    #[inline]
    fn index(&self, id: InstanceId) -> Result<u32, Error> {
        let f = id.frequency();
        if f != self.param.frequency {
            let kind = ParamErrorKind::WrongFrequency { wanted: f, actual: self.param.frequency };
            return Err(param_error(self.registry, self.param, kind));
        }
        let index = self.instances.index(id)?;
        self.check_family(index)?;
        Ok(index)
    }

    /// The dense index at `position` of `list`, while it holds, checked as [`Check::index`].
    #[inline]
    fn listed(&self, list: &InstanceList, position: usize) -> Result<u32, Error> {
        let f = self.param.frequency;
        if let Some(wanted) = list.frequency().filter(|&l| l != f) {
            let kind = ParamErrorKind::WrongFrequency { wanted, actual: f };
            return Err(param_error(self.registry, self.param, kind));
        }
        let index = list.index(self.instances, position)?;
        self.check_family(index)?;
        Ok(index)
    }

    #[inline]
    fn check_family(&self, index: u32) -> Result<(), Error> {
        if self.family.is_some() {
            let own = self.instances.family(self.param.frequency, index);
            check_family(self.registry, self.param, self.family, own)?;
        }
        Ok(())
    }
}

/// How a batch lands one value in an instance's bytes.
trait Land<T> {
    fn land(&mut self, slot: &mut Slot, index: u32, value: &T);
}

/// A member at its offset ([`Batch`]).
#[derive(Debug)]
struct Member(u32);

impl<T: Uniform> Land<T> for Member {
    #[inline]
    fn land(&mut self, slot: &mut Slot, index: u32, value: &T) {
        slot.write(index, self.0, bytemuck::bytes_of(&value.to_gpu()));
    }
}

/// A typed block's fields ([`StructBatch`]), laid out in bytes reused by
/// every write (a typed block starts at offset 0 of its slot).
#[derive(Debug)]
struct Block(Vec<u8>);

impl<T: ShaderStruct> Land<T> for Block {
    #[inline]
    fn land(&mut self, slot: &mut Slot, index: u32, value: &T) {
        slot.write_struct(index, value, &mut self.0);
    }
}

/// The writer both batches are: a checked target and how values land.
#[derive(Debug)]
struct Writes<'a, L> {
    target: Target<'a>,
    lands: L,
}

impl<'a, L> Writes<'a, L> {
    #[inline]
    fn set<T>(&mut self, id: InstanceId, value: &T) -> Result<(), Error>
    where
        L: Land<T>,
    {
        let index = self.target.check.index(id)?;
        self.lands.land(self.target.slot, index, value);
        Ok(())
    }

    #[inline]
    fn set_in<T>(&mut self, list: &InstanceList, position: usize, value: &T) -> Result<(), Error>
    where
        L: Land<T>,
    {
        let index = self.target.check.listed(list, position)?;
        self.lands.land(self.target.slot, index, value);
        Ok(())
    }

    #[inline]
    fn set_all<'v, T: 'v, I: Into<InstanceId>>(
        &mut self,
        items: impl IntoIterator<Item = (I, &'v T)>,
    ) -> Result<(), Error>
    where
        L: Land<T>,
    {
        let lands = &mut self.lands;
        self.target.write_all(items, |c, id: I| c.index(id.into()), |slot, i, v| lands.land(slot, i, v))
    }

    #[inline]
    fn set_all_in<'v, T: 'v>(
        &mut self,
        list: &InstanceList,
        items: impl IntoIterator<Item = (usize, &'v T)>,
    ) -> Result<(), Error>
    where
        L: Land<T>,
    {
        let lands = &mut self.lands;
        self.target.write_all(
            items,
            |c, position| c.listed(list, position),
            |slot, i, v| lands.land(slot, i, v),
        )
    }
}

/// One member written on many instances ([`Manager::batch`](crate::Manager::batch)).
///
/// ```no_run
/// # fn f(fb: &mut freqbuf::Manager, moved: &[(freqbuf::ObjectId, [[f32; 4]; 4])]) -> Result<(), freqbuf::Error> {
/// let world = fb.param("world")?;
/// let mut worlds = fb.batch(world)?; // slot, type and bounds checked here, once
/// for (id, m) in moved {
///     worlds.set(*id, m)?;
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Batch<'a, T> {
    writes: Writes<'a, Member>,
    _value: PhantomData<fn(&T)>,
}

impl<'a, T: Uniform> Batch<'a, T> {
    pub(crate) fn new(
        registry: &'a Registry,
        slots: &'a mut [Slot],
        instances: &'a InstanceTable,
        param: Param,
    ) -> Result<Self, Error> {
        if param.count > 1 {
            return Err(param_error(registry, param, ParamErrorKind::NeedsIndex { member: String::new() }));
        }
        check_type::<T>(registry, param)?;
        let width = std::mem::size_of::<T::Gpu>();
        let target = Target::new(registry, slots, instances, param, (param.offset, width))?;
        Ok(Self { writes: Writes { target, lands: Member(param.offset) }, _value: PhantomData })
    }

    /// Sets the member on instance `id`. Writing the value it already holds
    /// makes nothing dirty.
    ///
    /// Cost: a handle lookup, a compare and copy of `size_of::<T::Gpu>()`
    /// bytes, and a dirty bit.
    #[inline]
    pub fn set(&mut self, id: impl Into<InstanceId>, value: &T) -> Result<(), Error> {
        self.writes.set(id.into(), value)
    }

    /// Sets the member on the instance at `position` of `list`
    /// ([`Manager::instance_list`](crate::Manager::instance_list)), with no
    /// handle lookup. A list made before a free is [`Error::StaleInstanceList`].
    ///
    /// Cost: a compare and copy of the value's bytes, and a dirty bit.
    #[inline]
    pub fn set_in(&mut self, list: &InstanceList, position: usize, value: &T) -> Result<(), Error> {
        self.writes.set_in(list, position, value)
    }

    /// Sets the member on every `(instance, value)` of `items`, as a loop of
    /// [`Batch::set`] would, but faster where the instances are scattered
    /// over a large slot: each write is held back a few items while its
    /// bytes are fetched. Stops at the first item that fails, with the items
    /// before it written and that item's error returned.
    ///
    /// Cost: per item, a handle lookup, a compare and copy of the value's
    /// bytes, and a dirty bit, with the cache misses of many items overlapped.
    pub fn set_all<'v, I: Into<InstanceId>>(
        &mut self,
        items: impl IntoIterator<Item = (I, &'v T)>,
    ) -> Result<(), Error>
    where
        T: 'v,
    {
        self.writes.set_all(items)
    }

    /// [`Batch::set_all`] by position in `list`, with no handle lookup.
    pub fn set_all_in<'v>(
        &mut self,
        list: &InstanceList,
        items: impl IntoIterator<Item = (usize, &'v T)>,
    ) -> Result<(), Error>
    where
        T: 'v,
    {
        self.writes.set_all_in(list, items)
    }
}

/// One typed block written on many instances ([`Manager::batch_struct`](crate::Manager::batch_struct)).
#[derive(Debug)]
pub struct StructBatch<'a, T> {
    writes: Writes<'a, Block>,
    _struct: PhantomData<fn(&T)>,
}

impl<'a, T: ShaderStruct> StructBatch<'a, T> {
    pub(crate) fn new(
        registry: &'a Registry,
        slots: &'a mut [Slot],
        instances: &'a InstanceTable,
        param: StructParam<T>,
    ) -> Result<Self, Error> {
        let width = param.block.elem_size as usize;
        let target = Target::new(registry, slots, instances, param.block, (0, width))?;
        Ok(Self { writes: Writes { target, lands: Block(vec![0; width]) }, _struct: PhantomData })
    }

    /// Writes every field of `value` on instance `id`; members the struct
    /// lacks keep their values, and unchanged fields make nothing dirty.
    ///
    /// Cost: a handle lookup, then a compare and copy per field.
    #[inline]
    pub fn set(&mut self, id: impl Into<InstanceId>, value: &T) -> Result<(), Error> {
        self.writes.set(id.into(), value)
    }

    /// Writes every field of `value` on the instance at `position` of `list`,
    /// with no handle lookup.
    #[inline]
    pub fn set_in(&mut self, list: &InstanceList, position: usize, value: &T) -> Result<(), Error> {
        self.writes.set_in(list, position, value)
    }

    /// Writes every `(instance, value)` of `items` as [`Batch::set_all`] does.
    pub fn set_all<'v, I: Into<InstanceId>>(
        &mut self,
        items: impl IntoIterator<Item = (I, &'v T)>,
    ) -> Result<(), Error>
    where
        T: 'v,
    {
        self.writes.set_all(items)
    }

    /// [`StructBatch::set_all`] by position in `list`, with no handle lookup.
    pub fn set_all_in<'v>(
        &mut self,
        list: &InstanceList,
        items: impl IntoIterator<Item = (usize, &'v T)>,
    ) -> Result<(), Error>
    where
        T: 'v,
    {
        self.writes.set_all_in(list, items)
    }
}
