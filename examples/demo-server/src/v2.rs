//! The demo server's "v2" variant (`MCPBIND_DEMO_VARIANT=v2`): the same
//! server a release later, for tests and demos of `mcpbind check` and
//! `mcpbind diff`. Against the default variant it changes a few tools, one
//! change of each kind a reviewer meets:
//!
//! | tool | change | class |
//! | --- | --- | --- |
//! | `delete_item` | required param `reason` added | breaking |
//! | `tag_counts` | removed | breaking |
//! | `echo` | description reworded | review |
//! | `get_weather` | output field `humidity` added | compatible |
//! | `search` | optional param `lang` added | compatible |
//! | `multiply` | added | compatible |
//!
//! Without the variable the server is exactly the default one: this module
//! only adds routes when asked to.

use rmcp::{
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    schemars::{self, JsonSchema},
    tool, tool_router, Json,
};
use serde::{Deserialize, Serialize};

use crate::tools::{DemoServer, Units};

/// The environment variable that selects a variant.
pub const VARIANT_ENV: &str = "MCPBIND_DEMO_VARIANT";

/// The tools of the variant named by [`VARIANT_ENV`]: the default router,
/// or v2's changes applied to it.
pub fn router(default: ToolRouter<DemoServer>) -> ToolRouter<DemoServer> {
    match std::env::var(VARIANT_ENV).as_deref() {
        Ok("v2") => {
            let mut router = default;
            for replaced in ["delete_item", "tag_counts", "echo", "get_weather", "search"] {
                router.remove_route(replaced);
            }
            router + DemoServer::tool_router_v2()
        }
        _ => default,
    }
}

/// Parameters of `delete_item` (v2): a reason is now required.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeleteItemV2Params {
    /// The identifier of the item to delete.
    pub id: String,
    /// Why the item is deleted (kept in the audit log).
    pub reason: String,
}

/// Parameters of `echo` (v2): unchanged.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoV2Params {
    /// The text to echo back.
    pub message: String,
    /// How many times to repeat the message (joined by single spaces).
    #[serde(default = "default_repeat")]
    pub repeat: Option<u32>,
}

fn default_repeat() -> Option<u32> {
    Some(1)
}

/// Parameters of `get_weather` (v2): unchanged.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetWeatherV2Params {
    /// The city to report on.
    pub city: String,
    /// The unit for the temperature.
    #[serde(default = "default_units")]
    pub units: Option<Units>,
}

fn default_units() -> Option<Units> {
    Some(Units::Celsius)
}

/// A (fake) weather report, v2: with humidity.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WeatherReportV2 {
    /// The city the report is for.
    pub city: String,
    /// The current temperature, in `units`.
    pub temperature: f64,
    /// A one-word summary of the conditions.
    pub conditions: String,
    /// The unit of `temperature`.
    pub units: Units,
    /// The relative humidity, in percent.
    pub humidity: u32,
}

/// Parameters of `search` (v2): an optional language.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchV2Params {
    /// The text to search for.
    pub query: String,
    /// The maximum number of results to return.
    #[serde(default = "default_limit")]
    pub limit: Option<u32>,
    /// An opaque pagination cursor from a previous search; null or absent for the first page.
    #[serde(default)]
    #[schemars(schema_with = "crate::tools::nullable_string")]
    pub after: Option<String>,
    /// Only results in this language (an ISO 639-1 code); all languages when absent.
    #[serde(default)]
    pub lang: Option<String>,
}

fn default_limit() -> Option<u32> {
    Some(10)
}

/// Parameters of `multiply`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MultiplyParams {
    /// The first factor.
    pub a: i64,
    /// The second factor.
    pub b: i64,
}

/// Result of `multiply`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MultiplyResult {
    /// The product `a * b` (wrapping on overflow).
    pub product: i64,
}

#[tool_router(router = tool_router_v2)]
impl DemoServer {
    /// Delete an item by id. Destructive, but deleting the same item twice is harmless.
    #[tool(
        name = "delete_item",
        title = "Delete item",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true
        )
    )]
    fn delete_item_v2(
        &self,
        Parameters(DeleteItemV2Params { id, reason }): Parameters<DeleteItemV2Params>,
    ) -> String {
        format!("deleted {id} ({reason})")
    }

    /// Echo a message back, possibly repeated several times (joined by spaces). Handy to test a connection.
    #[tool(name = "echo", title = "Echo", annotations(read_only_hint = true))]
    fn echo_v2(
        &self,
        Parameters(EchoV2Params { message, repeat }): Parameters<EchoV2Params>,
    ) -> Result<String, String> {
        let repeat = repeat.unwrap_or(1);
        if repeat > 10_000 {
            return Err(format!("repeat must be at most 10000, got {repeat}"));
        }
        Ok(vec![message.as_str(); repeat as usize].join(" "))
    }

    /// Get the current weather for a city. The data is fake but deterministic (derived from the city name).
    #[tool(
        name = "get_weather",
        title = "Get weather",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn get_weather_v2(
        &self,
        Parameters(GetWeatherV2Params { city, units }): Parameters<GetWeatherV2Params>,
    ) -> Json<WeatherReportV2> {
        let report = crate::tools::weather(city, units);
        let humidity = 40 + (report.city.chars().count() % 5) as u32 * 10;
        Json(WeatherReportV2 {
            city: report.city,
            temperature: report.temperature,
            conditions: report.conditions,
            units: report.units,
            humidity,
        })
    }

    /// Search the (imaginary) catalogue and describe the query that would be run.
    #[tool(name = "search", title = "Search", annotations(read_only_hint = true))]
    fn search_v2(
        &self,
        Parameters(SearchV2Params {
            query,
            limit,
            after,
            lang,
        }): Parameters<SearchV2Params>,
    ) -> String {
        let limit = limit.unwrap_or(10);
        let after = after.as_deref().unwrap_or("null");
        // Without `lang` the answer is v1's, word for word.
        match lang {
            None => format!("query={query}, limit={limit}, after={after}"),
            Some(lang) => format!("query={query}, limit={limit}, after={after}, lang={lang}"),
        }
    }

    /// Multiply two integers and return their product as structured output.
    #[tool(
        title = "Multiply",
        annotations(read_only_hint = true, idempotent_hint = true)
    )]
    fn multiply(
        &self,
        Parameters(MultiplyParams { a, b }): Parameters<MultiplyParams>,
    ) -> Json<MultiplyResult> {
        Json(MultiplyResult {
            product: a.wrapping_mul(b),
        })
    }
}
