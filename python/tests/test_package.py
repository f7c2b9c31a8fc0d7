"""The installed package: where it and its binary are, `python -m tunespec`, finding the binary."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import tunespec
from conftest import INSTALLED_BIN, LAUNCHER, REPO, cli


def test_the_installed_package_is_tested_not_the_source_tree() -> None:
    package = Path(tunespec.__file__).resolve().parent
    assert package.parent == Path(sysconfig.get_path("purelib")).resolve()
    assert REPO / "python" not in package.parents
    assert (package / "py.typed").is_file()
    assert tunespec.__version__ != "0+unknown"


def test_the_wheel_installs_the_binary_into_the_environment() -> None:
    assert INSTALLED_BIN.is_file()
    assert tunespec.find_binary() == str(INSTALLED_BIN)
    # The `tunespec` command in the venv's bin/ runs the same binary.
    assert LAUNCHER.is_file()
    launched = subprocess.run([str(LAUNCHER), "--version"], stdout=subprocess.PIPE, check=True)
    assert launched.stdout == cli("--version").stdout


def test_version_is_the_binarys() -> None:
    line = tunespec.version()
    assert line == cli("--version").stdout.decode().strip()
    assert line.startswith(f"tunespec {tunespec.__version__} (MLIR 22.")


def test_python_m_tunespec_runs_the_cli() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "tunespec", "targets", "--format", "short"],
        stdout=subprocess.PIPE,
        check=False,
    )
    assert run.returncode == 0
    assert run.stdout == cli("targets", "--format", "short").stdout
    assert b"gfx942" in run.stdout


def test_python_m_tunespec_passes_the_exit_status_on() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "tunespec", "resolve", "gfx943"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        check=False,
    )
    assert run.returncode == 2
    assert b"gfx942" in run.stderr  # did you mean


def test_tunespec_bin_overrides_and_must_exist(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TUNESPEC_BIN", str(INSTALLED_BIN))
    assert tunespec.find_binary() == str(INSTALLED_BIN)
    monkeypatch.setenv("TUNESPEC_BIN", str(tmp_path / "nothing"))
    with pytest.raises(FileNotFoundError, match="TUNESPEC_BIN"):
        tunespec.find_binary()
    with pytest.raises(FileNotFoundError):
        tunespec.targets()


def test_error_classes_by_exit_status() -> None:
    assert issubclass(tunespec.ProblemsError, tunespec.Error)
    assert issubclass(tunespec.UsageError, tunespec.Error)
    assert issubclass(tunespec.MismatchError, tunespec.Error)
    mismatch = tunespec.Diagnostic("error", "tunespec::explain::exact-mismatch", "differs")
    error = tunespec.MismatchError(3, [mismatch])
    assert error.status == 3
    assert "exact-mismatch" in str(error)
    assert error.errors == error.diagnostics


def test_the_binary_needs_no_mlir_or_llvm_library() -> None:
    # MLIR is linked statically; what is not a glibc/GCC system library is bundled in the wheel.
    ldd = subprocess.run(["ldd", str(INSTALLED_BIN)], stdout=subprocess.PIPE, check=True)
    lines = [line.split() for line in ldd.stdout.decode().splitlines() if "=>" in line]
    assert lines and "not found" not in ldd.stdout.decode()
    system = (
        "libc.so",
        "libm.so",
        "libstdc++.so",
        "libgcc_s.so",
        "libz.so",
        "libdl.so",
        "libpthread.so",
        "librt.so",
    )
    for name, _, path, *_ in lines:
        assert name.startswith(system) or "/tunespec.libs/" in path, name
    # And it runs in a bare environment.
    run = subprocess.run(
        [str(INSTALLED_BIN), "targets", "--format", "short"],
        env={"PATH": "/usr/bin:/bin"},
        stdout=subprocess.PIPE,
        check=False,
    )
    assert run.returncode == 0 and b"gfx942" in run.stdout
