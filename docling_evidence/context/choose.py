"""Pick the context of a table: the paragraphs — and within long paragraphs the sentences — that explain it.

Candidates (:mod:`.candidates`), on paginated documents: the table's page neighbours within ``bbox_threshold``
points and the paragraphs across the page break it opens or closes; without layout, its nearest paragraphs in reading
order in its section. On both: any paragraph naming the table ("Table 3 shows ...", "the following table"), framed
by such paragraphs, or quoting its distinctive values. Page boilerplate (``DocIndex.boilerplate``) is never context
unless it names a table.

Precision, per sentence (:mod:`.relevance`): a sentence naming the table is always relevant, and so is the next one;
a sentence naming another table or a figure is not; any other sentence is relevant when the words and numbers it
shares with the table weigh at least ``ContextParams.relevance_threshold``. A paragraph with no relevant sentence is
not context. On paginated documents a paragraph in another column that does not name the table is dropped when the
table's own column has context.

Ranking: paragraphs naming the table first, then same column, then distance (points, or reading-order steps), then
reading order; far paragraphs that name the table come after the near ones. Sentences are taken in passes
(:class:`~docling_evidence.context.relevance.Tier`) while they fit the token budget, so a long paragraph contributes
the sentences that explain the table instead of being dropped whole. On paginated documents the rules above bound the
candidates, and the chunker's default budget there does not shrink with the token limit (1,024 tokens from limit 256
up): a unit holds what explains its table at any limit. The result records, per chosen paragraph, the character spans
used (the whole text when every sentence was chosen).

Cost: the :class:`~docling_evidence.context.index.ContextIndex` is built once per document (one pass over the
paragraphs); each table then looks at a bounded number of neighbours found by bisection, plus the paragraphs that name
it, so candidate search is linear in the document's size.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Set
from dataclasses import dataclass, field

from docling_evidence.context.candidates import (
    Candidate,
    adjacent,
    continues,
    find_candidates,
    inside_picture,
    introduces_a_table,
)
from docling_evidence.context.index import ContextIndex, build_context_index
from docling_evidence.context.params import DEFAULT_PARAMS, ContextParams
from docling_evidence.context.relevance import Placement, ScoredSentence, Tier, quotes_value, relevant_sentences
from docling_evidence.context.terms import TableTerms, table_terms
from docling_evidence.document.index import DocIndex
from docling_evidence.units.captions import looks_like_caption, looks_like_figure_caption
from docling_evidence.units.deixis import position_label

__all__ = [
    "ChoiceBudget",
    "ContextChoice",
    "ContextTarget",
    "build_context_index",
    "choose",
    "choose_context",
    "paginated",
    "table_terms",
]


@dataclass(frozen=True)
class ContextChoice:
    """The chosen paragraphs, each side in reading order, their priority and the character spans used.

    ``rank[k]`` is the priority of the k-th paragraph of ``before + after`` (0 = chosen first); ``spans[k]`` the
    half-open character spans of its text that are used, in order (the whole text when all of it is used).
    """

    before: tuple[int, ...]
    after: tuple[int, ...]
    rank: tuple[int, ...] = ()
    spans: tuple[tuple[tuple[int, int], ...], ...] = ()


@dataclass(frozen=True)
class ContextTarget:
    """The table whose context is chosen, and which paragraphs may serve as it."""

    position: int
    """The table's reading position."""
    terms: TableTerms
    """The table's label, words and numbers (:func:`table_terms`)."""
    excluded: Set[str]
    """Refs that may not be context (captions and footnotes of any unit)."""
    bbox_threshold: float
    """Largest vertical distance in points on paginated documents."""
    text_end: Mapping[int, int] = field(default_factory=dict)
    """Reading position -> where that paragraph's usable text ends (a paragraph that ends with this table's caption
    contributes only what comes before the caption); such paragraphs may be context even when their ref is in
    ``excluded``."""
    keep: Callable[[list[int]], list[bool]] | None = None
    """Optional gate (e.g. embedding similarity) returning, per candidate position, whether it may be used."""


@dataclass(frozen=True)
class ChoiceBudget:
    """How many tokens the chosen sentences may take."""

    tokens: int
    """Token budget for all chosen sentences together."""
    count_text: Callable[[str], int]
    """Tokens of a text."""
    room: int | None = None
    """Tokens left beside a table that fits one piece (None: it does not fit anyway). Only sentences naming the
    table (or quoting its values) may take more than that, up to ``tokens``: other context never makes such a table
    split."""
    naming_tokens: int | None = None
    """Token budget of the sentences naming the table (None: ``tokens``); every other sentence is taken only while
    all of them stay within ``tokens`` (and ``room``)."""


def paginated(index: DocIndex, t_idx: int) -> bool:
    """Whether the table at reading position ``t_idx`` is placed on a page (its document has layout and the table
    a box): its context candidates are then its page neighbours."""
    return index.has_layout and bool(index.boxes[index.items[t_idx].self_ref])


