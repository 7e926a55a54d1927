"""The Reflex adapter still fits the installed Reflex (issue 20).

``discount_deals/server/reflex_adapter.py`` calls functions, sets environment variables and reads
constants and file shapes that Reflex does not document. Each of them is checked here against the
installed Reflex, so that an upgrade which renames, removes or reshapes one fails this file (with
the name of what changed) instead of a production start.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from discount_deals.server import launcher, reflex_adapter
from discount_deals.server.plugins import PRODUCT_SHELL_PATH, PrerenderProductShell
from discount_deals.config.settings import FRONTEND_BUILD_ENV

from ..conftest import ROOT
from ..support.loops import run_coroutine

# (module, function, the arguments the adapter passes)
PRIVATE_CALLS = [
    ("reflex.utils.exec", "_backend_start_method", ()),
    ("reflex.utils.exec", "_preload_for_fork", (None,)),
    ("reflex.utils.prerequisites", "get_web_dir", ()),
    ("reflex.config", "get_config", ()),
]
# The environment variables the adapter sets (and reads) through Reflex, with their types.
REFLEX_ENV_VARS = {"REFLEX_ENV_MODE": "Env", "REFLEX_SKIP_COMPILE": bool, "REFLEX_MOUNT_FRONTEND_COMPILED_APP": bool}
# Reflex settings the launcher writes into the environment for Reflex to read (its Config reads
# REFLEX_<FIELD>), and the ones the frontend fingerprint reads back.
LAUNCHER_HANDS_ON = ("REFLEX_API_URL", "REFLEX_DEPLOY_URL", "REFLEX_DB_URL", "REFLEX_FRONTEND_PORT", "REFLEX_BACKEND_PORT")


@pytest.mark.parametrize("module_name, name, args", PRIVATE_CALLS, ids=[f"{m}.{n}" for m, n, _ in PRIVATE_CALLS])
def test_each_private_function_it_calls_exists_and_takes_its_arguments(module_name, name, args):
    module = __import__(module_name, fromlist=[name])
    function = getattr(module, name, None)
    assert callable(function), f"{module_name}.{name} is gone: update discount_deals/server/reflex_adapter.py"
    inspect.signature(function).bind(*args)  # TypeError when the parameters changed


def test_each_environment_variable_it_sets_is_reflexs():
    from reflex_base import constants
    from reflex_base.environment import EnvVar, environment

    for name, kind in REFLEX_ENV_VARS.items():
        variable = getattr(environment, name, None)
        assert isinstance(variable, EnvVar), f"reflex_base.environment has no {name}"
        assert variable.name.lstrip("_") == name  # Reflex's internal ones are named __REFLEX_...
        assert variable.type_ is (constants.Env if kind == "Env" else kind)
        assert all(callable(getattr(variable, method, None)) for method in ("get", "set", "is_set"))
    assert (constants.Env.DEV.value, constants.Env.PROD.value) == ("dev", "prod")
    assert environment.REFLEX_ENV_MODE.default == constants.Env.DEV  # is_dev_mode() relies on it
    assert isinstance(getattr(environment, "REFLEX_BACKEND_START_METHOD", None), EnvVar)  # read by Reflex


def test_the_constants_it_reads_exist():
    from reflex.config import get_config
    from reflex_base import constants

    assert reflex_adapter.reflex_version() == constants.Reflex.VERSION == metadata.version("reflex")
    assert isinstance(constants.Dirs.STATIC, str) and isinstance(get_config().frontend_path, str)
    assert constants.ReactRouter.CONFIG_FILE == reflex_adapter.REACT_ROUTER_CONFIG_FILE
    # Where the launcher looks for the production build's index page.
    assert Path(reflex_adapter.BUILT_INDEX_PAGE) == Path(constants.Dirs.WEB) / constants.Dirs.STATIC / "index.html"
    assert launcher.STATIC_INDEX == reflex_adapter.BUILT_INDEX_PAGE


@pytest.mark.parametrize("name", LAUNCHER_HANDS_ON + FRONTEND_BUILD_ENV)
def test_the_settings_handed_to_reflex_through_the_environment_are_read_by_reflex(name, monkeypatch):
    """REFLEX_<FIELD> overrides a field of Reflex's Config; REFLEX_SSR is one of its environment variables."""
    import reflex as rx
    from reflex_base.environment import environment

    if name == "REFLEX_SSR":
        assert getattr(environment, name).type_ is bool
        return
    field = name.removeprefix("REFLEX_").lower()
    types = {f.name: f.type for f in dataclasses.fields(rx.Config)}
    assert field in types, f"Reflex's Config has no {field} (set through {name})"
    examples = {"frontend_port": "4321", "backend_port": "4322", "transport": "polling", "db_url": "sqlite:///x.db",
                "frontend_path": "/shop"}
    value = examples.get(field, "https://shop.example.com")
    monkeypatch.setenv(name, value)
    assert str(getattr(rx.Config(app_name="probe"), field)) == value


