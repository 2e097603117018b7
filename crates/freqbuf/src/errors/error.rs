//! [`Error`]: the one error type every operation returns (see `mod.rs` for
//! why one).

use super::layout::LayoutErrorKind;
use super::limit::{LimitError, LimitErrorKind};
use super::location::{BindingSite, ForShader, Location, Site};
use super::param::ParamError;
use super::reflect::ReflectError;
use super::report::debug_as_report;
use super::rows::RowsErrorKind;
use super::wgpu_error::WgpuError;
use crate::slot::plan::{BindingPoint, Frequency};

/// Any error freqbuf returns.
///
/// Its `Debug` form is [`Report`](crate::Report)'s: the message and its causes.
#[derive(Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A shader could not be reflected.
    #[error(transparent)]
    Reflect(#[from] Box<ReflectError>),
    /// Shaders disagree about a binding point, or break a limit.
    #[error("cannot lay out {binding}{}", ForShader(shader, kind.names_shader()))]
    Layout {
        /// The shader being registered.
        shader: String,
        /// The binding point in conflict.
        binding: BindingPoint,
        /// The disagreement.
        #[source]
        kind: Box<LayoutErrorKind>,
    },
    /// A parameter could not be resolved or set.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The shader needs more than the device allows; checked before any wgpu object is made.
    #[error("cannot register {}{}", Site(shader, *location), BindingSite(binding))]
    Limit {
        /// The shader being registered.
        shader: String,
        /// The binding in question, its name and where it is declared, when one binding is.
        binding: Option<(BindingPoint, String)>,
        /// Where in the source (the binding's declaration, or where validation failed).
        location: Option<Location>,
        /// The limit or feature.
        #[source]
        kind: Box<LimitErrorKind>,
    },
    /// A slot buffer would need more than the device's `max_buffer_size`. The
    /// slot keeps its buffer: instances that fit are flushed, the others keep
    /// their dirty bytes and cannot be drawn ([`Error::NotFlushed`]). Freed
    /// indices are reused before new ones, so reuse them to stay under the limit.
    #[error(
        "slot {binding} needs {instances} instances of {stride} bytes, over {limit_name} ({limit} bytes); instances past the limit stay unflushed"
    )]
    SlotTooLarge {
        /// The slot's binding point.
        binding: BindingPoint,
        /// Instances it must hold.
        instances: u32,
        /// Bytes per instance.
        stride: u32,
        /// The device's limit.
        limit: u64,
        /// Its name: `max_buffer_size`, or `max_storage_buffer_binding_size`
        /// for an array slot in a storage buffer.
        limit_name: &'static str,
    },
    /// wgpu rejected an object freqbuf created (the second net behind the checks).
    #[error("{what}: wgpu rejected it")]
    Wgpu {
        /// What was being created, and for which shader or slot.
        what: String,
        /// wgpu's error, as its kind and text.
        #[source]
        source: WgpuError,
    },
    /// The shader needs something the device or freqbuf does not support.
    #[error("{shader} is not supported: {what}")]
    Unsupported {
        /// The shader.
        shader: String,
        /// What is missing.
        what: String,
    },
    /// A handle was used after it was freed.
    #[error("the {0} handle was freed")]
    StaleHandle(Frequency),
    /// A draw did not say which instance of a frequency its shader needs.
    #[error("{shader} needs a {frequency} instance, and the draw gives none")]
    MissingInstance {
        /// The shader.
        shader: String,
        /// The frequency it needs.
        frequency: Frequency,
    },
    /// An instance or slot was created after the last flush and is not on the GPU yet.
    #[error("the {0} instance or slot is newer than the last flush; call flush before drawing with it")]
    NotFlushed(Frequency),
    /// A draw list was made before an instance was freed (its index may now
    /// belong to another handle), or by another manager: make it again with
    /// [`crate::Manager::draw_list`].
    #[error("the draw list is stale: an instance was freed since it was made, or another manager made it")]
    StaleList,
    /// A draw's object does not point at its material's element in a slab
    /// ([`crate::Manager::link`] writes the pointer; a draw list links its draws).
    #[error(
        "{shader}: the draw's {from} element does not point at its {to} element in slab {slab} (member `{member}`); link the draw first (Manager::link, or Manager::draw_list), then flush"
    )]
    Unlinked {
        /// The draw's shader.
        shader: String,
        /// The slab's binding point.
        slab: BindingPoint,
        /// The member that holds the element.
        member: String,
        /// The frequency whose element holds the pointer.
        from: Frequency,
        /// The slab's frequency.
        to: Frequency,
    },
    /// A table (a binding array a slab indexes) has no free element: its
    /// layout's length is fixed at registration, from the device's
    /// `max_binding_array_elements_per_shader_stage` (a sixteenth of it, at
    /// most 1,024) or the array's declared length.
    #[error(
        "table `{table}` at {binding} is full: all {len} elements ({}) are taken, element 0 by the placeholder, so `{member}` cannot take one; free materials to reuse theirs",
        if *sized_by == "its declared length" { sized_by.to_string() } else { format!("a sixteenth of the device's {sized_by}, at most 1,024") }
    )]
    TableFull {
        /// The binding array.
        table: String,
        /// Its binding point.
        binding: BindingPoint,
        /// The slab member being set.
        member: String,
        /// Its length.
        len: u32,
        /// What gave it that length: the device limit an unsized table is
        /// sized from, or "its declared length".
        sized_by: &'static str,
    },
    /// A slab element does not fit the bits the shader reads it from
    /// (Bevy masks its slot with `0xffff`): free elements of the slab's
    /// frequency to reuse them.
    #[error(
        "{shader}: element {element} of slab {slab} does not fit member `{member}` under mask {mask:#x}; free instances so that their elements are reused"
    )]
    SlabFull {
        /// The draw's shader.
        shader: String,
        /// The slab's binding point.
        slab: BindingPoint,
        /// The member that holds the element.
        member: String,
        /// The bits the shader reads.
        mask: u32,
        /// The element that does not fit.
        element: u32,
    },
    /// An [`InstanceList`](crate::InstanceList) was made before an instance
    /// was freed, or by another manager: make it again with
    /// [`crate::Manager::instance_list`].
    #[error(
        "the instance list is stale: an instance was freed since it was made, or another manager made it"
    )]
    StaleInstanceList,
    /// An [`InstanceList`](crate::InstanceList) was given handles of two frequencies.
    #[error("an instance list holds one frequency; it was given {first:?} and {other:?} handles")]
    ListFrequencies {
        /// The frequency of the first handle.
        first: crate::Frequency,
        /// The frequency of a later one.
        other: crate::Frequency,
    },
    /// A position past the end of an [`InstanceList`](crate::InstanceList).
    #[error("position {position} is past the end of an instance list of {len}")]
    ListPosition {
        /// The position asked for.
        position: usize,
        /// The instances in the list.
        len: usize,
    },
    /// A binder with shared access to the manager found a bind group not built
    /// yet: call [`crate::Manager::prepare`] with the draw after the last
    /// flush (and again when [`crate::Manager::generation`] moves).
    #[error(
        "group {group} of {shader} has no bind group yet: call Manager::prepare with this draw before binding it with shared access"
    )]
    NotPrepared {
        /// The shader.
        shader: String,
        /// The group index.
        group: u32,
    },
    /// A storage buffer binding has no buffer set and no placeholder can stand in.
    #[error("`{name}` at {binding} has not been set")]
    Unset {
        /// The binding's name.
        name: String,
        /// Its binding point.
        binding: BindingPoint,
    },
    /// A draw's instance was made in another family than the shader's: its
    /// index in the shader's per-family slot is another family's instance.
    #[error(
        "{shader} is of family `{shader_family}`, but the draw's {frequency} instance belongs to family `{instance_family}`"
    )]
    OtherFamily {
        /// The shader.
        shader: String,
        /// The frequency of the instance.
        frequency: Frequency,
        /// The family of the shader's slot.
        shader_family: String,
        /// The family the instance was made in.
        instance_family: String,
    },
    /// A parameter, shader id or instance handle made by another manager.
    #[error("this {0} belongs to another manager")]
    Foreign(&'static str),
    /// The shader id does not belong to this manager.
    #[error("no shader of this manager has id {0}")]
    UnknownShader(usize),
    /// A slot whose rows the application owns ([`crate::Rows`]) was given
    /// rows that do not fit it, or a draw reads a row never written.
    #[error("cannot use the rows of slot {binding}")]
    Rows {
        /// The slot's binding point.
        binding: BindingPoint,
        /// What went wrong.
        #[source]
        kind: RowsErrorKind,
    },
    /// An [`IndirectDraws`](crate::IndirectDraws) whose geometry does not
    /// match its draw list draw for draw, or whose argument buffer would pass
    /// the device's `max_buffer_size`.
    #[error("cannot write the indirect draws: {what}")]
    Indirect {
        /// What does not fit.
        what: String,
    },
}

impl Error {
    /// A limit `limits::check` found, for the shader named `shader`.
    pub(crate) fn from_limit(e: LimitError, shader: &str) -> Self {
        Error::Limit {
            shader: shader.to_owned(),
            binding: e.binding,
            location: e.location,
            kind: Box::new(e.kind),
        }
    }
}

impl From<ReflectError> for Error {
    fn from(e: ReflectError) -> Self {
        Error::Reflect(Box::new(e))
    }
}

debug_as_report!(Error, ReflectError, ParamError);

/// Errors cross threads on every target alike, the web included.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Error>();
};
