//! Layout errors: shaders that disagree about a binding point.

use std::fmt;

use super::location::{Location, Site};
use crate::slot::plan::Frequency;

/// One side of a layout conflict: a member as one shader declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberSite {
    /// The shader that declares it.
    pub shader: String,
    /// Where the block is declared in that shader, when known.
    pub location: Option<Location>,
    /// The member's name.
    pub member: String,
    /// Byte offset inside the block.
    pub offset: u32,
    /// Size in bytes (the whole array for arrays).
    pub size: u32,
    /// WGSL spelling of the type (the element type for arrays).
    pub ty: String,
    /// Array length, 1 when not an array.
    pub count: u32,
}

impl fmt::Display for MemberSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` in {} is {}", self.member, Site(&self.shader, self.location), self.ty)?;
        if self.count != 1 {
            write!(f, " x{}", self.count)?;
        }
        write!(f, " at offset {} (size {})", self.offset, self.size)
    }
}

/// One side of a binding point two resources of one shader claim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceSite {
    /// The shader that declares it.
    pub shader: String,
    /// Where it is declared, when known.
    pub location: Option<Location>,
    /// The resource's name.
    pub name: String,
    /// Its kind, described (`uniform block`, `array slot (storage array of structs)`).
    pub kind: String,
    /// The entry points that use it.
    pub entry_points: Vec<String>,
}

impl fmt::Display for ResourceSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let site = Site(&self.shader, self.location);
        write!(f, "`{}` in {site} ({}, used by {})", self.name, self.kind, self.entry_points.join(", "))
    }
}

/// What an [`Error::Layout`](super::Error::Layout) is about: shaders (or the
/// plan and a shader) that disagree about a binding point.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LayoutErrorKind {
    /// The same member has a different offset, type or count in two shaders.
    #[error("member `{}` differs: {first}; but {second}", first.member)]
    MemberMismatch {
        /// The member as already registered.
        first: MemberSite,
        /// The member as the new shader declares it.
        second: MemberSite,
    },
    /// Two different members cover the same bytes.
    #[error("members overlap: {first}; but {second}")]
    Overlap {
        /// The member as already registered.
        first: MemberSite,
        /// The member as the new shader declares it.
        second: MemberSite,
    },
    /// Two shaders put different kinds of resource at one binding point.
    #[error(
        "`{first_name}` in {first_shader} is {first_kind}, but `{second_name}` in {second_shader} is {second_kind}"
    )]
    KindMismatch {
        /// The shader already registered.
        first_shader: String,
        /// Its resource name.
        first_name: String,
        /// Its resource kind, described.
        first_kind: String,
        /// The new shader.
        second_shader: String,
        /// Its resource name.
        second_name: String,
        /// Its resource kind, described.
        second_kind: String,
    },
    /// A uniform block is larger than the device allows for one binding.
    #[error(
        "uniform block `{block}` in {shader} is {size} bytes, over the limit of {limit} bytes (max_uniform_buffer_binding_size)"
    )]
    TooLarge {
        /// The shader.
        shader: String,
        /// The block's name.
        block: String,
        /// Its size in bytes.
        size: u32,
        /// The device's limit.
        limit: u32,
    },
    /// The slot plan gives this binding point no frequency.
    #[error("`{name}` in {shader} is in no frequency of the slot plan")]
    Unplanned {
        /// The shader.
        shader: String,
        /// The resource name.
        name: String,
    },
    /// Two shaders declare the elements of one array slot with different strides.
    #[error(
        "the array slot's elements are {first} bytes apart in {first_shader}, but {second} in {second_shader}; every user of an array slot must declare the same element struct size"
    )]
    ArrayStride {
        /// The shader already registered.
        first_shader: String,
        /// Its element stride.
        first: u32,
        /// The new shader.
        second_shader: String,
        /// Its element stride.
        second: u32,
    },
    /// One shader reads array slots of two frequencies; a draw has one instance index.
    #[error(
        "array slots `{first}` ({first_frequency}) and `{second}` ({second_frequency}) have different frequencies; a draw passes one instance index, so a shader's array slots must share one frequency, unless one is a slab found through a member of the other (`materials[objects[i].material]`)"
    )]
    ArrayFrequencies {
        /// The first array slot.
        first: String,
        /// Its frequency.
        first_frequency: Frequency,
        /// The second array slot.
        second: String,
        /// Its frequency.
        second_frequency: Frequency,
    },
    /// One shader indexes an array slot in two ways: a slab is found through one member.
    #[error(
        "array slot `{name}` is indexed {first}, and also {second}; a slab is found through one member of another array slot, which freqbuf writes"
    )]
    SlabSources {
        /// The array slot.
        name: String,
        /// One way.
        first: String,
        /// The other.
        second: String,
    },
    /// Two shaders index one array slot in different ways.
    #[error(
        "array slot `{name}` is indexed {first} in {first_shader}, but {second} here; every user of an array slot finds its elements the same way"
    )]
    SlabMismatch {
        /// The array slot.
        name: String,
        /// The shader already registered.
        first_shader: String,
        /// How it indexes the slot.
        first: String,
        /// How the new shader does.
        second: String,
    },
    /// Two resources of one shader at one binding point: a pipeline binds
    /// one, so each pipeline's entry points must be registered apart.
    #[error(
        "{first} and {second} are both at this binding point; a pipeline binds one resource there, so register each pipeline's entry points apart (ShaderReflection::for_entry_points)"
    )]
    SharedPoint {
        /// The resource declared first.
        first: ResourceSite,
        /// The other.
        second: ResourceSite,
    },
    /// A conflict inside one family's slot: its shaders share one layout there.
    #[error("in family `{family}`, whose shaders share one layout here")]
    InFamily {
        /// The family.
        family: String,
        /// The conflict.
        #[source]
        conflict: Box<LayoutErrorKind>,
    },
    /// A conflict in a slot of a shared frequency that is per family by default.
    #[error(
        "{frequency} blocks are shared in this slot plan, so every shader's merge into one layout; SlotPlan::with_sharing({frequency}, PerFamily) gives each family its own"
    )]
    Shared {
        /// The frequency.
        frequency: Frequency,
        /// The conflict.
        #[source]
        conflict: Box<LayoutErrorKind>,
    },
    /// The group mixes frequencies in a way bind groups cannot express.
    #[error(
        "group {group} holds both {first} and {second} resources that are not uniform blocks; a bind group has one owner"
    )]
    MixedGroup {
        /// The group index.
        group: u32,
        /// One frequency.
        first: Frequency,
        /// The other.
        second: Frequency,
    },
}

impl LayoutErrorKind {
    /// Whether the message names the shader being registered, so that an
    /// outer error need not name it again.
    pub(crate) fn names_shader(&self) -> bool {
        match self {
            LayoutErrorKind::InFamily { conflict, .. } | LayoutErrorKind::Shared { conflict, .. } => {
                conflict.names_shader()
            }
            k => !matches!(
                k,
                LayoutErrorKind::MixedGroup { .. }
                    | LayoutErrorKind::ArrayFrequencies { .. }
                    | LayoutErrorKind::SlabSources { .. }
                    | LayoutErrorKind::SlabMismatch { .. }
            ),
        }
    }
}
