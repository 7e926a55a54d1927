"""Two admins press "Refund in cash" on one return whose mobile-money refund failed, at once
(PostgreSQL: SQLite serialises writers, so the second press reads the return refunded already).

Found by a review: the press that lost read the return received before it waited for the order's
lock, and once the winner's cash refund was in it was told 409 "Cash is only for a mobile-money
refund that did not go through…", as if the refund had never failed, not that the return is
refunded (services/returns/refunds.plan_refund now checks the return once the lock is its own)."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest

from discount_deals import models
from discount_deals.config.settings import get_settings
from discount_deals.services import returns

from ..builders.checkout import order_row
from ..builders.returns import return_row
from .test_races_postgres import row_held, start_together
from .test_refund_in_cash import refused_return

pytestmark = pytest.mark.skipif(
    get_settings().is_sqlite,
    reason="SQLite serialises writers (one write lock): run under scripts/with-postgres.sh (make test-postgres)",
)


def test_the_cash_press_that_lost_hears_the_return_is_refunded(api_app, client, customer, make_product,
                                                               admin_headers):
    product = make_product(price="10.00", stock=10)
    order, ret = refused_return(client, customer, admin_headers, product)
    url = f"/api/admin/returns/{ret['id']}/refund/"

    def press(own):
        return own.post(url, json={"method": "cash"}, headers=admin_headers)

    with row_held(models.Order, order["id"]) as wait_for:
        finish = start_together(api_app, [press, press])
        wait_for(2)  # both read the return received, its refund failed, and wait for the order's lock
    answers = finish()

    assert Counter(answer.status_code for answer in answers) == {200: 1, 409: 1}, [a.text for a in answers]
    (lost,) = [answer.json() for answer in answers if answer.status_code == 409]
    assert lost == {"detail": "This return is refunded: it cannot be refunded now.", "code": returns.WRONG_STATUS}
    row = return_row(ret["id"])
    assert (row.status, row.refund_method, row.refund_amount) == ("refunded", "cash", Decimal("10.80"))
    assert order_row(order["id"]).refunded_total == Decimal("10.80")  # paid once
