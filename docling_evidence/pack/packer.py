"""Budgeted selection: the rows and sentences that answer the query, with what makes them readable, in ranking order.

The retrieved chunks are read (``segments``) and grouped by unit, each unit once, at its first rank; pieces of a unit
found later in the ranking join its block. Every row, sentence, footnote and caption is scored against the query (one
scorer call); rows also get a second hop, their lexical match with the best-scoring sentences (:func:`bridged_scores`),
so a row that a question names only through what a paragraph says of it is found. The retriever's order is trusted
first: units are delivered whole, in ranking order, while each fits whole in what is left. The first unit that does not
fit gets its matching rows and sentences, best first, before any lower unit; then the lower units' matching segments are
taken best first (a unit's rank lowers its scores a little, so among equals the better-ranked unit wins); what scores
nothing fills what is left, in ranking and reading order. A row comes with its unit's caption and header lines, and with
the footnotes that change what its numbers mean (units, scale, currency, percentages, restatements); where the caption
and header do not fit, it comes labelled (each value named by its column) with those footnotes, or not at all. A
sentence of a table unit comes with the caption when it fits; a caption that scores may go alone. A sentence already
delivered (the same words, markup and case aside, by another chunk: a paragraph that is both a unit's context and a
text chunk, a text the document repeats) is not delivered again. The text is counted exactly at the end and trimmed,
last taken first, if the estimate was short.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from docling_evidence.pack.blocks import (
    BLOCK_JOIN,
    GAP_JOIN,
    LINE_JOIN,
    SENTENCE_JOIN,
    Taken,
    Unit,
    packed_block,
    write_unit,
)
from docling_evidence.pack.budget import validate_budget
from docling_evidence.pack.evidence import PackedBlock, PackedEvidence
from docling_evidence.pack.expand import other_pieces
from docling_evidence.pack.params import PackParams
from docling_evidence.pack.scoring import Scorer, checked_scores, lexical_scorer
from docling_evidence.pack.segments import Reading, Sentence, at_rank, read_chunk

MAX_COUNT_MEMO = 50_000
"""Token counts kept between calls (per chunker); the memo is cleared when it grows past this."""

MEANING = re.compile(
    r"\b(?:in\s+(?:millions|thousands|billions|hundreds|crores|lakhs)|millions?|thousands?|billions?|per\s?cent"
    r"|percent(?:age)?s?|restated|unaudited|currency|denominated|expressed\s+in|amounts?\s+(?:are\s+)?in|units?"
    r"|USD|EUR|GBP|JPY|KSh|RMB|CHF)\b|[%$€£¥]",
    re.IGNORECASE,
)
"""A footnote matching this changes what the table's numbers mean: it goes with the rows."""


@dataclass(frozen=True)
class _Cand:
    unit: int
    kind: Literal["row", "sentence", "footnote", "caption"]
    item: Any
    pos: int
    extra: bool = False
    """Shown only by a piece that did not rank (``pieces=``): never part of its unit delivered whole."""


def validate(query: Any, ranked: Any, budget: Any) -> None:
    """The calling form's checks: ``TypeError`` for wrong types, ``ValueError`` for a budget below 1."""
    if not isinstance(query, str):
        raise TypeError(f"query must be a str, got {type(query).__name__}")
    if isinstance(ranked, (str, bytes)) or not isinstance(ranked, Sequence):
        raise TypeError(f"ranked must be a sequence of chunks (best first), got {type(ranked).__name__}")
    for k, chunk in enumerate(ranked):
        if not isinstance(getattr(chunk, "text", None), str):
            raise TypeError(f"ranked[{k}] is not a chunk (no str 'text'): {type(chunk).__name__}")
    validate_budget(budget)


