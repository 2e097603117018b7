//! `Manager::batch` and `Manager::batch_struct`: writers of one member or
//! one typed block on many instances ([`crate::Batch`]).

use super::Manager;
use crate::errors::Error;
use crate::instance::handles::InstanceId;
use crate::instance::list::InstanceList;
use crate::write::batch::{Batch, StructBatch};
use crate::write::param::{Param, Uniform};
use crate::write::typed::{ShaderStruct, StructParam};

impl Manager {
    /// A writer of `param` on many instances of its frequency: the slot,
    /// value type `T`, bounds and family rule are checked here, once, so each
    /// [`Batch::set`] costs a handle lookup and the value's bytes. The fastest
    /// way to write the objects that moved.
    ///
    /// A whole array is [`ParamErrorKind::NeedsIndex`](crate::error::ParamErrorKind::NeedsIndex),
    /// and a `T` of another type [`ParamErrorKind::TypeMismatch`](crate::error::ParamErrorKind::TypeMismatch).
    pub fn batch<T: Uniform>(&mut self, param: Param) -> Result<Batch<'_, T>, Error> {
        Batch::new(&self.registry, &mut self.slots, &self.instances, param)
    }

    /// Resolves `ids` (handles of one frequency) to dense indices once, for
    /// [`Batch::set_in`] and [`StructBatch::set_in`] to write by position
    /// with no handle lookup. Holds until an instance is freed
    /// ([`Error::StaleInstanceList`] after). Cost: one handle lookup per id.
    pub fn instance_list<I: Into<InstanceId>>(
        &self,
        ids: impl IntoIterator<Item = I>,
    ) -> Result<InstanceList, Error> {
        InstanceList::new(&self.instances, ids.into_iter().map(Into::into))
    }

    /// A writer of typed block `param` ([`Manager::param_struct`]) on many
    /// instances: [`StructBatch::set`] writes every field with no lookup.
    pub fn batch_struct<T: ShaderStruct>(
        &mut self,
        param: StructParam<T>,
    ) -> Result<StructBatch<'_, T>, Error> {
        StructBatch::new(&self.registry, &mut self.slots, &self.instances, param)
    }
}
