//! The slot plan: which update frequency each binding point belongs to.
//!
//! A [`SlotPlan`] is fixed before any shader is registered. It maps a
//! [`BindingPoint`] to a [`Frequency`], first by exact binding point, then by
//! group. The default follows Unreal Engine 3's split: group 0 is written once a
//! frame, group 1 once a view, group 2 once a material, group 3 once an object.

use std::collections::BTreeMap;
use std::fmt;

/// How often the values in a slot change, from least to most often.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Frequency {
    /// Written once a frame: time, frame counters. One instance.
    Frame,
    /// Written once per view: camera matrices. One instance per view.
    View,
    /// Written when a material changes: colours, roughness. One instance per material.
    Material,
    /// Written when an object moves: world matrices. One instance per object.
    Object,
}

impl Frequency {
    /// How many frequencies there are: the length of every per-frequency table.
    pub const COUNT: usize = 4;

    /// All frequencies, from least to most often changed: `ALL[f.index()] == f`.
    pub const ALL: [Frequency; Frequency::COUNT] =
        [Frequency::Frame, Frequency::View, Frequency::Material, Frequency::Object];

    /// The dense index, `0..COUNT`, of this frequency in per-frequency tables.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The lowercase name used in reports and JSON (`frame`, `view`, `material`, `object`).
    #[inline]
    pub const fn as_str(self) -> &'static str {
        match self {
            Frequency::Frame => "frame",
            Frequency::View => "view",
            Frequency::Material => "material",
            Frequency::Object => "object",
        }
    }
}

impl fmt::Display for Frequency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A `(group, binding)` pair, as written in `@group(g) @binding(b)` or `layout(set = g, binding = b)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BindingPoint {
    /// The bind group index.
    pub group: u32,
    /// The binding index inside the group.
    pub binding: u32,
}

impl BindingPoint {
    /// Makes a binding point.
    #[inline]
    pub const fn new(group: u32, binding: u32) -> Self {
        Self { group, binding }
    }
}

impl From<naga::ResourceBinding> for BindingPoint {
    #[inline]
    fn from(rb: naga::ResourceBinding) -> Self {
        Self::new(rb.group, rb.binding)
    }
}

impl fmt::Display for BindingPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@group({}) @binding({})", self.group, self.binding)
    }
}

/// The fixed table that sorts binding points into frequencies.
///
/// Lookups try the exact binding point first, then its group. A binding point
/// that neither names is rejected when a shader using it is registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotPlan {
    groups: BTreeMap<u32, Frequency>,
    points: BTreeMap<BindingPoint, Frequency>,
    /// Points whose storage arrays are the application's buffers.
    buffers: std::collections::BTreeSet<BindingPoint>,
    /// Per frequency (by [`Frequency::index`]): shared or per family.
    sharing: [Sharing; Frequency::COUNT],
}

/// Whether the blocks of one frequency at one binding point share a layout.
///
/// *Shared*: every shader's block at a binding point merges into one slot
/// (the engine's own frame, view and object data). *Per family*: each family
/// of shaders (an effect with all its permutations, or a raw shader, unless
/// they name a family they share) has its own slot there, with its own
/// layout and buffer, so unrelated material structs need no common layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sharing {
    /// One merged layout per binding point.
    Shared,
    /// One merged layout per binding point and family.
    PerFamily,
}

impl SlotPlan {
    /// A plan that maps nothing; add groups or points to it. Materials are
    /// per family, other frequencies shared ([`SlotPlan::with_sharing`]).
    pub fn empty() -> Self {
        let mut sharing = [Sharing::Shared; Frequency::COUNT];
        sharing[Frequency::Material.index()] = Sharing::PerFamily;
        Self { groups: BTreeMap::new(), points: BTreeMap::new(), buffers: Default::default(), sharing }
    }

    /// Sets whether `frequency`'s blocks are shared or per family (by
    /// default materials are per family, the rest shared).
    pub fn with_sharing(mut self, frequency: Frequency, sharing: Sharing) -> Self {
        self.sharing[frequency.index()] = sharing;
        self
    }

    /// Whether `frequency`'s blocks are shared or per family.
    #[inline]
    pub fn sharing(&self, frequency: Frequency) -> Sharing {
        self.sharing[frequency.index()]
    }

    /// Maps every binding of `group` to `frequency` (unless a point overrides it).
    pub fn with_group(mut self, group: u32, frequency: Frequency) -> Self {
        self.groups.insert(group, frequency);
        self
    }

    /// Maps one exact binding point to `frequency`, overriding its group's entry.
    pub fn with_point(mut self, point: BindingPoint, frequency: Frequency) -> Self {
        self.points.insert(point, frequency);
        self
    }

    /// Makes `point` the application's buffer: a read-only storage array of
    /// structs there is a plain storage buffer its group's instance sets
    /// (`set_buffer`), as every array is at frame frequency, not an array
    /// slot freqbuf fills per instance. For data the GPU or the renderer
    /// writes that a shader only reads (Bevy's meshlet culling queues).
    pub fn with_buffer(mut self, point: BindingPoint) -> Self {
        self.buffers.insert(point);
        self
    }

    /// Whether arrays at `point` are plain buffers: the application's
    /// ([`SlotPlan::with_buffer`]), or at frame frequency (one instance).
    #[inline]
    pub fn is_plain_array(&self, point: BindingPoint) -> bool {
        self.buffers.contains(&point) || self.frequency(point) == Some(Frequency::Frame)
    }

    /// The frequency of `point`, or `None` when the plan does not cover it.
    #[inline]
    pub fn frequency(&self, point: BindingPoint) -> Option<Frequency> {
        self.points.get(&point).or_else(|| self.groups.get(&point.group)).copied()
    }

    /// The frequency a whole group is planned at, ignoring per-point overrides.
    #[inline]
    pub fn group_frequency(&self, group: u32) -> Option<Frequency> {
        self.groups.get(&group).copied()
    }
}

impl Default for SlotPlan {
    /// Group 0 = frame, 1 = view, 2 = material, 3 = object; materials per
    /// family, the rest shared.
    fn default() -> Self {
        Frequency::ALL
            .iter()
            .enumerate()
            .fold(Self::empty(), |plan, (group, &freq)| plan.with_group(group as u32, freq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_plan_sorts_groups() {
        let plan = SlotPlan::default();
        assert_eq!(plan.frequency(BindingPoint::new(0, 13)), Some(Frequency::Frame));
        assert_eq!(plan.frequency(BindingPoint::new(3, 0)), Some(Frequency::Object));
        assert_eq!(plan.frequency(BindingPoint::new(4, 0)), None);
    }

    #[test]
    fn point_overrides_group() {
        let plan = SlotPlan::default().with_point(BindingPoint::new(2, 5), Frequency::Object);
        assert_eq!(plan.frequency(BindingPoint::new(2, 5)), Some(Frequency::Object));
        assert_eq!(plan.frequency(BindingPoint::new(2, 4)), Some(Frequency::Material));
    }
}
