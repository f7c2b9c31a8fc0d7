//! What the commands share: exit statuses, formats, the library flags and reading and writing
//! ([`common`]), outputs written safely ([`output`]), tables ([`table`]), `-v` ([`log`]), each
//! command's `--help` examples ([`help`]) and which IREE and flags a command uses ([`model`]).

pub mod bench_report;
pub mod common;
pub mod help;
pub mod log;
pub mod model;
pub mod output;
pub mod table;
