//! `Manager::own_rows` and `Manager::write_rows`: slots whose rows the
//! application owns ([`crate::Rows`]).

use super::Manager;
use crate::errors::{Error, RowsErrorKind};
use crate::instance::list::{Indices, InstanceList};
use crate::slot::rows::Rows;
use crate::slot::shadow::Slot;
use crate::upload::{RowSet, RowsToPack};

impl Manager {
    /// Hands the slot of block `name` (its variable or struct name) to the
    /// application: freqbuf drops its CPU copy of the slot, every row is
    /// unwritten until [`Manager::write_rows`] packs it, and setting one of
    /// its members is [`ParamErrorKind::CallerOwned`](crate::error::ParamErrorKind::CallerOwned). A row of `T` must be
    /// as long as the block ([`RowsErrorKind::Size`]);
    /// use `u8` with [`Manager::write_rows_with`] to pack rows yourself.
    /// Handing a slot over twice gives the same rows. A slab pointer in
    /// the slot (a material element in each object's row) is then the
    /// application's to pack: [`Manager::slab_element`] gives the element.
    ///
    /// Cost: a pass over the slots; the slot's shadow is freed.
    pub fn own_rows<T: bytemuck::Pod>(&mut self, name: &str) -> Result<Rows<T>, Error> {
        let slot = self.registry.block(name, None)?;
        if std::mem::size_of::<T>() > 1 {
            self.check_row_size::<T>(slot)?;
        }
        self.slots[slot.index()].own_rows();
        Ok(Rows::new(slot))
    }

    /// [`Manager::own_rows`] for rows of a typed block
    /// ([`ShaderStruct`](crate::ShaderStruct), usually derived): every field
    /// is checked against the block's members once, here, as
    /// [`Manager::param_struct`] checks them, and every member must be one
    /// of its fields ([`RowsErrorKind::Missing`]).
    /// Write them with [`Manager::write_struct_rows`].
    pub fn own_struct_rows<T: crate::ShaderStruct>(&mut self, name: &str) -> Result<Rows<T>, Error> {
        let param = self.registry.struct_param::<T>(name, None)?;
        let slot = param.block.slot;
        // The struct is the rows' one source: every member must be a field
        // (padding members are not members, and stay zero).
        let missing = self.registry[slot]
            .members()
            .iter()
            .map(|m| m.member.name.as_str())
            .filter(|&n| !T::MEMBERS.iter().any(|f| f.name == n))
            .map(str::to_owned)
            .collect::<Vec<_>>();
        if !missing.is_empty() {
            let rust = std::any::type_name::<T>().rsplit("::").next().unwrap_or("row");
            return Err(self.rows_error(slot, RowsErrorKind::Missing { rust, missing }));
        }
        self.slots[slot.index()].own_rows();
        Ok(Rows::new(slot))
    }

    /// [`Manager::write_rows`] for typed rows ([`Manager::own_struct_rows`]):
    /// each row's fields are written in their buffer form straight into
    /// staging, the layout having been checked when the rows were handed over.
    pub fn write_struct_rows<T: crate::ShaderStruct>(
        &mut self,
        rows: &Rows<T>,
        list: &InstanceList,
        all: &[T],
        changed: impl IntoIterator<Item = usize>,
    ) -> Result<(), Error> {
        self.check_array(rows, list, all.len())?;
        // The block's row, its padding members zero.
        let block = self.slots.get(rows.slot.index()).map_or(0, |s| s.size().next_multiple_of(4));
        let mut scratch = vec![0u8; block.max(T::SIZE) as usize];
        self.write_rows_with(rows, list, changed, |p, mut out| {
            all[p].write_gpu(&mut scratch);
            out.copy_from_slice(&scratch[..out.len()]);
        })
    }

