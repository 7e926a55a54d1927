"""Admin back office in Chromium against the production server (SPEC §2 Admin, §4, §5, §6, §8).

Each test signs in a fresh admin (or customer) and checks both the screen's exact texts and the
server's database.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

from playwright.sync_api import Page, expect
from sqlmodel import select

from discount_deals.models import Category, Product, User

from .conftest import sign_in, unique

TABS = ["Overview", "Orders", "Returns", "Products", "Bulk Upload Products", "Bulk Upload Categories", "Categories",
        "Users", "Coupons", "Pickup Stores", "Notifications", "Reviews", "Activity"]


def toast(page: Page, text: str):
    return page.locator("[data-sonner-toast]").filter(has_text=text).first


def open_admin(page: Page, live_user, tab: str | None = None):
    admin, _password = live_user(role="admin")
    sign_in(page, admin)
    page.goto("/admin")
    expect(page.get_by_role("heading", name="Admin Dashboard")).to_be_visible()
    if tab:
        choose_tab(page, tab)
    return admin


def choose_tab(page: Page, name: str) -> None:
    page.get_by_role("tab", name=name, exact=True).click()
    expect(page.get_by_role("tab", name=name, exact=True)).to_have_attribute("aria-selected", "true")


def product_named(live_server, name: str) -> Product | None:
    with live_server.session() as session:
        return session.exec(select(Product).where(Product.name == name)).first()


# --- gate ----------------------------------------------------------------------------------------


def test_guests_go_to_login_and_see_nothing_of_the_dashboard(page: Page):
    page.goto("/admin")
    expect(page).to_have_url(re.compile(r"/login\?redirectTo=/admin$"))
    expect(page.get_by_role("tab")).to_have_count(0)


def test_customers_go_home(page: Page, live_user):
    customer, _ = live_user()
    sign_in(page, customer)
    page.goto("/admin")
    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.get_by_role("heading", name="Discover Amazing Deals")).to_be_visible()
    expect(page.get_by_role("heading", name="Admin Dashboard")).to_have_count(0)
    page.go_back()  # to the page before the back office, not to /admin and home again (a loop)
    expect(page).to_have_url(re.compile(r"/no-such-page-for-storage$"))


def test_admins_see_the_tabs_overview_first_and_can_log_out(page: Page, live_user):
    open_admin(page, live_user)
    tabs = page.get_by_role("tablist", name="Admin sections").get_by_role("tab")
    assert tabs.all_inner_texts() == TABS
    expect(tabs.first).to_have_attribute("aria-selected", "true")
    expect(page.get_by_text("Orders today")).to_be_visible()
    expect(page.get_by_text("Logout", exact=True)).to_have_count(1)  # one button for both layouts
    logout = page.get_by_role("button", name="Logout")
    assert logout.bounding_box()["y"] > tabs.last.bounding_box()["y"]  # at the sidebar's foot
    page.get_by_text("Logout", exact=True).click()
    expect(page).to_have_url(re.compile(r"/login$"))
    assert page.evaluate("localStorage.getItem('accessToken')") in (None, "")


def test_the_address_follows_the_tab_so_a_reload_keeps_it(page: Page, live_user):
    """The page's on-load opens the tab the address names, and runs again after every reconnect
    (a phone losing its signal) as on a reload: it put back the tab the admin had come in on."""
    admin, _password = live_user(role="admin")
    sign_in(page, admin)
    page.goto("/admin?tab=orders")
    expect(page.get_by_role("tab", name="Orders", exact=True)).to_have_attribute("aria-selected", "true")
    choose_tab(page, "Products")
    expect(page).to_have_url(re.compile(r"/admin\?tab=products$"))
    page.reload()
    expect(page.get_by_role("tab", name="Products", exact=True)).to_have_attribute("aria-selected", "true")
    page.go_back()  # the tabs make no history entries of their own: Back leaves the back office
    expect(page).not_to_have_url(re.compile(r"/admin"))


def test_phone_layout_puts_the_tabs_in_a_top_bar(page: Page, live_user):
    page.set_viewport_size({"width": 375, "height": 740})
    open_admin(page, live_user)
    tablist = page.get_by_role("tablist", name="Admin sections")
    box = tablist.bounding_box()
    assert box["y"] < 140 and box["width"] <= 375
    panel = page.get_by_role("tabpanel").bounding_box()
    assert panel["y"] >= box["y"] + box["height"] - 1 and panel["x"] < 40  # below the bar, not beside a sidebar
    logout = page.get_by_role("button", name="Logout")
    expect(logout).to_be_visible()
    assert logout.bounding_box()["y"] < box["y"]  # in the top bar, above the tabs
    expect(page.get_by_text("Logout", exact=True)).to_have_count(1)
    choose_tab(page, "Users")
    expect(page.get_by_role("heading", name="User Management")).to_be_visible()


# --- products ------------------------------------------------------------------------------------


def test_required_fields_message(page: Page, live_user):
    open_admin(page, live_user, "Products")
    expect(page.get_by_role("heading", name="Add New Product")).to_be_visible()
    page.get_by_label("Name", exact=True).fill("Only a name")
    page.get_by_role("button", name="Add Product").click()
    expect(toast(page, "Please fill in all required fields")).to_be_visible()
    expect(page.get_by_label("Name", exact=True)).to_have_value("Only a name")  # nothing was lost


def test_create_edit_cancel_update_delete_a_product(page: Page, live_user, live_server, e2e_category, live_product):
    open_admin(page, live_user, "Products")
    name = unique("Admin Kettle")
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Description").fill("A 1.7 litre electric kettle")
    page.get_by_label("Brand").fill("melcom")
    page.get_by_label("Category").select_option(label=e2e_category.name)
    expect(page.get_by_label("Price", exact=True)).to_have_attribute("placeholder", "0.00")
    expect(page.get_by_label("Discount Price")).to_have_attribute("placeholder", "0.00")
    page.get_by_label("Price", exact=True).fill("20")
    page.get_by_label("Discount Price").fill("15.00")
    page.get_by_label("Tags").fill(" kitchen, ,electric ,")
    page.get_by_label("Stock").fill("7")
    page.get_by_label("Status").select_option("inactive")
    page.get_by_label("Featured").check()
    page.get_by_role("button", name="Add Product").click()
    expect(toast(page, "Product created")).to_be_visible()
    expect(page.get_by_label("Name", exact=True)).to_have_value("")  # back to an empty add form

    created = product_named(live_server, name)
    assert created is not None
    assert (created.price, created.discount_price, created.stock) == (Decimal("20.00"), Decimal("15.00"), 7)
    assert (created.tags, created.related_products, created.status) == (["kitchen", "electric"], [], "inactive")
    assert (created.is_featured, created.is_available, created.brand) == (True, True, "melcom")
    assert created.image_url == "/placeholder.webp" and created.discount_start is None

    # The list pages through the catalogue and can be searched; inactive products are listed too.
    page.get_by_label("Search products").fill(name)
    expect(page.get_by_role("heading", name="Products (1)")).to_be_visible()
    row = page.get_by_role("list", name="Products").get_by_role("listitem").filter(has_text=name)
    expect(row.get_by_text("inactive", exact=True)).to_be_visible()
    expect(row.get_by_text(e2e_category.name, exact=True)).to_be_visible()
    expect(row.get_by_text("$20.00", exact=True)).to_be_visible()
    expect(row.locator("s")).to_have_text("$15.00")

    # Edit fills the form; Cancel returns to an empty add form.
    row.get_by_role("button", name=f"Edit {name}").click()
    expect(page.get_by_role("heading", name="Edit Product")).to_be_visible()
    expect(page.get_by_label("Name", exact=True)).to_have_value(name)
    expect(page.get_by_label("Price", exact=True)).to_have_value("20.00")
    expect(page.get_by_label("Tags")).to_have_value("kitchen, electric")
    expect(page.get_by_label("Category")).to_have_value(e2e_category.id)
    expect(page.get_by_label("Status")).to_have_value("inactive")
    expect(page.get_by_label("Featured")).to_be_checked()
    page.get_by_role("button", name="Cancel").click()
    expect(page.get_by_role("heading", name="Add New Product")).to_be_visible()
    expect(page.get_by_label("Name", exact=True)).to_have_value("")
    expect(page.get_by_label("Featured")).not_to_be_checked()
    expect(page.get_by_role("button", name="Cancel")).to_have_count(0)

    # Update clears the discount when its field is emptied and returns to add mode.
    row.get_by_role("button", name=f"Edit {name}").click()
    expect(page.get_by_label("Name", exact=True)).to_have_value(name)
    page.get_by_label("Price", exact=True).fill("25.50")
    page.get_by_label("Discount Price").fill("")
    page.get_by_label("Status").select_option("active")
    page.get_by_role("button", name="Update Product").click()
    expect(toast(page, "Product updated")).to_be_visible()
    expect(page.get_by_role("heading", name="Add New Product")).to_be_visible()
    expect(page.get_by_label("Name", exact=True)).to_have_value("")
    expect(row.get_by_text("$25.50", exact=True)).to_be_visible()
    expect(row.locator("s")).to_have_count(0)
    updated = product_named(live_server, name)
    assert (updated.price, updated.discount_price, updated.status) == (Decimal("25.50"), None, "active")

    # A service refusal is shown with the server's message.
    other = live_product()
    page.get_by_label("Name", exact=True).fill(other.name.upper())
    page.get_by_label("Category").select_option(label=e2e_category.name)
    page.get_by_label("Price", exact=True).fill("3")
    page.get_by_role("button", name="Add Product").click()
    expect(toast(page, f'A product named "{other.name.upper()}" already exists.')).to_be_visible()

    row.get_by_role("button", name=f"Delete {name}").click()
    expect(toast(page, "Product deleted")).to_be_visible()
    expect(page.get_by_role("heading", name="Products (0)")).to_be_visible()
    assert product_named(live_server, name) is None


def test_an_edit_opened_before_orders_keeps_their_stock(page: Page, live_user, live_server, live_product):
    """The form showed stock 5; orders took 3 meanwhile; saving a new description wrote 5 back (3
    units sold twice). Now the orders' count stays; a stock typed over it is refused with the count
    now, and saving again writes it."""
    product = live_product(stock=5)
    open_admin(page, live_user, "Products")
    page.get_by_label("Search products").fill(product.name)
    row = page.get_by_role("list", name="Products").get_by_role("listitem").filter(has_text=product.name)
    row.get_by_role("button", name=f"Edit {product.name}").click()
    expect(page.get_by_label("Stock")).to_have_value("5")
    with live_server.session() as session:  # three units ordered while the form is open
        session.get(Product, product.id).stock = 2
    page.get_by_label("Description").fill("Edited while orders came in")
    page.get_by_role("button", name="Update Product").click()
    expect(toast(page, "Product updated")).to_be_visible()
    expect(page.get_by_role("heading", name="Add New Product")).to_be_visible()  # saved: back to add mode
    edited = product_named(live_server, product.name)
    assert (edited.stock, edited.description) == (2, "Edited while orders came in")

    row.get_by_role("button", name=f"Edit {product.name}").click()
    expect(page.get_by_label("Stock")).to_have_value("2")
    with live_server.session() as session:
        session.get(Product, product.id).stock = 1
    page.get_by_label("Stock").fill("12")
    page.get_by_role("button", name="Update Product").click()
    expect(toast(page, "The stock changed to 1 while you edited this product (orders, or another admin): "
                       "check it and save again.")).to_be_visible()
    assert product_named(live_server, product.name).stock == 1
    expect(page.get_by_role("heading", name="Edit Product")).to_be_visible()  # refused: still editing
    page.get_by_role("button", name="Update Product").click()
    # The first save's "Product updated" may still be on screen: the form going back to add mode says this one is done.
    expect(page.get_by_role("heading", name="Add New Product")).to_be_visible()
    assert product_named(live_server, product.name).stock == 12


# --- bulk upload: products ---------------------------------------------------------------------


def _json_box(page: Page):
    return page.get_by_label("JSON Data")


def _upload_products(page: Page):
    page.get_by_role("button", name="Upload Products").click()


def _upload_json(page: Page, text: str):
    """The products' JSON typed in the box, then "Upload Products"."""
    _json_box(page).fill(text)
    _upload_products(page)


