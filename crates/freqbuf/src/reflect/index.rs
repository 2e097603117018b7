//! How a shader indexes its arrays: `materials[objects[i].material & 0xffffu]`.
//!
//! A material slab is found through per-object data, never through the
//! instance index, so registration must know which member of which array
//! holds an array's index. This walks naga's IR: every `array[index]` of a
//! storage array or binding array, with `index` followed back through
//! `let`s, a local variable stored once, a mask with a constant
//! (`& 0xffffu`, Bevy's `material_and_lightmap_bind_group_slot`) and
//! function arguments (every call site agreeing) to a `u32` member loaded
//! from another array, or to a `u32` of the immediate data
//! (`var<immediate>`, set per draw). An index that comes from anywhere else
//! (the instance index, a vertex output, arithmetic) is [`IndexSource::Other`].

use naga::{
    AddressSpace, ArraySize, BinaryOperator, Expression, Function, GlobalVariable, Handle, Literal, Module,
    Statement, TypeInner,
};

use crate::slot::plan::BindingPoint;

/// One array a shader indexes, and where the index comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Indexing {
    /// The indexed global: a storage array or a binding array.
    pub array: BindingPoint,
    /// Where its index comes from.
    pub by: IndexSource,
}

/// Where an array's index comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum IndexSource {
    /// A `u32` member of an element of another array, with a mask applied
    /// (`!0` without one).
    Member {
        /// The array whose element holds the index.
        array: BindingPoint,
        /// The member's path in the element (`material`, `ids.albedo`).
        member: String,
        /// Its byte offset in the element.
        offset: u32,
        /// The bits that hold the index.
        mask: u32,
    },
    /// A `u32` of the immediate data (`var<immediate>`), with a mask applied:
    /// set per draw with `set_immediates`.
    Immediate {
        /// Its path: the variable's name for a lone `u32`, else the member's
        /// path in the struct (`material`, `ids.albedo`).
        member: String,
        /// Its byte offset in the immediate data.
        offset: u32,
        /// The bits that hold the index.
        mask: u32,
    },
    /// The instance index, a vertex output, arithmetic: nothing freqbuf writes.
    Other,
}

impl super::ShaderReflection {
    /// Whether the binding array at `point` is a table: every index of it
    /// is a member of one of the shader's array slots, so that a slab
    /// material's `set_texture` on that member places the resource in the
    /// family's one array (`bindless_textures_2d[material_indices[slot].base_color_texture]`).
    /// Cost: a scan of [`ShaderReflection::indexing`](super::ShaderReflection::indexing).
    pub fn is_table(&self, point: BindingPoint) -> bool {
        let Some(r) = self.resource(point).filter(|r| r.count != 1) else { return false };
        let slab = |a: &BindingPoint| self.resource(*a).is_some_and(|s| s.is_array_slot());
        let mut by = self.indexing.iter().filter(|i| i.array == r.binding).map(|i| &i.by).peekable();
        by.peek().is_some() && by.all(|b| matches!(b, IndexSource::Member { array, .. } if slab(array)))
    }

    /// The shader with each binding array without a fixed size (a table, or
    /// Bevy solari's `vertex_buffers: binding_array<VertexBuffer>`) given
    /// `len(class)` elements, the length its layout declares on this device.
    pub(crate) fn sized_arrays(mut self, len: impl Fn(crate::reflect::ResourceClass) -> u32) -> Self {
        for r in self.resources.iter_mut().filter(|r| r.count == 0) {
            r.count = len(r.kind.class());
        }
        self
    }
}

/// Deepest chain of `let`s, locals and calls followed back.
const MAX_DEPTH: u32 = 16;

