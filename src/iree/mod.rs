//! The user's IREE compiler (`libIREECompiler.so` of `iree-base-compiler`): the one module that
//! knows it exists.
//!
//! Why: tunespec's own MLIR is 22; IREE 3.13 runs MLIR 24 and moves every release. What IREE
//! reads (torch, StableHLO, TOSA models; `util`/`flow`/`hal` IR; its own syntax and bytecode) is
//! only ever read exactly by that IREE. So tunespec asks the user's IREE, through its embedding
//! C API, to (a) form the dispatches of a model for a target ([`Iree::executables`]), (b) read
//! and write a library or payload in its own syntax and bytecode ([`Iree::reprint`],
//! [`Iree::attach`]). Its MLIR handles never leave the worker child ([`worker`]); the parent
//! sees bytes and diagnostics only.
//!
//! Everything else of IREE's is here too, so that one finder decides which IREE a run uses:
//! [`find`] (the library, and iree-opt and iree-compile beside it), [`bytecode`] (IREE's newer
//! bytecode read back), [`import`] (`import-iree`: IREE's default specs dumped by iree-opt),
//! [`dispatches`] (a model's dispatches formed by IREE, through the caller's [`Store`]) and
//! [`codes`] (the `tunespec::iree::*` diagnostic codes). Nothing here reaches up into the rest of
//! the crate: what IREE answers is kept by the caller's [`Store`].

pub mod bytecode;
pub mod child;
pub mod codes;
pub mod configs;
pub mod constraints;
pub mod dispatches;
mod ffi;
pub mod find;
pub mod import;
pub mod probe;
pub mod protocol;
pub mod release;
pub mod runtime;
mod session;
pub mod split;
pub mod target;
pub mod text;
pub mod worker;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub use find::{Found, Origin, Tool};
use protocol::{Diagnostic, Op, Request, Response};
pub use session::Session;
pub use target::{compile_target, target_flags, CompileTarget};

/// How long IREE's work may take and how a large check is split, from the settings'
/// environment ([`Limits::from_env`]); a [`Session`] hands them to the IREE it loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// One request (a whole model's dispatch formation, one compile or run of `bench`):
    /// `TUNESPEC_IREE_TIMEOUT_SECS`, else 600 s.
    pub request: Duration,
    /// One iree-opt run: `TUNESPEC_IREE_TIMEOUT_SECS`, else 120 s
    /// ([`crate::iree_attrs::timeout_from`]).
    pub opt_run: Duration,
    /// The smallest part of IREE's check of a large text that gets a worker of its own:
    /// `TUNESPEC_IREE_CHECK_PART_BYTES`, else [`split::MIN_PART_BYTES`].
    pub check_part_bytes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::from_env(&crate::config::Environment::default())
    }
}

impl Limits {
    /// The limits `env` sets; a value that is no positive number is the default.
    pub fn from_env(env: &crate::config::Environment) -> Limits {
        let timeout = env.text(crate::iree_attrs::ENV_TIMEOUT);
        let request = timeout
            .as_deref()
            .and_then(|value| value.trim().parse::<u64>().ok())
            .filter(|&seconds| seconds > 0)
            .map_or(Duration::from_secs(600), Duration::from_secs);
        let check_part_bytes = env
            .text("TUNESPEC_IREE_CHECK_PART_BYTES")
            .and_then(|value| value.trim().parse::<usize>().ok())
            .filter(|&bytes| bytes > 0)
            .unwrap_or(split::MIN_PART_BYTES);
        Limits {
            request,
            opt_run: crate::iree_attrs::timeout_from(timeout.as_deref()),
            check_part_bytes,
        }
    }
}

