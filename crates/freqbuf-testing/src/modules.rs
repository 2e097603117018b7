//! The module graph of a crate, read from its sources, as rust-analyzer
//! (and so `cargo-modules`) sees it: each file is a module (`a/b.rs` is
//! `a::b`, `a/mod.rs` is `a`), and a module uses another where a line
//! outside comments and tests names it by a `crate::`, `super::` or
//! `self::` path, or a `use` line by a child module's name, grouped
//! imports (`crate::slot::{plan::X, shadow::Y}`) included. A path names
//! the deepest module it reaches; an item names the module that defines
//! it, followed through `use` re-exports (`crate::Error` is
//! `errors::error`, not the root). Methods count in their type's module:
//! the signatures in a file's `impl T`, for a `T` defined elsewhere, are
//! `T`'s module's uses, and so is the file itself where one names a type it
//! defines; bodies stay the file's. For the rule that no module uses one
//! that uses it back (design.md, "Modules and the direction data flows").

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Module = Vec<String>;

/// A crate's files, what each defines and the names each binds with `use`.
struct Crate {
    files: BTreeMap<Module, Vec<String>>,
    /// Item name → the modules defining an item of that name.
    defined: BTreeMap<String, BTreeSet<Module>>,
    /// Module → name → the full path its `use` binds the name to.
    bound: BTreeMap<Module, BTreeMap<String, Module>>,
}

/// Every cycle among the modules of the crate whose sources are in `src`:
/// each strongly connected set of two or more, as `a::b` names, sorted.
pub fn cycles(src: &Path) -> BTreeSet<Vec<String>> {
    let graph = graph(src);
    strongly_connected(&graph)
        .into_iter()
        .filter(|set| set.len() > 1)
        .map(|set| set.iter().map(|m| m.join("::")).collect::<BTreeSet<_>>().into_iter().collect())
        .collect()
}

/// The uses between the modules of each cycle [`cycles`] finds, as
/// `a::b -> a::c`: what to read when one appears.
pub fn cycle_edges(src: &Path) -> Vec<String> {
    let graph = graph(src);
    let mut out = Vec::new();
    for set in strongly_connected(&graph).into_iter().filter(|set| set.len() > 1) {
        for from in &set {
            for to in graph[from].iter().filter(|t| set.contains(t)) {
                out.push(format!("{} -> {}", from.join("::"), to.join("::")));
            }
        }
    }
    out
}

fn graph(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let krate = Crate::read(src);
    let mut graph: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, lines) in &krate.files {
        // Each top-level `impl` of a type defined elsewhere: its lines are
        // that type's module's, as its methods are.
        let (mut owner, mut depth, mut signature) = (None, 0i32, false);
        for line in lines {
            if depth == 0 {
                owner = line.starts_with("impl").then(|| krate.impl_owner(line, module)).flatten();
            }
            // A method's signature, from `fn` to its body's brace.
            let trimmed = line.trim_start();
            signature |=
                trimmed.starts_with("fn ") || trimmed.contains(" fn ") && !trimmed.starts_with("let");
            depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
            // The impl line and its methods' signatures are the type's
            // module's; their bodies stay this file's.
            let at_owner = owner.as_ref().filter(|_| signature || line.starts_with("impl"));
            let user = at_owner.cloned().unwrap_or_else(|| module.clone());
            let edges = graph.entry(user).or_default();
            for target in krate.paths(line.trim(), module) {
                edges.extend(krate.resolve(&target, 0));
            }
            // A method whose signature names a type this file defines uses
            // this file (its body's private helpers do not count, as in
            // rust-analyzer's item graph).
            let mut words = line.split(|c: char| !(c.is_alphanumeric() || c == '_'));
            if owner.is_some()
                && signature
                && words.any(|w| krate.defined.get(w).is_some_and(|m| m.contains(module)))
            {
                edges.insert(module.clone());
            }
            signature &= !(line.contains('{') || line.trim_end().ends_with(';'));
        }
    }
    for (module, edges) in &mut graph {
        edges.remove(module);
        edges.remove(&Vec::new());
    }
    graph
}

