"""Context recall and precision of EvidenceChunker's units against hand labels, per real Docling fixture.

Labels: ``data/context_labels.json`` (which paragraphs explain each table, read by a person; "related"
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

``--blind`` measures the second, blind labelling of the same eight documents ``data/context_labels_blind.json``
(made by reading the documents only, without seeing the first labels or the chunker): how much the scores depend on
who labels. It writes ``docs/results/context_blind.json`` and the ``blind`` table of ``docs/context.md``.

``--outside DIR`` measures the blind labels of two documents that are not in ../shared
(``data/context_labels_outside.json``: a PLOS ONE article and an SEC 10-K, Docling's own Markdown exports
converted back without layout; its ``sources`` say where to fetch them). DIR holds the converted DoclingDocument
JSON files; it writes ``docs/results/context_outside.json`` and the ``outside`` table of ``docs/context.md``.

``--heldout`` measures instead the held-out labels ``data/context_labels_heldout.json`` (the other real
fixtures, ``../shared/fixtures/more`` and ``docling-core``, labelled after the rules were written and never used to
tune them). They also name each table's caption and notes, so the caption found and the footnotes attached are
scored too; it writes ``docs/results/context_heldout.json`` and the ``heldout`` table of ``docs/context.md``.
Run from the repository root::

    HF_HUB_OFFLINE=1 python -m docling_evidence_bench.tools.context_report            # limits 256 and 512
    HF_HUB_OFFLINE=1 python -m docling_evidence_bench.tools.context_report --max-tokens 128 8192 --no-write
    HF_HUB_OFFLINE=1 python -m docling_evidence_bench.tools.context_report --heldout
    HF_HUB_OFFLINE=1 python -m docling_evidence_bench.tools.context_report --blind
    HF_HUB_OFFLINE=1 python -m docling_evidence_bench.tools.context_report --outside /tmp/outside  # docs/context.md
    HF_HUB_OFFLINE=1 python -m docling_evidence_bench.tools.context_report --check [--heldout | --blind | --outside D]

``--check`` writes nothing: it re-measures the chosen label set at every limit of its results file and exits 1,
naming each document, limit and score, when a score falls below the reported one (the scores docs/context.md quotes
are a ratchet: a change that lowers one must re-measure and say so).
When the fixtures are absent it prints a message and exits 0 without writing anything.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from docling_evidence_bench.paths import DATA, REPO

DEFAULT_FIXTURES = REPO.parent / "shared" / "fixtures" / "docling"
HELDOUT_FIXTURES = REPO.parent / "shared" / "fixtures"
LABELS = DATA / "context_labels.json"
HELDOUT_LABELS = DATA / "context_labels_heldout.json"
BLIND_LABELS = DATA / "context_labels_blind.json"
OUTSIDE_LABELS = DATA / "context_labels_outside.json"
DEFAULT_JSON = REPO / "docs" / "results" / "context.json"
HELDOUT_JSON = REPO / "docs" / "results" / "context_heldout.json"
BLIND_JSON = REPO / "docs" / "results" / "context_blind.json"
OUTSIDE_JSON = REPO / "docs" / "results" / "context_outside.json"
DEFAULT_MD = REPO / "docs" / "context.md"
BEGIN, END = "<!-- numbers:begin -->", "<!-- numbers:end -->"
HELDOUT_BEGIN, HELDOUT_END = "<!-- heldout:begin -->", "<!-- heldout:end -->"
BLIND_BEGIN, BLIND_END = "<!-- blind:begin -->", "<!-- blind:end -->"
OUTSIDE_BEGIN, OUTSIDE_END = "<!-- outside:begin -->", "<!-- outside:end -->"
LABEL_SETS: dict[str, tuple[Path, Path, str, str]] = {
    "first": (LABELS, DEFAULT_JSON, BEGIN, END),
    "heldout": (HELDOUT_LABELS, HELDOUT_JSON, HELDOUT_BEGIN, HELDOUT_END),
    "blind": (BLIND_LABELS, BLIND_JSON, BLIND_BEGIN, BLIND_END),
    "outside": (OUTSIDE_LABELS, OUTSIDE_JSON, OUTSIDE_BEGIN, OUTSIDE_END),
}
"""Each label set: its labels file, the results file it writes, and the markers of its table in docs/context.md."""
CHECKED: dict[str, dict[str, tuple[str, ...]]] = {
    "first": {"chosen": ("recall", "precision"), "delivered": ("recall", "precision")},
    "heldout": {"delivered": ("recall", "precision"), "captions": ("recall",), "notes": ("recall", "precision")},
    "blind": {"delivered": ("recall", "precision"), "captions": ("recall",)},
    "outside": {"delivered": ("recall", "precision")},
}
"""The scores ``--check`` holds each label set to, per measure: those docs/context.md reports for it."""


def load_labels(path: Path = LABELS) -> dict[str, Any]:
    """The labels file as a dict (``documents`` -> file name -> table ref -> label)."""
    return json.loads(path.read_text(encoding="utf-8"))


def _delivered(chunks: list[Any], roles: tuple[str, ...] = ("context",)) -> dict[str, set[str]]:
    """Table ref -> refs of the doc items shown as context in any piece of its unit (what retrieval sees); with
    ``roles=("context", "text")`` also the section peers the unit took in (docs/context.md#section-peers); with
    ``roles=("caption",)`` or ``("footnote",)`` the unit's caption or footnote items."""
    found: dict[str, set[str]] = {}
    for chunk in chunks:
        if chunk.meta.kind != "table":
            continue
        table = next(ref for ref, role in chunk.meta.roles.items() if role == "table")
        shown = {ref for ref, role in chunk.meta.roles.items() if role in roles}
        if "context" in roles:
            shown |= set(chunk.meta.context_spans)
        found.setdefault(table, set()).update(shown)
    return found


def _chosen(doc: Any, chunker: Any) -> dict[str, set[str]]:
    """Table ref -> refs of the paragraphs ``context.choose_context`` picked for its unit, as the chunker calls it
    (budget and room beside the table), before splitting."""
    from docling_evidence.assemble.headings import headings_by_position
    from docling_evidence.assemble.paragraphs import RenderedParagraphs
    from docling_evidence.assemble.units import build_units, document_key
    from docling_evidence.document.index import build_index

    index = build_index(doc)
    doc_ser = chunker.serializer_provider.get_serializer(doc=doc)
    paragraphs = RenderedParagraphs(doc, index, doc_ser)
    request = chunker._unit_request(doc, doc_ser, headings_by_position(index), paragraphs, document_key(doc))
    units = build_units(doc, index, request)
    return {u.table.self_ref: {it.self_ref for it in (*u.context_before, *u.context_after)} for u in units}


def _share(part: float, whole: float) -> float:
    """``part / whole``, or 1.0 when there is nothing to count (no labelled item, nothing taken)."""
    return part / whole if whole else 1.0


def _score(labels: dict[str, Any], context: dict[str, set[str]]) -> dict[str, Any]:
    n_explains = found = taken = correct = strict = 0
    tables = []
    for ref, label in labels.items():
        explains = set(label["explains"])
        # related texts, and (held-out labels) the table's own caption and notes, are acceptable beside it
        related = set(label["related"]) | set(label.get("caption", ())) | set(label.get("notes", ()))
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
        "recall": _share(found, n_explains),
        "precision": _share(correct, taken),
        "strict_precision": _share(strict, taken),
        "per_table": tables,
    }


