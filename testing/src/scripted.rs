//! A scripted model: a model API's responses, written down once (as the
//! provider returns them), handed to the agent under test in order, and
//! what the agent sends back recorded for the test to assert on.
//!
//! A script is a JSON array of raw responses of one provider, each a turn
//! of the model: one or more tool calls, or a final answer. The shapes are
//! the providers' own (`scripted/parse.rs` cites their documentation):
//!
//! - OpenAI Chat Completions: a `chat.completion` object, its
//!   `choices[0].message` holding `tool_calls` (`function.arguments` a JSON
//!   string) or `content`;
//! - OpenAI Responses: a `response` object, its `output` items
//!   `function_call` (`call_id`, `name`, `arguments` a JSON string) or a
//!   `message` of `output_text` parts;
//! - Anthropic Messages: a `message` object, its `content` blocks
//!   `tool_use` (`id`, `name`, `input`) or `text`;
//! - Gemini `generateContent`: its `candidates[0].content.parts`,
//!   `functionCall` (`name`, `args`, an optional `id`) or `text`.
//!
//! Every response is parsed when the script is loaded, so a bad script is
//! refused before the agent runs, naming the file and the step.

mod parse;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use mcpbind_toolbox::{Provider, ProviderResult};
use serde_json::Value;

pub use parse::detect_provider;

/// A model that answers from a script of raw provider responses.
///
/// ```no_run
/// # async fn run(tools: mcpbind::Toolbox) -> Result<(), Box<dyn std::error::Error>> {
/// use mcpbind::testing::ScriptedModel;
///
/// let mut model = ScriptedModel::load("tests/scripts/anthropic.json")?;
/// loop {
///     let turn = model.respond()?;
///     if turn.is_final() {
///         break;
///     }
///     for call in &turn.calls {
///         let done = tools.call(&call.name, &call.arguments).await;
///         model.send(done.for_provider(model.provider(), &call.id))?;
///     }
/// }
/// assert_eq!(model.sent().len(), 3);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct ScriptedModel {
    source: String,
    provider: Provider,
    turns: Vec<Turn>,
    next: usize,
    /// The calls of the turn last handed out that have no result yet.
    pending: Vec<ToolUse>,
    sent: Vec<Sent>,
}

/// One turn of the model: what it said and the tools it called.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Turn {
    /// Its step in the script, from 1.
    pub step: usize,
    /// The text of the response (the answer, when there are no calls; a
    /// preamble some models write before calling tools).
    pub text: String,
    /// The tool calls, in the order of the response.
    pub calls: Vec<ToolUse>,
    /// The response as the provider returned it (what a real loop appends
    /// to the conversation).
    pub response: Value,
}

impl Turn {
    /// Whether this is the final answer (no tool calls).
    pub fn is_final(&self) -> bool {
        self.calls.is_empty()
    }
}

/// One tool call of a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolUse {
    /// The call's id, to answer it with (OpenAI `tool_call_id` /
    /// `call_id`, Anthropic `tool_use_id`, Gemini's optional `id`: `""`
    /// when the response has none).
    pub id: String,
    /// The model-facing tool name.
    pub name: String,
    /// The arguments as JSON text, as the model wrote them (OpenAI sends a
    /// string that need not be valid JSON; Anthropic's and Gemini's object
    /// as text): what [`Toolbox::call`](mcpbind_toolbox::Toolbox::call)
    /// takes.
    pub arguments: String,
}

/// What the agent sent back for one call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Sent {
    /// The step of the turn whose call it answers, from 1.
    pub step: usize,
    /// The call it answers.
    pub call: ToolUse,
    /// The result in the provider's shape, as the agent sent it.
    pub result: ProviderResult,
}

