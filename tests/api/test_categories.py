"""Categories over HTTP: list, create, bulk upload (JSON and CSV)."""

from __future__ import annotations

from sqlmodel import select

from discount_deals.db import session_scope
from discount_deals.models import Category


def category_names() -> list[str]:
    with session_scope() as session:
        return sorted(session.exec(select(Category.name)).all())


def test_first_page_holds_every_category_sorted_by_name(client, make_category):
    for n in range(25):
        make_category(f"Cat {n:02d}", description=f"about {n}")
    for path in ("/api/category/", "/api/category"):
        body = client.get(path).json()
        assert body["count"] == 25 and body["next"] is None and body["total_pages"] == 1
        assert [c["name"] for c in body["results"]] == [f"Cat {n:02d}" for n in range(25)]
    first = body["results"][0]
    assert set(first) == {"id", "name", "slug", "description", "parent"}
    assert first["slug"] == "cat-00" and first["description"] == "about 0" and first["parent"] is None
    paged = client.get("/api/category/?page_size=10&page=3").json()
    assert [c["name"] for c in paged["results"]] == [f"Cat {n:02d}" for n in range(20, 25)]
    assert client.get("/api/category/?page=2").status_code == 404


def test_create_category_as_the_client_sends_it(client, admin_headers):
    response = client.post(
        "/api/category/", json={"id": "", "name": "Fresh Food", "slug": "fresh-food"}, headers=admin_headers
    )
    assert response.status_code == 201
    body = response.json()
    assert (
        body["name"] == "Fresh Food"
        and body["slug"] == "fresh-food"
        and body["description"] == ""
        and body["parent"] is None
    )
    assert body["id"] and body["id"] != ""
    assert client.get("/api/category/").json()["results"] == [body]


def test_slug_is_derived_from_the_name_when_blank(client, admin_headers):
    response = client.post("/api/category/", json={"name": "  Baby & Kids!  ", "slug": ""}, headers=admin_headers)
    assert response.status_code == 201
    assert response.json()["name"] == "Baby & Kids!" and response.json()["slug"] == "baby-kids"
    given = client.post("/api/category/", json={"name": "Home", "slug": "Home Stuff"}, headers=admin_headers)
    assert given.json()["slug"] == "home-stuff"


def test_parent_and_description(client, admin_headers, make_category):
    parent = make_category("Food")
    response = client.post(
        "/api/category/", json={"name": "Rice", "description": "Grains", "parent": "food"}, headers=admin_headers
    )
    assert response.status_code == 201
    assert response.json()["parent"] == parent.id and response.json()["description"] == "Grains"
    unknown = client.post("/api/category/", json={"name": "Beans", "parent": "nowhere"}, headers=admin_headers)
    assert unknown.status_code == 400 and unknown.json()["parent"] == ['Category "nowhere" not found.']


def test_duplicate_name_or_slug_is_a_400_with_a_message(client, admin_headers, make_category):
    make_category("Drinks")
    same_name = client.post("/api/category/", json={"name": "DRINKS", "slug": "other"}, headers=admin_headers)
    assert same_name.status_code == 400
    assert same_name.json()["detail"] == 'A category named "DRINKS" already exists.'
    same_slug = client.post("/api/category/", json={"name": "Beverages", "slug": "drinks"}, headers=admin_headers)
    assert same_slug.status_code == 400
    assert same_slug.json()["detail"] == 'A category with the slug "drinks" already exists.'
    assert category_names() == ["Drinks"]


def test_a_category_name_in_full_width_letters_is_the_same_name(client, admin_headers, make_category):
    """"Ｆｏｏｄ" was created beside "Food", with the slug "ｆｏｏｄ": the same word on screen."""
    make_category("Food")
    for name in ("\uff26\uff4f\uff4f\uff44", "Food\u200b"):
        refused = client.post("/api/category/", json={"name": name}, headers=admin_headers)
        assert refused.status_code == 400 and "already exists" in refused.json()["detail"], name
    blank = client.post("/api/category/", json={"name": "\u200b"}, headers=admin_headers)
    assert blank.status_code == 400 and blank.json()["name"] == ["Name is required"]
    assert category_names() == ["Food"]


