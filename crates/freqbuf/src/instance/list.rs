//! `InstanceList`: handles of one frequency resolved to dense indices once,
//! for batches that write the same instances frame after frame.
//!
//! Use one where a renderer keeps a persistent set of objects and writes a
//! changing subset of them each frame: [`Batch::set_in`](crate::Batch::set_in)
//! then addresses an instance by its position in the list, with no handle
//! lookup (a random read in a table as large as the instance count: a cache
//! miss per write at 100,000 objects). It is the write side of a
//! [`DrawList`](crate::DrawList), with the same rule: it holds while no
//! instance of the manager is freed (a freed index may go to another
//! handle); after a free, writes through it are [`Error::StaleInstanceList`] until
//! it is made again. Write a changing set through handles
//! ([`Batch::set`](crate::Batch::set)).

use crate::errors::Error;
use crate::instance::handles::{InstanceId, InstanceTable};
use crate::slot::plan::Frequency;

/// Instances of one frequency by position, resolved once
/// ([`Manager::instance_list`](crate::Manager::instance_list)).
#[derive(Clone, Debug)]
pub struct InstanceList {
    tag: u32,
    frequency: Option<Frequency>,
    /// Instances freed in the manager when it was made.
    frees: u64,
    indices: Vec<u32>,
}

impl InstanceList {
    pub(crate) fn new(
        instances: &InstanceTable,
        ids: impl IntoIterator<Item = InstanceId>,
    ) -> Result<Self, Error> {
        let mut frequency = None;
        let indices = ids
            .into_iter()
            .map(|id| {
                match frequency {
                    None => frequency = Some(id.frequency()),
                    Some(first) if first != id.frequency() => {
                        return Err(Error::ListFrequencies { first, other: id.frequency() });
                    }
                    Some(_) => {}
                }
                instances.index(id)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { tag: instances.tag(), frequency, frees: instances.frees(), indices })
    }

    /// Instances in the list.
    #[inline]
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    /// Whether it holds no instance.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// The frequency of its instances (`None` when empty).
    #[inline]
    pub fn frequency(&self) -> Option<Frequency> {
        self.frequency
    }

    /// Every dense index by position, while the list holds in `instances`.
    pub(crate) fn resolved(&self, instances: &InstanceTable) -> Result<&[u32], Error> {
        if self.tag != instances.tag() || self.frees != instances.frees() {
            return Err(Error::StaleInstanceList);
        }
        Ok(&self.indices)
    }

    /// The dense index at `position`, while the list holds in `instances`.
    #[inline]
    pub(crate) fn index(&self, instances: &InstanceTable, position: usize) -> Result<u32, Error> {
        if self.tag != instances.tag() || self.frees != instances.frees() {
            return Err(Error::StaleInstanceList);
        }
        #[allow(
            clippy::unnecessary_lazy_evaluations,
            reason = "an Error built per call and dropped cost 20% of batch writes (docs/perf.md)"
        )]
        self.indices
            .get(position)
            .copied()
            .ok_or_else(|| Error::ListPosition { position, len: self.indices.len() })
    }
}
