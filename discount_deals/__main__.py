"""Command line: ``python -m discount_deals COMMAND``.

Commands: serve [--host H --port P --workers N --dev --seed-demo-if-empty], worker [--threads N], check-config,
migrate, seed-demo, create-admin EMAIL --password PASSWORD, has-products,
create-coupon CODE (--percent N | --amount X) [--expires YYYY-MM-DD] [--inactive],
import-products FILE.csv [--admin EMAIL] [--errors REPORT.csv], reindex-search.
Every command first prints the database it uses (password hidden). Exit status 0 on success;
otherwise one line per problem on stderr and a non-zero status (2 for configuration errors).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from datetime import date

from sqlalchemy.exc import OperationalError, SQLAlchemyError

from .services import ServiceError
from .config.settings import ServerSettings, server_settings


def _migrate(_args: argparse.Namespace) -> str:
    from .server.migrations import upgrade_head

    return upgrade_head().message()


def _serve(args: argparse.Namespace) -> str:
    from .server.launcher import serve

    status = serve(
        server=server_settings(), host=args.host, port=args.port, workers=args.workers, dev=args.dev,
        seed=args.seed_demo_if_empty,
    )
    raise SystemExit(status)


def _worker(args: argparse.Namespace) -> str:
    """The message queue's worker (email, SMS, deal alerts) until SIGTERM."""
    from .server.logs import configure_logging
    from .worker.process import run_worker

    configure_logging()
    raise SystemExit(run_worker(args.threads))


def _build_frontend(args: argparse.Namespace) -> str:
    """Build the production frontend now (Docker image builds), for DD_PUBLIC_URL or this port."""
    from .server.launcher import ensure_frontend, frontend_address
    from .server.preflight import check_public_url

    public_url = server_settings().public_url
    problems = check_public_url(public_url)
    if problems:
        raise ConfigProblems(problems)
    built = ensure_frontend(frontend_address(public_url, args.port))
    return "Frontend built." if built else "Frontend already up to date."


def _backup(args: argparse.Namespace) -> str:
    from .server.backup import backup_database

    return backup_database(args.destination)


def _check_config(args: argparse.Namespace) -> str:
    from .server.preflight import plan_server

    plan = plan_server(production=not args.dev, workers=args.workers, server=server_settings(), host=args.host)
    for line in plan.summary():
        print(line)
    if plan.problems:
        raise ConfigProblems(plan.problems)
    return "Configuration OK."


class ConfigProblems(Exception):
    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


def _port(raw: str) -> int:
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= 65535:
        raise argparse.ArgumentTypeError(f"invalid port {raw!r}: use 1 to 65535")
    return int(raw)


def _workers(raw: str) -> int:
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= 32:
        raise argparse.ArgumentTypeError(f"invalid worker count {raw!r}: use 1 to 32")
    return int(raw)


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


def _create_coupon(args: argparse.Namespace) -> str:
    from .db import session_scope
    from .models import CouponKind
    from .services.money import money_text
    from .services.coupons import create_coupon

    with session_scope() as session:
        coupon = create_coupon(
            session,
            args.code,
            percent=args.percent,
            amount=args.amount,
            expires_on=args.expires,
            active=not args.inactive,
        )
        effect = f"{coupon.value.normalize():f}% off" if coupon.kind == CouponKind.PERCENT else f"{money_text(coupon.value)} off"
        expiry = f", valid through {args.expires.isoformat()}" if args.expires else ""
        state = "" if coupon.active else " (inactive)"
        return f"Coupon {coupon.code} created: {effect}{expiry}{state}."


def _reindex_search(_args: argparse.Namespace) -> str:
    from sqlmodel import func, select

    from .db import get_engine, session_scope
    from .models import Product
    from .search.index import rebuild

    with get_engine().begin() as connection:
        rebuild(connection)
    with session_scope() as session:
        count = session.exec(select(func.count()).select_from(Product)).one()
    return f"Search index rebuilt: {count:,} product{'' if count == 1 else 's'} indexed."


