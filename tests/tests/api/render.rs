//! Rendering rustdoc's JSON as a listing: one line per public item, with
//! its signature. Each line says all of itself (its full path, its
//! generics), so the listing is a sorted set and a change shows as the
//! lines it changed.
//!
//! What is listed: modules, functions, structs and their public fields,
//! enums and their variants, unions, traits and their items, type aliases,
//! constants, statics, macros, re-exports, and every impl but the
//! synthetic (auto traits: `Send`, `Sync`, ...) and blanket ones (`impl<T>
//! From<T> for T`), which say nothing about this code. Items behind
//! `#[doc(hidden)]` are left out (rustdoc is asked to keep them, because an
//! item defined in a hidden module and re-exported under a public name is
//! public, and rustdoc would strip its definition with the module).
//!
//! A re-export of another crate's item is listed by path (`pub use
//! mcpbind::Client = mcpbind_core::client::Client`): rustdoc does not
//! inline it, and that item's signature is in its own crate's listing.

use std::collections::{BTreeSet, HashMap, HashSet};

use rustdoc_types::{
    Abi, AssocItemConstraint, AssocItemConstraintKind, Crate, FunctionHeader, FunctionSignature,
    GenericArg, GenericArgs, GenericBound, GenericParamDef, GenericParamDefKind, Generics, Id,
    Impl, Item, ItemEnum, MacroKind, Path, StructKind, Term, TraitBoundModifier, Type, VariantKind,
    Visibility, WherePredicate,
};

/// The listing of `krate`, whose name is `name` (`mcpbind_model`): sorted
/// lines, each one item.
pub fn listing(krate: &Crate, name: &str) -> Vec<String> {
    let mut lister = Lister {
        krate,
        public: HashMap::new(),
        lines: BTreeSet::new(),
    };
    // First the public path of every local item (types in signatures are
    // named by it, not by the private module that defines them), then the
    // lines.
    let mut seen = HashSet::new();
    lister.paths(&krate.root, name, &mut seen);
    let mut seen = HashSet::new();
    lister.module(&krate.root, name, &mut seen);
    lister.lines.into_iter().collect()
}

struct Lister<'a> {
    krate: &'a Crate,
    /// Local item → the shortest public path it is reachable at.
    public: HashMap<Id, String>,
    lines: BTreeSet<String>,
}

