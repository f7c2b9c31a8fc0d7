//! `tunespec completions SHELL` and `tunespec man [COMMAND]`: shell completion scripts
//! (clap_complete) and manual pages (clap_mangen), generated from the same command tree that
//! parses the arguments, so they never drift from it.

use std::path::{Path, PathBuf};

use clap::CommandFactory;

use super::common::{emit, is_stdio, tool_error, write, ExitStatus};
use super::Cli;

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::COMPLETIONS)]
pub struct CompletionsOpts {
    /// The shell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
    /// Output file, or `-` for stdout (written atomically)
    #[arg(long, short, default_value = "-")]
    pub output: PathBuf,
}

impl CompletionsOpts {
    pub fn run(self) -> ExitStatus {
        let mut command = Cli::command();
        let mut script = Vec::new();
        clap_complete::generate(self.shell, &mut command, "tunespec", &mut script);
        write(&self.output, &script)
    }
}

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::MAN)]
pub struct ManOpts {
    /// The command whose page to print (default: tunespec's own page)
    pub command: Option<String>,
    /// Write every page (tunespec.1, tunespec-verify.1, ...) into the directory given by -o
    #[arg(long, requires = "output", conflicts_with = "command")]
    pub all: bool,
    /// Output file (a directory with --all), or `-` for stdout (written atomically)
    #[arg(long, short, default_value = "-")]
    pub output: PathBuf,
}

impl ManOpts {
    pub fn run(self) -> ExitStatus {
        let mut command = Cli::command();
        command.build();
        if self.all {
            return write_all(&command, &self.output);
        }
        let page = match &self.command {
            None => command,
            Some(name) => match command.find_subcommand(name) {
                Some(sub) => page_command(sub),
                None => {
                    let names: Vec<&str> = command
                        .get_subcommands()
                        .map(clap::Command::get_name)
                        .collect();
                    tool_error(format!(
                        "unknown command '{name}' (one of: {})",
                        names.join(", ")
                    ));
                    return ExitStatus::Usage;
                }
            },
        };
        match render(page) {
            Ok(roff) if is_stdio(&self.output) => {
                emit(&String::from_utf8_lossy(&roff));
                ExitStatus::Ok
            }
            Ok(roff) => write(&self.output, &roff),
            Err(error) => {
                tool_error(format!("cannot render the manual page: {error}"));
                ExitStatus::Usage
            }
        }
    }
}

/// A subcommand as a page of its own: `tunespec-verify(1)`, with its own version.
fn page_command(sub: &clap::Command) -> clap::Command {
    sub.clone()
        .name(format!("tunespec-{}", sub.get_name()))
        .version(super::VERSION)
}

fn render(command: clap::Command) -> std::io::Result<Vec<u8>> {
    let mut roff = Vec::new();
    clap_mangen::Man::new(command).render(&mut roff)?;
    Ok(roff)
}

/// `man --all -o DIR`: tunespec.1 and one page per command.
fn write_all(command: &clap::Command, dir: &Path) -> ExitStatus {
    if let Err(error) = std::fs::create_dir_all(dir) {
        tool_error(format!("cannot create {}: {error}", dir.display()));
        return ExitStatus::Usage;
    }
    let pages = std::iter::once(command.clone())
        .chain(command.get_subcommands().map(page_command))
        .filter(|page| !page.is_hide_set());
    for page in pages {
        let file = dir.join(format!("{}.1", page.get_name()));
        let status = match render(page) {
            Ok(roff) => write(&file, &roff),
            Err(error) => {
                tool_error(format!("cannot render {}: {error}", file.display()));
                ExitStatus::Usage
            }
        };
        if status != ExitStatus::Ok {
            return status;
        }
    }
    ExitStatus::Ok
}
