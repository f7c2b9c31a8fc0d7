"""Shared fixtures: the repository (fixtures, schemas), the installed binary, schema validation."""

from __future__ import annotations

import json
import os
import subprocess
import sysconfig
from pathlib import Path
from typing import Any, Dict, Optional

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

REPO = Path(os.environ.get("TUNESPEC_REPO") or Path(__file__).resolve().parents[2])
FIXTURES = REPO / "tests" / "fixtures"
SCHEMAS = REPO / "docs" / "schema"
# The binary the wheel installed into this environment (not the one the API finds: the tests
# check that the API finds this one): beside the package when the wheel carries shared
# libraries (maturin's `tunespec.scripts/`, with a Python launcher as the `tunespec` command),
# else the command itself.
LAUNCHER = Path(sysconfig.get_path("scripts")) / "tunespec"
_BESIDE = Path(sysconfig.get_path("platlib")) / "tunespec.scripts" / "tunespec"
INSTALLED_BIN = _BESIDE if _BESIDE.is_file() else LAUNCHER


@pytest.fixture(autouse=True, scope="session")
def _isolated_environment(tmp_path_factory: pytest.TempPathFactory) -> None:
    """No user or project config, and a cache of linked libraries of the tests' own."""
    os.environ["TUNESPEC_NO_CONFIG"] = "1"
    os.environ["TUNESPEC_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    os.environ.pop("TUNESPEC_BIN", None)
    os.environ.pop("TUNESPEC_LOG", None)


def cli(*args: str, stdin: Optional[bytes] = None) -> subprocess.CompletedProcess:
    """Runs the installed binary directly (the reference the API's results are compared with),
    with the IREE the API chooses (this interpreter's, unless the environment names one): with
    IREE, libraries are written by IREE's own writer."""
    from tunespec._iree import iree_args

    return subprocess.run(
        [str(INSTALLED_BIN), *iree_args(None), *args],
        input=stdin if stdin is not None else b"",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        check=False,
    )


class Schemas:
    """docs/schema/*.json, with references between them resolved by their `$id`s."""

    def __init__(self) -> None:
        self.by_name: Dict[str, Dict[str, Any]] = {}
        resources = []
        for path in sorted(SCHEMAS.glob("*.schema.json")):
            schema = json.loads(path.read_text())
            self.by_name[path.name.split(".")[0]] = schema
            resources.append((schema["$id"], Resource.from_contents(schema)))
        self.registry = Registry().with_resources(resources)

    def validate(self, name: str, instance: Any) -> None:
        """Raises `jsonschema.ValidationError` unless `instance` follows `<name>.schema.json`."""
        Draft202012Validator(self.by_name[name], registry=self.registry).validate(instance)


@pytest.fixture(scope="session")
def schemas() -> Schemas:
    return Schemas()
