//! Reflection errors: a shader that cannot be parsed, validated or laid out.

use super::location::{Location, Site};

/// A shader could not be reflected.
#[derive(Clone, thiserror::Error)]
#[error("cannot reflect {}", Site(shader, *location))]
pub struct ReflectError {
    /// The shader's name (its path, when it came from a file).
    pub shader: String,
    /// Where in the source, when the front end knows.
    pub location: Option<Location>,
    /// What went wrong.
    #[source]
    pub kind: ReflectErrorKind,
}

/// What went wrong while reflecting a shader.
///
/// naga's own errors are kept as they are: match on them, take their spans
/// (`ParseError::labels`, `WithSpan::spans`) or render them with naga's
/// `emit_to_string`. Each level's message is its own; naga's follows as the
/// [`source`](std::error::Error::source), as error reporters print chains.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReflectErrorKind {
    /// The WGSL front end rejected the source.
    #[error("WGSL parse error")]
    Wgsl(#[source] naga::front::wgsl::ParseError),
    /// The GLSL front end rejected the source.
    #[cfg(feature = "glsl")]
    // Not a source: naga's `Display` for these is their `Debug`; this
    // message is their kinds, and the typed errors (with spans) stay here.
    #[error("GLSL parse error: {}", glsl_message(.0))]
    Glsl(naga::front::glsl::ParseErrors),
    /// The SPIR-V front end rejected the binary.
    #[cfg(feature = "spirv")]
    #[error("SPIR-V parse error")]
    Spirv(#[source] naga::front::spv::Error),
    /// naga's validator rejected the module.
    #[error("validation error")]
    Validation(#[source] Box<naga::WithSpan<naga::valid::ValidationError>>),
    /// The input language needs a feature this build of freqbuf does not have.
    #[error("this input needs freqbuf's `{feature}` feature")]
    FeatureOff {
        /// The Cargo feature.
        feature: &'static str,
    },
    /// [`ShaderReflection::for_entry_points`](crate::reflect::ShaderReflection::for_entry_points)
    /// was given a name the module has no entry point of.
    #[error("no entry point `{name}`; the module has {}", .known.join(", "))]
    UnknownEntryPoint {
        /// The name asked for.
        name: String,
        /// The module's entry points.
        known: Vec<String>,
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

/// Kinds are equal when they are the same failure: naga's errors, which have
/// no `PartialEq`, compare by their messages.
impl PartialEq for ReflectErrorKind {
    fn eq(&self, other: &Self) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other) && self.to_string() == other.to_string()
    }
}

impl Eq for ReflectErrorKind {}

#[cfg(feature = "glsl")]
fn glsl_message(e: &naga::front::glsl::ParseErrors) -> String {
    e.errors.iter().map(|e| e.kind.to_string()).collect::<Vec<_>>().join("; ")
}
