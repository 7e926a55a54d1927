"""Error codes are one enum (issue 33, item 6): every code a refusal carries and every code a face
branches on is an ``ErrorCode`` member, never a bare string; the JSON keeps the same strings.

Read from the source: a ``code=`` argument, the code given to a checkout/coupon ``_fail`` helper,
a face's ``exc.code == ...`` comparison and the code tables may name no string literal."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from discount_deals.services import ServiceError
from discount_deals.services.error_codes import ErrorCode
from discount_deals.services.users.fields import MESSAGE_CODES

PACKAGE = Path(__file__).resolve().parents[2] / "discount_deals"
CODE_TABLES = ("MESSAGE_CODES", "NOT_PAID")
ERROR_NAMES = ("exc", "error", "err", "e")


def _strings(node: ast.AST) -> list[ast.Constant]:
    """The string literals ``node`` can evaluate to (either branch of ``a if c else b``, a tuple's items)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
        return [node]
    if isinstance(node, ast.IfExp):
        return _strings(node.body) + _strings(node.orelse)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [found for item in node.elts for found in _strings(item)]
    if isinstance(node, ast.BoolOp):
        return [found for value in node.values for found in _strings(value)]
    return []


def bare_codes(source: str) -> list[tuple[int, str]]:
    """(line, text) of every error code written as a string literal in ``source``."""
    found: list[ast.Constant] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            found += [text for keyword in node.keywords if keyword.arg == "code" for text in _strings(keyword.value)]
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name == "_fail" and len(node.args) >= 3:  # _fail(field, message, code)
                found += _strings(node.args[2])
        elif isinstance(node, ast.Compare):
            left = node.left
            if (isinstance(left, ast.Attribute) and left.attr == "code" and isinstance(left.value, ast.Name)
                    and left.value.id in ERROR_NAMES):
                found += [text for right in node.comparators for text in _strings(right)]
        elif isinstance(node, ast.Assign) and any(getattr(t, "id", "") in CODE_TABLES for t in node.targets):
            values = node.value.values if isinstance(node.value, ast.Dict) else [node.value]
            found += [text for value in values for text in _strings(value)]
    return sorted((text.lineno, text.value) for text in found)


def test_no_error_code_is_a_bare_string():
    offenders = {
        str(path.relative_to(PACKAGE)): bare_codes(path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py")) if path.name != "error_codes.py"
    }
    assert {path: codes for path, codes in offenders.items() if codes} == {}


def test_the_scan_sees_every_way_a_code_is_written():
    source = '''
raise Conflict("x", code="not_paid")
raise invalid(errors, code="region_invalid" if "state" in errors else "")
raise _fail("phone", "Enter it.", "phone_required")
if exc.code == "otp_invalid" or exc.code in ("phone_invalid", "network_invalid"):
    pass
MESSAGE_CODES = {COMMON: "password_common"}
raise Conflict("x", code=ErrorCode.NOT_PAID)
name = line.code == "tax"
'''
    assert bare_codes(source) == [(2, "not_paid"), (3, "region_invalid"), (4, "phone_required"), (5, "network_invalid"),
                                  (5, "otp_invalid"), (5, "phone_invalid"), (7, "password_common")]


def test_codes_are_distinct_snake_case_words():
    values = [code.value for code in ErrorCode]
    assert len(values) == len(set(values))
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", value) for value in values)
    assert set(MESSAGE_CODES.values()) <= set(ErrorCode)


def test_a_code_is_its_string_in_json_and_in_comparisons():
    error = ServiceError("Not yet.", code=ErrorCode.NOT_PAID, expose_code=True)
    assert json.dumps({"code": error.code}) == '{"code": "not_paid"}'
    assert error.code == "not_paid" and error.code in ("not_paid",)
