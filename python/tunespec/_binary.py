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
    """The scripts directories the wheel may have installed the binary into, in order."""
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
    return [d / _EXE for d in dirs]


def find_binary() -> str:
    """The path of the `tunespec` binary this package runs.

    In order: `$TUNESPEC_BIN` when set (an explicit choice, e.g. a development build; it must
    name an executable file), the scripts directory of this Python environment (where
    `pip install tunespec` put it), the user scheme's scripts directory, the interpreter's own
    directory, then `tunespec` on `PATH`.

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
