"""Pages: one module per route, composing components. No queries, no rules."""
