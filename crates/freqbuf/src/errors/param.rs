//! Parameter errors: a name or value that cannot be resolved or set.

use crate::slot::plan::Frequency;

/// A parameter could not be resolved or set.
///
/// Like every error of both crates, its message names only its own level
/// (the parameter); what went wrong is its [`source`](std::error::Error::source),
/// the kind. [`Report`](crate::Report), `{:?}` and error reporters print the chain.
#[derive(Clone, thiserror::Error)]
#[error("cannot use parameter `{name}`")]
pub struct ParamError {
    /// The name or path as the caller gave it.
    pub name: String,
    /// What went wrong.
    #[source]
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
    /// The name is in no shared slot, and no registered shader is of the
    /// family asked for (a typo, or an effect whose permutations are
    /// registered lazily and have not been yet).
    #[error(
        "no registered shader is of family `{family}`; the families are {}{}",
        quoted_or_none(.known),
        if .known.is_empty() {
            " (an effect's permutations register when a material, pipeline or Effects::shader first needs them)"
        } else {
            ""
        }
    )]
    UnknownFamily {
        /// The family asked for.
        family: String,
        /// The families of the registered shaders.
        known: Vec<String>,
    },
    /// A bare member name is declared by several blocks; qualify it by its block.
    #[error("{blocks} blocks declare it; write one of {}", quoted(.spellings))]
    Ambiguous {
        /// How many slots declare the name.
        blocks: usize,
        /// The qualified spellings that resolve (`mat_a.color`, `MatA.color`, ...).
        spellings: Vec<String>,
    },
    /// Several families' own blocks declare it: resolve it in one family.
    #[error(
        "the blocks of families {} declare it; resolve it in one (Manager::param_in), or set it on a material of one (Manager::create_material_in)",
        quoted(.families)
    )]
    InFamilies {
        /// The families whose blocks declare the name.
        families: Vec<String>,
    },
    /// The member is in a block of another family than the instance's.
    #[error(
        "it is a member of family `{member_family}`, but the instance belongs to family `{instance_family}`"
    )]
    OtherFamily {
        /// The family of the member's slot.
        member_family: String,
        /// The family the instance was created in.
        instance_family: String,
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
    /// The member's slot takes its rows from the application
    /// ([`Manager::own_rows`](crate::Manager::own_rows)): a slot has one
    /// source, so its members are not set one by one.
    #[error("the slot's rows belong to the application; write them with Manager::write_rows")]
    CallerOwned,
    /// The parameter belongs to a slot of another frequency than the one being set.
    #[error("it belongs to the {actual} frequency, not to {wanted}")]
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
    /// A struct's fields do not match the block: each mismatch, in field order.
    #[error("the struct `{rust}` does not match the block: {}", .mismatches.join("; "))]
    StructMismatch {
        /// The Rust struct.
        rust: &'static str,
        /// One line per field that the block lacks or lays out otherwise.
        mismatches: Vec<String>,
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

fn quoted_or_none(names: &[String]) -> String {
    if names.is_empty() { "none".into() } else { quoted(names) }
}
