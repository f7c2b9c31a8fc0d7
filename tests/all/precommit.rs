//! The repository's `.pre-commit-hooks.yaml`, run by pre-commit itself (PyPI's, pinned, from
//! `tools/pre-commit-venv.sh`) in a temporary git repository, as a team runs it: through
//! `pre-commit try-repo`, and from a `.pre-commit-config.yaml` on `git commit`. A broken spec
//! fails with tunespec's located diagnostic, a good one passes, a file that is not a spec is
//! never handed to tunespec. Required under CI=true.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::reference::{in_ci, output_with_timeout, repo_root};
use crate::support::{hermetic, private_home};

/// pre-commit from `tools/pre-commit-venv.sh` (`TUNESPEC_PRE_COMMIT_VENV`, default
/// `target/pre-commit-venv`); a failure under CI=true when it is missing.
fn pre_commit() -> Option<PathBuf> {
    let venv = std::env::var_os("TUNESPEC_PRE_COMMIT_VENV")
        .map_or_else(|| repo_root().join("target/pre-commit-venv"), PathBuf::from);
    let program = venv.join("bin/pre-commit");
    if program.is_file() {
        return Some(program);
    }
    assert!(
        !in_ci(),
        "pre-commit (tools/pre-commit-venv.sh) is required when CI=true: {} not found",
        program.display()
    );
    eprintln!("note: pre-commit not found (run tools/pre-commit-venv.sh); the hooks were not run");
    None
}

/// A temporary home: `bin/tunespec` (this build) first on PATH, git and pre-commit kept
/// inside it, tunespec hermetic and without IREE.
struct Sandbox {
    home: PathBuf,
    path: OsString,
}

impl Sandbox {
    fn new() -> Sandbox {
        let home = private_home();
        let bin = home.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_tunespec"), bin.join("tunespec")).unwrap();
        let path = std::env::join_paths([
            bin,
            "/usr/local/bin".into(),
            "/usr/bin".into(),
            "/bin".into(),
        ])
        .unwrap();
        Sandbox { home, path }
    }

