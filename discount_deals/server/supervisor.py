"""Running the worker beside the web server: ``serve`` (``make run``) and ``make dev`` start
``python -m discount_deals worker`` as a child, start it again when it dies, and stop it with
the server. Production may run the worker on its own instead (DD_START_WORKER=0; a systemd
unit or a compose service: docs/deploy.md).
"""

from __future__ import annotations

import ctypes
import logging
import signal
import subprocess
import sys
import threading
import time

from ..config.settings import PROJECT_DIR

log = logging.getLogger("discount_deals.worker")
RESTART_DELAY_S = (1, 2, 5, 10, 30)
STOP_GRACE_S = 20


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    # Linux: the worker gets SIGTERM if the server is killed without a chance to stop it.
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class WorkerSupervisor:
    """Keeps one worker process alive until :meth:`stop`."""

    def __init__(self, command: list[str] | None = None):
        self.command = command or [sys.executable, "-m", "discount_deals", "worker"]
        self.process: subprocess.Popen | None = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="worker-supervisor", daemon=True)
        self.restarts = 0

    def start(self) -> WorkerSupervisor:
        self._spawn()
        self._thread.start()
        return self

    def _spawn(self) -> None:
        self.process = subprocess.Popen(self.command, cwd=PROJECT_DIR, preexec_fn=_die_with_parent)
        log.info("message worker started (pid %s)", self.process.pid)

    def _watch(self) -> None:
        while not self._stopping.is_set():
            process = self.process
            if process is not None and process.poll() is not None and not self._stopping.is_set():
                delay = RESTART_DELAY_S[min(self.restarts, len(RESTART_DELAY_S) - 1)]
                log.warning("message worker exited with %s; starting it again in %s s", process.returncode, delay)
                if self._stopping.wait(delay):
                    return
                self.restarts += 1
                self._spawn()
            self._stopping.wait(0.5)

    def stop(self) -> None:
        """SIGTERM (the worker finishes the batch in hand), SIGKILL after a grace period."""
        self._stopping.set()
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.terminate()
        deadline = time.monotonic() + STOP_GRACE_S
        while process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        if process.poll() is None:
            process.kill()
            process.wait(5)