/// A found IREE, with its revision once asked.
#[derive(Clone, Debug)]
pub struct Iree {
    /// Where the library is and how it was found.
    pub found: Found,
    /// `ireeCompilerGetRevision()`, e.g. `3.13.0rc20261016 @ 89ece87b...`.
    pub revision: String,
    /// `ireeCompilerGetAPIVersion()`, `major.minor`.
    pub api_version: String,
    /// Workers started ahead of their requests ([`Iree::prestart`]), taken by the next ones.
    spare: Spare,
    /// Where this IREE's answers are kept (its [`Session`]'s store).
    store: Stored,
    /// Its time limits and how a large check is split (its [`Session`]'s).
    limits: Limits,
    /// The environment it was found in (its [`Session`]'s): `TUNESPEC_IREE_OPT`.
    env: std::sync::Arc<crate::config::Environment>,
}

/// An [`Iree`]'s store: shared by its clones, and what keeps its answers for the commands
/// that ask it (`bench`, the model readers).
#[derive(Clone)]
struct Stored(std::sync::Arc<dyn Store + Send>);

impl std::fmt::Debug for Stored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stored")
    }
}

/// Worker children started ahead of their requests, shared by the clones of one [`Iree`].
#[derive(Clone, Debug, Default)]
struct Spare(std::sync::Arc<std::sync::Mutex<Vec<Child>>>);

impl Spare {
    fn take(&self) -> Option<Child> {
        self.0.lock().map_or(None, |mut spare| spare.pop())
    }
}

/// Why a request failed.
#[derive(Debug)]
pub enum Failure {
    /// IREE refused the input (its diagnostics): a problem in the input, exit 1.
    Rejected(Vec<Diagnostic>),
    /// IREE or the worker could not do it at all (crash, time limit, bad library): exit 2.
    Tool(String),
}

impl Failure {
    /// One line for reports.
    pub fn summary(&self) -> String {
        match self {
            Failure::Rejected(diagnostics) => diagnostics
                .iter()
                .find(|diagnostic| diagnostic.severity == "error")
                .or(diagnostics.first())
                .map_or_else(
                    || "IREE refused the input".to_string(),
                    |diagnostic| diagnostic.message.clone(),
                ),
            Failure::Tool(message) => message.clone(),
        }
    }
}

/// What an answer of IREE's is kept under: every input it depends on. `input` is the bytes IREE
/// read, `name` the name its locations carry, `revision` IREE's (empty for the revision itself),
/// `flags` the session flags in order, `phase` what was asked.
#[derive(Clone, Copy, Debug)]
pub struct StoreKey<'a> {
    /// The bytes IREE read (a model; for the revision, the library file's identity).
    pub input: &'a [u8],
    /// The name IREE's locations carry.
    pub name: &'a str,
    /// IREE's full revision.
    pub revision: &'a str,
    /// The session flags, in order.
    pub flags: &'a [String],
    /// What was asked (a compile phase, `revision`).
    pub phase: &'a str,
}

/// Where IREE's answers that are pure functions of a [`StoreKey`] are kept between runs.
///
/// Why a trait: the cache of linked libraries (`crate::cache`) keeps them in the binary, and
/// depends on linking; IREE's module must not depend back on it (the module graph stays a
/// tree, `tools/check-module-cycles`). [`NoStore`] asks IREE every time.
pub trait Store: Sync {
    /// The answer for `key`: kept, or made by `make` (and kept when it succeeds; a failure is
    /// never kept).
    fn get_or_make(
        &self,
        key: &StoreKey<'_>,
        make: &mut dyn FnMut() -> Result<Vec<u8>, Failure>,
    ) -> Result<Vec<u8>, Failure>;
}

/// A [`Store`] that keeps nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoStore;

impl Store for NoStore {
    fn get_or_make(
        &self,
        _key: &StoreKey<'_>,
        make: &mut dyn FnMut() -> Result<Vec<u8>, Failure>,
    ) -> Result<Vec<u8>, Failure> {
        make()
    }
}

/// The revision of the wheel `library` belongs to (`<iree>/compiler/version.py` beside
/// `<iree>/compiler/_mlir_libs/libIREECompiler.so`), as `ireeCompilerGetRevision()` prints it.
fn wheel_revision(library: &Path) -> Option<String> {
    let compiler = library.parent()?.parent()?;
    if library.parent()?.file_name()? != "_mlir_libs" {
        return None;
    }
    let text = std::fs::read_to_string(compiler.join("version.py")).ok()?;
    runtime::parse_version_py(&text).filter(|revision| revision.contains(" @ "))
}

