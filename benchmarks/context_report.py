"""Context recall and precision of EvidenceChunker's units against hand labels, per real Docling fixture.

Labels: ``tests/data/context_labels.json`` (which paragraphs explain each table, read by a person; "related"
paragraphs are acceptable but not required). For every table that became a unit, the unit's context is the set of
doc items with role ``context`` in any of its pieces. Per document (micro-averaged over its tables):

- recall = labelled "explains" paragraphs found in the units' context / all "explains" paragraphs;
- precision = context items labelled "explains" or "related" / all context items (1.0 when nothing is taken);
- strict precision counts only "explains".

"with section peers" counts, besides the context, the paragraphs of the table's section that the unit took in
(role ``text``, docs/context.md#section-peers): what a retrieved unit also delivers, though not chosen as context.

Each is measured twice: on the paragraphs ``context.choose_context`` picks for the unit ("chosen") and on the
paragraphs the unit's chunks actually show after splitting ("delivered").

Writes ``docs/results/context.json`` and the numbers table of ``docs/context.md`` (between the ``numbers`` markers).
Run from the repository root::

    HF_HUB_OFFLINE=1 python benchmarks/context_report.py            # limits 256 and 512
    HF_HUB_OFFLINE=1 python benchmarks/context_report.py --max-tokens 128 8192 --no-write

When the fixtures are absent it prints a message and exits 0 without writing anything.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_FIXTURES = REPO.parent / "shared" / "fixtures" / "docling"
LABELS = REPO / "tests" / "data" / "context_labels.json"
DEFAULT_JSON = REPO / "docs" / "results" / "context.json"
DEFAULT_MD = REPO / "docs" / "context.md"
BEGIN, END = "<!-- numbers:begin -->", "<!-- numbers:end -->"


def load_labels(path: Path = LABELS) -> dict[str, Any]:
    """The labels file as a dict (``documents`` -> file name -> table ref -> label)."""
    return json.loads(path.read_text(encoding="utf-8"))


def _delivered(chunks: list[Any], roles: tuple[str, ...] = ("context",)) -> dict[str, set[str]]:
    """Table ref -> refs of the doc items shown as context in any piece of its unit (what retrieval sees); with
    ``roles=("context", "text")`` also the section peers the unit took in (docs/context.md#section-peers)."""
    found: dict[str, set[str]] = {}
    for chunk in chunks:
        if chunk.meta.kind != "table":
            continue
        table = next(ref for ref, role in chunk.meta.roles.items() if role == "table")
        shown = {ref for ref, role in chunk.meta.roles.items() if role in roles} | set(chunk.meta.context_spans)
        found.setdefault(table, set()).update(shown)
    return found


def _chosen(doc: Any, chunker: Any) -> dict[str, set[str]]:
    """Table ref -> refs of the paragraphs ``context.choose_context`` picked for its unit, as the chunker calls it
    (budget and room beside the table), before splitting."""
    from docling_evidence.chunker import _headings_by_position
    from docling_evidence.doc_index import build_index
    from docling_evidence.units import build_units

    index = build_index(doc)
    headings = _headings_by_position(index)
    doc_ser = chunker.serializer_provider.get_serializer(doc=doc)
    units = build_units(
        doc,
        index,
        with_caption=True,
        with_context=True,
        with_footnotes=True,
        bbox_threshold=chunker.bbox_threshold,
        context_budget=chunker._flow_context_budget,
        paginated_context_budget=chunker._page_context_budget,
        count_text=chunker.tokenizer.count_tokens,
        context_room=lambda u: chunker._context_room(u, doc, doc_ser, headings.get(u.position)),
    )
    return {u.table.self_ref: {it.self_ref for it in (*u.context_before, *u.context_after)} for u in units}


def _score(labels: dict[str, Any], context: dict[str, set[str]]) -> dict[str, Any]:
    n_explains = found = taken = correct = strict = 0
    tables = []
    for ref, label in labels.items():
        explains, related = set(label["explains"]), set(label["related"])
        got = context.get(ref)
        n_explains += len(explains)
        row: dict[str, Any] = {"table": ref, "unit": got is not None}
        if got is not None:
            found += len(explains & got)
            taken += len(got)
            correct += len(got & (explains | related))
            strict += len(got & explains)
            row["missed"] = sorted(explains - got)
            row["wrong"] = sorted(got - explains - related)
        tables.append(row)
    return {
        "explaining": n_explains,
        "found": found,
        "taken": taken,
        "recall": found / n_explains if n_explains else 1.0,
        "precision": correct / taken if taken else 1.0,
        "strict_precision": strict / taken if taken else 1.0,
        "per_table": tables,
    }


def measure_document(path: Path, labels: dict[str, Any], max_tokens: int) -> dict[str, Any]:
    """Recall and precision of one document's units against its labels: as chosen, and as delivered in chunks."""
    from docling_core.types.doc import DoclingDocument

    from docling_evidence import EvidenceChunker, bundled_tokenizer

    doc = DoclingDocument.load_from_json(path)
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(max_tokens))
    chunks = list(chunker.chunk(doc))
    delivered = _delivered(chunks)
    return {
        "document": path.name,
        "max_tokens": max_tokens,
        "tables": len(labels),
        "units": len(delivered),
        "chosen": _score(labels, _chosen(doc, chunker)),
        "delivered": _score(labels, delivered),
        "with_peers": _score(labels, _delivered(chunks, ("context", "text"))),
    }


