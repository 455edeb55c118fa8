//! What each generated server module adds for `mcpbind::testing`:
//! `Client::in_process(server)`, the typed client connected to a double
//! (a generated `Server` over a test's `Handler`, or any `ToolServer`) in
//! the same process, kept with the facade's `testing` feature and dropped
//! without it; and the line of `connect` through which a build with the
//! `record` feature records a running program's calls
//! (`MCPBIND_RECORD=path`).

use proc_macro2::TokenStream;
use quote::quote;

/// The `impl Client` that holds `in_process`.
pub(crate) fn in_process_tokens() -> TokenStream {
    quote! {
        #[::mcpbind::__private::testing]
        impl Client {
            /// This client on `server` (a double: `Server(MyHandler)`) in
            /// the same process, over an in-memory stream: `.await` it to
            /// connect (the handshake at [`PROTOCOL_VERSION`](Self::PROTOCOL_VERSION),
            /// then the pins under `pin_policy`), or set its `config` and
            /// `hooks` first. Validation, events, timeouts and approvals
            /// run as against the real server.
            pub fn in_process<S: ::mcpbind::ToolServer>(
                server: S,
            ) -> ::mcpbind::testing::InProcess<S, Self> {
                ::mcpbind::testing::InProcess::new(
                    Self::SERVER,
                    Self::PROTOCOL_VERSION,
                    TOOLS,
                    server,
                    Self::from_client,
                )
            }
        }
    }
}

/// The line of `connect` that hands the connection to a recorder when
/// the program is built with `mcpbind`'s `record` feature and
/// `MCPBIND_RECORD` is set (else it gives the connection back as it is).
/// `prompts` and `templates`: whether the module has `PROMPTS` and
/// `RESOURCE_TEMPLATES`.
pub(crate) fn recorded_tokens(prompts: bool, templates: bool) -> TokenStream {
    let prompts = if prompts {
        quote!(PROMPTS)
    } else {
        quote!(&[])
    };
    let templates = if templates {
        quote!(RESOURCE_TEMPLATES)
    } else {
        quote!(&[])
    };
    quote! {
        let inner = ::mcpbind::__private::recorded(
            inner,
            Self::PROTOCOL_VERSION,
            TOOLS,
            #prompts,
            #templates,
        )
        .await;
    }
}
