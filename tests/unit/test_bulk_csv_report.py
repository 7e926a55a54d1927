"""Issue 32 item 15: a CSV upload's report names what was found, numbers rows as a spreadsheet
does (the header is row 1), and says how many rows went in; the spec's words stay on the JSON
path (services.bulk_import.report, state/admin/bulk.py's result card)."""

from __future__ import annotations

import pytest

from discount_deals.services import bulk_import
from discount_deals.services.bulk_import import RowNumbers, RowProblem, problems_heading
from discount_deals.state.admin.bulk import _all_problems, _Refusal
from discount_deals.state.admin.bulk_input import imported_note, read_rows

UNKNOWN = 'Category "Kitchen" not found'


def test_csv_rows_are_numbered_as_a_spreadsheet_shows_them():
    data = (b"\n"                                   # row 1: a blank line before the header
            b"name,price,category\n"                # row 2: the header
            b"Rice,1.00,food\n"                     # row 3
            b"\n"                                   # row 4: blank (skipped, counted)
            b'"Beans\nred",2.00,food\n'             # row 5: one row over two lines
            b",,\n"                                 # row 6: blanks
            b"Oil,3.00,food\n")                     # row 7
    numbers = RowNumbers.sheet()
    rows = bulk_import.parse_products_csv(data, numbers)
    assert [row["name"] for row in rows] == ["Rice", "Beans\nred", "Oil"]
    assert [numbers.name(position) for position in range(3)] == ["Row 3", "Row 5", "Row 7"]


def test_a_plain_csv_starts_at_row_two_and_json_items_at_one():
    rows, problem, numbers = read_rows("csv", "", b"name,price\nA,1\nB,2\n", "product")
    assert problem is None and [numbers.number(p) for p in range(len(rows))] == [2, 3]
    rows, problem, numbers = read_rows("json", '[{"name": "A"}]', b"", "product")
    assert numbers.name(0) == "Product 1" and not numbers.is_sheet


def test_the_checks_name_csv_rows_by_their_spreadsheet_number():
    rows = bulk_import.parse_products_csv(b"name,description,price,category\nRice,,1.00,food\n", sheet := RowNumbers.sheet())
    checked = bulk_import.check_required_fields(rows, image_required=False, numbers=sheet)
    assert checked.messages == ["Row 2: Description is required"]
    assert checked.problems == [RowProblem(2, "description", "Description is required")]


@pytest.mark.parametrize(("problems", "heading", "by_kind"), [
    ([RowProblem(3, "category", UNKNOWN)], "1 row has an unknown category", []),
    ([RowProblem(3, "category", UNKNOWN), RowProblem(5, "category", UNKNOWN + ".")],
     "2 rows have unknown categories", []),
    ([RowProblem(2, "description", "Description is required"), RowProblem(2, "price", "Price is required")],
     "1 row is missing required fields", []),
    ([RowProblem(4, "is_featured", bulk_import.FLAG_MESSAGE)], "1 row has invalid values", []),
    ([RowProblem(3, "category", UNKNOWN), RowProblem(4, "price", "Must not be negative."),
      RowProblem(4, "description", "Description is required"),
      RowProblem(6, "name", 'A product named "Rice" already exists.')],
     "3 rows have problems",
     ["1 row has an unknown category.", "1 row is missing required fields.", "1 row already exists.",
      "1 row has invalid values."]),
])
def test_the_heading_names_what_was_found(problems, heading, by_kind):
    assert problems_heading(problems) == (heading, by_kind)


def test_the_imported_line():
    assert imported_note(0, 5) == "No rows were imported."
    assert imported_note(3, 5) == "3 of 5 rows imported."
    assert imported_note(1, 1) == "1 of 1 row imported."


def _category_stop(problems: list[RowProblem]) -> _Refusal:
    return _Refusal("Category resolution failed", [], ("Category Resolution Error", "1 products have invalid categories"),
                    problems)


def test_a_stopped_csv_upload_is_headed_by_what_was_found_and_imports_nothing():
    problems = [RowProblem(3, "category", UNKNOWN), RowProblem(4, "price", "Must not be negative.")]
    lines = ['Row 3 (Oil): Category "Kitchen" not found', "Row 4 (Salt): price: Must not be negative."]
    card = _all_problems(_category_stop(problems[:1]), lines, problems, RowNumbers.sheet())
    assert card.message == "2 rows have problems"
    assert card.notes == ["1 row has an unknown category.", "1 row has invalid values.", "No rows were imported."]
    assert card.errors == lines and card.problems == problems
    assert card.toast == ("Category Resolution Error", "1 products have invalid categories")  # SPEC §5's toast


def test_a_stopped_json_upload_keeps_the_specs_words():
    problems = [RowProblem(3, "category", UNKNOWN)]
    card = _all_problems(_category_stop(problems), ["Product 3 (Oil): ..."], problems, RowNumbers.items("product"))
    assert card.message == "Category resolution failed" and card.notes == []


def test_every_upload_stops_with_the_same_arguments():
    """A stopped products upload crashed: its _stop took no notes (the merged result card's line)."""
    import inspect

    from discount_deals.state.admin.bulk import BulkCategoriesState, BulkProductsState, _BulkUpload

    base = list(inspect.signature(_BulkUpload._stop).parameters)
    for state in (BulkProductsState, BulkCategoriesState):
        assert list(inspect.signature(state._stop).parameters) == base
