//! `DrawList`: draws whose instance handles are resolved once.
//!
//! Use a draw list instead of binding [`Draw`]s one by one when the same
//! draws are encoded frame after frame (Unreal's cached mesh draw commands):
//! each handle is looked up once, when the list is made, instead of once per
//! draw per frame, which at 100,000 objects is a cache miss per draw. Values,
//! flushes, buffer growth and new resources need no new list; freeing any
//! instance does (its index may go to another handle), and binding a stale
//! list is [`Error::StaleList`]. For draws that change every frame, bind
//! [`Draw`]s; for draws that never change, replay a render bundle.

use crate::binding::Draw;
use crate::error::Error;
use crate::id::ShaderId;
use crate::instance::{FREED, InstanceTable, NOT_FLUSHED};
use crate::plan::Frequency;

/// Draws with their instances resolved to slot indices, made by
/// [`crate::Manager::draw_list`] and bound by [`crate::Binder::bind_list`].
#[derive(Clone, Debug)]
pub struct DrawList {
    /// The manager's registry tag and its free count when the list was made.
    tag: u32,
    frees: u64,
    draws: Vec<(ShaderId, [u32; 4])>,
}

impl DrawList {
    /// Resolves `draws` against the instance table; a freed handle is
    /// [`Error::StaleHandle`], one created since the last flush [`Error::NotFlushed`].
    pub(crate) fn new<'d>(
        tag: u32,
        instances: &InstanceTable,
        draws: impl IntoIterator<Item = &'d Draw>,
    ) -> Result<Self, Error> {
        let draws = draws
            .into_iter()
            .map(|d| {
                let index = instances.dense(d.keys());
                for (f, &i) in Frequency::ALL.iter().zip(&index) {
                    match i {
                        FREED => return Err(Error::StaleHandle(*f)),
                        NOT_FLUSHED => return Err(Error::NotFlushed(*f)),
                        _ => {}
                    }
                }
                Ok((d.shader, index))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { tag, frees: instances.frees(), draws })
    }

    /// Whether the list still holds for a manager with this tag and instance table.
    #[inline]
    pub(crate) fn check(&self, tag: u32, instances: &InstanceTable) -> Result<(), Error> {
        match self.tag == tag && self.frees == instances.frees() {
            true => Ok(()),
            false => Err(Error::StaleList),
        }
    }

    /// The resolved draws, in order.
    #[inline]
    pub(crate) fn draws(&self) -> &[(ShaderId, [u32; 4])] {
        &self.draws
    }

    /// The number of draws.
    #[inline]
    pub fn len(&self) -> usize {
        self.draws.len()
    }

    /// Whether the list has no draws.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.draws.is_empty()
    }
}
