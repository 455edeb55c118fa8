//! The checks of a skill that need no connection: an entry against the
//! spec's rules and limits, a file against its entry's size and digest, a
//! `SKILL.md`'s frontmatter against its entry's, and the bytes of a
//! `resources/read` answer. `mcpbind-client` reads the files and calls
//! these (through [`crate::internal`]).

use serde_json::Value;

use crate::{frontmatter, LoadedSkill, MAX_SKILL_BYTES, MAX_SKILL_FILES};
use rmcp::model::{Skill, SkillResource, SkillResources};

/// Why `entry` can't be loaded, if it can't: it breaks a structural rule
/// of the spec, is over the limits, or is `"dynamic"`.
///
/// # Errors
///
/// The rule the entry breaks, as text.
pub fn check_entry(entry: &Skill) -> Result<(), String> {
    entry
        .validate()
        .map_err(|e| format!("its entry is invalid: {e}"))?;
    let SkillResources::Files(files) = &entry.resources else {
        return Err(
            "its files are \"dynamic\": the server publishes no digests, so nothing it sends can be verified"
                .to_owned(),
        );
    };
    if files.len() > MAX_SKILL_FILES {
        return Err(format!(
            "its entry lists {} files, more than the {MAX_SKILL_FILES} a host must accept",
            files.len()
        ));
    }
    let total = files
        .iter()
        .try_fold(0u64, |sum, f| sum.checked_add(f.size));
    match total {
        Some(total) if total <= MAX_SKILL_BYTES => Ok(()),
        _ => Err(format!(
            "its files add up to more than {MAX_SKILL_BYTES} bytes, the most a host must accept"
        )),
    }
}

/// Checks `bytes`, read from `file`'s URI, against the entry's size and
/// digest.
///
/// # Errors
///
/// Why the file is refused, as text: its size or digest differs.
pub fn verify_file(file: &SkillResource, bytes: &[u8]) -> Result<(), String> {
    file.verify(bytes).map_err(|e| match e {
        rmcp::model::SkillIntegrityError::Size {
            expected, actual, ..
        } => format!(
            "{} is {actual} bytes, the skill's entry says {expected}",
            file.uri
        ),
        rmcp::model::SkillIntegrityError::Digest { actual, .. } => format!(
            "{} has digest {actual}, the skill's entry says {}",
            file.uri, file.digest
        ),
        other => other.to_string(),
    })
}

/// Verifies a `SKILL.md` read for `entry` and makes the loaded skill.
///
/// # Errors
///
/// Why the file is refused, as text: the entry does not list it, its size
/// or digest is not the entry's, it is not UTF-8, or its frontmatter does
/// not parse or differs from the entry's.
pub fn load(server: &str, entry: &Skill, bytes: Vec<u8>) -> Result<LoadedSkill, String> {
    let file = match &entry.resources {
        SkillResources::Files(files) => files.iter().find(|f| f.uri == entry.uri),
        _ => None,
    };
    let file = file.ok_or("its entry does not list its SKILL.md")?;
    verify_file(file, &bytes)?;
    let text = String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8", entry.uri))?;
    let parsed = frontmatter::parse(&text).map_err(|why| format!("{}: {why}", entry.uri))?;
    let listed = match serde_json::to_value(&entry.frontmatter) {
        Ok(Value::Object(map)) => map,
        _ => return Err("its entry's frontmatter is not an object".to_owned()),
    };
    let differences = frontmatter::differences(&parsed, &listed);
    if !differences.is_empty() {
        return Err(format!(
            "the frontmatter of {} differs from the skill's entry: {}",
            entry.uri,
            differences.join("; ")
        ));
    }
    Ok(LoadedSkill {
        server: server.to_owned(),
        entry: entry.clone(),
        instructions: text,
    })
}

/// The bytes of the contents `uri` names in a `resources/read` answer: a
/// text's UTF-8, or a blob's decoded Base64.
///
/// # Errors
///
/// Why not, as text: the answer holds no contents for `uri`, or a blob's
/// Base64 does not decode.
pub fn bytes_of(result: rmcp::model::ReadResourceResult, uri: &str) -> Result<Vec<u8>, String> {
    use base64::Engine as _;
    use rmcp::model::ResourceContents;
    let mut contents = result.contents.into_iter();
    let found = contents.find(|c| match c {
        ResourceContents::TextResourceContents { uri: u, .. }
        | ResourceContents::BlobResourceContents { uri: u, .. } => u == uri,
        _ => false,
    });
    match found {
        Some(ResourceContents::TextResourceContents { text, .. }) => Ok(text.into_bytes()),
        Some(ResourceContents::BlobResourceContents { blob, .. }) => {
            base64::engine::general_purpose::STANDARD
                .decode(blob.as_bytes())
                .map_err(|e| format!("the blob read from {uri} is not Base64: {e}"))
        }
        _ => Err(format!("reading {uri} returned no contents for that URI")),
    }
}
