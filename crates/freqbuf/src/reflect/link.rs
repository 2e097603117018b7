//! A pipeline whose stages come from several modules.
//!
//! Bevy's 2D materials take the vertex stage from `mesh2d.wgsl` and the
//! fragment stage from the material's own file; both import the same view
//! bindings. Each file is its own module, so the pipeline's layout is the
//! union of what its stages use, and that union is what freqbuf registers.

use super::ShaderReflection;
use super::types::Resource;
use crate::errors::Location;

impl ShaderReflection {
    /// The layout of a pipeline made of `parts` (each usually narrowed to
    /// one stage with [`ShaderReflection::for_entry_points`]): their entry
    /// points, and their resources merged by binding point. A resource that
    /// several parts declare alike (one imported `view`) is one resource used
    /// by each; two different resources that both are used stay apart, so
    /// registering the result is [`LayoutErrorKind::SharedPoint`](crate::error::LayoutErrorKind::SharedPoint), naming both.
    /// Each resource keeps the name of the part that declares it
    /// ([`Resource::file`]), so that this and every other layout error name
    /// its own file and `line:column`, not the pipeline's.
    ///
    /// The result is [layout only](ShaderReflection::layout_only): register it
    /// for the pipeline layout and the binder, and build the stages' shader
    /// modules from the parts (register each, then
    /// [`Manager::create_shader_module`](crate::Manager::create_shader_module)).
    /// Its family is the first part's. Cost: a clone of the parts' resources.
    ///
    /// # Panics
    /// When `parts` is empty.
    pub fn link(name: impl Into<String>, parts: &[&ShaderReflection]) -> ShaderReflection {
        let first = parts.first().expect("a pipeline has at least one part");
        let mut linked = ShaderReflection::clone(first).layout_only();
        // Each resource names the part it came from: its location is there.
        linked.resources.iter_mut().for_each(|r| name_file(r, first.name()));
        linked.name = name.into();
        linked.family = Some(first.family().to_owned());
        for part in &parts[1..] {
            let base = linked.entry_points.len();
            linked.entry_points.extend(part.entry_points.iter().cloned());
            linked.immediate_size = linked.immediate_size.max(part.immediate_size);
            linked.indexing.extend(part.indexing.iter().cloned());
            for res in &part.resources {
                let mut res = res.clone();
                name_file(&mut res, part.name());
                res.users.iter_mut().for_each(|u| *u += base);
                let same = linked.resources.iter_mut().find(|r| r.binding == res.binding && alike(r, &res));
                match same {
                    Some(r) => {
                        r.users.extend(res.users);
                        r.sampled |= res.sampled;
                    }
                    None => linked.resources.push(res),
                }
            }
        }
        // An unused declaration gives way to a used one at its point.
        let used: Vec<_> = linked.resources.iter().filter(|r| r.is_used()).map(|r| r.binding).collect();
        linked.resources.retain(|r| r.is_used() || !used.contains(&r.binding));
        linked.resources.sort_by_key(|r| r.binding);
        linked.indexing.sort();
        linked.indexing.dedup();
        linked
    }

    /// Names where each resource is declared that names no file yet
    /// ([`Resource::file`]): `at` gives its file and, where known, its
    /// `line:column` there (kept as it was where `None`). For a part of a
    /// pipeline that [`ShaderReflection::link`] joins whose name is not its
    /// file's (the effects layer names a part by effect and flags, and
    /// reflects it from a composed module without source text), so that
    /// errors point into that file. Cost: one call of `at` per resource.
    pub fn declared_at(mut self, at: impl Fn(&Resource) -> (String, Option<Location>)) -> Self {
        for r in self.resources.iter_mut().filter(|r| r.file.is_none()) {
            let (file, location) = at(r);
            r.file = Some(file);
            r.location = location.or(r.location);
        }
        self
    }
}

/// Names `file` as the file of `res`, unless it names one already.
fn name_file(res: &mut Resource, file: &str) {
    if res.file.is_none() {
        res.file = Some(file.to_owned());
    }
}

/// One resource declared in two modules: the same name, kind and layout.
fn alike(a: &Resource, b: &Resource) -> bool {
    a.name == b.name
        && a.kind == b.kind
        && a.count == b.count
        && a.block == b.block
        && a.min_size == b.min_size
        && a.array == b.array
}
