//! Which files a WESL source can import, read once, and which names its
//! `@if`s test: what every permutation of an effect compiles from.
//!
//! A module path maps to a file the way Bevy lays its crates out: a package
//! `name::a::b` is `<folder of name>/a/b.wesl`, and `package::a` is the
//! importing file's own package (a named package whose folder holds it, or
//! else the folder of the source). Only modules that a declaration refers to
//! are read, as the compiler loads them (an unused import is never read).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use wesl::syntax::{ModulePath, PathOrigin, TranslationUnit, TypeExpression};

use crate::effect::source::file::{ReadStage, read_text};
use crate::effect::source::sites::locate;
use crate::effect::types::Bits;
use freqbuf::error::Location;

/// The packages an [`Effects`](crate::Effects) library knows (its
/// `add_package`s), and the package files it has read from disk, each once.
#[derive(Debug, Default)]
pub(crate) struct Library {
    pub(super) packages: BTreeMap<String, PathBuf>,
    cache: HashMap<PathBuf, Arc<str>>,
}

/// A WESL effect's files and what they test.
#[derive(Debug)]
pub(crate) struct Sources {
    pub(super) files: Vec<File>,
    /// The source (0) and each stage file (`i`), each compiled as a main module.
    pub(super) parts: Vec<Part>,
    tested: BTreeSet<String>,
}

#[derive(Debug)]
pub(super) struct File {
    /// Its path, as errors print it.
    pub(super) name: String,
    pub(super) text: Arc<str>,
    /// Its syntax tree as parsed, serialized (`postcard`): what a
    /// permutation compiles, without parsing again. `None` if it does not
    /// parse (a permutation then reports the parse error).
    pub(super) unit: Option<Box<[u8]>>,
}

/// One main module and the modules it can reach.
#[derive(Debug)]
pub(super) struct Part {
    pub(super) main: ModulePath,
    pub(super) modules: HashMap<ModulePath, usize>,
    /// Modules referred to that have no file, why, and where they are named.
    pub(super) missing: HashMap<ModulePath, Missing>,
}

#[derive(Debug)]
pub(super) struct Missing {
    pub(super) why: String,
    pub(super) file: usize,
    pub(super) at: Option<Location>,
}

impl Sources {
    /// The bits of `flags` that some `@if` of these files names.
    pub(crate) fn tested_bits(&self, flags: &[String]) -> Bits {
        flags.iter().enumerate().filter(|(_, f)| self.tested.contains(*f)).fold(0, |m, (i, _)| m | 1 << i)
    }

    /// The file a module path of `part` is in.
    pub(super) fn file_of(&self, part: usize, path: &ModulePath) -> Option<usize> {
        self.parts[part].modules.get(&canonical(path)).copied()
    }
}

impl Sources {
    /// Where a file of `part` names `item` of `module` (`constants::GROUP`,
    /// or the item alone), outside comments: the file and byte.
    pub(super) fn find(&self, part: usize, module: &ModulePath, item: &str) -> Option<(usize, usize)> {
        let package = match &module.origin {
            PathOrigin::Package(p) => p.rsplit('/').next().unwrap_or(p),
            _ => "package",
        };
        let last = module.components.last().map_or(package, String::as_str);
        let mut files = self.parts[part].modules.values().copied().collect::<Vec<_>>();
        files.sort_unstable();
        [format!("{last}::{item}"), item.to_owned()].iter().find_map(|word| {
            files.iter().find_map(|&i| Some((i, find_word(&without_comments(&self.files[i].text), word)?)))
        })
    }
}

/// A folder that files are read from: on disk, or by name through the
/// effect's reader (`Effects::add_files`).
#[derive(Clone, Debug)]
pub(super) struct Root {
    pub(super) dir: PathBuf,
    pub(super) memory: bool,
}