/// Every (array, index source) pair the module's functions contain, sorted, once each.
pub(super) fn indexing(module: &Module) -> Vec<Indexing> {
    let mut found = Vec::new();
    let functions = module.functions.iter().map(|(h, f)| (Some(h), f));
    for (handle, function) in functions.chain(module.entry_points.iter().map(|e| (None, &e.function))) {
        for (_, expr) in function.expressions.iter() {
            let Expression::Access { base, index } = *expr else { continue };
            let Some(global) = indexed_global(module, function, base) else { continue };
            let Some(array) = module.global_variables[global].binding.map(Into::into) else { continue };
            let by = Tracer { module }.source(handle, function, index, !0, 0);
            found.push(Indexing { array, by });
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The global `base` names when it is a storage array or a binding array.
fn indexed_global(module: &Module, f: &Function, base: Handle<Expression>) -> Option<Handle<GlobalVariable>> {
    let Expression::GlobalVariable(g) = f.expressions[base] else { return None };
    match module.types[module.global_variables[g].ty].inner {
        TypeInner::Array { size: ArraySize::Dynamic, .. } | TypeInner::BindingArray { .. } => Some(g),
        _ => None,
    }
}

struct Tracer<'m> {
    module: &'m Module,
}

impl Tracer<'_> {
    fn source(
        &self,
        handle: Option<Handle<Function>>,
        f: &Function,
        e: Handle<Expression>,
        mask: u32,
        depth: u32,
    ) -> IndexSource {
        if depth > MAX_DEPTH {
            return IndexSource::Other;
        }
        match f.expressions[e] {
            Expression::Binary { op: BinaryOperator::And, left, right } => {
                match (self.constant(f, left), self.constant(f, right)) {
                    (_, Some(m)) => self.source(handle, f, left, mask & m, depth + 1),
                    (Some(m), _) => self.source(handle, f, right, mask & m, depth + 1),
                    _ => IndexSource::Other,
                }
            }
            Expression::Load { pointer }
                if matches!(f.expressions[pointer], Expression::LocalVariable(_)) =>
            {
                match stored_once(f, pointer) {
                    Some(value) => self.source(handle, f, value, mask, depth + 1),
                    None => IndexSource::Other,
                }
            }
            Expression::FunctionArgument(i) => self.argument(handle, i, mask, depth),
            _ => match self.member(f, e) {
                Some((Some(array), member, offset)) => IndexSource::Member { array, member, offset, mask },
                Some((None, member, offset)) => IndexSource::Immediate { member, offset, mask },
                None => IndexSource::Other,
            },
        }
    }

    /// Argument `i` of function `handle` at every call site, if they agree.
    fn argument(&self, handle: Option<Handle<Function>>, i: u32, mask: u32, depth: u32) -> IndexSource {
        let Some(callee) = handle else { return IndexSource::Other };
        let mut agreed = None;
        let functions = self.module.functions.iter().map(|(h, f)| (Some(h), f));
        for (caller, f) in functions.chain(self.module.entry_points.iter().map(|e| (None, &e.function))) {
            let mut calls = Vec::new();
            calls_to(&f.body, callee, &mut calls);
            for args in calls {
                let Some(&arg) = args.get(i as usize) else { return IndexSource::Other };
                let source = self.source(caller, f, arg, mask, depth + 1);
                match &agreed {
                    Some(a) if *a != source => return IndexSource::Other,
                    _ => agreed = Some(source),
                }
            }
        }
        agreed.unwrap_or(IndexSource::Other)
    }

    fn constant(&self, f: &Function, e: Handle<Expression>) -> Option<u32> {
        let literal = |l: &Literal| match *l {
            Literal::U32(v) => Some(v),
            Literal::AbstractInt(v) => u32::try_from(v).ok(),
            _ => None,
        };
        match &f.expressions[e] {
            Expression::Literal(l) => literal(l),
            Expression::Constant(c) => {
                match &self.module.global_expressions[self.module.constants[*c].init] {
                    Expression::Literal(l) => literal(l),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `array[_].a.b` (loaded, or accessed on a loaded element): the array,
    /// the member path and its offset, for a `u32` member; or the same of
    /// the immediate data (`imm.a.b`, or a lone `imm`), with no array.
    fn member(&self, f: &Function, e: Handle<Expression>) -> Option<(Option<BindingPoint>, String, u32)> {
        let mut steps = Vec::new();
        let mut at = e;
        let (global, element) = loop {
            match f.expressions[at] {
                Expression::Load { pointer } => at = pointer,
                Expression::AccessIndex { base, index } => {
                    steps.push(index);
                    at = base;
                }
                Expression::Access { base, .. } => match f.expressions[base] {
                    Expression::GlobalVariable(g) => break (g, true),
                    _ => return None,
                },
                Expression::GlobalVariable(g) => break (g, false),
                _ => return None,
            }
        };
        let module = self.module;
        let var = &module.global_variables[global];
        let mut ty = match (element, var.space, &module.types[var.ty].inner) {
            (true, _, &TypeInner::Array { base, size: ArraySize::Dynamic, .. }) => base,
            (false, AddressSpace::Immediate, _) => var.ty,
            _ => return None,
        };
        let (mut path, mut offset) = (Vec::new(), 0);
        for &k in steps.iter().rev() {
            let TypeInner::Struct { ref members, .. } = module.types[ty].inner else { return None };
            let m = members.get(k as usize)?;
            path.push(m.name.clone().unwrap_or_else(|| k.to_string()));
            offset += m.offset;
            ty = m.ty;
        }
        if !matches!(module.types[ty].inner, TypeInner::Scalar(naga::Scalar::U32)) {
            return None;
        }
        if !element {
            let name = || var.name.clone().unwrap_or_else(|| "immediate".into());
            return Some((None, if path.is_empty() { name() } else { path.join(".") }, offset));
        }
        let binding = var.binding?;
        (!path.is_empty()).then(|| (Some(binding.into()), path.join("."), offset))
    }
}

/// The value stored into local `pointer`, when the function stores into it exactly once.
fn stored_once(f: &Function, pointer: Handle<Expression>) -> Option<Handle<Expression>> {
    let Expression::LocalVariable(local) = f.expressions[pointer] else { return None };
    let mut values = Vec::new();
    stores_to(f, &f.body, local, &mut values);
    let init = f.local_variables[local].init;
    match (values.as_slice(), init) {
        ([value], None) => Some(*value),
        ([], Some(init)) => Some(init),
        _ => None,
    }
}

fn stores_to(
    f: &Function,
    block: &naga::Block,
    local: Handle<naga::LocalVariable>,
    out: &mut Vec<Handle<Expression>>,
) {
    for s in block.iter() {
        match s {
            Statement::Store { pointer, value } => {
                if matches!(f.expressions[*pointer], Expression::LocalVariable(l) if l == local) {
                    out.push(*value);
                }
            }
            _ => each_block(s, |b| stores_to(f, b, local, out)),
        }
    }
}

fn calls_to(block: &naga::Block, callee: Handle<Function>, out: &mut Vec<Vec<Handle<Expression>>>) {
    for s in block.iter() {
        match s {
            Statement::Call { function, arguments, .. } if *function == callee => out.push(arguments.clone()),
            _ => each_block(s, |b| calls_to(b, callee, out)),
        }
    }
}

/// Calls `visit` on each block nested in `s`.
fn each_block(s: &Statement, mut visit: impl FnMut(&naga::Block)) {
    match s {
        Statement::Block(b) => visit(b),
        Statement::If { accept, reject, .. } => {
            visit(accept);
            visit(reject);
        }
        Statement::Switch { cases, .. } => cases.iter().for_each(|c| visit(&c.body)),
        Statement::Loop { body, continuing, .. } => {
            visit(body);
            visit(continuing);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflect::{ShaderReflection, ShaderSource};

    /// Bevy 0.20's bindless pattern (`pbr_fragment.wesl`, `parallax_mapping.wesl`), reduced.
    const BEVY: &str = r#"
enable wgpu_binding_array;
struct Mesh { world: mat4x4<f32>, material_and_lightmap_bind_group_slot: u32 }
struct Bindings { material: u32, base_color_texture: u32, base_color_sampler: u32 }
struct Material { base_color: vec4<f32> }
@group(1) @binding(0) var<storage> mesh: array<Mesh>;
@group(2) @binding(0) var<storage> material_indices: array<Bindings>;
@group(2) @binding(1) var samplers: binding_array<sampler>;
@group(2) @binding(5) var textures: binding_array<texture_2d<f32>>;
@group(2) @binding(10) var<storage> material_array: array<Material>;
fn sample(uv: vec2<f32>, slot: u32) -> vec4<f32> {
    return textureSample(textures[material_indices[slot].base_color_texture],
        samplers[material_indices[slot].base_color_sampler], uv);
}
@fragment fn fs(@location(0) @interpolate(flat) instance_index: u32, @location(1) uv: vec2<f32>) -> @location(0) vec4<f32> {
    let slot = mesh[instance_index].material_and_lightmap_bind_group_slot & 0xffffu;
    var s = slot;
    return material_array[material_indices[s].material].base_color * sample(uv, slot);
}
"#;

    #[test]
    fn bevy_bindless_indices_are_followed_to_their_members() {
        let r = ShaderReflection::new("bevy.wgsl", ShaderSource::Wgsl(BEVY)).unwrap();
        let member = |g, b, member: &str, offset, mask| IndexSource::Member {
            array: BindingPoint::new(g, b),
            member: member.into(),
            offset,
            mask,
        };
        let at = |g, b, by| Indexing { array: BindingPoint::new(g, b), by };
        assert_eq!(
            r.indexing(),
            [
                at(1, 0, IndexSource::Other),
                at(2, 0, member(1, 0, "material_and_lightmap_bind_group_slot", 64, 0xffff)),
                at(2, 1, member(2, 0, "base_color_sampler", 8, !0)),
                at(2, 5, member(2, 0, "base_color_texture", 4, !0)),
                at(2, 10, member(2, 0, "material", 0, !0)),
            ]
        );
    }

    #[test]
    fn an_index_in_the_immediate_data_is_followed_to_its_member() {
        const SRC: &str = "
struct Material { color: vec4<f32> }
@group(2) @binding(0) var<storage> materials: array<Material>;
@group(2) @binding(1) var<storage> extra: array<Material>;
struct Imm { flags: u32, material: u32 }
var<immediate> imm: Imm;
@fragment fn fs() -> @location(0) vec4<f32> {
    let m = imm.material & 0xffu;
    return materials[m].color + extra[imm.flags + 1u].color;
}";
        let r = ShaderReflection::new("imm.wgsl", ShaderSource::Wgsl(SRC)).unwrap();
        let immediate = IndexSource::Immediate { member: "material".into(), offset: 4, mask: 0xff };
        assert_eq!(
            r.indexing(),
            [
                Indexing { array: BindingPoint::new(2, 0), by: immediate },
                Indexing { array: BindingPoint::new(2, 1), by: IndexSource::Other },
            ]
        );
        let lone = SRC
            .replace("var<immediate> imm: Imm;", "var<immediate> slot: u32;")
            .replace("imm.material", "slot");
        let lone = lone.replace("imm.flags", "slot");
        let r = ShaderReflection::new("lone.wgsl", ShaderSource::Wgsl(&lone)).unwrap();
        assert_eq!(
            r.indexing()[0].by,
            IndexSource::Immediate { member: "slot".into(), offset: 0, mask: 0xff }
        );
    }
}
