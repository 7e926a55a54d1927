"""Every module of the rules layer (services/) and of search imports on its own, first.

The whole app imports them in one order, which can hide a circle: services.checkout reads the
pickup stores, the stores flagged orders through services.orders, and the orders package places
orders through services.checkout. Importing services.checkout first failed ("partially
initialized module"), for a tool, a script or a test that began there. Each module is imported
in a child interpreter with every services and search module forgotten before it (the models,
registered once with SQLAlchemy, stay)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import importlib, pkgutil, sys
import discount_deals.services, discount_deals.search
prefixes = ("discount_deals.services", "discount_deals.search")
names = [m.name for pkg in (discount_deals.services, discount_deals.search)
         for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")]
for name in names:
    for loaded in [k for k in sys.modules if k.startswith(prefixes)]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as exc:
        print(f"{name}: {exc!r}")
print(f"imported {len(names)}")
"""


def test_each_rules_module_imports_first():
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert lines[-1].startswith("imported ") and int(lines[-1].split()[1]) > 100
    assert lines[:-1] == []
