//! `mcpbind-derive`'s derives and attributes, used as generated code uses
//! them: through `::mcpbind::__private`. (They live here rather than in the
//! derive crate, whose dev-dependency on `mcpbind` — which depends on it —
//! kept the crates from packaging.)

mod constructors;
mod parity;
mod skip_none;
mod wire_str;