def _result(page: Page, kind: str = "products"):
    return page.get_by_test_id(f"{kind}-result")


def test_bulk_products_json_messages(page: Page, live_user, live_server, e2e_category):
    open_admin(page, live_user, "Bulk Upload Products")
    upload = page.get_by_role("button", name="Upload Products")
    expect(upload).to_be_disabled()  # no input yet

    _upload_json(page, "   ")
    expect(toast(page, "Please enter JSON data or upload a file")).to_be_visible()

    _upload_json(page, "[{not json")
    expect(toast(page, "Invalid JSON")).to_be_visible()
    expect(toast(page, "Please check your JSON format")).to_be_visible()

    _upload_json(page, '{"name": "x"}')
    expect(toast(page, "Data must be an array of products")).to_be_visible()

    _upload_json(page, '[{"name": "", "price": "2"}, {"name": "No picture", "description": "d", "price": "1", "category": "x"}]')
    expect(toast(page, "No valid products found")).to_be_visible()
    expect(toast(page, "Validation Error")).to_be_visible()
    result = _result(page)
    expect(result).to_have_attribute("data-success", "false")
    expect(result).to_contain_text("Validation failed")
    expect(result.get_by_text(
        "Product 1: Name is required, Description is required, Category is required, Image URL is required",
        exact=True,
    )).to_be_visible()
    expect(result.get_by_text("Product 2: Image URL is required", exact=True)).to_be_visible()


