//! `tunespec attach`: link a library and attach it to a payload.

use std::path::PathBuf;

use crate::cli::output;
use tunespec::apply::{self, ATTR_NAME};
use tunespec::attach_check;
use tunespec::mlir::{BlobForm, Mlir};

use super::common::{
    fail, load_payload, tool_error, write, DiagnosticFormat, ExitStatus, LibraryArgs,
};

fn usage(message: String) -> ExitStatus {
    tool_error(message);
    ExitStatus::Usage
}

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
        if let Err(message) = attach_check::check_attr_name(&self.attr) {
            return usage(message);
        }
        if let Err(message) = output::check_not_an_input(&self.output, &self.library.specs, &[]) {
            return usage(message);
        }
        let mlir = Mlir::new_threaded();
        let (payload_bytes, name, payload) = match load_payload(&mlir, &self.payload) {
            Ok(loaded) => loaded,
            Err(status) => return status,
        };
        if let Err(problems) = attach_check::check_not_foreign(&payload, &self.attr, &name) {
            return fail(problems, &payload_bytes);
        }
        let library = match self.library.link_portable(&mlir) {
            Ok(library) => library,
            Err(status) => return status,
        };
        let form = match self.blob {
            Blob::Dense => BlobForm::Dense,
            Blob::Resource => BlobForm::Resource,
        };
        let phase = tracing::info_span!("attach", bytes = library.len()).entered();
        if let Err(problems) = apply::attach(&payload, &library, &self.attr, form) {
            return fail(problems, &payload_bytes);
        }
        let text = payload.print_file();
        drop(phase);
        let checked = {
            let _phase = tracing::info_span!("attach.check-output").entered();
            attach_check::check_output(&mlir, &text, &self.attr, &library)
        };
        if let Err(problems) = checked {
            return fail(problems, &[]);
        }
        write(&self.output, text.as_bytes())
    }
}
