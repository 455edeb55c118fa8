//! Call metrics through the [`metrics`] facade (feature `metrics`): the
//! exporter a program installs (Prometheus, StatsD, OpenTelemetry…)
//! receives them; without one they cost a load each.
//!
//! | name | kind | labels |
//! | --- | --- | --- |
//! | `mcpbind_calls_total` | counter | `server`, `tool`, `outcome` (`ok`, `tool error`, `timeout`, …) |
//! | `mcpbind_call_duration_seconds` | histogram | `server`, `tool` |
//! | `mcpbind_call_retries_total` | counter | `server`, `tool` |
//! | `mcpbind_circuit_open` | gauge, 1 while open | `server` |

use std::time::Duration;

/// One call ended after `attempts` sends (`outcome`: as in its span).
pub(crate) fn call(
    server: &str,
    tool: &str,
    outcome: &'static str,
    duration: Duration,
    attempts: u32,
) {
    let (server, tool) = (server.to_owned(), tool.to_owned());
    metrics::counter!("mcpbind_calls_total", "server" => server.clone(), "tool" => tool.clone(), "outcome" => outcome)
        .increment(1);
    metrics::histogram!("mcpbind_call_duration_seconds", "server" => server.clone(), "tool" => tool.clone())
        .record(duration.as_secs_f64());
    if attempts > 1 {
        metrics::counter!("mcpbind_call_retries_total", "server" => server, "tool" => tool)
            .increment(u64::from(attempts - 1));
    }
}

/// A server's circuit opened (`true`) or closed.
pub(crate) fn circuit(server: &str, open: bool) {
    metrics::gauge!("mcpbind_circuit_open", "server" => server.to_owned()).set(if open {
        1.0
    } else {
        0.0
    });
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use metrics::{
        Counter, CounterFn, Gauge, GaugeFn, Histogram, HistogramFn, Key, KeyName, Metadata,
        Recorder, SharedString, Unit,
    };

    /// Every value recorded, as `name{label=value,…} value`.
    #[derive(Default, Clone)]
    struct Seen(Arc<Mutex<Vec<String>>>);

    struct Handle(Seen, String);

    impl CounterFn for Handle {
        fn increment(&self, value: u64) {
            self.0
                 .0
                .lock()
                .unwrap()
                .push(format!("{} +{value}", self.1));
        }
        fn absolute(&self, value: u64) {
            self.0
                 .0
                .lock()
                .unwrap()
                .push(format!("{} ={value}", self.1));
        }
    }

    impl GaugeFn for Handle {
        fn increment(&self, _: f64) {}
        fn decrement(&self, _: f64) {}
        fn set(&self, value: f64) {
            self.0
                 .0
                .lock()
                .unwrap()
                .push(format!("{} ={value}", self.1));
        }
    }

    impl HistogramFn for Handle {
        fn record(&self, value: f64) {
            let sign = if value >= 0.0 { "positive" } else { "negative" };
            self.0 .0.lock().unwrap().push(format!("{} {sign}", self.1));
        }
    }

    impl Seen {
        fn handle(&self, key: &Key) -> Arc<Handle> {
            let labels: Vec<String> = key
                .labels()
                .map(|l| format!("{}={}", l.key(), l.value()))
                .collect();
            Arc::new(Handle(
                self.clone(),
                format!("{}{{{}}}", key.name(), labels.join(",")),
            ))
        }
    }

    impl Recorder for Seen {
        fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
            Counter::from_arc(self.handle(key))
        }
        fn register_gauge(&self, key: &Key, _: &Metadata<'_>) -> Gauge {
            Gauge::from_arc(self.handle(key))
        }
        fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
            Histogram::from_arc(self.handle(key))
        }
    }

    #[test]
    fn calls_and_circuits_are_counted_with_their_labels() {
        let seen = Seen::default();
        metrics::with_local_recorder(&seen, || {
            super::call("demo", "add", "ok", std::time::Duration::from_millis(3), 1);
            super::call(
                "demo",
                "add",
                "timeout",
                std::time::Duration::from_secs(1),
                3,
            );
            super::circuit("demo", true);
        });
        assert_eq!(
            *seen.0.lock().unwrap(),
            [
                "mcpbind_calls_total{server=demo,tool=add,outcome=ok} +1",
                "mcpbind_call_duration_seconds{server=demo,tool=add} positive",
                "mcpbind_calls_total{server=demo,tool=add,outcome=timeout} +1",
                "mcpbind_call_duration_seconds{server=demo,tool=add} positive",
                "mcpbind_call_retries_total{server=demo,tool=add} +2",
                "mcpbind_circuit_open{server=demo} =1",
            ]
        );
    }
}
