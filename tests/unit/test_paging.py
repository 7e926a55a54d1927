"""The admin tabs' page arithmetic (state/paging.py)."""

from discount_deals.state.paging import page_count, page_label


def test_page_count_and_label():
    assert [page_count(n, 25) for n in (0, 1, 25, 26, 50, 51)] == [0, 1, 1, 2, 2, 3]
    assert page_label(1, 0) == "Page 1 of 1"
    assert page_label(2, 3) == "Page 2 of 3"
