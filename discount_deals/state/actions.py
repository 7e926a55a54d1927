"""One way for an event handler to run a service call: a busy flag, the spec's toasts, a log line.

Every screen that changes something did the same dance: refuse a second click while the first
runs, show the busy state, call the service, toast success or the refusal (or a fixed sentence
when something unexpected broke, which is logged), and clear the flag whatever happened.
:func:`busy_call` is that dance once::

    @rx.event
    async def save(self, form: dict):
        user = ...  # who is asking: checked before, each state has its own way
        async for update in busy_call(
            self, "saving", lambda: self._save(user, form),
            success=("Profile updated", PROFILE_UPDATED),
            failure=("Update failed", "Could not update profile."),
            describe=error_text,
        ):
            yield update

``work`` runs with the state lock held (as every non-background handler does); it may be a
coroutine function. ``success`` is a (title, description) pair, a function of the result
giving one (or None for no toast), or None.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import reflex as rx

from ..services import ServiceError

log = logging.getLogger("discount_deals.state")

Toast = tuple[str, str | None] | tuple[str, str | None, str]  # (title, description or None[, kind])


def toast(spec: Toast | None):
    """A toast event from (title, description[, kind]) (kind: success, error, warning, info)."""
    if spec is None:
        return None
    title, description, *kind = spec
    show = getattr(rx.toast, kind[0] if kind else "success")
    return show(title) if description is None else show(title, description=description)


def refusal_detail(exc: ServiceError) -> str:
    return exc.detail


async def busy_call(
    state: rx.State,
    flag: str | None,
    work: Callable[[], Any],
    *,
    success: Toast | Callable[[Any], Toast | None] | None = None,
    failure: tuple[str, str | None] = ("Error", "Something went wrong. Please try again."),
    describe: Callable[[ServiceError], str] = refusal_detail,
    on_refusal: Callable[[ServiceError], Any] | None = None,
    busy: bool | str = True,
    passes: tuple[type[BaseException], ...] = (),
) -> AsyncIterator[Any]:
    """Run ``work`` with ``state.<flag>`` set to ``busy`` (ignored while it is set already),
    then toast; the flag goes back to False (or "" for a text flag naming what is busy).

    A service refusal is toasted as ``failure[0]`` with ``describe(exc)`` (``failure[1]`` when
    that is empty) and handed to ``on_refusal`` (e.g. to reload what is shown); exceptions in
    ``passes`` (e.g. an expired session the handler redirects on) reach the caller; anything
    else is logged and toasted as ``failure``."""
    if flag is not None:
        if getattr(state, flag):
            return
        setattr(state, flag, busy)
        yield None  # the busy state reaches the browser before the work starts
    try:
        result = work()
        if inspect.isawaitable(result):
            result = await result
    except passes:
        raise
    except ServiceError as exc:
        if on_refusal is not None:
            on_refusal(exc)
        yield toast((failure[0], describe(exc) or failure[1] or None, "error"))
    except Exception:
        log.exception("%s.%s failed", type(state).__name__, getattr(work, "__name__", "work"))
        yield toast((failure[0], failure[1] or None, "error"))
    else:
        event = toast(success(result) if callable(success) else success)
        if event is not None:
            yield event
    finally:
        if flag is not None:
            setattr(state, flag, type(busy)())


def load_list(state: rx.State, load: Callable[[], None], what: str) -> Iterator[None]:
    """Refill a list screen: ``state.loading`` on (and ``state.failed`` off) while ``load`` runs,
    shown to the browser first; an unexpected error is logged as "``what`` failed" and leaves
    ``state.failed`` set (the screen's error state). Handlers yield what this yields."""
    state.loading = True
    state.failed = False
    yield None
    try:
        load()
    except Exception:
        log.exception("%s failed", what)
        state.failed = True
    finally:
        state.loading = False
