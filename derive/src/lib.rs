#![cfg_attr(docsrs, feature(doc_cfg))]
//! `#[derive(Deserialize, Serialize)]` for mcpbind's generated types:
//! serde's traits, for the shapes the generator emits most (structs with
//! named fields, enums of unit variants), in a few lines per type instead of
//! serde_derive's generic visitors.
//!
//! Why: `cargo check` of bindings spent most of its time type-checking and
//! borrow-checking serde_derive's impls, `Deserialize` above all (a field
//! enum, its visitor, `visit_seq` and `visit_map` generic over the
//! deserializer, per type). These derives read an object into a JSON map
//! once and take each field out of it, or write each field into a map,
//! through helpers in `mcpbind::__private::{de, ser}` that are compiled
//! once in mcpbind (figures in BENCHMARKS.md). The generator uses them only
//! where they behave as serde_derive does for JSON; other types (typify's
//! untagged and tagged enums, newtypes) keep serde_derive.
//!
//! Supported, and nothing else (anything else is a compile error naming
//! it, so a generator change can't silently change behaviour):
//! - container: `#[serde(crate = "…")]` (ignored: paths go through
//!   `::mcpbind::__private`), `#[serde(deny_unknown_fields)]`,
//!   `#[serde(rename_all = "…")]` (serde's rules, applied as serde does);
//! - fields: `rename = "…"`, `default`, `default = "path"`,
//!   `deserialize_with = "path"`, `skip_serializing_if = "path"`, `flatten`
//!   (at most one field, an object);
//! - unit variants: `rename = "…"`.
//!
//! Semantics, as serde_derive's for JSON: a missing `Option` field is
//! `None`, a missing field with `default` takes it, any other missing field
//! is "missing field `x`"; unknown fields are ignored (refused with
//! `deny_unknown_fields`); a flattened field takes the fields no other
//! field took, and is written inline. Unlike serde_derive, a struct is not
//! read from a JSON array, nor a unit variant from `{"name": null}`: the
//! schema allows neither; and a whole float in a field (`1.0`, at any depth)
//! is read as the integer it is, so an integer field takes it (JSON Schema
//! compares numbers by value) and still refuses `1.5`.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Fields, LitStr};

/// serde's `Serialize`, for the same shapes as [`macro@Deserialize`]: a
/// struct is written as a JSON object (skipping what `skip_serializing_if`
/// says, the flattened field's entries inline), a unit variant as its name.
#[proc_macro_derive(Serialize, attributes(serde))]
pub fn derive_serialize(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as DeriveInput);
    match expand_serialize(&input) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

