"""Typo correction: the shopper's words measured against the words the catalogue holds.

The rule: a word of 4 to 7 letters may carry one typo, one of 8 or more two, a shorter one none;
a typo is a letter inserted, deleted, replaced, or two neighbours swapped (the optimal string
alignment distance, computed by rapidfuzz); the first letter is never guessed; words with
digits (sizes, model numbers) are never corrected. Among the words close enough, the nearest
wins, then the one more products hold, then the first in alphabetical order. A word the
catalogue holds is never corrected, and quoted or excluded words are left as typed.

Candidates come from the search index's vocabulary (:mod:`discount_deals.search.words`: an
``fts5vocab`` table on SQLite, ``search_word`` on PostgreSQL), one first letter at a time: the
words of that letter are read once per catalogue version and kept by each worker, so a
correction is a lookup in memory, and the same on both engines.

Callers correct only when the exact search finds too little (see :mod:`.listing` and
:mod:`.suggestions`): fuzzy matching never slows down a search that needs none.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field, replace

from rapidfuzz import process
from rapidfuzz.distance import OSA
from sqlalchemy import text
from sqlmodel import Session

from .filters import VersionedCache, database_key
from .search import ANYWHERE, IN_NAME, NAMED, SearchQuery, Term

MIN_TYPO_LENGTH = 4
TWO_TYPOS_LENGTH = 8


def allowed_typos(word: str) -> int:
    """How many typos ``word`` may carry (see the module docstring)."""
    if len(word) < MIN_TYPO_LENGTH or not word.isalpha():
        return 0
    return 1 if len(word) < TWO_TYPOS_LENGTH else 2


@dataclass
class WordSlice:
    """The vocabulary's words that start with one letter, sorted, with how many products hold
    each and whether any holds it in its name (``in_name``), or in its name, brand or category
    (``in_named``)."""

    words: list[str]
    docs: list[int]
    in_name: list[bool] = field(default_factory=list)
    in_named: list[bool] = field(default_factory=list)
    _prefixes: dict[int, dict[str, int]] = field(default_factory=dict)

    def _range(self, prefix: str) -> tuple[int, int]:
        start = bisect.bisect_left(self.words, prefix)
        end = bisect.bisect_left(self.words, prefix + "\U0010ffff", lo=start)
        return start, end

    def _held(self, within: tuple[str, ...]) -> list[bool] | None:
        return {IN_NAME: self.in_name, NAMED: self.in_named}.get(within)

    def has_word(self, word: str, within: tuple[str, ...] = ANYWHERE) -> bool:
        """Whether a product holds ``word`` (in the ``within`` columns: IN_NAME, NAMED)."""
        index = bisect.bisect_left(self.words, word)
        held = self._held(within)
        return index < len(self.words) and self.words[index] == word and (held is None or held[index])

    def has_prefix(self, prefix: str, within: tuple[str, ...] = ANYWHERE) -> bool:
        """Whether a product holds a word starting with ``prefix`` (in the ``within`` columns)."""
        start, end = self._range(prefix)
        held = self._held(within)
        return end > start and (held is None or any(held[start:end]))

    def completion(self, prefix: str) -> str | None:
        """The word starting with ``prefix`` that most products hold."""
        start, end = self._range(prefix)
        if end == start:
            return None
        best = min(range(start, end), key=lambda i: (-self.docs[i], self.words[i]))
        return self.words[best]

    def nearest(self, word: str) -> str | None:
        """The word nearest ``word`` within its allowed typos (None when none is)."""
        typos = allowed_typos(word)
        if not typos:
            return None
        found = process.extract(word, self.words, scorer=OSA.distance, score_cutoff=typos, limit=None)
        if not found:
            return None
        return min(found, key=lambda hit: (hit[1], -self.docs[hit[2]], hit[0]))[0]

    def prefixes(self, length: int) -> dict[str, int]:
        """The distinct word starts of ``length`` letters, each with the most products one of its words has."""
        if length not in self._prefixes:
            starts: dict[str, int] = {}
            for word, docs in zip(self.words, self.docs, strict=True):
                if len(word) >= length:
                    start = word[:length]
                    starts[start] = max(starts.get(start, 0), docs)
            self._prefixes[length] = starts
        return self._prefixes[length]

    def nearest_prefixes(self, prefix: str, limit: int) -> list[str]:
        """Word starts within the allowed typos of ``prefix`` (a word being typed), nearest and
        most held first; ``prefix`` itself is left out."""
        typos = allowed_typos(prefix)
        ranked: dict[str, tuple[int, int]] = {}
        for length in range(len(prefix) - typos, len(prefix) + typos + 1) if typos else ():
            starts = self.prefixes(length)
            choices = list(starts)
            for start, distance, _index in process.extract(
                prefix, choices, scorer=OSA.distance, score_cutoff=typos, limit=None
            ):
                if start != prefix and (start not in ranked or ranked[start][0] > distance):
                    ranked[start] = (distance, -starts[start])
        return sorted(ranked, key=lambda start: (*ranked[start], start))[:limit]


_slices = VersionedCache(size=512)


def _load_words(session: Session, letter: str) -> list[tuple[str, int, bool, bool]]:
    """The vocabulary's words of one first letter, in order: (word, products holding it, whether
    one holds it in its name, whether one holds it in its name, brand or category)."""
    bounds = {"low": letter, "high": chr(ord(letter) + 1)}
    if session.get_bind().dialect.name == "sqlite":
        rows = session.execute(text(
            "SELECT term, doc FROM product_fts_vocab WHERE term >= :low AND term < :high ORDER BY term"), bounds).all()
        columns: dict[str, set[str]] = {}
        for term, column in session.execute(text(
            "SELECT term, col FROM product_fts_vocab_col WHERE term >= :low AND term < :high AND doc > 0"), bounds
        ).all():
            columns.setdefault(term, set()).add(column)
        found = [(word, docs, "name" in columns.get(word, ()), bool(columns.get(word, set()) & set(NAMED)))
                 for word, docs in rows]
    else:
        found = [tuple(row) for row in session.execute(text(
            "SELECT word, docs, in_name > 0, in_named > 0 FROM search_word "
            "WHERE word >= :low AND word < :high AND docs > 0 ORDER BY word"), bounds).all()]
    return [row for row in found if row[0].isalpha()]


def word_slice(session: Session, letter: str, version: int) -> WordSlice:
    """The words starting with ``letter``, read once per catalogue version per worker."""
    key = (database_key(session), letter)
    found = _slices.get(key, version)
    if found is None:
        rows = _load_words(session, letter)
        found = WordSlice(words=[row[0] for row in rows], docs=[row[1] for row in rows],
                          in_name=[row[2] for row in rows], in_named=[row[3] for row in rows])
        _slices.put(key, version, found)
    return found


def _corrected_word(session: Session, version: int, word: str, prefix: bool) -> str:
    """``word`` as the catalogue spells it: itself when known (as a word, or as a word start for
    the word being typed), else its nearest known word, else itself."""
    if not allowed_typos(word):
        return word
    words = word_slice(session, word[0], version)
    if words.has_word(word) or (prefix and words.has_prefix(word)):
        return word
    nearest = words.nearest(word)
    if nearest is None and prefix:  # a word still being typed, with a typo: its likeliest ending
        starts = words.nearest_prefixes(word, limit=1)
        nearest = words.completion(starts[0]) if starts else None
    return nearest or word


def _possible(session: Session, version: int, term: Term, within: tuple[str, ...]) -> bool:
    """Whether the catalogue holds every word of ``term`` (the last, if a word start, as one)
    in the ``within`` columns."""
    if term.negated:
        return True
    last = len(term.words) - 1
    for i, word in enumerate(term.words):
        if word.isalpha():  # the vocabulary's slices hold alphabetic words only
            words = word_slice(session, word[0], version)
            held = words.has_prefix(word, within) if term.prefix and i == last else words.has_word(word, within)
            if not held:
                return False
    return True


def possible(
    session: Session, query: SearchQuery, version: int, within: tuple[str, ...] = ANYWHERE
) -> SearchQuery:
    """``query`` without the alternatives that name a word no product holds (in the ``within``
    columns): they cannot match, and PostgreSQL, which cannot tell so for a word start or a
    column, may walk a whole index to find out."""
    return SearchQuery(groups=tuple(
        group for group in query.groups if all(_possible(session, version, term, within) for term in group)
    ))


def _corrected_term(session: Session, version: int, term: Term) -> Term:
    if term.negated or term.quoted:
        return term
    last = len(term.words) - 1
    fixed = tuple(
        _corrected_word(session, version, word, term.prefix and i == last) for i, word in enumerate(term.words)
    )
    return term if fixed == term.words else replace(term, words=fixed)


def corrected(session: Session, query: SearchQuery, version: int) -> SearchQuery | None:
    """``query`` with each unknown word replaced by the nearest known one; None when no word changes."""
    groups = tuple(tuple(_corrected_term(session, version, term) for term in group) for group in query.groups)
    return None if groups == query.groups else SearchQuery(groups=groups)


def _nearby_starts(words: WordSlice, typed: str, limit: int) -> list[str]:
    """Word starts near ``typed``; when ``typed`` itself starts known words, not its own shorter
    starts (they would only find more of the same words, not a typo's)."""
    starts = words.nearest_prefixes(typed, limit + allowed_typos(typed))
    if words.has_prefix(typed):
        starts = [start for start in starts if not typed.startswith(start)]
    return starts[:limit]


def prefix_variants(session: Session, query: SearchQuery, version: int, limit: int = 4) -> SearchQuery | None:
    """For suggestions: ``query`` with the word being typed (the last prefix term) replaced by
    up to ``limit`` word starts within its typos, as alternatives, and the other words corrected;
    None when there are no such starts."""
    fixed = corrected(session, query, version) or query
    for g, group in enumerate(fixed.groups):
        for t, term in enumerate(group):
            if not term.prefix:
                continue
            typed = term.words[-1]
            starts = _nearby_starts(word_slice(session, typed[0], version), typed, limit) if allowed_typos(typed) else []
            if not starts:
                return None
            variants = tuple(
                group[:t] + (replace(term, words=term.words[:-1] + (start,)),) + group[t + 1 :] for start in starts
            )
            return SearchQuery(groups=fixed.groups[:g] + variants + fixed.groups[g + 1 :])
    return None