def _row(name: str, category: str, **extra) -> dict:
    return {"name": name, "description": "Bulk row", "price": "4.50", "category": category,
            "image_url": "/placeholder.webp", **extra}


def test_bulk_products_valid_invalid_duplicate_and_unknown_category(page: Page, live_user, live_server,
                                                                    e2e_category, live_product):
    import json

    existing = live_product()
    fresh = unique("Bulk Fresh")
    open_admin(page, live_user, "Bulk Upload Products")

    # One unknown category stops the whole upload.
    rows = [_row(fresh, e2e_category.slug.upper()), _row(unique("Bulk Lost"), "Nowhere Category")]
    _upload_json(page, json.dumps(rows))
    expect(toast(page, "Category Resolution Error")).to_be_visible()
    expect(toast(page, "1 products have invalid categories")).to_be_visible()
    result = _result(page)
    expect(result).to_contain_text("Category resolution failed")
    expect(result.get_by_text(f'Product 2 ({rows[1]["name"]}): Category "Nowhere Category" not found', exact=True)).to_be_visible()
    assert product_named(live_server, fresh) is None

    # Valid, invalid (no price) and duplicate rows: the valid one is created.
    page.evaluate(
        "() => { window.__stages = []; new MutationObserver(() => {"
        " const el = document.querySelector('[data-testid=\"products-progress\"] span');"
        " const t = el && el.textContent; if (t && window.__stages.at(-1) !== t) window.__stages.push(t);"
        " }).observe(document.body, {subtree: true, childList: true, characterData: true}); }"
    )
    no_price = {k: v for k, v in _row(unique("Bulk No Price"), e2e_category.name).items() if k != "price"}
    rows = [_row(fresh, e2e_category.name.lower(), tags=["a"]), no_price, _row(existing.name, e2e_category.name)]
    _upload_json(page, json.dumps(rows))
    expect(page.get_by_test_id("products-progress")).to_contain_text("Complete!")
    expect(page.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "100")
    result = _result(page)
    expect(result).to_have_attribute("data-success", "true")
    expect(result.get_by_text("Upload completed: 1 created, 1 already exist", exact=True)).to_be_visible()
    expect(result.get_by_text("Product 2: Price is required", exact=True)).to_be_visible()
    expect(result.get_by_text(f'Product 3 ({existing.name}): A product named "{existing.name}" already exists.',
                              exact=True)).to_be_visible()
    expect(result.get_by_text("1 product not imported: see the problems below.", exact=True)).to_be_visible()
    with page.expect_download() as download:  # the same report as import-products --errors
        result.get_by_role("button", name="Download error report").click()
    assert download.value.suggested_filename == "products-upload-errors.csv"
    report = Path(download.value.path()).read_text().splitlines()
    assert report[0] == "row,field,message" and "2,price,Price is required" in report
    assert f'3,name,"A product named ""{existing.name}"" already exists."' in report
    expect(toast(page, "Products Updated")).to_be_visible()
    expect(_json_box(page)).to_have_value("")  # the input clears after a success
    assert page.evaluate("window.__stages") == [
        "Validating products...", "Resolving category names...", "Uploading to server...", "Complete!"
    ]
    created = product_named(live_server, fresh)
    assert created is not None and created.category_id == e2e_category.id and created.tags == ["a"]

    # The product list was refreshed with the new product.
    choose_tab(page, "Products")
    page.get_by_label("Search products").fill(fresh)
    expect(page.get_by_role("list", name="Products").get_by_text(fresh, exact=True)).to_be_visible()


