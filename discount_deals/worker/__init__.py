"""The message queue's worker (issue 22): Huey carries "deliver these messages" nudges and a
periodic sweep; the outbox table (``services.messages``) stays the source of truth.

- :mod:`.queue`: the Huey instance (a SQLite file under DD_VAR_DIR by default, Redis with
  REFLEX_REDIS_URL) and the commit hook that nudges a worker after a transaction queued messages.
- :mod:`.tasks`: the tasks (deliver, deal alerts, the sweep).
- :mod:`.process`: ``python -m discount_deals worker``, the consumer process ``serve`` starts
  beside the web server (or systemd / compose runs on its own).
"""
