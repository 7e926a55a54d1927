"""The websocket's packets are written by orjson exactly as Reflex's own encoder wrote them, and read
by Reflex's codec as before (discount_deals/web/frames.py, issue 23)."""

from __future__ import annotations

import datetime
import decimal
import enum
import json
import uuid
from dataclasses import dataclass
from types import SimpleNamespace

import pytest
from reflex_base.utils import format
from reflex_base.utils.serializers import serialize

from discount_deals.display import ProductView
from discount_deals.state.shop.shared_views import ListingPage
from discount_deals.web.frames import FrameJson

SEPARATORS = (",", ":")  # as python-socketio asks


def reflex_dumps(obj, **kwargs):
    return format.json_dumps(obj, **kwargs)


class Fallback(SimpleNamespace):
    """Reflex's codec, counting what reaches it (so a test can tell orjson did the writing)."""

    def __init__(self):
        super().__init__(dumped=0, loaded=0)

    def dumps(self, obj, **kwargs):
        self.dumped += 1
        return reflex_dumps(obj, **kwargs)

    def loads(self, data, **kwargs):
        self.loaded += 1
        return json.loads(data, **kwargs)


@dataclass(frozen=True)
class Card:
    id: str
    name: str
    price: str
    added: datetime.date


class Sort(enum.Enum):
    NAME = "name"


class Size(str, enum.Enum):
    LARGE = "large"


DELTA = {
    "reflex___state____state.products_state": {
        "cards_rx_state_": [Card("7f0c", "Gari — 1 kg", "12.50", datetime.date(2026, 11, 26)),
                            Card("8a1d", "Ɔwɔ \"fresh\" fish\n", "3.00", datetime.date(2026, 1, 2))],
        "updated_rx_state_": datetime.datetime(2026, 11, 26, 23, 40, 5, 120000),
        "total_rx_state_": decimal.Decimal("1234.50"),
        "id_rx_state_": uuid.UUID(int=5),
        "sort_rx_state_": Sort.NAME,
        "size_rx_state_": Size.LARGE,
        "pages_rx_state_": (1, 2, 3),
        "chosen_rx_state_": {3, 1},
        "counts_rx_state_": {1: 5, None: 0, False: 1, 2.5: 2},
        "share_rx_state_": 0.1 + 0.2,
        "big_float_rx_state_": 1e16,
        "nothing_rx_state_": None,
    },
}


@pytest.mark.parametrize("obj", [
    DELTA,
    ["event", DELTA],
    {"events": [{"name": "_call_script", "payload": {"javascript_code": "history.pushState({}, '', '/p?q=é')"}}]},
    [],
    "plain",
])
def test_it_writes_what_reflexs_encoder_writes(obj):
    fallback = Fallback()
    codec = FrameJson(fallback, serialize)
    assert codec.dumps(obj, separators=SEPARATORS) == reflex_dumps(obj, separators=SEPARATORS)
    assert fallback.dumped == 0  # orjson wrote it


def test_a_shared_listing_page_is_written_as_reflex_writes_it():
    """The listing's own dataclasses (shared_views), the bulk of what a click sends."""
    fallback = Fallback()
    codec = FrameJson(fallback, serialize)
    card = ProductView(id="7f0c", name="Gari — 1 kg", price_text="GH₵12.50", has_discount=True,
                       discount_percent=20, rating=4.5, stars_on="★★★★", stock=3)
    page = ListingPage(products=(card, ProductView()), count=2, total_pages=1, corrected_query="rice")
    assert codec.dumps({"page": page}, separators=SEPARATORS) == reflex_dumps({"page": page}, separators=SEPARATORS)
    assert fallback.dumped == 0


@pytest.mark.parametrize("obj", [
    {"big": 2 ** 70},                # beyond orjson's 64 bits
    {"text": "\ud800"},              # a lone surrogate
    {(1, 2): "a tuple key"},         # a key neither writes: the same error
])
def test_what_orjson_refuses_is_left_to_reflexs_encoder(obj):
    fallback = Fallback()
    codec = FrameJson(fallback, serialize)
    try:
        expected = reflex_dumps(obj, separators=SEPARATORS)
    except TypeError as error:
        with pytest.raises(TypeError, match=str(error)):
            codec.dumps(obj, separators=SEPARATORS)
    else:
        assert codec.dumps(obj, separators=SEPARATORS) == expected
    assert fallback.dumped == 1


def test_not_a_number_becomes_null_which_the_browser_can_parse():
    codec = FrameJson(Fallback(), serialize)
    assert codec.dumps({"n": float("nan"), "i": float("inf")}, separators=SEPARATORS) == '{"n":null,"i":null}'


@pytest.mark.parametrize("text", [
    '42/_event,["event",{"name":"x.go_to_page","payload":{"page":"2"}}]'.split(",", 1)[1],
    '{"a":[1,2.5,"é",null,true]}',
    '{"a":NaN}',                      # json's extension to JSON
    '{"big":1180591620717411303424}',  # exact (orjson would read a float)
])
def test_reading_is_left_to_reflexs_codec(text):
    fallback = Fallback()
    codec = FrameJson(fallback, serialize)
    read = codec.loads(text)
    expected = json.loads(text)
    assert json.dumps(read) == json.dumps(expected)
    assert fallback.loaded == 1


def test_bad_json_is_an_error_as_before():
    codec = FrameJson(Fallback(), serialize)
    with pytest.raises(json.JSONDecodeError):
        codec.loads('{"a":')
