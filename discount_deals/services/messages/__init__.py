"""Talking to customers: email and SMS through an outbox and a queue (issue 22).

- :mod:`.outbox`: messages are rows written in the transaction of the event that causes them;
  workers claim and settle them (at most one claim per message, whatever runs).
- :mod:`.delivery`: the worker's loop (claim, send, record), never run inside a request.
- :mod:`.transports`: SMTP / log for email, Hubtel / log for SMS (the provider seam).
- :mod:`.templates`: every text sent, in one place; :mod:`.notices` what causes a message;
  :mod:`.preferences` who wants what (and the one-click unsubscribe); :mod:`.deals` deal alerts
  on favourites; :mod:`.reminders` cart reminders (texts in :mod:`.templates_reminders`);
  :mod:`.admin` the back office's view (list, retry).

The queue itself (Huey: a SQLite file by default, Redis with REFLEX_REDIS_URL) lives in
``discount_deals.worker``: it carries "deliver these messages" nudges and a periodic sweep; the
outbox table stays the source of truth.
"""
