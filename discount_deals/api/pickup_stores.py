"""The pickup stores: the shop's list (active ones; admins may ask for all) and the admins'
create, change and delete."""

from __future__ import annotations

from typing import Any

from fastapi import Request, Response

from ..models import PickupStore
from ..services import pickup_stores as store_service
from ..services.permissions import require_admin
from .deps import AdminUser, OptionalUser, SessionDep, WriteSessionDep
from .openapi import declares, documents, paginated
from .pagination import build_page, page_request
from .response_models import StoreOut, StorePage
from .routing import ApiRouter

STORES_PAGE_SIZE = 100

router = ApiRouter(tags=["checkout"])


def store_json(store: PickupStore, *, admin: bool = False) -> dict:
    """A store as the shop shows it (what an order keeps of it), with ``is_active`` for admins."""
    data = store_service.snapshot(store)
    if admin:
        data["is_active"] = store.is_active
    return data


@router.get("/pickup-stores/", **documents(StorePage))
@paginated
@declares(403)
def list_stores(request: Request, session: SessionDep, user: OptionalUser) -> dict:
    """Active stores; admins may ask for all of them with ``?all=1``. Paged as every list is
    (``page``, ``page_size``), a page holding every store of a shop by default."""
    everything = request.query_params.get("all") in ("1", "true")
    if everything:
        require_admin(user)
    page = page_request(request, default_size=STORES_PAGE_SIZE)
    stores = store_service.list_stores(session, include_inactive=everything)
    chunk = stores[page.offset : page.offset + page.page_size]
    return build_page(request, page, len(stores), [store_json(store, admin=everything) for store in chunk])


@router.post("/pickup-stores/", status_code=201, **documents(StoreOut, 201))
@declares(403)
def create_store(body: dict[str, Any], session: WriteSessionDep, user: AdminUser) -> dict:
    return store_json(store_service.create_store(session, user, body), admin=True)


@router.patch("/pickup-stores/{store_id}/", **documents(StoreOut))
@declares(403)
def update_store(store_id: str, body: dict[str, Any], session: WriteSessionDep, user: AdminUser) -> dict:
    return store_json(store_service.update_store(session, user, store_id, body), admin=True)


@router.delete("/pickup-stores/{store_id}/", status_code=204)
@declares(403)
def delete_store(store_id: str, session: WriteSessionDep, user: AdminUser) -> Response:
    store_service.delete_store(session, user, store_id)
    return Response(status_code=204)
