"""``GET /api/health``: the API is up and the database answers."""

from __future__ import annotations

from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from ..db import get_engine
from .routing import ApiRouter

router = ApiRouter(tags=["health"])


class Health(BaseModel):
    status: str
    database: str


@router.get("/health/", response_model=Health, responses={503: {"model": Health}})
def health():
    try:
        with get_engine().connect() as connection:
            connection.execute(text("SELECT 1"))
    except SQLAlchemyError:
        return JSONResponse({"status": "error", "database": "unreachable"}, status_code=503)
    return {"status": "ok", "database": "ok"}
