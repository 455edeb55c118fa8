//! Concrete resources as context (opt-in): a server's `resources/list`,
//! each read (`resources/read`) and rendered into text for a system prompt,
//! within a size budget. What doesn't fit is named, not dropped: the
//! rendering ends with the resources left out.
//!
//! A rendering is a snapshot: [`Toolbox::subscribe_context`] subscribes to
//! the resources it renders, so that a host hears
//! ([`Notice::ResourceUpdated`](mcpbind_client::notices::Notice::ResourceUpdated)) when to
//! render it again.

use std::fmt::Write as _;

use super::templates::render_contents;
use super::{Toolbox, ToolboxError};

impl Toolbox {
    /// The concrete resources of `servers` (each listed with
    /// `resources/list`, every page, then read), rendered as Markdown for a
    /// system prompt, at most `budget` bytes: a resource whose rendering
    /// doesn't fit in what is left is named at the end instead (title, URI,
    /// MIME type), and so is every later one. A blob is a note of its MIME
    /// type and size, never its base64.
    ///
    /// ```no_run
    /// # async fn run(tools: &mcpbind::Toolbox) -> Result<(), mcpbind::ToolboxError> {
    /// let context = tools.resource_context(&["everything"], 16 * 1024).await?;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// A server is not in the toolbox, or listing or reading failed (naming
    /// the server, and the resource when a read failed).
    pub async fn resource_context(
        &self,
        servers: &[&str],
        budget: usize,
    ) -> Result<String, ToolboxError> {
        let mut out = String::from("# Resources\n");
        let mut left_out = Vec::new();
        for name in servers {
            let server = self
                .servers
                .iter()
                .find(|s| s.name == *name)
                .ok_or_else(|| ToolboxError::UnknownServer {
                    server: (*name).to_owned(),
                })?;
            let failed = |uri: Option<&str>, source| ToolboxError::Resource {
                server: server.name.clone(),
                uri: uri.map(str::to_owned),
                source: Box::new(source),
            };
            let listed = server
                .client
                .list_resources()
                .await
                .map_err(|e| failed(None, e))?;
            for resource in listed {
                let heading = format!(
                    "`{}` <{}>{}",
                    resource.title.as_deref().unwrap_or(&resource.name),
                    resource.uri,
                    resource
                        .mime_type
                        .as_deref()
                        .map(|m| format!(" ({m})"))
                        .unwrap_or_default()
                );
                if !left_out.is_empty() {
                    left_out.push(heading);
                    continue;
                }
                let read = server
                    .client
                    .read_resource(&resource.uri)
                    .await
                    .map_err(|e| failed(Some(&resource.uri), e))?;
                let section = format!(
                    "\n## {}: {heading}\n\n{}\n",
                    server.name,
                    render_contents(&read)
                );
                if out.len() + section.len() + LEFT_OUT_RESERVE > budget {
                    left_out.push(heading);
                } else {
                    out.push_str(&section);
                }
            }
        }
        if !left_out.is_empty() {
            let _ = write!(
                out,
                "\nLeft out (over the budget of {budget} bytes): {}\n",
                left_out.join(", ")
            );
        }
        Ok(out)
    }
}

impl Toolbox {
    /// Subscribes to one resource of `server` (`resources/subscribe`): each
    /// update reaches the bus ([`subscribe_notices`](mcpbind_client::notices::subscribe))
    /// as a [`Notice::ResourceUpdated`](mcpbind_client::notices::Notice::ResourceUpdated).
    ///
    /// # Errors
    ///
    /// The server is not in the toolbox, or subscribing failed (the server
    /// offers no subscriptions, …).
    pub async fn subscribe_resource(&self, server: &str, uri: &str) -> Result<(), ToolboxError> {
        let slot = self.server_slot(server)?;
        slot.client
            .subscribe_resource(uri)
            .await
            .map_err(|e| ToolboxError::Subscribe {
                server: server.to_owned(),
                uri: uri.to_owned(),
                source: Box::new(e),
            })
    }

    /// Subscribes to every concrete resource of `servers` (what
    /// [`resource_context`](Self::resource_context) renders), so that a
    /// host hears when to render it again:
    ///
    /// ```no_run
    /// # async fn run(tools: &mcpbind::Toolbox) -> Result<(), mcpbind::ToolboxError> {
    /// let mut notices = mcpbind::subscribe_notices();
    /// tools.subscribe_context(&["everything"]).await?;
    /// let mut context = tools.resource_context(&["everything"], 16 * 1024).await?;
    /// while let Some(notice) = notices.recv().await {
    ///     if let mcpbind::Notice::ResourceUpdated { server, .. } = &*notice {
    ///         if server == "everything" {
    ///             context = tools.resource_context(&["everything"], 16 * 1024).await?;
    ///         }
    ///     }
    /// }
    /// # let _ = context;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// Returns how many resources were subscribed to.
    ///
    /// # Errors
    ///
    /// A server is not in the toolbox, or listing or subscribing failed
    /// (naming the server, and the resource when subscribing failed).
    pub async fn subscribe_context(&self, servers: &[&str]) -> Result<usize, ToolboxError> {
        let mut count = 0;
        for name in servers {
            let server = self.server_slot(name)?;
            let listed =
                server
                    .client
                    .list_resources()
                    .await
                    .map_err(|e| ToolboxError::Resource {
                        server: server.name.clone(),
                        uri: None,
                        source: Box::new(e),
                    })?;
            for resource in listed {
                self.subscribe_resource(name, &resource.uri).await?;
                count += 1;
            }
        }
        Ok(count)
    }

    fn server_slot(&self, server: &str) -> Result<&super::ServerSlot, ToolboxError> {
        self.servers
            .iter()
            .find(|s| s.name == server)
            .ok_or_else(|| ToolboxError::UnknownServer {
                server: server.to_owned(),
            })
    }
}

/// Room kept for the line naming what was left out (it is not counted
/// against the budget beyond this: nothing is dropped without a note).
const LEFT_OUT_RESERVE: usize = 80;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_server_and_the_resource() {
        let error = |uri: Option<&str>| ToolboxError::Resource {
            server: "docs".into(),
            uri: uri.map(str::to_owned),
            source: Box::new(mcpbind_client::Error::UnknownServer {
                server: "docs".into(),
            }),
        };
        assert_eq!(
            error(Some("file:///a")).to_string(),
            "resource `file:///a` of server `docs` could not be read"
        );
        assert_eq!(
            error(None).to_string(),
            "the resources of server `docs` could not be read"
        );
    }
}