    /// Writes the rows at `changed` (positions in `list`) from `all`, the
    /// application's whole array in the order of `list`, and every row still
    /// unwritten (made since, or lost in a failed flush, a re-lay or
    /// [`Manager::recreate`]) that `list` holds. The rows are packed straight
    /// into staging memory and reach the GPU at the next flush; nothing is
    /// kept but the indices of rows still unwritten.
    ///
    /// Refused before anything is written: a stale or short list or array,
    /// a list of another frequency, a `T` that is no longer as long as the
    /// block, a position past the list. A failed allocation leaves the rows
    /// it did not pack unwritten, so the next write packs them.
    ///
    /// Cost: per row, one copy of its bytes and, where the rows are scattered,
    /// eight bytes of table; the flush moves runs of consecutive rows with
    /// one copy each (up to 32) or one scatter dispatch. Unwritten rows add a
    /// pass over the list.
    pub fn write_rows<T: bytemuck::Pod>(
        &mut self,
        rows: &Rows<T>,
        list: &InstanceList,
        all: &[T],
        changed: impl IntoIterator<Item = usize>,
    ) -> Result<(), Error> {
        self.check_row_size::<T>(rows.slot)?;
        self.check_array(rows, list, all.len())?;
        let size = std::mem::size_of::<T>();
        let row = size.next_multiple_of(4);
        // Rows consecutive in the array and in the buffer go as one copy.
        let ahead = |p: usize| crate::write::behind::prefetch(bytemuck::bytes_of(&all[p]));
        self.write_rows_by(rows, list, changed, &ahead, |p, n, mut out| match size == row {
            // One row: a copy of a constant size, which inlines.
            true if n == 1 => out.copy_from_slice(bytemuck::bytes_of(&all[p])),
            true => out.copy_from_slice(bytemuck::cast_slice(&all[p..p + n])),
            false => (0..n).for_each(|k| {
                let mut one = out.split_off(..row).expect("a row each");
                one.slice(..size).copy_from_slice(bytemuck::bytes_of(&all[p + k]));
            }),
        })
    }

