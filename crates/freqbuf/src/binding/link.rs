//! Slab pointers (`slot/slab.rs`): written into the draws' instances by
//! `Manager::link` and `Manager::draw_list`, checked by the bind path.

use crate::errors::Error;
use crate::id::ShaderId;
use crate::instance::handles::{InstanceTable, NOT_GIVEN, checked};
use crate::registry::Registry;
use crate::slot::plan::{BindingPoint, Frequency};
use crate::slot::shadow::Slot;
use crate::slot::slab::Link;

/// Writes every pointer `draws` need into their instances' shadows (a
/// write only where one differs). Errs before writing anything on a freed
/// handle or an element the mask cannot hold.
pub(crate) fn write_links(
    registry: &Registry,
    slots: &mut [Slot],
    instances: &mut InstanceTable,
    draws: &[(ShaderId, [u32; Frequency::COUNT])],
) -> Result<(), Error> {
    let mut writes = Vec::new();
    for &(shader, index) in draws {
        // An immediate needs no write: the binder sets it per draw.
        for (link, k) in registry.links(shader).iter().filter_map(|l| Some((l, l.from?))) {
            let (from, to) = (&slots[k], &slots[link.to]);
            let (i, e) = (index[from.frequency().index()], index[to.frequency().index()]);
            if i == NOT_GIVEN || e == NOT_GIVEN {
                continue; // the bind names the missing instance
            }
            let (i, e) = (checked(i, from.frequency())?, checked(e, to.frequency())?);
            if e & link.mask != e {
                return Err(slab_full(registry, shader, link, e));
            }
            // The application packs the pointers of rows it owns (`Manager::slab_element`).
            if !from.caller_owned() {
                writes.push((link, k, i, e));
            }
        }
    }
    for (link, k, i, e) in writes {
        let slot = &mut slots[k];
        let f = slot.frequency();
        let old = pointer(slot, i, link.offset).unwrap_or(0);
        let new = (old & !link.mask) | e;
        let links = instances.links_mut();
        let was = links.link(f, i);
        if new != old {
            slot.write(i, link.offset, &new.to_le_bytes());
            links.wrote(was);
        }
    }
    Ok(())
}

/// Element `e` does not fit the bits of `link`'s member.
#[cold]
pub(crate) fn slab_full(registry: &Registry, shader: ShaderId, link: &Link, e: u32) -> Error {
    let (slab, member) = slab_site(registry, link);
    Error::SlabFull { shader: registry[shader].name().to_owned(), slab, member, mask: link.mask, element: e }
}

/// The draw's element of `from` does not point at its element of the slab.
pub(crate) fn unlinked(
    registry: &Registry,
    shader: ShaderId,
    link: &Link,
    from: Frequency,
    to: Frequency,
) -> Error {
    let (slab, member) = slab_site(registry, link);
    Error::Unlinked { shader: registry[shader].name().to_owned(), slab, member, from, to }
}

/// The slab's binding point and the member that holds its element.
fn slab_site(registry: &Registry, link: &Link) -> (BindingPoint, String) {
    match registry.slot_by_index(link.to) {
        Some(s) => (s.binding(), s.slab().map_or(String::new(), |s| s.member.clone())),
        None => (BindingPoint::new(0, 0), String::new()),
    }
}

/// Whether the draw's element `i` of slot `from` points at its element `e` of `link.to`.
#[inline]
pub(crate) fn points_at(slots: &[Slot], from: usize, link: &Link, i: u32, e: u32) -> bool {
    pointer(&slots[from], i, link.offset).is_some_and(|p| p & link.mask == e)
}

/// The `u32` at `offset` of element `i` in `slot`'s shadow.
#[inline]
fn pointer(slot: &Slot, i: u32, offset: u32) -> Option<u32> {
    slot.shadow_span(i, offset, 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}
