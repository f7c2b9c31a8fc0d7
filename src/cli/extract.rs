//! `tunespec extract`: the library attached to a payload, as text or bytecode.

use std::path::PathBuf;
use tunespec::settings::Settings;

use crate::cli::output::Emit;
use tunespec::apply::{self, ATTR_NAME};
use tunespec::mlir::Mlir;

use super::common::{fail, load_payload, write, ExitStatus};

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::EXTRACT)]
pub struct Opts {
    /// The payload carrying a library, `-` for stdin
    pub payload: PathBuf,
    /// Output file, or `-` for stdout (written atomically)
    #[arg(long, short, default_value = "-")]
    pub output: PathBuf,
    /// Output form
    #[arg(long, value_enum, default_value_t)]
    pub emit: Emit,
    /// Attribute that carries the library
    #[arg(long, default_value = ATTR_NAME)]
    pub attr: String,
}

impl Opts {
    pub fn run(self, settings: &Settings) -> ExitStatus {
        let mlir = Mlir::new_threaded();
        let (payload_bytes, name, payload) = match load_payload(&mlir, &self.payload, None) {
            Ok(loaded) => loaded,
            Err(status) => return status,
        };
        let library = match apply::extract(&mlir, &payload, &self.attr, &name, Some(&settings.iree))
        {
            Ok(library) => library,
            Err(problems) => return fail(problems, &payload_bytes),
        };
        let bytes = match self.emit {
            Emit::Mlirbc => library,
            Emit::Mlir => match mlir.parse(&library, "<library>").module {
                Some(module) => module.print_file_bytes(),
                None => return fail(vec![], &payload_bytes),
            },
        };
        write(&self.output, &bytes)
    }
}
