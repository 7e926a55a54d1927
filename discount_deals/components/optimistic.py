"""Results shown at the tap, put right by the server's answer (issue 31: one round trip a tap,
with the result shown at once).

On a phone network the answer to a tap takes 100-800 ms. For the cart and the favourites the
browser shows what the answer will most likely be at once: the badge counts one more, the
heart fills, the line's quantity changes. Each tap's expectation is kept in the browser (a
Reflex client state) with the tap's time as its number; the event carries that number, and the
state that answers it records the last number it has answered (``acked_seq``) in the same
update that brings the new truth. The page shows the expectation while its number is newer
than the last answer, and the server's values once the answer is in: a refusal puts the page
right by itself, with no second update to wait for and no flicker between two updates.

The tap's time comes from the browser's own clock on both sides of the comparison, so no clock
has to agree with the server's.
"""

from __future__ import annotations

from string import Template
from typing import Any

import reflex as rx
from reflex.experimental.client_state import ClientStateVar
from reflex.vars import VarData

from ..state.shop.cart import CartState
from ..state.shop.favorites import FavoritesState

# {seq: the last tap's time, count: the badge, lines: {line key: quantity}}
CART_EXPECTED = ClientStateVar.create("dd_cart_expected", default={"seq": 0, "count": 0, "lines": {}})
# {seq, count: the badge, on: {product id: favourite or not}}
FAVOURITES_EXPECTED = ClientStateVar.create("dd_favourites_expected", default={"seq": 0, "count": 0, "on": {}})


def js(template: str, type_: Any = Any, **parts: Any) -> rx.Var:
    """A JavaScript expression: ``template`` with each ``$name`` replaced by that Var's own
    expression (its imports and hooks come along)."""
    parts = {name: rx.Var.create(value) for name, value in parts.items()}
    var = rx.Var(
        _js_expr=Template(template).substitute({name: str(var) for name, var in parts.items()}),
        _var_data=VarData.merge(*(var._get_all_var_data() for var in parts.values())),
    )
    return var if type_ is Any else var.to(type_)


def _pending(expected: ClientStateVar, answered: rx.Var) -> rx.Var:
    """Whether the last tap's answer has yet to come."""
    return js("(($expected)?.seq > $answered)", bool, expected=expected.value, answered=answered)


# --- the cart ------------------------------------------------------------------------------------


def cart_count() -> rx.Var:
    """The cart badge: the count expected after the last tap until its answer, then the server's."""
    return js("($pending ? ($expected).count : $count)", int, pending=_pending(CART_EXPECTED, CartState.acked_seq),
              expected=CART_EXPECTED.value, count=CartState.item_count)


def line_quantity(key: rx.Var, quantity: rx.Var) -> rx.Var:
    """A cart line's quantity as the page shows it (0: removed, the line hidden)."""
    return js("(($pending && ($expected).lines?.[$key] !== undefined) ? ($expected).lines[$key] : $quantity)", int,
              pending=_pending(CART_EXPECTED, CartState.acked_seq), expected=CART_EXPECTED.value, key=key,
              quantity=quantity)


def expect_cart(added: Any, line: rx.Var | None = None, quantity: Any = None) -> rx.Var:
    """At the tap: expect the badge to count ``added`` more (and the line ``line`` to hold
    ``quantity``); the tap's number, for the event to carry."""
    template = (
        "((add, key, qty) => { const now = Date.now(); const seq = Math.max(now, ($expected)?.seq + 1 || 0);"
        " const lines = $pending ? { ...(($expected).lines || {}) } : {};"
        " if (key !== null) { lines[key] = qty; }"
        " $set({ seq: seq, count: Math.max(0, $count + add), lines: lines }); return seq; })($added, $line, $qty)"
    )
    return js(template, int, expected=CART_EXPECTED.value, pending=_pending(CART_EXPECTED, CartState.acked_seq),
              set=CART_EXPECTED.set, count=cart_count(), added=added,
              line=line if line is not None else rx.Var("null"), qty=quantity if quantity is not None else rx.Var("null"))


# --- the favourites ------------------------------------------------------------------------------


def favourites_count() -> rx.Var:
    return js("($pending ? ($expected).count : $count)", int,
              pending=_pending(FAVOURITES_EXPECTED, FavoritesState.acked_seq), expected=FAVOURITES_EXPECTED.value,
              count=FavoritesState.count)


def is_favourite(product_id: rx.Var) -> rx.Var:
    """Whether the heart of ``product_id`` shows filled."""
    return js("(($pending && ($expected).on?.[$id] !== undefined) ? ($expected).on[$id] : $saved)", bool,
              pending=_pending(FAVOURITES_EXPECTED, FavoritesState.acked_seq), expected=FAVOURITES_EXPECTED.value,
              id=product_id, saved=FavoritesState.ids.contains(product_id))


