//! Measured configs as libraries: what `bench --write`, `tune` and `import-tuner` write, and
//! where the SHARK tuner's results come in.
//!
//! Why one folder: a measured entry is made in three places (a bench verdict, a tune winner, a
//! tuner run) and must come out the same way in each (one record, `provenance::Measurement`;
//! one merge rule, faster wins; one directory layout), so the writer and the tuner's reader live
//! together and every producer goes through them.

pub mod library;
pub mod tuner_import;