/// Reads and walks the files of one effect (or of one file, for `reflect_wesl`).
pub(super) struct Finder<'a, 'r> {
    pub(super) packages: BTreeMap<String, Root>,
    pub(super) library: &'a mut Library,
    pub(super) read: Option<ReadStage<'r>>,
    files: Vec<File>,
    keys: HashMap<PathBuf, usize>,
    /// Files read (not found in the library's cache).
    pub(super) reads: u64,
}

impl<'a, 'r> Finder<'a, 'r> {
    pub(super) fn new(
        packages: BTreeMap<String, Root>,
        library: &'a mut Library,
        read: Option<ReadStage<'r>>,
    ) -> Self {
        Self { packages, library, read, files: Vec::new(), keys: HashMap::new(), reads: 0 }
    }

    /// Walks each main file (`(path, text, on disk)`) and what it reaches.
    pub(super) fn run(mut self, mains: Vec<(String, String, bool)>) -> (Sources, u64) {
        let mut parts = Vec::new();
        for (name, text, disk) in mains {
            let file = Path::new(&name);
            let key = key(file, !disk);
            let index = match self.keys.get(&key) {
                Some(&i) => i,
                None => self.add(key, name.clone(), text.into()),
            };
            let (main, own) = self.main_path(file, !disk);
            parts.push(self.walk(main, own, index));
        }
        let mut tested = BTreeSet::new();
        for file in &self.files {
            if_names(&file.text, &mut tested);
        }
        (Sources { files: self.files, parts, tested }, self.reads)
    }

    fn add(&mut self, key: PathBuf, name: String, text: Arc<str>) -> usize {
        self.files.push(File { name, text, unit: None });
        self.keys.insert(key, self.files.len() - 1);
        self.files.len() - 1
    }

    /// The main module's path: in the named package whose folder holds it
    /// (the deepest), or else `package::<stem>` in its own folder.
    fn main_path(&self, file: &Path, memory: bool) -> (ModulePath, Option<Root>) {
        let file_key = key(file, memory);
        let found = (self.packages.iter())
            .filter(|(_, root)| root.memory == memory)
            .filter_map(|(name, root)| Some((name, file_key.strip_prefix(key(&root.dir, memory)).ok()?)))
            .min_by_key(|(_, rel)| rel.components().count());
        if let Some((name, rel)) = found {
            let components =
                rel.with_extension("").iter().map(|c| c.to_string_lossy().into_owned()).collect();
            return (ModulePath::new(PathOrigin::Package(name.clone()), components), None);
        }
        let stem = file.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let dir = file.parent().unwrap_or(Path::new("")).to_path_buf();
        (ModulePath::new(PathOrigin::Absolute, vec![stem]), Some(Root { dir, memory }))
    }

    fn walk(&mut self, main: ModulePath, own: Option<Root>, first: usize) -> Part {
        let mut modules = HashMap::from([(main.clone(), first)]);
        let mut missing = HashMap::new();
        let mut queue = vec![(main.clone(), first)];
        while let Some((path, index)) = queue.pop() {
            let text = self.files[index].text.clone();
            let (refs, unit) = freqbuf::__effects::on_deep_stack(text.len(), || references(&text, &path))
                .unwrap_or_default();
            if self.files[index].unit.is_none() {
                self.files[index].unit = unit;
            }
            for module in refs.iter().map(canonical) {
                if is_constants(&module) || modules.contains_key(&module) || missing.contains_key(&module) {
                    continue;
                }
                match self.module_file(&module, own.as_ref()) {
                    Ok(i) => {
                        modules.insert(module.clone(), i);
                        queue.push((module, i));
                    }
                    Err(why) => {
                        let at = site(&text, &module);
                        missing.insert(module, Missing { why, file: index, at });
                    }
                }
            }
        }
        Part { main, modules, missing }
    }

