//! W3C Trace Context in each request's `_meta` (feature `otel`): the
//! current tracing span's OpenTelemetry context (through
//! `tracing-opentelemetry`), as `traceparent` (and `tracestate` when it has
//! one), the keys MCP's trace-context convention names (SEP-414), so that
//! a server's spans join the caller's trace.
//!
//! Nothing is added when the span has no valid OpenTelemetry context (no
//! `tracing-opentelemetry` layer, or no trace), nor over a `traceparent`
//! the caller put in the call's own `_meta` ([`CallOptions::with_meta`]).
//!
//! [`CallOptions::with_meta`]: crate::CallOptions::with_meta

use opentelemetry::trace::TraceContextExt as _;
use rmcp::model::{ClientRequest, GetMeta as _};
use serde_json::{Map, Value};
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

/// `request` with the current span's trace context in its `_meta`, unless
/// `given` (the caller's own `_meta`) has a `traceparent`.
pub(crate) fn with_traceparent(
    mut request: ClientRequest,
    given: Option<&Map<String, Value>>,
) -> ClientRequest {
    if given.is_some_and(|meta| meta.contains_key("traceparent")) {
        return request;
    }
    let context = tracing::Span::current().context();
    let span = context.span();
    let span_context = span.span_context();
    if !span_context.is_valid() {
        return request;
    }
    let meta = &mut request.get_meta_mut().0;
    meta.insert(
        "traceparent".to_owned(),
        Value::String(format!(
            "00-{}-{}-{:02x}",
            span_context.trace_id(),
            span_context.span_id(),
            span_context.trace_flags().to_u8()
        )),
    );
    let state = span_context.trace_state().header();
    if !state.is_empty() {
        meta.insert("tracestate".to_owned(), Value::String(state));
    }
    request
}

#[cfg(test)]
mod tests {
    use opentelemetry::trace::{SpanContext, SpanId, TraceFlags, TraceId, TraceState};
    use tracing::Instrument as _;
    use tracing_subscriber::layer::SubscriberExt as _;

    use super::*;
    use crate::{CallOptions, Client};
    use mcpbind_model::config::Config;

    /// tests/servers/evolving.py, whose tool `meta` answers the `_meta` it
    /// was sent.
    fn evolving() -> Client {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/servers/evolving.py");
        let toml = format!("[servers.evolving]\ncommand = \"python3\"\nargs = [{script:?}]\n");
        let config = Config::from_toml_str(&toml).unwrap();
        Client::lazy("evolving", config.servers["evolving"].clone())
    }

    async fn meta_sent(client: &Client, options: &CallOptions) -> Value {
        let result = client.call_raw("meta", Map::new(), options).await.unwrap();
        let text = crate::call::text_of(&result.content);
        serde_json::from_str(&text).unwrap()
    }

    /// A call made in a span of a trace carries the span's `traceparent`
    /// (a remote parent here, with a no-op tracer: its span context is the
    /// parent's); the caller's own `traceparent` wins; without a trace,
    /// nothing is added.
    #[tokio::test(flavor = "current_thread")]
    async fn a_call_carries_its_spans_traceparent() {
        let client = evolving();
        let plain = meta_sent(&client, &CallOptions::default()).await;
        assert!(plain.get("traceparent").is_none(), "{plain}");

        let layer = tracing_opentelemetry::layer()
            .with_tracer(opentelemetry::trace::noop::NoopTracer::new());
        let _subscriber =
            tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
        let parent = SpanContext::new(
            TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap(),
            SpanId::from_hex("00f067aa0ba902b7").unwrap(),
            TraceFlags::SAMPLED,
            true,
            TraceState::from_key_value([("vendor", "value")]).unwrap(),
        );
        let turn = tracing::info_span!("agent.turn");
        let _ = turn.set_parent(opentelemetry::Context::new().with_remote_span_context(parent));
        let traced = meta_sent(&client, &CallOptions::default())
            .instrument(turn.clone())
            .await;
        assert_eq!(
            traced["traceparent"],
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        );
        assert_eq!(traced["tracestate"], "vendor=value");
        // The progress token rmcp adds is still there.
        assert!(traced.get("progressToken").is_some(), "{traced}");

        let mut own = Map::new();
        own.insert("traceparent".into(), json_string("00-own"));
        let options = CallOptions::default().with_meta(own);
        let given = meta_sent(&client, &options).instrument(turn).await;
        assert_eq!(given["traceparent"], "00-own");
        client.close().await;
    }

    fn json_string(s: &str) -> Value {
        Value::String(s.to_owned())
    }
}
