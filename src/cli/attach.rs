//! `tunespec attach`: link a library and attach it to a payload.

use std::path::PathBuf;

use tunespec::apply::{self, ATTR_NAME};
use tunespec::mlir::{BlobForm, Mlir};

use super::common::{fail, load_payload, write, DiagnosticFormat, ExitStatus, LibraryArgs};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Blob {
    /// `dense<"0x..."> : vector<N x i8>` (IREE's default)
    #[default]
    Dense,
    /// `dense_resource<...>` with the bytes in the file's resource section
    Resource,
}

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::ATTACH)]
pub struct Opts {
    #[command(flatten)]
    pub library: LibraryArgs,
    /// The payload (MLIR text or bytecode), `-` for stdin
    pub payload: PathBuf,
    /// Output file, or `-` for stdout (written atomically)
    #[arg(long, short, default_value = "-")]
    pub output: PathBuf,
    /// Attribute that carries the library
    #[arg(long, default_value = ATTR_NAME)]
    pub attr: String,
    /// How the bytes are stored
    #[arg(long, value_enum, default_value_t)]
    pub blob: Blob,
    /// How diagnostics are printed (on stderr; stdout may carry the payload)
    #[arg(long, value_enum, default_value_t)]
    pub format: DiagnosticFormat,
}

impl Opts {
    pub fn run(self) -> ExitStatus {
        let mlir = Mlir::new_threaded();
        let (payload_bytes, _name, payload) = match load_payload(&mlir, &self.payload) {
            Ok(loaded) => loaded,
            Err(status) => return status,
        };
        let library = match self.library.link(&mlir) {
            Ok(library) => library,
            Err(status) => return status,
        };
        let form = match self.blob {
            Blob::Dense => BlobForm::Dense,
            Blob::Resource => BlobForm::Resource,
        };
        if let Err(problems) = apply::attach(&payload, &library, &self.attr, form) {
            return fail(problems, &payload_bytes);
        }
        write(&self.output, payload.print_file().as_bytes())
    }
}
