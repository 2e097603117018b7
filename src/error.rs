//! Error types.
//!
//! As in naga, each error has an outer part that says which item failed (the
//! shader, the binding point, the parameter) and an inner `*Kind` that says what
//! went wrong. Source errors carry a [`Location`]. [`Error`] gathers them all.

use std::fmt;

use crate::plan::{BindingPoint, Frequency};

/// A 1-based `line:column` position in a shader's source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, in bytes.
    pub column: u32,
}

impl Location {
    /// Converts naga's span position.
    pub(crate) fn from_naga(loc: naga::SourceLocation) -> Self {
        Self { line: loc.line_number, column: loc.line_position }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Writes `shader` or `shader:line:column`.
struct Site<'a>(&'a str, Option<Location>);

impl fmt::Display for Site<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Some(loc) => write!(f, "{}:{}", self.0, loc),
            None => f.write_str(self.0),
        }
    }
}

/// A shader could not be reflected.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{}: {kind}", Site(shader, *location))]
pub struct ReflectError {
    /// The shader's name (its path, when it came from a file).
    pub shader: String,
    /// Where in the source, when the front end knows.
    pub location: Option<Location>,
    /// What went wrong.
    pub kind: ReflectErrorKind,
}

/// What went wrong while reflecting a shader.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReflectErrorKind {
    /// The WGSL front end rejected the source.
    #[error("WGSL parse error: {0}")]
    Wgsl(String),
    /// The GLSL front end rejected the source.
    #[error("GLSL parse error: {0}")]
    Glsl(String),
    /// The SPIR-V front end rejected the binary.
    #[error("SPIR-V parse error: {0}")]
    Spirv(String),
    /// naga's validator rejected the module.
    #[error("validation error: {0}")]
    Validation(String),
    /// The input language needs a feature this build of freqbuf does not have.
    #[error("this input needs freqbuf's `{feature}` feature")]
    FeatureOff {
        /// The Cargo feature.
        feature: &'static str,
    },
    /// The file's extension says neither the language nor the stage.
    #[error(
        "cannot tell the shader language or stage from the name; use .wgsl, .spv, .vert, .frag or .comp, or give the stage"
    )]
    UnknownFormat,
    /// naga panicked on the input (a bug in naga, caught so that other shaders go on).
    #[error("the {front} panicked on this input: {message}")]
    Panic {
        /// Which part of naga.
        front: &'static str,
        /// The panic's message.
        message: String,
    },
    /// The file could not be read.
    #[error("cannot read the file: {0}")]
    Io(String),
    /// A uniform block's size is not fixed at reflection time.
    #[error(
        "uniform `{name}` has a runtime- or override-sized array or an unsupported type; uniform blocks must have a fixed size"
    )]
    UnsizedUniform {
        /// The block's name.
        name: String,
    },
    /// Structs and arrays nest deeper inside a uniform block than freqbuf lays out.
    #[error("uniform `{name}` nests structs and arrays more than {limit} levels deep")]
    TooDeep {
        /// The block's name.
        name: String,
        /// The deepest nesting laid out.
        limit: u32,
    },
    /// Two members of a block have one name once array suffixes are stripped (`a[0]`, `a[1]`).
    #[error("uniform `{block}` has two members named `{member}` (after stripping array suffixes)")]
    DuplicateMember {
        /// The block's name.
        block: String,
        /// The shared name.
        member: String,
    },
    /// A resource has no `@group`/`@binding`.
    #[error("resource `{name}` has no binding point")]
    NoBinding {
        /// The resource's name.
        name: String,
    },
}

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

/// Several shaders (or the plan and a shader) disagree about a binding point.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{binding}: {kind}")]
pub struct LayoutError {
    /// The binding point in conflict.
    pub binding: BindingPoint,
    /// What the disagreement is.
    pub kind: LayoutErrorKind,
}

/// What a [`LayoutError`] is about.
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

/// A shader needs more than the device allows.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{}{kind}", LimitSite(self))]
pub struct LimitError {
    /// The binding point in question, when one binding is.
    pub binding: Option<BindingPoint>,
    /// The binding's name.
    pub name: Option<String>,
    /// Where it is declared (or where validation failed), when known.
    pub location: Option<Location>,
    /// What limit or feature is missing.
    pub kind: LimitErrorKind,
}

