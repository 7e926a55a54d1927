"""Catalogue search: our own tokeniser and the full-text condition for each engine.

The shopper's text never reaches an engine raw. It is split here into words (runs of letters
and digits, lower-cased, accents removed), "quoted phrases", ``-excluded`` words and ``or``
between alternatives (the shape of PostgreSQL's ``websearch_to_tsquery``); the last word typed
also matches as a prefix, so "jasm" finds "Jasmine". Every word must match a whole word or,
for the last one, the start of a word: "rice" never matches "price".

The engines index the same text the same way (see :mod:`discount_deals.search.index`): SQLite
an FTS5 table (unicode61, diacritics removed) and PostgreSQL a weighted ``tsvector`` (name A,
brand and category B, description C) over text folded and split like ours. Relevance is a tier:
every word in the name (0), in name, brand or category (1), anywhere including the description
(2); ties are broken by name (unique), so pages are stable.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, func, literal_column, select, table
from sqlmodel import Session

from ...models import Product
from .. import ValidationFailed

MAX_QUERY_LENGTH = 200
TOO_LONG = f"Search text is too long: at most {MAX_QUERY_LENGTH} characters."
MAX_TERMS = 16  # words beyond this add nothing a shopper means and only cost the engine


@dataclass(frozen=True)
class Term:
    """One word, or a phrase of adjacent words; ``prefix`` lets its last word match a word start;
    ``quoted``: the shopper put it in quotes (typo correction leaves it alone)."""

    words: tuple[str, ...]
    prefix: bool = False
    negated: bool = False
    quoted: bool = False

    @property
    def text(self) -> str:
        """The term as a shopper would type it (words joined by "-" keep an unquoted phrase one token)."""
        body = f'"{" ".join(self.words)}"' if self.quoted else "-".join(self.words)
        return ("-" if self.negated else "") + body


@dataclass(frozen=True)
class SearchQuery:
    """Alternatives (``or``), each a list of terms that must all match (excluded ones must not)."""

    groups: tuple[tuple[Term, ...], ...]

    @property
    def matches_nothing(self) -> bool:
        return not self.groups

    @property
    def key(self) -> str:
        """A canonical text of the query (the same for equivalent spellings), for caches."""
        return " | ".join(
            " ".join(("-" if t.negated else "") + "_".join(t.words) + ("*" if t.prefix else "") for t in group)
            for group in self.groups
        )

    @property
    def text(self) -> str:
        """Search text that parses back into this query (lower case, accents removed)."""
        return " or ".join(" ".join(term.text for term in group) for group in self.groups)


def either(first: SearchQuery, second: SearchQuery) -> SearchQuery:
    """Products matching ``first`` or ``second``."""
    return SearchQuery(groups=first.groups + tuple(g for g in second.groups if g not in first.groups))


def fold(text: str) -> str:
    """Lower case without accents: "Nescafé" → "nescafe"."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def words(text: str) -> list[str]:
    """The words of ``text`` as both engines index them: runs of letters and digits, folded."""
    found, current = [], []
    for ch in fold(text):
        if ch.isalnum():
            current.append(ch)
        elif current:
            found.append("".join(current))
            current = []
    if current:
        found.append("".join(current))
    return found


def _raw_tokens(text: str) -> list[tuple[str, bool]]:
    """Split on blanks, keeping "quoted phrases" whole (an unclosed quote runs to the end);
    each token comes with whether it was quoted."""
    tokens: list[tuple[str, bool]] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch == '"':
            end = text.find('"', i + 1)
            end = n if end < 0 else end
            tokens.append((text[i + 1 : end], True))
            i = end + 1
        else:
            start = i
            while i < n and not text[i].isspace() and text[i] != '"':
                i += 1
            tokens.append((text[start:i], False))
    return tokens


def parse(text: str | None, field: str = "search") -> SearchQuery | None:
    """The shopper's search text as a query; None when there is nothing to search for.

    Raises ValidationFailed (naming ``field``) for text longer than :data:`MAX_QUERY_LENGTH`.
    Text with no letters or digits at all ("***") gives a query that matches nothing.
    """
    if text is None or not text.strip():
        return None
    if len(text) > MAX_QUERY_LENGTH:
        raise ValidationFailed(TOO_LONG, fields={field: [TOO_LONG]})
    groups: list[list[Term]] = [[]]
    last_plain: tuple[int, int] | None = None  # (group, index) of the last unquoted positive term
    count = 0
    for raw, quoted in _raw_tokens(text):
        negated = False
        if not quoted and raw.lower() == "or":
            if groups[-1]:
                groups.append([])
            continue
        if not quoted and raw.startswith("-"):
            negated = True
            raw = raw.lstrip("-")
        found = words(raw)
        if not found or count >= MAX_TERMS:
            continue
        count += 1
        groups[-1].append(Term(words=tuple(found), negated=negated, quoted=quoted))
        last_plain = None if (quoted or negated) else (len(groups) - 1, len(groups[-1]) - 1)
    if last_plain is not None:
        g, i = last_plain
        groups[g][i] = Term(words=groups[g][i].words, prefix=True)
    kept = tuple(tuple(group) for group in groups if any(not t.negated for t in group))
    return SearchQuery(groups=kept)


# --- SQLite: FTS5 ------------------------------------------------------------------------------

