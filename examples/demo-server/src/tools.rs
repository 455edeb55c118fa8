//! The demo server's tools.
//!
//! Every parameter and output type derives [`JsonSchema`] and carries doc comments on its
//! fields, so the generated `inputSchema`/`outputSchema` have descriptions. Between them the
//! tools exercise the JSON Schema shapes real MCP servers put in their tool definitions:
//! plain scalars, `default`, nullable types, string enums, a hand-written `anyOf` with a
//! `null` branch, nested objects and arrays of objects, an internally tagged enum (`oneOf`
//! with `const` tags behind a `$ref` into `$defs`), maps (`additionalProperties`) and
//! free-form objects.

use std::{collections::BTreeMap, time::Duration};

use rmcp::{
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{CallToolResult, ContentBlock},
    schemars::{self, JsonSchema},
    service::RequestContext,
    tool, tool_handler, tool_router, ErrorData, Json, RoleServer, ServerHandler,
};
use serde::{Deserialize, Serialize};

/// The largest `repeat` that `echo` accepts.
const MAX_REPEAT: u32 = 10_000;

// ---------------------------------------------------------------------------------------------
// add

/// Parameters of `add`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AddParams {
    /// The first addend.
    pub a: i64,
    /// The second addend.
    pub b: i64,
}

/// Result of `add`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AddResult {
    /// The sum `a + b` (wrapping on overflow).
    pub sum: i64,
}

// ---------------------------------------------------------------------------------------------
// echo

fn default_repeat() -> Option<u32> {
    Some(1)
}

/// Parameters of `echo`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoParams {
    /// The text to echo back.
    pub message: String,
    /// How many times to repeat the message (joined by single spaces).
    #[serde(default = "default_repeat")]
    pub repeat: Option<u32>,
}

// ---------------------------------------------------------------------------------------------
// create_order

/// The person placing an order.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Customer {
    /// The customer's full name.
    pub name: String,
    /// The customer's e-mail address, if known.
    #[expect(
        dead_code,
        reason = "part of the demo schema; the tool does not use it"
    )]
    pub email: Option<String>,
}

/// One line of an order.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LineItem {
    /// The stock-keeping unit of the product.
    #[expect(
        dead_code,
        reason = "part of the demo schema; the tool does not use it"
    )]
    pub sku: String,
    /// How many units of the product to order.
    pub quantity: u32,
}

/// Parameters of `create_order`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CreateOrderParams {
    /// Who the order is for.
    pub customer: Customer,
    /// The products to order.
    pub items: Vec<LineItem>,
    /// A free-text note for the warehouse.
    #[expect(
        dead_code,
        reason = "part of the demo schema; the tool does not use it"
    )]
    pub note: Option<String>,
}

/// Result of `create_order`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct OrderReceipt {
    /// The identifier of the created order.
    pub order_id: String,
    /// The total number of units over all line items.
    pub total_units: u32,
}

// ---------------------------------------------------------------------------------------------
// set_mode

/// An operating mode. The wire values are deliberately not valid Rust identifiers.
// No doc comments on the variants: with them schemars would emit `oneOf` of `const`s instead
// of a plain `enum`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
pub enum Mode {
    #[serde(rename = "fast-mode")]
    Fast,
    #[serde(rename = "slow mode")]
    Slow,
    #[serde(rename = "2x")]
    Double,
    #[serde(rename = "default")]
    Default,
}

impl Mode {
    fn as_str(self) -> &'static str {
        match self {
            Mode::Fast => "fast-mode",
            Mode::Slow => "slow mode",
            Mode::Double => "2x",
            Mode::Default => "default",
        }
    }
}

/// Parameters of `set_mode`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SetModeParams {
    /// The mode to switch to.
    pub mode: Mode,
}

// ---------------------------------------------------------------------------------------------
// search

fn default_limit() -> Option<u32> {
    Some(10)
}

