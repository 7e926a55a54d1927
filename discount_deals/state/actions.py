"""The one way an event handler does I/O: a busy flag, the spec's toasts, a logged failure, an
error state. Two members, one for each kind of handler:

- :func:`busy_call` for an action (save, delete, place, pay): refuse a second click while the
  first runs, show the busy state, run the work, toast success or the refusal (or a fixed
  sentence when something unexpected broke, which is logged), clear the flag whatever happened::

      @user_event
      async def save(self, user: User, form: dict):
          async for update in busy_call(
              self, "saving", lambda: self._save(user, form),
              success=("Profile updated", PROFILE_UPDATED),
              failure=("Update failed", "Could not update profile."),
              describe=error_text,
          ):
              yield update

- :func:`load_list` for filling a screen: ``loading`` on (and ``failed`` off) while it loads,
  shown to the browser first; a failure is logged and leaves ``failed`` set.

Both work in background events too (``@rx.event(background=True)``): there the flags change
under the state lock (``async with self``) and the work runs without it, so a provider call or a
pause never holds the tab's lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import reflex as rx
from reflex.istate.proxy import StateProxy

from ..services import ServiceError
from .forms import int_arg

log = logging.getLogger("discount_deals.state")

Toast = tuple[str, str | None] | tuple[str, str | None, str]  # (title, description or None[, kind])
UNEXPECTED = ("Error", "Something went wrong. Please try again.")


def seq_number(value: Any) -> int:
    """A tap's number as the browser sent it (components/optimistic.py); 0 when it is not one."""
    number = int_arg(value)
    return number if 0 < number < 2**53 else 0


# Toasts of one subject replace each other instead of piling up (issue 31): the newest says where
# things stand ("Enter the code" goes when "Payment successful" comes). A title not listed is a
# subject of its own (the same toast twice shows once).
TOAST_SUBJECTS: dict[str, tuple[str, ...]] = {
    "cart": ("Added to cart!", "Quantity updated successfully!", "Item removed successfully!", "Not enough stock",
             "No longer available", "Coupon added", "Enter a coupon code first", "Login Required"),
    "favourites": ("Added to favorites", "Removed from favorites"),
    "checkout": ("Address Required", "Check the address", "Address added", "Pickup store required",
                 "Mobile money number required", "Contact phone required", "Checkout Error", "Checkout Failed",
                 "Your order changed", "Order placed", "Coupon applied"),
    "payment": ("Redirecting to payment...", "Payment not started", "Payment successful", "Payment failed",
                "Payment being checked", "Enter the code", "Waiting for your payment", "Payment not completed"),
}
_SUBJECT_OF = {title: subject for subject, titles in TOAST_SUBJECTS.items() for title in titles}


def toast_id(title: str) -> str:
    """The id a toast is shown under: toasts with one id replace each other."""
    return "toast-" + _SUBJECT_OF.get(title, title)


# How long a toast stays (sonner's default, 4 s) and a count that makes each toast's lifetime a
# little different: sonner restarts a toast's timer only when its duration changes, so a toast
# that replaced another in the last moments of its life inherited them and vanished at once
# ("Quantity updated successfully!" gone within 0.2 s). A new duration gives it its full time.
TOAST_MS = 4000
_toast_count = itertools.count()


def toast(spec: Toast | None, subject: str | None = None):
    """A toast event from (title, description[, kind]) (kind: success, error, warning, info);
    it replaces the toast of its subject on screen (:data:`TOAST_SUBJECTS`, or ``subject`` for
    titles made of data, such as /test-home's "Shoprite Selected")."""
    if spec is None:
        return None
    title, description, *kind = spec
    show = getattr(rx.toast, kind[0] if kind else "success")
    # A toast that replaces another keeps what it does not say: "Quantity updated successfully!"
    # showed the add's "... has been added to your cart." under it. No description is an empty one.
    return show(title, description=description or "", id=f"toast-{subject}" if subject else toast_id(title),
                duration=TOAST_MS + next(_toast_count) % 100)


def refusal_detail(exc: ServiceError) -> str:
    return exc.detail


def error_text(exc: ServiceError) -> str:
    """A service refusal as one line: its field errors ("email: ...") when it has any, else its message."""
    if exc.fields:
        return "; ".join(f"{name}: {' '.join(messages)}" for name, messages in exc.fields.items())
    return exc.detail


def locked(state: Any):
    """``async with locked(state):`` takes the state lock in a background event (whose ``self`` is
    a proxy that may change state only inside ``async with self``); a foreground event holds the
    lock already, so there it does nothing."""
    return state if isinstance(state, StateProxy) else contextlib.nullcontext()