TEMPLATE_NAMES = ["Sample Jasmine Rice 5kg", "Sample Malt Drink 6 x 330ml"]


def _forget_template_products(live_server) -> None:
    with live_server.session() as session:
        for product in session.exec(select(Product).where(Product.name.in_(TEMPLATE_NAMES))).all():
            session.delete(product)


def test_bulk_products_from_the_downloaded_templates(page: Page, live_user, live_server, tmp_path):
    import json

    _forget_template_products(live_server)
    open_admin(page, live_user, "Bulk Upload Products")

    # The JSON template names categories that exist, and loads through the .json file picker.
    with page.expect_download() as info:
        page.get_by_role("button", name="Download products-template.json").click()
    download = info.value
    assert download.suggested_filename == "products-template.json"
    json_path = tmp_path / "products-template.json"
    download.save_as(json_path)
    rows = json.loads(json_path.read_text())
    assert [row["name"] for row in rows] == TEMPLATE_NAMES
    with live_server.session() as session:
        names = {c.name for c in session.exec(select(Category)).all()}
    assert {row["category"] for row in rows} <= names

    page.get_by_role("button", name="CSV", exact=True).click()
    expect(page.get_by_text("No file selected")).to_be_visible()
    expect(page.get_by_role("button", name="Upload Products")).to_be_disabled()
    with page.expect_download() as info:
        page.get_by_role("button", name="Download products-template.csv").click()
    csv_path = tmp_path / "products-template.csv"
    info.value.save_as(csv_path)
    assert info.value.suggested_filename == "products-template.csv"
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Choose CSV File").click()
    chooser.value.set_files(str(csv_path))
    expect(page.get_by_text("Selected: products-template.csv")).to_be_visible()
    page.get_by_role("button", name="Upload Products").click()
    expect(_result(page).get_by_text("Upload completed: 2 created, 0 already exist", exact=True)).to_be_visible()
    expect(_result(page)).to_have_attribute("data-success", "true")
    expect(page.get_by_text("No file selected")).to_be_visible()  # the file clears after a success
    for name in TEMPLATE_NAMES:
        assert product_named(live_server, name) is not None

    # The same products from the JSON template are now duplicates: nothing created, a red card.
    page.get_by_role("button", name="JSON", exact=True).click()
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Upload JSON File").click()
    chooser.value.set_files(str(json_path))
    expect(_json_box(page)).to_have_value(re.compile("Sample Jasmine Rice 5kg"))
    page.get_by_role("button", name="Upload Products").click()
    expect(_result(page).get_by_text("Upload completed: 0 created, 2 already exist", exact=True)).to_be_visible()
    expect(_result(page)).to_have_attribute("data-success", "false")
    expect(toast(page, "Upload Failed")).to_be_visible()
    _forget_template_products(live_server)


