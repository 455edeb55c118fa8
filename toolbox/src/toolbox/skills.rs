//! Skills as context (opt-in, SEP-2640): a catalog of the servers' skills
//! for a system prompt ([`Toolbox::skills`], [`skill_catalog`]), reading no
//! skill file; and a skill loaded when it is needed
//! ([`Toolbox::load_skill`]), its `SKILL.md` verified against its entry.
//!
//! A skill is the pair of its server and its URI: the catalog names the
//! server of each, so that two servers' skills of one name stay apart.

use std::fmt::Write as _;

use super::{Toolbox, ToolboxError};
use mcpbind_client::skills::{LoadedSkill, Skill};

/// One skill a server of the toolbox lists: the server, and the skill's
/// entry (no file of it read).
#[derive(Debug, Clone)]
pub struct SkillEntry {
    /// The server's name in the config.
    pub server: String,
    /// The skill's entry (`skills/list`).
    pub skill: Skill,
}

impl Toolbox {
    /// Opt-in: the skills of `servers` (`skills/list` on each, every page;
    /// none for a server that does not declare the skills extension). No
    /// skill file is read.
    ///
    /// ```no_run
    /// # async fn run(tools: &mcpbind::Toolbox) -> Result<(), mcpbind::ToolboxError> {
    /// let skills = tools.skills(&["docs"]).await?;
    /// let preamble = mcpbind::toolbox::skill_catalog(&skills);
    /// // When the model asks for one:
    /// let skill = tools.load_skill("docs", &skills[0].skill.uri).await?;
    /// println!("{}", skill.instructions());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// A server is not in the toolbox, or listing failed (naming it).
    pub async fn skills(&self, servers: &[&str]) -> Result<Vec<SkillEntry>, ToolboxError> {
        let mut entries = Vec::new();
        for name in servers {
            let server = self.skill_server(name)?;
            let listed =
                server
                    .client
                    .list_skills()
                    .await
                    .map_err(|source| ToolboxError::Resource {
                        server: server.name.clone(),
                        uri: None,
                        source: Box::new(source),
                    })?;
            entries.extend(listed.into_iter().map(|skill| SkillEntry {
                server: server.name.clone(),
                skill,
            }));
        }
        Ok(entries)
    }

    /// Opt-in: loads skill `uri` (its `SKILL.md`) of `server`: its entry is
    /// got (`skills/get`), then its `SKILL.md` read and accepted only when
    /// its size, digest and frontmatter are the entry's
    /// ([`Client::load_skill`](mcpbind_client::Client::load_skill)). Its
    /// [`instructions`](LoadedSkill::instructions) go to the model; its
    /// other files are read through the server's client
    /// ([`Client::read_skill_file`](mcpbind_client::Client::read_skill_file)).
    ///
    /// # Errors
    ///
    /// The server is not in the toolbox, or the skill could not be loaded
    /// (naming the server, the skill's URI and why: a digest or size that
    /// is not the entry's, frontmatter that differs from it…).
    pub async fn load_skill(&self, server: &str, uri: &str) -> Result<LoadedSkill, ToolboxError> {
        let slot = self.skill_server(server)?;
        slot.client
            .load_skill_uri(uri)
            .await
            .map_err(|source| ToolboxError::Resource {
                server: slot.name.clone(),
                uri: Some(uri.to_owned()),
                source: Box::new(source),
            })
    }

    fn skill_server(&self, name: &str) -> Result<&super::ServerSlot, ToolboxError> {
        self.servers
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| ToolboxError::UnknownServer {
                server: name.to_owned(),
            })
    }
}

/// A catalog of `skills` for a system prompt, one line each: its server,
/// name, URI and description, so that a model can ask for one by server
/// and URI ([`Toolbox::load_skill`]). Empty when there is none.
pub fn skill_catalog(skills: &[SkillEntry]) -> String {
    if skills.is_empty() {
        return String::new();
    }
    let mut out =
        String::from("# Skills\n\nLoad a skill (by its server and URI) before you follow it.\n\n");
    for entry in skills {
        let skill = &entry.skill;
        // One line each: a description never breaks the list.
        let description = skill.frontmatter.description.replace(['\n', '\r'], " ");
        let _ = writeln!(
            out,
            "- `{}` (server `{}`, {}): {}",
            skill.frontmatter.name, entry.server, skill.uri, description
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_names_each_skills_server() {
        let skill = |name: &str, description: &str| -> Skill {
            serde_json::from_value(serde_json::json!({
                "uri": format!("skill://{name}/SKILL.md"),
                "frontmatter": {"name": name, "description": description},
                "resources": "dynamic"
            }))
            .unwrap()
        };
        let entries = [
            SkillEntry {
                server: "a".into(),
                skill: skill("refunds", "Process refunds"),
            },
            SkillEntry {
                server: "b".into(),
                skill: skill("refunds", "Two\nlines"),
            },
        ];
        assert_eq!(
            skill_catalog(&entries),
            "# Skills\n\nLoad a skill (by its server and URI) before you follow it.\n\n- `refunds` (server `a`, skill://refunds/SKILL.md): Process refunds\n- `refunds` (server `b`, skill://refunds/SKILL.md): Two lines\n"
        );
        assert_eq!(skill_catalog(&[]), "");
    }
}
