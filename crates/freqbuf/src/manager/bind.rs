//! The binder's entry points that build bind groups on a miss, which take
//! the manager (binding/ cannot call up to it), and `Manager::prepare` and
//! `Manager::state`, which freeze the binding state for shared access.

use super::Manager;
use crate::binding::{BindState, BindTarget, Binder, Draw, DrawList, Recorder};
use crate::error::Error;
use crate::limits::MAX_GROUPS;

impl Manager {
    /// Resolves the handles of `draws` once, for [`Binder::bind_list`] to bind
    /// frame after frame without a handle lookup per draw. Make it after the
    /// flush that made its instances drawable, and again after any instance
    /// is freed. Cost: one handle lookup per instance of each draw.
    pub fn draw_list<'d>(&self, draws: impl IntoIterator<Item = &'d Draw>) -> Result<DrawList, Error> {
        DrawList::new(self.registry.tag(), &self.instances, draws)
    }

    /// Builds every bind group `draws` need and returns the frozen state
    /// that binders with shared access ([`Binder::bind_prepared`]) read, on
    /// as many threads as the application likes. Call it after the flush, and
    /// again for new draws or when [`Manager::generation`] moves; between
    /// those, groups stay built and [`Manager::state`] gives the state again.
    ///
    /// Cost: one exclusive [`Binder::bind`] per draw, without a pass.
    pub fn prepare<'d>(&mut self, draws: impl IntoIterator<Item = &'d Draw>) -> Result<BindState<'_>, Error> {
        let mut binder = Binder::new();
        // Nothing is bound: the binder's calls into `NoPass` are not counted.
        let calls = self.stats.shared.set_bind_group_calls;
        let result = draws
            .into_iter()
            .try_for_each(|draw| binder.bind_with(self.draw_inputs(), &mut NoPass, draw, u32::MAX).map(drop));
        self.stats.shared.set_bind_group_calls = calls;
        result.map(|()| self.state())
    }

    /// The binding state as it is, frozen, for [`Binder::bind_prepared`]:
    /// the groups built so far by [`Manager::prepare`] and exclusive binds.
    /// Cost: none.
    #[inline]
    pub fn state(&self) -> BindState<'_> {
        BindState {
            registry: &self.registry,
            layouts: &self.layouts,
            slots: &self.slots,
            instances: &self.instances,
            groups: &self.groups,
            generation: self.generation(),
        }
    }
}

impl Binder {
    /// Binds every draw of `list` in order, calling `draw(pass, i, first)`
    /// after binding draw `i` so that the application sets its pipeline and
    /// vertex buffers and draws with instances `first..first + 1`. Bind groups
    /// are built as [`Binder::bind`] builds them; a stale list is
    /// [`Error::StaleList`] before anything is bound. The binder starts from
    /// nothing bound, and the list keeps the bind commands it made: while
    /// [`Manager::generation`] holds, the next call replays them.
    ///
    /// Cost: [`Binder::bind`] without the handle lookups, and one check per
    /// list; a replay, one `set_bind_group` per recorded command and no lookups.
    pub fn bind_list<P: BindTarget>(
        &mut self,
        manager: &mut Manager,
        pass: &mut P,
        list: &mut DrawList,
        draw: impl FnMut(&mut P, usize, u32),
    ) -> Result<(), Error> {
        self.bind_list_groups(manager, pass, list, 0..MAX_GROUPS as u32, draw)
    }

    /// Like [`Binder::bind_list`], but only for the group indices in `groups`
    /// (as [`Binder::bind_groups`]).
    pub fn bind_list_groups<P: BindTarget>(
        &mut self,
        manager: &mut Manager,
        pass: &mut P,
        list: &mut DrawList,
        groups: std::ops::Range<u32>,
        mut draw: impl FnMut(&mut P, usize, u32),
    ) -> Result<(), Error> {
        list.check(manager.registry.tag(), &manager.instances)?;
        let (mask, generation) = (mask(groups), manager.generation());
        if let Some(recorded) = list.recorded(generation, mask) {
            for i in 0..recorded.draws.len() {
                let first = recorded.replay(pass, i);
                draw(pass, i, first);
            }
            // What is bound now is the recording's last state, which this binder does not hold.
            self.reset();
            self.calls += recorded.calls();
            manager.stats.shared.set_bind_group_calls += recorded.calls();
            return Ok(());
        }
        // A recording replays from nothing bound, so it starts there.
        self.reset();
        let mut recorder = Recorder::new(pass, generation, mask);
        for (i, &(shader, index)) in list.draws().iter().enumerate() {
            let first = self.bind_resolved(manager.draw_inputs(), &mut recorder, shader, index, mask)?;
            recorder.end_draw(first);
            draw(recorder.pass, i, first);
        }
        list.keep(recorder.recorded);
        Ok(())
    }

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
        self.bind_with(manager.draw_inputs(), pass, draw, u32::MAX)
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
        self.bind_with(manager.draw_inputs(), pass, draw, mask(groups))
    }
}

/// A bind target that records nothing, for [`Manager::prepare`].
pub(super) struct NoPass;

impl BindTarget for NoPass {
    #[inline]
    fn set_bind_group(&mut self, _: u32, _: &wgpu::BindGroup, _: &[u32]) {}
}

/// The bit mask of the group indices in `groups`.
#[inline]
fn mask(groups: std::ops::Range<u32>) -> u32 {
    (groups.start..groups.end.min(MAX_GROUPS as u32)).fold(0u32, |m, g| m | 1 << g)
}
