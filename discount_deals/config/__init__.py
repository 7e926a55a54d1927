"""The shop's configuration: the ``DD_*`` settings read from the environment and their parsers.

``settings.py`` is the one reader of the environment (with ``settings_ui``, ``settings_messages``
and ``settings_money`` for their parts); ``setting_values`` parses values for it and for
``server/preflight.py``; ``currency`` and ``public_url`` are the two settings every layer asks about.
"""
