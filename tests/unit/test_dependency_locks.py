"""The dependency files agree: pyproject.toml declares, the two lock files pin (``make lock``).

- every declared dependency is pinned, at a version its range allows (an edit of pyproject.toml
  without ``make lock`` fails here, without the network);
- the test lock pins everything the runtime lock pins, identically (tests run what production runs);
- the runtime lock holds no test tool (a production install ships no pytest, Playwright, ...);
- every third-party module the shop imports comes from a distribution the runtime lock installs.
"""

from __future__ import annotations

import ast
import importlib.metadata
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
# Shipped code: what `python -m discount_deals` and the migrations import.
SHIPPED = [ROOT / "discount_deals", ROOT / "alembic", ROOT / "rxconfig.py"]


def _pins(name: str) -> dict[str, str]:
    """canonical name → pinned version, from a lock file (``name==1.2.3 ; marker`` lines)."""
    pins = {}
    for line in (ROOT / name).read_text().splitlines():
        line = line.split(";")[0].strip()
        if line and not line.startswith(("#", "-")):
            package, version = line.split("==")
            pins[canonicalize_name(package.split("[")[0])] = version.strip()
    return pins


RUNTIME = _pins("requirements.lock")
TEST = _pins("requirements-test.lock")


@pytest.mark.parametrize(("requirement", "lock"), [(r, "runtime") for r in PYPROJECT["dependencies"]]
                         + [(r, "test") for r in PYPROJECT["optional-dependencies"]["test"]])
def test_every_declared_dependency_is_pinned_within_its_range(requirement, lock):
    declared = Requirement(requirement)
    pins = RUNTIME if lock == "runtime" else TEST
    pinned = pins.get(canonicalize_name(declared.name))
    assert pinned is not None, f"{declared.name} is not in the {lock} lock: run `make lock`"
    assert declared.specifier.contains(pinned, prereleases=True), (
        f"{declared.name}=={pinned} is outside {declared.specifier}: run `make lock`")


def test_the_test_lock_pins_what_production_runs():
    differing = {name: (version, TEST.get(name)) for name, version in RUNTIME.items() if TEST.get(name) != version}
    assert differing == {}


def test_a_production_install_has_no_test_tools():
    tools = {canonicalize_name(Requirement(r).name) for r in PYPROJECT["optional-dependencies"]["test"]}
    assert tools & RUNTIME.keys() == set()
    assert {"pytest", "playwright", "pytest-playwright", "schemathesis", "hypothesis", "ruff"} <= TEST.keys()
    assert not {"pytest", "playwright", "schemathesis"} & RUNTIME.keys()


def _top_level_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_every_module_the_shop_imports_is_installed_by_the_runtime_lock():
    files = [p for base in SHIPPED for p in ([base] if base.is_file() else base.rglob("*.py"))]
    imported = set().union(*(_top_level_imports(path) for path in files))
    third_party = imported - set(sys.stdlib_module_names) - {"discount_deals", "__future__"}
    providers = importlib.metadata.packages_distributions()
    missing = {}
    for module in sorted(third_party):
        distributions = {canonicalize_name(d) for d in providers.get(module, [])}
        if not distributions & RUNTIME.keys():
            missing[module] = sorted(distributions) or "not installed"
    assert missing == {}, "add these to [project] dependencies in pyproject.toml, then `make lock`"