impl<'a> Lister<'a> {
    fn item(&self, id: &Id) -> Option<&'a Item> {
        self.krate.index.get(id)
    }

    /// The public items of module `id`, listed at `prefix`, each as
    /// (item, the name it is public under); a re-export of a local item
    /// comes as that item, under the re-export's name.
    fn members(&self, id: &Id) -> Vec<(&'a Item, String, Option<&'a Item>)> {
        let Some(ItemEnum::Module(module)) = self.item(id).map(|i| &i.inner) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for member in &module.items {
            let Some(item) = self.item(member) else {
                continue;
            };
            if item.visibility != Visibility::Public || hidden(item) {
                continue;
            }
            match &item.inner {
                ItemEnum::Use(u) => {
                    let target = u.id.as_ref().and_then(|t| self.item(t));
                    match target {
                        Some(target) if hidden(target) => {}
                        Some(target) if !u.is_glob => {
                            out.push((target, u.name.clone(), Some(item)))
                        }
                        _ => out.push((item, u.name.clone(), Some(item))),
                    }
                }
                _ => {
                    if let Some(name) = &item.name {
                        out.push((item, name.clone(), None));
                    }
                }
            }
        }
        out
    }

    fn paths(&mut self, id: &Id, prefix: &str, seen: &mut HashSet<Id>) {
        if !seen.insert(*id) {
            return;
        }
        for (item, name, _) in self.members(id) {
            if let ItemEnum::Use(u) = &item.inner {
                // A glob's module's items are public here too; another
                // crate's item has its path there.
                if let (true, Some(target)) = (u.is_glob, &u.id) {
                    self.paths(target, prefix, seen);
                }
                continue;
            }
            let path = format!("{prefix}::{name}");
            let shorter = match self.public.get(&item.id) {
                Some(old) => (path.len(), &path) < (old.len(), old),
                None => true,
            };
            if shorter {
                self.public.insert(item.id, path.clone());
            }
            if matches!(item.inner, ItemEnum::Module(_)) {
                self.paths(&item.id, &path, seen);
            }
        }
        seen.remove(id);
    }

    fn module(&mut self, id: &Id, prefix: &str, seen: &mut HashSet<Id>) {
        if !seen.insert(*id) {
            return;
        }
        for (item, name, via) in self.members(id) {
            let path = format!("{prefix}::{name}");
            let outer = via.map(cfg).unwrap_or_default();
            let ItemEnum::Use(u) = &item.inner else {
                self.member(item, &path, &outer, seen);
                continue;
            };
            if u.is_glob {
                self.lines
                    .insert(format!("pub use {prefix}::* = {}::*{outer}", u.source));
                if let Some(target) = &u.id {
                    self.module(target, prefix, seen);
                }
                continue;
            }
            // Another crate's item: by path.
            let to =
                u.id.as_ref()
                    .and_then(|t| self.krate.paths.get(t))
                    .map(|s| s.path.join("::"))
                    .unwrap_or_else(|| u.source.clone());
            self.lines.insert(format!("pub use {path} = {to}{outer}"));
        }
        // A module reached again by another path is listed there too; only
        // a module inside itself (a cycle of re-exports) is not.
        seen.remove(id);
    }

    /// One item at `path`; `outer` is the `#[cfg]` of the re-export that
    /// made it public there, if any.
    fn member(&mut self, item: &'a Item, path: &str, outer: &str, seen: &mut HashSet<Id>) {
        let attrs = attrs(item);
        let line = match &item.inner {
            ItemEnum::Module(_) => {
                self.lines
                    .insert(format!("pub mod {path}{outer}{}", cfg(item)));
                return self.module(&item.id, path, seen);
            }
            ItemEnum::Function(f) => {
                let head = header(&f.header);
                let (params, wheres) = self.generics(&f.generics);
                let sig = self.sig(&f.sig);
                format!("{attrs}pub {head}fn {path}{params}{sig}{wheres}")
            }
            ItemEnum::Struct(s) => self.struct_(s, path, &attrs),
            ItemEnum::Union(u) => {
                let (params, wheres) = self.generics(&u.generics);
                self.fields_named(&u.fields, path);
                self.impls(&u.impls);
                format!("{attrs}pub union {path}{params}{wheres}")
            }
            ItemEnum::Enum(e) => {
                let (params, wheres) = self.generics(&e.generics);
                for variant in &e.variants {
                    self.variant(variant, path);
                }
                self.impls(&e.impls);
                format!("{attrs}pub enum {path}{params}{wheres}")
            }
            ItemEnum::Trait(t) => return self.trait_(item, t, path, outer),
            ItemEnum::TypeAlias(t) => {
                let (params, wheres) = self.generics(&t.generics);
                format!("pub type {path}{params} = {}{wheres}", self.ty(&t.type_))
            }
            ItemEnum::Constant { type_, const_ } => {
                format!("pub const {path}: {} = {}", self.ty(type_), const_.expr)
            }
            ItemEnum::Static(s) => {
                let m = if s.is_mutable { "mut " } else { "" };
                format!("pub static {m}{path}: {}", self.ty(&s.type_))
            }
            ItemEnum::Macro(_) => format!("{attrs}macro {path}!"),
            ItemEnum::ProcMacro(p) => proc_macro(p, path),
            ItemEnum::Use(u) => format!("pub use {path} = {}", u.source),
            ItemEnum::ExternCrate { name, .. } => format!("pub extern crate {path} = {name}"),
            ItemEnum::TraitAlias(_) => format!("pub trait {path} = .."),
            ItemEnum::ExternType => format!("pub type {path} (extern)"),
            _ => return,
        };
        self.lines.insert(format!("{line}{outer}{}", cfg(item)));
    }

    /// A struct's line; its fields and impls are listed as lines of their
    /// own.
    fn struct_(&mut self, s: &'a rustdoc_types::Struct, path: &str, attrs: &str) -> String {
        let (params, wheres) = self.generics(&s.generics);
        let shape = match &s.kind {
            StructKind::Unit => ";".to_owned(),
            StructKind::Tuple(fields) => {
                self.fields_tuple(fields, path);
                let shown: Vec<_> = fields
                    .iter()
                    .map(|f| if f.is_some() { "pub _" } else { "_" })
                    .collect();
                format!("({})", shown.join(", "))
            }
            StructKind::Plain {
                fields,
                has_stripped_fields,
            } => {
                self.fields_named(fields, path);
                if *has_stripped_fields {
                    " { .. } (private fields)".to_owned()
                } else {
                    String::new()
                }
            }
        };
        self.impls(&s.impls);
        format!("{attrs}pub struct {path}{params}{wheres}{shape}")
    }

    fn fields_named(&mut self, fields: &[Id], path: &str) {
        for field in fields {
            let Some(item) = self.item(field).filter(|i| !hidden(i)) else {
                continue;
            };
            if let (ItemEnum::StructField(ty), Some(name)) = (&item.inner, &item.name) {
                let line = format!("pub {path}::{name}: {}", self.ty(ty));
                self.lines.insert(line);
            }
        }
    }

    fn fields_tuple(&mut self, fields: &[Option<Id>], path: &str) {
        for (n, field) in fields.iter().enumerate() {
            let Some(item) = field.as_ref().and_then(|f| self.item(f)) else {
                continue;
            };
            if hidden(item) {
                continue;
            }
            if let ItemEnum::StructField(ty) = &item.inner {
                let line = format!("pub {path}::{n}: {}", self.ty(ty));
                self.lines.insert(line);
            }
        }
    }

    fn variant(&mut self, id: &Id, path: &str) {
        let Some(item) = self.item(id).filter(|i| !hidden(i)) else {
            return;
        };
        let (ItemEnum::Variant(v), Some(name)) = (&item.inner, &item.name) else {
            return;
        };
        let field = |id: &Id| match self.item(id).map(|i| &i.inner) {
            Some(ItemEnum::StructField(ty)) => Some(self.ty(ty)),
            _ => None,
        };
        let shape = match &v.kind {
            VariantKind::Plain => String::new(),
            VariantKind::Tuple(fields) => {
                let shown: Vec<String> = fields
                    .iter()
                    .map(|f| f.as_ref().and_then(field).unwrap_or_else(|| "_".into()))
                    .collect();
                format!("({})", shown.join(", "))
            }
            VariantKind::Struct {
                fields,
                has_stripped_fields,
            } => {
                let mut shown: Vec<String> = fields
                    .iter()
                    .filter_map(|f| {
                        let name = self.item(f)?.name.clone()?;
                        Some(format!("{name}: {}", field(f)?))
                    })
                    .collect();
                if *has_stripped_fields {
                    shown.push("..".into());
                }
                format!(" {{ {} }}", shown.join(", "))
            }
        };
        let value = match &v.discriminant {
            Some(d) => format!(" = {}", d.value),
            None => String::new(),
        };
        let attrs = attrs(item);
        self.lines
            .insert(format!("{attrs}pub {path}::{name}{shape}{value}"));
    }

    fn trait_(&mut self, item: &Item, t: &rustdoc_types::Trait, path: &str, outer: &str) {
        let (params, wheres) = self.generics(&t.generics);
        let bounds = self.bounds(&t.bounds);
        let bounds = match bounds.is_empty() {
            true => String::new(),
            false => format!(": {bounds}"),
        };
        let unsafety = if t.is_unsafe { "unsafe " } else { "" };
        let attrs = attrs(item);
        self.lines.insert(format!(
            "{attrs}pub {unsafety}trait {path}{params}{bounds}{wheres}{outer}{}",
            cfg(item)
        ));
        for member in &t.items {
            let Some(member) = self.item(member).filter(|m| !hidden(m)) else {
                continue;
            };
            let Some(name) = &member.name else { continue };
            let line = match &member.inner {
                ItemEnum::Function(f) => {
                    let (params, wheres) = self.generics(&f.generics);
                    let provided = if f.has_body { " (provided)" } else { "" };
                    format!(
                        "{}fn {path}::{name}{params}{}{wheres}{provided}",
                        header(&f.header),
                        self.sig(&f.sig)
                    )
                }
                ItemEnum::AssocType {
                    generics,
                    bounds,
                    type_,
                    ..
                } => {
                    let (params, wheres) = self.generics(generics);
                    let bounds = self.bounds(bounds);
                    let bounds = if bounds.is_empty() {
                        bounds
                    } else {
                        format!(": {bounds}")
                    };
                    let default = type_.as_ref().map(|t| format!(" = {}", self.ty(t)));
                    format!(
                        "type {path}::{name}{params}{bounds}{wheres}{}",
                        default.unwrap_or_default()
                    )
                }
                ItemEnum::AssocConst { type_, value, .. } => {
                    let default = value.as_ref().map(|v| format!(" = {v}"));
                    format!(
                        "const {path}::{name}: {}{}",
                        self.ty(type_),
                        default.unwrap_or_default()
                    )
                }
                _ => continue,
            };
            self.lines.insert(line);
        }
        // Implementations for types this crate does not define show only
        // here (a local type's show with the type too: the same line).
        self.impls(&t.implementations);
    }

    /// The impls of a type or trait, but synthetic and blanket ones: each
    /// trait impl as one line (with its associated types and constants),
    /// an inherent impl's public items one a line.
    fn impls(&mut self, impls: &[Id]) {
        for id in impls {
            let Some(item) = self.item(id) else { continue };
            let ItemEnum::Impl(imp) = &item.inner else {
                continue;
            };
            if imp.is_synthetic || imp.blanket_impl.is_some() {
                continue;
            }
            // An impl of a trait, or for a type, that this crate does not
            // make public (a hidden or private one) is not its API.
            let trait_id = imp.trait_.as_ref().map(|t| t.id);
            let type_id = match &imp.for_ {
                Type::ResolvedPath(p) => Some(p.id),
                _ => None,
            };
            if [trait_id, type_id]
                .into_iter()
                .flatten()
                .any(|id| !self.nameable(&id))
            {
                continue;
            }
            match &imp.trait_ {
                Some(_) => self.trait_impl(imp),
                None => self.inherent(imp),
            }
        }
    }

    fn trait_impl(&mut self, imp: &Impl) {
        let Some(trait_) = &imp.trait_ else { return };
        let (params, wheres) = self.generics(&imp.generics);
        let not = if imp.is_negative { "!" } else { "" };
        let unsafety = if imp.is_unsafe { "unsafe " } else { "" };
        let mut assoc = Vec::new();
        for member in &imp.items {
            let Some(member) = self.item(member) else {
                continue;
            };
            let Some(name) = &member.name else { continue };
            match &member.inner {
                ItemEnum::AssocType {
                    type_: Some(ty), ..
                } => assoc.push(format!("type {name} = {}", self.ty(ty))),
                ItemEnum::AssocConst {
                    type_,
                    value: Some(v),
                    ..
                } => assoc.push(format!("const {name}: {} = {v}", self.ty(type_))),
                _ => {}
            }
        }
        let assoc = match assoc.is_empty() {
            true => String::new(),
            false => format!(" {{ {} }}", assoc.join("; ")),
        };
        self.lines.insert(format!(
            "{unsafety}impl{params} {not}{} for {}{wheres}{assoc}",
            self.path(trait_),
            self.ty(&imp.for_)
        ));
    }

    fn inherent(&mut self, imp: &Impl) {
        let owner = self.ty(&imp.for_);
        let (impl_params, impl_wheres) = self.generics(&imp.generics);
        // The impl's own generics, when it has any, head each line:
        // `impl<T> Wrapper<T>` and `impl Wrapper<String>` differ.
        let head = match impl_params.is_empty() && impl_wheres.is_empty() {
            true => String::new(),
            false => format!("impl{impl_params} {owner}{impl_wheres}: "),
        };
        for member in &imp.items {
            let Some(member) = self.item(member) else {
                continue;
            };
            let Some(name) = &member.name else { continue };
            if member.visibility != Visibility::Public || hidden(member) {
                continue;
            }
            let attrs = attrs(member);
            let line = match &member.inner {
                ItemEnum::Function(f) => {
                    let (params, wheres) = self.generics(&f.generics);
                    format!(
                        "{head}{attrs}pub {}fn {owner}::{name}{params}{}{wheres}{}",
                        header(&f.header),
                        self.sig(&f.sig),
                        cfg(member)
                    )
                }
                ItemEnum::AssocConst { type_, value, .. } => format!(
                    "{head}pub const {owner}::{name}: {} = {}",
                    self.ty(type_),
                    value.as_deref().unwrap_or("_")
                ),
                ItemEnum::AssocType {
                    type_: Some(ty), ..
                } => format!("{head}pub type {owner}::{name} = {}", self.ty(ty)),
                _ => continue,
            };
            self.lines.insert(line);
        }
    }

    /// Whether `id` is another crate's item, or one of this crate's that
    /// has a public path.
    fn nameable(&self, id: &Id) -> bool {
        let local = self.item(id).is_some_and(|i| i.crate_id == 0);
        !local || self.public.contains_key(id)
    }

    fn sig(&self, sig: &FunctionSignature) -> String {
        let inputs: Vec<String> = sig
            .inputs
            .iter()
            .map(|(name, ty)| match (name.as_str(), ty) {
                ("self", Type::Generic(s)) if s == "Self" => "self".to_owned(),
                (
                    "self",
                    Type::BorrowedRef {
                        lifetime,
                        is_mutable,
                        type_,
                    },
                ) if matches!(&**type_, Type::Generic(s) if s == "Self") => {
                    let lifetime = lifetime.as_ref().map(|l| format!("{l} "));
                    let m = if *is_mutable { "mut " } else { "" };
                    format!("&{}{m}self", lifetime.unwrap_or_default())
                }
                _ => format!("{name}: {}", self.ty(ty)),
            })
            .collect();
        let variadic = if sig.is_c_variadic { ", ..." } else { "" };
        let output = match &sig.output {
            Some(ty) => format!(" -> {}", self.ty(ty)),
            None => String::new(),
        };
        format!("({}{variadic}){output}", inputs.join(", "))
    }

    /// `<…>` and ` where …` of `generics`, each empty when there is none.
    /// Synthetic parameters (`impl Trait` arguments) show in the argument.
    fn generics(&self, generics: &Generics) -> (String, String) {
        let params: Vec<String> = generics
            .params
            .iter()
            .filter(|p| {
                !matches!(
                    p.kind,
                    GenericParamDefKind::Type {
                        is_synthetic: true,
                        ..
                    }
                )
            })
            .map(|p| self.param(p))
            .collect();
        let params = match params.is_empty() {
            true => String::new(),
            false => format!("<{}>", params.join(", ")),
        };
        let wheres: Vec<String> = generics
            .where_predicates
            .iter()
            .map(|w| self.predicate(w))
            .collect();
        let wheres = match wheres.is_empty() {
            true => String::new(),
            false => format!(" where {}", wheres.join(", ")),
        };
        (params, wheres)
    }

    fn param(&self, p: &GenericParamDef) -> String {
        match &p.kind {
            GenericParamDefKind::Lifetime { outlives } => match outlives.is_empty() {
                true => p.name.clone(),
                false => format!("{}: {}", p.name, outlives.join(" + ")),
            },
            GenericParamDefKind::Type {
                bounds, default, ..
            } => {
                let mut out = p.name.clone();
                if !bounds.is_empty() {
                    out += &format!(": {}", self.bounds(bounds));
                }
                if let Some(default) = default {
                    out += &format!(" = {}", self.ty(default));
                }
                out
            }
            GenericParamDefKind::Const { type_, default } => {
                let default = default.as_ref().map(|d| format!(" = {d}"));
                format!(
                    "const {}: {}{}",
                    p.name,
                    self.ty(type_),
                    default.unwrap_or_default()
                )
            }
        }
    }

    fn predicate(&self, w: &WherePredicate) -> String {
        match w {
            WherePredicate::BoundPredicate {
                type_,
                bounds,
                generic_params,
            } => format!(
                "{}{}: {}",
                self.for_lifetimes(generic_params),
                self.ty(type_),
                self.bounds(bounds)
            ),
            WherePredicate::LifetimePredicate { lifetime, outlives } => {
                format!("{lifetime}: {}", outlives.join(" + "))
            }
            WherePredicate::EqPredicate { lhs, rhs } => {
                format!("{} = {}", self.ty(lhs), self.term(rhs))
            }
        }
    }

    fn for_lifetimes(&self, params: &[GenericParamDef]) -> String {
        match params.is_empty() {
            true => String::new(),
            false => {
                let params: Vec<String> = params.iter().map(|p| self.param(p)).collect();
                format!("for<{}> ", params.join(", "))
            }
        }
    }

    fn bounds(&self, bounds: &[GenericBound]) -> String {
        let bounds: Vec<String> = bounds.iter().map(|b| self.bound(b)).collect();
        bounds.join(" + ")
    }

    fn bound(&self, bound: &GenericBound) -> String {
        match bound {
            GenericBound::TraitBound {
                trait_,
                generic_params,
                modifier,
            } => {
                let modifier = match modifier {
                    TraitBoundModifier::None => "",
                    TraitBoundModifier::Maybe => "?",
                    TraitBoundModifier::MaybeConst => "~const ",
                };
                format!(
                    "{}{modifier}{}",
                    self.for_lifetimes(generic_params),
                    self.path(trait_)
                )
            }
            GenericBound::Outlives(lifetime) => lifetime.clone(),
            GenericBound::Use(args) => {
                let args: Vec<String> = args
                    .iter()
                    .map(|a| match a {
                        rustdoc_types::PreciseCapturingArg::Lifetime(l) => l.clone(),
                        rustdoc_types::PreciseCapturingArg::Param(p) => p.clone(),
                    })
                    .collect();
                format!("use<{}>", args.join(", "))
            }
        }
    }

    fn term(&self, term: &Term) -> String {
        match term {
            Term::Type(ty) => self.ty(ty),
            Term::Constant(c) => c.expr.clone(),
        }
    }

    /// A path by its public name: a local item's shortest public path,
    /// another crate's item's path as rustdoc records it, else as written.
    fn path(&self, path: &Path) -> String {
        let name = self
            .public
            .get(&path.id)
            .cloned()
            .or_else(|| self.krate.paths.get(&path.id).map(|s| s.path.join("::")))
            .unwrap_or_else(|| path.path.clone());
        match &path.args {
            Some(args) => format!("{name}{}", self.args(args)),
            None => name,
        }
    }

    fn args(&self, args: &GenericArgs) -> String {
        match args {
            GenericArgs::AngleBracketed { args, constraints } => {
                let mut shown: Vec<String> = args
                    .iter()
                    .map(|a| match a {
                        GenericArg::Lifetime(l) => l.clone(),
                        GenericArg::Type(t) => self.ty(t),
                        GenericArg::Const(c) => c.expr.clone(),
                        GenericArg::Infer => "_".to_owned(),
                    })
                    .collect();
                shown.extend(constraints.iter().map(|c| self.constraint(c)));
                match shown.is_empty() {
                    true => String::new(),
                    false => format!("<{}>", shown.join(", ")),
                }
            }
            GenericArgs::Parenthesized { inputs, output } => {
                let inputs: Vec<String> = inputs.iter().map(|t| self.ty(t)).collect();
                let output = output.as_ref().map(|o| format!(" -> {}", self.ty(o)));
                format!("({}){}", inputs.join(", "), output.unwrap_or_default())
            }
            GenericArgs::ReturnTypeNotation => "(..)".to_owned(),
        }
    }

    fn constraint(&self, c: &AssocItemConstraint) -> String {
        let args = c.args.as_ref().map(|a| self.args(a)).unwrap_or_default();
        match &c.binding {
            AssocItemConstraintKind::Equality(term) => {
                format!("{}{args} = {}", c.name, self.term(term))
            }
            AssocItemConstraintKind::Constraint(bounds) => {
                format!("{}{args}: {}", c.name, self.bounds(bounds))
            }
        }
    }

    fn ty(&self, ty: &Type) -> String {
        match ty {
            Type::ResolvedPath(path) => self.path(path),
            Type::DynTrait(d) => {
                let mut parts: Vec<String> = d
                    .traits
                    .iter()
                    .map(|p| {
                        format!(
                            "{}{}",
                            self.for_lifetimes(&p.generic_params),
                            self.path(&p.trait_)
                        )
                    })
                    .collect();
                parts.extend(d.lifetime.clone());
                format!("dyn {}", parts.join(" + "))
            }
            Type::Generic(name) | Type::Primitive(name) => name.clone(),
            Type::FunctionPointer(f) => format!(
                "{}{}fn{}",
                self.for_lifetimes(&f.generic_params),
                header(&f.header),
                self.sig(&f.sig)
            ),
            Type::Tuple(types) if types.len() == 1 => format!("({},)", self.ty(&types[0])),
            Type::Tuple(types) => {
                let types: Vec<String> = types.iter().map(|t| self.ty(t)).collect();
                format!("({})", types.join(", "))
            }
            Type::Slice(t) => format!("[{}]", self.ty(t)),
            Type::Array { type_, len } => format!("[{}; {len}]", self.ty(type_)),
            Type::Pat { type_, .. } => self.ty(type_),
            Type::ImplTrait(bounds) => format!("impl {}", self.bounds(bounds)),
            Type::Infer => "_".to_owned(),
            Type::RawPointer { is_mutable, type_ } => {
                let m = if *is_mutable { "mut" } else { "const" };
                format!("*{m} {}", self.ty(type_))
            }
            Type::BorrowedRef {
                lifetime,
                is_mutable,
                type_,
            } => {
                let lifetime = lifetime.as_ref().map(|l| format!("{l} "));
                let m = if *is_mutable { "mut " } else { "" };
                format!("&{}{m}{}", lifetime.unwrap_or_default(), self.ty(type_))
            }
            Type::QualifiedPath {
                name,
                args,
                self_type,
                trait_,
            } => {
                let args = args.as_ref().map(|a| self.args(a)).unwrap_or_default();
                match trait_ {
                    Some(t) => {
                        format!("<{} as {}>::{name}{args}", self.ty(self_type), self.path(t))
                    }
                    None => format!("{}::{name}{args}", self.ty(self_type)),
                }
            }
        }
    }
}

