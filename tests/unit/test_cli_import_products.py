"""``python -m discount_deals import-products FILE.csv``: a real subprocess on the test database."""

from __future__ import annotations

import csv

from sqlmodel import func, select

from discount_deals.db import session_scope
from discount_deals.models import Product

from .test_cli import cli

HEADER = "name,description,price,discount_price,category,image_url,tags,stock,is_featured\n"


def product_count() -> int:
    with session_scope() as session:
        return session.exec(select(func.count()).select_from(Product)).one()


def test_import_streams_a_file_and_reports_refused_rows(tmp_path, make_category, make_user, make_product):
    make_category("Groceries")
    make_user(role="admin", email="boss@example.com")
    make_product("Existing Gari", category=None)
    lines = [HEADER]
    lines += [f'Cassava Flour {n:04d},"Fine, dry",{n % 50 + 1}.00,,groceries,,"flour, staples",{n % 9},false\n' for n in range(4500)]
    lines += ["Bad Price,x,abc,,groceries,,,1,false\n", "existing gari,dup,1.00,,groceries,,,1,false\n",
              "Nowhere Item,x,1.00,,Furniture,,,1,false\n"]
    source = tmp_path / "catalogue.csv"
    source.write_text("".join(lines), encoding="utf-8")

    result = cli("import-products", str(source))
    assert result.returncode == 0, result.stderr
    assert "Imported 4,500 of 4,503 rows" in result.stdout and "(as boss@example.com)" in result.stdout
    assert "3 rows refused" in result.stdout and "100%" in result.stderr
    assert product_count() == 4501
    with session_scope() as session:
        flour = session.exec(select(Product).where(Product.name == "Cassava Flour 0007")).one()
        assert flour.description == "Fine, dry" and flour.tags == ["flour", "staples"] and flour.stock == 7
    with (tmp_path / "catalogue.errors.csv").open(newline="") as report:
        rows = list(csv.DictReader(report))
    # Rows as a spreadsheet numbers them: the header is row 1, the first product row 2.
    assert [(r["row"], r["field"]) for r in rows] == [("4502", "price"), ("4503", "name"), ("4504", "category")]
    assert rows[2]["message"] == 'Category "Furniture" not found.'


def test_import_is_all_or_nothing_and_bad_files_are_one_line_errors(tmp_path, make_category, make_user):
    make_category("Groceries")
    missing = cli("import-products", str(tmp_path / "nope.csv"))
    assert missing.returncode == 1 and missing.stderr.strip() == f"error: {tmp_path / 'nope.csv'}: no such file."
    source = tmp_path / "ok.csv"
    source.write_text(HEADER + "Kenkey,x,1.00,,groceries,,,1,false\n")
    no_admin = cli("import-products", str(source))
    assert no_admin.returncode == 1 and "create-admin" in no_admin.stderr and product_count() == 0
    make_user(role="admin")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    refused = cli("import-products", str(empty))
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1 and "empty" in refused.stderr
    assert product_count() == 0
    assert cli("import-products", str(source)).returncode == 0 and product_count() == 1


def test_reindex_search_rebuilds_the_index(make_product):
    make_product("Waakye Leaves")
    result = cli("reindex-search")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "Search index rebuilt: 1 product indexed."
    assert result.stdout.startswith("Database: ")  # every command says which database it writes to
    from discount_deals.services.catalog import list_products

    with session_scope() as session:
        assert [p.name for p, _ in list_products(session, search="waakye").items] == ["Waakye Leaves"]
