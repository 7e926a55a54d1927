"""The back office (/admin): the gate (AdminState, the tab registry) and one module per tab."""