/// A procedural macro's line: how it is invoked, and its helper attributes.
fn proc_macro(p: &rustdoc_types::ProcMacro, path: &str) -> String {
    let helpers = match p.helpers.is_empty() {
        true => String::new(),
        false => format!(" (helper attributes: {})", p.helpers.join(", ")),
    };
    match p.kind {
        MacroKind::Bang => format!("proc_macro {path}!"),
        MacroKind::Attr => format!("proc_macro_attribute #[{path}]"),
        MacroKind::Derive => format!("proc_macro_derive #[derive({path})]{helpers}"),
    }
}

/// `const async unsafe extern "C" ` as a function has them.
fn header(h: &FunctionHeader) -> String {
    let mut out = String::new();
    if h.is_const {
        out += "const ";
    }
    if h.is_async {
        out += "async ";
    }
    if h.is_unsafe {
        out += "unsafe ";
    }
    match &h.abi {
        Abi::Rust => {}
        Abi::C { .. } => out += "extern \"C\" ",
        Abi::System { .. } => out += "extern \"system\" ",
        other => out += &format!("extern {other:?} "),
    }
    out
}

/// The attributes that are API: `#[non_exhaustive]` (a struct no one else
/// can build, an enum no one else can match exhaustively) and
/// `#[repr(...)]`.
fn attrs(item: &Item) -> String {
    let mut out = String::new();
    for attr in &item.attrs {
        match attr {
            rustdoc_types::Attribute::NonExhaustive => out += "#[non_exhaustive] ",
            rustdoc_types::Attribute::Repr(r) => out += &format!("#[repr({:?})] ", r.kind),
            _ => {}
        }
    }
    out
}

