"""Issue 32 item 15 through the steps the back office runs for a CSV file, against the database:
every problem named by its spreadsheet row (the header is row 1), flags read strictly, and the
downloadable report numbered the same way."""

from __future__ import annotations

import csv
import io

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services import bulk_import
from discount_deals.services.bulk_import import RowNumbers

from ..builders.rows import count_rows


def test_a_csv_files_problems_are_named_by_spreadsheet_row(admin, make_category, make_product):
    make_category("Groceries")
    make_product("Rice 5kg")
    data = ("name,description,price,category,image_url,stock,is_featured\n"   # row 1
            "Beans,Red beans,4.00,Groceries,,10,yes\n"                        # row 2: fine
            "\n"                                                              # row 3: blank
            "Sugar,,2.00,Groceries,,5,no\n"                                   # row 4: no description
            "Oil,Palm oil,3.00,Kitchen,,5,0\n"                                # row 5: unknown category
            "Salt,Sea salt,1.00,Groceries,,5,maybe\n"                         # row 6: not a flag
            "rice 5KG,Again,1.00,Groceries,,1,1\n").encode()                  # row 7: already exists
    numbers = RowNumbers.sheet()
    rows = bulk_import.parse_products_csv(data, numbers)
    checked = bulk_import.check_required_fields(rows, image_required=False, numbers=numbers)
    assert checked.messages == ["Row 4: Description is required"]
    with session_scope() as session:
        resolved = bulk_import.resolve_product_categories(session, checked, numbers)
        assert resolved.messages == ['Row 5 (Oil): Category "Kitchen" not found']
        reported = checked.problems + resolved.problems
        lines, problems = bulk_import.problems_of_unimported(
            session, admin, rows, list(range(len(rows))), bulk_import.reported_fields(reported), numbers)
    assert lines == [
        f"Row 6 (Salt): is featured: {bulk_import.FLAG_MESSAGE}",
        'Row 7 (rice 5KG): A product named "rice 5KG" already exists.',
    ]
    report = list(csv.reader(io.StringIO(bulk_import.error_report_csv(reported + problems))))
    assert report == [
        ["row", "field", "message"],
        ["4", "description", "Description is required"],
        ["5", "category", 'Category "Kitchen" not found'],
        ["6", "is_featured", bulk_import.FLAG_MESSAGE],
        ["7", "name", 'A product named "rice 5KG" already exists.'],
    ]
    assert bulk_import.problems_heading(reported + problems) == ("4 rows have problems", [
        "1 row has an unknown category.", "1 row is missing required fields.", "1 row already exists.",
        "1 row has invalid values."])
    assert count_rows(models.Product) == 1  # the upload stopped: nothing written
