//! Module files: the `modules` an effect file lists (paths and globs,
//! relative to it) and directories searched by `#define_import_path`, the way
//! a Bevy-style library of shader modules is laid out. Each file is read and
//! added once, however many effects import it, after the modules it imports,
//! whatever order the files are listed or found in.

use std::path::{Path, PathBuf};

use toml::Spanned;

use crate::effect::library::Effects;
use crate::effect::source::file::read_text;
use crate::effect::source::module_files::{Listed, canonical};
use crate::effect::source::sites::locate;
use crate::error::{EffectError, EffectErrorKind};

impl Effects {
    /// Makes every `.wgsl` file under `dir` (searched recursively) available
    /// to `#import` by the path it names with `#define_import_path`: a module
    /// is read and added when an effect added later imports it (directly or
    /// through another module), and only then. The CLI's `--module-dir`.
    ///
    /// Cost: one read of each file's text when indexed. Two files naming one
    /// import path (Bevy's real and dummy modules) are
    /// [`EffectErrorKind::DuplicateImportPath`] when a permutation composes
    /// an import of that path, not before, unless an effect file lists one
    /// of them (`modules`), which settles it; an unreadable directory or
    /// file is [`EffectErrorKind::Io`].
    pub fn add_module_dir(&mut self, dir: impl AsRef<Path>) -> Result<(), EffectError> {
        let dir = dir.as_ref();
        let io = |what: String| EffectError {
            file: dir.display().to_string(),
            location: None,
            kind: Box::new(EffectErrorKind::Io(what)),
        };
        let pattern = dir.join("**").join("*.wgsl");
        let files = glob::glob(&pattern.to_string_lossy()).map_err(|e| io(e.to_string()))?;
        let mut found = files.collect::<Result<Vec<_>, _>>().map_err(|e| io(e.to_string()))?;
        found.sort();
        let mut named = Vec::new();
        for path in found {
            let text = read_text(&path).map_err(|e| io(format!("{}: {e}", path.display())))?;
            if let (Some(name), _, _) = naga_oil::compose::get_preprocessor_data(&text) {
                named.push((name, path));
            }
        }
        // Indexed only once the whole directory was read: a failed call adds nothing.
        for (name, path) in named {
            self.module_files.found(name, path);
        }
        Ok(())
    }

    /// Adds the module files an effect file lists, globs expanded, each once,
    /// each after the listed or searched modules it imports. A glob skips
    /// the files it matches that name no `#define_import_path` (entry
    /// shaders beside the modules, as in Bevy's crates); a file named
    /// without a glob must be a module.
    pub(in crate::effect) fn add_listed_modules(
        &mut self,
        file: &str,
        toml_text: &str,
        dir: &Path,
        modules: &[Spanned<String>],
    ) -> Result<(), EffectError> {
        let mut listed = Listed::default();
        for module in modules {
            let at = |what: String| EffectError {
                file: file.to_owned(),
                location: Some(locate(toml_text, module.span().start)),
                kind: Box::new(EffectErrorKind::Io(what)),
            };
            let pattern = dir.join(module.get_ref());
            let globbed = module.get_ref().contains(['*', '?', '[']);
            let paths = match globbed {
                false => vec![pattern],
                true => {
                    let matches = glob::glob(&pattern.to_string_lossy()).map_err(|e| at(e.to_string()))?;
                    let mut paths = matches.collect::<Result<Vec<_>, _>>().map_err(|e| at(e.to_string()))?;
                    if paths.is_empty() {
                        return Err(at(format!("{}: no file matches", pattern.display())));
                    }
                    paths.sort();
                    paths
                }
            };
            for path in paths {
                if listed.texts.contains_key(&path) {
                    continue;
                }
                let text = read_text(&path).map_err(|e| at(format!("{}: {e}", path.display())))?;
                let name = naga_oil::compose::get_preprocessor_data(&text).0;
                if globbed && name.is_none() {
                    continue;
                }
                if let Some(name) = name {
                    // Every listed file is added, so two with one path contradict each other.
                    if let Some(first) = listed.names.get(&name).filter(|f| canonical(f) != canonical(&path))
                    {
                        let files = vec![first.display().to_string(), path.display().to_string()];
                        return Err(EffectError {
                            kind: Box::new(EffectErrorKind::DuplicateImportPath { import: name, files }),
                            ..at(String::new())
                        });
                    }
                    listed.names.insert(name, path.clone());
                }
                listed.texts.insert(path.clone(), text);
                listed.order.push((path, module.span().start));
            }
        }
        for (path, span) in &listed.order {
            self.add_module_file(path, &listed, &mut Vec::new()).map_err(|e| match *e.kind {
                EffectErrorKind::Io(what) => EffectError {
                    file: file.to_owned(),
                    location: Some(locate(toml_text, *span)),
                    kind: Box::new(EffectErrorKind::Io(what)),
                },
                kind => EffectError { kind: Box::new(kind), ..e },
            })?;
        }
        Ok(())
    }