    /// `program` run in `dir` with the sandbox's environment.
    fn run(&self, dir: &Path, program: &Path, args: &[&str]) -> Output {
        let mut command = Command::new(program);
        hermetic(&mut command)
            .current_dir(dir)
            .env("HOME", &self.home)
            .env("PATH", &self.path)
            .env("PRE_COMMIT_HOME", self.home.join("pre-commit-cache"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", self.home.join("gitconfig"))
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE")
            .args(args);
        output_with_timeout(&mut command)
    }

    fn git(&self, dir: &Path, args: &[&str]) -> Output {
        let output = self.run(dir, Path::new("git"), args);
        assert!(output.status.success(), "git {args:?}: {output:?}");
        output
    }

    /// A git repository at `name` holding the checkout's `.pre-commit-hooks.yaml`, committed
    /// (what `rev:` names); its head.
    fn hooks_repo(&self, name: &str) -> (PathBuf, String) {
        let repo = self.home.join(name);
        std::fs::create_dir_all(&repo).unwrap();
        std::fs::copy(
            repo_root().join(".pre-commit-hooks.yaml"),
            repo.join(".pre-commit-hooks.yaml"),
        )
        .unwrap();
        self.git(&repo, &["init", "-q", "-b", "main"]);
        self.git(&repo, &["add", ".pre-commit-hooks.yaml"]);
        self.git(&repo, &["commit", "-q", "-m", "hooks"]);
        let head = self.git(&repo, &["rev-parse", "HEAD"]);
        let head = String::from_utf8(head.stdout).unwrap().trim().to_string();
        (repo, head)
    }

    /// A team's repository: a good spec, a broken one and a file that is not a spec.
    fn work_repo(&self) -> PathBuf {
        let work = self.home.join("work");
        std::fs::create_dir_all(work.join("specs")).unwrap();
        let fixtures = repo_root().join("tests/fixtures/specs");
        std::fs::copy(
            fixtures.join("good/iree_one_matcher.mlir"),
            work.join("specs/good.mlir"),
        )
        .unwrap();
        std::fs::copy(
            fixtures.join("bad/syntax_error.mlir"),
            work.join("specs/broken.mlir"),
        )
        .unwrap();
        // Not a spec, and not MLIR: tunespec would reject it if it were handed over.
        std::fs::write(work.join("notes.txt"), "module {\n").unwrap();
        self.git(&work, &["init", "-q", "-b", "main"]);
        work
    }
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn try_repo_runs_the_verify_hook_on_specs_only() {
    let Some(pre_commit) = pre_commit() else {
        return;
    };
    let sandbox = Sandbox::new();
    let (hooks, _) = sandbox.hooks_repo("hooks");
    let work = sandbox.work_repo();
    sandbox.git(&work, &["add", "."]);
    let hooks = hooks.to_str().unwrap();
    let try_repo = |files: &[&str]| {
        let mut args = vec!["try-repo", hooks, "tunespec-verify", "--files"];
        args.extend_from_slice(files);
        sandbox.run(&work, &pre_commit, &args)
    };

    let broken = try_repo(&["specs/good.mlir", "specs/broken.mlir", "notes.txt"]);
    let all = text(&broken);
    assert_eq!(broken.status.code(), Some(1), "{all}");
    assert!(all.contains("tunespec verify"), "{all}");
    assert!(all.contains("Failed"), "{all}");
    // tunespec's own located diagnostic, and only the spec files were handed over.
    assert!(all.contains("specs/broken.mlir:2:31"), "{all}");
    assert!(all.contains("tunespec::parse"), "{all}");
    assert!(all.contains("verified 2 file(s)"), "{all}");
    assert!(!all.contains("notes.txt"), "{all}");

    let good = try_repo(&["specs/good.mlir", "notes.txt"]);
    let all = text(&good);
    assert_eq!(good.status.code(), Some(0), "{all}");
    assert!(all.contains("Passed"), "{all}");

    let none = try_repo(&["notes.txt"]);
    let all = text(&none);
    assert_eq!(none.status.code(), Some(0), "{all}");
    assert!(all.contains("(no files to check)Skipped"), "{all}");
}

#[test]
fn a_teams_config_fails_the_commit_of_a_broken_spec() {
    let Some(pre_commit) = pre_commit() else {
        return;
    };
    let sandbox = Sandbox::new();
    let (hooks, rev) = sandbox.hooks_repo("hooks");
    let work = sandbox.work_repo();
    std::fs::write(
        work.join(".pre-commit-config.yaml"),
        format!(
            "repos:\n- repo: {}\n  rev: {rev}\n  hooks:\n  - id: tunespec-verify\n  - id: tunespec-check\n    verbose: true\n",
            hooks.display()
        ),
    )
    .unwrap();
    let install = sandbox.run(&work, &pre_commit, &["install"]);
    assert!(install.status.success(), "{}", text(&install));
    let commits = || {
        let log = sandbox.run(&work, Path::new("git"), &["rev-list", "--all", "--count"]);
        String::from_utf8_lossy(&log.stdout).trim().to_string()
    };

    sandbox.git(
        &work,
        &[
            "add",
            ".pre-commit-config.yaml",
            "specs/good.mlir",
            "notes.txt",
        ],
    );
    let good = sandbox.run(&work, Path::new("git"), &["commit", "-m", "good"]);
    let all = text(&good);
    assert!(good.status.success(), "{all}");
    assert!(all.contains("tunespec verify"), "{all}");
    // Without IREE, check passes and says in one line what it did not check.
    assert!(
        all.contains("IREE not found: checked that 1 file(s) parse"),
        "{all}"
    );
    assert_eq!(commits(), "1");

    sandbox.git(&work, &["add", "specs/broken.mlir"]);
    let broken = sandbox.run(&work, Path::new("git"), &["commit", "-m", "broken"]);
    let all = text(&broken);
    assert!(!broken.status.success(), "{all}");
    assert!(all.contains("specs/broken.mlir:2:31"), "{all}");
    assert_eq!(commits(), "1", "the broken spec was committed: {all}");
}
