//! The module graph of a crate, read from its sources: each file is a module
//! (`a/b.rs` is `a::b`, `a/mod.rs` is `a`), and a module uses another where
//! a line outside comments names it by a `crate::`, `super::` or `self::`
//! path, grouped imports (`crate::slot::{plan::X, shadow::Y}`) included. A
//! path names the deepest module it reaches; an item names its module.
//! For the rule that no module uses one that uses it back (design.md,
//! "Modules and the direction data flows").

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Module = Vec<String>;

/// Every cycle among the modules of the crate whose sources are in `src`:
/// each strongly connected set of two or more, as `a::b` names, sorted.
pub fn cycles(src: &Path) -> BTreeSet<Vec<String>> {
    let files = modules(src);
    let mut graph: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, path) in &files {
        let text = std::fs::read_to_string(path).unwrap();
        for line in text.lines().map(str::trim).filter(|l| !l.starts_with("//")) {
            for target in paths(line, module) {
                let reached =
                    (0..=target.len()).map(|n| &target[..n]).take_while(|p| files.contains_key(*p)).last();
                if let Some(reached) = reached.filter(|r| !r.is_empty() && *r != module.as_slice()) {
                    graph.entry(module.clone()).or_default().insert(reached.to_vec());
                }
            }
        }
    }
    strongly_connected(&graph)
        .into_iter()
        .filter(|set| set.len() > 1)
        .map(|set| set.iter().map(|m| m.join("::")).collect::<BTreeSet<_>>().into_iter().collect())
        .collect()
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

/// The module paths a line names, each as segments from the crate root.
fn paths(line: &str, module: &[String]) -> Vec<Module> {
    let mut out = Vec::new();
    for (at, head) in
        line.match_indices("crate::").chain(line.match_indices("super::")).chain(line.match_indices("self::"))
    {
        // Only whole words: `my_crate::` and `itself::` are not paths from
        // here; `pub(in crate::a)` is a visibility, not a use.
        if line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
            || line[..at].ends_with("(in ")
        {
            continue;
        }
        let mut base: Module = match head {
            "crate::" => Vec::new(),
            // `a/b.rs` and `a/b/mod.rs` are both `a::b`, and both say `super` for `a`.
            "super::" => module[..module.len().saturating_sub(1)].to_vec(),
            _ => module.to_vec(),
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