def pack(
    query: str,
    ranked: Sequence[Any],
    budget: int,
    *,
    count: Callable[[str], int],
    scorer: Scorer | None = None,
    pieces: Iterable[Any] | None = None,
    memo: PackMemo | None = None,
    params: PackParams | None = None,
) -> PackedEvidence:
    """Pack the evidence of ``ranked`` (best first) for ``query`` within ``budget`` tokens of ``count``.

    ``pieces``: where the ranked units' other pieces are found (:func:`~docling_evidence.pack.expand.other_pieces`).
    ``params``: the packing rules (default :class:`~docling_evidence.pack.params.PackParams`).
    ``memo``: token counts and chunk readings to reuse between calls (a chunker keeps one). See
    ``EvidenceChunker.pack``.

    Raises:
        TypeError: for a query that is not a str, ``ranked`` that is not a sequence of chunks, a scorer that returns
            something other than numbers.
        ValueError: for a budget that is not an int or is below 1; a scorer that does not return one score per text.
    """
    validate(query, ranked, budget)
    if scorer is not None and not callable(scorer):
        raise TypeError(f"scorer must be callable as scorer(query, texts), got {type(scorer).__name__}")
    memo = memo if memo is not None else PackMemo()
    memo.trim()
    extra = [] if pieces is None else other_pieces(ranked, pieces)
    units = _units([memo.reading(chunk, k) for k, chunk in enumerate([*ranked, *extra])], len(ranked))
    cands = _candidates(units, len(ranked))
    texts = [_score_text(c) for c in cands]
    params = params if params is not None else PackParams()
    scores = bridged_scores(cands, checked_scores(scorer or lexical_scorer, query, texts), texts, params)
    packer = _Packer(units, budget, _Counter(count, memo.counts), len(ranked))
    for i in _offer_order(packer, cands, scores, params.rank_discount):
        packer.offer(cands[i], scores[i])
    return packer.result(query, len(cands))


def bridged_scores(
    cands: Sequence[_Cand], scores: Sequence[float], texts: Sequence[str], params: PackParams
) -> list[float]:
    """``scores`` with a second hop for the rows: a question may name its row only through what a paragraph says of
    it ("the split the authors call particularly challenging"); the query then matches the paragraph's sentence, and
    the sentence names the row (its label, its numbers). Each row also gets the lexical score of its text against
    the ``params.bridge_sentences`` best-scoring sentences, scaled so that the best such row gains
    ``params.bridge_weight`` x the best score of any candidate: a row that matches nothing but what the best
    sentences say rises above the rows that match nothing at all, and a row that matches the query itself as well as
    the best candidate stays first. Nothing changes without a sentence that scores or a row that shares a word or
    number with one. ``texts``: the candidates' texts as the query scorer saw them."""
    out = [float(s) for s in scores]
    sentences = sorted(
        (i for i, c in enumerate(cands) if c.kind == "sentence" and out[i] > 0), key=lambda i: (-out[i], i)
    )[: params.bridge_sentences]
    rows = [i for i, c in enumerate(cands) if c.kind == "row"]
    if not sentences or not rows:
        return out
    hop = lexical_scorer(" ".join(cands[i].item.text for i in sentences), [texts[i] for i in rows])
    top_hop = max(hop)
    if not top_hop > 0:
        return out
    scale = params.bridge_weight * max(out) / top_hop
    for i, h in zip(rows, hop, strict=True):
        out[i] += scale * h
    return out


def _offer_order(packer: _Packer, cands: list[_Cand], scores: list[float], rank_discount: float) -> list[int]:
    """Deliver the whole units that lead the ranking (each taken as it is decided, what ranked of it; then the
    matching segments of its pieces that did not rank, best first, before the next unit is decided) and return the
    order in which the other candidates are offered: the first unit that did not fit whole, its matching segments
    best first; then the lower units' matching segments, best first with the rank discount; then what scores
    nothing, in ranking and reading order.

    The retriever's rank is the strongest evidence the packer has: a unit that fits whole is never cut for a lower
    unit's rows, so without other pieces the packed text holds at least what handing over whole units in ranking
    order would; with them, the first unit's delivery is kept and completed before the next unit's."""
    by_unit: list[list[int]] = [[] for _ in packer.units]  # what ranked: rows in table order, footnotes, sentences
    extras: list[list[int]] = [[] for _ in packer.units]  # what only pieces that did not rank show
    captions: list[int] = []  # a unit delivered whole brings its caption: offered alone only when it scores
    for i, cand in enumerate(cands):
        (captions if cand.kind == "caption" else extras[cand.unit] if cand.extra else by_unit[cand.unit]).append(i)
    offered: set[int] = set()
    cut = 0
    while cut < len(by_unit) and packer.take_whole(cut, [(cands[i], scores[i]) for i in by_unit[cut]]):
        # a unit that went whole as it ranked is completed from its other pieces before the next unit is decided
        for i in sorted((i for i in extras[cut] if scores[i] > 0), key=lambda i: (-scores[i], cands[i].pos)):
            packer.offer(cands[i], scores[i])
            offered.add(i)
        cut += 1
    # what is left: the units from the first that did not go whole, and every unit's pieces that did not rank
    left = sorted(
        [
            *(i for u in range(cut, len(by_unit)) for i in by_unit[u]),
            *(i for unit_extras in extras for i in unit_extras if i not in offered),
            *(i for i in captions if cands[i].unit >= cut and scores[i] > 0),
        ],
        key=lambda i: (cands[i].extra, cands[i].unit, cands[i].pos),
    )
    first = sorted(
        (i for i in left if cands[i].unit == cut and scores[i] > 0), key=lambda i: (-scores[i], cands[i].pos)
    )
    lower = sorted(
        (i for i in left if cands[i].unit != cut and scores[i] > 0),
        key=lambda i: (-scores[i] / (1 + rank_discount * cands[i].unit), cands[i].unit, cands[i].pos),
    )
    rest = [i for i in left if not scores[i] > 0]  # already in ranking and reading order
    return [*first, *lower, *rest]


