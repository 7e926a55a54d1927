"""The real worker process (``python -m discount_deals worker``) against the suite's database
(SQLite, or PostgreSQL under scripts/with-postgres.sh): a worker killed mid-batch delivers every
message exactly once after its restart, and two workers on one queue (Redis when redis-server is
installed) never send a message twice."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services.messages import outbox as outbox_service
from discount_deals.services.messages.outbox import Draft
from discount_deals.config.settings import get_settings

from ..conftest import ROOT
from ..support import servers
from ..support.waiting import until
from ..support.mail import SmtpServer


def queue_emails(count: int) -> list[str]:
    drafts = [Draft(channel="email", recipient=f"shopper{n}@example.com", kind="order_placed", subject=f"No {n}",
                    text=f"Message {n}") for n in range(count)]
    with session_scope() as session:
        return outbox_service.queue_messages(session, drafts)


def statuses() -> dict[str, int]:
    with session_scope() as session:
        rows = session.exec(select(models.OutboxMessage.status)).all()
    return {status: rows.count(status) for status in set(rows)}


class Workers:
    """Worker processes on the suite's database, each in its own process group."""

    def __init__(self, smtp: SmtpServer, redis_url: str = "", **extra: str):
        self.var_dir = Path(tempfile.mkdtemp(prefix="dd-worker-"))
        settings = get_settings()
        self.env = {
            **os.environ, **smtp.environment(), "REFLEX_DB_URL": settings.database_url,
            "DD_VAR_DIR": str(self.var_dir), "DD_SECRET_KEY": settings.secret_key, "REFLEX_REDIS_URL": redis_url,
            "DD_WORKER_SWEEP_SECONDS": "0.3", "DD_MESSAGE_LEASE_SECONDS": "2", "DD_MESSAGE_BATCH_SIZE": "20",
            **extra,
        }
        self.processes: list[subprocess.Popen] = []

    def start(self) -> subprocess.Popen:
        process = subprocess.Popen([sys.executable, "-m", "discount_deals", "worker"], cwd=ROOT, env=self.env,
                                   start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.processes.append(process)
        return process

    def nudge(self, ids: list[str]) -> None:
        """What the web server's commit hook does: enqueue "deliver these" on the workers' queue."""
        code = "import sys, json; from discount_deals.worker.hook import nudge; nudge(json.load(sys.stdin))"
        import json

        subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=self.env, input=json.dumps(ids), text=True,
                       check=True, timeout=60)

    def stop(self) -> None:
        for process in self.processes:
            servers.stop_process_group(process, grace=20)
        shutil.rmtree(self.var_dir, ignore_errors=True)


def wait_until(predicate, timeout: float = 60) -> None:
    until(predicate, statuses, timeout, pause=0.1)


def test_a_worker_killed_mid_batch_delivers_every_message_exactly_once_after_restart(clean_db):
    with SmtpServer() as smtp:
        workers = Workers(smtp, DD_WORKER_THREADS="1")
        try:
            ids = queue_emails(60)
            smtp.mailbox.hold_after = 25  # the 26th message is in flight when the worker dies
            worker = workers.start()
            assert smtp.mailbox.held.wait(60), "the worker never got to the 26th message"
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(10)
            smtp.mailbox.release.set()  # the server never accepted the one in flight
            smtp.mailbox.hold_after = None
            assert len(smtp.mailbox.messages) == 25 and statuses().get("sent") == 25
            workers.start()  # the restart: the dead worker's claims come back when their lease ends
            wait_until(lambda: statuses() == {"sent": 60})
            smtp.mailbox.wait_for(60)
            time.sleep(1)  # nothing more arrives
            assert len(smtp.mailbox.messages) == 60 and smtp.mailbox.duplicates() == {}
            assert sorted(m["Message-ID"].split("@")[0].strip("<") for m in smtp.mailbox.messages) == sorted(ids)
        finally:
            workers.stop()


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")
def test_two_workers_on_one_redis_queue_never_send_twice(clean_db):
    with SmtpServer() as smtp, servers.redis() as redis:
        workers = Workers(smtp, redis.url, DD_WORKER_THREADS="2")
        try:
            workers.start()
            workers.start()
            ids = queue_emails(300)
            workers.nudge(ids)
            workers.nudge(ids)  # every nudge twice: both workers race for every message
            wait_until(lambda: statuses() == {"sent": 300}, timeout=120)
            smtp.mailbox.wait_for(300)
            time.sleep(1)
            assert len(smtp.mailbox.messages) == 300 and smtp.mailbox.duplicates() == {}
        finally:
            workers.stop()
