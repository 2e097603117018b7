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
    /// Where the list is the instances `first..first + len` in order (made
    /// so, nothing freed since), their first: positions map by addition,
    /// with no read of `indices`.
    first: Option<u32>,
}

/// A list's dense indices by position, while it holds
/// ([`InstanceList::resolved`]): its table, or the rule of a list that is
/// consecutive instances in order. A changing subset's lookups in the table
/// miss the cache at 100,000 objects; the rule reads nothing.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Indices<'a> {
    Table(&'a [u32]),
    Consecutive { first: u32, len: usize },
}

impl Indices<'_> {
    /// The dense index at `position`, or `ListPosition` past the end.
    #[inline]
    pub(crate) fn at(self, position: usize) -> Result<u32, Error> {
        let found = match self {
            Indices::Table(t) => t.get(position).copied(),
            Indices::Consecutive { first, len } => (position < len).then(|| first + position as u32),
        };
        #[allow(
            clippy::unnecessary_lazy_evaluations,
            reason = "an Error built per call and dropped cost 20% of batch writes (docs/perf.md)"
        )]
        found.ok_or_else(|| Error::ListPosition { position, len: self.len() })
    }

    pub(crate) fn len(self) -> usize {
        match self {
            Indices::Table(t) => t.len(),
            Indices::Consecutive { len, .. } => len,
        }
    }

    /// Fetches the index at `position` into the cache, where it is read
    /// from the table; nothing where it is past the end, or computed.
    #[inline]
    pub(crate) fn prefetch(self, position: usize) {
        if let Indices::Table(t) = self {
            if let Some(i) = t.get(position) {
                crate::write::behind::prefetch(bytemuck::bytes_of(i));
            }
        }
    }

    /// Calls `f(position, index)` for every position.
    pub(crate) fn for_each(self, mut f: impl FnMut(usize, u32)) {
        match self {
            Indices::Table(t) => t.iter().enumerate().for_each(|(p, &i)| f(p, i)),
            Indices::Consecutive { first, len } => (0..len).for_each(|p| f(p, first + p as u32)),
        }
    }
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
        // Every index is a u32, so `first + position` is one for every position.
        let first = indices
            .first()
            .copied()
            .filter(|&f| indices.iter().enumerate().all(|(p, &i)| i as usize == f as usize + p));
        Ok(Self { tag: instances.tag(), frequency, frees: instances.frees(), indices, first })
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
    pub(crate) fn resolved(&self, instances: &InstanceTable) -> Result<Indices<'_>, Error> {
        if self.tag != instances.tag() || self.frees != instances.frees() {
            return Err(Error::StaleInstanceList);
        }
        Ok(match self.first {
            Some(first) => Indices::Consecutive { first, len: self.indices.len() },
            None => Indices::Table(&self.indices),
        })
    }

    /// The dense index at `position`, while the list holds in `instances`.
    #[inline]
    pub(crate) fn index(&self, instances: &InstanceTable, position: usize) -> Result<u32, Error> {
        self.resolved(instances)?.at(position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::handles::ObjectId;

    /// Each position's index as the table has it, checked against the form
    /// the list resolves to, one past the end included. Returns the rule
    /// (first, len) where the list resolves to one.
    fn agrees(list: &InstanceList, t: &InstanceTable) -> Option<(u32, usize)> {
        let form = list.resolved(t).expect("holds");
        for p in 0..=list.len() {
            let table = Indices::Table(&list.indices).at(p);
            assert_eq!(form.at(p).ok(), table.as_ref().ok().copied(), "position {p}");
            assert_eq!(form.at(p).is_err(), p == list.len());
        }
        match form {
            Indices::Table(_) => None,
            Indices::Consecutive { first, len } => Some((first, len)),
        }
    }

    #[test]
    fn a_list_of_consecutive_instances_resolves_by_its_rule_others_by_their_table() {
        let mut t = InstanceTable::new(7);
        let ids = (0..6).map(|_| t.insert::<ObjectId>(None).0).collect::<Vec<_>>();
        let list = |ids: &[ObjectId], t: &InstanceTable| {
            InstanceList::new(t, ids.iter().map(|&i| i.into())).unwrap()
        };
        let whole = list(&ids, &t);
        assert_eq!(agrees(&whole, &t), Some((0, 6)));
        assert_eq!(agrees(&list(&ids[2..5], &t), &t), Some((2, 3)));
        let swapped = [ids[1], ids[0], ids[2]];
        assert_eq!(agrees(&list(&swapped, &t), &t), None);
        // After a free, the list made again over the survivors is not
        // consecutive: their indices skip the freed one or fill it.
        t.remove(ids[1].into()).unwrap();
        assert!(matches!(whole.resolved(&t), Err(Error::StaleInstanceList)));
        let survivors = [ids[0], ids[2], ids[3], ids[4], ids[5]];
        let again = list(&survivors, &t);
        assert_eq!(agrees(&again, &t), None);
        for (p, &id) in survivors.iter().enumerate() {
            assert_eq!(again.index(&t, p).unwrap(), t.index(id.into()).unwrap());
        }
    }
}