def measure(fixtures: Path, max_tokens: int, labels: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One result per labelled document found under ``fixtures``."""
    labels = labels or load_labels()
    return [
        measure_document(fixtures / name, doc_labels, max_tokens)
        for name, doc_labels in sorted(labels["documents"].items())
        if (fixtures / name).exists()
    ]


def floors(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The flat records written to ``docs/results/context.json`` (one per document, limit and measure)."""
    return [
        {"document": r["document"], "max_tokens": r["max_tokens"], "measure": m, **{k: v for k, v in r[m].items()}}
        for r in results
        for m in ("chosen", "delivered", "with_peers")
    ]


def markdown(results: list[dict[str, Any]]) -> str:
    """The numbers table: one row per document and limit."""
    lines = [
        "| document | limit | tables (units) | explaining paragraphs | chosen: recall | precision | delivered: recall"
        " | precision | strict precision | with section peers: recall | precision |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        c, d, p = r["chosen"], r["delivered"], r["with_peers"]
        lines.append(
            f"| {r['document']} | {r['max_tokens']} | {r['tables']} ({r['units']}) | {c['explaining']}"
            f" | {c['recall']:.2f} | {c['precision']:.2f} | {d['recall']:.2f} | {d['precision']:.2f}"
            f" | {d['strict_precision']:.2f} | {p['recall']:.2f} | {p['precision']:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES)
    parser.add_argument("--max-tokens", type=int, nargs="+", default=[256, 512])
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    if not args.fixtures.is_dir():
        print(f"no fixtures at {args.fixtures}: nothing measured")
        return 0
    results = [r for limit in args.max_tokens for r in measure(args.fixtures, limit)]
    table = markdown(results)
    print(table)
    for r in results:
        for m in ("chosen", "delivered"):
            for t in r[m]["per_table"]:
                if t.get("missed") or t.get("wrong"):
                    print(
                        f"{r['document']} @{r['max_tokens']} {m} {t['table']}: missed {t['missed']} wrong {t['wrong']}"
                    )
    if args.no_write:
        return 0
    DEFAULT_JSON.write_text(json.dumps(floors(results), indent=1) + "\n", encoding="utf-8")
    text = DEFAULT_MD.read_text(encoding="utf-8")
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        _old, tail = rest.split(END, 1)
        DEFAULT_MD.write_text(f"{head}{BEGIN}\n{table}\n{END}{tail}", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
