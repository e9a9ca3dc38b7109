"""The chunk size and overlap sweep: retrieval quality against storage and embedding cost, per chunker profile.

Two tasks, one procedure:

- ``boundary``: the Korean boundary corpus (:mod:`docling_evidence_bench.boundary_corpus`), fixed-size profiles only,
  one index over the whole corpus; a chunk is relevant only if it is of the right document and holds the whole
  evidence span (checked on code point offsets).
- ``tatqa``: TAT-QA documents (:func:`docling_evidence_bench.tatqa.load_tatqa`), fixed-size profiles over each
  document's Markdown export plus HybridChunker and EvidenceChunker at several ``max_tokens``; a chunk is relevant when
  it holds every gold answer string and, for table-text questions, the gold paragraphs (``normalize.contains_answer``).

Procedure (:func:`run_sweep`): chunk every arm once; count chunks, code points, duplicated code points and indexed
tokens; embed the queries once (shared by all arms); warm up; then ``rounds`` rounds, arm order rotated by one each
round, each embedding all chunks of each arm in batches of at most 64 texts (timed) and running every query as an
exact cosine search (timed per query). Every batch of vectors is checked (count equals inputs, the model's declared
dimension, all finite); a batch that raises or fails a check counts as a failed request and fails the arm. Quality
comes from the first measured round and is compared with every later round (``quality_stable``).

Run it as ``docling-evidence-bench sweep run`` or ``python -m docling_evidence_bench.sweep run``
(:mod:`docling_evidence_bench.sweep_cli`).
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from docling_evidence_bench.embed import Embedder

SCHEMA = "docling-evidence/sweep/v1"
"""Version tag of the results JSON."""

DEFAULT_PROFILES: tuple[tuple[int, int], ...] = (
    (400, 0),
    (400, 80),
    (800, 0),
    (800, 160),
    (1000, 0),
    (1000, 200),
    (1600, 0),
    (1600, 320),
)
"""Fixed-size (size, overlap) profiles in code points: each size without overlap and with the common 20 %."""

DEFAULT_REFERENCE = "fixed-1000-200"
"""The habit the study compares against (1000 characters, 200 overlap)."""

DEFAULT_MAX_TOKENS: tuple[int, ...] = (128, 256, 512, 1024)
"""``max_tokens`` of the HybridChunker and EvidenceChunker arms on TAT-QA."""

MAX_BATCH = 64
"""Texts per embedding request, at most."""

TOP_K = 10
"""Ranks kept per query: Hit@1, Hit@3 and MRR@10 need no more."""


@dataclass(frozen=True)
class SweepChunk:
    """One indexed text; ``start``/``end`` are code point offsets in the document's serialised text when known."""

    doc_id: str
    text: str
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True)
class SweepQuery:
    """One question of a task."""

    qid: str
    doc_id: str
    text: str
    qtype: str = ""


@dataclass
class SweepArm:
    """One chunker configuration: ``build()`` returns its chunks over the task's documents (reading order)."""

    name: str
    family: str
    """``fixed`` | ``hybrid`` | ``evidence``."""
    params: dict[str, int]
    build: Callable[[], list[SweepChunk]]


@dataclass
class SweepTask:
    """Documents, queries, the relevance rule and the arms of one sweep."""

    name: str
    queries: list[SweepQuery]
    relevant: Callable[[SweepQuery, SweepChunk], bool]
    arms: list[SweepArm]
    scope: str
    """``corpus``: one index over every document; ``doc``: each query searches its own document's chunks."""
    info: dict[str, Any]


# ---------------------------------------------------------------------------------------------------------- arms


def fixed_arm(texts: dict[str, str], size: int, overlap: int) -> SweepArm:
    """A ``fixed-SIZE-OVERLAP`` arm over serialised documents (``doc_id -> text``)."""
    from docling_evidence_bench.fixed_size import fixed_size_chunks, profile_name

    def build() -> list[SweepChunk]:
        return [
            SweepChunk(doc_id, c.text, c.start, c.end)
            for doc_id, text in texts.items()
            for c in fixed_size_chunks(text, size, overlap)
        ]

    profile_name(size, overlap)  # validates early
    return SweepArm(profile_name(size, overlap), "fixed", {"size": size, "overlap": overlap}, build)


