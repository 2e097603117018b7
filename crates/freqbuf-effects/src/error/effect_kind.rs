//! What an [`EffectErrorKind`] says of itself: whether a flag rule could
//! exclude it, the combination it names, and the verb of its message.

use super::effect::EffectErrorKind;

impl EffectErrorKind {
    /// Whether the kind is a failed composition: naga_oil's, the WESL
    /// compiler's or naga's refusal, or a caught panic (what a flag rule
    /// could exclude; `Excludable` already names one).
    pub fn is_composition(&self) -> bool {
        use EffectErrorKind as K;
        matches!(self, K::Compose { .. } | K::Panic { .. } | K::WeslCompiler { .. } | K::WeslNaga { .. })
    }

    /// The failing combination's flags, as a composition kind names them.
    pub(crate) fn flags(&self) -> Option<&str> {
        use EffectErrorKind as K;
        match self {
            K::Compose { flags, .. }
            | K::Panic { flags, .. }
            | K::WeslCompiler { flags, .. }
            | K::WeslNaga { flags, .. } => Some(flags),
            _ => None,
        }
    }

    /// The outer error's verb: what failed, in the words of the step it failed in.
    pub(super) fn failed(&self) -> &'static str {
        use EffectErrorKind as K;
        match self {
            K::Excludable { cause, .. } => cause.failed(),
            K::Write(_) => "cannot save",
            K::NoPipelineCache => "cannot keep a pipeline cache in",
            K::Io(_)
            | K::Toml(_)
            | K::UnknownTest { .. }
            | K::BadFlags(_)
            | K::BadPass { .. }
            | K::DuplicateName { .. }
            | K::ImportCycle { .. }
            | K::WeslSetup(_)
            | K::WeslOff(_) => "cannot load",
            // Both at load and later: a load's `[auto]` semantics and the
            // whole-effect check's tables; a module folder's files and a
            // permutation's imports; an effect file's defs and `set_defs`.
            K::Tables(_) => "cannot check the tables of",
            K::DuplicateImportPath { .. } => "cannot resolve an import of",
            K::BadDef { .. } => "cannot take",
            K::Compose { .. } | K::Panic { .. } | K::WeslCompiler { .. } | K::WeslNaga { .. } => {
                "cannot compose"
            }
            K::Conflict { .. } => "cannot merge the permutations of",
            K::Register { .. } | K::MissingEntryPoint { .. } => "cannot build",
            K::FamilyFixed { .. }
            | K::UnknownFlag { .. }
            | K::DeviceFlag { .. }
            | K::FlagsNotAllowed { .. }
            | K::UnknownTechnique { .. }
            | K::NotOnePass { .. }
            | K::PassNeedsFlags { .. }
            | K::OtherEffect { .. }
            | K::Foreign { .. }
            | K::WrongKind { .. } => "cannot use",
        }
    }
}