_FTS = table("product_fts")
_ROWID = literal_column("product.rowid")
# The same column with SQLite's "do not use an index for this term" mark (unary plus): the
# planner then walks the ordering's index and only checks each row against the matches.
_ROWID_UNINDEXED = literal_column("+product.rowid")


def _fts_term(term: Term) -> str:
    return f'"{" ".join(term.words)}"' + ("*" if term.prefix else "")


def _fts_group(group: tuple[Term, ...], positive_only: bool = False) -> str:
    positive = " AND ".join(_fts_term(t) for t in group if not t.negated)
    negative = [_fts_term(t) for t in group if t.negated]
    if positive_only or not negative:
        return f"({positive})"
    return f"({positive}) NOT ({' OR '.join(negative)})"


def fts_expression(query: SearchQuery, columns: tuple[str, ...] = ()) -> str:
    """FTS5 MATCH text for ``query``; with ``columns``, positive words must match in them."""
    if columns:
        body = " OR ".join(_fts_group(g, positive_only=True) for g in query.groups)
        return f"{{{' '.join(columns)}}} : ({body})"
    return " OR ".join(_fts_group(g) for g in query.groups)


def _fts_rowids(expression: str):
    return (
        select(literal_column("rowid"))
        .select_from(_FTS)
        .where(literal_column("product_fts").op("MATCH")(expression))
    )


# --- PostgreSQL: tsvector ----------------------------------------------------------------------

_VECTOR = literal_column("product.search_vector")


def _ts_term(term: Term, weights: str) -> str:
    marks = ("*" if term.prefix else "") + weights
    parts = [f"'{w}'" + (f":{weights}" if weights else "") for w in term.words]
    if marks:
        parts[-1] = f"'{term.words[-1]}':{marks}"
    text = " <-> ".join(parts)
    return f"({text})" if len(parts) > 1 else text


def _ts_group(group: tuple[Term, ...], weights: str, positive_only: bool) -> str:
    parts = [_ts_term(t, weights) for t in group if not t.negated]
    if not positive_only:
        parts += [f"!{_ts_term(t, '')}" for t in group if t.negated]
    return "(" + " & ".join(parts) + ")"


def tsquery_text(query: SearchQuery, weights: str = "") -> str:
    """``to_tsquery('simple', ...)`` text for ``query``; with ``weights`` ("A", "AB"), positive
    words must match lexemes of those weights."""
    positive_only = bool(weights)
    return " | ".join(_ts_group(g, weights, positive_only) for g in query.groups)


def _ts_match(text: str):
    return _VECTOR.op("@@")(func.to_tsquery("simple", text))


# --- what list_products uses ---------------------------------------------------------------------


def _is_sqlite(session: Session) -> bool:
    return session.get_bind().dialect.name == "sqlite"


# Where positive words must be: anywhere, in the name, or in the name, brand or category
# (SQLite's FTS columns; PostgreSQL's weights of the same columns).
ANYWHERE: tuple[str, ...] = ()
IN_NAME = ("name",)
NAMED = ("name", "brand", "category")
_WEIGHTS = {ANYWHERE: "", IN_NAME: "A", NAMED: "AB"}


def match_clause(session: Session, query: SearchQuery, *, drive: bool = True, within: tuple[str, ...] = ANYWHERE):
    """A WHERE condition on ``product`` for ``query`` (call only when it can match something).

    ``drive``: SQLite may start from the matches (few of them); otherwise it must not, and
    walks the ordering's index instead (many matches, a short page to fill). ``within``: the
    columns the positive words must be in (:data:`IN_NAME`, :data:`NAMED`; excluded words are
    then not checked)."""
    if _is_sqlite(session):
        expression = fts_expression(query, within)
        return (_ROWID if drive else _ROWID_UNINDEXED).in_(_fts_rowids(expression))
    return _ts_match(tsquery_text(query, _WEIGHTS[within]))


def newest_matches(session: Session, query: SearchQuery, within: tuple[str, ...], *entities: Any):
    """A SELECT of ``entities`` (product first) over the products matching ``query`` in the
    ``within`` columns, newest first, for a short LIMIT: SQLite reads the search index backwards
    (products in the order they were added, the latest first) and stops at the LIMIT without
    sorting, however many match; PostgreSQL orders by creation time (its planner walks the
    newest-first index or sorts the matches, whichever its statistics say is cheaper)."""
    if _is_sqlite(session):
        fts_rowid = literal_column("product_fts.rowid")
        return (
            select(*entities)
            .select_from(_FTS)
            .join(Product, _ROWID == fts_rowid)
            .where(literal_column("product_fts").op("MATCH")(fts_expression(query, within)))
            .order_by(fts_rowid.desc())
        )
    return (
        select(*entities)
        .where(_ts_match(tsquery_text(query, _WEIGHTS[within])))
        .order_by(Product.created_at.desc(), Product.id.desc())
    )


def relevance_tier(session: Session, query: SearchQuery):
    """0 when every word is in the name, 1 in name/brand/category, else 2 (the description)."""
    if _is_sqlite(session):
        return case(
            (_ROWID.in_(_fts_rowids(fts_expression(query, ("name",)))), 0),
            (_ROWID.in_(_fts_rowids(fts_expression(query, NAMED))), 1),
            else_=2,
        )
    return case(
        (_ts_match(tsquery_text(query, "A")), 0),
        (_ts_match(tsquery_text(query, "AB")), 1),
        else_=2,
    )
