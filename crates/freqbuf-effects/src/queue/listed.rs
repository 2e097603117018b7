//! A sorted bin encoded as a draw list: its handles resolved once and its
//! bind commands replayed while the manager's generation holds.
//!
//! The list is kept while the bin's order holds and every item still draws
//! with the shader it was listed with (a material's flags pick the shader, so
//! they are checked every encode); freeing any instance makes the manager
//! refuse the list, and it is made again.

use slotmap::SlotMap;

use freqbuf::{Draw, DrawArgs, DrawList, Error, IndirectDraws, InstanceId, Manager, ShaderId};

use super::{Bin, Entry, ItemKey, QueueContext, QueueItem, QueueStats};
use crate::effect::{Effects, Targets};
use crate::error::MaterialError;
use crate::material::Materials;

/// A bin's draw list, the bin version and the shaders it was made for.
#[derive(Debug)]
pub(super) struct Listed {
    version: u64,
    /// The manager's device serial when it was made: its pipelines (and
    /// their wgpu ids, which repeat across Instances) belong to that device.
    device: u64,
    shaders: Vec<ShaderId>,
    /// Each draw's pipeline, kept with the list: cloned once, not per encode.
    pipelines: Vec<wgpu::RenderPipeline>,
    list: DrawList,
    /// For indirect encodes: the items' geometry as indirect arguments,
    /// made with the list; `None` where the bin cannot be drawn indirectly.
    indirect: Option<IndirectDraws>,
}

impl Listed {
    /// The list of the `drawn` items with their pipelines, and their
    /// indirect arguments where a queue is given.
    fn new(
        fx: &mut Effects,
        fb: &mut Manager,
        mats: &Materials,
        targets: &Targets,
        drawn: &[(ShaderId, &QueueItem)],
        (version, device): (u64, u64),
        indirect: Option<&wgpu::Queue>,
    ) -> Result<Self, MaterialError> {
        let draws = drawn.iter().map(|&(shader, item)| draw(shader, item)).collect::<Vec<_>>();
        let list = fb.draw_list(&draws)?;
        let mut pipelines = Vec::with_capacity(drawn.len());
        for &(_, item) in drawn {
            let flags = mats.checked_flags(item.material)?;
            pipelines.push(fx.render_pipeline(fb, item.pass, flags, targets)?.1.clone());
        }
        let shaders = drawn.iter().map(|d| d.0).collect();
        let args = indirect.and_then(|_| indirect_args(drawn.iter().map(|d| &d.1.geometry), &pipelines));
        Ok(Listed { version, device, shaders, pipelines, list, indirect: args })
    }
}

/// A bin's items in draw order, each with its shader.
type Drawn<'i> = Vec<(ShaderId, &'i QueueItem)>;

/// Each of `bin`'s items with its shader, its pipeline made or found (every
/// encode: a material's flags may have changed since), and whether the
/// bin's list was made for exactly these, compared without a clone.
fn drawn<'i>(
    bin: &Bin,
    items: &'i SlotMap<ItemKey, Entry>,
    (fx, fb, mats, targets): (&mut Effects, &mut Manager, &Materials, &Targets),
) -> Result<(Drawn<'i>, bool), MaterialError> {
    let mut drawn = Vec::with_capacity(bin.sorted.len());
    let device = fb.device_serial();
    let mut same = bin.listed.as_ref().is_some_and(|l| l.version == bin.version && l.device == device);
    for (k, &(_, id)) in bin.sorted.iter().enumerate() {
        let Some(Entry { item, .. }) = items.get(id.key) else { continue };
        let flags = mats.checked_flags(item.material)?;
        let (shader, p) = fx.render_pipeline(fb, item.pass, flags, targets)?;
        same = same
            && bin
                .listed
                .as_ref()
                .is_some_and(|l| l.shaders.get(k) == Some(&shader) && l.pipelines.get(k) == Some(p));
        drawn.push((shader, item));
    }
    same = same && bin.listed.as_ref().is_some_and(|l| l.shaders.len() == drawn.len());
    Ok((drawn, same))
}