    /// [`Manager::write_rows`] with the rows packed by `pack(position, row)`:
    /// `row` is the block's bytes (its size in whole words) in staging
    /// memory, write-only (`copy_from_slice`, `write_iter`), for the instance
    /// at `position` of `list`. For an application whose rows are not one
    /// `Pod` array. Called once per row written, in ascending buffer order.
    pub fn write_rows_with<T>(
        &mut self,
        rows: &Rows<T>,
        list: &InstanceList,
        changed: impl IntoIterator<Item = usize>,
        mut pack: impl FnMut(usize, wgpu::WriteOnly<'_, [u8]>),
    ) -> Result<(), Error> {
        let row = self.slots.get(rows.slot.index()).map_or(0, |s| s.size().next_multiple_of(4)) as usize;
        self.write_rows_by(rows, list, changed, &|_| {}, |p, n, mut out| {
            for k in 0..n {
                pack(p + k, out.split_off(..row).expect("a row each"));
            }
        })
    }

    /// Both writes: `pack(position, n, bytes)` writes `n` rows from `position`
    /// on; `ahead(position)` is told a row packed a few rows later.
    fn write_rows_by<T>(
        &mut self,
        rows: &Rows<T>,
        list: &InstanceList,
        changed: impl IntoIterator<Item = usize>,
        ahead: &impl Fn(usize),
        mut pack: impl FnMut(usize, usize, wgpu::WriteOnly<'_, [u8]>),
    ) -> Result<(), Error> {
        let s = rows.slot;
        if !self.registry.owns_slot(s) {
            return Err(Error::Foreign("rows"));
        }
        let slot = &self.slots[s.index()];
        if let Some(f) = list.frequency().filter(|&f| f != slot.frequency()) {
            return Err(self.rows_error(s, RowsErrorKind::Frequency { list: f, slot: slot.frequency() }));
        }
        let indices = list.resolved(&self.instances)?;
        let mut pairs = std::mem::take(&mut self.uploader.row_pairs);
        pairs.clear();
        let paired = match indices {
            // The table's reads miss the cache for a scattered subset at
            // 100,000 objects: every one is fetched before the first is read.
            Indices::Table(_) => {
                let mut positions = std::mem::take(&mut self.uploader.row_positions);
                positions.clear();
                positions.extend(changed.into_iter().inspect(|&p| indices.prefetch(p)));
                let paired = pair_changed(indices, positions.iter().copied(), &mut pairs);
                self.uploader.row_positions = positions;
                paired
            }
            Indices::Consecutive { .. } => pair_changed(indices, changed, &mut pairs),
        };
        let Changed { mut ascending, mut runs, mut run } = match paired {
            Ok(c) => c,
            Err(e) => {
                self.uploader.row_pairs = pairs;
                return Err(e);
            }
        };
        let slot = &mut self.slots[s.index()];
        if slot.dirty_count() > 0 {
            if let Some((i0, p0, n)) = run.take() {
                pairs.extend((0..n).map(|k| (i0 + k, p0 + k)));
            }
            pair_unwritten(slot, indices, &mut pairs);
            ascending = false;
        }
        if !ascending {
            runs = sort_pairs(&mut pairs);
        }
        let rows_set = match run {
            Some((index, position, len)) => RowSet::Run { index, position, len },
            None if pairs.is_empty() => {
                self.uploader.row_pairs = pairs;
                return Ok(());
            }
            None => RowSet::Pairs(&pairs),
        };
        let what = RowsToPack { slot: s.index(), rows: rows_set, runs };
        let staged = self.uploader.stage_rows(&self.device, &self.slots[s.index()], what, &mut pack, ahead);
        let result = staged.map_err(|(e, from)| {
            // The rows from the failed allocation on wait for the next write.
            rows_set
                .sub_from(from)
                .stretches(|i, _, n| (i..i + n).for_each(|i| self.slots[s.index()].mark_unwritten(i)));
            e
        });
        self.uploader.row_pairs = pairs;
        result
    }

    /// The element of instance `id` in every slab and table of its frequency
    /// (its dense index): what an application that owns the rows holding
    /// slab pointers ([`Manager::own_rows`]) packs into them, where
    /// [`Manager::link`] would write it otherwise. Holds until `id` is freed.
    pub fn slab_element(&self, id: impl Into<crate::InstanceId>) -> Result<u32, Error> {
        self.instances.index(id.into())
    }

    /// A stale list first (the root of a short array after a free), then an
    /// array of `len` rows shorter than the list.
    fn check_array<T>(&self, rows: &Rows<T>, list: &InstanceList, len: usize) -> Result<(), Error> {
        list.resolved(&self.instances)?;
        if len < list.len() {
            return Err(self.rows_error(rows.slot, RowsErrorKind::Short { len, list: list.len() }));
        }
        Ok(())
    }

    fn check_row_size<T>(&self, slot: crate::SlotId) -> Result<(), Error> {
        if !self.registry.owns_slot(slot) {
            return Err(Error::Foreign("rows"));
        }
        let block = self.slots[slot.index()].size();
        let size = std::mem::size_of::<T>();
        if size != block as usize {
            let rust = std::any::type_name::<T>().rsplit("::").next().unwrap_or("row");
            return Err(self.rows_error(slot, RowsErrorKind::Size { rust, size, block }));
        }
        Ok(())
    }

    fn rows_error(&self, slot: crate::SlotId, kind: RowsErrorKind) -> Error {
        Error::Rows { binding: self.registry[slot].binding(), kind }
    }
}

/// What one pass over the changed positions found.
struct Changed {
    /// Rows ascending and distinct: no sort needed.
    ascending: bool,
    /// Runs of consecutive rows, where `ascending`.
    runs: usize,
    /// Everything moved in order: rows and positions both stepping by one
    /// (row, position, count), with nothing in `pairs`.
    run: Option<(u32, u32, u32)>,
}

/// (row, position) of each changed position of a list resolved to `indices`,
/// into `pairs`; while rows and positions step together from the first,
/// only the run's ends are kept. Branch-light: a frame's changes are
/// scattered, so a branch on each pair's neighbour would mispredict.
#[inline]
fn pair_changed(
    indices: Indices<'_>,
    changed: impl IntoIterator<Item = usize>,
    pairs: &mut Vec<(u32, u32)>,
) -> Result<Changed, Error> {
    let mut changed = changed.into_iter();
    let Some(p) = changed.next() else {
        return Ok(Changed { ascending: true, runs: 0, run: None });
    };
    let row = |p: usize| indices.at(p);
    let (first, p0) = (row(p)?, p as u32);
    let (mut ascending, mut runs, mut last) = (true, 1usize, first);
    // The leading run of rows and positions both stepping by one.
    let mut lead = 1u32;
    for p in changed.by_ref() {
        let i = row(p)?;
        if i != first.wrapping_add(lead) || p as u32 != p0.wrapping_add(lead) {
            pairs.extend((0..lead).map(|k| (first + k, p0 + k)));
            ascending &= i > last;
            runs += usize::from(i != last.wrapping_add(1));
            pairs.push((i, p as u32));
            last = i;
            break;
        }
        lead += 1;
        last = i;
    }
    if pairs.is_empty() {
        return Ok(Changed { ascending, runs, run: Some((first, p0, lead)) });
    }
    for p in changed {
        let i = row(p)?;
        ascending &= i > last;
        runs += usize::from(i != last.wrapping_add(1));
        pairs.push((i, p as u32));
        last = i;
    }
    Ok(Changed { ascending, runs, run: None })
}

/// The slot's unwritten rows that the list holds join `pairs`, to come from
/// the caller's array too; the others stay unwritten.
fn pair_unwritten(slot: &mut Slot, indices: Indices<'_>, pairs: &mut Vec<(u32, u32)>) {
    let mut at = vec![u32::MAX; slot.instances() as usize];
    indices.for_each(|p, i| at[i as usize] = p as u32);
    let mut keep = Vec::new();
    slot.take_unwritten(u32::MAX, |i| match at[i as usize] {
        u32::MAX => keep.push(i),
        p => pairs.push((i, p)),
    });
    keep.into_iter().for_each(|i| slot.mark_unwritten(i));
}

/// Sorts `pairs` by row, keeping the later position of a row given twice, as
/// a second write would; returns the runs of consecutive rows.
fn sort_pairs(pairs: &mut Vec<(u32, u32)>) -> usize {
    pairs.sort_by_key(|p| p.0);
    pairs.dedup_by(|later, earlier| {
        let same = later.0 == earlier.0;
        if same {
            earlier.1 = later.1;
        }
        same
    });
    1 + pairs.windows(2).filter(|w| w[1].0 != w[0].0 + 1).count()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// `pair_changed` against the plain reading: each position's row,
        /// whether rows ascend, their runs, and a leading run kept as its
        /// ends only when it is everything.
        #[test]
        fn pairs_are_each_positions_row(
            gaps in proptest::collection::vec(1u32..3, 1..48),
            lead in (0usize..48, 0usize..6),
            picks in proptest::collection::vec(0usize..48, 0..40),
            sorted in any::<bool>(),
            swap in (0usize..48, 0usize..48),
        ) {
            // Rows ascending with positions, as a list of objects made in
            // order with some freed, two of them swapped (rows stepping where
            // positions do not); a leading stretch, then picks.
            let mut indices = gaps.iter().scan(0, |at, g| { *at += g; Some(*at) }).collect::<Vec<u32>>();
            let len = indices.len();
            indices.swap(swap.0 % len, swap.1 % len);
            let mut picks = picks.into_iter().map(|p| p % len).collect::<Vec<_>>();
            if sorted {
                picks.sort_unstable();
            }
            let changed = (lead.0..lead.0 + lead.1).map(|p| p % len).chain(picks).collect::<Vec<_>>();
            // The list's table, and the rule of a list of consecutive instances.
            let consecutive = (3..3 + len as u32).collect::<Vec<_>>();
            let forms = [
                (Indices::Table(&indices), &indices),
                (Indices::Consecutive { first: 3, len }, &consecutive),
            ];
            for (form, indices) in forms {
                let mut pairs = Vec::new();
                let c = pair_changed(form, changed.iter().copied(), &mut pairs).unwrap();
                let model = changed.iter().map(|&p| (indices[p], p as u32)).collect::<Vec<_>>();
                let stepping = model.windows(2).all(|w| w[1].0 == w[0].0 + 1 && w[1].1 == w[0].1 + 1);
                match c.run {
                    Some((i, p, n)) => {
                        prop_assert!(stepping && pairs.is_empty());
                        prop_assert_eq!((i, p, n as usize), (model[0].0, model[0].1, model.len()));
                    }
                    None => prop_assert_eq!(&pairs, &model),
                }
                prop_assert_eq!(c.ascending, model.windows(2).all(|w| w[1].0 > w[0].0));
                if c.ascending {
                    let runs = model.chunk_by(|a, b| b.0 == a.0 + 1).count();
                    prop_assert_eq!(c.runs, runs);
                }
            }
        }
    }

    #[test]
    fn rows_that_step_where_positions_do_not_are_one_run_of_pairs() {
        let mut pairs = Vec::new();
        let c = pair_changed(Indices::Table(&[0, 5, 1, 2]), [0, 2, 3], &mut pairs).unwrap();
        assert_eq!((c.ascending, c.runs, c.run, pairs), (true, 1, None, vec![(0, 0), (1, 2), (2, 3)]));
    }

    #[test]
    fn a_position_past_the_list_is_refused() {
        for indices in [Indices::Table(&[0, 1, 2]), Indices::Consecutive { first: 0, len: 3 }] {
            let e = pair_changed(indices, [1, 3], &mut Vec::new()).err();
            assert!(matches!(e, Some(Error::ListPosition { position: 3, len: 3 })), "{e:?}");
        }
    }
}
