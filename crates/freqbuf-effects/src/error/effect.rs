//! The effects layer's two errors, each an outer part and a kind, in one
//! file because each can carry the other: [`EffectError`] (a bad effect
//! file, a permutation that does not compose, a flag the effect does not
//! have, permutations that disagree about a slot; an effect's `[params]`
//! table error is a material error) and [`MaterialError`] (names no
//! permutation has, values of the wrong shape, semantics bound to a member
//! of another frequency; a material's effect failure is an effect error).
//! What the kinds say of themselves is in `effect_kind.rs`.

use freqbuf::error::Location;
use freqbuf::{Error, Frequency};

use super::format::{Site, count, family_note, list, suggest};

/// An effect could not be loaded, composed, checked or built.
///
/// `file` and `location` point at the TOML file for file errors and into the
/// WGSL source (through naga_oil's preprocessing, which keeps lines and
/// columns) for composition errors.
#[derive(thiserror::Error)]
#[error("{} {}", kind.failed(), Site(file, *location))]
pub struct EffectError {
    /// The effect file, or the WGSL file the error is in.
    pub file: String,
    /// Where in it, when known.
    pub location: Option<Location>,
    /// What went wrong.
    #[source]
    pub kind: Box<EffectErrorKind>,
}

/// What went wrong with an effect.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EffectErrorKind {
    /// A file could not be read.
    #[error("cannot read the file: {0}")]
    Io(String),
    /// A pipeline cache file could not be written.
    #[error("cannot write the file: {0}")]
    Write(String),
    /// A pipeline cache file was loaded for a device without
    /// `wgpu::Features::PIPELINE_CACHE` (request it when the adapter offers it).
    #[error(
        "the device lacks wgpu::Features::PIPELINE_CACHE; request it, where the adapter offers it, to keep a pipeline cache"
    )]
    NoPipelineCache,
    /// The TOML is malformed, or a value is not one the format allows.
    #[error("{0}")]
    Toml(String),
    /// The effect's permutations are registered already, in their family.
    #[error("its permutations are registered in family `{family}`; set its family before the first")]
    FamilyFixed {
        /// The family they are in.
        family: String,
    },
    /// A flag the effect does not declare.
    #[error("effect `{effect}` has no flag `{flag}`; its flags are {}", list(.known))]
    UnknownFlag {
        /// The effect.
        effect: String,
        /// The flag asked for.
        flag: String,
        /// The flags it declares.
        known: Vec<String>,
    },
    /// A flag the device sets (`device_flags`), asked for by a material.
    #[error("flag `{flag}` of effect `{effect}` is set by the device (`device_flags`), not by materials")]
    DeviceFlag {
        /// The effect.
        effect: String,
        /// The flag.
        flag: String,
    },
    /// A flag combination the effect's constraints exclude.
    #[error("effect `{effect}` is never built with [{flags}]: {rule}")]
    FlagsNotAllowed {
        /// The effect.
        effect: String,
        /// The flags asked for, joined by `+`.
        flags: String,
        /// The constraint they break, as the effect file writes it.
        rule: String,
    },
    /// A technique the effect does not have.
    #[error("effect `{effect}` has no technique `{name}`; it has {}", list(.known))]
    UnknownTechnique {
        /// The effect.
        effect: String,
        /// The name asked for.
        name: String,
        /// Its techniques.
        known: Vec<String>,
    },
    /// [`Effects::only_pass`](crate::Effects::only_pass) of a technique with
    /// several passes (or none).
    #[error("technique `{technique}` of effect `{effect}` has {passes} passes; loop over Effects::technique")]
    NotOnePass {
        /// The effect.
        effect: String,
        /// The technique.
        technique: String,
        /// How many passes it has.
        passes: usize,
    },
    /// The effect's source or a stage file tests a name (`#ifdef`, `@if`)
    /// that is neither one of its flags nor one of its defs: a typo, or a
    /// flag the effect file does not declare, whose branch could never be taken.
    #[error(
        "`{name}` is tested here, and is neither a flag nor a def of the effect{}",
        suggest(.suggestions)
    )]
    UnknownTest {
        /// The name tested.
        name: String,
        /// The closest flags and defs, best first.
        suggestions: Vec<String>,
    },
    /// A flag is declared twice, or an effect declares more flags than fit.
    #[error("{0}")]
    BadFlags(String),
    /// A `[defs]` value is not a boolean, an integer that fits or a pastable
    /// token, names a flag, or is a string no source pastes.
    #[error("def `{name}` {what}")]
    BadDef {
        /// The def.
        name: String,
        /// What is wrong with it.
        what: String,
    },
    /// A pass names no vertex or compute entry point, or mixes compute with render stages.
    #[error("pass `{pass}` {what}")]
    BadPass {
        /// `technique.pass`.
        pass: String,
        /// What is wrong with it.
        what: &'static str,
    },
    /// Two techniques of an effect, or two passes of a technique, have one
    /// name: the second could never be selected. The error is at the
    /// second; `first` is the first's `line:column` in the same file.
    #[error("{what} `{name}` is declared twice: first at {first}, again here")]
    DuplicateName {
        /// `technique` or `pass`.
        what: &'static str,
        /// The technique's name, or `technique.pass`.
        name: String,
        /// Where the first one is named.
        first: Location,
    },
    /// Modules import each other in a cycle: naga_oil adds a module only
    /// after those it imports, so none of them could be added.
    #[error("`#import {import}` closes an import cycle: {}", .cycle.join(" imports "))]
    ImportCycle {
        /// The import path that closes it.
        import: String,
        /// The module files around it, the first again at the end.
        cycle: Vec<String>,
    },
    /// Two module files declare one `#define_import_path` and an effect or
    /// module imports it (or an effect file lists both): which one is meant
    /// cannot be told.
    #[error(
        "{} files declare `#define_import_path {import}`: {}; list the one to use in the effect file's `modules`",
        count(.files.len()),
        .files.join(" and ")
    )]
    DuplicateImportPath {
        /// The import path.
        import: String,
        /// The files that declare it.
        files: Vec<String>,
    },
    /// naga_oil could not compose the source with these flags, or naga
    /// refused what it composed.
    #[error("with [{flags}], {by} refused it: {message}")]
    Compose {
        /// The flag combination.
        flags: String,
        /// `naga_oil` (preprocessing, imports), `naga's WGSL parser` or
        /// `naga's validator`: a shader naga refuses may be one an older
        /// naga took (Bevy's), not freqbuf's to fix.
        by: &'static str,
        /// naga_oil's message, without its decoration.
        message: String,
        /// naga_oil's error, with its spans (not a source: `message` says it).
        composer: Box<naga_oil::compose::ComposerError>,
    },
    /// naga_oil panicked on this input (a bug of its, caught).
    #[error("with [{flags}], naga_oil panicked: {message}")]
    Panic {
        /// The flag combination (empty for a module).
        flags: String,
        /// The panic's message.
        message: String,
    },
    /// The WESL compiler refused a permutation; the error's file and
    /// position are in the `.wesl` file it points at.
    #[error("with [{flags}], the WESL compiler refused it: {message}")]
    WeslCompiler {
        /// The flag combination.
        flags: String,
        /// The compiler's message, with mangled names written as `module::item`.
        message: String,
    },
    /// naga refused the WGSL that the WESL compiler made of a permutation;
    /// the error's position is mapped back into the `.wesl` file.
    #[error("with [{flags}], naga refused the WGSL compiled from it: {message}")]
    WeslNaga {
        /// The flag combination.
        flags: String,
        /// naga's message, with mangled names written as `module::item`.
        message: String,
    },
    /// freqbuf refused how a WESL source is set up: a package name or
    /// folder, `[packages]` for a WGSL source, WESL mixed with naga_oil files.
    #[error("{0}")]
    WeslSetup(String),
    /// A WESL source in a build of freqbuf-effects without its `wesl` feature.
    #[error("`{0}` is WESL, and this build of freqbuf-effects lacks its `wesl` feature")]
    WeslOff(String),
    /// A pipeline of a pass was asked for without the flags the pass requires.
    #[error("pass `{pass}` exists only with {requires}, and the flags are [{flags}]")]
    PassNeedsFlags {
        /// `technique.pass`.
        pass: String,
        /// The flags it requires.
        requires: String,
        /// The flags asked for.
        flags: String,
    },
    /// A permutation lacks an entry point its pass names.
    #[error("pass `{pass}` [{flags}]: the permutation has no {stage} entry point `{entry}`")]
    MissingEntryPoint {
        /// `technique.pass`.
        pass: String,
        /// The flag combination.
        flags: String,
        /// `vertex`, `fragment` or `compute`.
        stage: &'static str,
        /// The entry point's name.
        entry: String,
    },
    /// A permutation's blocks disagree with another permutation (or another
    /// registered shader) about a slot.
    #[error(
        "the permutation with [{flags}] (passes {passes}) does not fit the others{}",
        family_note(.family, .shared_with)
    )]
    Conflict {
        /// The flag combination.
        flags: String,
        /// The passes that use it.
        passes: String,
        /// The effect's family.
        family: String,
        /// The other loaded effects in that family.
        shared_with: Vec<String>,
        /// The layout error, naming both members.
        #[source]
        source: Box<Error>,
    },
    /// Registering a permutation, or building its pipeline, failed.
    #[error("the permutation with [{flags}] was refused")]
    Register {
        /// The flag combination.
        flags: String,
        /// The manager's error.
        #[source]
        source: Box<Error>,
    },
    /// A pipeline was asked for with a pass of one effect and flags of another.
    #[error(
        "pass `{pass}` is of effect `{effect}` (family `{family}`), but the flags are of effect `{flags_effect}` (family `{flags_family}`)"
    )]
    OtherEffect {
        /// `technique.pass`.
        pass: String,
        /// The pass's effect.
        effect: String,
        /// The pass's effect's family.
        family: String,
        /// The effect the flags (a material's) were made for.
        flags_effect: String,
        /// That effect's family.
        flags_family: String,
    },
    /// An effect id, pass or flag set of another [`Effects`](crate::Effects) library.
    #[error("the {what} belongs to another effect library")]
    Foreign {
        /// `effect id`, `pass` or `flag set`.
        what: &'static str,
    },
    /// The pass is a render pass where a compute pass was asked for, or the reverse.
    #[error("pass `{pass}` is not a {wanted} pass")]
    WrongKind {
        /// `technique.pass`.
        pass: String,
        /// `render` or `compute`.
        wanted: &'static str,
    },
    /// A `[params]` or `[auto]` entry that no permutation declares, or that
    /// does not fit its member (a default's numbers, a semantic's type or
    /// frequency), found by the whole-effect check; or, at load, an `[auto]`
    /// semantic that does not exist.
    #[error("an entry of the effect's [params] or [auto] table is refused")]
    Tables(#[source] MaterialError),
    /// The whole-effect check found a combination that fails to compose, and
    /// a flag rule that excludes it while keeping every combination that
    /// composes (`Effects::suggest_rules`; only where the rules allow at most
    /// `SUGGEST_WITHIN` combinations, since finding it composes them all).
    #[error("{cause}; `{rule}` would exclude it and keep every combination that composes")]
    Excludable {
        /// The rule, as the effect file writes it (`at_most_one = [["A", "B"]]`).
        rule: String,
        /// Why the combination fails: a composition kind.
        cause: Box<EffectErrorKind>,
    },
}

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
