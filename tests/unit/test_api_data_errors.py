"""A value the database refuses (PostgreSQL: a NUL in text, a number out of range) is bad input
that a service's check let through: the API answers 400 in its one error shape, not a 500."""

from __future__ import annotations

import json

import psycopg
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.exc import DataError

from discount_deals.api import errors


def test_a_value_the_database_refuses_is_a_400():
    app = FastAPI()
    errors.install(app)

    @app.get("/nul")
    def nul():
        raise DataError("SELECT 1", {}, psycopg.DataError("PostgreSQL text fields cannot contain NUL (0x00) bytes"))

    answer = TestClient(app, raise_server_exceptions=False).get("/nul")
    assert answer.status_code == 400
    assert json.loads(answer.text) == {"detail": errors.INVALID_VALUE}
