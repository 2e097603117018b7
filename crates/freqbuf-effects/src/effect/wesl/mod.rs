//! WESL sources (`.wesl`), compiled one permutation at a time by the `wesl`
//! crate, as Bevy 0.20 compiles its shaders: `@if(...)` names are the
//! effect's flags, `[packages]` map package names to folders, and `[defs]`
//! become the virtual `constants` package. Behind the `wesl` feature; without
//! it, a `.wesl` source is refused by name.
//!
//! `discover` finds, once per effect, the files a source can import and the
//! names its `@if`s test; `compile` compiles one permutation of them into the
//! naga module the rest of the layer reflects, as it does naga_oil's.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use toml::Spanned;

use super::compose::locate;
use super::library::Effects;
use super::types::StageSource;
use crate::error::{EffectError, EffectErrorKind};

#[cfg(feature = "wesl")]
mod compile;
#[cfg(feature = "wesl")]
mod discover;
#[cfg(feature = "wesl")]
mod map;
#[cfg(feature = "wesl")]
mod public;

#[cfg(feature = "wesl")]
pub(crate) use discover::{Library, Sources};

#[cfg(not(feature = "wesl"))]
mod stub;
#[cfg(not(feature = "wesl"))]
pub(crate) use stub::{Library, Sources};

/// What an effect file says about its sources, for [`Effects::prepare_wesl`].
#[cfg_attr(not(feature = "wesl"), allow(dead_code, reason = "read only to compile WESL"))]
pub(super) struct Input<'a> {
    /// The effect file and its text, for errors.
    pub(super) file: &'a str,
    pub(super) toml_text: &'a str,
    /// `[packages]`, relative to the effect file.
    pub(super) packages: &'a BTreeMap<String, Spanned<String>>,
    /// The effect file's folder when its files are on disk (`Effects::load`);
    /// `None` when they come through `read` by name (`add`, `add_files`).
    pub(super) disk: Option<&'a Path>,
    /// The source: its path (for errors), its text, and where the effect file names it.
    pub(super) source: (&'a str, &'a str, Range<usize>),
    pub(super) stages: &'a [StageSource],
    /// Reads a file by its name relative to the effect file.
    pub(super) read: super::load::ReadStage<'a>,
}

/// Whether a file name is WESL's.
pub(super) fn is_wesl(name: &str) -> bool {
    Path::new(name).extension().is_some_and(|e| e == "wesl")
}

impl Effects {
    /// The WESL sources of an effect (its files read once, its `@if` names
    /// found), or `None` for a naga_oil one. A WGSL effect with `[packages]`
    /// or a `.wesl` stage file is refused, as is WESL in a build without the
    /// `wesl` feature.
    pub(super) fn prepare_wesl(
        &mut self,
        input: Input<'_>,
    ) -> Result<Option<std::sync::Arc<Sources>>, EffectError> {
        let at = |span: Range<usize>, what: String| EffectError {
            file: input.file.to_owned(),
            location: Some(locate(input.toml_text, span.start)),
            kind: Box::new(EffectErrorKind::WeslSetup(what)),
        };
        let (source_file, _, span) = &input.source;
        if !is_wesl(source_file) {
            if let Some((name, value)) = input.packages.iter().next() {
                return Err(at(
                    value.span(),
                    format!(
                        "package `{name}`: [packages] are for WESL sources, and `{source_file}` is not one"
                    ),
                ));
            }
            if let Some(stage) = input.stages.iter().find(|s| is_wesl(&s.name)) {
                return Err(at(
                    span.clone(),
                    format!(
                        "`{}` is WESL and the source `{source_file}` is not; compose them alike",
                        stage.name
                    ),
                ));
            }
            return Ok(None);
        }
        self.discover_wesl(input).map(|s| Some(std::sync::Arc::new(s)))
    }
}