async def busy_call(
    state: rx.State,
    flag: str | None,
    work: Callable[[], Any],
    *,
    success: Toast | Callable[[Any], Toast | None] | None = None,
    failure: tuple[str, str | None] = UNEXPECTED,
    describe: Callable[[ServiceError], str] = refusal_detail,
    on_refusal: Callable[[ServiceError], Any] | None = None,
    busy: bool | str = True,
    passes: tuple[type[BaseException], ...] = (),
    then: Callable[[Any], Any] | None = None,
) -> AsyncIterator[Any]:
    """Run ``work`` (a function, or a coroutine function) with ``state.<flag>`` set to ``busy``
    (ignored while it is set already), then toast; the flag goes back to False (or "" for a text
    flag naming what is busy).

    ``success`` is a (title, description) pair or a function of the result giving one (or None
    for no toast); ``then`` gives the events that follow a success (e.g. a redirect; it may be an
    async generator, which runs without the lock in a background event). A service
    refusal is handed to ``on_refusal`` (e.g. to reload what is shown; under the state lock) and
    toasted as ``failure[0]`` with ``describe(exc)`` (``failure[1]`` when that is empty), unless
    ``on_refusal`` returns the events to show instead; exceptions in ``passes`` reach the caller;
    anything else is logged and toasted as ``failure``."""
    busy = busy if isinstance(busy, bool | str) else str(busy)  # an id as the browser sent it
    if flag is not None:
        async with locked(state):
            if getattr(state, flag):
                return
            setattr(state, flag, busy)
        yield None  # the busy state reaches the browser before the work starts
    try:
        result = await off_the_loop(work)
    except passes:
        raise
    except ServiceError as exc:
        shown = None
        if on_refusal is not None:
            async with locked(state):
                shown = on_refusal(exc)
        yield shown if shown is not None else toast((failure[0], describe(exc) or failure[1] or None, "error"))
    except Exception:
        log.exception("%s.%s failed", type(state).__name__, getattr(work, "__name__", "work"))
        yield toast((failure[0], failure[1] or None, "error"))
    else:
        event = toast(success(result) if callable(success) else success)
        if event is not None:
            yield event
        if then is not None:
            async for event in events_of(then(result)):
                yield event
    finally:
        if flag is not None:
            async with locked(state):
                setattr(state, flag, type(busy)())


async def off_the_loop(work: Callable[[], Any]) -> Any:
    """Run ``work`` in a worker thread (awaiting what it returns, if anything, in the loop).

    Why: on SQLite a write waits for the database's one write lock. Waited for in the event
    loop's thread, that wait stopped every tab of the worker, and it could not end while the
    lock's holder was an API request whose commit needs the loop (its session closes in a
    thread the loop dispatches): each such overlap froze the shop for the 5 s busy timeout and
    failed the click ("database is locked"; bench/ui_load.py with the API clearing carts). A
    foreground event keeps its tab's state lock meanwhile, as it did while ``work`` ran in the
    loop; other tabs go on."""
    if inspect.iscoroutinefunction(work):
        return await work()
    result = await asyncio.to_thread(work)
    if inspect.isawaitable(result):
        result = await result
    return result


async def events_of(result: Any) -> AsyncIterator[Any]:
    """Whatever a handler or a step gave (an event or a list of them, a coroutine, a generator,
    an async generator) as the events it stands for, one by one, as Reflex would take them."""
    if inspect.isawaitable(result):
        result = await result
    if inspect.isasyncgen(result):
        async for event in result:
            yield event
    elif inspect.isgenerator(result):
        try:
            while True:
                yield next(result)
        except StopIteration as stop:
            if stop.value is not None:
                yield stop.value
    elif result is not None:
        yield result


def load_list(
    state: rx.State,
    load: Callable[[], Any],
    what: str,
    *,
    loading: str | None = "loading",
    failed: str | None = "failed",
    on_error: Callable[[Exception], Any] | None = None,
) -> Iterator[Any]:
    """Fill a screen: ``state.<loading>`` on (and ``state.<failed>`` off) while ``load`` runs,
    shown to the browser first; a refusal is logged as a warning, anything else as "``what``
    failed", and either leaves ``state.<failed>`` set (the screen's error state) and gives the
    exception to ``on_error``. What ``load`` or ``on_error`` return (an event, or None) follows.
    Handlers yield (or return) what this yields; pass None for a flag the screen does not have."""
    _flag(state, loading, True)
    _flag(state, failed, False)
    if loading is not None:
        yield None
    try:
        after = load()
    except Exception as exc:
        if isinstance(exc, ServiceError):
            log.warning("%s refused: %s", what, exc.detail)
        else:
            log.exception("%s failed", what)
        _flag(state, failed, True)
        after = on_error(exc) if on_error is not None else None
    finally:
        _flag(state, loading, False)
    if after is not None:
        yield after


def _flag(state: Any, name: str | None, value: bool) -> None:
    if name is not None:
        setattr(state, name, value)
