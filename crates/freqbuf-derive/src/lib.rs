//! `#[derive(ShaderStruct)]` for `freqbuf` (use it through `freqbuf`'s
//! `derive` feature): lays a struct's fields out by WGSL's alignment rules
//! and writes each field's buffer form at its offset.
//!
//! Fields are any `freqbuf::Uniform` type (scalars, vectors and matrices as
//! arrays, glam's and mint's), another `ShaderStruct` (a nested struct), or
//! a fixed array of either; named fields only, no generics. The examples
//! are on [`freqbuf::ShaderStruct`](https://docs.rs/freqbuf/latest/freqbuf/trait.ShaderStruct.html),
//! where freqbuf's doc tests run them: a dev-dependency on freqbuf here
//! built wgpu a second time in every `cargo test`.
//!
//! A field may say:
//! - `#[shader(offset = N)]`: its offset, where members the struct leaves
//!   out come before it (checked against its alignment at compile time);
//! - `#[shader(name = "crate")]`: the member it writes, where the field
//!   cannot be named so;
//! - `#[shader(array)]`: a `[T; N]` of scalars or vectors that is a WGSL
//!   array, since Rust's `[f32; 4]` is also a `vec4<f32>` and
//!   `[[f32; 4]; 2]` a `mat2x4<f32>` (any other `[T; N]` is an array);
//! - `#[shader(stride = N)]`: an array's stride, where it is not WGSL's
//!   (GLSL's std140 rounds `float[4]` to 16 bytes).

use proc_macro::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields, parse_macro_input};

/// Implements `freqbuf::ShaderStruct`: `MEMBERS` at WGSL offsets, and
/// `write_gpu`, which writes each field's buffer form there.
#[proc_macro_derive(ShaderStruct, attributes(shader))]
pub fn derive_shader_struct(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}

fn expand(input: &DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    let name = &input.ident;
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "ShaderStruct: a struct without generic parameters",
        ));
    }
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(name, "ShaderStruct: only structs have a WGSL layout"));
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new_spanned(
            name,
            "ShaderStruct: fields must be named (they name block members)",
        ));
    };
    let idents = fields.named.iter().filter_map(|f| f.ident.as_ref()).collect::<Vec<_>>();
    let mut shapes = Vec::new();
    let mut puts = Vec::new();
    for (i, (f, ident)) in fields.named.iter().zip(&idents).enumerate() {
        let attrs = attributes(f)?;
        let member = attrs.name.unwrap_or_else(|| ident.to_string().trim_start_matches("r#").to_owned());
        // `u32::MAX`: the next offset (or stride) WGSL's alignment allows.
        let offset = attrs.offset.unwrap_or(u32::MAX);
        let at = quote! { <Self as ::freqbuf::ShaderStruct>::MEMBERS[#i] };
        match array_of(&f.ty, attrs.array) {
            Some((elem, len)) => {
                let stride = attrs.stride.unwrap_or(u32::MAX);
                shapes.push(quote! {
                    (#member, ::freqbuf::shape::FieldType::array(
                        &<#elem as ::freqbuf::ShaderField>::FIELD, (#len) as u32, #stride), #offset)
                });
                puts.push(quote! {
                    if let ::freqbuf::shape::FieldType::Array { stride, .. } = #at.ty {
                        ::freqbuf::__derive::put_array(out, #at.offset, stride, &self.#ident);
                    }
                });
            }
            None if attrs.stride.is_some() || attrs.array => {
                return Err(syn::Error::new_spanned(
                    &f.ty,
                    "ShaderStruct: `array` and `stride` are for `[T; N]` fields",
                ));
            }
            None => {
                let ty = &f.ty;
                shapes.push(quote! { (#member, <#ty as ::freqbuf::ShaderField>::FIELD, #offset) });
                puts.push(quote! { ::freqbuf::ShaderField::put(&self.#ident, out, #at.offset); });
            }
        }
    }
    let rust_name = name.to_string();
    Ok(quote! {
        impl ::freqbuf::ShaderStruct for #name {
            const MEMBERS: &'static [::freqbuf::shape::StructMember] =
                &::freqbuf::__derive::struct_members_at([ #( #shapes ),* ]);

            fn write_gpu(&self, out: &mut [u8]) {
                #( #puts )*
            }
        }

        impl ::freqbuf::ShaderField for #name {
            const FIELD: ::freqbuf::shape::FieldType = ::freqbuf::shape::FieldType::Struct {
                name: #rust_name,
                members: <Self as ::freqbuf::ShaderStruct>::MEMBERS,
                size: <Self as ::freqbuf::ShaderStruct>::SIZE,
            };

            fn put(&self, out: &mut [u8], offset: u32) {
                ::freqbuf::__derive::put_struct(out, offset, self);
            }
        }
    })
}

/// A field's `#[shader(..)]`.
#[derive(Default)]
struct Attributes {
    /// `name = ".."`: the member it writes, where the field cannot be named so (`crate`).
    name: Option<String>,
    /// `offset = N`: its byte offset, where members the struct leaves out come before it.
    offset: Option<u32>,
    /// `array`: a `[T; N]` that is an array, not a vector or matrix.
    array: bool,
    /// `stride = N`: an array's stride, where it is not WGSL's (GLSL's std140).
    stride: Option<u32>,
}

fn attributes(field: &syn::Field) -> syn::Result<Attributes> {
    let mut out = Attributes::default();
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("shader")) {
        attr.parse_nested_meta(|meta| {
            let int = |meta: &syn::meta::ParseNestedMeta| -> syn::Result<u32> {
                meta.value()?.parse::<syn::LitInt>()?.base10_parse::<u32>()
            };
            if meta.path.is_ident("name") {
                out.name = Some(meta.value()?.parse::<syn::LitStr>()?.value());
            } else if meta.path.is_ident("offset") {
                out.offset = Some(int(&meta)?);
            } else if meta.path.is_ident("stride") {
                out.stride = Some(int(&meta)?);
            } else if meta.path.is_ident("array") {
                out.array = true;
            } else {
                return Err(meta
                    .error("ShaderStruct: expected `name = \"..\"`, `offset = N`, `array` or `stride = N`"));
            }
            Ok(())
        })?;
    }
    Ok(out)
}

/// The element type and length of a field that is an array: a `[T; N]`
/// marked `array`, or any `[T; N]` whose `T` is not a scalar or a scalar
/// array (`[f32; 4]` is a `vec4`, `[[f32; 4]; 4]` a `mat4x4`, but
/// `[Light; 4]` and `[Vec4; 8]` are arrays).
fn array_of(ty: &syn::Type, marked: bool) -> Option<(&syn::Type, &syn::Expr)> {
    let syn::Type::Array(array) = ty else { return None };
    (marked || !is_scalar_or_vector(&array.elem)).then_some((&*array.elem, &array.len))
}

fn is_scalar_or_vector(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => ["f32", "i32", "u32"].iter().any(|s| p.path.is_ident(s)),
        syn::Type::Array(a) => is_scalar_or_vector(&a.elem),
        _ => false,
    }
}
