"""The base of every settings model: read from the environment only, values trimmed, errors in words.

Each model (settings.py and the ``settings_*`` modules) declares its variables as pydantic fields:
the name in the environment (``validation_alias``), the type, the default and a ``description``
(docs/deploy.md's table is made from them: settings_table.py). pydantic checks types and bounds;
a rule it does not express is a validator on the model. :func:`read` turns every validation error
into one sentence that names the variable, so ``check-config`` lists them all at once.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar, get_args, get_origin

from pydantic import AfterValidator, BeforeValidator, ValidationError, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, EnvSettingsSource, SettingsConfigDict


def _lowered(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


# Field rules several models share (pydantic's Annotated validators): a choice read case-blind
# ("PAYSTACK" is "paystack"), an address kept without its trailing slash.
CaseBlind = BeforeValidator(_lowered)
NoTrailingSlash = AfterValidator(lambda value: value.rstrip("/"))

# A field given by the code that builds the settings (from another model), never read from the
# environment under its own name: the variable is declared, and documented, where it is read.
GIVEN: dict[str, Any] = {"env": False}
# A flag as operators write it: 1/0, true/false, yes/no, on/off.
FLAG_WORDS = "1 or 0 (yes or no)"
_KINDS = {int: "an integer", float: "a number", bool: FLAG_WORDS, Decimal: "an amount such as 5.99"}


class SettingsError(ValueError):
    """Settings that do not parse: one sentence per bad value in ``problems``, all of them."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


class _Environment(EnvSettingsSource):
    """The environment, less the fields marked :data:`GIVEN`."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        if is_given(field):
            return None, field_name, False
        return super().get_field_value(field, field_name)


class EnvironmentSettings(BaseSettings):
    """Settings read from the environment variables their fields name (exactly, case and all).

    A value is trimmed (except the names in ``untrimmed``); an empty one means the default."""

    model_config = SettingsConfigDict(
        case_sensitive=True, frozen=True, extra="ignore", validate_by_name=True, validate_by_alias=True,
        validate_default=False,  # defaults are right as written (and the sections come later)
    )
    untrimmed: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, env_settings, dotenv_settings,
                                   file_secret_settings):
        """Values given in code, then the environment: no ``.env`` file nor secrets folder (as before)."""
        return init_settings, _Environment(settings_cls)

    @model_validator(mode="before")
    @classmethod
    def _trimmed(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        trimmed = {}
        for key, value in data.items():
            if isinstance(value, str) and key not in cls.untrimmed:
                value = value.strip()
            if not (isinstance(value, str) and value == ""):
                trimmed[key] = value
        return trimmed


def is_given(field: FieldInfo) -> bool:
    return isinstance(field.json_schema_extra, dict) and field.json_schema_extra.get("env") is False


Model = TypeVar("Model", bound=EnvironmentSettings)


def read(model: type[Model], problems: list[str] | None = None, **given: Any) -> Model | None:
    """``model`` read from the environment (``given`` values win). A bad value raises
    :class:`SettingsError`, or with ``problems`` adds its sentences there and returns None."""
    try:
        return model(**given)
    except ValidationError as exc:
        found = [problem_text(model, error) for error in exc.errors() if error["type"] != "default_factory_not_called"]
    if problems is None:
        raise SettingsError(found)
    problems.extend(found)
    return None


def replace(settings: Model, **changes: Any) -> Model:
    """A copy of ``settings`` with ``changes`` (as ``dataclasses.replace`` did when they were dataclasses)."""
    return settings.model_copy(update=changes)


def env_name(model: type[EnvironmentSettings], name: str) -> str:
    """The variable a field (or error location) stands for: its alias, else its name."""
    field = model.model_fields.get(name)
    alias = field.validation_alias if field is not None else None
    return alias if isinstance(alias, str) else name


def field_of(model: type[EnvironmentSettings], variable: str) -> FieldInfo | None:
    return next((field for name, field in model.model_fields.items()
                 if variable in (name, field.validation_alias)), None)


def bounds(field: FieldInfo | None) -> tuple[Any, Any]:
    """The field's ``ge`` and ``le`` (None when it has none)."""
    ge = le = None
    for rule in field.metadata if field is not None else ():
        ge = getattr(rule, "ge", ge)
        le = getattr(rule, "le", le)
    return ge, le


def problem_text(model: type[EnvironmentSettings], error: Any) -> str:
    """One validation error as one sentence: "DD_PAGE_SIZE must be an integer, got 'ten'"."""
    if error["type"] == "value_error":  # a validator's own sentence names its setting
        return str(error["ctx"]["error"])
    loc = error["loc"]
    name = env_name(model, str(loc[0])) if loc else model.__name__
    field = field_of(model, str(loc[0])) if loc else None
    raw, kind = error.get("input"), error["type"]
    ge, le = bounds(field)
    extra = field.json_schema_extra if field is not None and isinstance(field.json_schema_extra, dict) else {}
    if "problem" in extra:
        return str(extra["problem"]).format(name=name, raw=repr(raw), ge=ge, le=le)
    annotation = field.annotation if field is not None else None
    if kind == "literal_error":
        return f"{name} must be one of {', '.join(map(str, get_args(annotation)))}, got {raw!r}"
    if kind.endswith("_parsing") or kind in ("int_from_float", "finite_number", "decimal_type"):
        return f"{name} must be {_KINDS.get(annotation, 'a valid value')}, got {raw!r}"
    if ge is not None and le is not None and kind in ("greater_than_equal", "less_than_equal"):
        return f"{name} must be between {ge} and {le}, got {raw}"
    if kind == "string_too_long":
        return f"{name} may have at most {error['ctx']['max_length']} characters, got {len(raw)}"
    if kind == "greater_than_equal":
        return f"{name} must be at least {ge}, got {raw}"
    if kind == "less_than_equal":
        return f"{name} must be at most {le}, got {raw}"
    return f"{name}: {error['msg']}, got {raw!r}"


def type_text(field: FieldInfo) -> str:
    """The field's type as the settings table names it."""
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    if "type" in extra:
        return str(extra["type"])
    annotation = field.annotation
    if get_origin(annotation) is Literal:
        return " \\| ".join(f"`{choice}`" for choice in get_args(annotation))
    names = {int: "integer", float: "number", bool: "flag (1/0)", Decimal: "amount", str: "text", Path: "path"}
    return names.get(annotation, getattr(annotation, "__name__", str(annotation)))