def choose_context(
    ctx: ContextIndex,
    t_idx: int,
    *,
    terms: TableTerms,
    excluded: Set[str],
    bbox_threshold: float,
    budget: int,
    count_text: Callable[[str], int],
    text_end: Mapping[int, int] | None = None,
    keep: Callable[[list[int]], list[bool]] | None = None,
    room: int | None = None,
    naming_budget: int | None = None,
    params: ContextParams = DEFAULT_PARAMS,
) -> ContextChoice:
    """:func:`choose` with the target and the budget given field by field (see :class:`ContextTarget` and
    :class:`ChoiceBudget`: ``budget`` is ``ChoiceBudget.tokens``, ``naming_budget`` its ``naming_tokens``)."""
    target = ContextTarget(t_idx, terms, excluded, bbox_threshold, text_end or {}, keep)
    return choose(ctx, target, ChoiceBudget(budget, count_text, room, naming_budget), params)


def choose(
    ctx: ContextIndex, target: ContextTarget, budget: ChoiceBudget, params: ContextParams = DEFAULT_PARAMS
) -> ContextChoice:
    """Choose the context of ``target`` within ``budget``: the candidates (:mod:`.candidates`), the relevant
    sentences of each (:mod:`.relevance`), the paragraphs ranked, then the sentences taken pass by pass while they
    fit.

    Raises:
        ValueError: if ``params`` are not the rules ``ctx`` was built with (:func:`build_context_index`).
    """
    if params is not ctx.params and params != ctx.params:
        raise ValueError("choose_context got other ContextParams than build_context_index: pass the same to both")
    t_idx = target.position
    if budget.tokens <= 0 or inside_picture(ctx, t_idx):
        return ContextChoice((), (), (), ())
    layout = paginated(ctx.index, t_idx)
    candidates = find_candidates(ctx, t_idx, target.terms.label, target.bbox_threshold, layout, params)
    relevant = _relevant(ctx, target, candidates, layout, params)
    ranked = _ranked(ctx, target, candidates, relevant, layout)
    taken = _Taking(ctx, target, budget)
    taken.fill(_pass_order(ctx, target, ranked, relevant, params), ranked, relevant)
    return _choice(ctx, target, taken.chosen)


def _relevant(
    ctx: ContextIndex, target: ContextTarget, candidates: dict[int, Candidate], layout: bool, params: ContextParams
) -> dict[int, list[ScoredSentence]]:
    """Candidate position -> its relevant sentences, for the candidates that may be context and have any."""
    index = ctx.index
    t_idx = target.position
    names = frozenset({position_label(t_idx), *([target.terms.label] if target.terms.label else [])})
    next_to = adjacent(ctx, t_idx, candidates, layout, params)
    relevant: dict[int, list[ScoredSentence]] = {}
    for idx, cand in candidates.items():
        if index.items[idx].self_ref in target.excluded and idx not in target.text_end:
            continue
        para = ctx.paragraph(idx, target.text_end.get(idx))
        if idx not in target.text_end and looks_like_caption(para.text):
            continue  # "Table 1: ..." that is nobody's caption is the caption of a float Docling did not detect
        if looks_like_figure_caption(para.text):
            continue  # "Fig 2 Overall emissions ... (b) factors from Table 3": a figure's caption is about the figure
        if idx > t_idx and not cand.names_table and introduces_a_table(index, idx, params):
            continue  # the text between two tables that leads into the next one is that one's
        by_place = (cand.framed or cand.quotes) and (cand.far or not cand.same_column)
        if by_place and (any(para.figure) or any(para.named)) and not cand.names_table:
            continue  # found by its place or its numbers, but about a figure or another table
        placement = Placement(next_to.get(idx, 0), not layout and not cand.far, by_place)
        sentences = relevant_sentences(ctx, para, target.terms, names, placement, params)
        if sentences:
            relevant[idx] = sentences
    return relevant


def _ranked(
    ctx: ContextIndex,
    target: ContextTarget,
    candidates: dict[int, Candidate],
    relevant: dict[int, list[ScoredSentence]],
    layout: bool,
) -> list[Candidate]:
    """The candidates with relevant sentences, best first (:meth:`Candidate.rank`). With layout, a paragraph in
    another column that neither names the table, nor was found by its place or values, nor continues a paragraph of
    the table's column is dropped when the table's own column has near context; then the optional gate."""
    ranked = sorted((candidates[i] for i in relevant), key=Candidate.rank)
    if layout and any(c.same_column and not c.far for c in ranked):
        own_column = {c.idx for c in ranked if c.same_column}
        ranked = [
            c
            for c in ranked
            if c.same_column or c.names_table or c.framed or c.quotes or continues(ctx, c.idx, own_column)
        ]
    if target.keep is not None and ranked:
        allowed = target.keep([c.idx for c in ranked])
        ranked = [c for c, ok in zip(ranked, allowed, strict=True) if ok]
    return ranked


