"""The settings are declared once, as pydantic-settings models (issue 35 item 2): the docs' table is
made from them, every bad value is named at once, and only config/ reads the environment."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from discount_deals.config import settings_table
from discount_deals.config.settings import SettingsError, get_settings
from discount_deals.config.settings_base import env_name, is_given
from discount_deals.server import preflight

ROOT = Path(__file__).resolve().parents[2]


def test_the_docs_settings_table_is_made_from_the_models():
    """python -m discount_deals.config.settings_table --write after changing a field."""
    text = settings_table.DOC.read_text()
    assert text.count(settings_table.START) == 1 and text.count(settings_table.END) == 1
    assert settings_table.document_with_table(text) == text, "run: python -m discount_deals.config.settings_table --write"


def test_every_variable_is_documented_once_with_a_type_and_a_meaning():
    rows = settings_table.rows()
    names = [name for name, *_ in rows]
    assert len(names) == len(set(names))
    assert all(kind and meaning for _name, kind, _default, meaning in rows)
    for required in ("REFLEX_DB_URL", "REFLEX_REDIS_URL", "PORT", "HOST", "GRANIAN_WORKERS", "DD_PAGE_SIZE",
                     "DD_CURRENCY", "DD_SMTP_PORT", "DD_RETURN_DAYS", "DD_STATE_TTL_SECONDS", "DD_WORKER_SWEEP_SECONDS"):
        assert required in names
    for model in settings_table.MODELS:  # a field given by code names a variable another model reads
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no description"
            if is_given(field) and env_name(model, name) != name:
                assert env_name(model, name) in names


def _environment_reads(tree: ast.AST) -> list[str]:
    """The DD_* names read from os.environ / os.getenv in ``tree`` (writes are fine: the launcher's)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            function = ast.unparse(node.func)
            if function in ("os.getenv", "getenv", "os.environ.get", "environ.get", "os.environ.setdefault"):
                found.append(str(node.args[0].value))
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Constant):
            if ast.unparse(node.value) in ("os.environ", "environ"):
                found.append(str(node.slice.value))
    return [name for name in found if name.startswith("DD_")]


def test_no_module_outside_config_reads_a_setting_from_the_environment():
    config = ROOT / "discount_deals" / "config"
    readers = {}
    for path in [*sorted((ROOT / "discount_deals").rglob("*.py")), ROOT / "rxconfig.py"]:
        if config in path.parents:
            continue
        names = _environment_reads(ast.parse(path.read_text(), str(path)))
        if names:
            readers[str(path.relative_to(ROOT))] = names
    assert readers == {}, "read these through discount_deals/config/ (a field of a settings model)"
    assert _environment_reads(ast.parse('import os\nos.environ.get("DD_X")\nos.environ["DD_Y"]\nos.environ["DD_Z"] = "1"'))\
        == ["DD_X", "DD_Y"]  # the check sees reads, and only reads


@pytest.fixture
def environment(monkeypatch):
    def use(**values: str) -> None:
        for name, value in values.items():
            monkeypatch.setenv(name, value)
        get_settings.cache_clear()

    yield use
    monkeypatch.undo()
    get_settings.cache_clear()


def test_every_bad_value_is_named_at_once_by_the_settings_and_by_preflight(environment):
    """Before, the first bad value stopped the reading; now each is one sentence, all together."""
    environment(DD_PAGE_SIZE="ten", DD_TAX="vat", DD_SMTP_PORT="70000", DD_RETURN_DAYS="400",
                DD_DELIVERY_FEE="1.234", DD_STATE_TTL_SECONDS="soon")
    with pytest.raises(SettingsError) as refused:
        get_settings()
    assert refused.value.problems == [
        "DD_PAGE_SIZE must be an integer, got 'ten'",
        "DD_DELIVERY_FEE must be an amount of at least 0 with at most 2 decimals, such as 5.99, got '1.234'",
        "DD_SMTP_PORT must be a port (1 to 65535), got '70000'",
        "DD_STATE_TTL_SECONDS must be a number between 30 and 86400, got 'soon'",
        "DD_TAX must be one of spec, ghana, got 'vat'",
        "DD_RETURN_DAYS must be a whole number of days from 0 to 365, got '400'",
    ]
    problems = preflight.plan_server(production=False, connect=False).problems
    assert all(problem in problems for problem in refused.value.problems)


def test_values_are_trimmed_an_empty_one_is_the_default_and_names_are_exact(environment, monkeypatch):
    environment(DD_PAGE_SIZE=" 25 ", DD_MAX_PAGE_SIZE="", DD_TAX=" GHANA ", dd_return_days="3")
    settings = get_settings()
    assert (settings.page_size, settings.max_page_size, settings.tax.scheme) == (25, 1000, "ghana")
    assert settings.returns.days == 30  # dd_return_days is not DD_RETURN_DAYS


def test_derived_defaults_follow_the_values_they_derive_from(environment, tmp_path):
    environment(DD_VAR_DIR=str(tmp_path), DD_PUBLIC_URL="https://shop.example.com/", DD_SMTP_TLS="tls",
                DD_ALLOWED_HOSTS="192.168.1.20")
    settings = get_settings()
    assert settings.media_dir == tmp_path.resolve() / "media"
    assert settings.messages.mail_from == "Discount Deals <no-reply@shop.example.com>"
    assert settings.messages.smtp_port == 465
    assert settings.security.allowed_hosts == ("localhost", "127.0.0.1", "[::1]", "shop.example.com", "192.168.1.20")
    environment(DD_CURRENCY_SYMBOL="GH₵")  # deprecated, read when no code is set
    assert get_settings().currency.code == "GHS"
    environment(DD_PAYMENT_CURRENCY="ngn")
    assert get_settings().currency.code == "NGN"


def test_the_message_worker_sweeps_as_often_as_the_settings_say(environment):
    assert get_settings().messages.worker_sweep_seconds == 5
    environment(DD_WORKER_SWEEP_SECONDS="0.3")
    assert get_settings().messages.worker_sweep_seconds == 0.3


def test_every_variable_the_readme_and_docs_name_is_a_declared_setting():
    """The README's tables are written by hand: a variable renamed or dropped from the models
    must not live on there (nor in docs/)."""
    import re

    # Knobs of the test and bench runs, not of the shop (tests/, bench/ and the Makefile read them).
    runs = {"DD_SCHEMATHESIS_EXAMPLES", "DD_SHOTS_DIR", "DD_PROD_SMOKE", "DD_BENCH_SECONDS"}
    declared = {name for name, *_ in settings_table.rows()} | runs
    texts = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    named = {(path.name, name) for path in texts for name in re.findall(r"\bDD_[A-Z0-9_]*[A-Z0-9]\b", path.read_text())}
    unknown = sorted((where, name) for where, name in named if name not in declared and not name.endswith("_"))
    assert unknown == []
