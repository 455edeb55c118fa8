//! The CLI as a real process.