def test_bulk_products_empty_csv_counts_as_no_file(page: Page, live_user, tmp_path):
    open_admin(page, live_user, "Bulk Upload Products")
    page.get_by_role("button", name="CSV", exact=True).click()
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    page.locator("#bulk-products-csv input[type=file]").set_input_files(str(empty))
    expect(toast(page, "Please select a CSV file")).to_be_visible()
    expect(page.get_by_role("button", name="Upload Products")).to_be_disabled()


def test_bulk_products_csv_report_names_what_was_found_by_spreadsheet_row(page: Page, live_user, live_server,
                                                                            e2e_category, tmp_path):
    """Issue 32 item 15: a heading that fits the problems, rows as the spreadsheet shows them
    (the header is row 1), strict flags, and a line saying nothing was imported."""
    open_admin(page, live_user, "Bulk Upload Products")
    page.get_by_role("button", name="CSV", exact=True).click()
    fine, oil, salt = unique("Bulk CSV Fine"), unique("Bulk CSV Oil"), unique("Bulk CSV Salt")
    path = tmp_path / "problems.csv"
    path.write_text("name,description,price,category,image_url,is_featured\n"
                    f"{fine},Fine,1.00,{e2e_category.name},,yes\n"
                    f"{oil},Palm oil,3.00,Nowhere Category,,no\n"
                    f"{salt},Sea salt,1.00,{e2e_category.name},,maybe\n")
    page.locator("#bulk-products-csv input[type=file]").set_input_files(str(path))
    _upload_products(page)
    expect(toast(page, "Category Resolution Error")).to_be_visible()  # SPEC §5's toast stays
    result = _result(page)
    expect(result.get_by_text("2 rows have problems", exact=True)).to_be_visible()
    expect(result.get_by_text("1 row has an unknown category.", exact=True)).to_be_visible()
    expect(result.get_by_text("1 row has invalid values.", exact=True)).to_be_visible()
    expect(result.get_by_text("No rows were imported.", exact=True)).to_be_visible()
    expect(result).not_to_contain_text("Category resolution failed")
    expect(result.get_by_text(f'Row 3 ({oil}): Category "Nowhere Category" not found', exact=True)).to_be_visible()
    expect(result.get_by_text(f"Row 4 ({salt}): is featured: Must be true, false, yes, no, 1 or 0.",
                              exact=True)).to_be_visible()
    with page.expect_download() as download:
        result.get_by_role("button", name="Download error report").click()
    report = Path(download.value.path()).read_text().splitlines()
    assert report[1:] == ['3,category,"Category ""Nowhere Category"" not found"',
                          "4,is_featured,\"Must be true, false, yes, no, 1 or 0.\""]
    assert product_named(live_server, fine) is None


def test_bulk_file_over_the_limit_is_refused_by_the_picker(page: Page, live_user, tmp_path):
    """Issue 32 item 3: the server answers a body over the bulk limit with a bare 413 before reading
    it; the picker refuses such a file first, with words (written without a browser run here)."""
    open_admin(page, live_user, "Bulk Upload Products")
    page.get_by_role("button", name="CSV", exact=True).click()
    big = tmp_path / "big.csv"
    big.write_bytes(b"name\n" + b"x" * (10 * 1024 * 1024 + 1))
    page.locator("#bulk-products-csv input[type=file]").set_input_files(str(big))
    expect(toast(page, "Please choose one .json or .csv file of at most 10 MB.")).to_be_visible()
    expect(toast(page, "No file was received.")).to_have_count(0)  # the empty drop says nothing
    expect(page.get_by_text("No file selected")).to_be_visible()


# --- bulk upload: categories -------------------------------------------------------------------


