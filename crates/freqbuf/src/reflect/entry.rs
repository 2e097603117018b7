//! A shader narrowed to the entry points of one pipeline.
//!
//! A module may hold several pipelines' entry points, each using its own
//! resources: wgpu's shadow example puts a storage and a uniform light array
//! at one binding point, one per fragment entry point, and only one of the
//! two ever runs. Registered whole, such a module is a conflict; narrowed to
//! a pipeline's entry points, it is the layout that pipeline binds.

use naga::AddressSpace;

use super::ShaderReflection;
use crate::errors::{ReflectError, ReflectErrorKind};
use crate::reflect::name::normalize;

impl ShaderReflection {
    /// The shader as a pipeline made of `entry_points` sees it: their entry
    /// points, the resources they use (the others stay, unused) and the
    /// `var<immediate>` bytes they read. Register the result to lay out that
    /// pipeline alone. Its name lists the entry points,
    /// `shadow.wgsl[vs_main,fs_main]`, so that errors say which pipeline; its
    /// family stays the module's.
    ///
    /// A name the module has no entry point of is
    /// [`ReflectErrorKind::UnknownEntryPoint`]. Cost: a clone of the
    /// module, and one pass over its globals.
    pub fn for_entry_points(&self, entry_points: &[&str]) -> Result<ShaderReflection, ReflectError> {
        // (index in this reflection, index in the module) of each kept entry point.
        let mut kept: Vec<(usize, usize)> = Vec::new();
        for &name in entry_points {
            let here = self.entry_points.iter().position(|e| e.name == name);
            let there = self.module.entry_points.iter().position(|e| e.name == name);
            match (here, there) {
                (Some(h), Some(m)) if !kept.contains(&(h, m)) => kept.push((h, m)),
                (Some(_), Some(_)) => {}
                _ => {
                    return Err(ReflectError {
                        shader: self.name.clone(),
                        location: None,
                        kind: ReflectErrorKind::UnknownEntryPoint {
                            name: name.to_owned(),
                            known: self.entry_points.iter().map(|e| e.name.clone()).collect(),
                        },
                    });
                }
            }
        }
        let uses = |handle: naga::Handle<naga::GlobalVariable>| {
            kept.iter().any(|&(_, m)| !self.info.get_entry_point(m)[handle].is_empty())
        };
        let mut narrowed = self.clone();
        // One module's pipelines stay one family: their materials are one type.
        narrowed.family = Some(self.family().to_owned());
        narrowed.name = format!("{}[{}]", self.name, kept_names(self, &kept).join(","));
        narrowed.entry_points = kept.iter().map(|&(h, _)| self.entry_points[h].clone()).collect();
        narrowed.immediate_size = 0;
        for (handle, var) in self.module.global_variables.iter() {
            if var.space == AddressSpace::Immediate && uses(handle) {
                let size = self.module.types[var.ty].inner.size(self.module.to_ctx());
                narrowed.immediate_size = narrowed.immediate_size.max(size);
            }
        }
        for res in &mut narrowed.resources {
            res.users = kept
                .iter()
                .enumerate()
                .filter(|(_, (h, _))| res.users.contains(h))
                .map(|(new, _)| new)
                .collect();
            // Sampled by one of the kept entry points, or only loaded there.
            let global = self.module.global_variables.iter().find(|(_, v)| {
                v.binding.map(Into::into) == Some(res.binding)
                    && v.name.as_deref().map(normalize) == Some(res.name.as_str())
            });
            if let Some((handle, _)) = global {
                res.sampled = kept.iter().any(|&(_, m)| {
                    self.info.get_entry_point(m).sampling_set.iter().any(|k| k.image == handle)
                });
            }
        }
        Ok(narrowed)
    }
}

fn kept_names<'a>(shader: &'a ShaderReflection, kept: &[(usize, usize)]) -> Vec<&'a str> {
    kept.iter().map(|&(h, _)| shader.entry_points[h].name.as_str()).collect()
}
