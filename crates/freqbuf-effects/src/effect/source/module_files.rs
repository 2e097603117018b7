//! The module files a library knows (`ModuleFiles`): those added, and those
//! the searched directories hold by import path. `modules.rs` reads and adds
//! them; this is only the index, so that it names nothing of the library.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The module files a library knows: those added, and those the searched
/// directories hold by import path. A directory may hold alternates of one
/// import path (Bevy keeps a real module and a dummy, picked by cargo
/// feature); that is an error only when an effect imports the path.
#[derive(Debug, Default)]
pub(in crate::effect) struct ModuleFiles {
    /// Canonical paths of the files added so far.
    added: HashSet<PathBuf>,
    /// Every file found for each import path, in the order found.
    index: HashMap<String, Vec<PathBuf>>,
    /// The file added for each import path: listed, or the only one found.
    chosen: HashMap<String, PathBuf>,
}

impl ModuleFiles {
    /// The one file a searched directory holds for `import`; `Err` with
    /// every file when there are several.
    pub(in crate::effect) fn find(&self, import: &str) -> Result<Option<PathBuf>, Vec<PathBuf>> {
        if let Some(path) = self.chosen.get(import) {
            return Ok(Some(path.clone()));
        }
        match self.index.get(import).map(Vec::as_slice) {
            None | Some([]) => Ok(None),
            Some([one]) => Ok(Some(one.clone())),
            Some(several) => Err(several.to_vec()),
        }
    }

    /// Indexes `path`, found in a searched directory, under `import`, once.
    pub(in crate::effect) fn found(&mut self, import: String, path: PathBuf) {
        let paths = self.index.entry(import).or_default();
        if !paths.iter().any(|p| canonical(p) == canonical(&path)) {
            paths.push(path);
        }
    }

    /// Whether the file `key` (canonical) was added.
    pub(in crate::effect) fn is_added(&self, key: &Path) -> bool {
        self.added.contains(key)
    }

    /// Marks the file `key` (canonical) added.
    pub(in crate::effect) fn mark_added(&mut self, key: PathBuf) {
        self.added.insert(key);
    }

    /// Unmarks `key`: adding it failed, and nothing of it stays.
    pub(in crate::effect) fn unmark(&mut self, key: &Path) {
        self.added.remove(key);
    }

    /// Settles `import` on `path`, the file added for it.
    pub(in crate::effect) fn choose(&mut self, import: String, path: PathBuf) {
        self.chosen.insert(import, path);
    }
}

/// `path` made canonical where it exists, as the index compares files.
pub(in crate::effect) fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// The files an effect file lists: their import paths, their texts, and
/// each with the place in the effect file that listed it.
#[derive(Default)]
pub(in crate::effect) struct Listed {
    pub(in crate::effect) names: HashMap<String, PathBuf>,
    pub(in crate::effect) texts: HashMap<PathBuf, String>,
    pub(in crate::effect) order: Vec<(PathBuf, usize)>,
}
