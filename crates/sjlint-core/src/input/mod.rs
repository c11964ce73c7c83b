//! Bytes in: the input stage, from the bytes of a file or a stream to the records after it.
//!
//! This module groups the stage's files: `record` (the plain data the splitter yields: a
//! record's bytes and position), `split` (framing in a reused buffer or over an input in
//! memory), `source` (where the splitter's bytes come from), `prefix` (the JSON prefix grammar
//! that decides joins), `simd` (the string trackers) and `mapped` (files checked where they
//! lie). One input checked on several threads is `check::pipeline`, which runs this module's
//! splitter in each of its stages. Nothing here
//! interprets a record beyond the small JSON prefix grammar the splitter needs to decide joins:
//! no event classification, no rules, no diagnostics; which inputs are opened, and how, is
//! `commands`' business.

#[doc(hidden)]
pub mod array;
#[doc(hidden)]
pub mod compressed;
#[doc(hidden)]
pub mod mapped;
mod prefix;
#[doc(hidden)]
pub mod record;
#[doc(hidden)]
pub mod simd;
#[doc(hidden)]
pub mod source;
#[doc(hidden)]
pub mod split;