def test_static_dir_is_the_production_build_in_reflexs_web_dir(tmp_path, monkeypatch):
    from reflex.config import get_config

    monkeypatch.setenv("REFLEX_WEB_WORKDIR", str(tmp_path))  # read by reflex.utils.prerequisites.get_web_dir
    assert reflex_adapter.static_dir() is None  # no production build yet
    built = tmp_path / "build" / "client" / get_config().frontend_path.strip("/")
    built.mkdir(parents=True)
    assert reflex_adapter.static_dir() == built


@pytest.mark.parametrize("mode, declared, dev", [(None, None, True), ("dev", "dev", True), ("prod", "prod", False)])
def test_the_mode_reflex_was_told(mode, declared, dev, monkeypatch):
    if mode is None:
        monkeypatch.delenv("REFLEX_ENV_MODE", raising=False)
    else:
        monkeypatch.setenv("REFLEX_ENV_MODE", mode)
    assert reflex_adapter.declared_env_mode() == declared
    assert reflex_adapter.is_dev_mode() is dev


def _run(script: str, **env: str) -> dict:
    """Run ``script`` in a fresh interpreter from the project (it changes process-wide state); its
    last output line is JSON."""
    inherited = {k: v for k, v in os.environ.items() if k not in ("REFLEX_ENV_MODE", "REFLEX_BACKEND_START_METHOD")}
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env={**inherited, "REFLEX_TELEMETRY_ENABLED": "false", **env},
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


_MODE_SEEN = (
    "import json\n"
    "from discount_deals.server import reflex_adapter\n"
    "from reflex_base.environment import environment\n"
    "def seen():\n"
    "    return {'declared': reflex_adapter.declared_env_mode(), 'dev': reflex_adapter.is_dev_mode(),\n"
    "            'skip_compile': environment.REFLEX_SKIP_COMPILE.get(),\n"
    "            'mount': environment.REFLEX_MOUNT_FRONTEND_COMPILED_APP.get()}\n"
)


def test_serve_built_frontend_sets_reflex_up_like_reflex_run_env_prod():
    """In this process and in a worker started afresh from it (the spawn start method)."""
    worker = _MODE_SEEN + "print(json.dumps(seen()))\n"
    seen = _run(
        _MODE_SEEN + "import subprocess, sys\n"
        "before = seen()\n"
        "reflex_adapter.serve_built_frontend()\n"
        f"child = subprocess.run([sys.executable, '-c', {worker!r}], capture_output=True, text=True, check=True)\n"
        "print(json.dumps({'before': before, 'after': seen(), 'worker': json.loads(child.stdout.splitlines()[-1])}))\n"
    )
    assert seen["before"] == {"declared": None, "dev": True, "skip_compile": False, "mount": False}
    assert seen["after"] == seen["worker"] == {"declared": "prod", "dev": False, "skip_compile": True, "mount": True}


_START_METHOD = (
    "import json, multiprocessing, sys\n"
    "from discount_deals.server import reflex_adapter\n"
    "chosen = reflex_adapter.choose_worker_start_method()\n"
    "app = sys.modules.get('discount_deals.discount_deals')\n"
    "sio = getattr(getattr(app, 'app', None), 'sio', None)\n"
    "print(json.dumps({'chosen': chosen, 'in_effect': multiprocessing.get_start_method(),\n"
    "    'app_imported': app is not None,\n"
    "    'engineio_origins': None if sio is None else sio.eio.cors_allowed_origins,\n"
    "    'websocket_json': None if sio is None else type(reflex_adapter.websocket_json(app.app)).__name__}))\n"
)


@pytest.fixture(scope="module")
def forked_start() -> dict:
    return _run(_START_METHOD)


def test_workers_fork_from_a_parent_that_imported_the_app(forked_start):
    assert forked_start["chosen"] == forked_start["in_effect"] == "fork"
    assert forked_start["app_imported"]


