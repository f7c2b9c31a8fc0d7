"""The IREE this interpreter imports: what the binary is told to use when the caller names none.

A script run with a venv's python, the venv not activated, must use the venv's IREE (the one
`import iree.compiler` gives it), not whatever `iree-compile` or `python3` is on `PATH`. So,
unless the caller passes `iree=` or the environment names an IREE for tunespec
(`TUNESPEC_IREE_LIB`, `TUNESPEC_IREE_VENV`, `TUNESPEC_NO_IREE`), the API passes
`--iree <libIREECompiler.so>` of this interpreter's `iree.compiler` to the binary, and, for
`verify`'s attribute check, `TUNESPEC_IREE_OPT` to the `iree-opt` beside this interpreter.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import sysconfig
from pathlib import Path
from typing import Dict, List, Optional, Union

PathLike = Union[str, "os.PathLike[str]"]

_LIBRARY = "libIREECompiler.so"
# Settings by which the caller already chose an IREE for tunespec (or none).
_CHOSEN = ("TUNESPEC_IREE_LIB", "TUNESPEC_IREE_VENV", "TUNESPEC_NO_IREE")


@functools.lru_cache(maxsize=1)
def interpreter_iree() -> Optional[str]:
    """`libIREECompiler.so` of the `iree.compiler` this interpreter imports, or None.

    `iree` is a namespace package: finding it imports nothing of IREE's."""
    try:
        spec = importlib.util.find_spec("iree")
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    for location in spec.submodule_search_locations or []:
        library = Path(location) / "compiler" / "_mlir_libs" / _LIBRARY
        if library.is_file():
            return str(library)
    return None


@functools.lru_cache(maxsize=1)
def interpreter_iree_opt() -> Optional[str]:
    """The `iree-opt` this interpreter's environment installed (its scripts directory)."""
    for directory in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        if directory:
            candidate = Path(directory) / "iree-opt"
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return None


def iree_args(iree: Optional[PathLike]) -> List[str]:
    """The global `--iree` argument: `iree` when given, else this interpreter's IREE unless the
    environment already chose one."""
    if iree is not None:
        return [f"--iree={os.fspath(iree)}"]
    if any(os.environ.get(name) for name in _CHOSEN):
        return []
    library = interpreter_iree()
    return [f"--iree={library}"] if library else []


def child_env(iree: Optional[PathLike]) -> Optional[Dict[str, str]]:
    """The binary's environment: this one, plus `TUNESPEC_IREE_OPT` for this interpreter's
    iree-opt when nothing names one (None: unchanged)."""
    if iree is not None or any(os.environ.get(name) for name in _CHOSEN):
        return None
    if os.environ.get("TUNESPEC_IREE_OPT") or interpreter_iree() is None:
        return None
    iree_opt = interpreter_iree_opt()
    if iree_opt is None:
        return None
    return {**os.environ, "TUNESPEC_IREE_OPT": iree_opt}


def interpreter_environment() -> Dict[str, str]:
    """This environment, with this interpreter's IREE as `TUNESPEC_IREE_LIB` (and its iree-opt
    as `TUNESPEC_IREE_OPT`) unless the environment already names an IREE: `python -m tunespec`,
    where `--iree` given on the command line still wins."""
    env = dict(os.environ)
    if any(env.get(name) for name in _CHOSEN):
        return env
    library = interpreter_iree()
    if library is not None:
        env["TUNESPEC_IREE_LIB"] = library
        iree_opt = interpreter_iree_opt()
        if iree_opt is not None and not env.get("TUNESPEC_IREE_OPT"):
            env["TUNESPEC_IREE_OPT"] = iree_opt
    return env