struct LimitSite<'a>(&'a LimitError);

impl fmt::Display for LimitSite<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.0;
        match (&e.name, e.binding) {
            (Some(n), Some(b)) => write!(f, "`{n}` at {b}: "),
            _ => Ok(()),
        }
    }
}

/// What a [`LimitError`] is about.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LimitErrorKind {
    /// The group index is at or past the device's `max_bind_groups`.
    #[error("group {group} is past the device's last bind group (max_bind_groups = {limit})")]
    Group {
        /// The group index.
        group: u32,
        /// The number of groups the device allows.
        limit: u32,
    },
    /// The binding number is at or past `max_bindings_per_bind_group`.
    #[error("binding number {binding} is past the device's limit (max_bindings_per_bind_group = {limit})")]
    Binding {
        /// The binding number.
        binding: u32,
        /// The limit.
        limit: u32,
    },
    /// More bindings of a kind in one pipeline layout than the device allows.
    #[error("the shader uses {count} {what}, over the limit of {limit} ({limit_name})")]
    PerPipeline {
        /// What is counted.
        what: &'static str,
        /// How many the shader uses.
        count: u32,
        /// The device's limit.
        limit: u32,
        /// The `wgpu::Limits` field.
        limit_name: &'static str,
    },
    /// More bindings of a kind in one shader stage than the device allows.
    #[error("the {stage} stage uses {count} {what}, over the limit of {limit} ({limit_name})")]
    PerStage {
        /// The stage.
        stage: &'static str,
        /// What is counted.
        what: &'static str,
        /// How many the stage sees.
        count: u32,
        /// The device's limit.
        limit: u32,
        /// The `wgpu::Limits` field.
        limit_name: &'static str,
    },
    /// A binding array without a fixed size.
    #[error("binding arrays without a fixed size are not supported; give the array a length")]
    UnsizedBindingArray,
    /// A binding array shares its bind group with a uniform block, which wgpu forbids.
    #[error("a binding array may not share its group with the uniform block `{uniform}`; move one of them")]
    ArrayBesideUniform {
        /// The uniform block in the same group.
        uniform: String,
    },
    /// The shader needs a capability the device's features do not give (f16, f64, i64, ...).
    #[error("the device cannot run this shader: {message}")]
    Capability {
        /// naga's validation error chain.
        message: String,
    },
}

/// A parameter could not be resolved or set.
#[derive(Clone, Debug, thiserror::Error)]
#[error("parameter `{name}`: {kind}")]
pub struct ParamError {
    /// The name or path as the caller gave it.
    pub name: String,
    /// What went wrong.
    pub kind: ParamErrorKind,
}

/// What went wrong with a parameter.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParamErrorKind {
    /// The path is not of the form `name`, `name[i]`, `name[i].field`.
    #[error("malformed path; expected `name`, `name[i]` or `name[i].field`")]
    Malformed,
    /// No slot or struct has a member of that name.
    #[error("unknown name{}", suggest(.suggestions))]
    Unknown {
        /// Known names closest to the one given, best first.
        suggestions: Vec<String>,
    },
    /// A bare member name is declared by several blocks; qualify it by its block.
    #[error("{blocks} blocks declare it; write one of {}", quoted(.spellings))]
    Ambiguous {
        /// How many slots declare the name.
        blocks: usize,
        /// The qualified spellings that resolve (`mat_a.color`, `MatA.color`, ...).
        spellings: Vec<String>,
    },
    /// The index is past the end of the array.
    #[error("index {index} is out of range for `{member}` (count {count})")]
    IndexOutOfRange {
        /// The array member.
        member: String,
        /// The index given.
        index: u32,
        /// The array length.
        count: u32,
    },
    /// An index was given for a member that is not an array.
    #[error("`{member}` is not an array")]
    NotAnArray {
        /// The member.
        member: String,
    },
    /// A field was asked of an array without saying which element.
    #[error("`{member}` is an array; give an element, as in `{member}[0]`")]
    NeedsIndex {
        /// The array member.
        member: String,
    },
    /// A field was asked of a member that is not a struct.
    #[error("`{member}` is not a struct")]
    NotAStruct {
        /// The member.
        member: String,
    },
    /// The value's type is not the member's type.
    #[error("wrong type: the member is {expected}, the value is {found}")]
    TypeMismatch {
        /// The member's WGSL type.
        expected: String,
        /// The value's WGSL type.
        found: String,
    },
    /// The value's size is not the member's size.
    #[error("wrong size: the member takes {expected} bytes, the value has {found}")]
    SizeMismatch {
        /// Bytes the member takes.
        expected: usize,
        /// Bytes given.
        found: usize,
    },
    /// The parameter belongs to a slot of another frequency than the one being set.
    #[error("it lives in a {actual} slot, not a {wanted} slot")]
    WrongFrequency {
        /// The frequency of the instance being set.
        wanted: Frequency,
        /// The frequency of the parameter's slot.
        actual: Frequency,
    },
    /// The texture, sampler or buffer does not fit the binding; the instance keeps its old one.
    #[error("it does not fit the binding ({expected}): {message}")]
    Incompatible {
        /// The binding, described.
        expected: String,
        /// What wgpu's validation found.
        message: String,
    },
    /// The name is a texture, sampler or storage binding, not a uniform value.
    #[error("it is a {kind} binding, not a uniform value")]
    NotUniform {
        /// The resource kind.
        kind: &'static str,
    },
}

