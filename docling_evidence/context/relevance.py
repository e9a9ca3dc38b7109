"""Which sentences of a candidate paragraph explain the table, in which pass each is taken, and how strongly.

A sentence that names the table is always relevant, and so is the next one (the explanation usually goes on); a
sentence that names another table or a figure, and not this table, is not about it; any other sentence is relevant
when the words and numbers it shares with the table's caption and cells weigh at least
``ContextParams.relevance_threshold`` (each word weighted by its inverse document frequency over the document's
paragraphs, so words every paragraph uses count little). Text right next to the table, and without layout any text of
its section, is taken weakly: after every relevant sentence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntEnum

from docling_evidence.context.index import ContextIndex, Paragraph
from docling_evidence.context.params import ContextParams
from docling_evidence.context.terms import TableTerms, distinctive_value
from docling_evidence.text.words import words


class Tier(IntEnum):
    """The pass a sentence is taken in, first pass first (``choose_context``)."""

    NAMING = 0
    """It names the table: taken first, under the naming budget."""
    QUOTING = 1
    """It shares words or numbers with the table and quotes one of its distinctive values: under the naming budget."""
    AFTER_NAMING = 2
    """It follows a sentence naming the table (the explanation goes on)."""
    SHARING = 3
    """It shares enough words or numbers with the table."""
    WEAK = 4
    """It is only next to the table (or, without layout, in its section): taken after every other sentence."""


@dataclass(frozen=True)
class ScoredSentence:
    """A relevant sentence of a paragraph: its number, its pass and its weight within the pass."""

    k: int
    """Its number among the paragraph's sentences."""
    tier: Tier
    weight: float
    """Higher first within its tier: for a naming sentence, 2 minus where the mention starts in it (the table as
    the sentence's subject first); otherwise the weight of the words and numbers it shares with the table."""


def word_count(para: Paragraph, k: int) -> int:
    """Words (not numbers or punctuation) in sentence ``k`` of ``para``."""
    a, b = para.spans[k]
    return len(words(para.text[a:b]))


def quotes_value(para: Paragraph, k: int, terms: TableTerms, params: ContextParams) -> bool:
    """Whether sentence ``k`` of ``para`` quotes a distinctive value of the table."""
    return any(distinctive_value(n, params) for n in para.numbers[k] & terms.numbers)


def _shared(ctx: ContextIndex, para: Paragraph, k: int, terms: TableTerms, params: ContextParams) -> tuple[float, bool]:
    """The weight of the words and numbers sentence ``k`` shares with the table, and whether they are enough to tie
    it to the table at all: a number, or ``params.min_shared_words`` words (one shared word is too weak a sign:
    every paragraph of a paper shares one with each table). Only small numbers (``params.tie_number_min_chars``)
    and no word in common weigh nothing."""
    shared_words = para.words[k] & terms.words
    shared_numbers = para.numbers[k] & terms.numbers
    if not shared_words and not any(len(n) >= params.tie_number_min_chars for n in shared_numbers):
        return 0.0, False
    # fsum: a set's iteration order varies with the hash seed, and a plain float sum with it, which would decide
    # ties between sentences differently from one process to the next
    score = math.fsum(ctx.weight(w) for w in shared_words)
    score += math.fsum(ctx.weight(n) + params.shared_number_bonus for n in shared_numbers)
    return score, bool(shared_numbers) or len(shared_words) >= params.min_shared_words


@dataclass(frozen=True)
class Placement:
    """Where a candidate paragraph lies, as far as its sentences' relevance goes."""

    adjacent: int = 0
    """-1 right before the table, +1 right after it, 0 neither (``candidates.adjacent``)."""
    every: bool = False
    """Every sentence counts, weakly at least (a paragraph of the table's own section, without layout)."""
    by_place: bool = False
    """Found by its place in the text or by its quoted values, outside the table's neighbourhood or column: its
    sentences need ``params.by_place_threshold_factor`` times the relevance threshold."""


def relevant_sentences(
    ctx: ContextIndex,
    para: Paragraph,
    terms: TableTerms,
    names: frozenset[str],
    placement: Placement,
    params: ContextParams,
) -> list[ScoredSentence]:
    """The sentences of ``para`` that explain the table, first pass first, then by weight.

    A paragraph naming other tables and not this one describes them: none of its sentences is taken. Every other
    sentence of a short paragraph adjacent to the table (``placement.adjacent``) counts weakly; of a longer one, the
    sentence next to the table counts weakly besides the relevant ones. With ``placement.every``, every sentence
    counts. ``names`` are the labels under which the table is named: its "Table 3" label or title, and its place
    (:func:`~docling_evidence.units.deixis.position_label`).
    """
    named_any = frozenset().union(*para.named) if para.named else frozenset()
    if named_any and not named_any & names:
        return []
    threshold = params.relevance_threshold * (params.by_place_threshold_factor if placement.by_place else 1.0)
    adjacent = placement.adjacent
    short = len(para.spans) <= params.adjacent_whole_max_sentences
    chosen: list[ScoredSentence] = []
    after_naming = False
    for k in range(len(para.spans)):
        named = para.named[k]
        if named & names:
            # "Table 3 shows ..." (the table is the subject) before "... (see Table 3)"
            s, e = para.spans[k]
            first = min((a for lab, a, _b in para.mentions if lab in names and s <= a < e), default=s)
            chosen.append(ScoredSentence(k, Tier.NAMING, 2 - (first - s) / max(1, e - s)))
            after_naming = True
            continue
        if named or para.figure[k]:
            after_naming = False
            continue
        score, ties = _shared(ctx, para, k, terms, params)
        next_to_table = (adjacent < 0 and k == len(para.spans) - 1) or (adjacent > 0 and k == 0)
        words_in = word_count(para, k)
        substantial = (
            adjacent < 0 and (words_in > 0 or bool(para.numbers[k]))
        ) or words_in >= params.following_min_words
        if ties and score >= threshold:
            chosen.append(ScoredSentence(k, Tier.SHARING, score))
        elif placement.every or (adjacent and (short or next_to_table) and substantial):
            chosen.append(ScoredSentence(k, Tier.WEAK, score))  # taken after every relevant sentence
        elif after_naming:
            chosen.append(ScoredSentence(k, Tier.AFTER_NAMING, 0.0))
        after_naming = False
    return sorted(chosen, key=lambda sentence: (sentence.tier, -sentence.weight, sentence.k))
