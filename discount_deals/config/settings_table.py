"""docs/deploy.md's settings table, made from the models: ``python -m discount_deals.config.settings_table``.

One row per environment variable (name, type, default, meaning), from each field's alias, type,
default and ``description``; fields given by code (``settings_base.GIVEN``) are documented where
their variable is read. ``--write`` puts the table into docs/deploy.md between its two markers;
tests/unit/test_settings_table.py fails when the file and the models differ.
"""

from __future__ import annotations

import sys
from decimal import Decimal
from pathlib import Path

from pydantic.fields import FieldInfo

from .settings import (
    CheckoutSettings,
    MessagingSettings,
    ReceiptSettings,
    ReturnSettings,
    SecuritySettings,
    ServerSettings,
    Settings,
    TaxSettings,
    UiSettings,
)
from .settings_base import EnvironmentSettings, env_name, is_given, type_text

# In the order the table lists them: how the server starts, then the app, then each section.
MODELS: tuple[type[EnvironmentSettings], ...] = (
    ServerSettings, Settings, UiSettings, CheckoutSettings, SecuritySettings, TaxSettings, ReceiptSettings,
    ReturnSettings, MessagingSettings,
)
DOC = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"
START = "<!-- settings table: python -m discount_deals.config.settings_table --write -->"
END = "<!-- end of the settings table -->"


def default_text(field: FieldInfo) -> str:
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    if "default" in extra:
        return str(extra["default"])
    value = field.default
    if value in ("", None, ()):
        return "–"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, Decimal)) or isinstance(value, float) and not value.is_integer():
        return str(value)
    if isinstance(value, float):
        return str(int(value))
    return f"`{value}`"


def rows() -> list[tuple[str, str, str, str]]:
    """(variable, type, default, meaning) of every variable the models read, each once."""
    found: dict[str, tuple[str, str, str, str]] = {}
    for model in MODELS:
        for name, field in model.model_fields.items():
            variable = env_name(model, name)
            if is_given(field) or variable in found:
                continue
            found[variable] = (variable, type_text(field), default_text(field), field.description or "")
    return list(found.values())


def table() -> str:
    lines = ["| variable | type | default | meaning |", "|---|---|---|---|"]
    lines += [f"| `{name}` | {kind} | {default} | {meaning} |" for name, kind, default, meaning in rows()]
    return "\n".join(lines)


def document_with_table(text: str) -> str:
    """``text`` (docs/deploy.md) with the table between its markers made anew."""
    before, rest = text.split(START, 1)
    _old, after = rest.split(END, 1)
    return f"{before}{START}\n{table()}\n{END}{after}"


def main(argv: list[str]) -> int:
    if argv == ["--write"]:
        DOC.write_text(document_with_table(DOC.read_text()))
        return 0
    print(table())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