def _import_products(args: argparse.Namespace) -> str:
    """A CSV catalogue of any length, streamed through the bulk importer in one transaction
    (all rows or none), with a progress line on stderr and refused rows written to a report."""
    import time
    from pathlib import Path

    from sqlmodel import select

    from .db import write_session
    from .models import Role, User
    from .services.bulk_import import (
        RowNumbers,
        import_products,
        iter_products_csv,
        result_problems,
        write_error_report,
    )

    source = Path(args.file)
    if not source.is_file():
        raise ServiceError(f"{source}: no such file.")
    report = Path(args.errors) if args.errors else source.with_name(f"{source.stem}.errors.csv")
    size = max(source.stat().st_size, 1)
    started = time.monotonic()
    with source.open("rb") as handle, write_session() as session:
        query = select(User).where(User.role == Role.ADMIN.value, User.is_active == True)
        query = query.where(User.email == args.admin.strip().lower()) if args.admin else query
        admin = session.exec(query.order_by(User.created_at)).first()
        if admin is None:
            raise ServiceError(
                f"no active admin {args.admin}." if args.admin else "no admin yet: create one with create-admin first."
            )

        def progress(rows: int) -> None:
            done = min(handle.tell() / size, 1.0)
            rate = rows / max(time.monotonic() - started, 1e-6)
            bar = "#" * int(done * 30)
            print(f"\r[{bar:<30}] {done:4.0%} {rows:,} rows ({rate:,.0f}/s)", end="", file=sys.stderr, flush=True)

        numbers = RowNumbers.sheet()  # the report names rows as a spreadsheet shows them
        result = import_products(session, admin, iter_products_csv(handle, numbers), max_rows=None,
                                 progress=progress)
        print(file=sys.stderr)
        if result.rows == 0:
            raise ServiceError(f"{source}: the file has no product rows.")
    elapsed = time.monotonic() - started
    summary = (
        f"Imported {len(result.created):,} of {result.rows:,} rows from {source} in {elapsed:.1f} s "
        f"(as {admin.email})."
    )
    if result.errors:
        with report.open("w", newline="", encoding="utf-8") as out:
            write_error_report(result_problems(result, numbers=numbers), out)
        summary += f" {len(result.errors):,} rows refused: see {report}."
    return summary