def test_bulk_categories_json_and_csv_template(page: Page, live_user, live_server, tmp_path):
    import json

    open_admin(page, live_user, "Bulk Upload Categories")
    _json_box(page).fill('[{"name": "Only a name"}]')
    page.get_by_role("button", name="Upload Categories").click()
    expect(toast(page, "No valid categories found")).to_be_visible()
    expect(_result(page, "categories").get_by_text("Category 1: Slug is required, Description is required",
                                                   exact=True)).to_be_visible()

    name = unique("Bulk Shelf")
    rows = [
        {"name": name, "slug": re.sub(r"\W+", "-", name.lower()), "description": "From the bulk test", "parent": ""},
        {"name": unique("No slug"), "description": "x"},
    ]
    _json_box(page).fill(json.dumps(rows))
    page.get_by_role("button", name="Upload Categories").click()
    expect(page.get_by_test_id("categories-progress")).to_contain_text("100% complete")
    result = _result(page, "categories")
    expect(result).to_have_attribute("data-success", "true")
    expect(result.get_by_text("Upload completed: 1 created, 0 already exist", exact=True)).to_be_visible()
    expect(result.get_by_text("Category 2: Slug is required", exact=True)).to_be_visible()
    expect(_json_box(page)).to_have_value("")
    with live_server.session() as session:
        assert session.exec(select(Category).where(Category.name == name)).first() is not None

    # The CSV template uploads as it is (once).
    with live_server.session() as session:
        for category in session.exec(select(Category).where(Category.slug.in_(["sample-stationery", "sample-garden"]))).all():
            session.delete(category)
    page.get_by_role("button", name="CSV", exact=True).click()
    with page.expect_download() as info:
        page.get_by_role("button", name="Download categories-template.csv").click()
    assert info.value.suggested_filename == "categories-template.csv"
    path = tmp_path / "categories-template.csv"
    info.value.save_as(path)
    page.locator("#bulk-categories-csv input[type=file]").set_input_files(str(path))
    page.get_by_role("button", name="Upload Categories").click()
    expect(result.get_by_text("Upload completed: 2 created, 0 already exist", exact=True)).to_be_visible()
    with page.expect_download() as info:
        page.get_by_role("button", name="Download categories-template.json").click()
    assert info.value.suggested_filename == "categories-template.json"

    # The new categories are offered in the product form.
    choose_tab(page, "Products")
    expect(page.get_by_label("Category").locator("option", has_text="Sample Stationery")).to_have_count(1)


# --- categories ------------------------------------------------------------------------------


def test_add_category_with_its_slug(page: Page, live_user, live_server):
    open_admin(page, live_user, "Categories")
    with live_server.session() as session:
        before = len(session.exec(select(Category)).all())
    page.get_by_role("button", name="Add", exact=True).click()  # an empty name does nothing
    page.wait_for_timeout(500)
    expect(page.locator("[data-sonner-toast]")).to_have_count(0)

    name = f"Frozen & Chilled {unique('Food').split()[-1]}"
    page.get_by_label("Category Name").fill(name)
    page.get_by_label("Description (optional)").fill("Ice cream and frozen meals")
    page.get_by_role("button", name="Add", exact=True).click()
    expect(toast(page, "Category created successfully")).to_be_visible()
    expect(page.get_by_label("Category Name")).to_have_value("")
    with live_server.session() as session:
        created = session.exec(select(Category).where(Category.name == name)).one()
        assert len(session.exec(select(Category)).all()) == before + 1
    suffix = name.split()[-1]
    assert created.slug == f"frozen-chilled-{suffix}" and created.description == "Ice cream and frozen meals"

    page.get_by_label("Category Name").fill(name)
    page.get_by_role("button", name="Add", exact=True).click()
    expect(toast(page, "Failed to create category")).to_be_visible()

    page.get_by_role("button", name="Refresh").click()
    expect(toast(page, "Categories fetched successfully")).to_be_visible()


# --- users -----------------------------------------------------------------------------------


def test_a_closed_account_shows_closed_with_no_role_or_activation(page: Page, live_user, live_server):
    """A closed account is the orders' record: the back office offers no role and no reactivation
    for it (the services refuse both, 409 account_closed), and names it for what it is."""
    from discount_deals.services.users.privacy import close_account

    gone, password = live_user(first_name="Yaa", last_name="Closed")
    with live_server.session() as session:
        close_account(session, session.get(User, gone.id), password)
    open_admin(page, live_user, "Users")
    page.get_by_placeholder("Search users by email, username, or name...").fill(gone.id)
    row = page.get_by_role("list", name="Users").get_by_role("listitem")
    expect(row).to_have_count(1)
    expect(row.get_by_text("Closed account", exact=True)).to_be_visible()
    expect(row.get_by_text("Closed by its owner")).to_be_visible()
    expect(row.get_by_role("combobox")).to_have_count(0)
    expect(row.get_by_role("button")).to_have_count(0)