impl Crate {
    fn read(src: &Path) -> Self {
        let files: BTreeMap<Module, Vec<String>> = modules(src)
            .into_iter()
            .map(|(m, path)| {
                let text = std::fs::read_to_string(path).unwrap();
                // A file's tests are not part of its module's uses (and their `super` is the file).
                let code = text.lines().take_while(|l| *l != "#[cfg(test)]");
                let code = code.filter(|l| !l.trim_start().starts_with("//")).map(str::to_owned);
                (m, code.collect())
            })
            .collect();
        let mut krate = Crate { files, defined: BTreeMap::new(), bound: BTreeMap::new() };
        for (module, lines) in &krate.files {
            for line in lines.iter().filter(|l| !l.starts_with(char::is_whitespace)) {
                if let Some(name) = item_name(line) {
                    krate.defined.entry(name).or_default().insert(module.clone());
                }
            }
        }
        let mut bound = BTreeMap::new();
        for (module, lines) in &krate.files {
            let names: &mut BTreeMap<String, Module> = bound.entry(module.clone()).or_default();
            for line in lines.iter().map(|l| l.trim()).filter(|l| is_use(l)) {
                for mut path in krate.paths(line, module) {
                    // `use a::{self, b}` binds `a` to the module itself.
                    if path.last().is_some_and(|l| l == "self") {
                        path.pop();
                    }
                    if let Some(name) = path.last().cloned() {
                        names.insert(name, path);
                    }
                }
            }
        }
        krate.bound = bound;
        krate
    }

    /// The module `path` names: its longest prefix that is a module, or,
    /// where the rest starts with an item that module binds with `use`,
    /// the module that item resolves to. `None` for the crate root.
    fn resolve(&self, path: &[String], depth: usize) -> Option<Module> {
        let reached =
            (0..=path.len()).map(|n| &path[..n]).take_while(|p| self.files.contains_key(*p)).last()?;
        let rest = &path[reached.len()..];
        if let Some(name) = rest.first().filter(|_| depth < 8) {
            let defines = self.defined.get(name).is_some_and(|m| m.contains(reached));
            if let Some(target) = self.bound.get(reached).and_then(|b| b.get(name)).filter(|_| !defines) {
                if target.as_slice() != path {
                    return self.resolve(target, depth + 1);
                }
            }
        }
        (!reached.is_empty()).then(|| reached.to_vec())
    }

    /// The module paths a line names, each as segments from the crate root:
    /// `crate::`, `super::` and `self::` paths, and paths through a child
    /// module of `module` by its name.
    fn paths(&self, line: &str, module: &[String]) -> Vec<Module> {
        let mut out = Vec::new();
        let heads = ["crate::", "super::", "self::"];
        // A child by its name: in `use` lines (imports, re-exports) only, as
        // rust-analyzer's graph has no edge for a call in a body.
        let in_use = is_use(line);
        let children = self
            .files
            .keys()
            .filter(|m| in_use && m.len() == module.len() + 1 && m.starts_with(module))
            .map(|m| format!("{}::", m[module.len()]))
            .collect::<Vec<_>>();
        let found =
            heads.iter().map(|h| h.to_string()).chain(children).flat_map(|head| {
                line.match_indices(&head).map(|(at, _)| (at, head.clone())).collect::<Vec<_>>()
            });
        for (at, head) in found {
            // Only whole words: `my_crate::` and `itself::` are not paths from
            // here; `pub(in crate::a)` is a visibility, not a use.
            if line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
                || line[..at].ends_with("(in ")
            {
                continue;
            }
            let mut base: Module = match head.as_str() {
                "crate::" => Vec::new(),
                // `a/b.rs` and `a/b/mod.rs` are both `a::b`, and both say `super` for `a`.
                "super::" => module[..module.len().saturating_sub(1)].to_vec(),
                "self::" => module.to_vec(),
                child => {
                    let mut m = module.to_vec();
                    m.push(child.trim_end_matches(':').to_owned());
                    m
                }
            };
            let mut rest = &line[at + head.len()..];
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            expand(base, rest, &mut out);
        }
        out
    }

    /// The module of the type an `impl` line is for, where another module
    /// defines it (`None` for the file's own types and foreign ones).
    fn impl_owner(&self, line: &str, module: &Module) -> Option<Module> {
        let (name, text) = impl_self(line)?;
        let paths = self.paths(text, module);
        let owner = match paths.iter().find(|p| p.last() == Some(&name)) {
            // `impl super::T`: the path says where.
            Some(path) => self.resolve(path, 0)?,
            None if self.defined.get(&name).is_some_and(|m| m.contains(module)) => return None,
            None => self.resolve(self.bound.get(module)?.get(&name)?, 0)?,
        };
        (owner != *module).then_some(owner)
    }
}

