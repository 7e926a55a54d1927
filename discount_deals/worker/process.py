"""``python -m discount_deals worker``: the queue's consumer process.

Huey's consumer with DD_WORKER_THREADS threads; a ticker enqueues the sweep every
DD_WORKER_SWEEP_SECONDS (Huey's own periodic tasks run once a minute at most). SIGTERM stops
gracefully: the tasks in hand finish (a batch is at most DD_MESSAGE_BATCH_SIZE messages).
"""

from __future__ import annotations

import logging
import threading

from ..config.settings import get_settings

log = logging.getLogger("discount_deals.worker")


def _ticker(stop: threading.Event) -> None:
    from .tasks import sweep

    sweep_seconds = get_settings().messages.worker_sweep_seconds
    while not stop.is_set():
        try:
            sweep()
        except Exception:
            log.exception("could not enqueue the sweep")
        stop.wait(sweep_seconds)


def run_worker(threads: int | None = None) -> int:
    """Run the consumer until SIGTERM / SIGINT; the exit status."""
    from .hook import install_commit_hook
    from .queue import backend_name
    from .tasks import huey

    settings = get_settings()
    threads = threads or settings.messages.worker_threads
    install_commit_hook()
    consumer = huey.create_consumer(
        workers=threads, worker_type="thread", periodic=False, initial_delay=0.05, backoff=1.5, max_delay=0.5,
        scheduler_interval=1, graceful_signal="TERM",
    )
    stop = threading.Event()
    threading.Thread(target=_ticker, args=(stop,), name="sweep-ticker", daemon=True).start()
    log.info("message worker: %s queue, %d thread(s), email %s, SMS %s", backend_name(huey), threads,
             "to the log" if settings.messages.email_to_log else f"via {settings.messages.smtp_host}",
             settings.messages.sms_provider)
    try:
        consumer.run()
    finally:
        stop.set()
    return 0
