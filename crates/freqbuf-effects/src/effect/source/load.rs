//! Loading effects: effect files and their sources, module files, and the
//! checks that make a loaded effect consistent (`Effects::insert`).

use std::ops::Range;
use std::path::Path;

use crate::effect::source::file::{EffectFile, ReadStage, read_text};
use crate::effect::source::sites::locate;
use crate::effect::types::{Bits, Effect, EffectId, Pass, WeslInput};
use crate::error::{EffectError, EffectErrorKind};

use crate::effect::library::Effects;

impl Effects {
    /// Adds a WGSL module that effect sources `#import` (it names itself
    /// with `#define_import_path`), for example the output of [`Registry::declarations_module`](freqbuf::Registry::declarations_module).
    ///
    /// Effects loaded before it that import it (directly or not) learn the
    /// flags it tests: their permutations are keyed again, and any composed
    /// without it are dropped.
    pub fn add_module(&mut self, file: &str, source: &str) -> Result<(), EffectError> {
        self.compose.add_module(file, source)?;
        for index in 0..self.catalog.len() {
            let effect = &self.catalog[index];
            // A WESL effect's imports are its packages' files, not modules.
            if effect.wesl.is_some() {
                continue;
            }
            let tested = self.tested_bits(effect.sources(), &effect.flags, &effect.passes);
            if tested != self.catalog[index].tested {
                self.catalog[index].tested = tested;
                self.forget(self.catalog.id(index as u32));
            }
        }
        Ok(())
    }

