//! What each generated server module adds for `mcpbind::Toolbox`: an
//! `impl ::mcpbind::BoundServer for Client` listing one `ToolEntry` per tool
//! (its locked metadata and its typed call), so a toolbox can parse a
//! model's JSON arguments into the tool's params type and call through
//! `mcpbind::Client::call::<T>`.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// The `BoundServer` impl of a module whose marker types (in `tools`) are
/// `markers`, in lockfile order.
pub(crate) fn bound_server_tokens(markers: &[Ident]) -> TokenStream {
    // The bindings' mode is the client's (`Client::ANNOTATIONS`).
    let entries = markers
        .iter()
        .map(|marker| quote!(::mcpbind::ToolEntry::of::<tools::#marker>()));
    quote! {
        /// Hands this server's tools to an `mcpbind::Toolbox`.
        #[::mcpbind::__private::toolbox]
        impl ::mcpbind::BoundServer for Client {
            const ENTRIES: &'static [::mcpbind::ToolEntry] = &[#(#entries),*];
            const ANNOTATIONS: ::std::option::Option<::mcpbind::Annotations> =
                ::std::option::Option::Some(Client::ANNOTATIONS);

            fn into_client(self) -> ::mcpbind::Client {
                self.inner
            }
        }
    }
}
