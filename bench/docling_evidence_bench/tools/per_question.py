"""Per-question diagnosis on TAT-QA: where EvidenceChunker (and variants of it) lose or win against HybridChunker.

The diagnosis behind the benchmark targets' design choices and rejected alternatives (docs/benchmark.md) compared
arms on the first 150 TAT-QA dev contexts question by question. This script makes that comparison reproducible:

- chunk-level hit@1 per answer type for ``hybrid`` and each EvidenceChunker variant (max-pooled by ``unit_id``,
  judged on the chunk that ranks, as ``docling-evidence-bench run``);
- for the table-only questions that ``hybrid`` answers and a variant misses, what the variant ranked first: a text
  chunk, another unit, or another piece of a unit that holds the answer;
- with dense retrieval, the question's mean cosine to the variant's top chunk, to HybridChunker's winning chunk and
  to the variant's own chunk that would have been a hit (how far the right chunk's embedding is from the question).

A variant is ``name=kw=value;kw=value`` with EvidenceChunker keyword arguments as Python literals, e.g.
``triplets=table_format='triplets'`` or ``nocontext=with_context=False``. Run from the repository root::

    HF_HUB_OFFLINE=1 python -m docling_evidence_bench.tools.per_question --contexts 150 --limit 256 \\
        --variant triplets=table_format='triplets' -o /tmp/per_question_256.json

Needs the ``bench`` extra (sentence-transformers for dense retrieval; ``--method bm25`` does not load a model).
When ``../shared/data/tatqa`` is absent it prints a message and exits 0.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from docling_evidence_bench.paths import REPO

DEFAULT_TATQA = REPO.parent / "shared" / "data" / "tatqa" / "tatqa_dataset_dev.json"
TYPES = ("table", "text", "table-text")


def parse_variant(spec: str) -> tuple[str, dict[str, Any]]:
    """``name=kw=value;kw=value`` -> (name, kwargs); values are Python literals."""
    name, sep, rest = spec.partition("=")
    if not sep or not name:
        raise ValueError(f"variant {spec!r}: expected name=kw=value;kw=value")
    kwargs: dict[str, Any] = {}
    for part in filter(None, rest.split(";")):
        key, eq, value = part.partition("=")
        if not eq:
            raise ValueError(f"variant {spec!r}: {part!r} is not kw=value")
        kwargs[key.strip()] = ast.literal_eval(value.strip())
    return name, kwargs


def ranked_units(records: list[Any], retriever: Any, method: str, question: Any, qvec: Any) -> list[int]:
    """Global positions of the question's ranking, max-pooled: the first (best) piece of each unit."""
    seen: set[str] = set()
    out: list[int] = []
    for g in retriever.search(method, question.doc_id, question.question, qvec):
        unit = records[int(g)].unit_id
        if unit not in seen:
            seen.add(unit)
            out.append(int(g))
    return out