class PackMemo:
    """What :func:`pack` can reuse between queries: token counts by text, and the reading of each chunk object (kept
    with the chunk, so an id is never mistaken for another object's). Cleared past :data:`MAX_COUNT_MEMO` entries."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.readings: dict[int, tuple[Any, Reading]] = {}

    def trim(self) -> None:
        """Forget everything once either table grows past :data:`MAX_COUNT_MEMO` entries."""
        if len(self.counts) > MAX_COUNT_MEMO or len(self.readings) > MAX_COUNT_MEMO:
            self.counts.clear()
            self.readings.clear()

    def reading(self, chunk: Any, rank: int) -> Reading:
        """``read_chunk(chunk, rank)``, read once per chunk object."""
        cached = self.readings.get(id(chunk))
        if cached is not None and cached[0] is chunk:
            return at_rank(cached[1], rank)
        reading = read_chunk(chunk, rank)
        self.readings[id(chunk)] = (chunk, reading)
        return reading


def _units(readings: list[Reading], n_ranked: int) -> list[Unit]:
    by_key: dict[str, Unit] = {}
    for reading in readings:
        unit = by_key.get(reading.key)
        if unit is None:
            unit = by_key[reading.key] = Unit(order=len(by_key), readings=[])
        unit.add(reading, ranked=reading.rank < n_ranked)
    return list(by_key.values())


def _candidates(units: list[Unit], n_ranked: int) -> list[_Cand]:
    """Every segment of every unit; those first shown by a chunk at rank ``n_ranked`` or below (a piece that did not
    rank) are marked ``extra``."""
    out: list[_Cand] = []
    for u, unit in enumerate(units):
        # the rows of the chunk that ranked best first (what the retriever chose), each chunk's in table order
        rows = sorted(unit.rows.values(), key=lambda r: (unit.seen_at[("row", r.key)], r.index is None, r.index or 0))
        out += [_Cand(u, "row", row, k, unit.seen_at[("row", row.key)] >= n_ranked) for k, row in enumerate(rows)]
        out += [
            _Cand(u, "footnote", f, 10_000 + k, unit.seen_at[("footnote", f.text)] >= n_ranked)
            for k, f in enumerate(unit.footnotes.values())
        ]
        out += [
            _Cand(u, "sentence", s, 20_000 + k, unit.seen_at[("sentence", key)] >= n_ranked)
            for k, (key, s) in enumerate(unit.sentences.items())
        ]
        if unit.caption:  # what the caption says may be the answer ("according to its caption"): it is scored too
            out.append(_Cand(u, "caption", Sentence(unit.caption, "context", None, (-1, -1), 0), -1))
    return out


def _score_text(cand: _Cand) -> str:
    return cand.item.score_text() if cand.kind == "row" else cand.item.text


class _Counter:
    """Token counts, memoised; a text's word count is a lower bound that skips counting what cannot fit."""

    def __init__(self, count: Callable[[str], int], memo: dict[str, int]) -> None:
        self.count = count
        self.memo = memo
        self.block = self._join(BLOCK_JOIN)
        self.line = self._join(LINE_JOIN)
        self.sentence = max(self._join(SENTENCE_JOIN), self._join(GAP_JOIN))

    def __call__(self, text: str) -> int:
        n = self.memo.get(text)
        if n is None:
            n = self.memo[text] = self.count(text)
        return n

    def _join(self, delim: str) -> int:
        return max(0, self("a" + delim + "b") - self("a") - self("b"))