def test_an_explicit_start_method_is_honoured_without_importing_the_app():
    seen = _run(_START_METHOD, REFLEX_BACKEND_START_METHOD="spawn")
    assert (seen["chosen"], seen["in_effect"], seen["app_imported"]) == ("spawn", "spawn", False)


def test_the_app_leaves_websocket_origins_to_its_middleware(forked_start):
    """engine.io's own check is off in the real app (api/security.py hands origins to the middleware)."""
    assert forked_start["engineio_origins"] == []


def test_the_app_encodes_its_websocket_packets_with_orjson(forked_start):
    """web/frames.py's codec is the one the real app's Socket.IO server uses."""
    assert forked_start["websocket_json"] == "FrameJson"


def test_socketio_packets_are_encoded_and_decoded_by_the_codec_the_adapter_sets():
    """What :func:`reflex_adapter.use_websocket_json` relies on: python-socketio reads the codec
    from its packet class at each encode and decode, after the server was built."""
    from types import SimpleNamespace

    from socketio import AsyncServer, packet
    from socketio.packet import EVENT

    calls: list[str] = []
    codec = SimpleNamespace(
        dumps=lambda obj, **kwargs: calls.append("dumps") or json.dumps(obj, **kwargs),
        loads=lambda data, **kwargs: calls.append("loads") or json.loads(data, **kwargs),
    )
    before = packet.Packet.json  # a class attribute: this process's app uses it too
    try:
        sio = AsyncServer(async_mode="asgi")
        app = type("App", (), {"sio": sio})()
        assert reflex_adapter.websocket_json(app) is before
        reflex_adapter.use_websocket_json(app, codec)
        assert reflex_adapter.websocket_json(app) is codec
        encoded = sio.packet_class(EVENT, data=["event", {"a": 1}], namespace="/_event").encode()
        assert encoded == '2/_event,["event",{"a":1}]'  # engine.io adds its own '4'
        assert sio.packet_class(encoded_packet=encoded).data == ["event", {"a": 1}]
        assert calls == ["dumps", "loads"]
    finally:
        packet.Packet.json = before
    assert reflex_adapter.websocket_json(object()) is None  # no socket (no state)


def test_engineio_takes_an_empty_origin_list_as_no_check():
    """What :func:`reflex_adapter.leave_websocket_origins_to_the_app` relies on, on the server Reflex builds."""

    import reflex as rx
    from engineio.async_server import AsyncServer as EngineIOServer
    from socketio import AsyncServer

    assert "sio" in {f.name for f in dataclasses.fields(rx.App)}
    sio = AsyncServer(async_mode="asgi", cors_allowed_origins=["https://shop.example.com"])
    assert isinstance(sio.eio, EngineIOServer)

    async def handshake(origin: str) -> int:
        sent: list[dict] = []

        async def receive() -> dict:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict) -> None:
            sent.append(message)

        scope = {
            "type": "http", "method": "GET", "path": "/", "query_string": b"EIO=4&transport=polling",
            "headers": [(b"origin", origin.encode()), (b"host", b"shop.example.com")], "scheme": "https",
            "server": ("shop.example.com", 443), "client": ("127.0.0.1", 1), "asgi": {"version": "3.0"},
        }
        await sio.eio.handle_request(scope, receive, send)
        return next(m["status"] for m in sent if m["type"] == "http.response.start")

    assert run_coroutine(handshake("https://evil.example")) == 400
    reflex_adapter.leave_websocket_origins_to_the_app(type("App", (), {"sio": sio})())
    assert sio.eio.cors_allowed_origins == []
    assert run_coroutine(handshake("https://evil.example")) == 200
    reflex_adapter.leave_websocket_origins_to_the_app(object())  # no socket (no state): nothing to do


