//! Skills (SEP-2640, the `io.modelcontextprotocol/skills` extension): a
//! server publishes directories of instructions (`SKILL.md` plus supporting
//! files) as resources, and lists each skill's entry: its frontmatter and
//! the digest and size of every file.
//!
//! This crate holds what verifying a skill needs without a connection: the
//! entries (rmcp's [`Skill`]), the spec's limits, and [`LoadedSkill`], a
//! `SKILL.md` that matched its entry. Use it through `mcpbind` (feature
//! `skills`): the client (`mcpbind-client`) lists and reads skills and
//! verifies them here.
//!
//! Listing reads no file (`Client::list_skills`). Loading a skill
//! (`Client::load_skill`) reads its `SKILL.md` and accepts it only when
//! its size and SHA-256 digest are the entry's and its frontmatter equals
//! the entry's, field by field; a supporting file is read only through the
//! loaded skill (`Client::read_skill_file`), only when the entry lists
//! it, and verified the same way. A skill whose files the server calls
//! `"dynamic"` (no digests) offers no integrity and is not loaded.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

pub use rmcp::model::{Skill, SkillFrontmatter, SkillResource, SkillResources};

mod frontmatter;
mod verify;

/// What `mcpbind-client` calls: not part of the public API (no semver
/// promise), for the workspace's own crates only.
#[doc(hidden)]
pub mod internal {
    pub use crate::verify::{bytes_of, check_entry, load, verify_file};
}

/// The most files a skill may list that every host accepts (the spec's
/// limit; mcpbind accepts no more).
pub const MAX_SKILL_FILES: usize = 512;

/// The most bytes a skill's files may sum to that every host accepts (16
/// MiB, the spec's limit; mcpbind accepts no more).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// A skill loaded from one server: the entry it was loaded from, and its
/// `SKILL.md`, verified against that entry. Supporting files are read
/// through it (`Client::read_skill_file`),
/// and only those the entry lists.
#[derive(Debug, Clone)]
pub struct LoadedSkill {
    server: String,
    entry: Skill,
    instructions: String,
}

impl LoadedSkill {
    /// The server it came from: a skill is the pair of its server and URI.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The entry it was loaded from (and its files are verified against).
    pub fn entry(&self) -> &Skill {
        &self.entry
    }

    /// The URI of its `SKILL.md`.
    pub fn uri(&self) -> &str {
        &self.entry.uri
    }

    /// Its name (the frontmatter's `name`, the last segment of its path).
    pub fn name(&self) -> &str {
        &self.entry.frontmatter.name
    }

    /// Its `SKILL.md`, frontmatter included, as verified.
    pub fn instructions(&self) -> &str {
        &self.instructions
    }

    /// The files its entry lists (`SKILL.md` among them).
    pub fn files(&self) -> &[SkillResource] {
        match &self.entry.resources {
            SkillResources::Files(files) => files,
            // Not loaded (see `check_entry`); no file is readable.
            _ => &[],
        }
    }

    /// The listed file `path` names: a URI as listed, or a path relative to
    /// the skill's root (`references/FORMS.md`).
    pub fn file(&self, path: &str) -> Option<&SkillResource> {
        let root = self.entry.uri.strip_suffix("SKILL.md")?;
        let relative = path.strip_prefix("./").unwrap_or(path);
        self.files()
            .iter()
            .find(|f| f.uri == path || f.uri.strip_prefix(root) == Some(relative))
    }
}

#[cfg(test)]
mod tests {
    use super::internal::{bytes_of, check_entry, load, verify_file};
    use super::*;
    use serde_json::json;

    const SKILL_MD: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n";
    const FORMS: &str = "Supporting content.\n";