/// The schema of `search.after`, written by hand so that it is literally
/// `anyOf: [{type: string}, {type: null}]` (schemars would write `type: ["string", "null"]`).
pub(crate) fn nullable_string(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "anyOf": [
            { "type": "string" },
            { "type": "null" }
        ]
    })
}

/// Parameters of `search`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchParams {
    /// The text to search for.
    pub query: String,
    /// The maximum number of results to return.
    #[serde(default = "default_limit")]
    pub limit: Option<u32>,
    /// An opaque pagination cursor from a previous search; null or absent for the first page.
    // `#[serde(default)]` makes the field optional and adds `"default": null`: together with the
    // hand-written `anyOf` this is exactly what pydantic (FastMCP) emits for `after: str | None = None`.
    #[serde(default)]
    #[schemars(schema_with = "nullable_string")]
    pub after: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// draw_shape

/// A geometric shape, tagged by `kind`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    /// A circle.
    Circle {
        /// The circle's radius.
        radius: f64,
    },
    /// An axis-aligned rectangle.
    Rect {
        /// The rectangle's width.
        width: f64,
        /// The rectangle's height.
        height: f64,
    },
}

/// Parameters of `draw_shape`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DrawShapeParams {
    /// The shape to draw.
    pub shape: Shape,
}

/// Result of `draw_shape`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShapeArea {
    /// The area of the shape.
    pub area: f64,
}

// ---------------------------------------------------------------------------------------------
// tag_counts

/// Parameters of `tag_counts`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TagCountsParams {
    /// How often each tag occurs, keyed by tag name.
    pub counts: BTreeMap<String, u32>,
    /// Free-form labels attached to the request (accepted, not interpreted).
    #[expect(
        dead_code,
        reason = "part of the demo schema; the tool does not use it"
    )]
    pub labels: Option<serde_json::Map<String, serde_json::Value>>,
}

/// Result of `tag_counts`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TagCountsResult {
    /// The sum of all counts (saturating).
    pub total: u32,
    /// The tag names, sorted.
    pub keys: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// get_weather

/// A temperature unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Units {
    Celsius,
    Fahrenheit,
}

fn default_units() -> Option<Units> {
    Some(Units::Celsius)
}

/// Parameters of `get_weather`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetWeatherParams {
    /// The city to report on.
    pub city: String,
    /// The unit for the temperature.
    #[serde(default = "default_units")]
    pub units: Option<Units>,
}

/// A (fake) weather report.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WeatherReport {
    /// The city the report is for.
    pub city: String,
    /// The current temperature, in `units`.
    pub temperature: f64,
    /// A one-word summary of the conditions.
    pub conditions: String,
    /// The unit of `temperature`.
    pub units: Units,
}

/// The (fake) weather of `city`, shared with the v2 variant.
pub(crate) fn weather(city: String, units: Option<Units>) -> WeatherReport {
    const CONDITIONS: [&str; 4] = ["sunny", "cloudy", "rainy", "windy"];
    let len = city.chars().count();
    let celsius = 10.0 + (len % 7) as f64 * 2.5;
    let units = units.unwrap_or(Units::Celsius);
    let temperature = match units {
        Units::Celsius => celsius,
        Units::Fahrenheit => celsius * 9.0 / 5.0 + 32.0,
    };
    WeatherReport {
        conditions: CONDITIONS[len % CONDITIONS.len()].to_owned(),
        city,
        temperature,
        units,
    }
}

// ---------------------------------------------------------------------------------------------
// sleep, fail, delete_item, crash

/// Parameters of `sleep`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SleepParams {
    /// How long to sleep, in milliseconds.
    pub millis: u64,
}

/// Parameters of `fail`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FailParams {
    /// The error message to return.
    pub message: String,
}

/// Parameters of `delete_item`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeleteItemParams {
    /// The identifier of the item to delete.
    pub id: String,
}

