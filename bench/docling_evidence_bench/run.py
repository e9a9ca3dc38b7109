"""Run the benchmark: arms x retrieval methods x scopes x rankings over a :class:`BenchDataset`.

Round 0 chunks, embeds, retrieves and judges every question; rounds 1.. repeat only the timed parts (passage
embedding and query search) with the arm order rotated, so each arm's timing sees every position. The results are
plain JSON: every per-question outcome, the cost of each arm, the configuration, the environment and the command.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from docling_evidence.integrations.maxpool import max_pool, reassemble
from docling_evidence.tokenizer import DEFAULT_MAX_TOKENS
from docling_evidence_bench.arms import (
    ARM_DESCRIPTIONS,
    BASELINE,
    RANKINGS,
    SAME_CHUNKS,
    ChunkRecord,
    build_arm,
    make_chunker,
)
from docling_evidence_bench.dataset import BenchDataset, QAItem
from docling_evidence_bench.embed import Embedder
from docling_evidence_bench.environment import environment
from docling_evidence_bench.measures import BUDGETS, DELIVERY, DEPTH, Outcome, delivered_within, is_hit, judge
from docling_evidence_bench.retrieval import METHODS, RRF_K, SCOPES, Retriever
from docling_evidence_bench.stats import percentile
from docling_evidence_bench.summary import summarize

RESULTS_SCHEMA: str = "docling-evidence-bench-results/2"
"""Version tag of the results JSON layout."""


@dataclass
class _ArmIndex:
    """One arm's records with the lookups retrieval and judging need."""

    name: str
    records: list[ChunkRecord]
    chunk_seconds: float
    offsets: dict[str, int] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    unit_of: list[str] = field(default_factory=list)
    target: list[int] = field(default_factory=list)
    unit_targets: dict[str, list[int]] = field(default_factory=dict)
    _unit_texts: dict[tuple[str, int | None], str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for g, r in enumerate(self.records):
            self.offsets.setdefault(r.doc_id, g)
            self.counts[r.doc_id] = self.counts.get(r.doc_id, 0) + 1
        for r in self.records:
            g_target = self.offsets[r.doc_id] + r.target
            self.unit_of.append(r.unit_id)
            self.target.append(g_target)
            targets = self.unit_targets.setdefault(r.unit_id, [])
            if g_target not in targets:
                targets.append(g_target)
        for targets in self.unit_targets.values():
            targets.sort()

    def doc_range(self, doc_id: str) -> range:
        start = self.offsets.get(doc_id, 0)
        return range(start, start + self.counts.get(doc_id, 0))

    def unit_text(self, unit: str, lead: int | None = None) -> str:
        """The unit re-assembled as ``MaxPoolRetriever(reassemble=True)`` returns it with ``piece_order=DELIVERY``
        (:func:`~docling_evidence.integrations.maxpool.reassemble`): ``lead`` is the record that ranked best (a global
        record index). When it is a view (a row or sentence vector pointing to a chunk), its text comes first; then
        the piece it belongs to (or ``lead`` itself), then the others in reading order, frame lines already shown
        dropped. ``lead=None``: every piece in reading order."""
        key = (unit, lead)
        text = self._unit_texts.get(key)
        if text is None:
            targets = self.unit_targets[unit]
            piece = None if lead is None else self.target[lead]
            matched = self.records[lead].embed_text if lead is not None and piece != lead else None
            _, text = reassemble(
                targets,
                part_of=targets.index,
                text_of=lambda g: self.records[g].embed_text,
                best=piece if piece in targets else None,
                matched=matched,
                piece_order=DELIVERY,
            )
            self._unit_texts[key] = text
        return text

    def unit_pages(self, unit: str) -> tuple[int, ...]:
        return tuple(sorted({p for g in self.unit_targets[unit] for p in self.records[g].page_span}))


class TokenEnds:
    """Character offsets where each token of a text ends, counted with the bundled tokenizer (cached per text).

    Every arm of this benchmark counts with the bundled all-MiniLM-L6-v2 tokenizer (``--max-tokens`` changes only the
    limit), so one tokenizer serves all budgets.
    """

    def __init__(self) -> None:
        from docling_evidence.tokenizer import bundled_tokenizer

        self._hf = bundled_tokenizer().get_tokenizer()  # a tokenizers.Tokenizer (truncation and padding off)
        self._cache: dict[str, list[int]] = {}

    def __call__(self, text: str) -> list[int]:
        ends = self._cache.get(text)
        if ends is None:
            enc = self._hf.encode(text, add_special_tokens=False)
            ends = [int(e) for _, e in enc.offsets]
            self._cache[text] = ends
        return ends


def usable_questions(dataset: BenchDataset) -> tuple[list[QAItem], int]:
    """Questions that can be judged (some answer or required text), and how many were skipped."""
    keep = [q for q in dataset.questions if q.answers or q.required_texts]
    return keep, len(dataset.questions) - len(keep)


def _timing(values: Sequence[float]) -> dict[str, Any]:
    return {
        "median": statistics.median(values) if values else None,
        "p95": percentile(values, 95) if values else None,
        "n": len(values),
    }


def index_cost(records: Sequence[ChunkRecord], max_seq_length: int | None = None) -> dict[str, Any]:
    """Index size of one arm counted with the bundled tokenizer.

    ``duplicated_token_ratio``: share of indexed tokens in lines (``\\n``-separated, whitespace-trimmed) already
    indexed earlier in the same document: repeated headings, context paragraphs copied into table units, repeated
    table headers, row vectors.
    """
    from docling_evidence.tokenizer import bundled_tokenizer

    tok = bundled_tokenizer()
    texts = [r.embed_text for r in records]
    tokens = tok.count_tokens_batch(texts)
    lines_per_rec = [[ln.strip() for ln in t.split("\n") if ln.strip()] for t in texts]
    flat_lines = [ln for lines in lines_per_rec for ln in lines]
    line_tokens = tok.count_tokens_batch(flat_lines)
    seen: set[tuple[str, str]] = set()
    dup = total_line = 0
    pos = 0
    for rec, lines in zip(records, lines_per_rec, strict=True):
        for ln in lines:
            n = line_tokens[pos]
            pos += 1
            total_line += n
            key = (rec.doc_id, ln)
            if key in seen:
                dup += n
            seen.add(key)
    cost: dict[str, Any] = {
        "chunks": sum(1 for r in records if r.target == r.index),
        "vectors": len(records),
        "units": len({r.unit_id for r in records}),
        "tokens_indexed": int(sum(tokens)),
        "mean_tokens": float(np.mean(tokens)) if tokens else 0.0,
        "max_tokens": int(max(tokens)) if tokens else 0,
        "duplicated_token_ratio": dup / total_line if total_line else 0.0,
    }
    if max_seq_length:
        cost["truncated_share"] = float(np.mean([t > max_seq_length for t in tokens])) if tokens else 0.0
    return cost


def _ok_flags(texts: Sequence[str], token_ends: TokenEnds, question: QAItem) -> tuple[bool, ...]:
    """``ok@B`` for every budget: deliver ``texts`` in order until B tokens are spent and judge what was delivered."""
    need = max(BUDGETS)
    items: list[str] = []
    ends: list[list[int]] = []
    spent = 0
    for text in texts:
        if spent >= need:
            break
        items.append(text)
        ends.append(token_ends(text))
        spent += len(ends[-1])
    return tuple(is_hit(delivered_within(items, ends, b), question) for b in BUDGETS)


def _judge_arm(
    arm: _ArmIndex,
    questions: Sequence[QAItem],
    rankings: dict[tuple[str, str], list[np.ndarray]],
    depth: int,
    token_ends: TokenEnds,
) -> dict[tuple[str, str, str], list[Outcome]]:
    """Outcomes of every (method, scope, ranking) for one arm.

    Both rankings are judged on the chunk that ranks. ``flat`` lists every vector's chunk (a row vector's table
    chunk) and delivers distinct chunks within a budget; ``maxpool`` lists each unit once at its best piece (its lower
    pieces removed), judges that piece, judges the whole re-assembled unit apart (``unit_*``), and delivers units as
    re-assembled text within a budget.
    """
    out: dict[tuple[str, str, str], list[Outcome]] = {}
    for qi, q in enumerate(questions):
        doc = arm.doc_range(q.doc_id)
        chunk_hit = {g: is_hit(arm.records[g].embed_text, q) for g in sorted({arm.target[g] for g in doc})}
        units = list(dict.fromkeys(arm.unit_of[g] for g in doc))
        unit_hit = {u: is_hit(arm.unit_text(u), q) for u in units}
        ceiling = any(chunk_hit.values())
        for (method, scope), per_q in rankings.items():
            ranked = [int(g) for g in per_q[qi]]
            flat_targets = [arm.target[g] for g in ranked]
            flat = judge(
                [chunk_hit.get(t, False) for t in flat_targets[:depth]],
                [arm.records[t].page_span for t in flat_targets[:depth]],
                ceiling,
                q.evidence_pages,
                depth,
                ok=_ok_flags([arm.records[t].embed_text for t in dict.fromkeys(flat_targets)], token_ends, q),
            )
            pooled = max_pool(ranked, unit_of=arm.unit_of.__getitem__)
            best = [arm.target[u.best] for u in pooled]
            unit_ids = [u.key for u in pooled]
            pool = judge(
                [chunk_hit.get(t, False) for t in best[:depth]],
                [arm.records[t].page_span for t in best[:depth]],
                ceiling,
                q.evidence_pages,
                depth,
                ranked_unit_hits=[unit_hit.get(u, False) for u in unit_ids[:depth]],
                unit_ceiling=any(unit_hit.values()),
                ok=_ok_flags([arm.unit_text(u.key, lead=u.best) for u in pooled], token_ends, q),
            )
            out.setdefault((method, scope, "flat"), []).append(flat)
            out.setdefault((method, scope, "maxpool"), []).append(pool)
    return out


def run_benchmark(
    dataset: BenchDataset,
    *,
    arms: Sequence[str],
    methods: Sequence[str] = ("bm25",),
    scopes: Sequence[str] = ("doc",),
    embedder: Embedder | None = None,
    rounds: int = 1,
    seed: int = 0,
    depth: int = DEPTH,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    command: Sequence[str] | None = None,
    log: Callable[[str], None] = lambda _msg: None,
) -> dict[str, Any]:
    """Run every arm and return the results document (see :data:`RESULTS_SCHEMA`).

    ``max_tokens`` is the chunk limit of the arms that follow it (``hybrid*`` without a fixed size and ``evidence*``,
    all with the bundled tokenizer), so one command measures the arms at 256 and another at 512.

    Raises:
        ValueError: on an empty dataset, an unknown method/scope, a dense/hybrid run without an embedder,
            ``rounds`` < 1 or ``max_tokens`` < 1.
    """
    questions, skipped = usable_questions(dataset)
    if not questions:
        raise ValueError(f"dataset {dataset.name!r} has no usable question")
    _check_settings(methods, scopes, rounds, max_tokens)
    needs_vectors = any(m != "bm25" for m in methods)
    if needs_vectors and embedder is None:
        raise ValueError("dense and hybrid retrieval need an embedder")
    arms = list(dict.fromkeys(arms))
    if BASELINE not in arms:
        arms.insert(0, BASELINE)
    indexes = _chunk_arms(dataset, arms, max_tokens, log)
    rounds_run = _Rounds(questions, methods, scopes, embedder if needs_vectors else None, depth, log)
    rounds_run.measure(indexes, arms, rounds)
    results: dict[str, Any] = {
        "schema": RESULTS_SCHEMA,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": list(command) if command is not None else list(sys.argv),
        "seed": seed,
        "environment": environment(),
        "config": {
            "arms": arms,
            "baseline": BASELINE,
            "methods": list(methods),
            "scopes": list(scopes),
            "rankings": list(RANKINGS),
            "depth": depth,
            "max_tokens": max_tokens,
            "budgets": list(BUDGETS),
            "delivery": DELIVERY,
            "rrf_k": RRF_K,
            "rounds": rounds,
            "embedder": rounds_run.embedder_doc(),
        },
        "dataset": _dataset_doc(dataset, questions, skipped),
        "questions": [
            {"qid": q.qid, "doc_id": q.doc_id, "qtype": q.qtype, "page_eligible": bool(q.evidence_pages)}
            for q in questions
        ],
        "arms": {arm: rounds_run.arm_doc(arm, indexes[arm]) for arm in arms},
        "runs": [
            rounds_run.run_doc(arm, m, s, ranking)
            for arm in arms
            for m in methods
            for s in scopes
            for ranking in RANKINGS
        ],
    }
    results["summary"] = summarize(results)
    return results


def _check_settings(methods: Sequence[str], scopes: Sequence[str], rounds: int, max_tokens: int) -> None:
    """ValueError naming the first unknown method or scope, a non-positive ``rounds`` or a bad ``max_tokens``."""
    for m in methods:
        if m not in METHODS:
            raise ValueError(f"unknown retrieval method {m!r}; expected some of {', '.join(METHODS)}")
    for s in scopes:
        if s not in SCOPES:
            raise ValueError(f"unknown scope {s!r}; expected some of {', '.join(SCOPES)}")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds must be a positive integer, got {rounds!r}")
    from docling_evidence.tokenizer import check_max_tokens

    check_max_tokens(max_tokens)


def _chunk_arms(
    dataset: BenchDataset, arms: Sequence[str], max_tokens: int, log: Callable[[str], None]
) -> dict[str, _ArmIndex]:
    """Each arm's indexed records; arms that index the same chunks (:data:`SAME_CHUNKS`) chunk once and share the
    chunking time."""
    indexes: dict[str, _ArmIndex] = {}
    chunk_cache: dict[str, dict[str, list[Any]]] = {}  # chunks by document of each distinct chunker, made once
    chunk_seconds: dict[str, float] = {}
    for arm in arms:
        chunker = make_chunker(arm, max_tokens)
        source = SAME_CHUNKS.get(arm, arm)
        reused = source in chunk_cache
        t0 = time.perf_counter()
        records = build_arm(arm, dataset.documents, chunker, chunk_cache.setdefault(source, {}))
        seconds = chunk_seconds[source] if reused else time.perf_counter() - t0
        chunk_seconds.setdefault(source, seconds)
        indexes[arm] = _ArmIndex(arm, records, seconds)
        log(f"chunked {arm}: {len(records)} vectors in {indexes[arm].chunk_seconds:.1f} s")
    return indexes


def _dataset_doc(dataset: BenchDataset, questions: Sequence[QAItem], skipped: int) -> dict[str, Any]:
    """The results document's ``dataset`` block."""
    return {
        "name": dataset.name,
        "n_documents": len(dataset.documents),
        "n_questions": len(questions),
        "skipped_questions": skipped,
        "qtype_counts": {
            t: sum(1 for q in questions if q.qtype == t) for t in dict.fromkeys(q.qtype for q in questions)
        },
        "loader_stats": dict(dataset.stats),
    }


class _Rounds:
    """The measured rounds of one run: embedding and query times of every round, outcomes of the first."""

    def __init__(
        self,
        questions: list[QAItem],
        methods: Sequence[str],
        scopes: Sequence[str],
        embedder: Embedder | None,
        depth: int,
        log: Callable[[str], None],
    ) -> None:
        self.questions = questions
        self.methods = methods
        self.scopes = scopes
        self.embedder = embedder
        """The embedder when a method needs vectors, else None."""
        self.depth = depth
        self.log = log
        self.q_texts = [q.question for q in questions]
        self.q_vecs: np.ndarray | None = None
        self.query_encode_s: list[float] = []
        self.embed_s: dict[str, list[float]] = {}
        self.query_ms: dict[tuple[str, str, str], list[float]] = {}
        self.bm25_build_s: dict[tuple[str, str], list[float]] = {}
        self.outcomes: dict[tuple[str, str, str, str], list[Outcome]] = {}
        self.token_ends = TokenEnds()

    def measure(self, indexes: dict[str, _ArmIndex], arms: list[str], rounds: int) -> None:
        """``rounds`` rounds over every arm, the arm order rotated by one each round (after a warm-up)."""
        self.embed_s = {a: [] for a in arms}
        if self.embedder is not None:
            self.embedder.encode_passages([r.embed_text for r in indexes[arms[0]].records[:16]])  # warm-up
            self.embedder.encode_queries(self.q_texts[:16])
        for r in range(rounds):
            embedded: dict[str, tuple[list[str], np.ndarray]] = {}
            order = arms[r % len(arms) :] + arms[: r % len(arms)]
            if self.embedder is not None:
                t0 = time.perf_counter()
                vecs = self.embedder.encode_queries(self.q_texts)
                self.query_encode_s.append(time.perf_counter() - t0)
                if self.q_vecs is None:
                    self.q_vecs = vecs
            for arm in order:
                rankings = self._rank(arm, indexes[arm], embedded)
                if r == 0:
                    judged = _judge_arm(indexes[arm], self.questions, rankings, self.depth, self.token_ends)
                    for (method, scope, ranking), outs in judged.items():
                        self.outcomes[(arm, method, scope, ranking)] = outs
                self.log(f"round {r + 1}/{rounds}: {arm} done")

    def _vectors(self, arm: str, texts: list[str], embedded: dict[str, tuple[list[str], np.ndarray]]) -> Any:
        """The arm's passage vectors (timed); an arm indexing exactly the texts of one embedded before in this round
        (e.g. ``hybrid-pooled`` and ``hybrid``) gets its vectors and its cost."""
        if self.embedder is None:
            return None
        same = next((a for a in embedded if embedded[a][0] == texts), None)
        if same is not None:
            self.embed_s[arm].append(self.embed_s[same][-1])
            return embedded[same][1]
        t0 = time.perf_counter()
        vectors = self.embedder.encode_passages(texts)
        self.embed_s[arm].append(time.perf_counter() - t0)
        embedded[arm] = (texts, vectors)
        return vectors

    def _rank(
        self, arm: str, index: _ArmIndex, embedded: dict[str, tuple[list[str], np.ndarray]]
    ) -> dict[tuple[str, str], list[np.ndarray]]:
        """Every question's ranking by each method and scope over one arm's index (each search timed)."""
        texts = [rec.embed_text for rec in index.records]
        vectors = self._vectors(arm, texts, embedded)
        doc_ids = [rec.doc_id for rec in index.records]
        rankings: dict[tuple[str, str], list[np.ndarray]] = {}
        for scope in self.scopes:
            retriever = Retriever(texts, doc_ids, vectors, scope=scope)  # type: ignore[arg-type]
            if any(m != "dense" for m in self.methods):
                t0 = time.perf_counter()
                retriever.build_bm25()
                self.bm25_build_s.setdefault((arm, scope), []).append(time.perf_counter() - t0)
            for method in self.methods:
                times = self.query_ms.setdefault((arm, method, scope), [])
                ranked_all: list[np.ndarray] = []
                for qi, q in enumerate(self.questions):
                    qv = None if self.q_vecs is None else self.q_vecs[qi]
                    t0 = time.perf_counter()
                    ranked = retriever.search(method, q.doc_id, q.question, qv)  # type: ignore[arg-type]
                    times.append((time.perf_counter() - t0) * 1000)
                    ranked_all.append(ranked)
                rankings[(method, scope)] = ranked_all
        return rankings

    def arm_doc(self, arm: str, index: _ArmIndex) -> dict[str, Any]:
        """The results document's entry of one arm: its description and its cost."""
        needs_vectors = self.embedder is not None
        cost = index_cost(index.records, getattr(self.embedder, "max_seq_length", None) if needs_vectors else None)
        cost["chunk_seconds"] = index.chunk_seconds
        cost["embed_seconds"] = _timing(self.embed_s[arm]) if needs_vectors else None
        cost["bm25_index_seconds"] = {
            scope: _timing(self.bm25_build_s[(arm, scope)])
            for scope in self.scopes
            if (arm, scope) in self.bm25_build_s
        }
        cost["query_ms"] = {f"{m}/{s}": _timing(self.query_ms[(arm, m, s)]) for m in self.methods for s in self.scopes}
        return {"description": ARM_DESCRIPTIONS[arm], "cost": cost}

    def run_doc(self, arm: str, method: str, scope: str, ranking: str) -> dict[str, Any]:
        """The results document's entry of one run: each question's outcome, field by field."""
        outs = self.outcomes[(arm, method, scope, ranking)]
        return {
            "arm": arm,
            "method": method,
            "scope": scope,
            "ranking": ranking,
            "first_hit": [o.first_hit for o in outs],
            "first_page_hit": [o.first_page_hit for o in outs],
            "ceiling": [o.ceiling for o in outs],
            "first_unit_hit": [o.first_unit_hit for o in outs],
            "unit_ceiling": [o.unit_ceiling for o in outs],
            "ok": ["".join("1" if x else "0" for x in (o.ok or ())) for o in outs],
        }

    def embedder_doc(self) -> dict[str, Any] | None:
        """The results document's ``config["embedder"]`` (None without vectors)."""
        if self.embedder is None:
            return None
        return {
            "name": self.embedder.name,
            "dim": self.embedder.dim,
            "max_seq_length": getattr(self.embedder, "max_seq_length", None),
            "query_prefix": getattr(self.embedder, "query_prefix", ""),
            "passage_prefix": getattr(self.embedder, "passage_prefix", ""),
            "query_encode_ms_per_question": _timing([s * 1000 / len(self.q_texts) for s in self.query_encode_s]),
        }


def write_json_atomic(path: str | Path, obj: Any) -> Path:
    """Write ``obj`` as compact JSON to ``path`` atomically (:func:`docling_evidence.cli.safe_write.write_json`)."""
    from docling_evidence.cli.safe_write import write_json

    return write_json(path, obj, compact=True, parents=True)
