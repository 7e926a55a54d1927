"""Order, payment and charge states are compared as enums (issue 33, item 6): no comparison of a
state attribute with a bare string such as ``order.payment_status == "paid"`` is left in the
package (pages compare Reflex Vars with the enum's ``.value``). Read from the source."""

from __future__ import annotations

import ast
from pathlib import Path

from discount_deals.models import CouponKind, DeliveryMethod, OrderStatus, PaymentAttemptStatus, PaymentMethod
from discount_deals.models import PaymentStatus

PACKAGE = Path(__file__).resolve().parents[2] / "discount_deals"
STATE_ATTRIBUTES = {"status", "payment_status", "payment_method", "delivery_method", "to_value", "from_value", "kind"}
STATES = {member.value for enum in (OrderStatus, PaymentStatus, PaymentMethod, DeliveryMethod, PaymentAttemptStatus,
                                    CouponKind) for member in enum}


def _literals(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [text for item in node.elts for text in _literals(item)]
    return []


def bare_state_comparisons(source: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        if any(isinstance(side, ast.Attribute) and side.attr in STATE_ATTRIBUTES for side in sides):
            found += [(node.lineno, text) for side in sides for text in _literals(side) if text in STATES]
    return found


def test_states_are_compared_as_enums():
    offenders = {str(path.relative_to(PACKAGE)): bare_state_comparisons(path.read_text(encoding="utf-8"))
                 for path in sorted(PACKAGE.rglob("*.py"))}
    assert {path: found for path, found in offenders.items() if found} == {}


def test_the_scan_sees_bare_states():
    source = '''
if order.payment_status == "paid" and order.status in ("pending", "processing"):
    pass
x = D.payment_status != "refunded"
y = coupon.kind == CouponKind.PERCENT or self.filter == "pending" or event.kind == "status"
'''
    assert sorted(bare_state_comparisons(source)) == [(2, "paid"), (2, "pending"), (2, "processing"), (4, "refunded")]


def test_charge_outcomes_are_the_payment_attempt_states():
    from discount_deals.services.payments import FAILED, MISMATCH, PENDING, SUCCESS

    assert (SUCCESS, FAILED, PENDING, MISMATCH) == tuple(PaymentAttemptStatus[name] for name in (
        "SUCCESS", "FAILED", "PENDING", "MISMATCH"))
    assert SUCCESS == "success"  # stored and reported as the same strings as before
