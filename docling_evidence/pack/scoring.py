"""The packer's scorers: how well a row or sentence answers the query.

A scorer is ``scorer(query, texts) -> Sequence[float]``, one score per text, higher is better (an embedder's cosine
works). The default, :func:`lexical_scorer`, needs no model: the query's content words and numbers that a text shares,
each weighted by how rare it is among the texts scored together (a column name every row repeats says little about
which row answers). Words and numbers are read as the context rules read them (:mod:`docling_evidence.text.words`), so
the packer and the chunker agree on what "shares a word" means.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache

from docling_evidence.text.words import content_words, numbers

Scorer = Callable[[str, Sequence[str]], Sequence[float]]
"""``scorer(query, texts)``: one float per text, higher is better."""

NUMBER_WEIGHT = 2.0
"""A number the query and a text share counts this many times a shared word: "2019", "92.08" pin a row down."""


@lru_cache(maxsize=65_536)
def _terms(text: str) -> frozenset[str]:
    # retrieved chunks come back query after query: their rows and sentences are read once
    return frozenset(content_words(text) | {"#" + n for n in numbers(text)})


def lexical_scorer(query: str, texts: Sequence[str]) -> list[float]:
    """Sum, over the query's content words and numbers that a text holds, of their rarity among ``texts``
    (``log(1 + n / df)``; numbers count :data:`NUMBER_WEIGHT` times). 0.0 for a text sharing nothing."""
    wanted = _terms(query)
    if not wanted or not texts:
        return [0.0] * len(texts)
    found = [_terms(t) & wanted for t in texts]
    df: dict[str, int] = {}
    for terms in found:
        for term in terms:
            df[term] = df.get(term, 0) + 1
    n = len(texts)
    weight = {t: math.log(1.0 + n / d) * (NUMBER_WEIGHT if t.startswith("#") else 1.0) for t, d in df.items()}
    return [sum(weight[t] for t in sorted(terms)) for terms in found]  # sorted: the same sum in every process


def hinted_scorer(hints: Mapping[str, float], base: Scorer | None = None) -> Scorer:
    """A scorer that adds what a vector store already said: ``hints`` maps the text of a view that ranked (a row or a
    sentence, ``EvidenceChunker.contextualize_views``) to a weight, higher for a better rank (the integrations give
    :func:`rank_weight`, so a store's distances and similarities read alike). A text gets ``base``'s score plus the
    weight of the best hint that shows it: every number of the text, and at least half of its words, are in the
    view (a row's view holds its label and values; another row of the table shares only the column names)."""
    score = base or lexical_scorer
    hint_terms = [(_terms(text), value) for text, value in hints.items() if math.isfinite(value)]

    def scorer(query: str, texts: Sequence[str]) -> list[float]:
        out = [float(s) for s in checked_scores(score, query, texts)]
        for k, text in enumerate(texts):
            out[k] += max((value for view, value in hint_terms if _shows(view, _terms(text))), default=0.0)
        return out

    return scorer


def _shows(view: frozenset[str], terms: frozenset[str]) -> bool:
    numbers = {t for t in terms if t.startswith("#")}
    words = terms - numbers
    if not terms or not numbers <= view:
        return False
    return len(words & view) * 2 >= len(words)


HINT_WEIGHT = 10.0
"""The weight of the best-ranked view: above any lexical score of a row or a sentence in practice."""


def rank_weight(rank: int) -> float:
    """The hint weight of the view at ``rank`` (0-based) among the retrieved candidates."""
    return HINT_WEIGHT / (1 + rank)


def checked_scores(scorer: Scorer, query: str, texts: Sequence[str]) -> list[float]:
    """``scorer(query, texts)`` as floats, NaN as 0.0.

    Raises:
        ValueError: if the scorer does not give one number per text.
        TypeError: if a score is not a number.
    """
    if not texts:
        return []
    raw = list(scorer(query, list(texts)))
    if len(raw) != len(texts):
        raise ValueError(f"scorer gave {len(raw)} scores for {len(texts)} texts")
    out: list[float] = []
    for value in raw:
        if isinstance(value, (bool, str, bytes)) or not hasattr(value, "__float__"):
            raise TypeError(f"scorer must return numbers, got {type(value).__name__}")
        f = float(value)
        out.append(0.0 if math.isnan(f) else f)
    return out