def docling_arm(documents: dict[str, Any], family: str, max_tokens: int) -> SweepArm:
    """A HybridChunker (defaults, bundled tokenizer) or EvidenceChunker arm at ``max_tokens``.

    Indexed texts are ``chunker.contextualize(chunk)``, what a Docling pipeline embeds.
    """
    if family not in ("hybrid", "evidence"):
        raise ValueError(f"unknown chunker family {family!r}; expected 'hybrid' or 'evidence'")

    def build() -> list[SweepChunk]:
        if family == "hybrid":
            from docling_core.transforms.chunker.hybrid_chunker import HybridChunker

            from docling_evidence.tokenizer import bundled_tokenizer

            chunker: Any = HybridChunker(tokenizer=bundled_tokenizer(max_tokens))
        else:
            from docling_evidence import EvidenceChunker, bundled_tokenizer

            chunker = EvidenceChunker(tokenizer=bundled_tokenizer(max_tokens))
        return [
            SweepChunk(doc_id, chunker.contextualize(chunk))
            for doc_id, doc in documents.items()
            for chunk in chunker.chunk(doc)
        ]

    return SweepArm(f"{family}-{max_tokens}", family, {"max_tokens": max_tokens}, build)


# --------------------------------------------------------------------------------------------------------- tasks


def boundary_task(seed: int, profiles: Sequence[tuple[int, int]] = DEFAULT_PROFILES) -> SweepTask:
    """The Korean boundary corpus with the fixed-size profiles (corpus-wide index)."""
    import hashlib

    from docling_evidence_bench.boundary_corpus import build_boundary_corpus, holds_evidence

    corpus = build_boundary_corpus(seed=seed)
    cases = {c.case_id: c for c in corpus.cases}
    queries = [SweepQuery(c.case_id, c.doc_id, c.query, f"boundary-{c.boundary}") for c in corpus.cases]

    def relevant(q: SweepQuery, chunk: SweepChunk) -> bool:
        if chunk.start is None or chunk.end is None:
            case = cases[q.qid]
            return chunk.doc_id == case.doc_id and case.evidence in chunk.text
        return holds_evidence(cases[q.qid], chunk.doc_id, chunk.start, chunk.end)

    digest = hashlib.sha256("\x00".join(f"{k}\x01{v}" for k, v in corpus.documents.items()).encode()).hexdigest()
    info = {
        "seed": seed,
        "documents": len(corpus.documents),
        "boundaries": list(corpus.boundaries),
        "code_points": sum(len(t) for t in corpus.documents.values()),
        "corpus_sha256": digest,
        "cases": [
            {
                "qid": c.case_id,
                "doc_id": c.doc_id,
                "boundary": c.boundary,
                "evidence_start": c.evidence_start,
                "evidence_end": c.evidence_end,
                "query": c.query,
                "evidence": c.evidence,
            }
            for c in corpus.cases
        ],
    }
    arms = [fixed_arm(corpus.documents, s, o) for s, o in profiles]
    return SweepTask("boundary", queries, relevant, arms, "corpus", info)


def tatqa_hit(text: str, answers: Sequence[str], required: Sequence[str]) -> bool:
    """TAT-QA relevance: every answer string and every required paragraph occurs in ``text`` (normalised)."""
    from docling_evidence_bench.normalize import contains_all, contains_answer

    return contains_all(text, tuple(answers)) and all(contains_answer(text, r) for r in required)