/// The IREE version's major.minor from its revision (`3.13.0rc2026... @ hash` -> `3.13`).
pub fn release(revision: &str) -> &str {
    let version = revision.split_whitespace().next().unwrap_or(revision);
    let mut dots = version.match_indices('.').map(|(index, _)| index);
    match (dots.next(), dots.next()) {
        (Some(_), Some(second)) => &version[..second],
        _ => version,
    }
}

impl Iree {
    /// Where this IREE's answers are kept: its session's store ([`NoStore`] for one loaded
    /// alone, by [`Iree::load`] or [`Iree::load_found`]).
    pub fn store(&self) -> &dyn Store {
        &*self.store.0
    }

    /// `tool` of this IREE: `TUNESPEC_IREE_OPT` for iree-opt, else beside its library (see
    /// [`find::tool`]); what [`Session::tool`] gives without a flag once this IREE is found.
    pub fn tool(&self, tool: Tool) -> Result<PathBuf, String> {
        find::tool(tool, None, None, &self.env, || Ok(self.found.clone()))
    }

    /// This IREE's iree-opt: [`Iree::tool`] for [`Tool::Opt`].
    pub fn iree_opt(&self) -> Result<PathBuf, String> {
        self.tool(Tool::Opt)
    }

    /// This IREE, with the settings of `env`: its limits, its `TUNESPEC_IREE_OPT`.
    pub fn with_env(mut self, env: std::sync::Arc<crate::config::Environment>) -> Iree {
        self.limits = Limits::from_env(&env);
        self.env = env;
        self
    }

    /// Its time limits and how a large check is split.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// This IREE, keeping its answers in `store`.
    pub fn with_store(mut self, store: std::sync::Arc<dyn Store + Send>) -> Iree {
        self.store = Stored(store);
        self
    }

    /// Finds IREE (see [`find::find`]) and asks it its revision: `Err` when none was found or
    /// the library does not load.
    pub fn load(
        explicit: Option<&Path>,
        env: &crate::config::Environment,
        store: &dyn Store,
    ) -> Result<Iree, String> {
        Iree::load_found(find::find(explicit, env, store)?, store)
            .map(|iree| iree.with_env(std::sync::Arc::new(env.clone())))
    }

    /// Asks the found library its revision, or `store` what it answered for this very file
    /// (same path, device, inode, size, modification and change times: a reinstall changes
    /// them), which saves a process start and the library's load where IREE only adds a check.
    pub fn load_found(found: Found, store: &dyn Store) -> Result<Iree, String> {
        let mut iree = Iree {
            found,
            revision: String::new(),
            api_version: String::new(),
            spare: Spare::default(),
            store: Stored(std::sync::Arc::new(NoStore)),
            limits: Limits::default(),
            env: std::sync::Arc::default(),
        };
        // A pip wheel says its revision in `iree/compiler/version.py`, beside `_mlir_libs/`:
        // read there, it costs no process start and no load of the library's 320 MiB. The
        // API version is then asked only by `doctor` ([`Iree::api_version`]).
        if let Some(revision) = wheel_revision(&iree.found.library) {
            iree.revision = revision;
            return Ok(iree);
        }
        let ask = |iree: &Iree| {
            iree.request(Op::Info, "", &[], b"", b"")
                .map(|(response, _)| {
                    format!("{}\n{}", response.revision, response.api_version).into_bytes()
                })
        };
        let answer = match identity(&iree.found.library) {
            Some(identity) => {
                let key = StoreKey {
                    input: &identity,
                    name: "iree-revision",
                    revision: "",
                    flags: &[],
                    phase: "revision",
                };
                store.get_or_make(&key, &mut || ask(&iree))
            }
            None => ask(&iree),
        };
        let text = answer.map_err(|failure| failure.summary())?;
        let text = String::from_utf8_lossy(&text).into_owned();
        let (revision, api) = text.split_once('\n').unwrap_or((&text, ""));
        iree.revision = revision.to_string();
        iree.api_version = api.to_string();
        Ok(iree)
    }