_Entry = tuple[Tier, int, float, int]
"""A sentence in taking order: (tier, rank of its paragraph, minus its weight, its number)."""


def _pass_order(
    ctx: ContextIndex,
    target: ContextTarget,
    ranked: list[Candidate],
    relevant: dict[int, list[ScoredSentence]],
    params: ContextParams,
) -> list[_Entry]:
    """Every relevant sentence in taking order: by tier, then by paragraph rank and weight, except that sentences
    naming the table go by weight first (the table as the sentence's subject first), then by paragraph rank. A
    sentence sharing words with the table and quoting one of its distinctive values, in a paragraph that quotes its
    values, is promoted to :attr:`Tier.QUOTING`."""
    order: list[_Entry] = []
    for pos, cand in enumerate(ranked):
        para = ctx.paragraph(cand.idx, target.text_end.get(cand.idx))
        for sentence in relevant[cand.idx]:
            tier = sentence.tier
            if tier is Tier.SHARING and cand.quotes and quotes_value(para, sentence.k, target.terms, params):
                tier = Tier.QUOTING
            order.append((tier, pos, -sentence.weight, sentence.k))
    order.sort(key=lambda entry: (entry[0], entry[2], entry[1], entry[3]) if entry[0] is Tier.NAMING else entry)
    return order


class _Taking:
    """The sentences taken so far, per paragraph in the order paragraphs were first taken, and their tokens."""

    def __init__(self, ctx: ContextIndex, target: ContextTarget, budget: ChoiceBudget) -> None:
        self.ctx = ctx
        self.target = target
        self.count_text = budget.count_text
        # only a sentence naming the table (or quoting its values) may exceed the room
        self.cap = budget.tokens if budget.room is None else min(budget.tokens, budget.room)
        self.naming_cap = max(budget.tokens, budget.naming_tokens or 0)
        self.used = 0
        self.chosen: dict[int, list[int]] = {}

    def cost(self, idx: int, k: int) -> int:
        """Tokens of sentence ``k`` of the paragraph at ``idx`` (``count_text`` is the document's token memo)."""
        para = self.ctx.paragraph(idx, self.target.text_end.get(idx))
        a, b = para.spans[k]
        return self.count_text(para.text[a:b])

    def take(self, idx: int, ks: list[int]) -> None:
        """Take sentences ``ks`` of the paragraph at ``idx``."""
        self.chosen.setdefault(idx, []).extend(ks)
        self.used += sum(self.cost(idx, k) for k in ks)

    def fill(self, order: list[_Entry], ranked: list[Candidate], relevant: dict[int, list[ScoredSentence]]) -> None:
        """Three passes: 1. sentences naming the table or quoting its values (within the naming budget), then the
        sentences that follow a naming one; 2. whole paragraphs (their relevant sentences), in rank order, that still
        fit; 3. the remaining sentences sharing words or numbers with the table, then the weak ones."""
        for tier, pos, _weight, k in order:
            cap = self.naming_cap if tier <= Tier.QUOTING else self.cap
            if tier <= Tier.AFTER_NAMING and self.used + self.cost(ranked[pos].idx, k) <= cap:
                self.take(ranked[pos].idx, [k])
        for cand in ranked:
            rest = [s.k for s in relevant[cand.idx] if s.k not in self.chosen.get(cand.idx, ())]
            if rest and self.used + sum(self.cost(cand.idx, k) for k in rest) <= self.cap:
                self.take(cand.idx, rest)
        for tier, pos, _weight, k in order:
            idx = ranked[pos].idx
            if tier >= Tier.SHARING and k not in self.chosen.get(idx, ()) and self.used + self.cost(idx, k) <= self.cap:
                self.take(idx, [k])


def _choice(ctx: ContextIndex, target: ContextTarget, taken: dict[int, list[int]]) -> ContextChoice:
    """The :class:`ContextChoice` of the sentences ``taken`` (paragraph -> sentence numbers, in taking order)."""
    priority = {idx: k for k, idx in enumerate(taken)}
    chosen = sorted(taken)
    spans = []
    for idx in chosen:
        para = ctx.paragraph(idx, target.text_end.get(idx))
        ks = sorted(taken[idx])
        if len(ks) == len(para.spans) and idx not in target.text_end:
            spans.append(((0, len(para.text)),))
        else:
            spans.append(tuple(_merge(para.text, [para.spans[k] for k in ks])))
    t_idx = target.position
    return ContextChoice(
        before=tuple(i for i in chosen if i < t_idx),
        after=tuple(i for i in chosen if i > t_idx),
        rank=tuple(priority[i] for i in chosen),
        spans=tuple(spans),
    )


def _merge(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Join consecutive sentence spans separated only by white space into one span."""
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if out and not text[out[-1][1] : a].strip():
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out