def tatqa_task(
    path: Path,
    limit_contexts: int | None,
    contexts_per_doc: int = 10,
    profiles: Sequence[tuple[int, int]] = DEFAULT_PROFILES,
    max_tokens: Sequence[int] = DEFAULT_MAX_TOKENS,
    families: Sequence[str] = ("hybrid", "evidence"),
    scope: str = "doc",
) -> SweepTask:
    """TAT-QA: fixed-size profiles over Markdown exports, and the Docling chunkers at each ``max_tokens``."""
    from docling_evidence_bench.tatqa import load_tatqa

    ds = load_tatqa(path, contexts_per_doc=contexts_per_doc, limit_contexts=limit_contexts)
    if not ds.questions:
        raise ValueError(f"{path}: no question left to ask")
    items = {q.qid: q for q in ds.questions}
    queries = [SweepQuery(q.qid, q.doc_id, q.question, q.qtype) for q in ds.questions]

    def relevant(q: SweepQuery, chunk: SweepChunk) -> bool:
        item = items[q.qid]
        return chunk.doc_id == item.doc_id and tatqa_hit(chunk.text, item.answers, item.required_texts)

    markdown = {doc_id: doc.export_to_markdown() for doc_id, doc in ds.documents.items()}
    arms = [fixed_arm(markdown, s, o) for s, o in profiles]
    arms += [docling_arm(ds.documents, fam, n) for fam in families for n in max_tokens]
    info = {
        "path": str(path),
        "limit_contexts": limit_contexts,
        "contexts_per_doc": contexts_per_doc,
        "documents": len(ds.documents),
        "questions": len(ds.questions),
        "qtypes": ds.qtype_counts(),
        "markdown_code_points": sum(len(t) for t in markdown.values()),
        "loader_stats": dict(ds.stats),
    }
    return SweepTask("tatqa", queries, relevant, arms, scope, info)


# ------------------------------------------------------------------------------------------------------ measures


def quality_from_ranks(first_relevant: Sequence[int | None], covered: Sequence[bool]) -> dict[str, float]:
    """Coverage, Hit@1, Hit@3 and MRR@10 from each query's 1-based rank of its first relevant chunk (None: not in
    the top 10) and whether any chunk is relevant at all. Hit@k is ``Success@k``, MRR@10 the mean ``RR@10``
    (computed by ir_measures: :func:`docling_evidence_bench.measures.rank_values`)."""
    from docling_evidence_bench.measures import rank_values

    n = len(first_relevant)
    if n == 0:
        return {"coverage": math.nan, "hit@1": math.nan, "hit@3": math.nan, "mrr@10": math.nan}
    mrr = f"RR@{TOP_K}"
    values = rank_values(first_relevant, ("Success@1", "Success@3", mrr))
    return {
        "coverage": sum(covered) / n,
        "hit@1": sum(v["Success@1"] for v in values) / n,
        "hit@3": sum(v["Success@3"] for v in values) / n,
        "mrr@10": sum(v[mrr] for v in values) / n,
    }


def duplicate_accounting(chunks: Sequence[SweepChunk]) -> dict[str, Any]:
    """Duplicated code points: exact over offsets when every chunk has them, else repeated lines per document."""
    from docling_evidence_bench.fixed_size import duplicate_stats, line_duplicate_stats

    by_doc: dict[str, list[SweepChunk]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc_id, []).append(c)
    exact = all(c.start is not None and c.end is not None for c in chunks)
    total = unique = 0
    for doc_chunks in by_doc.values():
        if exact:
            st = duplicate_stats([(int(c.start), int(c.end)) for c in doc_chunks])  # type: ignore[arg-type]
        else:
            st = line_duplicate_stats([c.text for c in doc_chunks])
        total += st.total_code_points
        unique += st.unique_code_points
    dup = total - unique
    return {
        "total_code_points": total,
        "duplicated_code_points": dup,
        "duplicate_ratio": dup / total if total else 0.0,
        "duplicate_method": "exact-offsets" if exact else "repeated-lines",
    }


def _token_counts(texts: Sequence[str]) -> list[int]:
    """Tokens per text with the bundled all-MiniLM-L6-v2 tokenizer (no special tokens)."""
    from docling_evidence.tokenizer import bundled_tokenizer

    tok = bundled_tokenizer()
    out: list[int] = []
    for i in range(0, len(texts), 256):
        out.extend(tok.count_tokens_batch(texts[i : i + 256]))
    return out


def check_vectors(vecs: Any, n_inputs: int, dim: int) -> dict[str, Any]:
    """The three invariants of one embedding request, as data (never raises)."""
    import numpy as np

    arr = np.asarray(vecs)
    shape_ok = arr.ndim == 2
    return {
        "count_ok": bool(shape_ok and arr.shape[0] == n_inputs),
        "dim_ok": bool(shape_ok and arr.shape[1] == dim),
        "finite_ok": bool(np.isfinite(arr).all()) if arr.size else True,
    }


