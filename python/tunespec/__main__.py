"""`python -m tunespec ...`: runs the bundled `tunespec` binary with the same arguments."""

from __future__ import annotations

import os
import subprocess
import sys

from ._binary import find_binary
from ._iree import interpreter_environment


def main() -> int:
    """Run the binary with this process's arguments; its exit status is ours."""
    try:
        binary = find_binary()
    except FileNotFoundError as error:
        print(f"tunespec: {error}", file=sys.stderr)
        return 2
    argv = ["tunespec", *sys.argv[1:]]
    # This interpreter's IREE, unless the environment names one (`--iree` still wins).
    env = interpreter_environment()
    if os.name == "posix":
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(binary, argv, env)  # does not return
    return subprocess.call([binary, *argv[1:]], env=env)


if __name__ == "__main__":
    sys.exit(main())
