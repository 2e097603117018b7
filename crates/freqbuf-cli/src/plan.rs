//! `--plan`: the slot plan the command line gives, refused where it maps one
//! group or binding point twice.

use freqbuf::{BindingPoint, Frequency, SlotPlan};

/// One `--plan` entry: a group or one binding point and its frequency, or a
/// binding point that is the application's buffer (`GROUP.BINDING=buffer`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum PlanEntry {
    Group(u32, Frequency),
    Point(BindingPoint, Frequency),
    Buffer(BindingPoint),
}

pub(crate) fn plan_entry(text: &str) -> Result<PlanEntry, String> {
    let (point, value) = text
        .split_once('=')
        .ok_or("expected GROUP=FREQUENCY, GROUP.BINDING=FREQUENCY or GROUP.BINDING=buffer")?;
    let number = |n: &str| n.trim().parse::<u32>().map_err(|e| format!("`{n}`: {e}"));
    let frequency = |v: &str| {
        Frequency::ALL
            .into_iter()
            .find(|f| f.as_str() == v)
            .ok_or_else(|| format!("`{v}` is not a frequency (frame, view, material, object) or `buffer`"))
    };
    Ok(match (point.split_once('.'), value.trim()) {
        (Some((g, b)), "buffer") => PlanEntry::Buffer(BindingPoint::new(number(g)?, number(b)?)),
        (None, "buffer") => {
            return Err(format!("`{text}`: a buffer is one binding point (GROUP.BINDING=buffer)"));
        }
        (Some((g, b)), v) => PlanEntry::Point(BindingPoint::new(number(g)?, number(b)?), frequency(v)?),
        (None, v) => PlanEntry::Group(number(point)?, frequency(v)?),
    })
}

/// The plan `--plan` gives, or the default one. One group or binding point
/// mapped twice is a contradiction (the last entry would silently win): the
/// error names it and both frequencies. A point inside a mapped group is not:
/// points take precedence over groups. A buffer point keeps its group's
/// frequency, so it may also be mapped to one.
pub(crate) fn slot_plan(entries: &[PlanEntry]) -> Result<SlotPlan, String> {
    if entries.is_empty() {
        return Ok(SlotPlan::default());
    }
    let mut seen = std::collections::BTreeMap::new();
    for e in entries {
        let (group, binding, value) = match *e {
            PlanEntry::Group(g, f) => (g, None, f.as_str()),
            PlanEntry::Point(p, f) => (p.group, Some(p.binding), f.as_str()),
            PlanEntry::Buffer(p) => (p.group, Some(p.binding), "buffer"),
        };
        if let Some(first) = seen.insert((group, binding, matches!(e, PlanEntry::Buffer(_))), value) {
            let what = match binding {
                Some(b) => format!("binding point {group}.{b}"),
                None => format!("group {group}"),
            };
            return Err(format!("--plan: {what} is mapped twice: to {first} and to {value}"));
        }
    }
    Ok(entries.iter().fold(SlotPlan::empty(), |plan, e| match *e {
        PlanEntry::Group(g, f) => plan.with_group(g, f),
        PlanEntry::Point(p, f) => plan.with_point(p, f),
        PlanEntry::Buffer(p) => plan.with_buffer(p),
    }))
}
