//! The `tunespec` binary: parse arguments, run the command, map its status to an exit code.
use clap::Parser;

fn main() -> std::process::ExitCode {
    // The bytecode probe (see `contain.rs`) is this binary re-executed; it has no clap command.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|arg| arg == tunespec::contain::PROBE_COMMAND)
    {
        return tunespec::contain::run_probe();
    }
    // A file-size limit (`ulimit -f`) must make writes fail with EFBIG, which tunespec reports
    // (leaving no partial output), instead of killing the process with SIGXFSZ.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    tunespec::contain::enable();
    let cli = tunespec::cli::Cli::parse();
    std::process::ExitCode::from(tunespec::cli::run(cli) as u8)
}