    /// `ireeCompilerGetAPIVersion()` (`major.minor`): known after [`Iree::load_found`] asked the
    /// library, else asked now (a wheel's revision is read from its `version.py`).
    pub fn api_version(&self) -> Result<String, Failure> {
        if !self.api_version.is_empty() {
            return Ok(self.api_version.clone());
        }
        self.request(Op::Info, "", &[], b"", b"")
            .map(|(response, _)| response.api_version)
    }

    /// IREE's dispatches (every `hal.executable`, generic form with locations) of the source
    /// for `flags` at `phase`, as IREE prints them: [`quote_memory_spaces`] makes them readable
    /// by MLIR 22, and IREE reads them back as they are (`from` = `executable-sources`).
    /// `library` (attribute, the library's text) is written as IREE's bytecode and attached to
    /// the source first.
    pub fn executables(
        &self,
        source: &[u8],
        name: &str,
        flags: &[String],
        (from, phase): (Option<&str>, &str),
        library: Option<(&str, &[u8])>,
    ) -> Result<(Vec<u8>, Vec<Diagnostic>), Failure> {
        let (response, output) = self.request(
            Op::Executables {
                phase: phase.to_string(),
                from: from.map(str::to_string),
                attach: library.map(|(attr, _)| attr.to_string()),
                dump_before: None,
            },
            name,
            flags,
            source,
            library.map_or(&b""[..], |(_, bytes)| bytes),
        )?;
        Ok((output, response.diagnostics))
    }

    /// The IR each dispatch has right before IREE applies tuning specs (the dump before
    /// `iree-codegen-materialize-user-configs`, one module per executable variant, wrapped in
    /// one module), compiling the source from `from` (e.g. `executable-sources`): what a spec's
    /// matchers see in IREE, on every backend (GPU dispatches generalized, CPU's named ops kept,
    /// attention as `online_attention` in 3.13), as IREE printed it.
    pub fn before_materialize(
        &self,
        source: &[u8],
        name: &str,
        flags: &[String],
        from: Option<&str>,
    ) -> Result<Vec<u8>, Failure> {
        self.request(
            Op::Executables {
                phase: "executable-configurations".to_string(),
                from: from.map(str::to_string),
                attach: None,
                dump_before: Some("iree-codegen-materialize-user-configs".to_string()),
            },
            name,
            flags,
            source,
            b"",
        )
        .map(|(_, output)| output)
    }

    /// The source parsed by IREE and written back by it (text or bytecode).
    pub fn reprint(&self, source: &[u8], name: &str, bytecode: bool) -> Result<Vec<u8>, Failure> {
        self.request(Op::Reprint { bytecode }, name, &[], source, b"")
            .map(|(_, output)| output)
    }

    /// Starts a worker now, for the next request: it opens and initializes IREE's library (a
    /// third of a second of a 320 MiB library's load and IREE's global set-up) while the caller
    /// does its own work, e.g. `link` parsing the specs whose result IREE will check. A spare
    /// nothing asks for ends when this process does (its request pipe closes).
    pub fn prestart(&self) {
        self.prestart_n(1);
    }

    /// Starts workers until `count` are waiting (see [`Iree::prestart`]): one per part of a
    /// split check ([`Iree::check_split`]).
    pub fn prestart_n(&self, count: usize) {
        let Ok(mut spare) = self.spare.0.lock() else {
            return;
        };
        while spare.len() < count {
            match self.spawn_worker() {
                Ok(child) => spare.push(child),
                Err(_) => return,
            }
        }
    }

    /// Whether IREE parses and verifies the source (its diagnostics when not), without writing
    /// it back.
    pub fn check(&self, source: &[u8], name: &str) -> Result<(), Failure> {
        self.request(Op::Check, name, &[], source, b"").map(|_| ())
    }