    /// Adds the modules `source` imports that the searched directories hold
    /// and the library does not have yet, and what they import in turn.
    pub(in crate::effect) fn add_imported_modules(
        &mut self,
        file: &str,
        source: &str,
    ) -> Result<(), EffectError> {
        let (_, imports, _) = naga_oil::compose::get_preprocessor_data(source);
        for import in imports {
            let path = match self.module_files.find(&import.import) {
                Ok(Some(path)) => path,
                Ok(None) => continue,
                Err(several) => {
                    self.defer_ambiguous(import.import, &several);
                    continue;
                }
            };
            // An unreadable module is the importing effect's error; one in
            // a module's text keeps the module's file and position.
            self.add_module_file(&path, &Listed::default(), &mut Vec::new()).map_err(|e| match *e.kind {
                EffectErrorKind::Io(_) => EffectError { file: file.to_owned(), location: None, ..e },
                _ => e,
            })?;
        }
        Ok(())
    }

    /// Adds one module file unless it was added, after the modules it
    /// imports that `listed` or the searched directories hold. `adding`:
    /// the files being added around this one, with the import path each
    /// was reached by; an import of one of them is a cycle.
    fn add_module_file(
        &mut self,
        path: &Path,
        listed: &Listed,
        adding: &mut Vec<PathBuf>,
    ) -> Result<(), EffectError> {
        let key = canonical(path);
        if self.module_files.is_added(&key) {
            return Ok(());
        }
        let name = path.display().to_string();
        // A listed file was read already, for its import path.
        let text = match listed.texts.get(path) {
            Some(text) => text.clone(),
            None => read_text(path).map_err(|e| EffectError {
                file: name.clone(),
                location: None,
                kind: Box::new(EffectErrorKind::Io(format!("{name}: {e}"))),
            })?,
        };
        // Marked first, so that an import cycle ends here (naga_oil reports it).
        self.module_files.mark_added(key.clone());
        let (_, imports, _) = naga_oil::compose::get_preprocessor_data(&text);
        adding.push(key.clone());
        for import in imports {
            let at = text.find(&import.import).map(|i| locate(&text, i));
            let found = match listed.names.get(&import.import) {
                Some(path) => Ok(Some(path.clone())),
                None => self.module_files.find(&import.import),
            };
            let dependency = match found {
                Ok(Some(path)) => path,
                Ok(None) => continue,
                Err(several) => {
                    self.defer_ambiguous(import.import, &several);
                    continue;
                }
            };
            if let Some(start) = adding.iter().position(|p| *p == canonical(&dependency)) {
                self.module_files.unmark(&key);
                let mut cycle = adding[start..].iter().map(|p| p.display().to_string()).collect::<Vec<_>>();
                cycle.push(adding[start].display().to_string());
                return Err(EffectError {
                    file: name,
                    location: at,
                    kind: Box::new(EffectErrorKind::ImportCycle { import: import.import, cycle }),
                });
            }
            self.add_module_file(&dependency, listed, adding).inspect_err(|_| {
                self.module_files.unmark(&key);
            })?;
        }
        adding.pop();
        self.add_module(&name, &text).inspect_err(|_| {
            self.module_files.unmark(&key);
        })?;
        if let (Some(import), _, _) = naga_oil::compose::get_preprocessor_data(&text) {
            self.compose.accept(&import);
            self.module_files.choose(import, path.to_path_buf());
        }
        self.stats.module_files += 1;
        Ok(())
    }
}

impl Effects {
    /// An import of a path several folder files declare: neither is added;
    /// composing a permutation that reaches the import names them.
    fn defer_ambiguous(&mut self, import: String, several: &[PathBuf]) {
        let files = several.iter().map(|p| p.display().to_string()).collect();
        self.compose.refuse_ambiguous(import, files);
    }
}
