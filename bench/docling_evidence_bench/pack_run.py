"""Run ``pack@B`` and the drop-in measures over a :class:`BenchDataset` at one chunk limit.

Each arm is chunked, indexed and ranked exactly as ``bench run`` does (:mod:`docling_evidence_bench.run`), and judged
twice per question. Drop-in, without the packer: ``hit@1``, ``Success@5`` and ``ok@B`` of both rankings ``bench run``
judges, ``maxpool`` (each unit once at its best piece, as ``MaxPoolRetriever`` shows them) and ``flat`` (every
vector's chunk, as a plain vector store returns them). Packed (``pack@B``, :mod:`docling_evidence_bench.packed`): the
ranking's first chunks handed to one ``EvidenceChunker.pack`` (the evidence arm's chunker at the run's limit) with
each scorer, alone (input ``ranked``) and followed by the other pieces of their units (input ``ranked+units``,
 ``EvidenceChunker.pack(..., pieces=)``; HybridChunker's chunks grouped by the table they hold, the same rule for
both arms); or, input ``retriever``, what ``MaxPoolRetriever(k=depth, fetch_k=5 * depth, budget=B)`` hands it: the
first ``depth`` units of the ranking pooled by unit (for HybridChunker every chunk is a unit), their other pieces,
and the hints of the views among the fetched candidates (the library's own pooling and hint functions). The results
are plain JSON holding every per-question flag, so the report recomputes every number.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

import numpy as np

from docling_evidence_bench.arms import ARM_DESCRIPTIONS, SAME_CHUNKS, build_arm, make_chunker
from docling_evidence_bench.dataset import BenchDataset, QAItem
from docling_evidence_bench.environment import environment
from docling_evidence_bench.measures import BUDGETS, DEPTH, Outcome, rank_values
from docling_evidence_bench.packed import (
    PACK_BUDGETS,
    PACK_DEPTH,
    CosineScorer,
    pack_flags,
    ranked_chunk_ids,
    retriever_input,
)
from docling_evidence_bench.retrieval import METHODS, Retriever
from docling_evidence_bench.run import TokenEnds, _ArmIndex, _judge_arm, usable_questions

PACK_SCHEMA: str = "docling-evidence-pack-results/1"
"""Version tag of the pack results JSON layout."""

PACK_ARMS: tuple[str, ...] = ("hybrid", "evidence")
"""The control (HybridChunker's chunks through the packer) first, then ours."""

PACK_INPUTS: tuple[str, ...] = ("ranked", "ranked+units", "retriever")
"""What the packer is given: the ranking's first chunks, those followed by their units' other pieces, or what
``MaxPoolRetriever(budget=B)`` gives it (the first units' chunks, their other pieces and the views' hints)."""

SCORERS: tuple[str, ...] = ("lexical", "cosine")
"""``lexical``: the packer's default scorer; ``cosine``: the run's embedder."""

DROP_IN: tuple[str, ...] = ("hit@1", "Success@5", *(f"ok@{b}" for b in BUDGETS))
"""The drop-in measures (no packer), read from each ranking's outcomes."""

DROP_IN_RANKINGS: tuple[str, ...] = ("maxpool", "flat")
"""The rankings the drop-in measures are judged on (:func:`docling_evidence_bench.run._judge_arm`): ``maxpool`` first,
the one ``packing_gain`` compares with, since it delivers units as the packer does."""


def _flags(values: Sequence[bool]) -> str:
    return "".join("1" if v else "0" for v in values)


def drop_in_flags(outcomes: Sequence[Outcome]) -> dict[str, str]:
    """The drop-in measures of each question as flag strings (one character per question)."""
    ranks = rank_values([o.first_hit for o in outcomes], ("Success@1", "Success@5"))
    out = {
        "hit@1": _flags([v["Success@1"] > 0 for v in ranks]),
        "Success@5": _flags([v["Success@5"] > 0 for v in ranks]),
    }
    for j, b in enumerate(BUDGETS):
        out[f"ok@{b}"] = _flags([bool(o.ok and o.ok[j]) for o in outcomes])
    return out


def _index_arms(
    dataset: BenchDataset, arms: Sequence[str], max_tokens: int, log: Callable[[str], None]
) -> tuple[dict[str, _ArmIndex], dict[str, dict[str, list[Any]]]]:
    indexes: dict[str, _ArmIndex] = {}
    chunks: dict[str, dict[str, list[Any]]] = {}
    for arm in arms:
        chunker = make_chunker(arm, max_tokens)
        source = SAME_CHUNKS.get(arm, arm)
        t0 = time.perf_counter()
        records = build_arm(arm, dataset.documents, chunker, chunks.setdefault(source, {}))
        indexes[arm] = _ArmIndex(arm, records, time.perf_counter() - t0)
        log(f"chunked {arm}: {len(records)} vectors in {indexes[arm].chunk_seconds:.1f} s")
    return indexes, chunks


def _rankings(
    index: _ArmIndex,
    questions: Sequence[QAItem],
    methods: Sequence[str],
    vectors: np.ndarray | None,
    q_vecs: np.ndarray | None,
) -> dict[tuple[str, str], list[np.ndarray]]:
    texts = [r.embed_text for r in index.records]
    retriever = Retriever(texts, [r.doc_id for r in index.records], vectors, scope="doc")
    out: dict[tuple[str, str], list[np.ndarray]] = {}
    for method in methods:
        out[(method, "doc")] = [
            retriever.search(method, q.doc_id, q.question, None if q_vecs is None else q_vecs[qi])  # type: ignore[arg-type]
            for qi, q in enumerate(questions)
        ]
    return out


def _pack_arm(
    index: _ArmIndex,
    chunks_of: dict[str, list[Any]],
    questions: Sequence[QAItem],
    ranking: list[np.ndarray],
    packer: Any,
    scorer: Any,
    budgets: Sequence[int],
    depth: int,
    pack_input: str,
) -> dict[str, Any]:
    from docling_evidence.pack.scoring import hinted_scorer

    count = packer.tokenizer.count_tokens
    texts = [r.embed_text for r in index.records]
    flags: list[list[bool]] = []
    tokens: list[list[int]] = []
    for qi, q in enumerate(questions):
        offset = index.offsets[q.doc_id]
        used = scorer
        if pack_input == "retriever":
            ids, hints = retriever_input(ranking[qi], index.target, index.unit_of, texts, depth)
            used = hinted_scorer(hints, scorer) if hints else scorer
        else:
            ids = ranked_chunk_ids([index.target[int(g)] for g in ranking[qi]], depth)
        chunks = [chunks_of[q.doc_id][g - offset] for g in ids]
        pieces = chunks_of[q.doc_id] if pack_input != "ranked" else None
        f, t = pack_flags(packer.pack, count, q, chunks, budgets, used, pieces=pieces)
        flags.append(f)
        tokens.append(t)
    return {
        "measures": {f"pack@{b}": _flags([f[j] for f in flags]) for j, b in enumerate(budgets)},
        "tokens": {f"pack@{b}": [t[j] for t in tokens] for j, b in enumerate(budgets)},
        "over_budget": {f"pack@{b}": sum(1 for t in tokens if t[j] > b) for j, b in enumerate(budgets)},
    }


def packer_digest() -> str:
    """A digest of the packer's source (``docling_evidence/pack/*.py`` and ``chunker.py``), so a results file names
    the packer it measured even when that code was not committed yet."""
    import hashlib
    from pathlib import Path

    import docling_evidence

    root = Path(docling_evidence.__file__).resolve().parent
    digest = hashlib.blake2b(digest_size=8)
    for path in [*sorted((root / "pack").glob("*.py")), root / "chunker.py"]:
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def run_pack_benchmark(
    dataset: BenchDataset,
    *,
    max_tokens: int,
    arms: Sequence[str] = PACK_ARMS,
    methods: Sequence[str] = ("dense", "bm25"),
    embedder: Any = None,
    scorers: Sequence[str] = SCORERS,
    inputs: Sequence[str] = PACK_INPUTS,
    depth: int = PACK_DEPTH,
    budgets: Sequence[int] = PACK_BUDGETS,
    seed: int = 0,
    command: Sequence[str] | None = None,
    log: Callable[[str], None] = lambda _msg: None,
) -> dict[str, Any]:
    """Drop-in and packed outcomes of every arm, method and scorer at the chunk limit ``max_tokens``.

    Raises:
        ValueError: on no usable question, an unknown method or scorer, dense retrieval or the cosine scorer without
            an embedder, or ``depth`` < 1.
    """
    questions, skipped = usable_questions(dataset)
    if not questions:
        raise ValueError(f"dataset {dataset.name!r} has no usable question")
    bad = [m for m in methods if m not in METHODS] + [s for s in scorers if s not in SCORERS]
    bad += [i for i in inputs if i not in PACK_INPUTS] + ([] if inputs else ["(no input)"])
    if bad:
        raise ValueError(
            f"unknown method, scorer or input {bad[0]!r}; methods: {', '.join(METHODS)}; scorers: "
            f"{', '.join(SCORERS)}; inputs: {', '.join(PACK_INPUTS)}"
        )
    if embedder is None and (any(m != "bm25" for m in methods) or "cosine" in scorers):
        raise ValueError("dense retrieval and the cosine scorer need an embedder")
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise ValueError(f"depth must be a positive integer, got {depth!r}")
    arms = list(dict.fromkeys(arms))
    digest = packer_digest()  # the code this process imports now, before any later edit of the checkout
    env = environment()  # the commit checked out now, when the code is imported, not when the run ends
    indexes, chunks = _index_arms(dataset, arms, max_tokens, log)
    packer = make_chunker("evidence", max_tokens)
    q_texts = [q.question for q in questions]
    q_vecs = None if embedder is None else embedder.encode_queries(q_texts)
    cosine = None
    if "cosine" in scorers:
        cosine = CosineScorer(embedder)
        cosine.add_queries(q_texts, q_vecs)  # type: ignore[arg-type]
    token_ends = TokenEnds()
    runs: list[dict[str, Any]] = []
    for arm in arms:
        index = indexes[arm]
        vectors = None
        if any(m != "bm25" for m in methods):
            t0 = time.perf_counter()
            vectors = embedder.encode_passages([r.embed_text for r in index.records])
            log(f"embedded {arm}: {len(index.records)} vectors in {time.perf_counter() - t0:.1f} s")
        rankings = _rankings(index, questions, methods, vectors, q_vecs)
        outcomes = _judge_arm(index, questions, rankings, DEPTH, token_ends)
        chunks_of = chunks[SAME_CHUNKS.get(arm, arm)]
        for method in methods:
            for how in DROP_IN_RANKINGS:
                runs.append({"arm": arm, "method": method, "kind": "drop-in", "ranking": how, "scorer": None,
                             "measures": drop_in_flags(outcomes[(method, "doc", how)])})  # fmt: skip
            for pack_input in inputs:
                for name in scorers:
                    t0 = time.perf_counter()
                    scorer = cosine if name == "cosine" else None
                    ranking = rankings[(method, "doc")]
                    packed = _pack_arm(index, chunks_of, questions, ranking, packer, scorer, budgets, depth, pack_input)
                    seconds = time.perf_counter() - t0
                    runs.append({"arm": arm, "method": method, "kind": "pack", "scorer": name, "input": pack_input,
                                 **packed, "seconds": seconds})  # fmt: skip
                    log(f"packed {arm} {method} {pack_input} {name}: {seconds:.1f} s")
    if hasattr(embedder, "flush"):
        embedder.flush()  # a cached embedder's new vectors (the cosine scorer's rows and sentences) to disk
    return {
        "schema": PACK_SCHEMA,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": list(command) if command is not None else list(sys.argv),
        "seed": seed,
        "environment": env,
        "config": {
            "arms": arms,
            "arm_descriptions": {a: ARM_DESCRIPTIONS[a] for a in arms},
            "baseline": arms[0],
            "methods": list(methods),
            "max_tokens": max_tokens,
            "budgets": list(budgets),
            "drop_in_budgets": list(BUDGETS),
            "drop_in_rankings": list(DROP_IN_RANKINGS),
            "depth": depth,
            "scorers": list(scorers),
            "inputs": list(inputs),
            "embedder": None if embedder is None else embedder.name,
            "packer_digest": digest,
        },
        "dataset": {
            "name": dataset.name,
            "n_documents": len(dataset.documents),
            "n_questions": len(questions),
            "skipped_questions": skipped,
        },
        "questions": [{"qid": q.qid, "doc_id": q.doc_id, "qtype": q.qtype} for q in questions],
        "runs": runs,
    }
