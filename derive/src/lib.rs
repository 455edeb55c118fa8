//! `#[derive(Deserialize)]` for mcpbind's generated types: serde's
//! `Deserialize`, for the shapes the generator emits most (structs with named
//! fields, enums of unit variants), in a few lines per type instead of
//! serde_derive's generic visitors.
//!
//! Why: `cargo check` of bindings spends most of its time type-checking and
//! borrow-checking serde_derive's `Deserialize` impls (a field enum, its
//! visitor, `visit_seq` and `visit_map` generic over the deserializer, per
//! type). This derive reads the object into a JSON map once, through
//! helpers in `mcpbind::__private::de` that are compiled once in mcpbind,
//! and takes each field out of it: about a quarter of the check time
//! (BENCHMARKS.md). The generator uses it only where it behaves as
//! serde_derive does for JSON; other types keep serde_derive.
//!
//! Supported, and nothing else (anything else is a compile error naming
//! it, so a generator change can't silently change behaviour):
//! - container: `#[serde(crate = "…")]` (ignored: paths go through
//!   `::mcpbind::__private`), `#[serde(deny_unknown_fields)]`;
//! - fields: `rename = "…"`, `default`, `default = "path"`,
//!   `deserialize_with = "path"`, `flatten` (at most one field),
//!   `skip_serializing_if = "…"` (serialization only);
//! - unit variants: `rename = "…"`.
//!
//! Semantics, as serde_derive's for JSON: a missing `Option` field is
//! `None`, a missing field with `default` takes it, any other missing field
//! is "missing field `x`"; unknown fields are ignored (refused with
//! `deny_unknown_fields`); a flattened field takes the fields no other
//! field took. Unlike serde_derive, a struct is not read from a JSON array.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Fields, LitStr};

/// serde's `Deserialize`, for a struct with named fields or an enum of unit
/// variants (see the crate docs).
#[proc_macro_derive(Deserialize, attributes(serde))]
pub fn derive_deserialize(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

fn expand(input: &DeriveInput) -> syn::Result<TokenStream2> {
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "mcpbind's Deserialize derive takes no generics",
        ));
    }
    let deny_unknown = container_attrs(input)?;
    let body = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(fields) => struct_body(&input.ident, fields, deny_unknown)?,
            _ => return Err(unsupported(&input.ident, "a struct without named fields")),
        },
        Data::Enum(data) if !deny_unknown => enum_body(&input.ident, data)?,
        _ => return Err(unsupported(&input.ident, "this kind of type")),
    };
    let name = &input.ident;
    Ok(quote! {
        #[automatically_derived]
        impl<'de> ::mcpbind::__private::serde::Deserialize<'de> for #name {
            fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
            where
                D: ::mcpbind::__private::serde::Deserializer<'de>,
            {
                #body
            }
        }
    })
}

fn unsupported(at: &syn::Ident, what: &str) -> syn::Error {
    syn::Error::new_spanned(
        at,
        format!("mcpbind's Deserialize derive does not support {what}: use serde's"),
    )
}

/// The container's `#[serde(…)]`: whether it has `deny_unknown_fields`.
fn container_attrs(input: &DeriveInput) -> syn::Result<bool> {
    let mut deny_unknown = false;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("deny_unknown_fields") {
                deny_unknown = true;
            } else if meta.path.is_ident("crate") {
                meta.value()?.parse::<LitStr>()?;
            } else {
                return Err(meta.error("unsupported container attribute"));
            }
            Ok(())
        })?;
    }
    Ok(deny_unknown)
}

/// A field's `#[serde(…)]`.
#[derive(Default)]
struct FieldAttrs {
    rename: Option<String>,
    /// `default` (`Some(None)`) or `default = "path"`.
    default: Option<Option<syn::ExprPath>>,
    deserialize_with: Option<syn::ExprPath>,
    flatten: bool,
}

fn field_attrs(attrs: &[syn::Attribute]) -> syn::Result<FieldAttrs> {
    let mut out = FieldAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                out.rename = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("default") {
                out.default = Some(match meta.value() {
                    Ok(value) => Some(value.parse::<LitStr>()?.parse()?),
                    Err(_) => None,
                });
            } else if meta.path.is_ident("deserialize_with") {
                out.deserialize_with = Some(meta.value()?.parse::<LitStr>()?.parse()?);
            } else if meta.path.is_ident("flatten") {
                out.flatten = true;
            } else if meta.path.is_ident("skip_serializing_if") {
                meta.value()?.parse::<LitStr>()?;
            } else {
                return Err(meta.error("unsupported field attribute"));
            }
            Ok(())
        })?;
    }
    Ok(out)
}