def test_a_name_may_not_be_another_categorys_slug_nor_a_slug_another_ones_name(client, admin_headers,
                                                                                make_category, make_product):
    """The original client finds categories by name, links by slug: "Kitchen" (slug kitchen-ware)
    beside "Home & Kitchen" (slug kitchen) sent a product edited into "Kitchen" to the other one,
    and ?category=Kitchen listed the other's products. Such a pair can no longer be made."""
    kitchen = make_category("Kitchen", slug="kitchen-ware")
    crossed = client.post("/api/category/", json={"name": "Home & Kitchen", "slug": "KITCHEN"}, headers=admin_headers)
    assert (crossed.status_code, crossed.json()["slug"]) == (400, ['"kitchen" is another category\'s name: '
                                                                   'choose another slug.'])
    named = client.post("/api/category/", json={"name": "Kitchen-Ware", "slug": "pots"}, headers=admin_headers)
    assert (named.status_code, named.json()["name"]) == (400, ['"Kitchen-Ware" is another category\'s slug: '
                                                               'choose another name.'])
    home = make_category("Home", slug="home")
    renamed = client.patch(f"/api/category/{home.id}/", json={"slug": "kitchen"}, headers=admin_headers)
    assert renamed.status_code == 400 and "name" in renamed.json()["slug"][0]
    assert client.patch(f"/api/category/{home.id}/", json={"name": "home"}, headers=admin_headers).status_code == 200
    rows = [{"name": "Pots", "slug": "kitchen", "description": "crossed"},
            {"name": "kitchen-ware", "slug": "pans", "description": "crossed"}]
    bulk = client.post("/api/category/bulk-upload/", json={"categories": rows}, headers=admin_headers)
    assert bulk.status_code == 400
    assert [sorted(e["errors"]) for e in bulk.json()["errors"]] == [["slug"], ["name"]]
    assert sorted(category_names()) == ["Kitchen", "home"]
    # by name, "Kitchen" is the category of that name
    product = make_product(category=home)
    moved = client.patch(f"/api/products/{product.id}", json={"category": "Kitchen"}, headers=admin_headers)
    assert moved.status_code == 200 and moved.json()["data"]["category"]["id"] == kitchen.id


def test_invalid_category_input(client, admin_headers):
    missing = client.post("/api/category/", json={"id": "", "slug": "x"}, headers=admin_headers)
    assert missing.status_code == 400 and missing.json()["name"] == ["Name is required"]
    no_slug = client.post("/api/category/", json={"name": "!!!"}, headers=admin_headers)
    assert no_slug.status_code == 400 and "slug" in no_slug.json()
    too_long = client.post("/api/category/", json={"name": "x" * 121}, headers=admin_headers)
    assert too_long.status_code == 400 and too_long.json()["name"] == ["Must be at most 120 characters."]
    assert client.post("/api/category/", json=["Drinks"], headers=admin_headers).status_code == 400
    assert category_names() == []


def test_bulk_upload_categories_with_mixed_rows(client, admin_headers, make_category):
    make_category("Existing", slug="existing")
    rows = [
        {"name": "Toys", "slug": "toys", "description": "Games and toys", "parent": ""},
        {"name": "", "slug": "", "description": ""},
        {"name": "Existing", "slug": "existing-2", "description": "dup name"},
        {"name": "Garden", "slug": "existing", "description": "dup slug"},
        {"name": "toys", "slug": "toys-again", "description": "dup within upload"},
        {"name": "Dolls", "slug": "dolls", "description": "child of an earlier row", "parent": "toys"},
        "not an object",
    ]
    response = client.post("/api/category/bulk-upload/", json={"categories": rows}, headers=admin_headers)
    assert response.status_code == 201, response.text
    body = response.json()
    assert [c["name"] for c in body["created"]] == ["Toys", "Dolls"]
    assert body["created"][1]["parent"] == body["created"][0]["id"]
    errors = {e["index"]: e["errors"] for e in body["errors"]}
    assert sorted(errors) == [1, 2, 3, 4, 6]
    assert errors[1] == {
        "name": ["Name is required"],
        "slug": ["Slug is required"],
        "description": ["Description is required"],
    }
    assert "already exists" in errors[2]["name"][0]
    assert "already exists" in errors[3]["slug"][0]
    assert "already exists" in errors[4]["name"][0]
    assert category_names() == ["Dolls", "Existing", "Toys"]


