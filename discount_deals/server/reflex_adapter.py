"""Every use of Reflex that is not its public ``rx`` API, in one place.

The launcher serves the app as ``reflex run --env prod`` does, the first-HTML renderer reads the
pages Reflex pre-rendered, the build plugin edits React Router's config file that Reflex writes,
and the web shell checks websocket origins itself; all need functions, settings or file shapes
Reflex does not document. They are wrapped here so that a Reflex upgrade that renames or removes
one breaks this module (and its test, ``tests/unit/test_reflex_adapter.py``), not code spread
over the app. Importing this module imports nothing from Reflex (rxconfig.py's plugin uses it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

# The file Reflex writes into .web (reflex_base.constants.ReactRouter.CONFIG_FILE) and its shape:
# ``export default {...JSON...};``, with ``"prerender": true`` in a production build.
REACT_ROUTER_CONFIG_FILE = "react-router.config.js"
_REACT_ROUTER_CONFIG = re.compile(r"^export default (\{.*\});\s*$", re.S)
# Where ``reflex export --frontend-only --env prod`` leaves the index page, from the project
# (constants.Dirs.WEB / constants.Dirs.STATIC / index.html, without a frontend_path).
BUILT_INDEX_PAGE = ".web/build/client/index.html"


def is_dev_mode() -> bool:
    """Whether Reflex considers this process a development server (``reflex run --env dev``; also
    when no mode was set at all, Reflex's own default)."""
    from reflex_base import constants
    from reflex_base.environment import environment

    return environment.REFLEX_ENV_MODE.get() == constants.Env.DEV


def declared_env_mode() -> str | None:
    """The mode Reflex was explicitly told (``"dev"`` or ``"prod"``), or None when none was set."""
    from reflex_base.environment import environment

    variable = environment.REFLEX_ENV_MODE
    return variable.get().value if variable.is_set() else None


def reflex_version() -> str:
    from reflex_base import constants

    return constants.Reflex.VERSION


def static_dir() -> Path | None:
    """The folder the production build serves, or None when there is no production build."""
    from reflex.config import get_config
    from reflex.utils import prerequisites
    from reflex_base import constants

    folder = prerequisites.get_web_dir() / constants.Dirs.STATIC / get_config().frontend_path.strip("/")
    return folder if folder.is_dir() else None


def frontend_node_modules() -> Path:
    """Where the frontend's npm packages are installed for the build (``.web/node_modules``)."""
    from reflex.utils import prerequisites

    return prerequisites.get_web_dir() / "node_modules"


def serve_built_frontend() -> None:
    """Set this process up as ``reflex run --env prod`` does for its workers: production mode, the
    frontend already compiled (workers only serve it) and mounted on the backend's port."""
    from reflex_base import constants
    from reflex_base.environment import environment

    environment.REFLEX_ENV_MODE.set(constants.Env.PROD)
    environment.REFLEX_SKIP_COMPILE.set(True)
    environment.REFLEX_MOUNT_FRONTEND_COMPILED_APP.set(True)


def choose_worker_start_method() -> str | None:
    """Pick how worker processes start, as ``reflex run`` does: forked from a parent that has
    imported the app once (a replacement worker starts in a moment), else spawned. Returns the
    method set, or None when Reflex leaves the platform's default."""
    import multiprocessing

    from reflex.utils import exec as reflex_exec

    start_method = reflex_exec._backend_start_method()
    if start_method is None:
        return None
    multiprocessing.set_start_method(start_method, force=True)
    if start_method == "fork" and not reflex_exec._preload_for_fork(None):
        multiprocessing.set_start_method("spawn", force=True)
        return "spawn"
    return start_method


def add_prerender_paths(config_js: str, paths: list[str]) -> str:
    """React Router's config (as Reflex writes it) with ``"prerender": true`` turned into a
    function listing the static paths plus ``paths``.

    Left unchanged when the build does not pre-render (development) or the file has an unknown
    shape (a newer Reflex): the app then still works, only without the extra pre-rendered pages."""
    match = _REACT_ROUTER_CONFIG.match(config_js)
    if not match:
        return config_js
    config = json.loads(match.group(1))
    if config.get("prerender") is not True:
        return config_js
    config.pop("prerender")
    body = json.dumps(config)[1:-1]
    extra = json.dumps(paths)
    return (
        "export default {" + body + ', "prerender": ({getStaticPaths}) => '
        f"[...getStaticPaths(), ...{extra}]}};"
    )


def leave_websocket_origins_to_the_app(app) -> None:
    """Turn off engine.io's own Origin check of Reflex's websocket (``rx.App.sio``, a python-socketio
    server; engine.io takes ``cors_allowed_origins == []`` as "no CORS handling at all"), for an app
    whose middleware checks origins itself. An app without state has no socket: nothing to do."""
    sio = getattr(app, "sio", None)
    if sio is not None:
        sio.eio.cors_allowed_origins = []


def websocket_json(app):
    """The JSON codec Reflex gave its Socket.IO server (python-socketio keeps it on its packet
    class: ``rx.App.sio.packet_class.json``), or None for an app without state."""
    sio = getattr(app, "sio", None)
    return getattr(sio.packet_class, "json", None) if sio is not None else None


def use_websocket_json(app, codec) -> None:
    """Encode and decode ``app``'s Socket.IO packets with ``codec`` (``dumps``/``loads``)."""
    app.sio.packet_class.json = codec


def state_manager(app):
    """The app's state manager as Reflex set it up (``rx.App._state_manager``), or None."""
    return getattr(app, "_state_manager", None)


def replace_state_manager(app, manager) -> None:
    """Use ``manager`` for the app's tab states. Call it before the server starts: Reflex hands
    ``rx.App.state_manager`` to its event processor when the server's lifespan begins."""
    app._state_manager = manager


def connected_sessions(app) -> dict:
    """The websocket sessions this worker holds (socket id → tab token), or {} without state."""
    namespace = getattr(app, "event_namespace", None)
    return dict(getattr(namespace, "sid_to_token", {}) or {}) if namespace is not None else {}


def upload_path() -> str:
    """The path of Reflex's upload endpoint (``/_upload`` behind the configured backend path)."""
    from reflex_base import constants
    from reflex_base.config import get_config

    return get_config().prepend_backend_path(str(constants.Endpoint.UPLOAD))


def socket_polling_limit() -> int:
    """The most bytes engine.io takes in one long-polling request (``REFLEX_SOCKET_MAX_HTTP_BUFFER_SIZE``)."""
    from reflex_base.environment import environment

    return environment.REFLEX_SOCKET_MAX_HTTP_BUFFER_SIZE.get()


async def tab_connected(app, token: str) -> bool:
    """Whether ``token`` names a browser tab with a live websocket, on this worker or, with Redis,
    on any (Reflex's token manager keeps the socket records there). False for an app without
    state."""
    namespace = getattr(app, "event_namespace", None)
    manager = getattr(namespace, "_token_manager", None)
    return bool(token) and manager is not None and await manager.is_token_connected(token)


def time_ui_events(observe) -> None:
    """Call ``observe(event_name, seconds, failed)`` after each UI event Reflex runs (the wait for
    the tab's state lock included), by wrapping its event processor's one entry point for a
    handler (``BaseStateEventProcessor._execute_event``). Idempotent."""
    import time

    from reflex_base.event.processor.base_state_processor import BaseStateEventProcessor

    original = BaseStateEventProcessor._execute_event
    if getattr(original, "_dd_timed", False):
        return

    async def timed(self, *, entry, registered_handler):
        started = time.perf_counter()
        failed = True
        try:
            await original(self, entry=entry, registered_handler=registered_handler)
            failed = False
        finally:
            observe(entry.event.name, time.perf_counter() - started, failed)

    timed._dd_timed = True
    timed._dd_original = original
    BaseStateEventProcessor._execute_event = timed


def on_tab_closed(app, callback) -> None:
    """Call ``callback(tab_token)`` when one of ``app``'s websockets disconnects, after Reflex's
    own handling (python-socketio calls the namespace's ``on_disconnect``). Idempotent."""
    namespace = getattr(app, "event_namespace", None)
    if namespace is None or getattr(namespace.on_disconnect, "_dd_wrapped", False):
        return
    original = namespace.on_disconnect

    def on_disconnect(sid, *_reason):  # python-socketio passes a reason; Reflex's takes none
        token = namespace.sid_to_token.get(sid)
        result = original(sid)
        if token:
            callback(token)
        return result

    on_disconnect._dd_wrapped = True
    namespace.on_disconnect = on_disconnect



def connection_lost() -> Any:
    """A browser-side Var, true while the app's websocket cannot (re)connect: Reflex's own
    connection errors (``reflex.components.core.banner``), as its default overlay reads them."""
    from reflex.components.core.banner import has_connection_errors

    return has_connection_errors
