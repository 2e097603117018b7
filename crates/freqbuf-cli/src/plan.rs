//! `--plan`: the slot plan the command line gives, refused where it maps one
//! group or binding point twice.

use freqbuf::SlotPlan;

/// One `--plan` entry: a group, or one binding point, and its frequency.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlanEntry {
    group: u32,
    binding: Option<u32>,
    frequency: freqbuf::Frequency,
}

pub(crate) fn plan_entry(text: &str) -> Result<PlanEntry, String> {
    let (point, frequency) =
        text.split_once('=').ok_or("expected GROUP=FREQUENCY or GROUP.BINDING=FREQUENCY")?;
    let frequency = freqbuf::Frequency::ALL
        .into_iter()
        .find(|f| f.as_str() == frequency.trim())
        .ok_or_else(|| format!("`{frequency}` is not a frequency (frame, view, material, object)"))?;
    let number = |n: &str| n.trim().parse::<u32>().map_err(|e| format!("`{n}`: {e}"));
    let (group, binding) = match point.split_once('.') {
        Some((g, b)) => (number(g)?, Some(number(b)?)),
        None => (number(point)?, None),
    };
    Ok(PlanEntry { group, binding, frequency })
}

/// The plan `--plan` gives, or the default one. One group or binding point
/// mapped twice is a contradiction (the last entry would silently win): the
/// error names it and both frequencies. A point inside a mapped group is not:
/// points take precedence over groups.
pub(crate) fn slot_plan(entries: &[PlanEntry]) -> Result<SlotPlan, String> {
    if entries.is_empty() {
        return Ok(SlotPlan::default());
    }
    let mut seen = std::collections::BTreeMap::new();
    for e in entries {
        if let Some(first) = seen.insert((e.group, e.binding), e.frequency) {
            let what = match e.binding {
                Some(b) => format!("binding point {}.{b}", e.group),
                None => format!("group {}", e.group),
            };
            return Err(format!("--plan: {what} is mapped twice: to {first} and to {}", e.frequency));
        }
    }
    Ok(entries.iter().fold(SlotPlan::empty(), |plan, e| match e.binding {
        Some(b) => plan.with_point(freqbuf::BindingPoint::new(e.group, b), e.frequency),
        None => plan.with_group(e.group, e.frequency),
    }))
}