    /// Reads the file of a module (`.wesl`, else `.wgsl`), once.
    fn module_file(&mut self, module: &ModulePath, own: Option<&Root>) -> Result<usize, String> {
        let root = match &module.origin {
            PathOrigin::Package(name) => self.packages.get(name).cloned().ok_or_else(|| {
                let known = self.packages.keys().map(|k| format!("`{k}`")).collect::<Vec<_>>();
                let known = if known.is_empty() { "none".into() } else { known.join(", ") };
                format!("no package `{name}` is given (packages: {known})")
            })?,
            _ => own.cloned().ok_or_else(|| format!("`{module}` names no package"))?,
        };
        let mut rel: PathBuf = module.components.iter().collect();
        if module.components.is_empty() {
            rel.push("package");
        }
        let wesl = self.read_file(&root, &rel.with_extension("wesl"));
        wesl.or_else(|first| self.read_file(&root, &rel.with_extension("wgsl")).map_err(|_| first))
    }

    fn read_file(&mut self, root: &Root, rel: &Path) -> Result<usize, String> {
        let path = normalize(&root.dir.join(rel));
        let key = key(&path, root.memory);
        if let Some(&i) = self.keys.get(&key) {
            return Ok(i);
        }
        let name = path.display().to_string();
        let text: Arc<str> = if root.memory {
            let read = self.read.as_mut().ok_or_else(|| format!("{name}: no file is given by that name"))?;
            let text = read(&slashed(&path))?.1.into();
            self.reads += 1;
            text
        } else if let Some(text) = self.library.cache.get(&key) {
            text.clone()
        } else {
            let text: Arc<str> = read_text(&path).map_err(|e| format!("{name}: {e}"))?.into();
            self.reads += 1;
            self.library.cache.insert(key.clone(), text.clone());
            text
        };
        Ok(self.add(key, name, text))
    }
}

/// A module path as the resolver sees it: a package reached through another
/// (`outer/inner`, the compiler's spelling) is that package (Bevy's rule).
pub(super) fn canonical(path: &ModulePath) -> ModulePath {
    match &path.origin {
        PathOrigin::Package(p) if p.contains('/') => {
            let last = p.rsplit('/').next().unwrap_or(p).to_owned();
            ModulePath::new(PathOrigin::Package(last), path.components.clone())
        }
        _ => path.clone(),
    }
}

/// The virtual package of `[defs]`' values.
pub(super) fn is_constants(path: &ModulePath) -> bool {
    path.origin == PathOrigin::Package("constants".into()) && path.components.is_empty()
}

/// The modules that `text` (the module at `here`) refers to, as the
/// compiler's usage analysis would find them under any flags: through every
/// import statement (each alone, so that two `@if` branches importing one
/// name both count) and every qualified or imported name. With them, its
/// syntax tree serialized.
fn references(text: &str, here: &ModulePath) -> (Vec<ModulePath>, Option<Box<[u8]>>) {
    use wesl::pass::{Visit, flatten_imports};
    // A file that does not parse is reported when a permutation compiles it.
    let Ok(unit) = text.parse::<TranslationUnit>() else { return (Vec::new(), None) };
    let serialized = postcard::to_allocvec(&unit).ok().map(Vec::into_boxed_slice);
    let mut imports: HashMap<String, Vec<(ModulePath, String)>> = HashMap::new();
    for statement in &unit.imports {
        for (ident, item) in flatten_imports(std::slice::from_ref(statement), here) {
            imports.entry(ident.name().clone()).or_default().push((item.path, item.ident.name().clone()));
        }
    }
    let mut out = Vec::new();
    Visit::<TypeExpression>::visit_rec(&unit, &mut |ty: &TypeExpression| match &ty.path {
        Some(path) => match &path.origin {
            PathOrigin::Package(first) if imports.contains_key(first) => {
                for (module, item) in &imports[first] {
                    let mut module = module.clone();
                    module.push(item);
                    out.push(module.join(path.components.iter().cloned()));
                }
            }
            _ => out.push(here.join_path(path)),
        },
        None => {
            if let Some(items) = imports.get(&*ty.ident.name()) {
                out.extend(items.iter().map(|(module, _)| module.clone()));
            }
        }
    });
    (out, serialized)
}