/// Parameters of `crash`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CrashParams {
    /// The exit code the server process exits with.
    pub code: i32,
}

// ---------------------------------------------------------------------------------------------
// the server

/// The demo MCP server. Stateless: every tool is a pure function of its arguments (except
/// `sleep`, which waits, and `crash`, which exits).
#[derive(Debug, Clone)]
pub struct DemoServer {
    tool_router: ToolRouter<Self>,
    /// With `MCPBIND_DEMO_PAGE_SIZE=N`, `tools/list` answers in pages of N
    /// tools (cursor = the index of the next tool), as large servers do.
    page_size: Option<usize>,
}

impl Default for DemoServer {
    fn default() -> Self {
        Self::new()
    }
}

impl DemoServer {
    pub fn new() -> Self {
        Self {
            // The default tools, or a variant's (`MCPBIND_DEMO_VARIANT`).
            tool_router: crate::v2::router(Self::tool_router()),
            page_size: std::env::var("MCPBIND_DEMO_PAGE_SIZE")
                .ok()
                .and_then(|n| n.parse().ok())
                .filter(|n| *n > 0),
        }
    }
}

#[tool_router]
impl DemoServer {
    /// Add two integers and return their sum as structured output.
    #[tool(
        title = "Add",
        annotations(read_only_hint = true, idempotent_hint = true)
    )]
    fn add(&self, Parameters(AddParams { a, b }): Parameters<AddParams>) -> Json<AddResult> {
        Json(AddResult {
            sum: a.wrapping_add(b),
        })
    }

    /// Echo a message back, optionally repeated several times (joined by spaces).
    #[tool(title = "Echo", annotations(read_only_hint = true))]
    fn echo(
        &self,
        Parameters(EchoParams { message, repeat }): Parameters<EchoParams>,
    ) -> Result<String, String> {
        // An `Err(String)` becomes a tool-level error (`isError: true`), like rmcp's own
        // argument deserialization errors.
        let repeat = repeat.unwrap_or(1);
        if repeat > MAX_REPEAT {
            return Err(format!("repeat must be at most {MAX_REPEAT}, got {repeat}"));
        }
        Ok(vec![message.as_str(); repeat as usize].join(" "))
    }

    /// Create an order for a customer from a list of line items. Returns a text summary and a structured receipt.
    #[tool(
        title = "Create order",
        output_schema = rmcp::handler::server::tool::schema_for_output::<OrderReceipt>()
    )]
    fn create_order(
        &self,
        Parameters(CreateOrderParams {
            customer, items, ..
        }): Parameters<CreateOrderParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let total_units = items
            .iter()
            .fold(0u32, |acc, item| acc.saturating_add(item.quantity));
        let receipt = OrderReceipt {
            order_id: format!("ord-{total_units}"),
            total_units,
        };
        let structured = serde_json::to_value(&receipt)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let mut result = CallToolResult::structured(structured);
        result.content = vec![ContentBlock::text(format!(
            "order for {}: {} items, {} units",
            customer.name,
            items.len(),
            total_units
        ))];
        Ok(result)
    }

    /// Switch the server to another operating mode.
    #[tool(
        title = "Set mode",
        annotations(read_only_hint = false, idempotent_hint = true)
    )]
    fn set_mode(&self, Parameters(SetModeParams { mode }): Parameters<SetModeParams>) -> String {
        format!("mode set to {}", mode.as_str())
    }

    /// Search the (imaginary) catalogue and describe the query that would be run.
    #[tool(title = "Search", annotations(read_only_hint = true))]
    fn search(
        &self,
        Parameters(SearchParams {
            query,
            limit,
            after,
        }): Parameters<SearchParams>,
    ) -> String {
        let limit = limit.unwrap_or(10);
        let after = after.as_deref().unwrap_or("null");
        format!("query={query}, limit={limit}, after={after}")
    }

    /// Draw a circle or a rectangle and return its area as structured output.
    #[tool(title = "Draw shape", annotations(read_only_hint = true))]
    fn draw_shape(
        &self,
        Parameters(DrawShapeParams { shape }): Parameters<DrawShapeParams>,
    ) -> Json<ShapeArea> {
        let area = match shape {
            Shape::Circle { radius } => std::f64::consts::PI * radius * radius,
            Shape::Rect { width, height } => width * height,
        };
        Json(ShapeArea { area })
    }

    /// Sum a map of tag counts and list its keys; free-form labels may be attached.
    #[tool(title = "Tag counts", annotations(read_only_hint = true))]
    fn tag_counts(
        &self,
        Parameters(TagCountsParams { counts, .. }): Parameters<TagCountsParams>,
    ) -> Json<TagCountsResult> {
        let total = counts
            .values()
            .fold(0u32, |acc, count| acc.saturating_add(*count));
        Json(TagCountsResult {
            total,
            keys: counts.into_keys().collect(),
        })
    }

    /// Get the current weather for a city. The data is fake but deterministic (derived from the city name).
    #[tool(
        title = "Get weather",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn get_weather(
        &self,
        Parameters(GetWeatherParams { city, units }): Parameters<GetWeatherParams>,
    ) -> Json<WeatherReport> {
        Json(weather(city, units))
    }

    /// Sleep for the given number of milliseconds, then report it. Stops early when the request is cancelled.
    #[tool(title = "Sleep", annotations(read_only_hint = true))]
    async fn sleep(
        &self,
        Parameters(SleepParams { millis }): Parameters<SleepParams>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(millis)) => {
                CallToolResult::success(vec![ContentBlock::text(format!("slept {millis} ms"))])
            }
            () = context.ct.cancelled() => {
                eprintln!("sleep cancelled");
                // rmcp drops the response of a cancelled request; this never reaches the client.
                CallToolResult::error(vec![ContentBlock::text("sleep cancelled")])
            }
        }
    }

    /// Always fail: return a tool-level error result (`isError: true`) carrying the given message.
    #[tool(title = "Fail", annotations(read_only_hint = true))]
    fn fail(&self, Parameters(FailParams { message }): Parameters<FailParams>) -> CallToolResult {
        CallToolResult::error(vec![ContentBlock::text(message)])
    }

    /// Delete an item by id. Destructive, but deleting the same item twice is harmless.
    #[tool(
        title = "Delete item",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true
        )
    )]
    fn delete_item(
        &self,
        Parameters(DeleteItemParams { id }): Parameters<DeleteItemParams>,
    ) -> String {
        format!("deleted {id}")
    }

    /// Exit the server process immediately with the given exit code, after writing a line to stderr. For testing how clients handle a dead server.
    #[tool(title = "Crash")]
    fn crash(&self, Parameters(CrashParams { code }): Parameters<CrashParams>) -> String {
        eprintln!("demo server crashing on purpose");
        std::process::exit(code)
    }
}

#[tool_handler(
    router = self.tool_router,
    name = "mcpbind-demo",
    instructions = "Demo server for mcpbind: small deterministic tools (arithmetic, echo, orders, shapes, weather, sleep, failures) for quickstarts and tests."
)]
impl ServerHandler for DemoServer {
    async fn list_tools(
        &self,
        request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, ErrorData> {
        let all = self.tool_router.list_all();
        let Some(size) = self.page_size else {
            return Ok(rmcp::model::ListToolsResult::with_all_items(all));
        };
        let start = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .ok()
                .filter(|start| *start < all.len())
                .ok_or_else(|| {
                    ErrorData::invalid_params(format!("invalid cursor `{cursor}`"), None)
                })?,
        };
        let end = (start + size).min(all.len());
        let mut page = rmcp::model::ListToolsResult::with_all_items(all[start..end].to_vec());
        page.next_cursor = (end < all.len()).then(|| end.to_string());
        Ok(page)
    }
}
