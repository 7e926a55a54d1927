"""Our tokeniser: what reaches the search engines for what a shopper types."""

from __future__ import annotations

import pytest

from discount_deals.services import ValidationFailed
from discount_deals.services.catalog import search


def test_words_are_folded_runs_of_letters_and_digits():
    assert search.words("Nescafé  GOLD-200g, 1.5L") == ["nescafe", "gold", "200g", "1", "5l"]
    assert search.words("*** \"' ()") == []


def test_the_last_plain_word_is_a_prefix():
    query = search.parse("jasmine ri")
    assert query.key == "jasmine ri*"
    assert search.fts_expression(query) == '("jasmine" AND "ri"*)'
    assert search.tsquery_text(query) == "('jasmine' & 'ri':*)"


def test_phrases_exclusions_and_or():
    query = search.parse('"rice cooker" -brown or oil')
    assert query.key == "rice_cooker -brown | oil*"
    assert search.fts_expression(query) == '("rice cooker") NOT ("brown") OR ("oil"*)'
    assert search.tsquery_text(query) == "(('rice' <-> 'cooker') & !'brown') | ('oil':*)"


def test_relevance_tiers_restrict_positive_words_to_columns_and_weights():
    query = search.parse("rice -brown")
    assert search.fts_expression(query, ("name",)) == '{name} : (("rice"))'
    assert search.tsquery_text(query, "AB") == "('rice':AB)"
    prefix = search.parse("jasm")
    assert search.tsquery_text(prefix, "A") == "('jasm':*A)"


@pytest.mark.parametrize("text", ["", "   ", None])
def test_blank_text_is_no_search(text):
    assert search.parse(text) is None


@pytest.mark.parametrize("text", ["***", "-rice", "- -", '""', "or or"])
def test_text_without_a_word_to_find_matches_nothing(text):
    assert search.parse(text).matches_nothing


def test_operator_words_are_quoted_words():
    query = search.parse('NEAR(rice oil) AND "x" NOT y*')
    assert search.fts_expression(query) == '("near rice" AND "oil" AND "and" AND "x" AND "not" AND "y"*)'
    assert search.tsquery_text(query) == "(('near' <-> 'rice') & 'oil' & 'and' & 'x' & 'not' & 'y':*)"


def test_long_text_is_refused_and_many_words_are_capped():
    with pytest.raises(ValidationFailed) as refused:
        search.parse("x" * 201)
    assert refused.value.fields == {"search": ["Search text is too long: at most 200 characters."]}
    many = search.parse(" ".join(f"w{n}" for n in range(20)))
    assert sum(len(group) for group in many.groups) == search.MAX_TERMS
