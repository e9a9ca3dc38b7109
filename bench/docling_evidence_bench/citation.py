"""Citation benchmark: how well the deterministic check (:mod:`docling_evidence.cite.check`) cites gold evidence.

For every question of a :class:`~docling_evidence_bench.dataset.BenchDataset` (TAT-QA), the gold answer strings stand
in for an LLM's answer (one per line; for arithmetic questions the loader's gold strings are the numbers of the
derivation, i.e. what the answer must cite). The cited set is the top-``k`` chunks that BM25 retrieves for the
question within its document (flat ranking, every chunk on its own, the same ``k`` for every arm), from the arm's
chunker; the ``document`` arm cites the whole document (no retrieval: the matcher alone).

Measures (micro-averaged over questions; evidence at the granularity of TAT-QA's gold, i.e. doc items: the table,
the paragraphs):

- ``precision``: cited evidence items (the refs of all evidence of the supported claims) that are gold items;
- ``recall``: gold items cited by at least one supported claim;
- ``verified``: answers whose every claim is supported; ``claims_supported``: claims supported;
- perturbation: the answer with the last digit of its first number changed (``d -> d+1``, ``9 -> 8``) must not
  verify; ``false_verification`` = perturbed answers that still verify / answers whose original verified. A perturbed
  number that verifies to the very table cell it was copied from, when that cell holds one number, would be a bug
  (``false_to_original``, must be 0; a paragraph or a header cell "2019 vs 2018" may hold both numbers); one that
  verifies elsewhere (the changed value, e.g. the other year, is also in the cited chunks) is a limit of exact
  matching.

```bash
python -m docling_evidence_bench.citation --tatqa ../shared/data/tatqa/tatqa_dataset_dev.json -k 3 \\
    -o docs/results/citation/tatqa-dev.json
```
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from docling_evidence.cite import CitationReport, CitedChunk, DocumentSources, check_answer, extract_claims

ARMS: tuple[str, ...] = ("document", "hybrid", "evidence")
"""``document``: the whole document is cited (the matcher alone); ``hybrid`` / ``evidence``: the top-k chunks of
HybridChunker defaults / EvidenceChunker defaults (both through :func:`docling_evidence_bench.arms.make_chunker`)."""

_YEAR = re.compile(r"(?:19|20)\d\d")


@dataclass(frozen=True)
class Perturbed:
    """An answer with one number changed."""

    answer: str
    original: str
    """The number claim as written in the gold answer."""
    changed: str
    """The same claim after the change."""
    year: bool
    """The original number looks like a year (1900-2099, no decimals)."""


def perturb(answer: str) -> Perturbed | None:
    """Change the last digit of the first number claim of ``answer`` (``d -> d+1``, ``9 -> 8``); None when the answer
    has no number."""
    number = next((c for c in extract_claims(answer) if c.kind == "number"), None)
    if number is None:
        return None
    pos = max(i for i in range(number.start, number.end) if answer[i].isdigit())
    digit = int(answer[pos])
    new = str(digit + 1 if digit < 9 else digit - 1)
    changed = answer[:pos] + new + answer[pos + 1 :]
    digits = number.text.strip("$€£¥()-% ")
    return Perturbed(
        answer=changed,
        original=number.text,
        changed=changed[number.start : number.end],
        year=bool(_YEAR.fullmatch(digits)),
    )


def _one_number(text: str) -> bool:
    return sum(c.kind == "number" for c in extract_claims(text)) == 1


def cited_refs(report: CitationReport) -> set[str]:
    """Doc item refs of the evidence of every supported claim."""
    return {e.ref for c in report.claims if c.supported for e in c.evidence}


def judge(report: CitationReport, gold: Sequence[str]) -> dict[str, Any]:
    """Per-question outcome: cited refs, true positives, gold count, verified, claims supported / total."""
    cited = cited_refs(report)
    gold_set = set(gold)
    return {
        "cited": sorted(cited),
        "tp": len(cited & gold_set),
        "gold": len(gold_set),
        "verified": report.supported,
        "claims": len(report.claims),
        "claims_supported": sum(c.supported for c in report.claims),
    }


def _rate(num: int, den: int) -> float | None:
    return None if den == 0 else num / den


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Micro-averaged precision, recall, verified and perturbation rates of one arm's per-question rows."""
    cited = sum(len(r["cited"]) for r in rows)
    tp = sum(r["tp"] for r in rows)
    gold = sum(r["gold"] for r in rows)
    pert = [r for r in rows if r.get("perturbed") is not None]
    base = [r for r in pert if r["verified"]]
    false = [r for r in base if r["perturbed"]["verified"]]
    years = [r for r in base if r["perturbed"]["year"]]
    return {
        "questions": len(rows),
        "precision": _rate(tp, cited),
        "recall": _rate(tp, gold),
        "verified": _rate(sum(r["verified"] for r in rows), len(rows)),
        "claims_supported": _rate(sum(r["claims_supported"] for r in rows), sum(r["claims"] for r in rows)),
        "perturbed_answers": len(pert),
        "perturbed_of_verified": len(base),
        "false_verification": _rate(len(false), len(base)),
        "false_verification_years": _rate(sum(r["perturbed"]["verified"] for r in years), len(years)),
        "false_verification_non_years": _rate(
            sum(r["perturbed"]["verified"] for r in base if not r["perturbed"]["year"]),
            sum(1 for r in base if not r["perturbed"]["year"]),
        ),
        "false_to_original": sum(r["perturbed"]["to_original"] for r in pert),
        "perturbed_claim_supported": _rate(sum(r["perturbed"]["claim_supported"] for r in pert), len(pert)),
    }