/// Whether `item` is `#[doc(hidden)]`.
fn hidden(item: &Item) -> bool {
    item.attrs.iter().any(|a| {
        matches!(a, rustdoc_types::Attribute::Other(text) if text.replace(' ', "") == "#[doc(hidden)]")
    })
}

/// ` [cfg(…)]` when `item` is compiled under a `#[cfg]` (a feature, say),
/// else empty. rustdoc writes the attribute as its compiler's debug text,
/// which this shortens (`NameValue { name: "feature", value: Some("x") }`
/// is `feature = "x"`) and rids of source positions, which change with
/// every edit above the item.
fn cfg(item: &Item) -> String {
    let mut out = String::new();
    for attr in &item.attrs {
        let rustdoc_types::Attribute::Other(text) = attr else {
            continue;
        };
        let Some(inner) = text
            .strip_prefix("#[attr = CfgTrace([")
            .and_then(|t| t.strip_suffix("])]"))
        else {
            if let Some(source) = text.strip_prefix("#[cfg(") {
                out += &format!(" [cfg({}", source.trim_end_matches(']'));
                out += "]";
            }
            continue;
        };
        out += &format!(" [cfg({})]", debug_cfg(inner));
    }
    out
}

/// The compiler's debug text of a cfg predicate, as Rust writes it:
/// `Any([unix, NameValue { name: "feature", value: Some("y"), span: … }],
/// src/lib.rs:1:7: 1:20 (#0))` is `any(unix, feature = "y")`.
fn debug_cfg(text: &str) -> String {
    let mut text = text.to_owned();
    // Source positions: `, [span: ]FILE:L:C: L:C (#N)`.
    while let Some(open) = text.find(" (#") {
        let close = text[open..].find(')').map_or(text.len(), |i| open + i + 1);
        let start = text[..open].rfind(", ").unwrap_or(open);
        text.replace_range(start..close, "");
    }
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("NameValue { name: \"") {
        out += &rest[..at];
        let after = &rest[at + "NameValue { name: \"".len()..];
        let (name, after) = after.split_once('"').unwrap_or((after, ""));
        let after = after.trim_start_matches(", value: ");
        let (value, after) = match after.strip_prefix("Some(\"") {
            Some(v) => {
                let (v, a) = v.split_once("\")").unwrap_or((v, ""));
                (format!(" = \"{v}\""), a)
            }
            None => (String::new(), after.trim_start_matches("None")),
        };
        out += &format!("{name}{value}");
        rest = after.trim_start_matches(" }");
    }
    out += rest;
    for (from, to) in [
        ("Not(", "not("),
        ("Any(", "any("),
        ("All(", "all("),
        ("([", "("),
        ("])", ")"),
    ] {
        out = out.replace(from, to);
    }
    out
}
