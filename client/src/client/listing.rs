//! Listing what the server offers: its tools, prompts and resource
//! templates as raw JSON (every page, malformed entries skipped and said),
//! its concrete resources as rmcp's types, and its capabilities. (Skills
//! are listed in `client/skills.rs`, behind the `skills` feature.)

use std::sync::Arc;

use rmcp::model::{
    ClientRequest, ListPromptsRequest, ListResourceTemplatesRequest, ListResourcesRequest,
    ListToolsRequest, PaginatedRequestParams, Resource, ServerResult,
};
use rmcp::{Peer, RoleClient, ServiceError};
use serde_json::Value;

use super::{Client, Wait};
use crate::connect::{id_key, Session};
use crate::error::Result;
use mcpbind_model::lock::EntryKind;

impl Client {
    /// Lists the server's tools exactly as it sent them: every page, the raw
    /// JSON of each tool (unknown fields kept), and no client-side cache.
    /// Malformed tools are skipped (see [`Client::list_tools_checked`]).
    ///
    /// # Errors
    ///
    /// Those of connecting, a failed request: [`Error::Closed`](crate::Error::Closed) when the
    /// connection is lost, [`Error::Timeout`](crate::Error::Timeout) or [`Error::TimeLimit`](crate::Error::TimeLimit) when the
    /// server does not answer in time, [`Error::Service`](crate::Error::Service) for an error the
    /// server answers with, and [`Error::Pagination`](crate::Error::Pagination) for pages that do not
    /// end.
    pub async fn list_tools_raw(&self) -> Result<Vec<Value>> {
        Ok(self.list_tools_checked().await?.0)
    }

    /// [`Client::list_tools_raw`], and one line per malformed tool it
    /// skipped (which tool, what is wrong).
    ///
    /// # Errors
    ///
    /// Those of [`Client::list_tools_raw`].
    pub async fn list_tools_checked(&self) -> Result<(Vec<Value>, Vec<String>)> {
        self.list_checked(EntryKind::Tool).await
    }

    /// Lists the server's prompts (`prompts/list`) exactly as it sent them,
    /// every page, and one line per malformed prompt it skipped. Empty when
    /// the server declares no `prompts` capability.
    ///
    /// # Errors
    ///
    /// Those of [`Client::list_tools_raw`].
    pub async fn list_prompts_checked(&self) -> Result<(Vec<Value>, Vec<String>)> {
        if !self.has_capability(|c| c.prompts.is_some()).await? {
            return Ok((Vec::new(), Vec::new()));
        }
        self.list_checked(EntryKind::Prompt).await
    }

    /// Lists the server's resource templates (`resources/templates/list`)
    /// exactly as it sent them, every page, and one line per malformed one
    /// it skipped. Empty when the server declares no `resources` capability.
    ///
    /// # Errors
    ///
    /// Those of [`Client::list_tools_raw`].
    pub async fn list_resource_templates_checked(&self) -> Result<(Vec<Value>, Vec<String>)> {
        if !self.has_capability(|c| c.resources.is_some()).await? {
            return Ok((Vec::new(), Vec::new()));
        }
        self.list_checked(EntryKind::ResourceTemplate).await
    }

    /// Whether the server declared `completions` (answers
    /// `completion/complete`).
    ///
    /// # Errors
    ///
    /// Those of connecting ([`Client::connect`]), when the client was not
    /// connected yet.
    pub async fn supports_completions(&self) -> Result<bool> {
        self.has_capability(|c| c.completions.is_some()).await
    }

    pub(super) async fn has_capability(
        &self,
        has: impl Fn(&rmcp::model::ServerCapabilities) -> bool,
    ) -> Result<bool> {
        Ok(has(&self.server_info().await?.capabilities))
    }

    pub(super) async fn list_checked(&self, kind: EntryKind) -> Result<(Vec<Value>, Vec<String>)> {
        let session = Arc::clone(&self.live().await?.session);
        let peer = session.service.peer().clone();
        if let Some(tap) = &session.tap {
            tap.arm(true);
        }
        let result = self.list_pages(&session, &peer, kind).await;
        if let Some(tap) = &session.tap {
            tap.arm(false);
            if let (EntryKind::Tool, Ok((tools, _))) = (kind, &result) {
                self.shared.handler.tool_schemas.listed(tools);
            }
        }
        result
    }

