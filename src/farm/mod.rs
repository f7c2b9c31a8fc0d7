//! Work spread over machines: which share of a plan a process takes (`--shard`, from the
//! command line or the scheduler that started it) and the time phase a GPU machine runs on a
//! plan compiled elsewhere (`tunespec time`, the `tunespec-time` binary).
//!
//! Why a folder of its own: these are what a farm's task runs, above `bench` and `tune` (the
//! time phase times either's plan) and below the CLI; `docs/farm.md` describes the scripts
//! around them.

pub mod shard;
pub mod time_phase;
