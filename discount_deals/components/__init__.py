"""Reusable UI pieces (plain HTML elements styled with Tailwind)."""
