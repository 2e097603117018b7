//! Layout rules written out from the specs, so tests can work out the offsets
//! the reflection must report without asking the program under test.
//!
//! WGSL: "Memory Layout" in the WGSL spec (uniform address space).
//! std140: the OpenGL 4.5 spec, section 7.6.2.2, rules 1 to 9.

#![allow(dead_code, reason = "the rule set covers more shapes than the tests use")]

/// A type, as written in a shader.
#[derive(Clone, Debug)]
pub enum Ty {
    /// A 4-byte scalar.
    Scalar,
    /// A vector of N 4-byte scalars.
    Vec(u32),
    /// A matrix of C columns of R rows.
    Mat(u32, u32),
    /// An array of N elements.
    Array(Box<Ty>, u32),
    /// A struct: name, and fields with an optional `@align` attribute.
    Struct(&'static str, Vec<Field>),
}

/// A struct field.
#[derive(Clone, Debug)]
pub struct Field {
    pub name: &'static str,
    pub ty: Ty,
    pub align_attr: Option<u32>,
}

pub fn f(name: &'static str, ty: Ty) -> Field {
    Field { name, ty, align_attr: None }
}

/// Which rules to apply.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rules {
    Wgsl,
    Std140,
}

fn round_up(align: u32, n: u32) -> u32 {
    n.div_ceil(align) * align
}

/// (alignment, size) of a type.
pub fn align_size(ty: &Ty, rules: Rules) -> (u32, u32) {
    match ty {
        Ty::Scalar => (4, 4),
        // vec2: 8; vec3 and vec4: 16 (both rule sets agree).
        Ty::Vec(n) => (if *n == 2 { 8 } else { 16 }, 4 * n),
        Ty::Mat(c, r) => {
            // A matrix is an array of C column vectors.
            let (col_align, col_size) = align_size(&Ty::Vec(*r), rules);
            let (align, stride) = match rules {
                Rules::Wgsl => (col_align, round_up(col_align, col_size)),
                Rules::Std140 => (16, 16),
            };
            (align, c * stride)
        }
        Ty::Array(elem, n) => {
            let (a, s) = align_size(elem, rules);
            // Uniform buffers (WGSL) and std140 both round arrays up to 16.
            let align = round_up(16, a);
            (align, n * round_up(align, s))
        }
        Ty::Struct(_, fields) => {
            let offsets = field_offsets(fields, rules);
            let mut align = fields
                .iter()
                .map(|fl| fl.align_attr.unwrap_or(align_size(&fl.ty, rules).0))
                .max()
                .unwrap_or(1);
            if rules == Rules::Std140 {
                align = round_up(16, align);
            }
            let last = fields.len() - 1;
            let end = offsets[last] + align_size(&fields[last].ty, rules).1;
            (align, round_up(align, end))
        }
    }
}

/// Offsets of a struct's fields.
pub fn field_offsets(fields: &[Field], rules: Rules) -> Vec<u32> {
    let mut offset = 0;
    let mut out = Vec::new();
    for fl in fields {
        let (a, s) = align_size(&fl.ty, rules);
        offset = round_up(fl.align_attr.unwrap_or(a), offset);
        out.push(offset);
        offset += s;
    }
    out
}

/// Stride of an array type.
pub fn stride(ty: &Ty, rules: Rules) -> u32 {
    match ty {
        Ty::Array(_, n) => align_size(ty, rules).1 / n,
        _ => 0,
    }
}
