"""The listing's filter choices with how many products each leaves (issue 24).

Each choice shows its count ("Beauty & Personal Care (3)"), counted with every other filter
applied (services.catalog.facet_counts); a choice that would leave nothing is disabled, unless it
is the one chosen (the shopper must be able to see, and leave, where they are).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from ...services.catalog import FacetValue


@dataclasses.dataclass
class FilterOption:
    value: str = ""
    label: str = ""
    disabled: bool = False


def counted(values: Iterable[str], facet: Iterable[FacetValue], chosen: str, *,
            label: Callable[[str], str] = str, key: Callable[[str], str] = str.lower) -> list[FilterOption]:
    """``values`` as options labelled with their counts from ``facet`` (matched by ``key`` of the
    facet's value or label, whichever names it); choices the facet does not list count 0."""
    counts: dict[str, int] = {}
    for choice in facet:
        counts[key(choice.value)] = counts[key(choice.label)] = choice.count
    options = []
    for value in values:
        count = counts.get(key(value), 0)
        selected = key(value) == key(chosen) if chosen else False
        options.append(FilterOption(value=value, label=f"{label(value)} ({count})",
                                    disabled=count == 0 and not selected))
    return options
