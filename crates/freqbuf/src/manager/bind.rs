//! What `Manager` gives the binding layer: the borrow every binder entry
//! that builds groups takes ([`BindSource`]), draw lists, and
//! `Manager::prepare` and `Manager::state`, which freeze the binding state
//! for shared access. The binder itself lives in `binding/`.

use super::Manager;
use crate::binding::write_links;
use crate::binding::{BindContext, BindSource, BindState, Binder, Draw, DrawList};
use crate::errors::Error;
use crate::instance::handles::NOT_GIVEN;
use crate::slot::plan::Frequency;

impl BindSource for Manager {
    #[inline]
    fn bind_context(&mut self) -> BindContext<'_> {
        BindContext {
            generation: self.generation(),
            registry: &self.registry,
            layouts: &self.layouts,
            slots: &self.slots,
            instances: &self.instances,
            groups: &mut self.groups,
            device: &self.device,
            device_serial: self.device_serial,
            caps: &self.caps,
            stats: &mut self.stats.shared,
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