fn quoted(list: &[String]) -> String {
    list.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
}

fn suggest(list: &[String]) -> String {
    if list.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", list.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", "))
    }
}

/// Any error freqbuf returns.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A shader could not be reflected.
    #[error(transparent)]
    Reflect(#[from] Box<ReflectError>),
    /// Shaders disagree about a binding point, or break a limit.
    #[error("{shader}: {source}")]
    Layout {
        /// The shader being registered.
        shader: String,
        /// The disagreement.
        #[source]
        source: Box<LayoutError>,
    },
    /// A parameter could not be resolved or set.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The shader needs more than the device allows; checked before any wgpu object is made.
    #[error("{}: {source}", Site(shader, source.location))]
    Limit {
        /// The shader being registered.
        shader: String,
        /// The limit or feature.
        #[source]
        source: Box<LimitError>,
    },
    /// A slot buffer would need more than the device's `max_buffer_size`. The
    /// slot keeps its buffer: instances that fit are flushed, the others keep
    /// their dirty bytes and cannot be drawn ([`Error::NotFlushed`]). Freed
    /// indices are reused before new ones, so reuse them to stay under the limit.
    #[error(
        "slot {binding} needs {instances} instances of {stride} bytes, over max_buffer_size ({limit} bytes); instances past the limit stay unflushed"
    )]
    SlotTooLarge {
        /// The slot's binding point.
        binding: BindingPoint,
        /// Instances it must hold.
        instances: u32,
        /// Bytes per instance.
        stride: u32,
        /// The device's `max_buffer_size`.
        limit: u64,
    },
    /// wgpu rejected an object freqbuf created (the second net behind the checks).
    #[error("{what}: wgpu rejected it: {message}")]
    Wgpu {
        /// What was being created, and for which shader or slot.
        what: String,
        /// wgpu's error, as text.
        message: String,
    },
    /// The shader needs something the device or freqbuf does not support.
    #[error("{shader}: {what}")]
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
    #[error("a {0} instance or slot is newer than the last flush; call flush before drawing with it")]
    NotFlushed(Frequency),
    /// A storage buffer binding has no buffer set and no placeholder can stand in.
    #[error("`{name}` at {binding} has not been set")]
    Unset {
        /// The binding's name.
        name: String,
        /// Its binding point.
        binding: BindingPoint,
    },
    /// A parameter (or id) made by another manager. Instance handles
    /// (`ViewId`, `MaterialId`, `ObjectId`) carry no such tag: one of another
    /// manager is taken for this manager's instance at the same index, or is stale.
    #[error("this {0} belongs to another manager")]
    Foreign(&'static str),
    /// The shader id does not belong to this manager.
    #[error("unknown shader id {0}")]
    UnknownShader(usize),
}

impl From<ReflectError> for Error {
    fn from(e: ReflectError) -> Self {
        Error::Reflect(Box::new(e))
    }
}
