"""Bulk imports of products and categories (JSON rows or CSV files), by stage.

- :mod:`.csv_files`: an uploaded or streamed CSV file as rows
- :mod:`.upload_steps`: the admin screen's checks before an import (required fields, categories)
- :mod:`.importers`: validate and insert the rows in chunks, in the caller's transaction
- :mod:`.templates`: sample files the uploader accepts as they are
- :mod:`.report`: the error report (row, field, message) the command line and the screen share

Everything takes the caller's session; call the importers inside ``db.write_session()`` so that
the name checks and the inserts see the same database state.
"""

from .csv_files import (
    FLAG_MESSAGE,
    iter_csv_records,
    iter_numbered_records,
    iter_products_csv,
    parse_categories_csv,
    parse_products_csv,
    product_row_from_csv,
)
from .importers import (
    CHUNK_ROWS,
    CategoryIndex,
    CreatedProduct,
    ImportResult,
    UnreadCell,
    check_products,
    import_categories,
    import_products,
)
from .report import RowNumbers, RowProblem, error_report_csv, problems_heading, result_problems, write_error_report
from .templates import (
    CATEGORY_TEMPLATE_COLUMNS,
    CATEGORY_TEMPLATE_ROWS,
    PRODUCT_EXPORT_COLUMNS,
    PRODUCT_TEMPLATE_COLUMNS,
    categories_template,
    product_template_rows,
    products_template,
)
from .upload_steps import (
    CATEGORY_REQUIRED,
    PRODUCT_REQUIRED,
    CheckedRows,
    check_required_fields,
    problems_of_unimported,
    refused_row_messages,
    reported_fields,
    resolve_product_categories,
)

__all__ = [
    "CATEGORY_REQUIRED",
    "CATEGORY_TEMPLATE_COLUMNS",
    "CATEGORY_TEMPLATE_ROWS",
    "CHUNK_ROWS",
    "FLAG_MESSAGE",
    "PRODUCT_REQUIRED",
    "PRODUCT_EXPORT_COLUMNS",
    "PRODUCT_TEMPLATE_COLUMNS",
    "CategoryIndex",
    "CheckedRows",
    "CreatedProduct",
    "ImportResult",
    "RowNumbers",
    "RowProblem",
    "UnreadCell",
    "categories_template",
    "check_products",
    "check_required_fields",
    "error_report_csv",
    "import_categories",
    "import_products",
    "iter_csv_records",
    "iter_numbered_records",
    "iter_products_csv",
    "parse_categories_csv",
    "parse_products_csv",
    "problems_heading",
    "problems_of_unimported",
    "product_row_from_csv",
    "product_template_rows",
    "products_template",
    "refused_row_messages",
    "reported_fields",
    "resolve_product_categories",
    "result_problems",
    "write_error_report",
]