def test_the_build_plugin_understands_the_config_file_reflex_writes():
    from reflex.config import get_config
    from reflex.plugins import Plugin, PreCompileContext
    from reflex.utils.frontend_skeleton import _update_react_router_config

    assert issubclass(PrerenderProductShell, Plugin) and "add_modify_task" in PreCompileContext.__annotations__
    tasks: list[tuple[str, object]] = []
    PrerenderProductShell().pre_compile(add_modify_task=lambda path, change: tasks.append((path, change)))
    [(path, change)] = tasks
    assert path == reflex_adapter.REACT_ROUTER_CONFIG_FILE

    production = _update_react_router_config(get_config(), prerender_routes=True)
    changed = change(production)
    assert changed != production, f"the plugin no longer recognises Reflex's {path}: {production}"
    development = _update_react_router_config(get_config(), prerender_routes=False)
    assert change(development) == development

    node = shutil.which("node", path=str(Path(sys.executable).parent)) or shutil.which("node")
    if node is None:
        pytest.skip("no Node to run the changed config")
    probe = (
        f"const config = (await import('data:text/javascript,' + encodeURIComponent({json.dumps(changed)}))).default;"
        "console.log(JSON.stringify(config.prerender({getStaticPaths: () => ['/']})));"
    )
    result = subprocess.run([node, "--input-type=module", "-e", probe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == ["/", PRODUCT_SHELL_PATH]


def test_the_state_manager_internals_tab_states_builds_on_still_fit():
    """discount_deals/server/tab_states.py subclasses Reflex's in-memory manager and replaces the app's."""
    from reflex.app import App
    from reflex.istate.manager.memory import StateManagerMemory

    import discount_deals.discount_deals as module

    assert "_state_manager" in {f.name for f in dataclasses.fields(App)}
    assert reflex_adapter.state_manager(module.app) is module.app._state_manager
    fields = {f.name for f in dataclasses.fields(StateManagerMemory)}
    assert {"token_expiration", "states", "_expiration_task"} <= fields
    for name in ("_purge_expired_tokens", "_expire_states", "_ensure_expiration_task"):
        assert callable(getattr(StateManagerMemory, name, None)), f"StateManagerMemory.{name} is gone"
    assert inspect.iscoroutinefunction(StateManagerMemory._expire_states)
    inspect.signature(StateManagerMemory._purge_expired_tokens).bind(object())


def test_the_event_processor_entry_point_metrics_time_still_fits():
    """discount_deals/server/metrics.py times UI events by wrapping this method (reflex_adapter.time_ui_events)."""
    from reflex.app import EventNamespace
    from reflex_base.event.processor.base_state_processor import BaseStateEventProcessor

    method = BaseStateEventProcessor._execute_event
    original = getattr(method, "_dd_original", method)
    assert inspect.iscoroutinefunction(original)
    inspect.signature(original).bind(object(), entry=None, registered_handler=None)
    assert isinstance(getattr(EventNamespace, "sid_to_token", None), property)


def test_the_workers_run_on_uvloop_which_granian_accepts():
    """uvloop is a requirement here (not on Windows) and the launcher hands it to Granian: on
    asyncio's own loop the sale-day bench's p95 at 600 shoppers was ~2.5x longer."""
    from granian.constants import Loops
    from granian.server import Server

    assert launcher.uvloop_installed()
    server = Server(target="discount_deals.app:app", loop=Loops.uvloop)
    assert server.loop == Loops.uvloop


def test_a_tab_is_live_while_reflexs_token_manager_holds_its_socket():
    """web/body_limits.py lets an upload in only for such a tab (issue 32 item 3)."""
    from types import SimpleNamespace

    from reflex.utils.token_manager import LocalTokenManager

    manager = LocalTokenManager()
    app = SimpleNamespace(event_namespace=SimpleNamespace(_token_manager=manager))
    run_coroutine(manager.link_token_to_sid("tab-1", "socket-1"))

    def live(application, token: str) -> bool:
        return run_coroutine(reflex_adapter.tab_connected(application, token))

    assert live(app, "tab-1")
    assert not live(app, "tab-2") and not live(app, "") and not live(None, "tab-1")
    run_coroutine(manager.disconnect_token("tab-1", "socket-1"))
    assert not live(app, "tab-1")


def test_the_apps_upload_endpoint_and_token_manager_are_where_the_adapter_looks():
    seen = _run(
        "import json, asyncio\n"
        "from discount_deals.discount_deals import app\n"
        "from discount_deals.server import reflex_adapter\n"
        "manager = app.event_namespace._token_manager\n"
        "asyncio.run(manager.link_token_to_sid('tab-1', 'socket-1'))\n"
        "print(json.dumps({'path': reflex_adapter.upload_path(),\n"
        "                  'live': asyncio.run(reflex_adapter.tab_connected(app, 'tab-1')),\n"
        "                  'stranger': asyncio.run(reflex_adapter.tab_connected(app, 'tab-2')),\n"
        "                  'polling': reflex_adapter.socket_polling_limit()}))\n"
    )
    assert seen == {"path": "/_upload", "live": True, "stranger": False, "polling": 1_000_000}