def _score_captions(labels: dict[str, Any], members: dict[str, dict[str, set[str]]]) -> dict[str, Any]:
    """Of the document tables whose labels name a caption (or title line): how many units show one of its texts at
    all (``shown``: as caption, context or footnote) and how many as their caption (``as_caption``); of the units
    that have a caption text: how many take only texts of this table, labelled its caption or one of its notes (e.g.
    an "Area = ..." line Docling links as caption) (``right``). A caption taken from the table's header row has no
    text item and is not counted."""
    labelled = shown = as_caption = captioned = right = 0
    tables = []
    for ref, label in labels.items():
        if not label["document_table"]:
            continue
        expected = set(label["caption"])
        got = members.get(ref, {})
        caption = got.get("caption", set())
        in_unit = caption | got.get("context", set()) | got.get("footnote", set())
        labelled += bool(expected)
        shown += bool(expected & in_unit)
        as_caption += bool(expected & caption)
        captioned += bool(caption)
        right += bool(caption) and caption <= expected | set(label["notes"])
        if expected != caption:
            tables.append({"table": ref, "expected": sorted(expected), "got": sorted(caption)})
    return {
        "labelled": labelled,
        "shown": shown,
        "as_caption": as_caption,
        "captioned": captioned,
        "right": right,
        "recall": _share(shown, labelled),
        "precision": _share(right, captioned),
        "per_table": tables,
    }