def _iso_date(raw: str) -> date:
    try:
        return date.fromisoformat(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid date {raw!r}: use YYYY-MM-DD") from None


class _OneLineParser(argparse.ArgumentParser):
    """Usage errors as one line on stderr (exit status 2), like the commands' own errors."""

    def error(self, message: str) -> None:
        self.exit(2, f"error: {message}\n")


def build_parser(server: ServerSettings | None = None) -> argparse.ArgumentParser:
    """The command line; ``server`` (default: the environment now) gives the defaults of --host and --port."""
    server = server if server is not None else server_settings()
    parser = _OneLineParser(prog="python -m discount_deals", description="Discount Deals administration")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_OneLineParser)
    serve = sub.add_parser("serve", help="check the configuration, migrate, build the frontend if needed, serve")
    serve.add_argument("--host", default=server.host)
    serve.add_argument("--port", type=_port, default=server.port)
    serve.add_argument("--workers", type=_workers, default=None, help="worker processes (default: GRANIAN_WORKERS)")
    serve.add_argument("--dev", action="store_true", help="development server with hot reload (reflex run)")
    serve.add_argument("--seed-demo-if-empty", action="store_true", help="add the demo catalogue to an empty database")
    serve.set_defaults(run=_serve, prints_database=False)
    worker = sub.add_parser("worker", help="deliver email and SMS from the outbox (serve starts one itself)")
    worker.add_argument("--threads", type=_workers, default=None, help="threads (default: DD_WORKER_THREADS)")
    worker.set_defaults(run=_worker)
    build = sub.add_parser("build-frontend", help="build the production frontend if its inputs changed")
    build.add_argument("--port", type=_port, default=server.port)
    build.set_defaults(run=_build_frontend, prints_database=False)
    backup = sub.add_parser("backup", help="copy the database while the shop runs (SQLite online backup, pg_dump)")
    backup.add_argument("destination", help="file to write (must not exist)")
    backup.set_defaults(run=_backup)
    check = sub.add_parser("check-config", help="check the settings and that the database and Redis answer")
    check.add_argument("--workers", type=_workers, default=None)
    check.add_argument("--host", default=server.host, help="the address serve will listen on (default: HOST)")
    check.add_argument("--dev", action="store_true", help="check for the development server")
    check.set_defaults(run=_check_config, prints_database=False)  # its summary names it, with every problem
    sub.add_parser("migrate", help="apply database migrations").set_defaults(run=_migrate)
    sub.add_parser("seed-demo", help="add the demo catalogue (idempotent)").set_defaults(run=_seed_demo)
    admin = sub.add_parser("create-admin", help="create an admin, or promote an existing user")
    admin.add_argument("email")
    admin.add_argument("--password", required=True)
    admin.set_defaults(run=_create_admin)
    sub.add_parser("has-products", help="exit 0 if the catalogue has products, 3 if not").set_defaults(
        run=_has_products
    )
    coupon = sub.add_parser("create-coupon", help="add a coupon: a percentage or a fixed amount off")
    coupon.add_argument("code")
    effect = coupon.add_mutually_exclusive_group(required=True)
    effect.add_argument("--percent", metavar="N", help="percentage off the subtotal (above 0, at most 100)")
    effect.add_argument("--amount", metavar="X", help="fixed amount off, e.g. 5.00")
    coupon.add_argument("--expires", metavar="YYYY-MM-DD", type=_iso_date, help="last day the coupon is valid (UTC)")
    coupon.add_argument("--inactive", action="store_true", help="create it switched off")
    coupon.set_defaults(run=_create_coupon)
    products = sub.add_parser(
        "import-products", help="import a CSV catalogue of any size (all rows or none; refused rows reported)"
    )
    products.add_argument("file", metavar="FILE.csv", help="the bulk upload's CSV columns, first line the headers")
    products.add_argument("--admin", metavar="EMAIL", help="the admin the import is made by (default: the first)")
    products.add_argument("--errors", metavar="REPORT.csv", help="where refused rows go (default: FILE.errors.csv)")
    products.set_defaults(run=_import_products)
    sub.add_parser(
        "reindex-search", help="index every product again (after a VACUUM or a manual table rebuild)"
    ).set_defaults(run=_reindex_search)
    return parser


def _database_line(server: ServerSettings) -> list[str]:
    """Print the database this command uses; return problems with its URL or the settings."""
    from .server.preflight import check_database_url
    from .config.settings import get_settings, redact_url

    raw = server.database_url
    if raw:
        url, _kind, problems = check_database_url(raw)
        print(f"Database: {redact_url(url)}")
        if problems:
            return problems
        # Handed on normalised (psycopg 3) to Reflex, whose config reads REFLEX_DB_URL itself.
        os.environ["REFLEX_DB_URL"] = url
    try:
        settings = get_settings()
    except (ValueError, RuntimeError, OSError) as exc:
        return [str(exc)]
    if not raw:
        print(f"Database: {redact_url(settings.database_url)}")
    return []


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    run: Callable[[argparse.Namespace], str] = args.run
    if getattr(args, "prints_database", True):
        problems = _database_line(server_settings())
        if problems:
            for problem in problems:
                print(f"error: {problem}", file=sys.stderr)
            return 2
    try:
        message = run(args)
    except ConfigProblems as exc:
        for problem in exc.problems:
            print(f"error: {problem}", file=sys.stderr)
        return 2
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
