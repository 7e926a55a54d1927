"""The listing's filter choices with their counts (issue 24): empty ones disabled unless chosen."""

from discount_deals.state.shop.catalog import price_label
from discount_deals.state.shop.filter_options import FilterOption, counted
from discount_deals.services.catalog import FacetValue


def test_choices_carry_the_counts_of_the_facet_matched_by_value_or_label():
    facet = [FacetValue("groceries", "Groceries", 12), FacetValue("beauty-personal-care", "Beauty & Personal Care", 3)]
    options = counted(["Beauty & Personal Care", "Electronics", "Groceries"], facet, "")
    assert options == [
        FilterOption("Beauty & Personal Care", "Beauty & Personal Care (3)", False),
        FilterOption("Electronics", "Electronics (0)", True),
        FilterOption("Groceries", "Groceries (12)", False),
    ]


def test_the_chosen_choice_stays_enabled_with_nothing_left():
    options = counted(["melcom", "shoprite"], [FacetValue("shoprite", "Shoprite", 4)], "Melcom")
    assert options[0] == FilterOption("melcom", "melcom (0)", False)  # chosen: the shopper can see and leave it


def test_price_ranges_keep_their_labels():
    options = counted(["0-25", "100+"], [FacetValue("0-25", "$0 - $25", 2), FacetValue("100+", "$100+", 0)], "",
                      label=price_label)
    assert [(o.label, o.disabled) for o in options] == [("$0 - $25 (2)", False), ("$100+ (0)", True)]