    /// The source parsed by IREE and written back in generic form with locations named `name`:
    /// what MLIR 22 reads of text only IREE's syntax parses (see `crate::iree::text`).
    pub fn generic(&self, source: &[u8], name: &str) -> Result<Vec<u8>, Failure> {
        self.request(Op::Generic, name, &[], source, b"")
            .map(|(_, output)| output)
    }

    /// Each attribute text parsed by IREE and printed back by it, in one canonical form (no
    /// aliases, IREE's own spelling of every parameter); `None` for a text IREE cannot parse.
    /// How `check` compares configs as IREE does.
    pub fn canonical_attributes(&self, texts: &[&str]) -> Result<Vec<Option<String>>, Failure> {
        let mut source = Vec::new();
        for (index, text) in texts.iter().enumerate() {
            if index > 0 {
                source.push(0);
            }
            source.extend(text.bytes().filter(|&byte| byte != 0));
        }
        let (_, output) = self.request(Op::Attributes, "<attributes>", &[], &source, b"")?;
        let printed: Vec<Option<String>> = output
            .split(|&byte| byte == 0)
            .map(|text| (!text.is_empty()).then(|| String::from_utf8_lossy(text).into_owned()))
            .collect();
        if printed.len() != texts.len() {
            return Err(Failure::Tool(format!(
                "IREE's worker printed {} attribute(s) for {}",
                printed.len(),
                texts.len()
            )));
        }
        Ok(printed)
    }

    /// The payload with `library` (its text, as IREE's bytecode) attached as `attr`, written by
    /// IREE.
    pub fn attach(
        &self,
        payload: &[u8],
        name: &str,
        attr: &str,
        library: &[u8],
        bytecode: bool,
    ) -> Result<Vec<u8>, Failure> {
        self.request(
            Op::Attach {
                attr: attr.to_string(),
                bytecode,
            },
            name,
            &[],
            payload,
            library,
        )
        .map(|(_, output)| output)
    }

    /// A worker child for this library, its pipes open: it loads the library, then waits for
    /// its request.
    fn spawn_worker(&self) -> Result<Child, Failure> {
        let exe = worker_program().map_err(|error| {
            Failure::Tool(format!(
                "cannot start IREE's worker (tunespec re-executes itself): {error}"
            ))
        })?;
        Command::new(exe)
            .arg(worker::WORKER_COMMAND)
            .arg(&self.found.library)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| Failure::Tool(format!("cannot start IREE's worker: {error}")))
    }

    /// Runs one request in a worker child.
    fn request(
        &self,
        op: Op,
        name: &str,
        flags: &[String],
        source: &[u8],
        extra: &[u8],
    ) -> Result<(Response, Vec<u8>), Failure> {
        let _phase = tracing::info_span!("iree.request", op = op_name(&op)).entered();
        let header = Request {
            op,
            name: name.to_string(),
            flags: release::flags_for(flags, self.release()),
            source_len: source.len() as u64,
            extra_len: extra.len() as u64,
        };
        let mut child = match self.spare.take() {
            Some(child) => child,
            None => self.spawn_worker()?,
        };
        // A compile request is mostly followed by another (a model's dispatches, then the IR
        // before config materialization; `explain --exact`'s configuration phase): the next
        // worker loads IREE's library while this one compiles. One that nothing asks for
        // ends with this process.
        if matches!(header.op, Op::Executables { .. }) {
            self.prestart();
        }
        let mut input = serde_json::to_vec(&header).expect("a request serializes");
        input.push(b'\n');
        input.extend_from_slice(source);
        input.extend_from_slice(extra);
        let mut stdin = child.stdin.take().expect("piped stdin");
        // Written and read from threads: a child that fills a pipe before reading all its
        // input must not deadlock with us.
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let mut stdout = child.stdout.take().expect("piped stdout");
        let reader = std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = stdout.read_to_end(&mut out);
            out
        });
        let mut stderr = child.stderr.take().expect("piped stderr");
        let err_reader = std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = stderr.read_to_end(&mut out);
            out
        });
        let status = tunespec_core::child::wait_or_kill(&mut child, self.limits.request)
            .map_err(|error| Failure::Tool(format!("waiting for IREE's worker: {error}")))?;
        let _ = writer.join();
        let out = reader.join().unwrap_or_default();
        let err = err_reader.join().unwrap_or_default();
        let library = self.found.library.display();
        let Some(status) = status else {
            return Err(Failure::Tool(format!(
                "IREE ({library}) did not finish within {} s (TUNESPEC_IREE_TIMEOUT_SECS)",
                self.limits.request.as_secs()
            )));
        };
        if !status.success() {
            let last = String::from_utf8_lossy(&err);
            let last = last.lines().rev().find(|line| !line.trim().is_empty());
            return Err(Failure::Tool(format!(
                "IREE's compiler ({library}) {}{}",
                describe(&status),
                last.map(|line| format!(": {line}")).unwrap_or_default()
            )));
        }
        let newline = out.iter().position(|&byte| byte == b'\n');
        let parsed = newline.and_then(|at| {
            serde_json::from_slice::<Response>(&out[..at])
                .ok()
                .map(|response| (response, out[at + 1..].to_vec()))
        });
        let Some((response, output)) = parsed else {
            return Err(Failure::Tool(format!(
                "IREE's worker ({library}) gave no answer"
            )));
        };
        if output.len() as u64 != response.output_len {
            return Err(Failure::Tool(format!(
                "IREE's worker ({library}) gave a truncated answer"
            )));
        }
        if !response.ok {
            return Err(match response.failure {
                Some(message) if response.diagnostics.is_empty() => Failure::Tool(message),
                _ => Failure::Rejected(response.diagnostics),
            });
        }
        Ok((response, output))
    }
}

