//! Module files: the `modules` an effect file lists (paths and globs,
//! relative to it) and directories searched by `#define_import_path`, the way
//! a Bevy-style library of shader modules is laid out. Each file is read and
//! added once, however many effects import it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use toml::Spanned;

use super::Effects;
use super::compose::locate;
use super::load::read_text;
use crate::error::{EffectError, EffectErrorKind};

impl Effects {
    /// Makes every `.wgsl` file under `dir` (searched recursively) available
    /// to `#import` by the path it names with `#define_import_path`: a module
    /// is read and added when an effect added later imports it (directly or
    /// through another module), and only then. The CLI's `--module-dir`.
    ///
    /// Cost: one read of each file's text when indexed. Two files naming one
    /// import path, or an unreadable directory, is [`EffectErrorKind::Io`].
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
        for path in found {
            let text = read_text(&path).map_err(|e| io(format!("{}: {e}", path.display())))?;
            let (Some(name), _, _) = naga_oil::compose::get_preprocessor_data(&text) else { continue };
            match self.module_index.get(&name) {
                Some(first) if *first != path => {
                    let (a, b) = (first.display(), path.display());
                    return Err(io(format!("`{name}` is the import path of both {a} and {b}")));
                }
                _ => {
                    self.module_index.insert(name, path);
                }
            }
        }
        Ok(())
    }

    /// Adds the module files an effect file lists, globs expanded, each once.
    pub(super) fn add_listed_modules(
        &mut self,
        file: &str,
        toml_text: &str,
        dir: &Path,
        modules: &[Spanned<String>],
    ) -> Result<(), EffectError> {
        for module in modules {
            let at = |what: String| EffectError {
                file: file.to_owned(),
                location: Some(locate(toml_text, module.span().start)),
                kind: Box::new(EffectErrorKind::Io(what)),
            };
            let listed = dir.join(module.get_ref());
            let paths = match module.get_ref().contains(['*', '?', '[']) {
                false => vec![listed],
                true => {
                    let matches = glob::glob(&listed.to_string_lossy()).map_err(|e| at(e.to_string()))?;
                    let mut paths = matches.collect::<Result<Vec<_>, _>>().map_err(|e| at(e.to_string()))?;
                    if paths.is_empty() {
                        return Err(at(format!("{}: no file matches", listed.display())));
                    }
                    paths.sort();
                    paths
                }
            };
            // naga_oil adds a module only after what it imports: the listed
            // files (and the searched directories) supply each other's imports.
            let mut listed = Listed::default();
            for path in &paths {
                let text = read_text(path).map_err(|e| at(format!("{}: {e}", path.display())))?;
                if let (Some(name), _, _) = naga_oil::compose::get_preprocessor_data(&text) {
                    listed.names.insert(name, path.clone());
                }
                listed.texts.insert(path.clone(), text);
            }
            for path in paths {
                self.add_module_file(&path, &listed, &mut Vec::new()).map_err(|e| match *e.kind {
                    EffectErrorKind::Io(what) => at(what),
                    kind => EffectError { kind: Box::new(kind), ..e },
                })?;
            }
        }
        Ok(())
    }

    /// Adds the modules `source` imports that the searched directories hold
    /// and the library does not have yet, and what they import in turn.
    pub(super) fn add_imported_modules(&mut self, file: &str, source: &str) -> Result<(), EffectError> {
        let (_, imports, _) = naga_oil::compose::get_preprocessor_data(source);
        for import in imports {
            let Some(path) = self.module_index.get(&import.import).cloned() else { continue };
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
        if self.module_files.contains(&key) {
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
        self.module_files.insert(key.clone());
        let (_, imports, _) = naga_oil::compose::get_preprocessor_data(&text);
        adding.push(key.clone());
        for import in imports {
            let found =
                listed.names.get(&import.import).or_else(|| self.module_index.get(&import.import)).cloned();
            let Some(dependency) = found else { continue };
            if let Some(start) = adding.iter().position(|p| *p == canonical(&dependency)) {
                self.module_files.remove(&key);
                let mut cycle = adding[start..].iter().map(|p| p.display().to_string()).collect::<Vec<_>>();
                cycle.push(adding[start].display().to_string());
                let at = text.find(&import.import).map(|i| locate(&text, i));
                return Err(EffectError {
                    file: name,
                    location: at,
                    kind: Box::new(EffectErrorKind::ImportCycle { import: import.import, cycle }),
                });
            }
            self.add_module_file(&dependency, listed, adding).inspect_err(|_| {
                self.module_files.remove(&key);
            })?;
        }
        adding.pop();
        self.add_module(&name, &text).inspect_err(|_| {
            self.module_files.remove(&key);
        })?;
        self.stats.module_files += 1;
        Ok(())
    }
}

/// The files an effect file lists: their import paths, and their texts.
#[derive(Default)]
struct Listed {
    names: HashMap<String, PathBuf>,
    texts: HashMap<PathBuf, String>,
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}
