//! Constructors for params types, from typify's type information.
//!
//! A params struct says `#[constructors(a, b)]` (`mcpbind-derive`), with
//! its required fields in the order of the schema's `required` list:
//! `AddInput::new(a, b)` takes those; optional fields start unset (`None`,
//! empty), so that nothing the caller didn't ask for is sent and the server
//! applies its own defaults. Each optional field gets a `with_*` setter, so
//! a call with many optional arguments stays one expression:
//! `SearchInput::new("rust").with_limit(10)`. Structs whose fields are all
//! optional also implement `Default` (typify derives it).
//!
//! typify gives a union `From` its branch types, except `String` (it keeps
//! that for `TryFrom<&str>` on unions that parse from strings); where a
//! union has one string branch and no such parse, [`string_froms`] adds
//! `From<String>` and `From<&str>`, so that `"text".into()` works for
//! `boolean | string` as `true.into()` does.

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use serde_json::Value;
use typify::{TypeDetails, TypeId, TypeSpace, TypeSpaceImpl};

use crate::naming::{typify_sanitize, Case};

/// The required fields of a params struct, in the order of the schema's
/// `required` list, as `#[constructors(…)]` takes them, with the struct's
/// name; `None` when the type isn't a struct (an alias, a map, an enum).
pub(crate) fn constructor(
    space: &TypeSpace,
    id: &TypeId,
    root: &Value,
) -> Option<(String, TokenStream)> {
    let ty = space.get_type(id).ok()?;
    let TypeDetails::Struct(details) = ty.details() else {
        return None;
    };
    let mut required: Vec<Ident> = details
        .properties_info()
        .filter(|info| info.required)
        .map(|info| syn::parse_str(info.name).ok())
        .collect::<Option<_>>()?;
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
    required.sort_by_key(|ident| order.iter().position(|n| ident == n).unwrap_or(usize::MAX));
    Some((ty.name(), quote!(#(#required),*)))
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
