"""The shop's configuration: the settings read from the environment, declared as pydantic-settings models.

``settings.py`` (``get_settings``, ``server_settings``) is the one reader of the environment, with
its sections ``settings_server``, ``settings_checkout``, ``settings_security``, ``settings_messages``,
``settings_ui`` and ``settings_money`` on ``settings_base``; ``setting_values`` holds the rules pydantic does not express;
``settings_table`` writes docs/deploy.md's table; ``currency`` and ``public_url`` are the two settings
every layer asks about.
"""