def test_users_search_filter_and_role_change(page: Page, live_user, live_server):
    token = unique("zq").replace(" ", "").replace("-", "")
    target, _ = live_user(username=f"{token}a", email=f"{token}a@example.com", first_name="Kofi", last_name="Boateng")
    live_user(role="seller", username=f"{token}b", email=f"{token}b@example.com", first_name="", last_name="")
    open_admin(page, live_user, "Users")
    expect(page.get_by_role("heading", name="User Management")).to_be_visible()
    role_filter = page.get_by_label("Filter by role")
    options = role_filter.locator("option")
    assert options.all_inner_texts() == ["All Roles", "Admin", "Seller", "Manager", "Customer", "User"]
    assert all(value for value in options.evaluate_all("os => os.map(o => o.value)"))

    page.get_by_placeholder("Search users by email, username, or name...").fill(token)
    expect(page.get_by_text("Showing 2 of 2 users")).to_be_visible()
    users = page.get_by_role("list", name="Users").get_by_role("listitem")
    kofi = users.filter(has_text="Kofi Boateng")
    expect(kofi.get_by_text(f"{token}a@example.com")).to_be_visible()
    expect(kofi.get_by_text(f"@{token}a")).to_be_visible()
    expect(kofi.get_by_text("customer", exact=True)).to_have_class(re.compile("border-gray-300"))  # outline
    seller = users.filter(has_text=f"@{token}b")
    expect(seller.get_by_text(f"{token}b", exact=True)).to_be_visible()  # no name: the username
    expect(seller.get_by_text("seller", exact=True)).to_have_class(re.compile("bg-gray-900"))  # default

    page.evaluate(
        "() => { window.__loading = false; new MutationObserver(() => {"
        " if (document.body.innerText.includes('Loading users...')) window.__loading = true;"
        " }).observe(document.body, {subtree: true, childList: true, characterData: true}); }"
    )
    role_filter.select_option("seller")
    expect(page.get_by_text("Showing 1 of 1 users")).to_be_visible()
    assert page.evaluate("window.__loading") is True  # 'Loading users...' showed while the query ran
    role_filter.select_option("manager")
    expect(page.get_by_text("No users match your search criteria")).to_be_visible()
    role_filter.select_option("all")
    expect(page.get_by_text("Showing 2 of 2 users")).to_be_visible()

    select = page.get_by_label("Role for Kofi Boateng")
    assert select.locator("option").all_inner_texts() == ["Customer", "User", "Seller", "Manager", "Admin"]
    select.select_option("manager")
    expect(toast(page, "Role Updated")).to_be_visible()
    expect(toast(page, "User role has been updated to manager")).to_be_visible()
    expect(kofi.get_by_text("manager", exact=True)).to_have_class(re.compile("bg-gray-200"))  # secondary
    with live_server.session() as session:
        assert session.get(User, target.id).role == "manager"
    select.select_option("admin")
    expect(kofi.get_by_text("admin", exact=True)).to_have_class(re.compile("bg-red-700"))  # destructive


# --- server-side checks ------------------------------------------------------------------------


def _event_socket(page: Page):
    """Route the page's event websocket through the test: record frames both ways and let the
    test send frames to the server as this page."""
    socket: dict = {"sent": [], "received": []}

    def handler(ws):
        # Listen before connecting: the page sends its CONNECT packet as soon as the socket opens.
        def from_page(message):
            socket["sent"].append(message)
            socket["server"].send(message)

        def from_server(message):
            socket["received"].append(message)
            ws.send(message)

        ws.on_message(from_page)
        socket["server"] = ws.connect_to_server()
        socket["server"].on_message(from_server)

    page.route_web_socket(re.compile(r"/_event"), handler)
    return socket


def _send_event(page: Page, socket: dict, name: str, payload: dict) -> str:
    """Send ``name`` with ``payload`` framed as the browser frames its events (Socket.IO EVENT
    packets on the ``/_event`` namespace, with the page's own router data); return the reply."""
    import json

    # The page's first event (hydrate) rides in its CONNECT packet: 40/_event,{"event": {...}}.
    connect = None
    for _ in range(150):  # the app connects once its JavaScript has started
        connects = [m for m in socket["sent"] if isinstance(m, str) and m.startswith("40/_event,")]
        connect = connects[-1] if connects else None  # the current page's connection
        if connect and any(isinstance(m, str) and m.startswith("42/_event,") for m in socket["received"]):
            break
        page.wait_for_timeout(100)
    assert connect, "the page never connected its event socket"
    event = json.loads(connect[len("40/_event,"):])["event"]
    event.update(name=name, payload=payload)
    seen = len(socket["received"])
    socket["server"].send("42/_event," + json.dumps(["event", event]))
    for _ in range(100):
        replies = [m for m in socket["received"][seen:] if isinstance(m, str) and m.startswith("42/_event,")]
        if replies:
            page.wait_for_timeout(300)  # the rest of the reply, if any
            return "".join(m for m in socket["received"][seen:] if isinstance(m, str))
        page.wait_for_timeout(100)
    raise AssertionError(f"no reply to {name}")


