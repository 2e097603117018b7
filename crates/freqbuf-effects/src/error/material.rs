//! Material and auto-constant errors: names no permutation has, values of the
//! wrong shape, semantics bound to a member of another frequency.

use super::format::suggest;
use freqbuf::{Error, Frequency};

use super::EffectError;

/// A material or auto constant could not be created, set or bound.
///
/// Its message is the subject, and the kind is its source; with no subject
/// (an effect's or the manager's error passed on), it is the kind itself.
pub struct MaterialError {
    /// What failed, as a sentence that names the effect, material member or
    /// semantic (`cannot set `colour` on the material`); empty when the inner
    /// error says it.
    pub subject: String,
    /// What went wrong.
    pub kind: Box<MaterialErrorKind>,
}

impl std::fmt::Display for MaterialError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.subject.is_empty() { self.kind.fmt(f) } else { f.write_str(&self.subject) }
    }
}

impl std::error::Error for MaterialError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        if self.subject.is_empty() { self.kind.source() } else { Some(&*self.kind) }
    }
}

/// What went wrong with a material or an auto constant.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MaterialErrorKind {
    /// No permutation of the effect has a member of that name.
    #[error("no permutation of effect `{effect}` has it{}", suggest(.suggestions))]
    Unknown {
        /// The effect.
        effect: String,
        /// Its closest names.
        suggestions: Vec<String>,
    },
    /// No loaded effect has a pass of that name (`technique.pass`).
    #[error("no loaded effect has a pass of that name{}", suggest(.suggestions))]
    UnknownPass {
        /// The closest pass names.
        suggestions: Vec<String>,
    },
    /// No permutation of the effect is registered with the manager yet.
    #[error(
        "no permutation of it is registered yet; create a material of it or build a pipeline first (Effects::shader), or bind against the registry of Effects::merge"
    )]
    NotRegistered,
    /// A `[params]` value (or a set value) does not fit the member.
    #[error("the member is {expected}, the value {found}")]
    BadValue {
        /// The member's type.
        expected: String,
        /// What the value is.
        found: String,
    },
    /// Not a semantic freqbuf knows.
    #[error("unknown semantic (the semantics are {}){}", .known.join(", "), suggest(.suggestions))]
    UnknownSemantic {
        /// The closest semantics, best first.
        suggestions: Vec<String>,
        /// Every semantic.
        known: Vec<&'static str>,
    },
    /// A value of a view and an object at once: it has no frequency.
    #[error(
        "`{semantic}` depends on both a view and an object, so it belongs to no frequency and would be recomputed per draw; bind `{view_part}` (view) and `{object_part}` (object) and multiply in the shader"
    )]
    TwoFrequencies {
        /// The semantic asked for.
        semantic: String,
        /// The view-frequency part to bind instead.
        view_part: &'static str,
        /// The object-frequency part to bind instead.
        object_part: &'static str,
    },
    /// The semantic's frequency is not the member's.
    #[error("`{member}` is in a {member_frequency} slot, but `{semantic}` changes per {semantic_frequency}")]
    WrongFrequency {
        /// The member.
        member: String,
        /// The semantic.
        semantic: &'static str,
        /// The member's slot's frequency.
        member_frequency: Frequency,
        /// The semantic's frequency.
        semantic_frequency: Frequency,
    },
    /// The semantic's type is not the member's.
    #[error("`{member}` is {member_type}, but `{semantic}` is {semantic_type}")]
    WrongType {
        /// The member.
        member: String,
        /// Its WGSL type.
        member_type: String,
        /// The semantic.
        semantic: &'static str,
        /// The semantic's WGSL type.
        semantic_type: &'static str,
    },
    /// A material this [`Materials`](crate::Materials) store did not create
    /// (the manager's own, or another store's), or a queue item of another queue.
    #[error("the handle belongs to another store")]
    Foreign,
    /// The effect layer failed (a permutation, a flag).
    #[error(transparent)]
    Effect(#[from] EffectError),
    /// The manager refused a value or resource.
    #[error(transparent)]
    Manager(#[from] Error),
}

impl From<EffectError> for MaterialError {
    fn from(e: EffectError) -> Self {
        MaterialError { subject: String::new(), kind: Box::new(MaterialErrorKind::Effect(e)) }
    }
}

impl From<Error> for MaterialError {
    fn from(e: Error) -> Self {
        MaterialError { subject: String::new(), kind: Box::new(MaterialErrorKind::Manager(e)) }
    }
}
