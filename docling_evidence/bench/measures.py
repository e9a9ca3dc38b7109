"""Per-question retrieval outcomes and the measures computed from them.

A retrieved item is a *hit* for a question when its text contains every answer string and every required text
(:func:`docling_evidence.bench.normalize.contains_answer`: normalised, token-boundary match). One
:class:`Outcome` per question holds all that the measures need (the rank of the first hit, the rank of the first
item on a gold page, whether any item of the document is a hit), so every number recomputes from stored outcomes.

Measure names follow ir_measures: ``R@k`` is "some item among the first k is a hit" (with one relevant unit per
question this is Success@k); ``hit@1`` is ``R@1`` under its usual RAG name; ``RR@10`` is the reciprocal rank of the
first hit, 0 beyond rank 10. ``page_R@k`` is ``R@k`` with "hit" read as "the item's page span meets the gold pages"
(only for questions with gold pages). ``ceiling`` is the share of questions for which some item of the document is a
hit: what a perfect ranker could reach with this chunking.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from docling_evidence.bench.dataset import QAItem
from docling_evidence.bench.normalize import contains_answer

DEPTH: int = 10
"""Ranks judged per question: enough for R@10 and RR@10."""

CUTOFFS: tuple[int, ...] = (1, 5, 10)
MEASURES: tuple[str, ...] = (
    "hit@1",
    "R@1",
    "R@5",
    "R@10",
    "RR@10",
    "ceiling",
    "page_R@1",
    "page_R@5",
    "page_R@10",
)
"""Every measure, in report order. ``page_*`` measures are None for questions without gold pages."""


@dataclass(frozen=True)
class Outcome:
    """What retrieval achieved for one question."""

    first_hit: int | None
    """1-based rank of the first hit within the first ``DEPTH`` items, else None."""
    first_page_hit: int | None
    """1-based rank of the first item whose pages meet the gold pages (None if none, or no gold pages)."""
    ceiling: bool
    """Some item of the question's document is a hit."""
    page_eligible: bool = False
    """The question has gold pages, so the ``page_*`` measures apply."""


def is_hit(text: str, question: QAItem) -> bool:
    """Whether ``text`` contains every answer and every required text of ``question`` (False if it has neither)."""
    needles = (*question.answers, *question.required_texts)
    return bool(needles) and all(contains_answer(text, s) for s in needles)


def judge(
    ranked_hits: Sequence[bool],
    ranked_pages: Sequence[Sequence[int]],
    ceiling: bool,
    gold_pages: Sequence[int] = (),
    depth: int = DEPTH,
) -> Outcome:
    """The :class:`Outcome` of one ranking.

    Args:
        ranked_hits: hit flag of each retrieved item, best first (only the first ``depth`` are read).
        ranked_pages: page span of each retrieved item, same order.
        ceiling: whether any item of the question's document is a hit.
        gold_pages: the question's gold pages; empty disables page-level measures.
    """
    first_hit = next((r for r, h in enumerate(ranked_hits[:depth], start=1) if h), None)
    gold = set(gold_pages)
    first_page = None
    if gold:
        first_page = next((r for r, p in enumerate(ranked_pages[:depth], start=1) if gold.intersection(p)), None)
    return Outcome(first_hit, first_page, bool(ceiling), bool(gold))


def question_values(outcome: Outcome) -> dict[str, float | None]:
    """Every measure of one question (``page_*`` are None when the question has no gold pages)."""
    fh = outcome.first_hit
    values: dict[str, float | None] = {"hit@1": float(fh == 1)}
    for k in CUTOFFS:
        values[f"R@{k}"] = float(fh is not None and fh <= k)
    values["RR@10"] = 1.0 / fh if fh is not None and fh <= 10 else 0.0
    values["ceiling"] = float(outcome.ceiling)
    for k in CUTOFFS:
        fp = outcome.first_page_hit
        values[f"page_R@{k}"] = float(fp is not None and fp <= k) if outcome.page_eligible else None
    return values


def _mean(values: Sequence[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def mean_measures(outcomes: Sequence[Outcome]) -> dict[str, float | None]:
    """Mean of every measure over ``outcomes`` (None where no question has a value)."""
    per_q = [question_values(o) for o in outcomes]
    return {m: _mean([v[m] for v in per_q]) for m in MEASURES}


def aggregate(outcomes: Sequence[Outcome], qtypes: Sequence[str], doc_ids: Sequence[str]) -> dict[str, object]:
    """Overall means, means by question type, per-document means and their macro average over documents.

    Returns:
        ``{"n", "overall", "by_qtype": {qtype: {"n", **means}}, "by_doc": {doc_id: {"n", **means}},
        "macro_doc": means}``; types and documents in first-seen order.
    """
    if not (len(outcomes) == len(qtypes) == len(doc_ids)):
        raise ValueError(f"{len(outcomes)} outcomes, {len(qtypes)} qtypes and {len(doc_ids)} doc ids differ")
    by_type: dict[str, list[Outcome]] = {}
    by_doc: dict[str, list[Outcome]] = {}
    for o, t, d in zip(outcomes, qtypes, doc_ids, strict=True):
        by_type.setdefault(t, []).append(o)
        by_doc.setdefault(d, []).append(o)
    doc_means = {d: {"n": len(os_), **mean_measures(os_)} for d, os_ in by_doc.items()}
    macro = {m: _mean([dm[m] for dm in doc_means.values()]) for m in MEASURES}
    return {
        "n": len(outcomes),
        "overall": mean_measures(outcomes),
        "by_qtype": {t: {"n": len(os_), **mean_measures(os_)} for t, os_ in by_type.items()},
        "by_doc": doc_means,
        "macro_doc": macro,
    }
