//! The toolbox against the pinned npm servers (server-filesystem,
//! server-everything, in `util::stdio_servers` with the demo server), which
//! `tests/servers/install.sh` installs on first use: dispatch, hooks and
//! events, opt-ins, and unlocked tools beside locked ones. `--skip
//! installed::` leaves them out (CONTRIBUTING.md, the fast loop).

use mcpbind::{Config, Toolbox};
use mcpbind_tests::{demo, filesystem};

mod dispatch;
mod events;
mod opt_ins;
mod unlocked;

/// The demo server and server-filesystem, connected.
async fn demo_and_filesystem(config: &Config) -> Toolbox {
    let mut tools = Toolbox::new();
    tools
        .add(demo::Client::connect(config).await.unwrap())
        .unwrap();
    tools
        .add(filesystem::Client::connect(config).await.unwrap())
        .unwrap();
    tools
}
