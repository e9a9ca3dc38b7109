"""Per-question retrieval outcomes and the measures computed from them.

A retrieved item is a *hit* for a question when its text contains every answer string and every required text
(:func:`docling_evidence_bench.normalize.contains_answer`: normalised, token-boundary match). Every arm is judged on
the chunk that ranks: with max-pool ranking a unit's lower pieces are removed from the list, and the piece that
ranked is what is judged. One :class:`Outcome` per question holds all that the measures need, so every number
recomputes from stored outcomes.

Three views, named apart so they are never mixed:

- chunk level (``hit@1``, ``Success@k``, ``RR@10``, ``ceiling``): the retrieved chunk alone;
- unit level (``unit_hit@1``, ``unit_Success@10``, ``unit_ceiling``; max-pool rankings only): the whole re-assembled
  unit of each ranked piece. This is *not* comparable with a flat arm's chunk-level numbers: a unit holds more text;
- equal budget (``ok@B``): the ranking delivered in order until ``B`` tokens are spent (flat: chunk by chunk;
  max-pool: unit by unit as re-assembled text, led by the view that ranked when a view did, the last item cut); a
  hit when everything needed is in what was delivered. This is the number a RAG user pays for.

The rank measures are ir_measures' and are computed by it (pytrec_eval underneath): ``Success@k`` is "some item among
the first k is a hit"; ``hit@1`` is ``Success@1`` under its usual RAG name; ``RR@10`` is the reciprocal rank of the
first hit, 0 beyond rank 10. ``page_Success@k`` is ``Success@k`` with "hit" read as "the item's page span meets the
gold pages" (only for questions with gold pages). The bench's own measures stay computed here: ``ok@B`` (above), the
unit level ones and ``ceiling``, the share of questions for which some chunk of the document is a hit: what a
perfect ranker could reach with this chunking; ``unit_ceiling`` the same for whole units.

Results files written before the rank measures carried ir_measures' names call ``Success@k`` ``R@k``:
:func:`with_current_names` renames what such a file stores.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from docling_evidence.integrations.maxpool import PieceOrder
from docling_evidence_bench.dataset import QAItem
from docling_evidence_bench.normalize import contains_answer

DEPTH: int = 10
"""Ranks judged per question: enough for Success@10 and RR@10."""

CUTOFFS: tuple[int, ...] = (1, 5, 10)
BUDGETS: tuple[int, ...] = (256, 512, 1024, 2048)
"""Token budgets of the ``ok@B`` measures."""
MEASURES: tuple[str, ...] = (
    "hit@1",
    "Success@1",
    "Success@5",
    "Success@10",
    "RR@10",
    "ceiling",
    *(f"ok@{b}" for b in BUDGETS),
    "unit_hit@1",
    "unit_Success@10",
    "unit_ceiling",
    "page_Success@1",
    "page_Success@5",
    "page_Success@10",
)
"""Every measure, in report order. ``page_*`` measures are None for questions without gold pages, ``unit_*`` for
flat rankings, ``ok@B`` for outcomes stored without budgets."""

RENAMED: dict[str, str] = {
    **{f"R@{k}": f"Success@{k}" for k in CUTOFFS},
    **{f"page_R@{k}": f"page_Success@{k}" for k in CUTOFFS},
    "unit_R@10": "unit_Success@10",
}
"""Measure names of results files written before the rank measures carried ir_measures' names -> today's."""


DELIVERY: PieceOrder = "match_first"
"""How pooled units are delivered within a budget (``config["delivery"]`` of a results file): as
``MaxPoolRetriever(reassemble=True)`` returns them by default, the view that ranked (when a view did) first."""

_DELIVERIES: dict[str, str] = {
    "match_first": "the view that ranked first (when a view did), then the piece that ranked, then the rest",
    "best_first": "the piece that ranked first, then the rest",
}


def describe_delivery(config: Mapping[str, object]) -> str:
    """How a results file's pooled units were delivered within a budget, in words (files written before
    ``config["delivery"]`` existed used ``best_first``)."""
    mode = str(config.get("delivery", "best_first"))
    return _DELIVERIES.get(mode, mode)


Qrels = Mapping[str, Collection[Hashable]]
"""Relevance judgements, ir_measures-style: query id -> the ids of its relevant items (binary relevance)."""
Run = Mapping[str, Sequence[Hashable]]
"""A run: query id -> retrieved item ids, best first."""


def first_relevant(ranking: Sequence[Hashable], relevant: Collection[Hashable], depth: int = DEPTH) -> int | None:
    """1-based rank of the first relevant item among the first ``depth`` of ``ranking``, else None."""
    return next((r for r, item in enumerate(ranking[:depth], start=1) if item in relevant), None)


def success(first: int | None, k: int) -> float:
    """``Success@k`` of one query from its first relevant rank, as the unit level measures count it (the chunk level
    ones are ir_measures'): 1 if some item among the first k is relevant."""
    return float(first is not None and first <= k)


_NO_RELEVANT_ITEM = "<no relevant item>"
"""The one (non-relevant) judgement of a query without a relevant item, so that ir_measures scores it 0."""


def _parse(name: str) -> Any:
    import ir_measures

    base, _, cutoff = name.partition("@")
    if base not in ("Success", "RR") or not cutoff.isdigit() or int(cutoff) < 1:
        raise ValueError(f"unknown measure {name!r}; expected Success@k or RR@k")
    return ir_measures.parse_measure(name)


def per_query(measures: Sequence[str], qrels: Qrels, run: Run) -> dict[str, dict[str, float]]:
    """Each measure (``Success@k``, ``RR@k``) of every query of ``qrels``, computed by ir_measures.

    A query missing from ``run`` retrieved nothing and a query without relevant items finds none: both score 0. An
    item a ranking repeats counts at its first rank only (a run ranks each item once).
    """
    import ir_measures

    parsed = {m: _parse(m) for m in measures}
    name_of = {str(measure): name for name, measure in parsed.items()}
    judged = [ir_measures.Qrel(str(qid), str(item), 1) for qid, relevant in qrels.items() for item in relevant] + [
        ir_measures.Qrel(str(qid), _NO_RELEVANT_ITEM, 0) for qid, relevant in qrels.items() if not relevant
    ]
    scored = []
    for qid, ranking in run.items():
        items = list(dict.fromkeys(str(item) for item in ranking))
        scored += [ir_measures.ScoredDoc(str(qid), item, float(len(items) - r)) for r, item in enumerate(items)]
    values = {str(qid): dict.fromkeys(measures, 0.0) for qid in qrels}
    if parsed and judged:
        for metric in ir_measures.iter_calc(list(parsed.values()), judged, scored):
            if metric.query_id in values:
                values[metric.query_id][name_of[str(metric.measure)]] = float(metric.value)
    return values


def calc_aggregate(measures: Sequence[str], qrels: Qrels, run: Run) -> dict[str, float]:
    """Mean of each measure (``Success@k``, ``RR@k``) over the queries of ``qrels`` (NaN when there are none), the
    per-query values computed by ir_measures (:func:`per_query`)."""
    values = per_query(measures, qrels, run)
    if not values:
        return {m: math.nan for m in measures}
    return {m: sum(v[m] for v in values.values()) / len(values) for m in measures}


def rank_values(firsts: Sequence[int | None], measures: Sequence[str]) -> list[dict[str, float]]:
    """Each measure (``Success@k``, ``RR@k``) of each query given only the 1-based rank of its first relevant item
    (None: none within the ranks judged), computed by ir_measures on a run where that item is the query's one relevant
    item at that rank: all that binary ``Success`` and ``RR`` depend on."""
    depth = max((int(m.partition("@")[2]) for m in measures), default=0)
    ranking = range(1, depth + 1)  # item r sits at rank r
    qrels = {str(q): set() if f is None else {f} for q, f in enumerate(firsts)}
    values = per_query(measures, qrels, dict.fromkeys(qrels, ranking))
    return [values[str(q)] for q in range(len(firsts))]


def with_current_names(value: Any) -> Any:
    """``value`` (a stored summary, or any part of one) with the measure names of :data:`RENAMED` replaced: as keys,
    and as the ``measure`` a comparison names."""
    if isinstance(value, list):
        return [with_current_names(v) for v in value]
    if not isinstance(value, dict):
        return value
    return {
        RENAMED.get(k, k): RENAMED.get(v, v) if k == "measure" and isinstance(v, str) else with_current_names(v)
        for k, v in value.items()
    }


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
    first_unit_hit: int | None = None
    """Unit level (max-pool only): 1-based rank of the first unit whose re-assembled text is a hit, else None."""
    unit_ceiling: bool | None = None
    """Unit level (max-pool only): some unit of the document is a hit; None for flat rankings."""
    ok: tuple[bool, ...] | None = None
    """``ok@B`` for each of :data:`BUDGETS`: the first B delivered tokens hold everything needed."""


def is_hit(text: str, question: QAItem) -> bool:
    """Whether ``text`` contains every answer and every required text of ``question`` (False if it has neither)."""
    needles = (*question.answers, *question.required_texts)
    return bool(needles) and all(contains_answer(text, s) for s in needles)


def first_rank(flags: Sequence[bool], depth: int = DEPTH) -> int | None:
    """1-based rank of the first true flag among the first ``depth``, else None (:func:`first_relevant` over flags)."""
    return first_relevant(flags, (True,), depth)


def judge(
    ranked_hits: Sequence[bool],
    ranked_pages: Sequence[Sequence[int]],
    ceiling: bool,
    gold_pages: Sequence[int] = (),
    depth: int = DEPTH,
    *,
    ranked_unit_hits: Sequence[bool] | None = None,
    unit_ceiling: bool | None = None,
    ok: Sequence[bool] | None = None,
) -> Outcome:
    """The :class:`Outcome` of one ranking.

    Args:
        ranked_hits: chunk-level hit flag of each retrieved item (the chunk that ranked), best first (only the
            first ``depth`` are read).
        ranked_pages: page span of each retrieved item, same order.
        ceiling: whether any chunk of the question's document is a hit.
        gold_pages: the question's gold pages; empty disables page-level measures.
        ranked_unit_hits: max-pool rankings only: whether each ranked item's whole unit is a hit.
        unit_ceiling: max-pool rankings only: whether any unit of the document is a hit.
        ok: ``ok@B`` for each of :data:`BUDGETS` (see :func:`delivered_within`).
    """
    gold = set(gold_pages)
    first_page = None
    if gold:
        first_page = next((r for r, p in enumerate(ranked_pages[:depth], start=1) if gold.intersection(p)), None)
    if (ranked_unit_hits is None) != (unit_ceiling is None):
        raise ValueError("give both ranked_unit_hits and unit_ceiling (max-pool rankings) or neither (flat)")
    if ok is not None and len(ok) != len(BUDGETS):
        raise ValueError(f"ok needs one flag per budget {BUDGETS}, got {len(ok)}")
    return Outcome(
        first_rank(ranked_hits, depth),
        first_page,
        bool(ceiling),
        bool(gold),
        first_rank(ranked_unit_hits, depth) if ranked_unit_hits is not None else None,
        None if unit_ceiling is None else bool(unit_ceiling),
        None if ok is None else tuple(bool(x) for x in ok),
    )


def delivered_within(texts: Sequence[str], token_ends: Sequence[Sequence[int]], budget: int) -> str:
    """What a reader receives from a ranking under a token budget.

    Items are taken in order until ``budget`` tokens are spent; the last item is cut after its last token that
    fits (at the character offset where that token ends). Items are joined with a newline, which costs no token.

    Args:
        texts: the delivered items' texts, best first.
        token_ends: for each text, the character offset where each of its tokens ends (the arm's tokenizer).
        budget: tokens to spend (> 0).
    """
    if budget <= 0:
        raise ValueError(f"budget must be positive, got {budget}")
    out: list[str] = []
    left = budget
    for text, ends in zip(texts, token_ends, strict=True):
        if not ends:
            continue
        if len(ends) <= left:
            out.append(text)
            left -= len(ends)
        else:
            out.append(text[: ends[left - 1]])
            left = 0
        if left == 0:
            break
    return "\n".join(out)


_CHUNK_MEASURES: tuple[str, ...] = (*(f"Success@{k}" for k in CUTOFFS), "RR@10")
_PAGE_MEASURES: tuple[str, ...] = tuple(f"Success@{k}" for k in CUTOFFS)


def questions_values(outcomes: Sequence[Outcome]) -> list[dict[str, float | None]]:
    """Every measure of each question (``page_*`` are None when a question has no gold pages, ``unit_*`` for flat
    rankings, ``ok@B`` for outcomes stored without budgets); the rank measures computed by ir_measures in one batch."""
    chunk = rank_values([o.first_hit for o in outcomes], _CHUNK_MEASURES)
    eligible = [i for i, o in enumerate(outcomes) if o.page_eligible]
    page_ranks = rank_values([outcomes[i].first_page_hit for i in eligible], _PAGE_MEASURES)
    page_at = dict(zip(eligible, page_ranks, strict=True))
    out = []
    for i, outcome in enumerate(outcomes):
        ranks = chunk[i]
        values: dict[str, float | None] = {"hit@1": ranks["Success@1"]}
        for k in CUTOFFS:
            values[f"Success@{k}"] = ranks[f"Success@{k}"]
        values["RR@10"] = ranks["RR@10"]
        values["ceiling"] = float(outcome.ceiling)
        for j, b in enumerate(BUDGETS):
            values[f"ok@{b}"] = None if outcome.ok is None else float(outcome.ok[j])
        pooled = outcome.unit_ceiling is not None
        fu = outcome.first_unit_hit
        values["unit_hit@1"] = success(fu, 1) if pooled else None
        values["unit_Success@10"] = success(fu, 10) if pooled else None
        values["unit_ceiling"] = float(bool(outcome.unit_ceiling)) if pooled else None
        for k in CUTOFFS:
            values[f"page_Success@{k}"] = page_at[i][f"Success@{k}"] if i in page_at else None
        out.append(values)
    return out


def question_values(outcome: Outcome) -> dict[str, float | None]:
    """Every measure of one question (:func:`questions_values` of one)."""
    return questions_values([outcome])[0]


def _mean(values: Sequence[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def _means(per_q: Sequence[dict[str, float | None]]) -> dict[str, float | None]:
    return {m: _mean([v[m] for v in per_q]) for m in MEASURES}


def mean_measures(outcomes: Sequence[Outcome]) -> dict[str, float | None]:
    """Mean of every measure over ``outcomes`` (None where no question has a value)."""
    return _means(questions_values(outcomes))


def aggregate(outcomes: Sequence[Outcome], qtypes: Sequence[str], doc_ids: Sequence[str]) -> dict[str, object]:
    """Overall means, means by question type, per-document means and their macro average over documents.

    Returns:
        ``{"n", "overall", "by_qtype": {qtype: {"n", **means}}, "by_doc": {doc_id: {"n", **means}},
        "macro_doc": means}``; types and documents in first-seen order.
    """
    if not (len(outcomes) == len(qtypes) == len(doc_ids)):
        raise ValueError(f"{len(outcomes)} outcomes, {len(qtypes)} qtypes and {len(doc_ids)} doc ids differ")
    per_q = questions_values(outcomes)
    by_type: dict[str, list[dict[str, float | None]]] = {}
    by_doc: dict[str, list[dict[str, float | None]]] = {}
    for v, t, d in zip(per_q, qtypes, doc_ids, strict=True):
        by_type.setdefault(t, []).append(v)
        by_doc.setdefault(d, []).append(v)
    doc_means = {d: {"n": len(vs), **_means(vs)} for d, vs in by_doc.items()}
    macro = {m: _mean([dm[m] for dm in doc_means.values()]) for m in MEASURES}
    return {
        "n": len(outcomes),
        "overall": _means(per_q),
        "by_qtype": {t: {"n": len(vs), **_means(vs)} for t, vs in by_type.items()},
        "by_doc": doc_means,
        "macro_doc": macro,
    }