/// Encodes a settled bin through its draw list, making the list when the
/// bin or its items' shaders changed or the manager refuses it. With a
/// queue, as multi-draw-indirect runs where every item draws one instance
/// and all or none are indexed; otherwise draw by draw.
pub(super) fn encode_bin(
    bin: &mut Bin,
    items: &SlotMap<ItemKey, Entry>,
    cx: &mut QueueContext<'_, '_>,
    stats: &mut QueueStats,
    indirect: Option<&wgpu::Queue>,
) -> Result<(), MaterialError> {
    let QueueContext { effects: fx, manager: fb, materials: mats, targets, pass, binder } = cx;
    let device = fb.device_serial();
    let (drawn, same) = drawn(bin, items, (fx, fb, mats, targets))?;
    for attempt in 0..2 {
        if !same || attempt > 0 {
            bin.listed = Some(Listed::new(fx, fb, mats, targets, &drawn, (bin.version, device), indirect)?);
            stats.lists_made += 1;
        }
        if let Some(l) = bin.listed.as_mut().filter(|l| indirect.is_some() && l.indirect.is_none()) {
            // Made by an `Order::Listed` encode.
            l.indirect = indirect_args(drawn.iter().map(|d| &d.1.geometry), &l.pipelines);
        }
        let Some(Listed { list, pipelines, indirect: args, .. }) = bin.listed.as_mut() else {
            unreachable!("made above")
        };
        let mut current: Option<&wgpu::RenderPipeline> = None;
        let mut geometry: Option<&super::Geometry> = None;
        if let (Some(queue), Some(args)) = (indirect, args.as_mut()) {
            let result = binder.draw_indirect(fb, queue, pass, list, args, |pass, i| {
                let (p, item) = (&pipelines[i], drawn[i].1);
                if current != Some(p) {
                    pass.set_pipeline(p);
                    current = Some(p);
                    stats.pipelines += 1;
                }
                super::set_geometry(pass, &item.geometry, None);
            });
            match result {
                Err(Error::StaleList) if attempt == 0 => continue,
                r => {
                    stats.draws += drawn.len() as u64;
                    return Ok(r?);
                }
            }
        }
        // Each pipeline is set before the bind of its first draw, so after
        // the draw before it: a new layout clears the immediates a bind sets.
        let mut set = |pass: &mut wgpu::RenderPass<'_>, i: usize| {
            if let Some(p) = pipelines.get(i).filter(|&p| current != Some(p)) {
                pass.set_pipeline(p);
                current = Some(p);
                stats.pipelines += 1;
            }
        };
        set(pass, 0);
        let mut drew = 0;
        let result = binder.bind_list(fb, *pass, list, |pass, i, first| {
            geometry = Some(super::draw_geometry(pass, &drawn[i].1.geometry, geometry, first));
            drew += 1;
            set(pass, i + 1);
        });
        stats.draws += drew;
        match result {
            // An instance was freed since the list was made: make it again, once.
            Err(Error::StaleList) if attempt == 0 => continue,
            r => return Ok(r?),
        }
    }
    Ok(())
}

/// The items' geometry as indirect arguments, a batch per change of
/// buffers or of pipeline (two passes may share a shader and differ in
/// render state: a run is drawn with one pipeline, set where a batch
/// starts); `None` when an item draws other than one instance, or indexed
/// and non-indexed items mix.
fn indirect_args<'a, P: PartialEq>(
    geometry: impl Iterator<Item = &'a super::Geometry>,
    pipelines: &[P],
) -> Option<IndirectDraws> {
    let (mut args, mut indexed, mut last): (Vec<DrawArgs>, Option<bool>, Option<&super::Geometry>) =
        (Vec::new(), None, None);
    let mut batch = 0;
    for (i, g) in geometry.enumerate() {
        if g.instances != (0..1) || *indexed.get_or_insert(g.index.is_some()) != g.index.is_some() {
            return None;
        }
        let other_pipeline = i > 0 && pipelines[i] != pipelines[i - 1];
        if other_pipeline || last.is_some_and(|l| l.vertex_buffers != g.vertex_buffers || l.index != g.index)
        {
            batch += 1;
        }
        last = Some(g);
        let count = g.range.end - g.range.start;
        args.push(DrawArgs { count, first: g.range.start, base_vertex: g.base_vertex, batch });
    }
    Some(if indexed == Some(true) { IndirectDraws::indexed(args) } else { IndirectDraws::new(args) })
}

/// The draw of an item drawn with `shader`.
pub(super) fn draw(shader: ShaderId, item: &QueueItem) -> Draw {
    let instances: [Option<InstanceId>; 3] =
        [item.view.map(Into::into), Some(item.material.into()), item.object.map(Into::into)];
    instances.into_iter().flatten().fold(Draw::new(shader), Draw::with)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::Geometry;

    /// Items that share buffers but not a pipeline are other batches, so
    /// a run never spans two pipelines.
    #[test]
    fn a_change_of_pipeline_starts_a_batch() {
        let geometry = [0, 1, 2].map(|_| Geometry::vertices(0..3));
        let batches = |pipelines: &[u32]| {
            let args = indirect_args(geometry.iter(), pipelines).unwrap();
            args.args().iter().map(|a| a.batch).collect::<Vec<_>>()
        };
        assert_eq!(batches(&[1, 1, 2]), [0, 0, 1]);
        assert_eq!(batches(&[1, 1, 1]), [0, 0, 0]);
    }
}
