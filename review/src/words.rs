//! A word diff of two texts, for changed descriptions.
//!
//! Small enough to write rather than to depend on a diff crate: the texts
//! are split into words and the runs of space between them, the common
//! start and end are set aside, and the middle is aligned by a longest
//! common subsequence. The table that takes is bounded
//! ([`MAX_CELLS`]); past it the middle is shown as replaced whole, which
//! is still correct, only coarser.

/// One piece of a word diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WordOp {
    /// Text in both.
    Same(String),
    /// Text only in the old version.
    Removed(String),
    /// Text only in the new version.
    Added(String),
}

/// The largest alignment table (old words × new words) computed.
const MAX_CELLS: usize = 4_000_000;

/// The word diff of `old` and `new`: pieces in order, adjacent pieces of
/// the same kind merged.
pub fn word_diff(old: &str, new: &str) -> Vec<WordOp> {
    let a = tokens(old);
    let b = tokens(new);
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (mid_a, mid_b) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut ops = Vec::new();
    ops.extend(a[..prefix].iter().map(|t| WordOp::Same((*t).to_owned())));
    if mid_a.len().saturating_mul(mid_b.len()) > MAX_CELLS {
        ops.extend(mid_a.iter().map(|t| WordOp::Removed((*t).to_owned())));
        ops.extend(mid_b.iter().map(|t| WordOp::Added((*t).to_owned())));
    } else {
        align(mid_a, mid_b, &mut ops);
    }
    ops.extend(
        a[a.len() - suffix..]
            .iter()
            .map(|t| WordOp::Same((*t).to_owned())),
    );
    merge(ops)
}

/// Words and the whitespace between them, in order.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut space = None;
    for (i, c) in text.char_indices() {
        let is_space = c.is_whitespace();
        if space.is_some_and(|s| s != is_space) {
            out.push(&text[start..i]);
            start = i;
        }
        space = Some(is_space);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// Longest common subsequence of two token lists, as ops.
fn align(a: &[&str], b: &[&str], ops: &mut Vec<WordOp>) {
    let (n, m) = (a.len(), b.len());
    // lcs[i][j]: the LCS length of a[i..] and b[j..].
    let width = m + 1;
    let mut lcs = vec![0u32; (n + 1) * width];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * width + j] = if a[i] == b[j] {
                lcs[(i + 1) * width + j + 1] + 1
            } else {
                lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push(WordOp::Same(a[i].to_owned()));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i * width + j + 1] >= lcs[(i + 1) * width + j]) {
            ops.push(WordOp::Added(b[j].to_owned()));
            j += 1;
        } else {
            ops.push(WordOp::Removed(a[i].to_owned()));
            i += 1;
        }
    }
}

/// Merges adjacent ops of one kind, and moves a lone space that both sides
/// share out of a change, so `[-a-] {+b+}` reads `[-a-]{+b+}` around it.
fn merge(ops: Vec<WordOp>) -> Vec<WordOp> {
    // Removed text before added text within one changed stretch.
    let mut out: Vec<WordOp> = Vec::new();
    let mut removed = String::new();
    let mut added = String::new();
    let flush = |out: &mut Vec<WordOp>, removed: &mut String, added: &mut String| {
        if !removed.is_empty() {
            out.push(WordOp::Removed(std::mem::take(removed)));
        }
        if !added.is_empty() {
            out.push(WordOp::Added(std::mem::take(added)));
        }
    };
    let mut iter = ops.into_iter().peekable();
    while let Some(op) = iter.next() {
        match op {
            WordOp::Removed(t) => removed.push_str(&t),
            WordOp::Added(t) => added.push_str(&t),
            WordOp::Same(t) => {
                // A shared space between two changes belongs to both.
                let inside = (!removed.is_empty() || !added.is_empty())
                    && t.trim().is_empty()
                    && matches!(iter.peek(), Some(WordOp::Removed(_) | WordOp::Added(_)));
                if inside {
                    removed.push_str(&t);
                    added.push_str(&t);
                    continue;
                }
                flush(&mut out, &mut removed, &mut added);
                match out.last_mut() {
                    Some(WordOp::Same(prev)) => prev.push_str(&t),
                    _ => out.push(WordOp::Same(t)),
                }
            }
        }
    }
    flush(&mut out, &mut removed, &mut added);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use WordOp::*;

    #[test]
    fn changed_words_are_marked() {
        let ops = word_diff(
            "Echo a message back, optionally repeated.",
            "Echo a message back, possibly repeated twice.",
        );
        assert_eq!(
            ops,
            [
                Same("Echo a message back, ".into()),
                Removed("optionally repeated.".into()),
                Added("possibly repeated twice.".into()),
            ]
        );
        let ops = word_diff("a b c", "a x c");
        assert_eq!(
            ops,
            [
                Same("a ".into()),
                Removed("b".into()),
                Added("x".into()),
                Same(" c".into())
            ]
        );
        assert_eq!(word_diff("same", "same"), [Same("same".into())]);
        assert_eq!(word_diff("", "new"), [Added("new".into())]);
        assert_eq!(word_diff("old", ""), [Removed("old".into())]);
    }

    #[test]
    fn huge_texts_are_bounded() {
        let old = (0..3000)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        let new = (0..3000)
            .map(|i| format!("v{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        let ops = word_diff(&old, &new);
        assert_eq!(ops, [Removed(old), Added(new)]);
    }
}
