"""routes.py builds every page address with an id or a token in it (issue 35 item 4): an order's
page, its receipt, a product's page, a category's listing, a credit note, the reset, undo and
unsubscribe links. Nothing else in the package builds one by hand (read from the source)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import reflex as rx

from discount_deals import routes

PACKAGE = Path(__file__).resolve().parents[2] / "discount_deals"

# A literal that is the start (or the end) of one of those addresses.
HAND_BUILT = re.compile(
    r"^/(orders|products|returns)/|^/(products|reset-password|undo-change|unsubscribe)\?|^/(receipt|credit-note)$"
)
# The pages whose addresses routes.py builds: joined with anything, one is built by hand.
BUILT_BY_ROUTES = {"ORDERS", "PRODUCTS", "RETURNS", "RESET_PASSWORD", "UNDO_CHANGE", "UNSUBSCRIBE"}


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value) for node in ast.walk(tree)
        if isinstance(node, kinds) and node.body and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def _route_templates(tree: ast.AST) -> set[int]:
    """The API's own paths (``@router.get("/orders/{order_id}/")``): routes, not page addresses."""
    return {
        id(argument) for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        for decorator in node.decorator_list if isinstance(decorator, ast.Call) for argument in decorator.args
    }


def _is_built_by_routes(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "routes"
            and node.attr in BUILT_BY_ROUTES)


def _joins_a_route(node: ast.AST) -> bool:
    """An f-string or a ``+`` that adds to ``routes.ORDERS`` (or another page built by routes):
    ``f"{routes.ORDERS}/{order_id}"``. Putting a base in front (an absolute address) is fine."""
    if isinstance(node, ast.JoinedStr):
        parts = [part.value if isinstance(part, ast.FormattedValue) else part for part in node.values]
        return any(_is_built_by_routes(part) for part in parts[:-1])
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and _is_built_by_routes(node.left)


def hand_built_addresses(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _docstrings(tree) | _route_templates(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped:
            if HAND_BUILT.search(node.value):
                found.append(f"{node.lineno}: {node.value!r}")
        elif _joins_a_route(node):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_page_address_is_built_by_hand_outside_routes():
    offenders = {
        str(path.relative_to(PACKAGE)): hand_built_addresses(path)
        for path in sorted(PACKAGE.rglob("*.py")) if path != PACKAGE / "routes.py"
    }
    assert {path: found for path, found in offenders.items() if found} == {}


def test_the_check_sees_an_address_built_by_hand(tmp_path):
    source = tmp_path / "example.py"
    source.write_text(
        'from discount_deals import routes\n'
        'a = f"/orders/{order_id}"\n'
        'b = "/returns/" + return_id + "/credit-note"\n'
        'c = f"{routes.PRODUCTS}/{product_id}"\n'
        'd = routes.ORDERS + "/" + order_id\n'
        'e = routes.order_path(order_id)\n'
        'f = base + routes.PRODUCTS\n',
        encoding="utf-8",
    )
    assert {line.split(":")[0] for line in hand_built_addresses(source)} == {"2", "3", "4", "5"}


def test_the_builders_make_the_pages_addresses():
    assert routes.order_path("o1") == "/orders/o1"
    assert routes.receipt_path("o1") == "/orders/o1/receipt"
    assert routes.product_path("p1") == "/products/p1"
    assert routes.credit_note_path("r1") == "/returns/r1/credit-note"
    assert routes.category_path("rice & grains") == "/products?category=rice%20%26%20grains"
    assert routes.products_path(brand="melcom", search="", page=2) == "/products?brand=melcom&page=2"
    assert routes.products_path() == "/products"
    assert routes.reset_path() == "/reset-password"
    assert routes.reset_path("a-b_c") == "/reset-password?token=a-b_c"
    assert routes.undo_change_path("x.y/z") == "/undo-change?token=x.y%2Fz"
    assert routes.unsubscribe_path("u.orders.sig") == "/unsubscribe?token=u.orders.sig"


def test_the_builders_take_a_reflex_var_for_links_in_components():
    order_id = rx.Var.create("o1")
    assert str(routes.order_path(order_id)) == str(rx.Var.create("/orders/") + order_id)
    assert "/receipt" in str(routes.receipt_path(order_id))
    assert "/credit-note" in str(routes.credit_note_path(order_id))


def test_ids_are_read_back_from_their_pages_paths():
    assert routes.order_id_in("/orders/o1") == "o1"
    assert routes.product_id_in("/products/p1") == "p1"
    assert routes.product_id_in("/products") == routes.order_id_in("/cart") == ""
