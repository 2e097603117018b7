//! `#[derive(ShaderStruct)]` for `freqbuf` (use it through `freqbuf`'s
//! `derive` feature): lays a struct's fields out by WGSL's alignment rules
//! and writes each field's buffer form at its offset.
//!
//! ```
//! use freqbuf::ShaderStruct;
//!
//! #[derive(ShaderStruct)]
//! struct Material {
//!     color: [f32; 4],    // vec4<f32> at 0
//!     roughness: f32,     // f32 at 16
//!     offset: [f32; 3],   // vec3<f32> at 32
//! }
//!
//! let offsets: Vec<u32> = Material::MEMBERS.iter().map(|m| m.offset).collect();
//! assert_eq!(offsets, [0, 16, 32]);
//! assert_eq!(Material::SIZE, 48);
//! ```
//!
//! Fields are any `freqbuf::Uniform` type (scalars, vectors and matrices as
//! arrays, glam's and mint's); named fields only, no generics. A field may
//! say `#[shader(offset = N)]` (its offset, where members the struct leaves
//! out come before it; checked against its alignment at compile time) and
//! `#[shader(name = "crate")]` (the member it writes, where the field
//! cannot be named so).

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
    let types = fields.named.iter().map(|f| &f.ty).collect::<Vec<_>>();
    let mut names = Vec::new();
    let mut offsets = Vec::new();
    for (f, ident) in fields.named.iter().zip(&idents) {
        let (name, offset) = attributes(f)?;
        names.push(name.unwrap_or_else(|| ident.to_string().trim_start_matches("r#").to_owned()));
        // `u32::MAX`: the next offset WGSL's alignment allows.
        offsets.push(offset.unwrap_or(u32::MAX));
    }
    let indices = (0..idents.len()).collect::<Vec<_>>();
    Ok(quote! {
        impl ::freqbuf::ShaderStruct for #name {
            const MEMBERS: &'static [::freqbuf::StructMember] = &::freqbuf::__derive::struct_members_at([
                #( (#names, <#types as ::freqbuf::Uniform>::TYPE, #offsets) ),*
            ]);

            fn write_gpu(&self, out: &mut [u8]) {
                let members = <Self as ::freqbuf::ShaderStruct>::MEMBERS;
                #( ::freqbuf::__derive::put_member(out, members[#indices].offset, &self.#idents); )*
            }
        }
    })
}

/// A field's `#[shader(name = "..", offset = N)]`: the member it writes
/// (where the field cannot be named so, as `crate`), and its byte offset
/// (where members the struct leaves out come before it).
fn attributes(field: &syn::Field) -> syn::Result<(Option<String>, Option<u32>)> {
    let (mut name, mut offset) = (None, None);
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("shader")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("name") {
                name = Some(meta.value()?.parse::<syn::LitStr>()?.value());
                Ok(())
            } else if meta.path.is_ident("offset") {
                offset = Some(meta.value()?.parse::<syn::LitInt>()?.base10_parse::<u32>()?);
                Ok(())
            } else {
                Err(meta.error("ShaderStruct: expected `name = \"..\"` or `offset = N`"))
            }
        })?;
    }
    Ok((name, offset))
}