fn expand_serialize(input: &DeriveInput) -> syn::Result<TokenStream2> {
    check_shape(input)?;
    let container = container_attrs(input)?;
    let body = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(fields) => serialize_struct(fields, &container)?,
            _ => return Err(unsupported(&input.ident, "a struct without named fields")),
        },
        Data::Enum(data) => {
            let arms = unit_variants(&input.ident, data, container.rename_all)?
                .into_iter()
                .map(|(ident, wire)| quote!(Self::#ident => #wire));
            quote!(serializer.serialize_str(match *self { #(#arms,)* }))
        }
        Data::Union(_) => return Err(unsupported(&input.ident, "a union")),
    };
    let name = &input.ident;
    Ok(quote! {
        #[automatically_derived]
        impl ::mcpbind::__private::serde::Serialize for #name {
            fn serialize<S>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error>
            where
                S: ::mcpbind::__private::serde::Serializer,
            {
                #body
            }
        }
    })
}

/// Writes each field that isn't skipped, then the flattened one's entries.
fn serialize_struct(fields: &syn::FieldsNamed, container: &Container) -> syn::Result<TokenStream2> {
    let mut writes = Vec::new();
    let mut flattened = None;
    for field in &fields.named {
        let ident = field.ident.as_ref().expect("named fields have names");
        let attrs = field_attrs(&field.attrs)?;
        if attrs.flatten {
            if flattened.is_some() || container.deny_unknown {
                return Err(syn::Error::new_spanned(
                    ident,
                    "mcpbind's Serialize derive takes one flattened field, without deny_unknown_fields",
                ));
            }
            flattened = Some(quote!(object.flatten(&self.#ident)?;));
            continue;
        }
        let key = wire_name(
            ident,
            attrs.rename,
            container.rename_all,
            RenameRule::apply_to_field,
        );
        let write = quote!(object.field(#key, &self.#ident)?;);
        writes.push(match attrs.skip_serializing_if {
            Some(skip) => quote!(if !#skip(&self.#ident) { #write }),
            None => write,
        });
    }
    Ok(quote! {
        let mut object = ::mcpbind::__private::ser::Object::new(serializer)?;
        #(#writes)*
        #flattened
        object.end()
    })
}

/// A field's (or variant's) name on the wire: its `rename`, else its name
/// (`r#` cut) under the container's `rename_all`, as `apply` says.
fn wire_name(
    ident: &syn::Ident,
    rename: Option<String>,
    rule: Option<RenameRule>,
    apply: fn(RenameRule, &str) -> String,
) -> LitStr {
    let name = rename.unwrap_or_else(|| {
        let name = ident.to_string();
        let name = name.trim_start_matches("r#");
        rule.map_or_else(|| name.to_owned(), |rule| apply(rule, name))
    });
    LitStr::new(&name, Span::call_site())
}

/// serde's `rename_all` rules (`serde_derive`'s `case.rs`, which says how
/// each applies to a `snake_case` field and a `PascalCase` variant).
#[derive(Clone, Copy)]
enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "PascalCase" => Self::Pascal,
            "camelCase" => Self::Camel,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            "SCREAMING-KEBAB-CASE" => Self::ScreamingKebab,
            _ => return None,
        })
    }

    fn apply_to_variant(self, variant: &str) -> String {
        match self {
            Self::Pascal => variant.to_owned(),
            Self::Lower => variant.to_ascii_lowercase(),
            Self::Upper => variant.to_ascii_uppercase(),
            Self::Camel => {
                let mut chars = variant.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_ascii_lowercase().to_string() + chars.as_str()
                })
            }
            Self::Snake => {
                let mut snake = String::new();
                for (i, ch) in variant.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        snake.push('_');
                    }
                    snake.push(ch.to_ascii_lowercase());
                }
                snake
            }
            Self::ScreamingSnake => Self::Snake.apply_to_variant(variant).to_ascii_uppercase(),
            Self::Kebab => Self::Snake.apply_to_variant(variant).replace('_', "-"),
            Self::ScreamingKebab => Self::ScreamingSnake
                .apply_to_variant(variant)
                .replace('_', "-"),
        }
    }

    fn apply_to_field(self, field: &str) -> String {
        match self {
            Self::Lower | Self::Snake => field.to_owned(),
            Self::Upper | Self::ScreamingSnake => field.to_ascii_uppercase(),
            Self::Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            Self::Camel => Self::Camel.apply_to_variant(&Self::Pascal.apply_to_field(field)),
            Self::Kebab => field.replace('_', "-"),
            Self::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

/// `#[skip_serializing_none]` (serde_with's attribute, for mcpbind's
/// generated structs): every field whose type is an `Option<…>` and that has
/// no `skip_serializing_if` of its own gets
/// `#[serde(skip_serializing_if = "Option::is_none")]`, so that an unset
/// optional field is left out of the JSON rather than written as `null`.
/// It goes above the `derive`, which then sees the added attributes.
#[proc_macro_attribute]
pub fn skip_serializing_none(args: TokenStream, input: TokenStream) -> TokenStream {
    let args = TokenStream2::from(args);
    let mut item = syn::parse_macro_input!(input as syn::ItemStruct);
    if !args.is_empty() {
        return syn::Error::new_spanned(args, "skip_serializing_none takes no arguments")
            .to_compile_error()
            .into();
    }
    for field in &mut item.fields {
        let is_option = last_segment(&field.ty).is_some_and(|(name, _)| name == "Option");
        let skips =
            field.attrs.iter().any(|attr| {
                attr.path().is_ident("serde")
                && attr
                    .parse_args_with(
                        syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
                    )
                    .is_ok_and(|metas| {
                        metas.iter().any(|m| m.path().is_ident("skip_serializing_if"))
                    })
            });
        if is_option && !skips {
            field
                .attrs
                .push(syn::parse_quote!(#[serde(skip_serializing_if = "Option::is_none")]));
        }
    }
    quote!(#item).into()
}

/// `#[constructors(a, b)]` on a params struct: what a hand-written params
/// type offers, without a dozen lines of it per type in the generated file.
///
/// - `new(a, b)` takes the named (required) fields, in that order (the
///   schema's `required` order); a `String` field takes `impl Into<String>`,
///   and an `mcpbind::BigInt` one `impl Into<BigInt>` (any Rust integer).
///   Every other field starts unset (`None`, or its `Default`), so that
///   nothing the caller didn't ask for is sent and the server applies its own
///   defaults.
/// - `with_x(x)` sets each other field (an `Option<String>` takes `impl
///   Into<String>`, an `Option<BigInt>` `impl Into<BigInt>`), so a call
///   with many optional arguments stays one expression:
///   `SearchInput::new("rust").with_limit(10)`.
#[proc_macro_attribute]
pub fn constructors(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = syn::parse_macro_input!(input as syn::ItemStruct);
    let parser = syn::punctuated::Punctuated::<syn::Ident, syn::Token![,]>::parse_terminated;
    let required = syn::parse_macro_input!(args with parser);
    match expand_constructors(&item, &required.into_iter().collect::<Vec<_>>()) {
        Ok(impls) => quote!(#item #impls).into(),
        Err(error) => {
            let error = error.to_compile_error();
            quote!(#item #error).into()
        }
    }
}

fn expand_constructors(
    item: &syn::ItemStruct,
    required: &[syn::Ident],
) -> syn::Result<TokenStream2> {
    let Fields::Named(fields) = &item.fields else {
        return Err(syn::Error::new_spanned(
            &item.ident,
            "constructors take a struct with named fields",
        ));
    };
    let find = |ident: &syn::Ident| {
        fields
            .named
            .iter()
            .find(|f| f.ident.as_ref() == Some(ident))
            .ok_or_else(|| syn::Error::new_spanned(ident, "no such field"))
    };
    let mut params = Vec::new();
    let mut inits = Vec::new();
    for ident in required {
        let ty = &find(ident)?.ty;
        if takes_into(ty) {
            params.push(quote!(#ident: impl ::std::convert::Into<#ty>));
            inits.push(quote!(#ident: #ident.into()));
        } else {
            params.push(quote!(#ident: #ty));
            inits.push(quote!(#ident));
        }
    }
    let mut setters = Vec::new();
    for field in &fields.named {
        let ident = field.ident.as_ref().expect("named fields have names");
        if required.contains(ident) {
            continue;
        }
        let (init, setter) = expand_setter(ident, field);
        inits.push(init);
        setters.push(setter);
    }
    let name = &item.ident;
    let doc = " From the required fields, in the schema's order; optional fields \
               start unset (the server applies its defaults).";
    Ok(quote! {
        #[automatically_derived]
        impl #name {
            #[doc = #doc]
            pub fn new(#(#params),*) -> Self {
                Self { #(#inits),* }
            }
            #(#setters)*
        }
    })
}

/// An optional field's start in `new` (`None`, or its `Default`) and its
/// `with_x` setter.
fn expand_setter(ident: &syn::Ident, field: &syn::Field) -> (TokenStream2, TokenStream2) {
    let name = ident.to_string();
    let name = name.trim_start_matches("r#");
    let method = format_ident!("with_{}", name);
    let doc = format!(" Sets `{name}`.");
    let (init, param, value) = match option_inner(&field.ty) {
        Some(inner) if takes_into(inner) => (
            quote!(::std::option::Option::None),
            quote!(impl ::std::convert::Into<#inner>),
            quote!(::std::option::Option::Some(#ident.into())),
        ),
        Some(inner) => (
            quote!(::std::option::Option::None),
            quote!(#inner),
            quote!(::std::option::Option::Some(#ident)),
        ),
        None => {
            let ty = &field.ty;
            (
                quote!(::std::default::Default::default()),
                quote!(#ty),
                quote!(#ident),
            )
        }
    };
    let setter = quote! {
        #[doc = #doc]
        pub fn #method(mut self, #ident: #param) -> Self {
            self.#ident = #value;
            self
        }
    };
    (quote!(#ident: #init), setter)
}

/// A path type's last segment: its name and its arguments.
fn last_segment(ty: &syn::Type) -> Option<(String, &syn::PathArguments)> {
    match ty {
        syn::Type::Path(path) if path.qself.is_none() => path
            .path
            .segments
            .last()
            .map(|last| (last.ident.to_string(), &last.arguments)),
        _ => None,
    }
}

/// Whether a constructor or setter takes `impl Into<T>` for a field of type
/// `T`: a `String` (from `&str`) and an `mcpbind::BigInt` (from any Rust
/// integer, so that `with_limit(10)` reads as it would for an `i64`).
fn takes_into(ty: &syn::Type) -> bool {
    last_segment(ty).is_some_and(|(name, _)| name == "String" || name == "BigInt")
}

/// `T` of an `Option<T>`.
fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let (name, syn::PathArguments::AngleBracketed(args)) = last_segment(ty)? else {
        return None;
    };
    match (name.as_str(), args.args.first()) {
        ("Option", Some(syn::GenericArgument::Type(inner))) if args.args.len() == 1 => Some(inner),
        _ => None,
    }
}

/// `Display` and `FromStr` for an enum of unit variants, with the wire
/// names (`#[serde(rename = "…")]`, else the variant's name): what a
/// hand-written enum gets from `strum`'s `Display` and `EnumString`. An
/// unknown name is a `ConversionError`.
#[proc_macro_derive(WireStr, attributes(serde))]
pub fn derive_wire_str(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as DeriveInput);
    match expand_wire_str(&input) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

fn expand_wire_str(input: &DeriveInput) -> syn::Result<TokenStream2> {
    check_shape(input)?;
    let Data::Enum(data) = &input.data else {
        return Err(unsupported(&input.ident, "WireStr on anything but an enum"));
    };
    let rename_all = container_attrs(input)?.rename_all;
    let variants = unit_variants(&input.ident, data, rename_all)?;
    let writes = variants
        .iter()
        .map(|(ident, wire)| quote!(Self::#ident => #wire));
    let reads = variants
        .iter()
        .map(|(ident, wire)| quote!(#wire => ::std::result::Result::Ok(Self::#ident)));
    let name = &input.ident;
    Ok(quote! {
        #[automatically_derived]
        impl ::std::fmt::Display for #name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(match *self { #(#writes,)* })
            }
        }
        #[automatically_derived]
        impl ::std::str::FromStr for #name {
            type Err = ::mcpbind::__private::ConversionError;
            fn from_str(value: &str) -> ::std::result::Result<Self, Self::Err> {
                match value {
                    #(#reads,)*
                    _ => ::std::result::Result::Err("invalid value".into()),
                }
            }
        }
    })
}

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

fn check_shape(input: &DeriveInput) -> syn::Result<()> {
    if input.generics.params.is_empty() {
        Ok(())
    } else {
        Err(syn::Error::new_spanned(
            &input.generics,
            "mcpbind's derives take no generics",
        ))
    }
}

fn expand(input: &DeriveInput) -> syn::Result<TokenStream2> {
    check_shape(input)?;
    let container = container_attrs(input)?;
    let body = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(fields) => struct_body(&input.ident, fields, &container)?,
            _ => return Err(unsupported(&input.ident, "a struct without named fields")),
        },
        Data::Enum(data) if !container.deny_unknown => {
            enum_body(&input.ident, data, container.rename_all)?
        }
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

/// A container's `#[serde(…)]`.
#[derive(Default)]
struct Container {
    deny_unknown: bool,
    rename_all: Option<RenameRule>,
}

fn container_attrs(input: &DeriveInput) -> syn::Result<Container> {
    let mut out = Container::default();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("deny_unknown_fields") {
                out.deny_unknown = true;
            } else if meta.path.is_ident("rename_all") {
                let rule = meta.value()?.parse::<LitStr>()?;
                out.rename_all = Some(
                    RenameRule::parse(&rule.value())
                        .ok_or_else(|| syn::Error::new_spanned(&rule, "unknown rename rule"))?,
                );
            } else if meta.path.is_ident("crate") {
                meta.value()?.parse::<LitStr>()?;
            } else {
                return Err(meta.error("unsupported container attribute"));
            }
            Ok(())
        })?;
    }
    Ok(out)
}

/// A field's `#[serde(…)]`.
#[derive(Default)]
struct FieldAttrs {
    rename: Option<String>,
    /// `default` (`Some(None)`) or `default = "path"`.
    default: Option<Option<syn::ExprPath>>,
    deserialize_with: Option<syn::ExprPath>,
    skip_serializing_if: Option<syn::ExprPath>,
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
                out.skip_serializing_if = Some(meta.value()?.parse::<LitStr>()?.parse()?);
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
    container: &Container,
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
            if flattened.is_some() || container.deny_unknown {
                return Err(syn::Error::new_spanned(
                    ident,
                    "mcpbind's Deserialize derive takes one flattened field, without deny_unknown_fields",
                ));
            }
            flattened = Some(quote!(let #local = object.rest()?;));
            continue;
        }
        let key = wire_name(
            ident,
            attrs.rename,
            container.rename_all,
            RenameRule::apply_to_field,
        );
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
    let deny = container
        .deny_unknown
        .then(|| quote!(object.deny_unknown(&[#(#wire_names),*])?;));
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
fn enum_body(
    name: &syn::Ident,
    data: &syn::DataEnum,
    rename_all: Option<RenameRule>,
) -> syn::Result<TokenStream2> {
    let variants = unit_variants(name, data, rename_all)?;
    let count = variants.len();
    let names = variants.iter().map(|(_, wire)| wire);
    // The last arm is `_`: `variant` returns an index below `count`.
    let arms = variants.iter().enumerate().map(|(i, (ident, _))| {
        if i + 1 == count {
            quote!(_ => Self::#ident)
        } else {
            quote!(#i => Self::#ident)
        }
    });
    let expecting = LitStr::new(&format!("enum {name}"), Span::call_site());
    Ok(quote! {
        ::std::result::Result::Ok(
            match ::mcpbind::__private::de::variant(deserializer, #expecting, &[#(#names),*])? {
                #(#arms,)*
            }
        )
    })
}

/// An enum's unit variants and their names on the wire (at least one).
fn unit_variants<'a>(
    name: &syn::Ident,
    data: &'a syn::DataEnum,
    rename_all: Option<RenameRule>,
) -> syn::Result<Vec<(&'a syn::Ident, LitStr)>> {
    let mut variants = Vec::new();
    for variant in &data.variants {
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
        let wire = wire_name(
            &variant.ident,
            rename,
            rename_all,
            RenameRule::apply_to_variant,
        );
        variants.push((&variant.ident, wire));
    }
    if variants.is_empty() {
        return Err(unsupported(name, "an enum without variants"));
    }
    Ok(variants)
}

/// Keeps the item as written: what `mcpbind`'s `__private::client` (and
/// `__private::toolbox`) is when that capability is compiled in.
#[proc_macro_attribute]
pub fn keep(_args: TokenStream, input: TokenStream) -> TokenStream {
    input
}

/// Drops the item: what `mcpbind`'s `__private::client` (and
/// `__private::toolbox`) is when that capability is not compiled in, so
/// that generated code compiles under every feature set of `mcpbind`.
#[proc_macro_attribute]
pub fn strip(_args: TokenStream, _input: TokenStream) -> TokenStream {
    TokenStream::new()
}
