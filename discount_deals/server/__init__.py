"""Running the server: starting it (``launcher``, ``preflight``, ``migrations``), its life
(``lifespan``, ``timers``, ``backup``), what it reports (``logs``, ``metrics``), and where it meets
Reflex (``reflex_adapter``, the build ``plugins``, the tab states in ``tab_states``).
"""