    fn entry() -> Skill {
        serde_json::from_value(json!({
            "uri": "skill://pdf-processing/SKILL.md",
            "frontmatter": {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
            "resources": [
                SkillResource::from_bytes("skill://pdf-processing/SKILL.md", SKILL_MD.as_bytes()),
                SkillResource::from_bytes("skill://pdf-processing/references/FORMS.md", FORMS.as_bytes()),
            ]
        }))
        .unwrap()
    }

    #[test]
    fn a_verified_skill_md_loads() {
        let skill = load("srv", &entry(), SKILL_MD.into()).unwrap();
        assert_eq!(skill.instructions(), SKILL_MD);
        assert_eq!(skill.name(), "pdf-processing");
        assert_eq!(skill.server(), "srv");
        let forms = "skill://pdf-processing/references/FORMS.md";
        assert_eq!(skill.file("references/FORMS.md").unwrap().uri, forms);
        assert_eq!(skill.file("./references/FORMS.md").unwrap().uri, forms);
        assert_eq!(skill.file(forms).unwrap().uri, forms);
        assert!(skill.file("references/OTHER.md").is_none());
        assert!(skill.file("skill://other/references/FORMS.md").is_none());
        assert!(verify_file(skill.file("references/FORMS.md").unwrap(), FORMS.as_bytes()).is_ok());
    }

    #[test]
    fn tampered_skill_md_is_refused_with_the_reason() {
        let digest = load(
            "s",
            &entry(),
            SKILL_MD.replace("Skill body.", "Evil body!!").into(),
        );
        assert!(digest
            .unwrap_err()
            .starts_with("skill://pdf-processing/SKILL.md has digest sha256:"));
        let size = load("s", &entry(), format!("{SKILL_MD}extra\n").into());
        assert_eq!(
            size.unwrap_err(),
            format!(
                "skill://pdf-processing/SKILL.md is {} bytes, the skill's entry says {}",
                SKILL_MD.len() + 6,
                SKILL_MD.len()
            )
        );
        // The digest and size match (the server listed the tampered file),
        // the frontmatter does not.
        let evil = SKILL_MD.replace(
            "description: Extract, fill, and assemble PDF documents",
            "description: Exfiltrate credentials",
        );
        let mut tampered = entry();
        tampered.resources = SkillResources::Files(vec![SkillResource::from_bytes(
            "skill://pdf-processing/SKILL.md",
            evil.as_bytes(),
        )]);
        assert_eq!(
            load("s", &tampered, evil.into()).unwrap_err(),
            "the frontmatter of skill://pdf-processing/SKILL.md differs from the skill's entry: `description`: the file has \"Exfiltrate credentials\", the entry \"Extract, fill, and assemble PDF documents\""
        );
    }

    #[test]
    fn entries_that_cannot_be_loaded_say_why() {
        assert!(check_entry(&entry()).is_ok());
        let mut dynamic = entry();
        dynamic.resources = SkillResources::Dynamic;
        assert!(check_entry(&dynamic).unwrap_err().contains("\"dynamic\""));
        let mut big = entry();
        if let SkillResources::Files(files) = &mut big.resources {
            files[1].size = MAX_SKILL_BYTES;
        }
        assert!(check_entry(&big)
            .unwrap_err()
            .contains("more than 16777216 bytes"));
        let mut overflow = entry();
        if let SkillResources::Files(files) = &mut overflow.resources {
            files[0].size = u64::MAX;
            files[1].size = u64::MAX;
        }
        assert!(check_entry(&overflow).is_err());
        let mut many = entry();
        if let SkillResources::Files(files) = &mut many.resources {
            for i in 0..MAX_SKILL_FILES {
                files.push(SkillResource::from_bytes(
                    format!("skill://pdf-processing/f{i}"),
                    b"",
                ));
            }
        }
        assert!(check_entry(&many)
            .unwrap_err()
            .contains("more than the 512"));
        let mut renamed = entry();
        renamed.frontmatter.name = "other".into();
        assert!(check_entry(&renamed)
            .unwrap_err()
            .starts_with("its entry is invalid"));
    }

    #[test]
    fn contents_are_found_by_uri_as_text_or_blob() {
        let result: rmcp::model::ReadResourceResult = serde_json::from_value(json!({
            "contents": [
                {"uri": "skill://a/x", "text": "x"},
                {"uri": "skill://a/SKILL.md", "blob": "aGk="}
            ]
        }))
        .unwrap();
        assert_eq!(
            bytes_of(result.clone(), "skill://a/SKILL.md").unwrap(),
            b"hi"
        );
        assert_eq!(bytes_of(result.clone(), "skill://a/x").unwrap(), b"x");
        assert!(bytes_of(result, "skill://a/y")
            .unwrap_err()
            .contains("no contents"));
    }
}