/// The name a top-level line defines as a type, if it does.
fn item_name(line: &str) -> Option<String> {
    let rest = after_visibility(line)?;
    let rest = ["struct ", "enum ", "trait ", "union ", "type "].iter().find_map(|k| rest.strip_prefix(k))?;
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
    (end > 0).then(|| rest[..end].to_owned())
}

/// The self type's name of an `impl` line (`impl<T> Trait for Name<T> {`
/// is `Name`), and the line's text from it, for a path (`super::Name`).
fn impl_self(line: &str) -> Option<(String, &str)> {
    let mut rest = line.strip_prefix("impl")?;
    if rest.starts_with('<') {
        let mut depth = 0;
        let end = rest.char_indices().find_map(|(i, c)| {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(i)
        })?;
        rest = &rest[end + 1..];
    }
    let rest = rest.trim_start();
    let rest = rest.find(" for ").map_or(rest, |i| &rest[i + 5..]).trim_start();
    let (segments, _) = segments(rest);
    Some((segments.last()?.clone(), rest))
}

/// Whether `line` is a `use` line (`use`, `pub use`, `pub(crate) use`, ...).
fn is_use(line: &str) -> bool {
    after_visibility(line).is_some_and(|rest| rest.starts_with("use "))
}

/// `line` without its leading visibility (`pub`, `pub(crate)`, ...).
fn after_visibility(line: &str) -> Option<&str> {
    let mut rest = line;
    if let Some(r) = rest.strip_prefix("pub") {
        rest = r.trim_start();
        if rest.starts_with('(') {
            rest = &rest[rest.find(')')? + 1..];
        }
    }
    Some(rest.trim_start())
}

/// Every `.rs` file under `src` by its module path.
pub fn modules(src: &Path) -> BTreeMap<Module, std::path::PathBuf> {
    let mut found = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).unwrap().with_extension("");
            let mut module: Module = relative.iter().map(|s| s.to_str().unwrap().to_owned()).collect();
            if matches!(module.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                module.pop();
            }
            found.insert(module, path);
        }
    }
    found
}

/// The leading `a::b::` segments of `text`, and what follows them.
fn segments(mut text: &str) -> (Vec<String>, &str) {
    let mut out = Vec::new();
    loop {
        let end = text.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(text.len());
        if end == 0 {
            return (out, text);
        }
        out.push(text[..end].to_owned());
        match text[end..].strip_prefix("::") {
            Some(r) => text = r,
            None => return (out, &text[end..]),
        }
    }
}

/// The paths `base::text` names, each item of a group (nested too) as its own.
fn expand(mut base: Module, text: &str, out: &mut Vec<Module>) {
    let (segments, tail) = segments(text.trim_start());
    base.extend(segments);
    match tail.strip_prefix('{') {
        Some(group) => group_items(group).into_iter().for_each(|item| expand(base.clone(), item, out)),
        None => out.push(base),
    }
}

/// The top-level items of a `{...}` group whose opening brace is already read.
fn group_items(text: &str) -> Vec<&str> {
    let (mut depth, mut start, mut items) = (0usize, 0, Vec::new());
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&text[start..i]);
                return items;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&text[start..]);
    items
}

/// Tarjan's strongly connected components.
fn strongly_connected(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'g Module, (usize, usize)>,
        stack: Vec<&'g Module>,
        out: Vec<Vec<Module>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g Module) {
            let n = self.index.len();
            self.index.insert(v, (n, n));
            self.stack.push(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let low = match self.index.get(w) {
                    None => {
                        self.visit(w);
                        self.index[w].1
                    }
                    Some(&(i, _)) if self.stack.contains(&w) => i,
                    Some(_) => continue,
                };
                let entry = self.index.get_mut(v).unwrap();
                entry.1 = entry.1.min(low);
            }
            let (i, low) = self.index[v];
            if i == low {
                let at = self.stack.iter().rposition(|m| *m == v).unwrap();
                self.out.push(self.stack.split_off(at).into_iter().cloned().collect());
            }
        }
    }
    let mut walk = Walk { graph, index: BTreeMap::new(), stack: Vec::new(), out: Vec::new() };
    for v in graph.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.out
}
