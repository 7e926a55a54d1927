"""Command line: ``python -m discount_deals COMMAND``.

Commands: migrate, seed-demo, create-admin EMAIL --password PASSWORD, has-products.
Exit status 0 on success; otherwise a one-line message on stderr and a non-zero status.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from sqlalchemy.exc import OperationalError, SQLAlchemyError

from .services import ServiceError


def _migrate(_args: argparse.Namespace) -> str:
    from .migrations import upgrade_head

    upgrade_head()
    return "Database is up to date."


def _seed_demo(_args: argparse.Namespace) -> str:
    from .db import session_scope
    from .services.demo_catalogue import seed_demo

    with session_scope() as session:
        result = seed_demo(session)
    return (
        f"Demo catalogue: {result.categories_created} categories and {result.products_created} products added "
        f"({result.products_total} products in total)."
    )


def _create_admin(args: argparse.Namespace) -> str:
    from .db import session_scope
    from .services.users import create_or_promote_admin

    with session_scope() as session:
        user, created = create_or_promote_admin(session, args.email, args.password)
        email = user.email
    return f"Admin {email} {'created' if created else 'promoted (password updated)'}."


def _has_products(_args: argparse.Namespace) -> str:
    """Exit 0 when the catalogue has products, 3 when it is empty (used by ``make run``)."""
    from sqlmodel import select

    from .db import session_scope
    from .models import Product

    with session_scope() as session:
        if session.exec(select(Product.id).limit(1)).first() is None:
            raise SystemExit(3)
    return "The catalogue has products."


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m discount_deals", description="Discount Deals administration")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("migrate", help="apply database migrations").set_defaults(run=_migrate)
    sub.add_parser("seed-demo", help="add the demo catalogue (idempotent)").set_defaults(run=_seed_demo)
    admin = sub.add_parser("create-admin", help="create an admin, or promote an existing user")
    admin.add_argument("email")
    admin.add_argument("--password", required=True)
    admin.set_defaults(run=_create_admin)
    sub.add_parser("has-products", help="exit 0 if the catalogue has products, 3 if not").set_defaults(
        run=_has_products
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    run: Callable[[argparse.Namespace], str] = args.run
    try:
        message = run(args)
    except ServiceError as exc:
        print(f"error: {exc.detail}", file=sys.stderr)
        return 1
    except OperationalError as exc:
        print(f"error: database unavailable or not migrated ({exc.orig}); run 'python -m discount_deals migrate'", file=sys.stderr)
        return 2
    except SQLAlchemyError as exc:
        print(f"error: database error: {exc.__class__.__name__}", file=sys.stderr)
        return 2
    print(message)
    return 0


if __name__ == "__main__":
    sys.exit(main())
