//! Constructors for params types, from typify's type information.
//!
//! `AddInput::new(a, b)` takes the required fields in the order of the
//! schema's `required` list; optional fields start unset (`None`, empty), so
//! that nothing the caller didn't ask for is sent and the server applies its
//! own defaults. Each optional field gets a `with_*` setter, so a call with
//! many optional arguments stays one expression:
//! `SearchInput::new("rust").with_limit(10)`. Structs whose fields are all
//! optional also implement `Default` (typify derives it).
//!
//! typify gives a union `From` its branch types, except `String` (it keeps
//! that for `TryFrom<&str>` on unions that parse from strings); where a
//! union has one string branch and no such parse, [`string_froms`] adds
//! `From<String>` and `From<&str>`, so that `"text".into()` works for
//! `boolean | string` as `true.into()` does.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use serde_json::Value;
use typify::{TypeDetails, TypeId, TypeSpace, TypeSpaceImpl};

use crate::naming::{typify_sanitize, Case};

/// One field of a params struct, as the constructor sees it.
struct Field {
    ident: Ident,
    ty: TokenStream,
    /// For an `Option<T>` field, `T`.
    inner: Option<TokenStream>,
    is_string: bool,
    required: bool,
}

/// `impl types::X { new, with_* }` for a params struct; `None` when the
/// type isn't a struct (an alias, a map, an enum).
pub(crate) fn constructor(space: &TypeSpace, id: &TypeId, root: &Value) -> Option<TokenStream> {
    let ty = space.get_type(id).ok()?;
    let name = ty.ident();
    let TypeDetails::Struct(details) = ty.details() else {
        return None;
    };
    let mut fields: Vec<Field> = details
        .properties_info()
        .map(|info| field(space, info.name, &info.type_id, info.required))
        .collect::<Option<_>>()?;
    // Required fields in the order the schema lists them.
    let order: Vec<String> = root
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(|n| typify_sanitize(n, Case::Snake))
                .collect()
        })
        .unwrap_or_default();
    let rank = |f: &Field| {
        order
            .iter()
            .position(|n| f.ident == n)
            .unwrap_or(usize::MAX)
    };
    fields.sort_by_key(|f| (!f.required, if f.required { rank(f) } else { 0 }));

    let params = fields.iter().filter(|f| f.required).map(|f| {
        let (ident, ty) = (&f.ident, &f.ty);
        if f.is_string {
            quote!(#ident: impl ::std::convert::Into<#ty>)
        } else {
            quote!(#ident: #ty)
        }
    });
    let inits = fields.iter().map(|f| {
        let ident = &f.ident;
        match (f.required, f.is_string, &f.inner) {
            (true, true, _) => quote!(#ident: #ident.into()),
            (true, false, _) => quote!(#ident),
            (false, _, Some(_)) => quote!(#ident: ::std::option::Option::None),
            (false, _, None) => quote!(#ident: ::std::default::Default::default()),
        }
    });
    // All fields optional: typify derives `Default`, which says it all.
    let body = if fields.iter().all(|f| !f.required) && ty.has_impl(TypeSpaceImpl::Default) {
        quote!(::std::default::Default::default())
    } else {
        quote!(Self { #(#inits),* })
    };
    let setters = fields.iter().filter(|f| !f.required).map(setter);
    let doc = " From the required fields, in the schema's order; optional fields \
               start unset (the server applies its defaults).";
    Some(quote! {
        impl #name {
            #[doc = #doc]
            pub fn new(#(#params),*) -> Self {
                #body
            }
            #(#setters)*
        }
    })
}

fn field(space: &TypeSpace, name: &str, id: &TypeId, required: bool) -> Option<Field> {
    let ty = space.get_type(id).ok()?;
    let inner = match ty.details() {
        TypeDetails::Option(inner) => Some(space.get_type(&inner).ok()?),
        _ => None,
    };
    let is_string = match &inner {
        Some(inner) => matches!(inner.details(), TypeDetails::String),
        None => matches!(ty.details(), TypeDetails::String),
    };
    Some(Field {
        ident: syn::parse_str(name).ok()?,
        ty: ty.ident(),
        inner: inner.map(|t| t.ident()),
        is_string,
        required,
    })
}

/// `with_x(mut self, x) -> Self` for an optional field.
fn setter(f: &Field) -> TokenStream {
    let ident = &f.ident;
    let raw = ident.to_string();
    let method = format_ident!("with_{}", raw.trim_start_matches("r#"));
    let doc = format!(" Sets `{}`.", raw.trim_start_matches("r#"));
    let (param, value) = match (&f.inner, f.is_string) {
        (Some(inner), true) => (
            quote!(impl ::std::convert::Into<#inner>),
            quote!(::std::option::Option::Some(#ident.into())),
        ),
        (Some(inner), false) => (quote!(#inner), quote!(::std::option::Option::Some(#ident))),
        (None, _) => {
            let ty = &f.ty;
            (quote!(#ty), quote!(#ident))
        }
    };
    quote! {
        #[doc = #doc]
        pub fn #method(mut self, #ident: #param) -> Self {
            self.#ident = #value;
            self
        }
    }
}

/// `From<String>` and `From<&str>` for every union with exactly one string
/// branch that typify gave no `FromStr` (see the module docs).
pub(crate) fn string_froms(space: &TypeSpace) -> TokenStream {
    let mut out = TokenStream::new();
    for ty in space.iter_types() {
        let TypeDetails::Enum(details) = ty.details() else {
            continue;
        };
        if ty.has_impl(TypeSpaceImpl::FromStr) {
            continue;
        }
        let strings: Vec<&str> = details
            .variants()
            .filter_map(|(name, variant)| match variant {
                typify::TypeEnumVariant::Tuple(ids) if ids.len() == 1 => {
                    let is_string = space
                        .get_type(&ids[0])
                        .is_ok_and(|inner| matches!(inner.details(), TypeDetails::String));
                    is_string.then_some(name)
                }
                _ => None,
            })
            .collect();
        let [variant] = strings.as_slice() else {
            continue;
        };
        let Ok(variant) = syn::parse_str::<Ident>(variant) else {
            continue;
        };
        let name = ty.ident();
        out.extend(quote! {
            impl ::std::convert::From<::std::string::String> for #name {
                fn from(value: ::std::string::String) -> Self {
                    Self::#variant(value)
                }
            }
            impl ::std::convert::From<&str> for #name {
                fn from(value: &str) -> Self {
                    Self::#variant(value.to_owned())
                }
            }
        });
    }
    out
}
