"""Who owns a transaction: the faces, except where a service says so (services/__init__.py).

The first tests read the services' source: no service commits or rolls back a session, and a
function that opens a transaction of its own says so ("Owns its transactions:") in its
docstring and is named under that heading in its module's docstring. The others check the
behaviour on a real database: a service leaves the caller's unit of work alone, and a refusal
that keeps its writes is committed by the face's unit of work.
"""

from __future__ import annotations

import ast
from datetime import UTC, datetime, timedelta
from pathlib import Path

import jwt
import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope, write_session
from discount_deals.services import NotAuthenticated, ValidationFailed, auth, users
from discount_deals.services.auth import login
from discount_deals.config.settings import get_settings

SERVICES = Path(__file__).resolve().parents[2] / "discount_deals" / "services"
HEADING = "Owns its transactions"
# Calls that open a transaction (begin_nested, a savepoint inside the caller's, is not one).
OPENERS = {"write_session", "session_scope", "Session", "connect", "begin"}


def _called_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _functions(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def _own_calls(function: ast.AST):
    """Calls in ``function``'s body, leaving out those of functions defined inside it."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if isinstance(node, ast.Call):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _modules():
    for path in sorted(SERVICES.rglob("*.py")):
        yield path.relative_to(SERVICES.parent), ast.parse(path.read_text(encoding="utf-8"))


def test_no_service_commits_or_rolls_back_a_session():
    found = [
        f"{path}:{call.lineno} {_called_name(call)}()"
        for path, tree in _modules()
        for function in _functions(tree)
        for call in _own_calls(function)
        if _called_name(call) in ("commit", "rollback")
    ]
    assert found == [], "services leave commit and rollback to the unit of work's owner"


def test_a_service_that_opens_a_transaction_says_so_in_its_docstring_and_its_module_docstring():
    unmarked, unlisted, owners = [], [], []
    for path, tree in _modules():
        module_doc = ast.get_docstring(tree) or ""
        for function in _functions(tree):
            if not any(_called_name(call) in OPENERS for call in _own_calls(function)):
                continue
            owners.append(f"{path}:{function.name}")
            if HEADING not in (ast.get_docstring(function) or ""):
                unmarked.append(f"{path}:{function.lineno} {function.name}")
            heading = module_doc.partition(HEADING + ":")[2]
            if not function.name.startswith("_") and function.name not in heading:
                unlisted.append(f"{path} {function.name}")
    assert unmarked == [], f'say "{HEADING}: <why>" in the docstring'
    assert unlisted == [], f'name the function under "{HEADING}:" in the module docstring'
    assert owners, "the scan found no owner at all: it no longer reads the services"


def test_login_leaves_the_callers_unit_of_work_alone_and_keeps_its_count(customer):
    """A refused login rolls back the caller's pending work; only its own count stays."""
    with pytest.raises(NotAuthenticated), session_scope() as session:
        session.add(models.Category(name="Pending", slug="pending"))
        login.login(session, customer.email, "wrong-password", "10.0.0.1")
    with session_scope() as session:
        assert session.exec(select(models.Category).where(models.Category.slug == "pending")).first() is None
        # Counted per account + address and per account (issue 22): each once.
        assert session.exec(select(models.AuthThrottle.hits).where(models.AuthThrottle.scope == "login")).all() == [1]


def test_a_refused_registration_keeps_its_count_but_nothing_else(clean_db):
    data = {"first_name": "Ama", "last_name": "Mensah", "username": "ama", "email": "ama@example.com",
            "password": "akwaaba-deals-7", "phonenumber": "0241234567", "date_of_birth": "1990-01-01", "gender": "female"}
    with write_session() as session:
        users.register(session, data, client="10.0.0.2")
    with pytest.raises(ValidationFailed), write_session() as session:
        users.register(session, data, client="10.0.0.2")  # the email is taken now
    with session_scope() as session:
        assert session.exec(select(models.AuthThrottle.hits)).all() == [2]
        assert len(session.exec(select(models.User)).all()) == 1


def _retired_long_ago(refresh: str) -> str:
    family = jwt.decode(refresh, get_settings().secret_key, algorithms=["HS256"])["fam"]
    with session_scope() as session:
        row = session.get(models.RefreshFamily, family)
        row.floor_raised_at = datetime.now(UTC) - timedelta(minutes=5)
        session.add(row)
    return family


def test_a_reused_refresh_token_is_refused_and_the_unit_of_work_keeps_the_revocation(customer):
    first = auth.issue_tokens(customer).refresh
    with write_session() as session:
        auth.refresh_tokens(session, first)  # creates the family at generation 0
    with write_session() as session:
        second, _user = auth.refresh_tokens(session, first)
    with write_session() as session:
        auth.refresh_tokens(session, second.refresh)  # the first token is retired now
    family = _retired_long_ago(first)
    with pytest.raises(auth.TokenReused), write_session() as session:
        auth.refresh_tokens(session, first)
    with session_scope() as session:
        assert session.get(models.RefreshFamily, family).revoked_at is not None


def test_any_other_refusal_rolls_the_unit_of_work_back(customer):
    with pytest.raises(NotAuthenticated), write_session() as session:
        user = session.get(models.User, customer.id)
        user.first_name = "Changed"
        session.add(user)
        session.flush()
        auth.refresh_tokens(session, "not-a-token")
    with session_scope() as session:
        assert session.get(models.User, customer.id).first_name != "Changed"
