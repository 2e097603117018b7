//! What `Manager` gives the binding layer: the binder's entries that take
//! the manager (`bind`, `bind_groups`, `bind_list`, `bind_list_groups`,
//! `draw_indirect`), each lending a `BindContext` to the bind path in
//! `binding/`; draw lists and links; and `Manager::prepare` and
//! `Manager::state`, which freeze the binding state for shared access.
//! Written here so that `binding/` never names the manager.

use super::Manager;
use crate::binding::write_links;
use crate::binding::{
    ALL_GROUPS, BindContext, BindState, BindTarget, Binder, Draw, DrawList, IndirectDraws, Parts, mask,
};
use crate::errors::Error;
use crate::instance::handles::NOT_GIVEN;
use crate::slot::plan::Frequency;

impl Binder {
    /// Sets the bind groups and dynamic offsets `draw` needs that differ from
    /// what this pass has bound, and returns the instance index to draw with:
    /// `pass.draw(vertices, i..i + 1)`. It is the draw's element in the
    /// shader's array slots (0 for a shader without them), so pass it even
    /// where the shader reads none.
    ///
    /// Cost: a few array lookups per group; a bind group is built only the
    /// first time a (layout, owner) pair is drawn, or after its inputs change.
    #[inline]
    pub fn bind<P: BindTarget>(
        &mut self,
        manager: &mut Manager,
        pass: &mut P,
        draw: &Draw,
    ) -> Result<u32, Error> {
        self.bind_counted(&mut manager.bind_context(), pass, draw, ALL_GROUPS)
    }

    /// Like [`Binder::bind`], but only for the group indices in `groups`; the
    /// caller binds the others itself (a group it manages outside freqbuf).
    #[inline]
    pub fn bind_groups<P: BindTarget>(
        &mut self,
        manager: &mut Manager,
        pass: &mut P,
        draw: &Draw,
        groups: std::ops::Range<u32>,
    ) -> Result<u32, Error> {
        self.bind_counted(&mut manager.bind_context(), pass, draw, mask(groups))
    }

    /// Binds every draw of `list` in order, calling `draw(pass, i, first)`
    /// after binding draw `i` so that the application sets its pipeline and
    /// vertex buffers and draws with instances `first..first + 1`. Bind groups
    /// are built as [`Binder::bind`] builds them; a stale list is
    /// [`Error::StaleList`] before anything is bound. The binder starts from
    /// nothing bound, and the list keeps the bind commands it made: while
    /// [`crate::Manager::generation`] holds, the next call replays them.
    ///
    /// A shader that reads a slab's element from its immediate data gets it
    /// set in the bind, which a later `set_pipeline` of another layout
    /// clears: for such lists set draw 0's pipeline before the call, and in
    /// `draw` set the next draw's pipeline after drawing.
    ///
    /// Cost: [`Binder::bind`] without the handle lookups, and one check per
    /// list; a replay, one `set_bind_group` (or `set_immediates`) per recorded
    /// command and no lookups.
    pub fn bind_list<P: BindTarget>(
        &mut self,
        manager: &mut Manager,
        pass: &mut P,
        list: &mut DrawList,
        draw: impl FnMut(&mut P, usize, u32),
    ) -> Result<(), Error> {
        self.bind_list_in(&mut manager.bind_context(), pass, list, ALL_GROUPS, draw)
    }

    /// Like [`Binder::bind_list`], but only for the group indices in `groups`
    /// (as [`Binder::bind_groups`]).
    pub fn bind_list_groups<P: BindTarget>(
        &mut self,
        manager: &mut Manager,
        pass: &mut P,
        list: &mut DrawList,
        groups: std::ops::Range<u32>,
        draw: impl FnMut(&mut P, usize, u32),
    ) -> Result<(), Error> {
        self.bind_list_in(&mut manager.bind_context(), pass, list, mask(groups), draw)
    }

