//! Constructors for params structs: `AddInput::new(a, b)` takes the
//! required fields and fills the optional ones with their defaults, so that
//! call sites stay short. Read off the generated struct's serde attributes
//! (typify's output), which say which fields may be missing on the wire.

use proc_macro2::TokenStream;
use quote::quote;

/// Adds `impl X { pub fn new(..) -> Self }` for each named struct.
pub(crate) fn add_constructors(file: &mut syn::File, structs: &[String]) {
    let mut impls = Vec::new();
    for item in &file.items {
        let syn::Item::Struct(item) = item else {
            continue;
        };
        if !structs.iter().any(|s| item.ident == s) {
            continue;
        }
        let syn::Fields::Named(fields) = &item.fields else {
            continue;
        };
        if let Some(tokens) = constructor(&item.ident, fields) {
            impls.push(tokens);
        }
    }
    for tokens in impls {
        if let Ok(item) = syn::parse2(tokens) {
            file.items.push(item);
        }
    }
}

/// What an optional field starts as, from its serde attributes; `None` for
/// a required field.
fn default_of(field: &syn::Field) -> Option<TokenStream> {
    let mut default = None;
    let mut skips_none = false;
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("default") {
                default = Some(match meta.value() {
                    Ok(value) => {
                        let path: syn::LitStr = value.parse()?;
                        let path: syn::ExprPath = path.parse()?;
                        quote!(#path())
                    }
                    Err(_) => quote!(::std::default::Default::default()),
                });
            } else if meta.path.is_ident("skip_serializing_if") {
                skips_none = true;
                let _: syn::LitStr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::LitStr = meta.value()?.parse()?;
            }
            Ok(())
        });
    }
    let is_option = matches!(&field.ty, syn::Type::Path(p)
        if p.path.segments.last().is_some_and(|s| s.ident == "Option"));
    default.or_else(|| (skips_none && is_option).then(|| quote!(::std::option::Option::None)))
}

fn is_string(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "String" && s.arguments.is_empty()))
}

fn constructor(name: &syn::Ident, fields: &syn::FieldsNamed) -> Option<TokenStream> {
    let mut params = Vec::new();
    let mut inits = Vec::new();
    for field in &fields.named {
        let ident = field.ident.as_ref()?;
        let ty = &field.ty;
        match default_of(field) {
            Some(default) => inits.push(quote!(#ident: #default)),
            // `impl Into<String>` lets callers pass `"text"`; other types are
            // taken as they are, so that integer literals still infer.
            None if is_string(ty) => {
                params.push(quote!(#ident: impl ::std::convert::Into<#ty>));
                inits.push(quote!(#ident: #ident.into()));
            }
            None => {
                params.push(quote!(#ident: #ty));
                inits.push(quote!(#ident));
            }
        }
    }
    let doc = format!(
        " `{name}` from its required fields{}; the optional ones take their defaults.",
        if params.is_empty() {
            " (it has none)"
        } else {
            ""
        }
    );
    Some(quote! {
        impl #name {
            #[doc = #doc]
            #[allow(clippy::too_many_arguments, clippy::new_without_default)]
            pub fn new(#(#params),*) -> Self {
                Self { #(#inits),* }
            }
        }
    })
}
