//! The module graph of a crate, read from its sources: which top-level
//! module names which (`crate::x` outside comments), for the rule that no
//! module imports one that imports it back (design.md, "Layout").

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every cycle among the top-level modules of the crate whose sources are in
/// `src`, each as the modules on it, starting from the least by name.
pub fn cycles(src: &Path) -> BTreeSet<Vec<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let modules = std::fs::read_dir(src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| Some(p.file_stem()?.to_str()?.to_owned()))
        .filter(|m| m != "lib")
        .collect::<BTreeSet<_>>();
    let mut files = vec![src.to_path_buf()];
    while let Some(dir) = files.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files.push(path);
                continue;
            }
            let relative = path.strip_prefix(src).unwrap();
            let top = relative.iter().next().unwrap().to_str().unwrap().trim_end_matches(".rs").to_owned();
            if top == "lib" || path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for line in text.lines().map(str::trim).filter(|l| !l.starts_with("//")) {
                for (at, _) in line.match_indices("crate::") {
                    let name =
                        line[at + 7..].split(|c: char| !(c.is_ascii_lowercase() || c == '_')).next().unwrap();
                    if name != top && modules.contains(name) {
                        graph.entry(top.clone()).or_default().insert(name.to_owned());
                    }
                }
            }
        }
    }
    let mut found = BTreeSet::new();
    for start in graph.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        while let Some((at, path)) = stack.pop() {
            for next in graph.get(&at).into_iter().flatten() {
                if next == start {
                    let least = path.iter().enumerate().min_by_key(|(_, m)| *m).unwrap().0;
                    found.insert([&path[least..], &path[..least]].concat());
                } else if !path.contains(next) && next > start {
                    stack.push((next.clone(), [&path[..], std::slice::from_ref(next)].concat()));
                }
            }
        }
    }
    found
}
