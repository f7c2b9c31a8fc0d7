"""Where the `tunespec` binary is: the one the wheel installed beside this package."""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import List, Optional

_EXE = "tunespec.exe" if os.name == "nt" else "tunespec"


def _candidates() -> List[Path]:
    """Where the wheel may have installed the binary, in order."""
    # The wheel's binary proper, beside this package: maturin puts it in `tunespec.scripts/`
    # when the wheel also carries shared libraries (`tunespec.libs/`, libzstd), and installs a
    # small Python launcher as the `tunespec` command; running the binary directly spares a
    # Python start per call.
    beside = Path(__file__).resolve().parent.parent / "tunespec.scripts" / _EXE
    dirs: List[Path] = []
    # The environment this interpreter runs in (a venv's bin/, or the system's).
    scripts = sysconfig.get_path("scripts")
    if scripts:
        dirs.append(Path(scripts))
    # `pip install --user`: the user scheme's scripts directory.
    user_scheme = f"{os.name}_user"
    if user_scheme in sysconfig.get_scheme_names():
        user_scripts = sysconfig.get_path("scripts", user_scheme)
        if user_scripts:
            dirs.append(Path(user_scripts))
    # A venv whose interpreter is a symlink: the directory of sys.executable.
    dirs.append(Path(sys.executable).parent)
    return [beside, *(d / _EXE for d in dirs)]


def find_binary() -> str:
    """The path of the `tunespec` binary this package runs.

    In order: `$TUNESPEC_BIN` when set (an explicit choice, e.g. a development build; it must
    name an executable file), the binary the wheel installed beside this package
    (`tunespec.scripts/`), the scripts directory of this Python environment (where
    `pip install tunespec` puts the `tunespec` command), the user scheme's scripts directory,
    the interpreter's own directory, then `tunespec` on `PATH`.

    Raises `FileNotFoundError` when none is found.
    """
    explicit = os.environ.get("TUNESPEC_BIN")
    if explicit:
        path = Path(explicit)
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
        raise FileNotFoundError(f"TUNESPEC_BIN={explicit} is not an executable file")
    for candidate in _candidates():
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    on_path: Optional[str] = shutil.which("tunespec")
    if on_path:
        return on_path
    raise FileNotFoundError(
        "the tunespec binary was not found (looked in "
        + ", ".join(str(c.parent) for c in _candidates())
        + " and on PATH); reinstall the wheel or set TUNESPEC_BIN"
    )