fn op_name(op: &Op) -> &'static str {
    match op {
        Op::Info => "info",
        Op::Executables { .. } => "executables",
        Op::Reprint { .. } => "reprint",
        Op::Attach { .. } => "attach",
        Op::Generic => "generic",
        Op::Check => "check",
        Op::Attributes => "attributes",
    }
}

#[cfg(unix)]
fn describe(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (_, Some(6)) => "aborted".to_string(),
        (_, Some(signal)) => format!("crashed (signal {signal})"),
        (Some(code), _) => format!("failed (exit {code})"),
        _ => "failed".to_string(),
    }
}

#[cfg(not(unix))]
fn describe(_status: &std::process::ExitStatus) -> String {
    "failed".to_string()
}

/// This binary (the worker is a hidden subcommand of it).
fn worker_program() -> std::io::Result<PathBuf> {
    std::env::current_exe()
}

/// What identifies a library file for the revision cache; `None` if it cannot be read.
fn identity(path: &Path) -> Option<Vec<u8>> {
    use std::os::unix::fs::MetadataExt;
    let canonical = std::fs::canonicalize(path).ok()?;
    let meta = std::fs::metadata(&canonical).ok()?;
    Some(
        format!(
            "{}\0{}\0{}\0{}\0{}.{}\0{}.{}",
            canonical.display(),
            meta.dev(),
            meta.ino(),
            meta.size(),
            meta.mtime(),
            meta.mtime_nsec(),
            meta.ctime(),
            meta.ctime_nsec()
        )
        .into_bytes(),
    )
}

/// IREE's codegen-level dialects, which MLIR 22 does not register either: their ops mean a
/// payload is read through IREE only in custom syntax (see [`foreign_dialect`]).
const IREE_CODEGEN: &[&str] = &[
    "iree_linalg_ext",
    "iree_tensor_ext",
    "iree_encoding",
    "iree_input",
    "iree_codegen",
    "iree_gpu",
    "iree_vector_ext",
];

/// Whether tunespec's MLIR 22 lacks `dialect` and IREE has it: its memory spaces are quoted
/// (see [`quote_memory_spaces`]).
fn is_foreign(dialect: &str) -> bool {
    FRONT_AND_HOST.contains(&dialect) || IREE_CODEGEN.contains(&dialect)
}