def embed_batched(
    embedder: Embedder, texts: Sequence[str], batch_size: int, kind: str, log: dict[str, Any]
) -> tuple[np.ndarray | None, list[float]]:
    """Embed ``texts`` in requests of at most ``batch_size``; returns (vectors or None on failure, seconds per
    request). ``log`` accumulates requests, failures, the invariant checks and the first error."""
    import numpy as np

    parts: list[np.ndarray] = []
    times: list[float] = []
    encode = embedder.encode_passages if kind == "passages" else embedder.encode_queries
    for i in range(0, len(texts), batch_size):
        batch = list(texts[i : i + batch_size])
        log["requests"] = log.get("requests", 0) + 1
        log["max_batch"] = max(log.get("max_batch", 0), len(batch))
        t0 = time.perf_counter()
        try:
            vecs = encode(batch)
        except Exception as exc:  # the engine's check_embeddings raises ValueError on a broken invariant
            log["failed_requests"] = log.get("failed_requests", 0) + 1
            log.setdefault("error", f"{type(exc).__name__}: {str(exc)[:300]}")
            return None, times
        times.append(time.perf_counter() - t0)
        checks = check_vectors(vecs, len(batch), embedder.dim)
        for key, ok in checks.items():
            log[key] = log.get(key, True) and ok
        if not all(checks.values()):
            log["failed_requests"] = log.get("failed_requests", 0) + 1
            log.setdefault("error", f"invariant failed: {checks}")
            return None, times
        log["vectors"] = log.get("vectors", 0) + len(batch)
        parts.append(np.asarray(vecs, dtype=np.float32))
    dim = embedder.dim
    return (np.concatenate(parts) if parts else np.zeros((0, dim), dtype=np.float32)), times


# --------------------------------------------------------------------------------------------------------- sweep