/// Reads the object, then each named field in order, then the flattened
/// one (it takes what is left).
fn struct_body(
    name: &syn::Ident,
    fields: &syn::FieldsNamed,
    deny_unknown: bool,
) -> syn::Result<TokenStream2> {
    let private = quote!(::mcpbind::__private::de);
    let mut lets = Vec::new();
    let mut flattened = None;
    let mut wire_names = Vec::new();
    let mut inits = Vec::new();
    for (i, field) in fields.named.iter().enumerate() {
        let ident = field.ident.as_ref().expect("named fields have names");
        let attrs = field_attrs(&field.attrs)?;
        let local = format_ident!("__field{}", i);
        inits.push(quote!(#ident: #local));
        if attrs.flatten {
            if flattened.is_some() || deny_unknown {
                return Err(syn::Error::new_spanned(
                    ident,
                    "mcpbind's Deserialize derive takes one flattened field, without deny_unknown_fields",
                ));
            }
            flattened = Some(quote!(let #local = object.rest()?;));
            continue;
        }
        let wire = attrs
            .rename
            .unwrap_or_else(|| ident.to_string().trim_start_matches("r#").to_owned());
        let key = LitStr::new(&wire, Span::call_site());
        wire_names.push(key.clone());
        let value = match (&attrs.deserialize_with, &attrs.default) {
            (None, None) => quote!(object.field(#key)?),
            (None, Some(None)) => {
                quote!(object.field_or(#key, ::std::default::Default::default)?)
            }
            (None, Some(Some(path))) => quote!(object.field_or(#key, #path)?),
            (Some(with), None) => quote!(object.field_with(#key, #with)?),
            (Some(with), Some(None)) => quote!(object.field_with_or(
                #key, #with, ::std::default::Default::default
            )?),
            (Some(with), Some(Some(path))) => quote!(object.field_with_or(#key, #with, #path)?),
        };
        lets.push(quote!(let #local = #value;));
    }
    let deny = deny_unknown.then(|| quote!(object.deny_unknown(&[#(#wire_names),*])?;));
    let expecting = LitStr::new(&format!("struct {name}"), Span::call_site());
    Ok(quote! {
        let mut object = #private::Object::new(deserializer, #expecting)?;
        #(#lets)*
        #flattened
        #deny
        ::std::result::Result::Ok(Self { #(#inits),* })
    })
}

/// Reads a string and matches it against the variants' names.
fn enum_body(name: &syn::Ident, data: &syn::DataEnum) -> syn::Result<TokenStream2> {
    let mut names = Vec::new();
    let mut arms = Vec::new();
    let count = data.variants.len();
    for (i, variant) in data.variants.iter().enumerate() {
        if !matches!(variant.fields, Fields::Unit) || variant.discriminant.is_some() {
            return Err(unsupported(name, "an enum with non-unit variants"));
        }
        let mut rename = None;
        for attr in variant.attrs.iter().filter(|a| a.path().is_ident("serde")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    rename = Some(meta.value()?.parse::<LitStr>()?.value());
                    Ok(())
                } else {
                    Err(meta.error("unsupported variant attribute"))
                }
            })?;
        }
        let ident = &variant.ident;
        let wire = rename.unwrap_or_else(|| ident.to_string().trim_start_matches("r#").to_owned());
        names.push(LitStr::new(&wire, Span::call_site()));
        // The last arm is `_`: `variant` returns an index below `count`.
        arms.push(if i + 1 == count {
            quote!(_ => Self::#ident)
        } else {
            quote!(#i => Self::#ident)
        });
    }
    if names.is_empty() {
        return Err(unsupported(name, "an enum without variants"));
    }
    let expecting = LitStr::new(&format!("enum {name}"), Span::call_site());
    Ok(quote! {
        ::std::result::Result::Ok(
            match ::mcpbind::__private::de::variant(deserializer, #expecting, &[#(#names),*])? {
                #(#arms,)*
            }
        )
    })
}