/// Where `text` names `module` outside comments: its path as written
/// (`shared::tint`), else its last part, else its package.
fn site(text: &str, module: &ModulePath) -> Option<Location> {
    let package = match &module.origin {
        PathOrigin::Package(p) => p.rsplit('/').next().unwrap_or(p).to_owned(),
        _ => "package".into(),
    };
    let joined = module.components.join("::");
    let full = if joined.is_empty() { package.clone() } else { format!("{package}::{joined}") };
    let words =
        [full.as_str(), joined.as_str(), module.components.last().map_or("", String::as_str), &package];
    let code = without_comments(text);
    words.iter().filter(|w| !w.is_empty()).find_map(|w| find_word(&code, w)).map(|at| locate(text, at))
}

/// `text` with its comments blanked, every byte at its place.
fn without_comments(text: &str) -> String {
    let mut b = text.as_bytes().to_vec();
    let mut i = 0;
    while i < b.len() {
        match comment_end(text.as_bytes(), i) {
            Some(end) => {
                b[i..end].iter_mut().filter(|c| **c != b'\n').for_each(|c| *c = b' ');
                i = end;
            }
            None => i += 1,
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// The first place `word` stands alone in `text` (not inside a longer name).
pub(super) fn find_word(text: &str, word: &str) -> Option<usize> {
    let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    text.match_indices(word)
        .map(|(i, _)| i)
        .find(|&i| !ident(text[..i].chars().next_back()) && !ident(text[i + word.len()..].chars().next()))
}

/// Every name in the `@if(...)` and `@elif(...)` conditions of `text`,
/// comments skipped.
pub(super) fn if_names(text: &str, out: &mut BTreeSet<String>) {
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
    let mut i = 0;
    while i < b.len() {
        if let Some(end) = comment_end(b, i) {
            i = end;
            continue;
        }
        if b[i] != b'@' {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < b.len() && ident(b[j]) {
            j += 1;
        }
        let word = &b[i + 1..j];
        i = j;
        if word != b"if" && word != b"elif" {
            continue;
        }
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        if b.get(j) != Some(&b'(') {
            continue;
        }
        let mut depth = 0usize;
        while j < b.len() {
            if let Some(end) = comment_end(b, j) {
                j = end;
                continue;
            }
            match b[j] {
                b'(' => depth += 1,
                b')' if depth == 1 => break,
                b')' => depth -= 1,
                c if ident(c) => {
                    let start = j;
                    while j < b.len() && ident(b[j]) {
                        j += 1;
                    }
                    let name = String::from_utf8_lossy(&b[start..j]);
                    if !b[start].is_ascii_digit() && name != "true" && name != "false" {
                        out.insert(name.into_owned());
                    }
                    continue;
                }
                _ => {}
            }
            j += 1;
        }
        i = j;
    }
}

/// Where a comment starting at `i` ends (block comments nest, as in WGSL).
fn comment_end(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i..i + 2)? {
        b"//" => Some(b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |n| i + n)),
        b"/*" => {
            let (mut depth, mut j) = (0usize, i);
            while j < b.len() {
                match b.get(j..j + 2) {
                    Some(b"/*") => (depth, j) = (depth + 1, j + 2),
                    Some(b"*/") if depth == 1 => return Some(j + 2),
                    Some(b"*/") => (depth, j) = (depth - 1, j + 2),
                    _ => j += 1,
                }
            }
            Some(b.len())
        }
        _ => None,
    }
}

/// How files are told apart: the real path on disk, the name for files given by name.
fn key(path: &Path, memory: bool) -> PathBuf {
    if memory { normalize(path) } else { path.canonicalize().unwrap_or_else(|_| normalize(path)) }
}

/// `a/./b/../c` as `a/c`, without touching the disk.
pub(super) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.components().next_back(), Some(Component::Normal(_))) => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// A relative path with `/` between its parts, as `add_files` names files.
fn slashed(path: &Path) -> String {
    path.iter().map(|c| c.to_string_lossy()).collect::<Vec<_>>().join("/")
}