def run(tatqa: Path, contexts: int, limit: int, method: str, variants: list[tuple[str, dict[str, Any]]]) -> dict:
    from docling_evidence_bench.arms import build_arm, make_chunker
    from docling_evidence_bench.embed import load_embedder
    from docling_evidence_bench.measures import is_hit
    from docling_evidence_bench.retrieval import Retriever
    from docling_evidence_bench.run import usable_questions
    from docling_evidence_bench.tatqa import load_tatqa

    from docling_evidence import EvidenceChunker
    from docling_evidence.tokenizer import bundled_tokenizer

    dataset = load_tatqa(tatqa, limit_contexts=contexts)
    questions, _ = usable_questions(dataset)
    embedder = load_embedder(None) if method == "dense" else None
    qvecs = embedder.encode_queries([q.question for q in questions]) if embedder else None
    arms: dict[str, Any] = {"hybrid": make_chunker("hybrid", limit)}
    for name, kwargs in variants:
        arms[name] = EvidenceChunker(tokenizer=bundled_tokenizer(limit), **kwargs)
    outcome: dict[str, Any] = {}
    for name, chunker in arms.items():
        records = build_arm("hybrid" if name == "hybrid" else "evidence", dataset.documents, chunker)
        texts = [r.embed_text for r in records]
        vecs = embedder.encode_passages(texts) if embedder else None
        retriever = Retriever(texts, [r.doc_id for r in records], vecs)
        per_q = []
        for i, q in enumerate(questions):
            pooled = ranked_units(records, retriever, method, q, None if qvecs is None else qvecs[i])
            top = pooled[0] if pooled else None
            hits = [g for g in range(len(records)) if records[g].doc_id == q.doc_id and is_hit(texts[g], q)]
            per_q.append(
                {
                    "qid": q.qid,
                    "type": q.qtype,
                    "hit1": top is not None and is_hit(texts[top], q),
                    "top_kind": records[top].kind if top is not None else None,
                    "top_unit_holds_answer": top is not None
                    and any(records[g].unit_id == records[top].unit_id for g in hits),
                    "top": top,
                    "a_hit": hits[0] if hits else None,
                }
            )
        outcome[name] = {"questions": per_q, "texts": texts, "vecs": vecs}
    report: dict[str, Any] = {
        "config": {"contexts": contexts, "limit": limit, "method": method, "variants": dict(variants)},
        "hit1": {},
        "losses": {},
    }
    for name, arm in outcome.items():
        report["hit1"][name] = {
            t: round(100 * sum(x["hit1"] for x in arm["questions"] if x["type"] == t) / n, 1)
            for t in TYPES
            if (n := sum(1 for x in arm["questions"] if x["type"] == t))
        }
    base = outcome["hybrid"]
    for name in list(outcome)[1:]:
        arm = outcome[name]
        kinds: Counter[str] = Counter()
        cosines: list[tuple[float, float, float]] = []
        wins = 0
        for i, (h, e) in enumerate(zip(base["questions"], arm["questions"], strict=True)):
            if h["type"] != "table":
                continue
            wins += e["hit1"] and not h["hit1"]
            if not (h["hit1"] and not e["hit1"]):
                continue
            if e["top_kind"] == "text":
                kinds["a text chunk"] += 1
            elif e["top_unit_holds_answer"]:
                kinds["another piece of a unit holding the answer"] += 1
            else:
                kinds["another unit"] += 1
            if qvecs is not None and e["a_hit"] is not None:
                q = qvecs[i]
                cosines.append(
                    (
                        float(arm["vecs"][e["top"]] @ q),
                        float(base["vecs"][h["top"]] @ q),
                        float(arm["vecs"][e["a_hit"]] @ q),
                    )
                )
        entry: dict[str, Any] = {"table_losses": dict(kinds), "table_wins": wins}
        if cosines:
            n = len(cosines)
            entry["mean_cosine"] = {
                "n": n,
                "variant_top": round(sum(c[0] for c in cosines) / n, 3),
                "hybrid_winner": round(sum(c[1] for c in cosines) / n, 3),
                "variant_chunk_that_would_hit": round(sum(c[2] for c in cosines) / n, 3),
            }
        report["losses"][name] = entry
    report["per_question"] = {name: arm["questions"] for name, arm in outcome.items()}
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tatqa", type=Path, default=DEFAULT_TATQA, help="TAT-QA JSON file")
    parser.add_argument("--contexts", type=int, default=150, help="first N contexts [150]")
    parser.add_argument("--limit", type=int, default=256, help="chunk limit in tokens [256]")
    parser.add_argument("--method", choices=("dense", "bm25"), default="dense")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="EvidenceChunker variant name=kw=value;... (repeatable; the default 'evidence=' is always run first)",
    )
    parser.add_argument("-o", "--output", type=Path, help="write the report (with per-question outcomes) as JSON")
    args = parser.parse_args(argv)
    if not args.tatqa.is_file():
        print(f"{args.tatqa} not found: nothing to measure", file=sys.stderr)
        return 0
    try:
        variants = [("evidence", {}), *(parse_variant(v) for v in args.variant)]
    except (ValueError, SyntaxError) as exc:
        parser.error(str(exc))
    report = run(args.tatqa, args.contexts, args.limit, args.method, variants)
    summary = {k: v for k, v in report.items() if k != "per_question"}
    print(json.dumps(summary, indent=2))
    if args.output:
        from docling_evidence.cli.safe_write import write_json

        write_json(args.output, report, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
