//! Reading a paginated list (`tools/list`, `resources/list`…) to its end,
//! and no further: a bound in pages and bytes, and a cursor given twice is
//! an error, not the last page.

use crate::error::{Error, PageProblem, Result};

/// How far a paginated list is read: a cursor seen twice, more than
/// [`PageBound::MAX_PAGES`] pages or [`PageBound::MAX_BYTES`] bytes is an
/// error (a server paging forever would otherwise grow the list without
/// end; stopping early would drop the rest silently).
pub(crate) struct PageBound<'a> {
    server: &'a str,
    method: &'a str,
    cursors: std::collections::BTreeSet<String>,
    pages: usize,
    bytes: usize,
}

impl<'a> PageBound<'a> {
    const MAX_PAGES: usize = 2_000;
    const MAX_BYTES: usize = 256 << 20;

    pub(crate) fn new(server: &'a str, method: &'a str) -> PageBound<'a> {
        PageBound {
            server,
            method,
            cursors: Default::default(),
            pages: 0,
            bytes: 0,
        }
    }

    fn error(&self, problem: PageProblem) -> Error {
        Error::Pagination {
            server: self.server.to_owned(),
            method: self.method.to_owned(),
            problem,
        }
    }

    /// Counts a page read and its entries' bytes.
    pub(crate) fn add<T: serde::Serialize>(&mut self, entries: &[T]) -> Result<()> {
        self.pages += 1;
        let mut counter = ByteCount(0);
        let _ = serde_json::to_writer(&mut counter, entries);
        self.bytes = self.bytes.saturating_add(counter.0);
        if self.bytes > Self::MAX_BYTES {
            return Err(self.error(PageProblem::TooManyBytes {
                limit: Self::MAX_BYTES,
            }));
        }
        Ok(())
    }

    /// The cursor of the next page, unless it was seen or the pages ran out.
    pub(crate) fn next(&mut self, cursor: String) -> Result<String> {
        if self.pages >= Self::MAX_PAGES {
            return Err(self.error(PageProblem::TooManyPages {
                limit: Self::MAX_PAGES,
            }));
        }
        if !self.cursors.insert(cursor.clone()) {
            return Err(self.error(PageProblem::RepeatedCursor { page: self.pages }));
        }
        Ok(cursor)
    }
}

/// Counts the bytes written to it.
struct ByteCount(usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
