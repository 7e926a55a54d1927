"""The layers read top-down (issue 20): ``discount_deals.py`` wraps the web shell (``web/``)
around the API (``api/``); the API never imports the shell, and nothing that renders (``state/``,
``components/``, ``pages/``) does either. The services import no face at all (issue 35): not
the display helpers, a state, a component, a page, the API or the shell. Read from the source's
import statements (a late import inside a function counts too)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "discount_deals"


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, relative imports resolved to absolute names."""
    module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            names.add(target)
            names.update(f"{target}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("layer", ["api", "state", "components", "pages"])
def test_the_web_shell_is_imported_by_no_api_and_no_renderer(layer):
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(name for name in _imports(path) if name.startswith("discount_deals.web"))
        for path in sorted((PACKAGE / layer).rglob("*.py"))
    }
    assert {path: names for path, names in offenders.items() if names} == {}


FACES = ("display", "state", "components", "pages", "api", "web")


def _faces_in(names: set[str]) -> list[str]:
    return sorted(name for name in names
                  if any(name == f"discount_deals.{face}" or name.startswith(f"discount_deals.{face}.") for face in FACES))


def test_no_service_imports_a_face():
    offenders = {str(path.relative_to(PACKAGE)): _faces_in(_imports(path))
                 for path in sorted((PACKAGE / "services").rglob("*.py"))}
    assert {path: names for path, names in offenders.items() if names} == {}


def test_the_face_check_sees_a_service_importing_display():
    assert _faces_in({"discount_deals.display.money_text", "discount_deals.displayed", "discount_deals.apiary"}) == [
        "discount_deals.display.money_text"]
    assert _faces_in(_imports(PACKAGE / "state" / "account" / "receipt.py"))  # a face that does import display


def test_the_resolver_sees_relative_imports():
    assert "discount_deals.web.site.site" in _imports(PACKAGE / "discount_deals.py")
    assert "discount_deals.page_slots" in _imports(PACKAGE / "pages" / "home.py")
    assert "discount_deals.csp.script_hash" not in _imports(PACKAGE / "web" / "first_html" / "head.py")
    assert "discount_deals.web.csp.script_hash" in _imports(PACKAGE / "web" / "first_html" / "head.py")
