"""``pack@B``: what reaches the LLM when a ranking is packed into B tokens, judged like a chunk.

For each question, an arm's ranking (its chunks, best first, as the bench ranks them) is handed to
:meth:`docling_evidence.EvidenceChunker.pack` with the question as query and budget B. Every arm goes through the same
packer with the same scorer, so HybridChunker's chunks packed this way are the contextual-compression control. The
packed text is judged like a retrieved chunk (:func:`docling_evidence_bench.measures.is_hit`: every answer string and
every gold paragraph, normalised, token-boundary match) with one exception: packing may deliver part of a paragraph,
and a gold paragraph then counts when its *key sentence* is there: the sentence of the paragraph that shares most
words (and numbers) with the question and its answers (:func:`key_sentence`). The answers themselves must always be
in the packed text.

Nothing here knows how the packer selects; it sees only the packed text and counts its tokens (a text over the budget
is recorded, never silently accepted).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from docling_evidence.text.sentences import sentence_spans
from docling_evidence.text.words import content_words, numbers
from docling_evidence_bench.dataset import QAItem
from docling_evidence_bench.normalize import contains_answer

PACK_BUDGETS: tuple[int, ...] = (256, 512, 1024, 2048)
"""Token budgets of ``pack@B`` (those of ``ok@B``, so the two compare at equal cost)."""

PACK_DEPTH: int = 10
"""Chunks of a ranking handed to the packer: contextual compression's usual top 10."""

RETRIEVER_FETCH_FACTOR: int = 5
"""``fetch_k / k`` of the retriever input: ``MaxPoolRetriever``'s defaults fetch 20 candidates for 4 units."""

Scorer = Callable[[str, Sequence[str]], Sequence[float]]
"""``scorer(query, texts) -> scores``, the packer's optional scorer."""


def _terms(text: str) -> set[str]:
    """Words and numbers as the context rules compare them (stop words, short words and single digits dropped)."""
    return content_words(text) | numbers(text)


def key_sentence(paragraph: str, question: str, answers: Sequence[str] = ()) -> str:
    """The sentence of ``paragraph`` sharing most words and numbers with the question and its answers; the earliest
    of equals (the whole paragraph when it has one sentence, or shares nothing)."""
    spans = sentence_spans(paragraph)
    if not spans:
        return paragraph
    wanted = _terms(" ".join((question, *answers)))
    best, best_shared = spans[0], -1
    for a, b in spans:
        shared = len(_terms(paragraph[a:b]) & wanted)
        if shared > best_shared:
            best, best_shared = (a, b), shared
    return paragraph[best[0] : best[1]]


def paragraph_delivered(text: str, paragraph: str, question: QAItem) -> bool:
    """Whether ``text`` holds the gold ``paragraph`` whole, or its key sentence."""
    if contains_answer(text, paragraph):
        return True
    return contains_answer(text, key_sentence(paragraph, question.question, question.answers))


def packed_hit(text: str, question: QAItem) -> bool:
    """``pack@B``'s judgement of one packed text: every answer string, and every gold paragraph whole or by its key
    sentence (False when the question has neither)."""
    if not (question.answers or question.required_texts):
        return False
    if not all(contains_answer(text, a) for a in question.answers):
        return False
    return all(paragraph_delivered(text, p, question) for p in question.required_texts)


class CosineScorer:
    """The embedder's cosine as the packer's scorer: query vectors and passage vectors cached by text, so the same
    rows and sentences met again (another budget, another ranking, the other arm) are embedded once."""

    def __init__(self, embedder: Any) -> None:
        """``embedder``: a :class:`docling_evidence_bench.embed.Embedder` (unit-length rows)."""
        self._embedder = embedder
        self._queries: dict[str, np.ndarray] = {}
        self._passages: dict[str, np.ndarray] = {}

    def add_queries(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Queries already embedded (the retrieval's question vectors)."""
        for text, vec in zip(texts, vectors, strict=True):
            self._queries[text] = vec

    def __call__(self, query: str, texts: Sequence[str]) -> list[float]:
        """Cosine of ``query`` with each of ``texts``."""
        qv = self._queries.get(query)
        if qv is None:
            qv = self._queries[query] = self._embedder.encode_queries([query])[0]
        new = list(dict.fromkeys(t for t in texts if t not in self._passages))
        if new:
            for text, vec in zip(new, self._embedder.encode_passages(new), strict=True):
                self._passages[text] = vec
        return [float(self._passages[t] @ qv) for t in texts]


def ranked_chunk_ids(targets: Sequence[int], depth: int = PACK_DEPTH) -> list[int]:
    """The first ``depth`` distinct chunks a ranking points to, best first (a view ranks its chunk)."""
    return list(dict.fromkeys(targets))[:depth]


def retriever_input(
    hits: Sequence[int], target: Sequence[int], unit_of: Sequence[str], text_of: Sequence[str], k: int = PACK_DEPTH
) -> tuple[list[int], dict[str, float]]:
    """What ``MaxPoolRetriever(k=k, fetch_k=5 * k, budget=B)`` hands the packer for a ranking of vectors ``hits``
    (record numbers, best first): the chunks of its first ``k`` units, each unit's best first (the library's
    ``max_pool`` and ``chunk_hits``), and the hints of the views among the fetched candidates (``view_hints``).

    ``target[g]`` is the chunk record a vector ``g`` retrieves (a view's is its chunk's, a chunk's is itself),
    ``unit_of[g]`` its unit, ``text_of[g]`` its text (a view's hint is keyed by its text).
    """
    from docling_evidence.integrations.maxpool import chunk_hits, max_pool
    from docling_evidence.integrations.packing import view_hints

    fetched = [int(g) for g in hits[: k * RETRIEVER_FETCH_FACTOR]]
    chunks: list[int] = []
    for unit in max_pool(fetched, unit_of=lambda g: unit_of[g], k=k):
        chunks += chunk_hits(
            unit,
            view_of=lambda g: str(target[g]) if target[g] != g else None,
            chunk_key=lambda g: str(g),
            as_chunk=lambda _g, chunk: int(chunk),
        )
    return chunks, view_hints((text_of[g], target[g] != g) for g in fetched)


def pack_flags(
    pack: Callable[..., Any],
    count_tokens: Callable[[str], int],
    question: QAItem,
    chunks: Sequence[Any],
    budgets: Sequence[int] = PACK_BUDGETS,
    scorer: Scorer | None = None,
    *,
    pieces: Sequence[Any] | None = None,
) -> tuple[list[bool], list[int]]:
    """``pack@B`` of one question for each budget, and the tokens each packed text takes.

    ``pack`` is ``EvidenceChunker.pack``; its text is counted with ``count_tokens`` (the chunker's tokenizer). A
    count over the budget is returned as is, for the caller to report. ``pieces``: the document's chunks, where the
    ranked units' other pieces are found (``pack(..., pieces=)``); None packs the ranked chunks alone.
    """
    flags: list[bool] = []
    tokens: list[int] = []
    for budget in budgets:
        packed = pack(question.question, list(chunks), budget, scorer=scorer, pieces=pieces)
        text = str(packed.text)
        tokens.append(count_tokens(text) if text else 0)
        flags.append(packed_hit(text, question))
    return flags, tokens
