//! `-v`/`-vv` and `TUNESPEC_LOG`: what tunespec does and how long each phase took, on stderr.
//!
//! The phases are `tracing` spans (named `area.phase`: `link.plan`, `cache.lookup`,
//! `verify.file`); a span's line is printed when it closes, with its duration and fields. `-v`
//! shows the `info` spans (the phases of the command), `-vv` the `debug` ones too (per file,
//! per cache entry) and debug events. `TUNESPEC_LOG`, in `tracing_subscriber::EnvFilter`
//! syntax (`debug`, `tunespec::cache=debug,info`), replaces what `-v` chooses. Without either
//! nothing is installed and nothing is printed: the output is what it is without logging.
//!
//! Lines (stable enough to grep, not a format to parse):
//! `tunespec: [info] link.plan: 1.234 ms (inputs=3)` for a phase,
//! `tunespec: [debug] cache.lookup: hit (key=...)` for an event.
//! With `--format json` (everything is JSON then) each line is a JSON object instead
//! (docs/schema/log.schema.json): `{"version":1,"kind":"phase","level":"info",
//! "name":"link.plan","ms":1.234,"fields":{"inputs":"3"}}`, events with `"kind":"event"`, the
//! enclosing phase as `name` (null outside any) and `"message"`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::time::Instant;

use tracing::field::{Field, Visit};
use tracing::{span, Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::EnvFilter;

/// The environment variable that sets the filter.
pub const ENV: &str = "TUNESPEC_LOG";

/// Installs the logger when `-v` was given or `TUNESPEC_LOG` is set (it wins over `-v`). An
/// invalid `TUNESPEC_LOG` is an error (the caller exits 2): a typo should not silently log
/// nothing.
pub fn init(verbose: u8, json: bool, env: &tunespec::settings::Environment) -> Result<(), String> {
    let directives = match env.get(ENV) {
        Some(value) if !value.is_empty() => value
            .into_string()
            .map_err(|_| format!("{ENV} is not valid UTF-8"))?,
        _ => match verbose {
            0 => return Ok(()),
            1 => "tunespec=info".to_string(),
            2 => "tunespec=debug".to_string(),
            _ => "tunespec=trace".to_string(),
        },
    };
    let filter = parse_filter(&directives)?;
    tracing_subscriber::registry()
        .with(filter)
        .with(Phases { json })
        .try_init()
        .map_err(|error| format!("cannot start logging: {error}"))
}

/// Parses a filter in `EnvFilter` syntax; the error names the variable and shows examples.
pub fn parse_filter(directives: &str) -> Result<EnvFilter, String> {
    EnvFilter::builder().parse(directives).map_err(|error| {
        format!(
            "{ENV}={directives:?} is not a valid log filter ({error}); examples: {ENV}=info, \
             {ENV}=debug, {ENV}=tunespec::cache=debug,info"
        )
    })
}

/// When a span started and the fields recorded on it.
struct Timing {
    start: Instant,
    fields: Fields,
}

/// The `name=value` pairs of a span or event (values as text), and an event's message.
#[derive(Default)]
struct Fields {
    pairs: Vec<(&'static str, String)>,
    message: Option<String>,
}

impl Fields {
    /// ` (a=1, b=2)`, or nothing without fields.
    fn text(&self) -> String {
        if self.pairs.is_empty() {
            return String::new();
        }
        let mut out = String::from(" (");
        for (index, (name, value)) in self.pairs.iter().enumerate() {
            if index > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "{name}={value}");
        }
        out.push(')');
        out
    }

    fn json(&self) -> serde_json::Value {
        serde_json::Value::Object(
            self.pairs
                .iter()
                .map(|(name, value)| (name.to_string(), serde_json::Value::from(value.clone())))
                .collect(),
        )
    }
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.record_str(field, &format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message = Some(value.to_string());
        } else {
            self.pairs.push((field.name(), value.to_string()));
        }
    }
}

/// The layer that prints phases (when their span closes) and events; JSON lines in `json`.
struct Phases {
    json: bool,
}

fn line(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

fn level(metadata: &tracing::Metadata<'_>) -> String {
    metadata.level().as_str().to_ascii_lowercase()
}

impl<S> Layer<S> for Phases
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &span::Attributes<'_>, id: &span::Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else {
            return;
        };
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        span.extensions_mut().insert(Timing {
            start: Instant::now(),
            fields,
        });
    }

    fn on_record(&self, id: &span::Id, values: &span::Record<'_>, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else {
            return;
        };
        let mut extensions = span.extensions_mut();
        if let Some(timing) = extensions.get_mut::<Timing>() {
            values.record(&mut timing.fields);
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let message = fields.message.take().unwrap_or_default();
        let phase = ctx.event_span(event).map(|span| span.name());
        let level = level(event.metadata());
        if self.json {
            line(&format!(
                "{}\n",
                serde_json::json!({
                    "version": 1,
                    "kind": "event",
                    "level": level,
                    "name": phase,
                    "message": message,
                    "fields": fields.json(),
                })
            ));
        } else {
            line(&format!(
                "tunespec: [{level}] {}: {message}{}\n",
                phase.unwrap_or("tunespec"),
                fields.text()
            ));
        }
    }

    fn on_close(&self, id: span::Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else {
            return;
        };
        let extensions = span.extensions();
        let Some(timing) = extensions.get::<Timing>() else {
            return;
        };
        let millis = timing.start.elapsed().as_secs_f64() * 1000.0;
        let level = level(span.metadata());
        if self.json {
            line(&format!(
                "{}\n",
                serde_json::json!({
                    "version": 1,
                    "kind": "phase",
                    "level": level,
                    "name": span.name(),
                    "ms": (millis * 1000.0).round() / 1000.0,
                    "fields": timing.fields.json(),
                })
            ));
        } else {
            line(&format!(
                "tunespec: [{level}] {}: {millis:.3} ms{}\n",
                span.name(),
                timing.fields.text()
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_in_env_filter_syntax_parse_and_bad_ones_are_errors() {
        for good in [
            "info",
            "debug",
            "tunespec::cache=debug,info",
            "tunespec=trace",
        ] {
            assert!(parse_filter(good).is_ok(), "{good}");
        }
        let error = parse_filter("tunespec=loud").unwrap_err();
        assert!(error.starts_with("TUNESPEC_LOG=\"tunespec=loud\" is not a valid log filter"));
        assert!(error.contains("TUNESPEC_LOG=debug"), "{error}");
    }
}