/// A script the model can't follow, or an agent that did not answer it as
/// the provider requires. Each names the script and the step.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScriptError {
    /// The script file could not be read.
    #[error("cannot read script {}: {source}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The script is not JSON.
    #[error("{source_name}:{line}:{column}: the script is not JSON: {reason}")]
    Json {
        /// The script (its file, or the name it was given).
        source_name: String,
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column.
        column: usize,
        /// serde_json's message.
        reason: String,
    },
    /// A response (or the script) is not of the shape expected.
    #[error("{source_name}, step {step}: expected {expected}, found {found}")]
    Shape {
        /// The script.
        source_name: String,
        /// The step, from 1 (0: the script itself).
        step: usize,
        /// What was expected there, with the JSON pointer.
        expected: String,
        /// What the response has instead.
        found: String,
    },
    /// The agent asked for more responses than the script holds.
    #[error("{source_name}: the agent asked for response {asked}, the script has {steps}; add a final answer, or look at why the agent did not stop")]
    Exhausted {
        /// The script.
        source_name: String,
        /// How many responses it holds.
        steps: usize,
        /// Which the agent asked for, from 1.
        asked: usize,
    },
    /// The agent asked for the next response before answering every call
    /// of the last one (every provider requires a result for each call).
    #[error("{source_name}, step {step}: the agent asked for the next response with calls unanswered: {}", unanswered.join(", "))]
    Unanswered {
        /// The script.
        source_name: String,
        /// The step whose calls are unanswered.
        step: usize,
        /// The calls (`name` and id).
        unanswered: Vec<String>,
    },
    /// The agent sent a result that answers no pending call: another
    /// provider's shape, an unknown or repeated call id.
    #[error("{source_name}, step {step}: the agent sent a result that answers no pending call: expected {expected}, got {got}")]
    Unexpected {
        /// The script.
        source_name: String,
        /// The step of the calls pending (0: before the first response).
        step: usize,
        /// What would have answered a pending call.
        expected: String,
        /// The result's message, as JSON.
        got: String,
    },
}

impl ScriptedModel {
    /// The script in `file`: a JSON array of one provider's responses.
    ///
    /// # Errors
    ///
    /// [`ScriptError::Io`], [`ScriptError::Json`] (with the line), and
    /// [`ScriptError::Shape`] for a script that is no array, is empty, or
    /// has a response of an unknown shape or of another provider.
    pub fn load(file: impl AsRef<Path>) -> Result<ScriptedModel, ScriptError> {
        let file = file.as_ref();
        let text = std::fs::read_to_string(file).map_err(|source| ScriptError::Io {
            file: file.to_owned(),
            source,
        })?;
        ScriptedModel::from_json(file.display().to_string(), &text)
    }

    /// The script in `text`, named `source_name` in errors.
    ///
    /// # Errors
    ///
    /// As [`load`](Self::load), but for reading.
    pub fn from_json(source_name: impl Into<String>, text: &str) -> Result<Self, ScriptError> {
        let source_name = source_name.into();
        let value: Value = serde_json::from_str(text).map_err(|e| ScriptError::Json {
            source_name: source_name.clone(),
            line: e.line(),
            column: e.column(),
            reason: strip_position(&e.to_string()),
        })?;
        let Value::Array(responses) = value else {
            return Err(ScriptError::Shape {
                source_name,
                step: 0,
                expected: "a JSON array of responses".into(),
                found: parse::kind_of(&value),
            });
        };
        ScriptedModel::new(source_name, responses)
    }

    /// A script of `responses`, named `source_name` in errors.
    ///
    /// # Errors
    ///
    /// [`ScriptError::Shape`] for an empty script, or a response of an
    /// unknown shape or of another provider than the first.
    pub fn new(source_name: impl Into<String>, responses: Vec<Value>) -> Result<Self, ScriptError> {
        let source_name = source_name.into();
        let shape = |step: usize, expected: String, found: String| ScriptError::Shape {
            source_name: source_name.clone(),
            step,
            expected,
            found,
        };
        let first = responses
            .first()
            .ok_or_else(|| shape(0, "at least one response".into(), "an empty array".into()))?;
        let provider = detect_provider(first)
            .ok_or_else(|| shape(1, parse::ANY_PROVIDER.into(), parse::kind_of(first)))?;
        let mut turns = Vec::with_capacity(responses.len());
        for (i, response) in responses.into_iter().enumerate() {
            let step = i + 1;
            let (text, calls) = parse::turn(provider, &response)
                .map_err(|(expected, found)| shape(step, expected, found))?;
            turns.push(Turn {
                step,
                text,
                calls,
                response,
            });
        }
        Ok(ScriptedModel {
            source: source_name,
            provider,
            turns,
            next: 0,
            pending: Vec::new(),
            sent: Vec::new(),
        })
    }

