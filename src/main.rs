//! The `tunespec` binary: parse arguments, run the command, map its status to an exit code.
use clap::Parser;

mod cli;
mod diagnostics;

/// Rust's allocations go to mimalloc (the `mimalloc` feature; MLIR's C++ keeps glibc's malloc,
/// see Cargo.toml).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // The bytecode probe (see `contain/`) is this binary re-executed; it has no clap command.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|arg| arg == tunespec::contain::PROBE_COMMAND)
    {
        return tunespec::contain::run_probe();
    }
    // So is IREE's worker (see `iree/worker.rs`).
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args
        .get(1)
        .is_some_and(|arg| arg == tunespec::iree::worker::WORKER_COMMAND)
    {
        return tunespec::iree::worker::run(&args[2..]);
    }
    // A file-size limit (`ulimit -f`) must make writes fail with EFBIG, which tunespec reports
    // (leaving no partial output), instead of killing the process with SIGXFSZ.
    #[cfg(unix)]
    // SAFETY: SIG_IGN installs no handler code; this runs before any other thread exists.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    // The one read of the process's environment: every setting comes from this snapshot.
    let env = tunespec::settings::Environment::process();
    tunespec::contain::enable(!env.is_on(tunespec::contain::ENV_TRUST));
    diagnostics::set_width(&env);
    // glibc grows the heap of a thread's arena by what each allocation lacks: one mprotect call
    // every few pages, thousands in a large link or apply (nearly a tenth of its CPU). Growing it
    // 16 MiB at a time (address space; pages are only backed once touched) makes that a few.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: an allocator setting only, changed before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 16 << 20);
    }
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return std::process::ExitCode::from(cli::usage_error(&error) as u8),
    };
    // MLIR recurses over nested IR: the work runs on a thread whose stack does not depend on
    // `ulimit -s` (see `MLIR_STACK_BYTES`).
    let work = std::thread::Builder::new()
        .name("tunespec".to_string())
        .stack_size(tunespec::mlir::MLIR_STACK_BYTES)
        .spawn(move || cli::run(cli, env) as u8);
    let status = match work.map(std::thread::JoinHandle::join) {
        Ok(Ok(status)) => status,
        // A panic has printed its message; 101 is Rust's status for it.
        Ok(Err(_)) => 101,
        Err(error) => {
            eprintln!("tunespec: cannot start the work thread: {error}");
            2
        }
    };
    exit_now(status)
}

/// Ends the process without running exit-time destructors: LLVM's and MLIR's static objects,
/// mimalloc's arena purge and the dynamic loader's finalizers only free memory the kernel is
/// about to reclaim, about a tenth of the CPU time of a short command such as `verify` of a
/// small spec. Every output has been written and closed by now (the work thread has ended and
/// its files are persisted); only Rust's buffered stdout can still hold bytes (a last line
/// without a newline), so it is flushed first, errors ignored as Rust's own exit ignores them.
fn exit_now(status: u8) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    // SAFETY: `_exit` ends the process at once; no Rust object is used after it, and nothing
    // still needs to run: the work thread has been joined, and no other thread writes output.
    unsafe { libc::_exit(i32::from(status)) }
}
