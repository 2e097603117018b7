//! Entry points of one module that cannot share a pipeline: two of them
//! use different resources at one binding point (wgpu's shadow example,
//! `fs_main` with a storage buffer where `fs_main_without_storage` has a
//! uniform). `freqbuf reflect` then shows each entry point on its own.

use freqbuf::reflect::{Resource, ShaderReflection};

/// The entry points in sets that can each share a pipeline, first fit in
/// declaration order: one set when nothing conflicts.
pub(crate) fn compatible_sets(shader: &ShaderReflection) -> Vec<Vec<String>> {
    let pairs = conflicting_pairs(shader);
    let mut sets: Vec<Vec<usize>> = Vec::new();
    for e in 0..shader.entry_points().len() {
        let fits = |set: &Vec<usize>| set.iter().all(|&o| !pairs.contains(&(o.min(e), o.max(e))));
        match sets.iter_mut().find(|s| fits(s)) {
            Some(set) => set.push(e),
            None => sets.push(vec![e]),
        }
    }
    let name = |i: usize| shader.entry_points()[i].name.clone();
    sets.into_iter().map(|s| s.into_iter().map(name).collect()).collect()
}

/// Every (resource, resource, its entry point, the other's entry point)
/// where two entry points use different resources at one point.
fn conflicts(shader: &ShaderReflection) -> Vec<(&Resource, &Resource, usize, usize)> {
    let used = shader.used_resources().collect::<Vec<_>>();
    let mut out = Vec::new();
    for (k, &a) in used.iter().enumerate() {
        for &b in used[k + 1..].iter().take_while(|b| b.binding == a.binding) {
            for &x in &a.users {
                out.extend(b.users.iter().filter(|&&y| y != x).map(|&y| (a, b, x, y)));
            }
        }
    }
    out
}

fn conflicting_pairs(shader: &ShaderReflection) -> Vec<(usize, usize)> {
    conflicts(shader).into_iter().map(|(_, _, x, y)| (x.min(y), x.max(y))).collect()
}

/// One line per pair of entry points that cannot share a pipeline, naming
/// the binding point and what each uses there; empty when all can.
pub(crate) fn entry_point_conflicts(shader: &ShaderReflection) -> Vec<String> {
    let entry = |i: usize| shader.entry_points()[i].name.as_str();
    let what = |r: &Resource| format!("`{}` ({})", r.name, r.kind.as_str());
    conflicts(shader)
        .into_iter()
        .map(|(a, b, x, y)| {
            format!(
                "entry points `{}` and `{}` cannot share a pipeline: {} is {} in one and {} in the other",
                entry(x),
                entry(y),
                a.binding,
                what(a),
                what(b)
            )
        })
        .collect()
}