    /// Draws every draw of `list` with the geometry `draws` gives it: the
    /// bind commands [`Binder::bind_list`] would set, and one
    /// `multi_draw_indirect` (or `multi_draw_indexed_indirect`) call per run
    /// of draws between them. A run also ends where the shader or the
    /// geometry batch changes; there `set(pass, i)` is called with the run's
    /// first draw, before its bind commands, so that the application sets
    /// the pipeline and the vertex and index buffers of draw `i`. Each draw's
    /// `first_instance` is its element in the shader's array slots; a slab
    /// read through the immediate data ends a run where its element changes.
    ///
    /// Without `Features::INDIRECT_FIRST_INSTANCE` or
    /// `DownlevelFlags::INDIRECT_EXECUTION` the same runs are drawn with one
    /// `draw` per draw, which gives the same image.
    ///
    /// A stale list is [`Error::StaleList`], and geometry for another number
    /// of draws [`Error::Indirect`], before anything is bound. Cost, while
    /// the list, the manager's generation and the geometry hold: one
    /// `set_bind_group` (or `set_immediates`) per recorded command and one
    /// call per run, no
    /// per-draw work and no upload. Otherwise one pass over the draws to plan
    /// the runs, and one `write_buffer` of the arguments that changed.
    pub fn draw_indirect(
        &mut self,
        manager: &mut Manager,
        queue: &wgpu::Queue,
        pass: &mut wgpu::RenderPass<'_>,
        list: &mut DrawList,
        draws: &mut IndirectDraws,
        set: impl FnMut(&mut wgpu::RenderPass<'_>, usize),
    ) -> Result<(), Error> {
        self.draw_indirect_in(&mut manager.bind_context(), queue, pass, list, draws, set)
    }
}

impl Manager {
    /// What every bind reads, borrowed once. Cost: a few pointer copies and
    /// the generation (two additions).
    #[inline]
    pub(crate) fn parts(&self) -> Parts<'_> {
        Parts {
            registry: &self.registry,
            layouts: &self.layouts,
            slots: &self.slots,
            instances: &self.instances,
            generation: self.generation(),
        }
    }

    /// Lends the binding state for one binder call: the parts (spelled out
    /// here, since the groups and statistics are lent mutably beside them).
    /// Cost: as [`Manager::parts`].
    #[inline]
    pub(crate) fn bind_context(&mut self) -> BindContext<'_> {
        BindContext {
            parts: Parts {
                registry: &self.registry,
                layouts: &self.layouts,
                slots: &self.slots,
                instances: &self.instances,
                generation: self.generation(),
            },
            groups: &mut self.groups,
            device: &self.device,
            device_serial: self.device_serial,
            caps: &self.caps,
            stats: &mut self.stats,
        }
    }
}

impl Manager {
    /// Resolves the handles of `draws` once, for [`Binder::bind_list`] to bind
    /// frame after frame without a handle lookup per draw, and links them
    /// ([`Manager::link`]). Make it after the flush that made its instances
    /// drawable, and again after any instance is freed; where it wrote a
    /// slab pointer, flush again before binding it ([`Error::NotFlushed`]).
    /// Cost: one handle lookup per instance of each draw, and per slab a
    /// pointer compared.
    pub fn draw_list<'d>(&mut self, draws: impl IntoIterator<Item = &'d Draw>) -> Result<DrawList, Error> {
        let mut list = DrawList::new(self.registry.tag(), &self.instances, draws)?;
        write_links(&self.registry, &mut self.slots, &mut self.instances, list.draws())?;
        list.linked(&self.registry, self.instances.links());
        Ok(list)
    }

    /// Writes into each draw's instances the elements of the slabs its
    /// shader finds through them: the draw's material element into its
    /// object's member (Bevy's `material_bind_group_slot`), only the bits
    /// the shader's mask reads, and only where it differs. The next flush
    /// uploads them; until then binding such a draw is
    /// [`Error::NotFlushed`]. An object linked to one material and then to
    /// another makes every draw list made before stale ([`Error::StaleList`]).
    /// Instances made since the last flush may be linked: the flush uploads
    /// the pointers with their values. Shaders without slabs link nothing.
    /// Cost: one handle lookup per instance of each draw, and per slab a
    /// pointer compared.
    pub fn link<'d>(&mut self, draws: impl IntoIterator<Item = &'d Draw>) -> Result<(), Error> {
        let resolved = draws
            .into_iter()
            .map(|d| {
                let mut index = [NOT_GIVEN; Frequency::COUNT];
                for f in Frequency::ALL {
                    if let Some(id) = d.instance(f) {
                        index[f.index()] = self.instances.index(id)?;
                    }
                }
                Ok((d.shader(), index))
            })
            .collect::<Result<Vec<_>, Error>>()?;
        write_links(&self.registry, &mut self.slots, &mut self.instances, &resolved)
    }

    /// Builds every bind group `draws` need and returns the frozen state
    /// that binders with shared access ([`Binder::bind_prepared`]) read, on
    /// as many threads as the application likes. Call it after the flush, and
    /// again for new draws or when [`Manager::generation`] moves; between
    /// those, groups stay built and [`Manager::state`] gives the state again.
    /// Nothing is bound, so no `set_bind_group` call is counted.
    ///
    /// Cost: one exclusive [`Binder::bind`] per draw, without a pass.
    pub fn prepare<'d>(&mut self, draws: impl IntoIterator<Item = &'d Draw>) -> Result<BindState<'_>, Error> {
        Binder::build_groups(&mut self.bind_context(), draws)?;
        Ok(self.state())
    }

    /// The binding state as it is, frozen, for [`Binder::bind_prepared`]:
    /// the groups built so far by [`Manager::prepare`] and exclusive binds.
    /// Cost: none.
    #[inline]
    pub fn state(&self) -> BindState<'_> {
        BindState { parts: self.parts(), groups: &self.groups }
    }
}