/// `memref<..., #hal.descriptor_type<storage_buffer>>` with the memory space as a string
/// attribute (`"#hal.descriptor_type<storage_buffer>"`). Why: MLIR 22 refuses a memory space
/// that is an attribute of a dialect it does not have ("unsupported memory space Attribute"),
/// and IREE's bufferized dispatches (the tuner's benchmark files) are full of them. A string
/// memory space is accepted, keeps the types of different spaces distinct, and matchers read
/// shapes, element types and maps, never the space.
pub fn quote_memory_spaces(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    while let Some(found) = find(&text[at..], b"memref<") {
        let start = at + found + b"memref<".len();
        out.extend_from_slice(&text[at..start]);
        // The type's top-level components, up to its closing '>'.
        let mut depth = 0usize;
        let mut last_comma = None;
        let mut end = None;
        let mut index = start;
        while index < text.len() {
            match text[index] {
                // `->` of an affine map in a layout.
                b'>' if index > 0 && text[index - 1] == b'-' => {}
                b'<' | b'(' | b'[' | b'{' => depth += 1,
                b'>' | b')' | b']' | b'}' if depth == 0 => {
                    end = Some(index);
                    break;
                }
                b'>' | b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                b',' if depth == 0 => last_comma = Some(index),
                b'\n' => break,
                _ => {}
            }
            index += 1;
        }
        let (Some(end), Some(comma)) = (end, last_comma) else {
            at = start;
            continue;
        };
        let space = String::from_utf8_lossy(&text[comma + 1..end]);
        let trimmed = space.trim();
        let foreign = trimmed
            .strip_prefix('#')
            .and_then(|rest| rest.split_once('.'))
            .is_some_and(|(dialect, _)| is_foreign(dialect));
        if foreign {
            out.extend_from_slice(&text[start..comma + 1]);
            out.extend_from_slice(b" \"");
            out.extend_from_slice(
                trimmed
                    .replace('\\', "\\\\")
                    .replace('"', "\\\"")
                    .as_bytes(),
            );
            out.push(b'"');
        } else {
            out.extend_from_slice(&text[start..end]);
        }
        at = end;
    }
    out.extend_from_slice(&text[at..]);
    out
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// The first dialect of `text`'s ops that only IREE reads, e.g. `torch` for `torch.aten.mm`:
/// such a payload is read through IREE. A front end's or IREE's host and dispatch-formation
/// dialects (`torch`, `stablehlo`, `tosa`, `util`, `flow`, `hal`, ...) always count: without
/// IREE's compile there is nothing to match. IREE's codegen-level dialects (`iree_linalg_ext`,
/// `iree_codegen`, ...) count only in custom syntax, which MLIR 22 cannot parse; in generic form
/// (`"iree_linalg_ext.attention"(...)`) tunespec reads them itself, as it always has. Looks at
/// each line's op name (after `%x = `), so attribute names never count.
pub fn foreign_dialect(bytes: &[u8]) -> Option<String> {
    if bytes.starts_with(tunespec_core::verify::BYTECODE_MAGIC) {
        return None;
    }
    let text = String::from_utf8_lossy(bytes);
    for line in text.lines() {
        let mut rest = line.trim_start();
        if rest.starts_with("//") {
            continue;
        }
        if rest.starts_with('%') {
            match rest.find(" = ") {
                Some(at) => rest = &rest[at + 3..],
                None => continue,
            }
        }
        let (generic, rest) = match rest.strip_prefix('"') {
            Some(rest) => (true, rest),
            None => (false, rest),
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
            .collect();
        let Some((dialect, _)) = name.split_once('.') else {
            continue;
        };
        let always = FRONT_AND_HOST.contains(&dialect);
        if always || (!generic && IREE_CODEGEN.contains(&dialect)) {
            return Some(dialect.to_string());
        }
    }
    None
}

/// Dialects of a model before IREE's codegen: a payload holding them is IREE's to compile.
const FRONT_AND_HOST: &[&str] = &[
    "torch",
    "util",
    "flow",
    "hal",
    "stream",
    "stablehlo",
    "chlo",
    "mhlo",
    "tosa",
    "ml_program",
];
