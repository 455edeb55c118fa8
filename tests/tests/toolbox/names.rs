//! What a toolbox holds, by name: model-facing names (prefixed, shortened,
//! mapped back exactly, collisions refused), toolboxes merged and held
//! back, the config's filters, and the inventory. No server starts.

use mcpbind::{Toolbox, ToolboxError};
use mcpbind_tests::{demo, time};

use super::{lazy, offline_config, offline_config_with, offline_toolbox};
use crate::util;

// ---------------------------------------------------------------------------
// Names

#[test]
fn names_are_prefixed_shortened_and_map_back_exactly() {
    let long = "a_rather_long_prefix_for_a_server_that_makes_names_too_long";
    let config = offline_config_with(|name, server| match name {
        "everything" => server.tool_prefix(long),
        "time" => server.tool_prefix(""),
        _ => server,
    });
    let tools = offline_toolbox(&config).unwrap();
    assert_eq!(tools.resolve("demo_add"), Some(("demo", "add")));
    assert_eq!(
        tools.resolve("get_current_time"),
        Some(("time", "get_current_time"))
    );
    assert_eq!(
        tools.resolve("everything_get-sum"),
        None,
        "the prefix replaces the server name"
    );
    let mut shortened = 0;
    for name in tools.names() {
        assert!(name.len() <= 64, "{name}");
        assert!(mcpbind::toolbox::is_legal_tool_name(name), "{name}");
        let (server, tool) = tools.resolve(name).unwrap();
        if server == "everything" && name != format!("{long}_{tool}") {
            shortened += 1;
            assert_eq!(name.len(), 64);
            assert_eq!(name, mcpbind::toolbox::model_name(long, tool));
        }
    }
    assert!(shortened > 5, "{shortened} names shortened");
}

#[test]
fn colliding_names_are_an_error_naming_both() {
    let config = offline_config_with(|name, server| match name {
        "demo" | "everything" => server.tool_prefix(""),
        _ => server,
    });
    let err = offline_toolbox(&config).unwrap_err();
    assert_eq!(
        err.to_string(),
        "model-facing name `echo` is taken twice: by tool `echo` of server `demo` and by tool `echo` of server `everything`"
    );
    // The help is not in the message: it is the error's, as the CLI's.
    assert_eq!(
        mcpbind::help(&err).as_deref(),
        Some("set a different `tool_prefix` for one of the servers in mcpbind.toml")
    );
}

// ---------------------------------------------------------------------------
// Composition, disclosure, inventory

#[test]
fn toolboxes_merge_and_hold_back() {
    let config = offline_config();
    let mut first = Toolbox::new();
    first
        .add(demo::Client::from_client(lazy(&config, "demo")))
        .unwrap();
    let mut second = Toolbox::new();
    second
        .add(demo::Client::from_client(lazy(&config, "demo")))
        .unwrap();
    second
        .add(time::Client::from_client(lazy(&config, "time")))
        .unwrap();
    second.hold_back_server("time").unwrap();
    first.merge(second).unwrap();
    assert_eq!(first.server_names(), ["demo", "time"]);
    assert_eq!(
        first.warnings(),
        ["server `demo` was added twice; the first one is kept"]
    );
    assert_eq!(first.tool_count(), 12);
    assert_eq!(
        first.held_back(),
        ["time_convert_time", "time_get_current_time"]
    );

    first.hold_back_tool("demo_crash").unwrap();
    assert!(!first.names().contains(&"demo_crash"));
    assert_eq!(first.anthropic_tools().tools.len(), 11);
    first.enable_server("time").unwrap();
    assert_eq!(first.tool_count(), 13);
    assert_eq!(first.held_back(), ["demo_crash"]);
    assert!(matches!(
        first.hold_back_server("nope"),
        Err(ToolboxError::UnknownServer { .. })
    ));
}

#[test]
fn config_filters_apply() {
    let config = offline_config_with(|name, server| match name {
        "demo" => server.enabled_tools(["add", "echo", "fail"]),
        "time" => server.disabled_tools(["convert_time"]),
        _ => server,
    });
    let mut tools = Toolbox::new();
    tools
        .add(demo::Client::from_client(lazy(&config, "demo")))
        .unwrap();
    tools
        .add(time::Client::from_client(lazy(&config, "time")))
        .unwrap();
    assert_eq!(
        tools.names(),
        [
            "demo_add",
            "demo_echo",
            "demo_fail",
            "time_get_current_time"
        ]
    );
}

#[test]
fn inventory_renders_as_markdown() {
    let mut tools = offline_toolbox(&offline_config()).unwrap();
    tools.hold_back_server("memory").unwrap();
    tools.hold_back_tool("demo_crash").unwrap();
    let inventory = tools.tools_by_server();
    assert_eq!(inventory.len(), 5);
    assert_eq!(inventory[0].held_back_tools, ["demo_crash"]);
    util::assert_golden(
        &util::tests_dir().join("golden/toolbox_inventory.md"),
        &tools.render_markdown(),
    );
}