    pub(super) async fn list_pages(
        &self,
        session: &Arc<Session>,
        peer: &Peer<RoleClient>,
        kind: EntryKind,
    ) -> Result<(Vec<Value>, Vec<String>)> {
        let (mut tools, mut skipped) = (Vec::new(), Vec::new());
        let mut cursor = None;
        let mut pages = crate::paging::PageBound::new(&self.name, kind.method());
        let method = kind.method();
        loop {
            let params = cursor
                .clone()
                .map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
            let request = list_request(kind, params);
            let handle = self.send(session, peer, request, method).await?;
            let id = serde_json::to_value(&handle.id).unwrap_or(Value::Null);
            let response = self
                .await_handle(session, handle, method, Wait::plain(self.config.timeout))
                .await?;
            let raw = session.tap.as_ref().and_then(|tap| tap.take(&id_key(&id)));
            let first = tools.len() + skipped.len();
            let page = crate::connect::tools::read_page(&self.name, kind, response, raw, first)?;
            pages.add(&page.tools)?;
            tools.extend(page.tools);
            skipped.extend(page.skipped);
            match page.next_cursor {
                Some(next) => cursor = Some(pages.next(next)?),
                None => break,
            }
        }
        Ok((tools, skipped))
    }

    /// Lists the server's concrete resources (`resources/list`, every
    /// page). They are data, not schema: the lockfile does not keep them.
    ///
    /// # Errors
    ///
    /// Those of connecting, a failed request: [`Error::Closed`](crate::Error::Closed) when the
    /// connection is lost, [`Error::Timeout`](crate::Error::Timeout) or [`Error::TimeLimit`](crate::Error::TimeLimit) when the
    /// server does not answer in time, [`Error::Service`](crate::Error::Service) for an error the
    /// server answers with, and [`Error::Pagination`](crate::Error::Pagination) for pages that do not
    /// end.
    pub async fn list_resources(&self) -> Result<Vec<Resource>> {
        self.every_page(
            "resources/list",
            |params| {
                ClientRequest::ListResourcesRequest(ListResourcesRequest {
                    method: Default::default(),
                    params,
                    extensions: Default::default(),
                })
            },
            |answer| match answer {
                ServerResult::ListResourcesResult(page) => Some((page.resources, page.next_cursor)),
                _ => None,
            },
        )
        .await
    }

    /// Every page of a typed list (`request` makes the request for a page,
    /// `page` reads its entries and next cursor), bounded in pages and
    /// bytes.
    pub(super) async fn every_page<T: serde::Serialize>(
        &self,
        method: &str,
        request: impl Fn(Option<PaginatedRequestParams>) -> ClientRequest,
        page: impl Fn(ServerResult) -> Option<(Vec<T>, Option<String>)>,
    ) -> Result<Vec<T>> {
        let mut entries = Vec::new();
        let mut cursor = None;
        let mut pages = crate::paging::PageBound::new(&self.name, method);
        loop {
            let params = cursor
                .take()
                .map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
            let answer = self.request(request(params), method).await?;
            let Some((found, next)) = page(answer) else {
                return Err(self.service_error(method, ServiceError::UnexpectedResponse));
            };
            pages.add(&found)?;
            entries.extend(found);
            match next {
                Some(next) => cursor = Some(pages.next(next)?),
                None => return Ok(entries),
            }
        }
    }
}

/// The request for one page of a list.
pub(super) fn list_request(
    kind: EntryKind,
    params: Option<PaginatedRequestParams>,
) -> ClientRequest {
    match kind {
        EntryKind::Tool => ClientRequest::ListToolsRequest(ListToolsRequest {
            method: Default::default(),
            params,
            extensions: Default::default(),
        }),
        EntryKind::Prompt => ClientRequest::ListPromptsRequest(ListPromptsRequest {
            method: Default::default(),
            params,
            extensions: Default::default(),
        }),
        EntryKind::ResourceTemplate => {
            ClientRequest::ListResourceTemplatesRequest(ListResourceTemplatesRequest {
                method: Default::default(),
                params,
                extensions: Default::default(),
            })
        }
    }
}