def _chunk_arms(
    task: SweepTask, max_seq: int, say: Callable[[str], None]
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """Step 1: chunk every arm once; static measures and relevance judgements (the qrels) do not depend on the round.

    Returns the arms' records (in task order) and, for each arm that chunked, its state: chunks, qrels per query
    (``relevant``: chunk positions of the query's document that hold its evidence), and the slots later steps fill.
    """
    arms: list[dict[str, Any]] = []
    state: dict[str, dict[str, Any]] = {}
    for arm in task.arms:
        rec: dict[str, Any] = {"name": arm.name, "family": arm.family, **arm.params, "status": "ok"}
        t0 = time.perf_counter()
        try:
            chunks = arm.build()
        except Exception as exc:
            rec.update(status="failed", error=f"chunking: {type(exc).__name__}: {str(exc)[:300]}")
            arms.append(rec)
            say(f"{task.name}: {arm.name} failed to chunk: {exc}")
            continue
        rec["chunking_seconds"] = time.perf_counter() - t0
        tokens = _token_counts([c.text for c in chunks])
        rec.update(chunks=len(chunks), indexed_tokens=sum(tokens), **duplicate_accounting(chunks))
        # The model sees at most max_seq_length tokens including [CLS] and [SEP].
        rec["truncated_chunks"] = sum(t + 2 > max_seq for t in tokens) if max_seq else None
        by_doc: dict[str, list[int]] = {}
        for i, c in enumerate(chunks):
            by_doc.setdefault(c.doc_id, []).append(i)
        rel = [{i for i in by_doc.get(q.doc_id, []) if task.relevant(q, chunks[i])} for q in task.queries]
        state[arm.name] = {
            "chunks": chunks,
            "relevant": rel,
            "embed": [],
            "requests": [],
            "search": [],
            "ranks": None,
            "log": {},
        }
        rec["covered"] = [bool(r) for r in rel]
        arms.append(rec)
        say(f"{task.name}: {arm.name}: {len(chunks)} chunks, {sum(tokens)} tokens")
    return arms, state


def _warm_up(
    task: SweepTask, embedder: Embedder, first: list[SweepChunk], qvec: np.ndarray | None, batch_size: int
) -> None:
    """Step 3, not recorded: one full-size embedding request (the first arm's first batch) and one search."""
    from docling_evidence_bench.retrieval import Retriever

    head = first[:batch_size]
    wvecs, _ = embed_batched(embedder, [c.text for c in head], batch_size, "passages", {})
    if wvecs is not None and task.queries and qvec is not None:
        retriever = Retriever([c.text for c in head], [c.doc_id for c in head], wvecs, scope=task.scope)  # type: ignore[arg-type]
        retriever.search("dense", task.queries[0].doc_id, "", qvec)


def _measured_round(
    task: SweepTask, embedder: Embedder, st: dict[str, Any], qvecs: np.ndarray, batch_size: int
) -> float | None:
    """Step 4, one arm in one round: embed its chunks (timed per request), run every query (timed), and record the
    run (first relevant rank per query). Returns the embedding seconds, or None when embedding failed."""
    from docling_evidence_bench.measures import first_relevant
    from docling_evidence_bench.retrieval import Retriever

    texts = [c.text for c in st["chunks"]]
    t0 = time.perf_counter()
    vecs, req_times = embed_batched(embedder, texts, batch_size, "passages", st["log"])
    elapsed = time.perf_counter() - t0
    sizes = (min(batch_size, len(texts) - i) for i in range(0, len(texts), batch_size))
    st["requests"].extend(zip(req_times, sizes, strict=False))
    if vecs is None:
        st["failed"] = True
        return None
    st["embed"].append(elapsed)
    retriever = Retriever(texts, [c.doc_id for c in st["chunks"]], vecs, scope=task.scope)  # type: ignore[arg-type]
    ranks: list[int | None] = []
    for qi, q in enumerate(task.queries):
        t1 = time.perf_counter()
        ranking = retriever.search("dense", q.doc_id, q.text, qvecs[qi])[:TOP_K]
        st["search"].append(time.perf_counter() - t1)
        ranks.append(first_relevant([int(i) for i in ranking], st["relevant"][qi], TOP_K))
    if st["ranks"] is None:
        st["ranks"] = ranks
    elif ranks != st["ranks"]:
        st["unstable"] = True
    return elapsed


def _aggregate_arm(rec: dict[str, Any], st: dict[str, Any], task: SweepTask, embedder: Embedder, bm25: bool) -> None:
    """Step 5: the arm's invariants, quality (from the measures module) and cost, written into ``rec``."""
    from docling_evidence_bench.stats import percentile

    log = st["log"]
    rec["failed_requests"] = log.get("failed_requests", 0)
    rec["invariants"] = {
        "requests": log.get("requests", 0),
        "max_batch": log.get("max_batch", 0),
        "vectors": log.get("vectors", 0),
        "inputs_per_round": rec["chunks"],
        "declared_dim": embedder.dim,
        "count_ok": log.get("count_ok", True),
        "dim_ok": log.get("dim_ok", True),
        "finite_ok": log.get("finite_ok", True),
    }
    if st.get("failed") or st["ranks"] is None:
        rec["status"] = "failed"
        rec["error"] = log.get("error", "no round completed")
        rec["quality"] = quality_from_ranks([], [])
        return
    rec["quality"] = quality_from_ranks(st["ranks"], rec["covered"])
    rec["first_relevant_rank"] = st["ranks"]
    rec["quality_stable"] = not st.get("unstable", False)
    emb = st["embed"]
    rec["embed_seconds"] = emb
    rec["embed_seconds_median"] = statistics.median(emb)
    rec["embed_seconds_p95"] = percentile(emb, 95)
    rec["embed_ms_per_chunk_median"] = 1000 * rec["embed_seconds_median"] / max(rec["chunks"], 1)
    # Per request (at most batch_size texts): milliseconds per text, over every request of every round.
    per_text = [1000 * t / n for t, n in st["requests"] if n]
    rec["request_ms_per_text_median"] = statistics.median(per_text)
    rec["request_ms_per_text_p95"] = percentile(per_text, 95)
    rec["search_ms_median"] = 1000 * statistics.median(st["search"])
    rec["search_ms_p95"] = 1000 * percentile(st["search"], 95)
    if bm25:
        rec["quality_bm25"] = _bm25_quality(task, st, rec["covered"])


def run_sweep(
    task: SweepTask,
    embedder: Embedder,
    rounds: int = 3,
    warmup: int = 1,
    batch_size: int = MAX_BATCH,
    bm25: bool = True,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run one task's sweep and return its results as JSON-ready data (see the module docstring).

    Steps: judge (:func:`_chunk_arms`: chunks and qrels), embed the queries once, warm up (:func:`_warm_up`),
    measured rounds with the arm order rotated (:func:`_measured_round`: timings and runs), aggregate
    (:func:`_aggregate_arm`: measures from the runs and qrels, cost).
    """
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds must be a positive integer, got {rounds!r}")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup must be a non-negative integer, got {warmup!r}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or not 1 <= batch_size <= MAX_BATCH:
        raise ValueError(f"batch_size must be an integer in [1, {MAX_BATCH}], got {batch_size!r}")
    say = progress or (lambda _msg: None)
    max_seq = int(getattr(embedder, "max_seq_length", 0) or 0)

    arms, state = _chunk_arms(task, max_seq, say)

    # 2. Query vectors, once, shared by every arm.
    qlog: dict[str, Any] = {}
    qvecs, _ = embed_batched(embedder, [q.text for q in task.queries], batch_size, "queries", qlog)
    if qvecs is None:
        raise RuntimeError(f"query embedding failed: {qlog.get('error')}")

    live = [a["name"] for a in arms if a["status"] == "ok"]
    for _ in range(warmup):
        if live:
            _warm_up(task, embedder, state[live[0]]["chunks"], qvecs[0] if len(qvecs) else None, batch_size)
        say(f"{task.name}: warm-up done")

    for r in range(rounds):
        order = live[r % len(live) :] + live[: r % len(live)] if live else []
        for name in order:
            if state[name].get("failed"):
                continue
            elapsed = _measured_round(task, embedder, state[name], qvecs, batch_size)
            if elapsed is not None:
                say(f"{task.name}: round {r + 1}/{rounds} {name}: {elapsed:.2f} s")

    for rec in arms:
        if rec["name"] in state:
            _aggregate_arm(rec, state[rec["name"]], task, embedder, bm25)

    return {
        "task": task.name,
        "scope": task.scope,
        "info": task.info,
        "queries": [{"qid": q.qid, "doc_id": q.doc_id, "qtype": q.qtype} for q in task.queries],
        "query_embedding": {
            "requests": qlog.get("requests", 0),
            "vectors": qlog.get("vectors", 0),
            "inputs": len(task.queries),
            "declared_dim": embedder.dim,
            "count_ok": qlog.get("count_ok", True),
            "dim_ok": qlog.get("dim_ok", True),
            "finite_ok": qlog.get("finite_ok", True),
            "failed_requests": qlog.get("failed_requests", 0),
        },
        "arms": arms,
        "errors": sum(a.get("failed_requests", 0) for a in arms) + qlog.get("failed_requests", 0),
    }


def _bm25_quality(task: SweepTask, st: dict[str, Any], covered: list[bool]) -> dict[str, float]:
    """Quality of the same chunks under BM25 (untimed): a lexical check that does not depend on the embedder."""
    from docling_evidence_bench.measures import first_relevant
    from docling_evidence_bench.retrieval import Retriever

    chunks = st["chunks"]
    retriever = Retriever([c.text for c in chunks], [c.doc_id for c in chunks], None, scope=task.scope)  # type: ignore[arg-type]
    ranks = [
        first_relevant([int(i) for i in retriever.search("bm25", q.doc_id, q.text)[:TOP_K]], st["relevant"][qi], TOP_K)
        for qi, q in enumerate(task.queries)
    ]
    return quality_from_ranks(ranks, covered)


def sweep_environment(embedder: Embedder) -> dict[str, Any]:
    """:func:`docling_evidence_bench.environment.environment` plus the embedder the sweep measured."""
    from docling_evidence_bench.environment import environment

    return {
        **environment(),
        "embedder": getattr(embedder, "name", type(embedder).__name__),
        "embedder_dim": embedder.dim,
        "embedder_max_seq_length": getattr(embedder, "max_seq_length", None),
        "dimension_check": "against the dimension the loaded model declares (BAAI/bge-m3, 1024, is not available "
        "offline here)",
    }


if __name__ == "__main__":
    from docling_evidence.cli.common import run_app
    from docling_evidence_bench.sweep_cli import sweep_app

    sys.exit(run_app(sweep_app, prog_name="python -m docling_evidence_bench.sweep"))