def _score_notes(labels: dict[str, Any], members: dict[str, dict[str, set[str]]]) -> dict[str, Any]:
    """Labelled notes (a table's footnotes, legends, source and unit lines) the unit shows (as footnote, context or
    caption), and of the texts it attaches as footnotes, how many are this table's (notes, or texts explaining it)."""
    n_notes = found = attached = right = 0
    tables = []
    for ref, label in labels.items():
        expected = set(label["notes"])
        own = expected | set(label["explains"]) | set(label["related"])
        got = members.get(ref, {})
        footnotes = got.get("footnote", set())
        in_unit = footnotes | got.get("context", set()) | got.get("caption", set())
        n_notes += len(expected)
        found += len(expected & in_unit)
        attached += len(footnotes)
        right += len(footnotes & own)
        missed, wrong = expected - in_unit, footnotes - own
        if missed or wrong:
            tables.append({"table": ref, "missed": sorted(missed), "wrong": sorted(wrong)})
    return {
        "notes": n_notes,
        "found": found,
        "attached": attached,
        "right": right,
        "recall": _share(found, n_notes),
        "precision": _share(right, attached),
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
    result = {
        "document": path.name,
        "max_tokens": max_tokens,
        "tables": len(labels),
        "units": len(delivered),
        "chosen": _score(labels, _chosen(doc, chunker)),
        "delivered": _score(labels, delivered),
        "with_peers": _score(labels, _delivered(chunks, ("context", "text"))),
    }
    if labels and all("caption" in label and "notes" in label for label in labels.values()):
        members = {ref: {"context": got, "caption": set(), "footnote": set()} for ref, got in delivered.items()}
        for role in ("caption", "footnote"):
            for ref, got in _delivered(chunks, (role,)).items():
                members[ref][role] = got
        result["captions"] = _score_captions(labels, members)
        result["notes"] = _score_notes(labels, members)
    return result


def measure(fixtures: Path, max_tokens: int, labels: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One result per labelled document found under ``fixtures`` (labels are keyed by path under it)."""
    labels = labels or load_labels()
    results = []
    for name, doc_labels in sorted(labels["documents"].items()):
        if (fixtures / name).exists():
            results.append({**measure_document(fixtures / name, doc_labels, max_tokens), "document": name})
    return results


def floors(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The flat records written to ``docs/results/context.json`` (one per document, limit and measure)."""
    return [
        {"document": r["document"], "max_tokens": r["max_tokens"], "measure": m, **{k: v for k, v in r[m].items()}}
        for r in results
        for m in ("chosen", "delivered", "with_peers", "captions", "notes")
        if m in r
    ]


def check(fixtures: Path, which: str = "first") -> list[str]:
    """Re-measure label set ``which`` on ``fixtures`` at every limit of its results file: one line per score that
    falls below the reported one (empty when none does). Documents without a table are skipped outside the first
    set, whose results file lists them too."""
    labels_path, floors_path = LABEL_SETS[which][:2]
    labels = load_labels(labels_path)
    reported = {(r["document"], r["max_tokens"], r["measure"]): r for r in json.loads(floors_path.read_text())}
    drops = []
    for limit in sorted({key[1] for key in reported}):
        for r in measure(fixtures, limit, labels):
            if which != "first" and not r["tables"]:
                continue
            for name, keys in CHECKED[which].items():
                floor = reported[(r["document"], limit, name)]
                drops += [
                    f"{r['document']} @{limit} {name} {key}: {r[name][key]:.4f} < reported {floor[key]:.4f}"
                    for key in keys
                    if r[name][key] < floor[key] - 1e-9
                ]
    return drops


def heldout_markdown(results: list[dict[str, Any]]) -> str:
    """The held-out table: context as delivered, captions and notes, one row per document and limit, and a total
    row per limit (micro-averaged over all tables)."""
    lines = [
        "| document | limit | tables (units) | explaining paragraphs | context recall | context precision"
        " | caption shown | as caption | caption right | notes | notes shown | footnotes right |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def row(name: str, limit: int, rs: list[dict[str, Any]]) -> str:
        d = {k: sum(r["delivered"][k] for r in rs) for k in ("explaining", "found", "taken")}
        correct = round(sum(r["delivered"]["precision"] * r["delivered"]["taken"] for r in rs))
        c = {k: sum(r["captions"][k] for r in rs) for k in ("labelled", "shown", "as_caption", "captioned", "right")}
        n = {k: sum(r["notes"][k] for r in rs) for k in ("notes", "found", "attached", "right")}
        ratio = lambda a, b: f"{a / b:.2f}" if b else "–"  # noqa: E731
        return (
            f"| {name} | {limit} | {sum(r['tables'] for r in rs)} ({sum(r['units'] for r in rs)}) | {d['explaining']}"
            f" | {ratio(d['found'], d['explaining'])} | {ratio(correct, d['taken'])}"
            f" | {c['shown']} / {c['labelled']} | {c['as_caption']} / {c['labelled']} | {c['right']} / {c['captioned']}"
            f" | {n['notes']} | {ratio(n['found'], n['notes'])} | {ratio(n['right'], n['attached'])} |"
        )

    for limit in sorted({r["max_tokens"] for r in results}):
        at = [r for r in results if r["max_tokens"] == limit]
        lines += [row(r["document"], limit, [r]) for r in at]
        lines.append(row("**all**", limit, at))
    return "\n".join(lines)


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
    parser.add_argument("--fixtures", type=Path, help="the fixtures folder the labels' paths are under")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--heldout", action="store_true", help="measure the held-out labels (see above)")
    which.add_argument("--blind", action="store_true", help="measure the blind second labelling (see above)")
    which.add_argument("--outside", type=Path, metavar="DIR", help="measure the outside documents converted into DIR")
    parser.add_argument("--max-tokens", type=int, nargs="+", default=[256, 512])
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a score falls below the reported one"
    )
    args = parser.parse_args(argv)
    fixtures = args.outside or args.fixtures or (HELDOUT_FIXTURES if args.heldout else DEFAULT_FIXTURES)
    if not fixtures.is_dir():
        print(f"no fixtures at {fixtures}: nothing measured")
        return 0
    which = "heldout" if args.heldout else "blind" if args.blind else "outside" if args.outside else "first"
    if args.check:
        drops = check(fixtures, which)
        for line in drops:
            print(line, file=sys.stderr)
        print(f"{which} labels: {len(drops)} scores below the report")
        return 1 if drops else 0
    labels_path, out_json, begin, end = LABEL_SETS[which]
    labels = load_labels(labels_path)
    results = [r for limit in args.max_tokens for r in measure(fixtures, limit, labels)]
    if which in ("blind", "outside"):
        results = [r for r in results if r["tables"]]  # a document without a table has nothing to score
    if which == "outside" and len({r["document"] for r in results}) < len(labels["documents"]):
        print(f"{fixtures} lacks some of {', '.join(sorted(labels['documents']))}: see docs/context.md")
        return 1
    table = markdown(results) if which == "first" else heldout_markdown(results)
    print(table)
    for r in results:
        for m in ("chosen", "delivered", "captions", "notes"):
            for t in r.get(m, {}).get("per_table", []):
                if {k: v for k, v in t.items() if k not in ("table", "unit")} and any(
                    t.get(k) for k in ("missed", "wrong", "expected", "got")
                ):
                    print(f"{r['document']} @{r['max_tokens']} {m} {t}")
    if args.no_write:
        return 0
    out_json.write_text(json.dumps(floors(results), indent=1) + "\n", encoding="utf-8")
    text = DEFAULT_MD.read_text(encoding="utf-8")
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        _old, tail = rest.split(end, 1)
        DEFAULT_MD.write_text(f"{head}{begin}\n{table}\n{end}{tail}", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