def _handler(state, name: str) -> str:
    return f"{state.get_full_name()}.{name}"


def test_a_customer_cannot_call_admin_events(page: Page, live_user, live_server, live_product, e2e_category, browser):
    from discount_deals.state.admin.products import AdminProductsState
    from discount_deals.state.admin.users import AdminUsersState

    victim = live_product()
    customer, _ = live_user()
    socket = _event_socket(page)
    sign_in(page, customer)
    page.goto("/")
    expect(page.get_by_role("heading", name="Discover Amazing Deals")).to_be_visible()

    replies = [
        _send_event(page, socket, _handler(AdminProductsState, "delete"), {"product_id": victim.id}),
        _send_event(page, socket, _handler(AdminUsersState, "change_role"), {"user_id": customer.id, "role": "admin"}),
        _send_event(page, socket, _handler(AdminProductsState, "save"), {"form": {
            "product_name": "Injected", "product_price": "1", "product_category": e2e_category.id}}),
    ]
    for reply in replies:
        assert "_redirect" in reply  # refused: sent home
    with live_server.session() as session:
        assert session.get(Product, victim.id) is not None
        assert session.get(User, customer.id).role == "customer"
        assert session.exec(select(Product).where(Product.name == "Injected")).first() is None

    # The same frames from an admin's browser do reach the handlers (so the refusal above is real).
    context = browser.new_context(base_url=live_server.url)
    admin_page = context.new_page()
    admin_socket = _event_socket(admin_page)
    open_admin(admin_page, live_user)
    _send_event(admin_page, admin_socket, _handler(AdminProductsState, "delete"), {"product_id": victim.id})
    with live_server.session() as session:
        assert session.get(Product, victim.id) is None
    context.close()


# --- overview ------------------------------------------------------------------------------------


def test_overview_figures_match_seeded_orders(page: Page, live_user, live_server, live_product):
    from datetime import UTC, datetime, timedelta

    from discount_deals.models import Order, OrderItem
    from discount_deals.services import reports
    from discount_deals.display import money_text

    item = live_product(price="12.50", stock=2, name=unique("Overview Best Seller"))
    buyer, _ = live_user()
    now = datetime.now(UTC)
    with live_server.session() as session:
        for when, quantity in ((now - timedelta(minutes=1), 40), (now - timedelta(days=3), 30)):
            total = Decimal("12.50") * quantity
            order = Order(user_id=buyer.id, item_count=quantity, subtotal=total, total=total, created_at=when,
                          payment_status="paid")  # revenue is money received
            session.add(order)
            session.flush()
            session.add(OrderItem(order_id=order.id, product_id=item.id, name=item.name, unit_price=Decimal("12.50"),
                                  original_price=Decimal("12.50"), quantity=quantity, line_total=total))
    admin = open_admin(page, live_user)
    with live_server.session() as session:
        sales = reports.sales_overview(session, admin)
        top = reports.top_products(session, admin, limit=5)
        low_rows, low_count = reports.low_stock_products(session, admin, limit=10)
    assert sales.today_orders >= 1 and sales.period_orders >= 2

    def figure(label: str):
        return page.locator("dl > div").filter(has=page.get_by_text(label, exact=True)).locator("dd")

    expect(figure("Orders today")).to_have_text(str(sales.today_orders))
    expect(figure("Revenue today")).to_have_text(money_text(sales.today_revenue))
    expect(figure("Orders (last 30 days)")).to_have_text(str(sales.period_orders))
    expect(figure("Revenue (last 30 days)")).to_have_text(money_text(sales.period_revenue))
    chart = page.get_by_role("img", name=re.compile("orders per day"))
    expect(chart).to_be_visible()
    expect(chart.locator("[data-day]")).to_have_count(30)
    today = sales.per_day[-1]
    expect(chart.locator("[data-day]").last).to_have_attribute(
        "title", f"{today.day.strftime('%b %d')}: {today.orders} order{'' if today.orders == 1 else 's'}")

    table = page.get_by_role("table", name="Top products")
    expect(table.locator("tbody tr")).to_have_count(len(top))
    # Before coupons, tax and refunds: not called "Revenue" beside the overview's revenue.
    expect(table.get_by_role("columnheader")).to_have_text(["Product", "Units sold", "Sold for"])
    best = table.locator("tbody tr").filter(has_text=item.name)
    expect(best).to_contain_text("70")
    expect(best).to_contain_text("$875.00")
    expect(page.get_by_text(f"{low_count} products need restocking", exact=True)).to_be_visible()
    low = page.get_by_role("list", name="Low stock products").get_by_role("listitem")
    assert low.all_inner_texts() and [t.split("\n")[0] for t in low.all_inner_texts()] == [r.name for r in low_rows]