def _question_row(
    answer: str,
    gold: Sequence[str],
    sources: DocumentSources,
    chunks: Sequence[CitedChunk] | None,
    qid: str,
    qtype: str,
) -> dict[str, Any]:
    report = check_answer(answer, sources, chunks)
    row = {"qid": qid, "qtype": qtype, **judge(report, gold)}
    p = perturb(answer)
    if p is None:
        row["perturbed"] = None
        return row
    changed = check_answer(p.answer, sources, chunks)
    changed_claim = next((c for c in changed.claims if c.kind == "number" and c.text == p.changed), None)
    # the same table cell holding one number (a paragraph, or a header cell "2019 vs 2018", may hold both)
    changed_cells = {
        (e.ref, e.row, e.col)
        for e in (changed_claim.evidence if changed_claim else ())
        if e.kind == "table_cell" and _one_number(e.text)
    }
    original_cells = {
        (e.ref, e.row, e.col)
        for c in report.claims
        if c.kind == "number" and c.text == p.original
        for e in c.evidence
        if e.kind == "table_cell"
    }
    row["perturbed"] = {
        "changed": f"{p.original} -> {p.changed}",
        "verified": changed.supported,
        "year": p.year,
        "claim_supported": bool(changed_claim and changed_claim.supported),
        "to_original": bool(changed_cells & original_cells),
    }
    return row