    /// The bits of `flags` that `source` or what it imports tests, and those
    /// a pass requires: they decide whether the pass exists, so they change
    /// the permutation even where the source never tests them.
    fn tested_bits<'a>(
        &self,
        sources: impl Iterator<Item = &'a str>,
        flags: &[String],
        passes: &[Pass],
    ) -> Bits {
        let names = sources.flat_map(|s| self.compose.tested(s)).collect::<std::collections::BTreeSet<_>>();
        let tested =
            flags.iter().enumerate().filter(|(_, f)| names.contains(*f)).fold(0, |m, (i, _)| m | 1 << i);
        passes.iter().fold(tested, |m, p| m | p.deciding())
    }

    /// Reads an effect file and the WGSL source it names (relative to it).
    pub fn load(&mut self, path: impl AsRef<Path>) -> Result<EffectId, EffectError> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let toml_text = read_text(path).map_err(|e| EffectError {
            file: file.clone(),
            location: None,
            kind: Box::new(EffectErrorKind::Io(e)),
        })?;
        let parsed = parse(&file, &toml_text)?;
        let dir = path.parent().unwrap_or(Path::new(""));
        self.add_listed_modules(&file, &toml_text, dir, &parsed.modules)?;
        let source_path = dir.join(parsed.source.get_ref());
        let source_file = source_path.display().to_string();
        let source = read_text(&source_path).map_err(|e| EffectError {
            file: file.clone(),
            location: Some(locate(&toml_text, parsed.source.span().start)),
            kind: Box::new(EffectErrorKind::Io(format!("{source_file}: {e}"))),
        })?;
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("effect");
        let stem = stem.strip_suffix(".effect").unwrap_or(stem);
        let mut read = |name: &str| {
            let at = dir.join(name);
            read_text(&at)
                .map(|text| (at.display().to_string(), text))
                .map_err(|e| format!("{}: {e}", at.display()))
        };
        self.insert(&file, &toml_text, parsed, stem, (source_file, source), (Some(dir), &mut read))
    }

    /// Adds an effect from text: `file` names the TOML in errors, and the
    /// WGSL `source` stands for the file its `source` field names.
    /// Its `modules` must have been added with [`Effects::add_module`]
    /// (only [`Effects::load`] reads files).
    pub fn add(&mut self, file: &str, toml_text: &str, source: &str) -> Result<EffectId, EffectError> {
        let parsed = parse(file, toml_text)?;
        let name = parsed.source.get_ref().clone();
        self.add_parsed(file, toml_text, parsed, (name, source), &[])
    }

    /// Like [`Effects::add`] for an effect whose passes take stages from
    /// other files (`vertex = { source = "mesh2d.wgsl", entry = "vertex" }`):
    /// `files` holds each by the name the effect file gives it, the `source`
    /// among them. A name not in `files` is an error at its place in the file.
    pub fn add_files(
        &mut self,
        file: &str,
        toml_text: &str,
        files: &[(&str, &str)],
    ) -> Result<EffectId, EffectError> {
        let parsed = parse(file, toml_text)?;
        let name = parsed.source.get_ref().clone();
        let Some(&(_, source)) = files.iter().find(|(n, _)| *n == name) else {
            return Err(EffectError {
                file: file.to_owned(),
                location: Some(locate(toml_text, parsed.source.span().start)),
                kind: Box::new(EffectErrorKind::Io(format!("{name}: not among the files given"))),
            });
        };
        self.add_parsed(file, toml_text, parsed, (name, source), files)
    }

    fn add_parsed(
        &mut self,
        file: &str,
        toml_text: &str,
        parsed: EffectFile,
        (name, source): (String, &str),
        files: &[(&str, &str)],
    ) -> Result<EffectId, EffectError> {
        let stem = Path::new(file).file_stem().and_then(|s| s.to_str()).unwrap_or("effect");
        let stem = stem.strip_suffix(".effect").unwrap_or(stem).to_owned();
        let mut read = |wanted: &str| match files.iter().find(|(n, _)| *n == wanted) {
            Some(&(n, text)) => Ok((n.to_owned(), text.to_owned())),
            None => Err(format!("{wanted}: not among the files given")),
        };
        self.insert(file, toml_text, parsed, &stem, (name, source.to_owned()), (None, &mut read))
    }

    fn insert(
        &mut self,
        file: &str,
        toml_text: &str,
        parsed: EffectFile,
        stem: &str,
        (source_file, mut source): (String, String),
        // Where its other files come from: on disk under the effect file's
        // folder (`load`), or by name (`add`, `add_files`).
        (disk, read): (Option<&Path>, ReadStage<'_>),
    ) -> Result<EffectId, EffectError> {
        let at = |span: Range<usize>, kind| EffectError {
            file: file.to_owned(),
            location: Some(locate(toml_text, span.start)),
            kind: Box::new(kind),
        };
        let flags = crate::effect::source::parse::flags(&parsed.flags, &at)?;
        if let Some((what, name, first, second)) = parsed.duplicate_name() {
            let first = locate(toml_text, first.start);
            return Err(at(second, EffectErrorKind::DuplicateName { what, name, first }));
        }
        let rules = crate::effect::source::parse::rules(&parsed, &flags, file, &at)?;
        let device = crate::effect::source::parse::device_flags(&parsed.device_flags, &flags, &at)?;
        let auto = crate::effect::source::parse::auto(&parsed.auto, &at)?;
        let (defs, pastes) =
            crate::effect::source::parse::defs(&parsed.defs, &flags, &self.code_defs, file, &at)?;
        let (techniques, passes, mut stage_files) = crate::effect::source::parse::techniques(
            parsed.technique,
            (&flags, (parsed.source.get_ref(), &source_file, &source)),
            &mut *read,
            &at,
        )?;
        // Before anything reads the texts: string defs pasted over `##NAME##`.
        let stages = stage_files.iter_mut().map(|f| (f.file.as_str(), &mut f.text));
        let texts = std::iter::once((source_file.as_str(), &mut source)).chain(stages);
        crate::effect::source::parse::paste(&pastes, texts, &at)?;
        let pasted = pastes.into_iter().map(|p| p.0).collect();
        let wesl = self.prepare_wesl(WeslInput {
            file,
            toml_text,
            packages: &parsed.packages,
            disk,
            source: (&source_file, &source, parsed.source.span()),
            stages: &stage_files,
            read,
        })?;
        check_tested_names((&source_file, &source), &stage_files, &flags, &defs)?;
        let tested = match &wesl {
            Some(w) => passes.iter().fold(w.tested_bits(&flags), |m, p| m | p.deciding()),
            None => self.naga_oil_tested((&source_file, &source), &stage_files, &flags, &passes)?,
        };
        let name = parsed.name.unwrap_or_else(|| stem.to_owned());
        let effect = Effect {
            file: file.to_owned(),
            family: parsed.family.unwrap_or_else(|| name.clone()),
            name,
            source_file,
            source,
            stage_files,
            flags,
            rules,
            device,
            defs,
            pasted,
            wesl,
            tested,
            params: parsed.params,
            auto,
            techniques,
            passes,
        };
        Ok(self.catalog.push(effect))
    }
}

