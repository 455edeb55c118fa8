//! `mcpbind login` and `mcpbind logout`: OAuth tokens of a server with
//! `auth = "oauth"`, stored per user outside the project.

use std::process::ExitCode;

use anyhow::Context as _;

use crate::Paths;

/// Authorize mcpbind with an OAuth server (opens a browser).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    paths: Paths,
    /// The server, with `auth = "oauth"` in the config.
    server: String,
    /// Print the authorization URL instead of opening a browser.
    #[arg(long)]
    no_browser: bool,
}

/// Remove the stored OAuth tokens of a server.
#[derive(Debug, clap::Args)]
pub struct LogoutArgs {
    #[command(flatten)]
    paths: Paths,
    /// The server.
    server: String,
}

/// Runs `mcpbind login`.
///
/// # Errors
///
/// When the server is not an OAuth server of the config, or the
/// authorization fails or times out.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let server = args.paths.load_server(&args.server)?;
    let no_browser = args.no_browser;
    crate::signal::block_on(mcpbind::auth::login(&args.server, &server, |url| {
        open_browser(url, no_browser)
    }))?
    .with_context(|| format!("failed to log in to server `{}`", args.server))?;
    crate::status!(
        "logged in to server `{}` (tokens stored in {})",
        args.server,
        mcpbind::auth::credentials_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_default()
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs `mcpbind logout`.
///
/// # Errors
///
/// When the server is not in the config, or its stored credentials can't
/// be removed.
pub fn run_logout(args: LogoutArgs) -> anyhow::Result<ExitCode> {
    let server = args.paths.load_server(&args.server)?;
    if mcpbind::auth::logout(&args.server, &server)? {
        crate::status!("logged out of server `{}`", args.server);
    } else {
        crate::status!("no stored tokens for server `{}`", args.server);
    }
    Ok(ExitCode::SUCCESS)
}

/// Shows the authorization URL, and opens it with `$BROWSER` (a command,
/// the URL appended), else the platform's opener when there is a display.
fn open_browser(url: &str, no_browser: bool) {
    crate::status!("Open this URL to authorize mcpbind:\n\n    {url}\n");
    if no_browser {
        return;
    }
    let browser = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty());
    let command: Option<Vec<String>> = match browser {
        Some(b) => Some(b.split_whitespace().map(str::to_owned).collect()),
        None if cfg!(target_os = "macos") => Some(vec!["open".into()]),
        None if cfg!(windows) => Some(vec!["explorer".into()]),
        None if std::env::var_os("DISPLAY").is_some()
            || std::env::var_os("WAYLAND_DISPLAY").is_some() =>
        {
            Some(vec!["xdg-open".into()])
        }
        None => None,
    };
    let Some((program, args)) = command.as_deref().and_then(|c| c.split_first()) else {
        return;
    };
    let spawned = std::process::Command::new(program)
        .args(args)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = spawned {
        crate::status!("(could not start `{program}`: {e}; open the URL yourself)");
    }
    crate::status!("Waiting for the browser to come back...");
}
