"""Issue 24: search that forgives typos, over GET /api/products/?search= (SQLite FTS5 and, in
`make test-postgres`, PostgreSQL): one typo in words of 4-7 letters, two from 8, never the first
letter; exact matches above corrected ones; correction only when the exact search finds less than
a page; ``corrected_query`` says what was searched (absent when nothing was corrected, so an
uncorrected page is what it always was); ``exact=true`` searches what was typed."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from rapidfuzz.distance import OSA

from ..builders.accounts import auth_headers

URL = "/api/products/"


@pytest.fixture
def shelf(make_category, make_product):
    groceries = make_category("Groceries")
    health = make_category("Health")
    s = SimpleNamespace(groceries=groceries, health=health)
    s.jasmine = make_product("Royal Aroma Jasmine Rice 5kg", "18.50", category=groceries)
    s.brown = make_product("Brown Rice 2kg", "12.00", category=groceries, description="Wholegrain")
    s.sardines = make_product("Titus Sardines in Oil 125g", "1.60", category=groceries)
    s.panadol = make_product("Panadol Extra 24 Tablets", "3.50", category=health, description="Pain relief")
    s.chocolate = make_product("Golden Tree Chocolate Bar", "2.00", category=groceries)
    s.hidden = make_product("Hidden Sardines Tin", "1.00", category=groceries, status="inactive")
    return s


def search(client, text: str, **params) -> tuple[list[str], str | None]:
    response = client.get(URL, params={"search": text, **params})
    assert response.status_code == 200, response.text
    body = response.json()
    return [item["name"] for item in body["results"]], body.get("corrected_query")


@pytest.mark.parametrize(
    ("typed", "meant", "found"),
    [
        ("jasmin rcie", "jasmine rice", ["Royal Aroma Jasmine Rice 5kg"]),  # a letter missing; a swap
        ("sardins", "sardines", ["Titus Sardines in Oil 125g"]),  # a letter missing
        ("panadl", "panadol", ["Panadol Extra 24 Tablets"]),
        ("panadoll", "panadol", ["Panadol Extra 24 Tablets"]),  # a letter too many
        ("panadel", "panadol", ["Panadol Extra 24 Tablets"]),  # a letter replaced
        ("chokolatte", "chocolate", ["Golden Tree Chocolate Bar"]),  # 10 letters: two typos
        ("Brwn Rice", "brown rice", ["Brown Rice 2kg"]),
    ],
)
def test_typos_are_corrected_and_say_so(client, shelf, typed, meant, found):
    assert search(client, typed) == (found, meant)
    assert search(client, meant) == (found, None)  # the corrected text finds the same, uncorrected
    assert "corrected_query" not in client.get(URL, params={"search": meant}).json()


def test_words_under_eight_letters_get_one_typo_and_short_words_none(client, shelf):
    assert OSA.distance("pnadl", "panadol") == 2 and OSA.distance("sardnes", "sardines") == 1
    assert search(client, "pnadl") == ([], None)  # 5 letters, two typos
    assert search(client, "sardnes") == (["Titus Sardines in Oil 125g"], "sardines")
    assert search(client, "ril") == ([], None)  # 3 letters: "oil" and "rice" are not guessed
    assert search(client, "chokolattte") == ([], None)  # 11 letters but three typos


def test_the_first_letter_is_never_guessed(client, shelf):
    assert OSA.distance("eice", "rice") == 1 and OSA.distance("irce", "rice") == 1
    assert search(client, "eice") == ([], None)
    assert search(client, "irce") == ([], None)  # a swap of the first two letters changes the first
    assert search(client, "bardines") == ([], None)


def test_known_words_are_never_corrected(client, shelf):
    # Both words are in the catalogue but no product has both: nothing is guessed.
    assert search(client, "jasmine brown") == ([], None)
    assert search(client, "tablets sardines") == ([], None)


def test_exact_matches_rank_above_corrected_ones(client, shelf):
    names, corrected = search(client, "sardins or panadol")
    assert names == ["Panadol Extra 24 Tablets", "Titus Sardines in Oil 125g"]
    assert corrected == "sardines or panadol"
    names, _ = search(client, "sardins or panadol", ordering="-name")  # an ordering asked for: exact still first
    assert names == ["Panadol Extra 24 Tablets", "Titus Sardines in Oil 125g"]


def test_no_correction_when_the_exact_search_finds_a_page(client, shelf, make_category, make_product):
    bulk = make_category("Bulk")
    for n in range(10):
        make_product(f"Parboiled Rice Sack {n}", "40.00", category=bulk)
    names, corrected = search(client, "sardins or rice")
    assert corrected is None and len(names) == 10 and "Titus Sardines in Oil 125g" not in names
    assert client.get(URL, params={"search": "sardins or rice"}).json()["count"] == 12
    # Within one category the exact words find two: fewer than a page, so the typo is corrected.
    names, corrected = search(client, "sardins or rice", category="groceries")
    assert corrected == "sardines or rice"
    assert names[-1] == "Titus Sardines in Oil 125g" and len(names) == 3


def test_exact_true_searches_only_what_was_typed(client, shelf):
    assert search(client, "jasmin rcie", exact="true") == ([], None)
    assert search(client, "jasmin rcie", exact="false")[1] == "jasmine rice"
    response = client.get(URL, params={"search": "rice", "exact": "maybe"})
    assert response.status_code == 400 and "exact" in response.json()


def test_corrected_pages_count_and_page_like_any_listing(client, shelf, make_product):
    for n in range(3):
        make_product(f"Sardines Family Pack {n}", "5.00", category=shelf.groceries)
    first = client.get(URL, params={"search": "sardins", "page_size": 2}).json()
    assert first["count"] == 4 and first["corrected_query"] == "sardines" and first["total_pages"] == 2
    second = client.get(first["next"]).json()
    assert second["corrected_query"] == "sardines" and len(second["results"]) == 2
    assert "exact" not in first["next"] and first["next"].startswith("http://testserver/api/products/?")


def test_hidden_products_are_never_a_correction_for_shoppers(client, shelf, admin):
    names, _ = search(client, "sardins")
    assert names == ["Titus Sardines in Oil 125g"]
    response = client.get(URL, params={"search": "sardins"}, headers=auth_headers(admin))
    assert [p["name"] for p in response.json()["results"]] == ["Hidden Sardines Tin", "Titus Sardines in Oil 125g"]


def test_corrections_follow_catalogue_writes(client, shelf, admin):
    headers = auth_headers(admin)
    assert search(client, "kelewelle") == ([], None)
    created = client.post(URL, json={"name": "Kelewele Spice Mix", "price": "2.00", "category": "groceries"},
                          headers=headers)
    assert created.status_code == 201
    assert search(client, "kelewelle") == (["Kelewele Spice Mix"], "kelewele")
    renamed = client.patch(f"{URL}{created.json()['data']['id']}/", json={"name": "Suya Spice Mix"}, headers=headers)
    assert renamed.status_code == 200
    assert search(client, "kelewelle") == ([], None)
    assert search(client, "sua") == ([], None) and search(client, "suyya")[1] == "suya"


@pytest.mark.parametrize("text", ['"jasmin" rcie', "jasmin -rcie", "rcie*", "r\u0000cie", "jasmin) NEAR(rcie"])
def test_quotes_exclusions_and_operators_stay_text(client, shelf, text):
    response = client.get(URL, params={"search": text})
    assert response.status_code == 200, response.text
    if text.startswith('"'):  # a quoted word is searched as typed
        assert response.json().get("corrected_query") in (None, '"jasmin" rice')
