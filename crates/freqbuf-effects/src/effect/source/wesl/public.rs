//! The library's WESL entry points: packages shared by every effect, and one
//! WESL file reflected without an effect file (the CLI's `reflect` and
//! `declare`).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use super::compile::Compiled;
use super::discover::{Finder, Root, Sources, normalize};
use crate::DefValue;
use crate::effect::library::Effects;
use crate::effect::source::file::read_text;
use crate::effect::source::sites::locate;
use crate::effect::types::WeslInput as Input;
use crate::error::{EffectError, EffectErrorKind};
use freqbuf::reflect::ShaderReflection;

impl Effects {
    /// Makes `dir` the WESL package `name` for every effect loaded after
    /// (an effect's own `[packages]` take precedence): `import
    /// name::a::b::item` reads `dir/a/b.wesl` when a declaration uses
    /// `item`. The CLI's `--package`.
    ///
    /// A name that is not an identifier, or is WESL's (`package`, `super`,
    /// `self`, `constants`), a folder that is not one, or a name given two
    /// folders, is [`EffectErrorKind::WeslSetup`].
    pub fn add_package(&mut self, name: &str, dir: impl AsRef<Path>) -> Result<(), EffectError> {
        let dir = dir.as_ref();
        let refuse = |what: String| EffectError {
            file: dir.display().to_string(),
            location: None,
            kind: Box::new(EffectErrorKind::WeslSetup(what)),
        };
        check_name(name).map_err(refuse)?;
        if !dir.is_dir() {
            return Err(refuse(format!("package `{name}`: {} is not a folder", dir.display())));
        }
        match self.wesl.packages.get(name) {
            Some(first) if normalize(first) != normalize(dir) => Err(refuse(format!(
                "package `{name}` is given two folders: {} and {}",
                first.display(),
                dir.display()
            ))),
            _ => {
                self.wesl.packages.insert(name.to_owned(), dir.to_path_buf());
                Ok(())
            }
        }
    }

    /// Adds every folder that `pattern` matches as a package named by the
    /// folder its last wildcard matched, `-` read as `_`: with
    /// `crates/*/src`, `crates/bevy_render/src` is `bevy_render` (Bevy's
    /// layout, in one call). Returns the names, sorted. The CLI's `--packages`.
    ///
    /// A bad pattern, one that matches no folder, or two folders of one name
    /// is [`EffectErrorKind::WeslSetup`].
    pub fn add_packages(&mut self, pattern: &str) -> Result<Vec<String>, EffectError> {
        let refuse = |what: String| EffectError {
            file: pattern.to_owned(),
            location: None,
            kind: Box::new(EffectErrorKind::WeslSetup(what)),
        };
        let matches = glob::glob(pattern).map_err(|e| refuse(e.to_string()))?;
        let mut dirs = matches.filter_map(Result::ok).filter(|p| p.is_dir()).collect::<Vec<_>>();
        dirs.sort();
        if dirs.is_empty() {
            return Err(refuse("no folder matches".into()));
        }
        let parts = Path::new(pattern).iter().collect::<Vec<_>>();
        let wild = parts.iter().rposition(|c| c.to_string_lossy().contains(['*', '?', '[']));
        let mut names = Vec::new();
        for dir in dirs {
            let at = match wild {
                Some(w) if dir.iter().count() == parts.len() => w,
                _ if dir.ends_with("src") => dir.iter().count().saturating_sub(2),
                _ => dir.iter().count().saturating_sub(1),
            };
            let name = dir.iter().nth(at).map_or_else(String::new, |c| c.to_string_lossy().replace('-', "_"));
            self.add_package(&name, &dir)?;
            names.push(name);
        }
        names.sort();
        Ok(names)
    }

    /// One permutation of a WESL file, compiled (its imports through the
    /// packages of [`Effects::add_package`]) and reflected: `flags` switched
    /// on, `defs` as an effect's `[defs]` (booleans switch `@if` names,
    /// integers are `constants::NAME` and switch their name on). What the
    /// CLI's `reflect` and `declare` read a `.wesl` file with.
    pub fn reflect_wesl(
        &mut self,
        path: impl AsRef<Path>,
        flags: &[&str],
        defs: &[(&str, DefValue)],
    ) -> Result<ShaderReflection, EffectError> {
        crate::effect::source::with_defs::check_code_defs(defs)?;
        let path = path.as_ref();
        let name = path.display().to_string();
        let text = read_text(path).map_err(|e| EffectError {
            file: name.clone(),
            location: None,
            kind: Box::new(EffectErrorKind::Io(e)),
        })?;
        let packages = self.library_roots();
        let (sources, reads) =
            Finder::new(packages, &mut self.wesl, None).run(vec![(name.clone(), text, true)]);
        self.stats.module_files += reads;
        let defs = defs.iter().map(|&(n, v)| (n.to_owned(), v.to_naga_oil())).collect::<Vec<_>>();
        let described = if flags.is_empty() { "no flags".to_owned() } else { flags.join("+") };
        let Compiled { module, map, .. } =
            super::permutation(&Arc::new(sources), 0, &defs, flags, (&name, &described))?;
        self.stats.compositions += 1;
        let shown = if flags.is_empty() { name } else { format!("{name}[{described}]") };
        ShaderReflection::from_module(shown, module).map_err(|e| map.reflect_error(e, &described))
    }

    fn library_roots(&self) -> BTreeMap<String, Root> {
        let roots =
            self.wesl.packages.iter().map(|(n, d)| (n.clone(), Root { dir: d.clone(), memory: false }));
        roots.collect()
    }

    /// Reads what an effect's WESL source and stage files import (by their
    /// packages: the library's, then the effect file's own).
    pub(in crate::effect) fn discover_wesl(&mut self, input: Input<'_>) -> Result<Sources, EffectError> {
        let mut packages = self.library_roots();
        for (name, value) in input.packages {
            let at = |what: String| EffectError {
                file: input.file.to_owned(),
                location: Some(locate(input.toml_text, value.span().start)),
                kind: Box::new(EffectErrorKind::WeslSetup(what)),
            };
            check_name(name).map_err(at)?;
            let root = match input.disk {
                Some(dir) => {
                    let folder = dir.join(value.get_ref());
                    if !folder.is_dir() {
                        return Err(at(format!("package `{name}`: {} is not a folder", folder.display())));
                    }
                    Root { dir: folder, memory: false }
                }
                None => Root { dir: normalize(Path::new(value.get_ref())), memory: true },
            };
            packages.insert(name.clone(), root);
        }
        let disk = input.disk.is_some();
        let (source, text, _) = input.source;
        let mut mains = vec![(source.to_owned(), text.to_owned(), disk)];
        mains.extend(input.stages.iter().map(|s| (s.file.clone(), s.text.clone(), disk)));
        let read = if disk { None } else { Some(input.read) };
        let (sources, reads) = Finder::new(packages, &mut self.wesl, read).run(mains);
        self.stats.module_files += reads;
        Ok(sources)
    }
}

/// A package name WESL can import: an identifier that is not one of its words.
fn check_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let ident = chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_');
    if !ident || ["package", "super", "self", "constants", "_"].contains(&name) {
        return Err(format!(
            "`{name}` cannot name a WESL package (an identifier other than package, super, self or constants)"
        ));
    }
    Ok(())
}