    /// The provider the script's responses are from: the shape
    /// [`ToolCall::for_provider`](mcpbind_toolbox::ToolCall::for_provider)
    /// answers in.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// The next response, parsed.
    ///
    /// # Errors
    ///
    /// [`ScriptError::Unanswered`] when a call of the last response has no
    /// result yet; [`ScriptError::Exhausted`] after the last response.
    pub fn respond(&mut self) -> Result<Turn, ScriptError> {
        if !self.pending.is_empty() {
            return Err(ScriptError::Unanswered {
                source_name: self.source.clone(),
                step: self.next,
                unanswered: self
                    .pending
                    .iter()
                    .map(|c| format!("`{}` ({})", c.name, display_id(&c.id)))
                    .collect(),
            });
        }
        let Some(turn) = self.turns.get(self.next) else {
            return Err(ScriptError::Exhausted {
                source_name: self.source.clone(),
                steps: self.turns.len(),
                asked: self.next + 1,
            });
        };
        self.next += 1;
        self.pending = turn.calls.clone();
        Ok(turn.clone())
    }

    /// Takes the agent's result for a call of the last response (its id,
    /// or for a Gemini call without one, its name, says which) and records
    /// it.
    ///
    /// # Errors
    ///
    /// [`ScriptError::Unexpected`] when it answers no pending call: the
    /// result is in another provider's shape, or its call was answered
    /// already or never made.
    pub fn send(&mut self, result: ProviderResult) -> Result<(), ScriptError> {
        let answered = parse::answered(self.provider, &result.message);
        let at = answered.as_ref().and_then(|(id, name)| {
            self.pending.iter().position(|c| match id {
                Some(id) => c.id == *id,
                None => c.id.is_empty() && name.as_deref() == Some(c.name.as_str()),
            })
        });
        let Some(at) = at else {
            return Err(ScriptError::Unexpected {
                source_name: self.source.clone(),
                step: self.next,
                expected: format!(
                    "{} answering {}",
                    parse::result_shape(self.provider),
                    if self.pending.is_empty() {
                        "nothing (no call is pending)".to_owned()
                    } else {
                        self.pending
                            .iter()
                            .map(|c| format!("`{}` ({})", c.name, display_id(&c.id)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ),
                got: result.message.to_string(),
            });
        };
        let call = self.pending.remove(at);
        self.sent.push(Sent {
            step: self.next,
            call,
            result,
        });
        Ok(())
    }

    /// Everything the agent sent back, in the order it was sent.
    pub fn sent(&self) -> &[Sent] {
        &self.sent
    }

    /// What was sent for the calls of step `step` (from 1).
    pub fn sent_for(&self, step: usize) -> impl Iterator<Item = &Sent> {
        self.sent.iter().filter(move |r| r.step == step)
    }

    /// How many responses were handed out.
    pub fn steps_taken(&self) -> usize {
        self.next
    }

    /// Whether every response was handed out and every call answered.
    pub fn is_done(&self) -> bool {
        self.next == self.turns.len() && self.pending.is_empty()
    }
}

fn display_id(id: &str) -> String {
    if id.is_empty() {
        "no id".into()
    } else {
        format!("id `{id}`")
    }
}

/// serde_json's " at line L column C" is in the error's fields already.
fn strip_position(message: &str) -> String {
    message
        .rfind(" at line ")
        .map_or(message, |at| &message[..at])
        .to_owned()
}
