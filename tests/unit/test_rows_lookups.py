"""services.rows: "the owner's or an admin's" and "visible, or an admin's" lookups.

Someone else's row, and a hidden one, answer exactly as a missing one (ids cannot be probed);
admins find every row.
"""

from __future__ import annotations

import pytest

from discount_deals import models
from discount_deals.services import NotFound, rows
from discount_deals.services.catalog import is_visible

MISSING = "Nothing here."


@pytest.fixture
def favourite(session, customer, make_product) -> models.Favourite:
    """A row owned by ``customer`` (through its ``user_id``)."""
    row = models.Favourite(user_id=customer.id, product_id=make_product().id)
    session.add(row)
    session.commit()
    return row


def test_owned_or_admin_finds_the_owners_row(session, customer, favourite):
    assert rows.owned_or_admin(session, models.Favourite, favourite.id, customer, MISSING).id == favourite.id


def test_owned_or_admin_finds_nothing_for_an_unknown_id(session, customer, favourite):
    for unknown in ("no-such-id", "", 42, None):
        with pytest.raises(NotFound) as refused:
            rows.owned_or_admin(session, models.Favourite, unknown, customer, MISSING)
        assert refused.value.detail == MISSING


def test_owned_or_admin_answers_someone_elses_row_as_missing(session, make_user, favourite):
    with pytest.raises(NotFound) as refused:
        rows.owned_or_admin(session, models.Favourite, favourite.id, make_user(), MISSING)
    assert refused.value.detail == MISSING


def test_owned_or_admin_finds_any_row_for_an_admin(session, admin, favourite):
    assert rows.owned_or_admin(session, models.Favourite, favourite.id, admin, MISSING).id == favourite.id


def test_owned_or_admin_reads_the_owner_from_the_field_named(session, customer, make_user, admin):
    """A user row is its own owner (``id``): themselves or an admin, nobody else."""
    assert rows.owned_or_admin(session, models.User, customer.id, customer, MISSING, owner_field="id").id == customer.id
    assert rows.owned_or_admin(session, models.User, customer.id, admin, MISSING, owner_field="id").id == customer.id
    with pytest.raises(NotFound):
        rows.owned_or_admin(session, models.User, customer.id, make_user(), MISSING, owner_field="id")


def test_visible_or_admin_finds_a_visible_row_for_anyone(session, customer, make_product):
    product = make_product()
    for actor in (None, customer):
        assert rows.visible_or_admin(session, models.Product, product.id, actor, is_visible, MISSING).id == product.id


def test_visible_or_admin_finds_nothing_for_an_unknown_id(session, admin):
    for unknown in ("no-such-id", "", 42):
        with pytest.raises(NotFound) as refused:
            rows.visible_or_admin(session, models.Product, unknown, admin, is_visible, MISSING)
        assert refused.value.detail == MISSING


@pytest.mark.parametrize("hidden", [{"status": "inactive"}, {"is_available": False}])
def test_visible_or_admin_answers_a_hidden_row_as_missing_to_shoppers(session, customer, make_product, hidden):
    product = make_product(**hidden)
    for actor in (None, customer):
        with pytest.raises(NotFound) as refused:
            rows.visible_or_admin(session, models.Product, product.id, actor, is_visible, MISSING)
        assert refused.value.detail == MISSING


def test_visible_or_admin_finds_a_hidden_row_for_an_admin(session, admin, make_product):
    product = make_product(status="inactive")
    assert rows.visible_or_admin(session, models.Product, product.id, admin, is_visible, MISSING).id == product.id


def test_shown_to_checks_a_row_already_read(customer, admin, make_product):
    """For a row read with more than ``session.get`` (the product page joins its category)."""
    hidden = make_product(is_available=False)
    assert rows.shown_to(hidden, admin, is_visible, MISSING) is hidden
    for row in (hidden, None):
        with pytest.raises(NotFound):
            rows.shown_to(row, customer, is_visible, MISSING)