def expect_favourite_toggle(product_id: rx.Var) -> rx.Var:
    """At the tap of a heart: expect it the other way round, and the badge to follow."""
    template = (
        "((id, was) => { const now = Date.now(); const seq = Math.max(now, ($expected)?.seq + 1 || 0);"
        " const on = $pending ? { ...(($expected).on || {}) } : {}; on[id] = !was;"
        " $set({ seq: seq, count: Math.max(0, $count + (was ? -1 : 1)), on: on }); return seq; })($id, $was)"
    )
    return js(template, int, expected=FAVOURITES_EXPECTED.value,
              pending=_pending(FAVOURITES_EXPECTED, FavoritesState.acked_seq), set=FAVOURITES_EXPECTED.set,
              count=favourites_count(), id=product_id, was=is_favourite(product_id))


# --- a form's submit -----------------------------------------------------------------------------

# {form key: the time of its last submit}. A form's button says it is busy ("Logging in...") from
# the tap, not one round trip later: the state that answers records the tap's number it has seen
# (``answered_tap``, in the same update that turns its own busy flag on, or that refuses at once).
SUBMITS = ClientStateVar.create("dd_submits", default={})


def submit_tap(key: str) -> rx.Var:
    """At a submit: note the form ``key`` as sent now; the tap's number, for the event to carry."""
    template = (
        "((key) => { const sent = ($submits) || {}; const seq = Math.max(Date.now(), (sent[key] || 0) + 1);"
        " $set({ ...sent, [key]: seq }); return seq; })($key)"
    )
    return js(template, int, submits=SUBMITS.value, set=SUBMITS.set, key=key)


def sent_unanswered(key: str, answered: rx.Var) -> rx.Var:
    """Whether the form ``key``'s last submit has yet to be seen by its state."""
    return js("((($submits) || {})[$key] || 0) > $answered", bool, submits=SUBMITS.value, key=key,
              answered=answered)


# --- a tap lost with the connection --------------------------------------------------------------

_LOST_AT = "const ddLostAt = useRef(0)"
# When the app's websocket is back after it dropped, what was tapped before the drop may never
# have reached the shop (a frame sent into a connection already dead is not sent again): its
# expectation is dropped, so the page shows the shop's values (sent again at the reconnection)
# and a form's button is usable again, instead of "Placing order..." or a badge one too high for
# good. Taps made while offline are queued by the app and sent once it is back: they are kept.
# Reflex's client calls window.__reflex_otel's onSocketDisconnect/onSocketConnect at each drop
# and (re)connection, whatever the outage's length (its connection errors only show when a
# retry fails); the handlers found there are called too.
_FORGET_LOST = """useEffect(() => {
  const hooks = (window.__reflex_otel = window.__reflex_otel || {});
  const before = { down: hooks.onSocketDisconnect, up: hooks.onSocketConnect };
  hooks.onSocketDisconnect = (reason) => { if (!ddLostAt.current) { ddLostAt.current = Date.now(); } before.down?.(reason); };
  hooks.onSocketConnect = () => {
    const since = ddLostAt.current; ddLostAt.current = 0;
    if (since) {
      const cart = $cart; if (cart?.seq && cart.seq < since) { $set_cart({ seq: 0, count: 0, lines: {} }); }
      const hearts = $hearts; if (hearts?.seq && hearts.seq < since) { $set_hearts({ seq: 0, count: 0, on: {} }); }
      const sent = $submits || {};
      const kept = Object.fromEntries(Object.entries(sent).filter(([, seq]) => seq >= since));
      if (Object.keys(kept).length !== Object.keys(sent).length) { $set_submits(kept); }
    }
    before.up?.();
  };
  return () => { hooks.onSocketDisconnect = before.down; hooks.onSocketConnect = before.up; };
}, [])"""


class ForgetLostTaps(rx.Fragment):
    """Renders nothing; its hook drops the expectations of taps a lost connection may have eaten."""

    def add_imports(self) -> dict:
        return {"react": ["useEffect", "useRef"]}

    def add_hooks(self) -> list[str | rx.Var]:
        return [_LOST_AT, js(_FORGET_LOST, cart=CART_EXPECTED.value, set_cart=CART_EXPECTED.set,
                             hearts=FAVOURITES_EXPECTED.value, set_hearts=FAVOURITES_EXPECTED.set,
                             submits=SUBMITS.value, set_submits=SUBMITS.set)]
