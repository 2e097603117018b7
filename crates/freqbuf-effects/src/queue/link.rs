//! `RenderQueue::link`: the items queued since the last call linked to
//! their materials' slab elements before the flush, and ordered front to
//! back where their materials bind nothing.

use super::{Entry, RenderQueue, listed, placement};
use crate::effect::Effects;
use crate::error::MaterialError;
use crate::material::Materials;

impl RenderQueue {
    /// Links the items inserted or updated since the last call
    /// ([`freqbuf::Manager::link`]): where an item's shader finds its
    /// material in a slab (Bevy's bindless materials), its object's member
    /// gets the material's element. Call it before the flush that precedes
    /// the encode; an item not linked and flushed is
    /// [`freqbuf::Error::Unlinked`] or [`freqbuf::Error::NotFlushed`] at
    /// encode. Registers the items' shaders on first use. Returns how many
    /// items it linked. An item whose shader binds nothing per material is
    /// then ordered by pipeline and front to back (ascending depth), since
    /// its materials cost no bind. Cost: a shader lookup per item linked,
    /// and per slab a pointer compared.
    pub fn link(
        &mut self,
        fx: &mut Effects,
        mats: &Materials,
        fb: &mut freqbuf::Manager,
    ) -> Result<usize, MaterialError> {
        let mut draws = Vec::with_capacity(self.unlinked.len());
        let mut freed = Vec::new();
        for &id in &self.unlinked {
            let Some(Entry { item, free, .. }) = self.items.get(id.key) else { continue };
            let flags = mats.checked_flags(item.material)?;
            let shader = fx.pass_shader(fb, item.pass, flags)?;
            draws.push(listed::draw(shader, item));
            let now = !fb.registry().binds_per_instance(shader, freqbuf::Frequency::Material);
            if now != *free {
                freed.push((id, now, placement(fx, mats, item, now)?.1));
            }
        }
        fb.link(&draws)?;
        for (id, free, key) in freed {
            let Some(entry) = self.items.get_mut(id.key) else { continue };
            let bin = self.bins.entry(entry.bin.clone()).or_default();
            bin.removed.push((entry.key, id));
            bin.added.push(id);
            (entry.key, entry.free) = (key, free);
        }
        self.unlinked.clear();
        Ok(draws.len())
    }
}