def test_bulk_upload_categories_with_nothing_valid_is_a_400_with_the_errors(client, admin_headers):
    response = client.post(
        "/api/category/bulk-upload",
        json={"categories": [{"name": "No slug", "description": "d"}]},
        headers=admin_headers,
    )
    assert response.status_code == 400
    body = response.json()
    assert body["created"] == [] and body["errors"] == [{"index": 0, "errors": {"slug": ["Slug is required"]}}]
    assert "detail" in body
    empty = client.post("/api/category/bulk-upload/", json={"categories": []}, headers=admin_headers)
    assert empty.status_code == 400 and empty.json()["created"] == [] and empty.json()["errors"] == []
    not_list = client.post("/api/category/bulk-upload/", json={"categories": "Toys"}, headers=admin_headers)
    assert not_list.status_code == 400
    assert category_names() == []


def test_bulk_upload_categories_from_csv(client, admin_headers):
    csv = b'name,slug,description,parent\n\nSnacks,snacks,"Chips, nuts and sweets",\nNuts,nuts,Roasted,snacks\n,,,\nBad,,no slug,\n'
    response = client.post(
        "/api/category/bulk-upload/", files={"file": ("c.csv", csv, "text/csv")}, headers=admin_headers
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert [c["description"] for c in body["created"]] == ["Chips, nuts and sweets", "Roasted"]
    assert body["errors"] == [{"index": 2, "errors": {"slug": ["Slug is required"]}}]


def test_a_name_differing_only_in_an_accented_letters_case_is_taken_on_every_database(client, admin_headers,
                                                                                       make_category):
    """SQLite's lower() folds ASCII only: "épicerie" was accepted beside "Épicerie" there (and found
    neither by the other's case), while PostgreSQL refused it."""
    epicerie = make_category("Épicerie", slug="epicerie")
    same = client.post("/api/category/", json={"name": "épicerie", "slug": "other"}, headers=admin_headers)
    assert (same.status_code, same.json()["name"]) == (400, ['A category named "épicerie" already exists.'])
    crossed = client.post("/api/category/", json={"name": "Groceries", "slug": "ÉPICERIE"}, headers=admin_headers)
    assert crossed.status_code == 400 and "slug" in crossed.json()
    assert category_names() == ["Épicerie"]
    with session_scope() as session:
        from discount_deals.services.catalog import find_category

        assert find_category(session, "ÉPICERIE").id == epicerie.id
        assert find_category(session, "épicerie").id == epicerie.id
        assert find_category(session, "épices") is None


def test_a_category_stored_before_todays_rules_keeps_its_spelling_and_is_found_by_it(client, admin_headers,
                                                                                     make_category, make_product):
    """Editing only the description of "Ｆｏｏｄ Court" (stored before) renamed it "Food Court" and
    moved its slug, breaking links; and a category created as "Cafe\u0301s" was not found by it."""
    make_category("Food")
    legacy = make_category("Ｆｏｏｄ Court", slug="ｆｏｏｄ-court")
    edited = client.patch(f"/api/category/{legacy.id}/", json={"description": "Eat in"}, headers=admin_headers)
    assert edited.status_code == 200, edited.text
    with session_scope() as session:
        row = session.get(Category, legacy.id)
        assert (row.name, row.slug, row.description) == ("Ｆｏｏｄ Court", "ｆｏｏｄ-court", "Eat in")
    created = client.post("/api/category/", json={"name": "Cafe\u0301s"}, headers=admin_headers)
    assert created.status_code == 201 and created.json()["name"] == "Caf\u00e9s"
    product = client.post("/api/products/", headers=admin_headers, json={
        "name": "Espresso", "price": "5.00", "category": "Cafe\u0301s"})
    assert product.status_code == 201, product.text
    # A name that NFKC makes longer than the column is refused by its field, not by the database;
    # one stored before stays editable.
    long = client.post("/api/category/", json={"name": "\u338f" * 120}, headers=admin_headers)
    assert long.status_code == 400 and long.json()["name"] == ["Must be at most 120 characters."]
    stored_long = make_category("\u338f" * 100, slug="kg-stored")
    kept = client.patch(f"/api/category/{stored_long.id}/", json={"description": "Weights"}, headers=admin_headers)
    assert kept.status_code == 200, kept.text