def run(dataset: Any, arms: Sequence[str], k: int, log: Any = None) -> dict[str, Any]:
    """Per-question rows and a summary for every arm (see the module docstring)."""
    from docling_evidence_bench.arms import make_chunker
    from docling_evidence_bench.retrieval import Retriever

    by_doc: dict[str, list[Any]] = {doc_id: [] for doc_id in dataset.documents}
    for q in dataset.questions:
        by_doc[q.doc_id].append(q)
    sources = {doc_id: DocumentSources(doc) for doc_id, doc in dataset.documents.items()}
    results: dict[str, Any] = {}
    for arm in arms:
        start = time.process_time()
        rows: list[dict[str, Any]] = []
        if arm == "document":
            for doc_id, questions in by_doc.items():
                for q in questions:
                    rows.append(
                        _question_row("\n".join(q.answers), q.evidence_refs, sources[doc_id], None, q.qid, q.qtype)
                    )
        else:
            chunker = make_chunker(arm)
            texts: list[str] = []
            doc_ids: list[str] = []
            cited: list[CitedChunk] = []
            for doc_id, doc in dataset.documents.items():
                for chunk in chunker.chunk(doc):
                    texts.append(chunker.contextualize(chunk))
                    doc_ids.append(doc_id)
                    cited.append(CitedChunk.from_chunk(chunk))
            retriever = Retriever(texts, doc_ids, scope="doc")
            for doc_id, questions in by_doc.items():
                for q in questions:
                    top = [cited[int(i)] for i in retriever.search("bm25", doc_id, query=q.question)[:k]]
                    rows.append(
                        _question_row("\n".join(q.answers), q.evidence_refs, sources[doc_id], top, q.qid, q.qtype)
                    )
        summary = summarize(rows)
        summary["by_qtype"] = {
            t: summarize([r for r in rows if r["qtype"] == t]) for t in sorted({r["qtype"] for r in rows})
        }
        summary["cpu_seconds"] = round(time.process_time() - start, 1)
        results[arm] = {"summary": summary, "questions": rows}
        if log is not None:
            print(f"{arm}: {json.dumps({k_: v for k_, v in summary.items() if k_ != 'by_qtype'})}", file=log)
    return results


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def markdown_table(results: dict[str, Any]) -> str:
    """The summary table written into docs/citation.md."""
    lines = [
        "| cited set | precision | recall | answers verified | claims supported | false verification (perturbed) "
        "| of which: years / other numbers |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for arm, res in results.items():
        s = res["summary"]
        lines.append(
            f"| {arm} | {_pct(s['precision'])} | {_pct(s['recall'])} | {_pct(s['verified'])} | "
            f"{_pct(s['claims_supported'])} | {_pct(s['false_verification'])} (n={s['perturbed_of_verified']}) | "
            f"{_pct(s['false_verification_years'])} / {_pct(s['false_verification_non_years'])} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m docling_evidence_bench.citation --tatqa FILE [-k 3] [--arms document,hybrid,evidence] -o OUT``."""
    parser = argparse.ArgumentParser(
        prog="python -m docling_evidence_bench.citation", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--tatqa", required=True, help="TAT-QA JSON file (e.g. tatqa_dataset_dev.json)")
    parser.add_argument("-k", type=int, default=3, help="chunks cited per question (BM25 top-k) [3]")
    parser.add_argument("--arms", default=",".join(ARMS), help=f"comma-separated, from {', '.join(ARMS)}")
    parser.add_argument("--limit-contexts", type=int, default=None, help="first N TAT-QA contexts only")
    parser.add_argument("-o", "--output", required=True, help="results JSON")
    args = parser.parse_args(argv)
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    unknown = [a for a in arms if a not in ARMS]
    if unknown or args.k < 1:
        parser.error(f"unknown arm {unknown[0]!r}" if unknown else "-k must be at least 1")
    from docling_evidence.cli.safe_write import output_problem, write_json
    from docling_evidence_bench.dataset import BenchDataError
    from docling_evidence_bench.tatqa import load_tatqa

    if problem := output_problem(args.output, inputs=[args.tatqa], parents=True):
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        dataset = load_tatqa(args.tatqa, limit_contexts=args.limit_contexts)
    except BenchDataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    results = run(dataset, arms, args.k, log=sys.stderr)
    out = {
        "dataset": dataset.name,
        "questions": len(dataset.questions),
        "k": args.k,
        "retrieval": "bm25 (bm25s), per document, flat top-k chunks, query = question",
        "results": results,
    }
    write_json(args.output, out, compact=True, parents=True)
    print(markdown_table(results), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