impl Effects {
    /// The flags a naga_oil effect's texts (and what they import) test,
    /// with those its passes require; the modules of the searched folders
    /// that they import are added first.
    fn naga_oil_tested(
        &mut self,
        (source_file, source): (&str, &str),
        stage_files: &[crate::effect::types::StageSource],
        flags: &[String],
        passes: &[Pass],
    ) -> Result<Bits, EffectError> {
        self.add_imported_modules(source_file, source)?;
        for f in stage_files {
            self.add_imported_modules(&f.file, &f.text)?;
        }
        let texts = std::iter::once(source).chain(stage_files.iter().map(|f| f.text.as_str()));
        Ok(self.tested_bits(texts, flags, passes))
    }
}

/// A name the effect's own texts test is one of its flags or defs (a
/// stage's own included): checked in the source and each stage file.
fn check_tested_names(
    (source_file, source): (&str, &str),
    stage_files: &[crate::effect::types::StageSource],
    flags: &[String],
    defs: &[(String, naga_oil::compose::ShaderDefValue)],
) -> Result<(), EffectError> {
    let stage_defs = stage_files.iter().flat_map(|f| f.defs.iter().map(|(n, _)| n));
    let known = flags
        .iter()
        .chain(defs.iter().map(|(n, _)| n))
        .chain(stage_defs)
        .map(String::as_str)
        .collect::<Vec<_>>();
    crate::effect::source::tested_names::check(source_file, source, &known)?;
    for f in stage_files {
        crate::effect::source::tested_names::check(&f.file, &f.text, &known)?;
    }
    Ok(())
}

fn parse(file: &str, text: &str) -> Result<EffectFile, EffectError> {
    toml::from_str(text).map_err(|e: toml::de::Error| EffectError {
        file: file.to_owned(),
        location: e.span().map(|s| locate(text, s.start)),
        kind: Box::new(EffectErrorKind::Toml(e.message().trim_end().to_owned())),
    })
}

impl Effects {
    /// The WESL sources of an effect (its files read once, its `@if` names
    /// found), or `None` for a naga_oil one. A WGSL effect with `[packages]`
    /// or a `.wesl` stage file is refused, as is WESL in a build without the
    /// `wesl` feature.
    pub(in crate::effect) fn prepare_wesl(
        &mut self,
        input: WeslInput<'_>,
    ) -> Result<Option<std::sync::Arc<crate::effect::source::wesl::Sources>>, EffectError> {
        let at = |span: Range<usize>, what: String| EffectError {
            file: input.file.to_owned(),
            location: Some(locate(input.toml_text, span.start)),
            kind: Box::new(EffectErrorKind::WeslSetup(what)),
        };
        let (source_file, _, span) = &input.source;
        if !crate::effect::source::wesl::is_wesl(source_file) {
            if let Some((name, value)) = input.packages.iter().next() {
                return Err(at(
                    value.span(),
                    format!(
                        "package `{name}`: [packages] are for WESL sources, and `{source_file}` is not one"
                    ),
                ));
            }
            if let Some(stage) = input.stages.iter().find(|s| crate::effect::source::wesl::is_wesl(&s.name)) {
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

/// Without the `wesl` feature a WESL source is refused by name.
#[cfg(not(feature = "wesl"))]
impl Effects {
    pub(in crate::effect) fn discover_wesl(
        &mut self,
        input: WeslInput<'_>,
    ) -> Result<crate::effect::source::wesl::Sources, EffectError> {
        Err(EffectError {
            file: input.file.to_owned(),
            location: Some(locate(input.toml_text, input.source.2.start)),
            kind: Box::new(EffectErrorKind::WeslOff(input.source.0.to_owned())),
        })
    }
}
