//! Skills (SEP-2640, feature `skills`): listing them, loading them and
//! reading their files, verified against the skill's entry by
//! `mcpbind-skills` ([`crate::skills`]), which has the rules.
//!
//! ```no_run
//! # async fn run(client: mcpbind_client::Client) -> mcpbind_client::Result<()> {
//! for entry in client.list_skills().await? {
//!     println!("{}: {}", entry.frontmatter.name, entry.frontmatter.description);
//! }
//! let skill = client.load_skill_uri("skill://pdf-processing/SKILL.md").await?;
//! println!("{}", skill.instructions());
//! let forms = client.read_skill_file(&skill, "references/FORMS.md").await?;
//! # let _ = forms;
//! # Ok(())
//! # }
//! ```

use rmcp::model::{
    ClientRequest, GetSkillRequest, GetSkillRequestParams, ListSkillsRequest, ServerResult,
};
use rmcp::ServiceError;

use super::Client;
use crate::error::{Error, Result};
use mcpbind_skills::internal::{bytes_of, check_entry, load, verify_file};
use mcpbind_skills::{LoadedSkill, Skill};

impl Client {
    /// Lists the server's skills (SEP-2640 `skills/list`, every page): each
    /// skill's entry (URI, frontmatter, and the digest and size of its
    /// files). No skill file is read: a caller reads one
    /// ([`Client::read_resource`]) when it loads that skill. Empty when the
    /// server does not declare the skills extension.
    ///
    /// # Errors
    ///
    /// Those of connecting, a failed request: [`Error::Closed`] when the
    /// connection is lost, [`Error::Timeout`] or [`Error::TimeLimit`] when the
    /// server does not answer in time, [`Error::Service`] for an error the
    /// server answers with, and [`Error::Pagination`] for pages that do not
    /// end.
    pub async fn list_skills(&self) -> Result<Vec<Skill>> {
        if !self
            .has_capability(rmcp::model::ServerCapabilities::supports_skills)
            .await?
        {
            return Ok(Vec::new());
        }
        self.every_page(
            "skills/list",
            |params| {
                ClientRequest::ListSkillsRequest(ListSkillsRequest {
                    method: Default::default(),
                    params,
                    extensions: Default::default(),
                })
            },
            |answer| match answer {
                ServerResult::ListSkillsResult(page) => Some((page.skills, page.next_cursor)),
                _ => None,
            },
        )
        .await
    }

    /// The entry of one skill (SEP-2640 `skills/get`), named by the URI of
    /// its `SKILL.md`: for a skill that the listing left out, or to refresh
    /// one. No file is read.
    ///
    /// # Errors
    ///
    /// Those of connecting, a failed request: [`Error::Closed`] when the
    /// connection is lost, [`Error::Timeout`] or [`Error::TimeLimit`] when the
    /// server does not answer in time, [`Error::Service`] for an error the
    /// server answers with, and [`Error::Invalid`] for an answer that is not a
    /// skill.
    pub async fn get_skill(&self, uri: &str) -> Result<Skill> {
        let method = "skills/get";
        let request =
            ClientRequest::GetSkillRequest(GetSkillRequest::new(GetSkillRequestParams::new(uri)));
        match self.request(request, method).await? {
            ServerResult::GetSkillResult(result) => Ok(result.skill),
            _ => Err(self.service_error(method, ServiceError::UnexpectedResponse)),
        }
    }

    /// Loads the skill `entry` describes (from [`Client::list_skills`] or
    /// [`Client::get_skill`]): reads its `SKILL.md` and keeps it only when
    /// its size, digest and frontmatter are the entry's. A skill whose
    /// entry is invalid, over the spec's limits, or `"dynamic"` is not
    /// read at all. Every refusal is [`Error::Refused`], naming the skill
    /// and why; the skill is then not loaded.
    ///
    /// # Errors
    ///
    /// Those of [`Client::load_skill_uri`], and [`Error::Invalid`] when the
    /// loaded `SKILL.md` is not the entry's (size, digest, frontmatter).
    pub async fn load_skill(&self, entry: &Skill) -> Result<LoadedSkill> {
        let refused = |why| self.skill_refused(&entry.uri, format!("not loaded: {why}"));
        check_entry(entry).map_err(refused)?;
        let bytes = self.read_skill_bytes(&entry.uri).await?;
        load(self.server_name(), entry, bytes).map_err(refused)
    }

    /// [`Client::load_skill`] for the skill at `uri` (its `SKILL.md`),
    /// whose entry is asked for first ([`Client::get_skill`]).
    ///
    /// # Errors
    ///
    /// Those of connecting, a failed request: [`Error::Closed`] when the
    /// connection is lost, [`Error::Timeout`] or [`Error::TimeLimit`] when the
    /// server does not answer in time, [`Error::Service`] for an error the
    /// server answers with, and [`Error::Invalid`] for a `SKILL.md` that is not
    /// a skill.
    pub async fn load_skill_uri(&self, uri: &str) -> Result<LoadedSkill> {
        let entry = self.get_skill(uri).await?;
        if entry.uri != uri {
            let why = format!(
                "not loaded: `skills/get` answered with the entry of {}",
                entry.uri
            );
            return Err(self.skill_refused(uri, why));
        }
        self.load_skill(&entry).await
    }

    /// Reads a file of a loaded skill (`path` relative to its root, or its
    /// URI), verified against the entry the skill was loaded from. A file
    /// the entry does not list is not read: the skill changed, and its
    /// entry must be fetched again.
    ///
    /// # Errors
    ///
    /// Those of connecting, a failed request: [`Error::Closed`] when the
    /// connection is lost, [`Error::Timeout`] or [`Error::TimeLimit`] when the
    /// server does not answer in time, [`Error::Service`] for an error the
    /// server answers with, and [`Error::Invalid`] for a path outside the skill
    /// or contents that are not a file.
    pub async fn read_skill_file(&self, skill: &LoadedSkill, path: &str) -> Result<Vec<u8>> {
        if skill.server() != self.server_name() {
            let why = format!(
                "no file read: it was loaded from server `{}`",
                skill.server()
            );
            return Err(self.skill_refused(skill.uri(), why));
        }
        let Some(file) = skill.file(path) else {
            let why = format!(
                "`{path}` not read: the entry it was loaded from does not list it (an unlisted file fails verification; load the skill again)"
            );
            return Err(self.skill_refused(skill.uri(), why));
        };
        let bytes = self.read_skill_bytes(&file.uri).await?;
        verify_file(file, &bytes)
            .map_err(|why| self.skill_refused(skill.uri(), format!("`{path}` refused: {why}")))?;
        Ok(bytes)
    }

    async fn read_skill_bytes(&self, uri: &str) -> Result<Vec<u8>> {
        let result = self.read_resource(uri).await?;
        bytes_of(result, uri).map_err(|why| Error::Invalid {
            server: self.server_name().to_owned(),
            method: "resources/read".to_owned(),
            reason: why,
        })
    }

    fn skill_refused(&self, uri: &str, why: String) -> Error {
        Error::Refused {
            server: self.server_name().to_owned(),
            reason: format!("skill {uri}: {why}"),
        }
    }
}