class _Packer:
    def __init__(self, units: list[Unit], budget: int, count: _Counter, n_ranked: int) -> None:
        self.units = units
        self.n_ranked = n_ranked
        """How many of the readings are the ranked chunks (the others are pieces that did not rank)."""
        self.budget = budget
        self.count = count
        self.states = [Taken() for _ in units]
        self.used = 0
        self.taken: list[tuple[_Cand, float, bool, list[Sentence]]] = []
        """What was taken, in order, with whether it brought the caption and which footnotes: replayed as it was."""
        self.said: set[str] = set()
        """The words of every sentence taken (:func:`~docling_evidence.pack.segments.said_words`): a sentence is
        delivered once."""

    def repeats(self, cand: _Cand) -> bool:
        """Whether ``cand`` is a sentence whose words were already delivered (by any unit)."""
        return cand.kind == "sentence" and cand.item.words in self.said

    def offer(self, cand: _Cand, score: float, *, labelled: bool = True) -> None:
        """Take ``cand`` (with what it needs) if it fits what is left of the budget; a row whose caption and header
        do not fit goes labelled (:meth:`Row.labelled`) when that fits and ``labelled``."""
        if not self._offer(cand, score) and labelled and cand.kind == "row":
            row = cand.item.labelled() if cand.item.header not in self.states[cand.unit].headers else None
            if row is not None:
                self._offer(replace(cand, item=row), score)

    def _offer(self, cand: _Cand, score: float) -> bool:
        room = self.budget - self.used
        if len(cand.item.text.split()) > room or self.repeats(cand):
            return False  # every word is at least one token: it cannot fit; or it was said already
        state = self.states[cand.unit]
        unit = self.units[cand.unit]
        if cand.kind == "caption" and state.caption:
            return False  # it came already
        if cand.kind == "footnote" and cand.item in state.footnotes:
            self._take(cand, score, state, False, [])  # it came with a row: already paid for
            return True
        base = self._item_cost(cand, state)
        opened = not self._open(state) and any(self._open(s) for s in self.states)
        base += self.count.block if opened else 0
        caption = self._caption_cost(unit, state)
        needs_caption = caption > 0 and (cand.kind == "caption" or (cand.kind == "row" and cand.item.fmt != "labelled"))
        notes = self._notes(unit, state) if cand.kind == "row" and not state.rows else []
        notes_cost = sum(self.count(n.text) + self.count.block for n in notes)
        # a row never goes without its caption, header and meaning footnotes (a labelled row names its columns
        # itself); a sentence may go without the caption
        for with_caption in (True, False):
            if not with_caption and needs_caption:
                return False
            cost = base + (caption if with_caption else 0) + notes_cost
            if cost <= room:
                self._take(cand, score, state, caption > 0 and with_caption, notes)
                self.used += cost
                return True
        return False

    def take_whole(self, u: int, cands: Sequence[tuple[_Cand, float]]) -> bool:
        """Take every segment of unit ``u`` (and its caption) if all of them fit what is left; else take nothing.

        ``u`` must be untouched so far (the whole units are decided first, in ranking order). The running estimate
        decides first; where it says no, the text with the unit whole is counted exactly, since the estimate of a
        join can be higher than what the tokenizer counts."""
        used, n_taken = self.used, len(self.taken)
        cands = self._unsaid(cands)
        parts = self._parts_tokens(self.units[u], cands)
        # its parts alone, without the joins, take more than is left: measured against the exact count of what is
        # taken, since the running total's estimated joins may count more than the tokenizer does
        if parts > self.budget - used and (not self.taken or parts > self.budget - self.count(self._text())):
            return False
        for cand, score in cands:
            self.offer(cand, score, labelled=False)
        state = self.states[u]
        if len(self.taken) - n_taken == len(cands) and (state.caption or not self.units[u].caption or not cands):
            return True
        self.used, self.states[u] = used, Taken()
        self._forget_after(n_taken)
        state = self.states[u]
        for k, (cand, score) in enumerate(cands):
            self._take(cand, score, state, k == 0 and bool(self.units[u].caption), [])
        tokens = self.count.count(self._text())
        if tokens <= self.budget:
            self.used = tokens
            return True
        self.states[u] = Taken()
        self._forget_after(n_taken)
        return False

    def _unsaid(self, cands: Sequence[tuple[_Cand, float]]) -> list[tuple[_Cand, float]]:
        """``cands`` without the sentences said already or said earlier in ``cands``."""
        said = set(self.said)
        out: list[tuple[_Cand, float]] = []
        for cand, score in cands:
            if cand.kind == "sentence":
                words = cand.item.words
                if words in said:
                    continue
                said.add(words)
            out.append((cand, score))
        return out

    def _parts_tokens(self, unit: Unit, cands: Sequence[tuple[_Cand, float]]) -> int:
        headers = {c.item.header for c, _ in cands if c.kind == "row"}
        parts = [c.item.text for c, _ in cands] + [h for header in headers for h in header]
        return sum(map(self.count, parts)) + (self.count(unit.caption) if unit.caption else 0)

    @staticmethod
    def _open(state: Taken) -> bool:
        return bool(state.rows or state.sentences or state.footnotes or state.caption)

    def _caption_cost(self, unit: Unit, state: Taken) -> int:
        if state.caption or not unit.caption:
            return 0
        return self.count(unit.caption) + self.count.block

    def _notes(self, unit: Unit, state: Taken) -> list[Sentence]:
        return [f for f in unit.footnotes.values() if f not in state.footnotes and MEANING.search(f.text)]

    def _item_cost(self, cand: _Cand, state: Taken) -> int:
        item = cand.item
        if cand.kind == "row":
            cost = self.count(item.text) + self.count.line
            if item.fmt == "labelled":
                return cost + (0 if state.rows else self.count.block)
            if item.header not in state.headers:
                cost += sum(self.count(h) + self.count.line for h in item.header) + self.count.block
                if item.fmt == "html":
                    cost += self.count("<table>") + self.count("</table>") + 2 * self.count.line
            return cost
        if cand.kind == "footnote":
            return self.count(item.text) + self.count.block
        if cand.kind == "caption":
            return 0  # the caption's cost is the caption's
        same_para = any(s.para == item.para for s in state.sentences)
        return self.count(item.text) + (self.count.sentence if same_para else self.count.block)

    def _take(self, cand: _Cand, score: float, state: Taken, caption: bool, notes: list[Sentence]) -> None:
        state.caption = state.caption or caption
        state.footnotes += notes
        if cand.kind == "row":
            state.headers.add(cand.item.header)
            state.rows.append(cand.item)
        elif cand.kind == "footnote":
            if cand.item not in state.footnotes:
                state.footnotes.append(cand.item)
        elif cand.kind == "sentence":
            state.sentences.append(cand.item)
            self.said.add(cand.item.words)
        state.score = max(state.score, score)
        self.taken.append((cand, score, caption, notes))

    # -- result -----------------------------------------------------------------------------------------------------
    def result(self, query: str, n_cands: int) -> PackedEvidence:
        while True:
            blocks = self._blocks()
            text = BLOCK_JOIN.join(b.text for b in blocks)
            tokens = self.count.count(text) if text else 0
            if tokens <= self.budget or not self.taken:
                break
            self._drop_last()  # the estimate was short (a tokenizer whose joins merge): give back the last taken
        delivered = sum(len(b.rows) + len(b.sentences) + len(b.footnotes) + (b.caption is not None) for b in blocks)
        return PackedEvidence(
            query=query, budget=self.budget, tokens=tokens, text=text, blocks=blocks, omitted=n_cands - delivered
        )

    def _blocks(self) -> list[PackedBlock]:
        blocks = (packed_block(unit, self.states[u], self.n_ranked) for u, unit in enumerate(self.units))
        return [b for b in blocks if b is not None]

    def _text(self) -> str:
        written = (write_unit(unit, self.states[u]) for u, unit in enumerate(self.units))
        return BLOCK_JOIN.join(w.text for w in written if w is not None)

    def _forget_after(self, n_taken: int) -> None:
        """Undo what was taken after the first ``n_taken`` (the unit's own state is reset by the caller)."""
        del self.taken[n_taken:]
        self.said = {c.item.words for c, *_ in self.taken if c.kind == "sentence"}

    def _drop_last(self) -> None:
        self.taken.pop()
        self.states = [Taken() for _ in self.units]
        taken, self.taken, self.said = self.taken, [], set()
        for cand, score, caption, notes in taken:  # as taken: a sentence that went without the caption still does
            self._take(cand, score, self.states[cand.unit], caption, notes)
