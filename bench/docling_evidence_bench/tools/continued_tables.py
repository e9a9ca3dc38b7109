"""Count tables continued over pages on every real fixture: which parts ``EvidenceChunker`` joins, and why the
other consecutive tables stay apart.

For each ``*.json`` under ``../shared/fixtures``: the tables that become units, every consecutive pair of them with
the verdict of ``docling_evidence.units.continuation.check_continuation`` (the rule that decided), the runs joined
(parts,
pages, body rows, repeated header rows dropped), and the evidence units / table pieces ``EvidenceChunker()`` emits
with ``merge_continued_tables`` on and off. Writes the numbers to ``docs/results/continued_tables.json`` and the
table between the markers of ``docs/continued_tables.md``. Run from the repository root::

    HF_HUB_OFFLINE=1 python -m docling_evidence_bench.tools.continued_tables

When the fixtures are absent it prints a message and exits 0 without writing anything.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from docling_evidence_bench.paths import REPO

DEFAULT_FIXTURES = REPO.parent / "shared" / "fixtures"
DEFAULT_JSON = REPO / "docs" / "results" / "continued_tables.json"
DEFAULT_MD = REPO / "docs" / "continued_tables.md"
START, END = "<!-- counts:start -->", "<!-- counts:end -->"
REASONS = (
    "continued",
    "not paginated",
    "not adjacent",
    "not next page",
    "not at page end",
    "not at page start",
    "column count",
    "own header",
    "own caption",
)


def measure(path: Path, root: Path) -> dict[str, Any]:
    """Verdicts, runs and unit counts for one fixture."""
    from docling_core.types.doc import DoclingDocument

    from docling_evidence import EvidenceChunker
    from docling_evidence.assemble.units import unit_tables
    from docling_evidence.document.index import build_index
    from docling_evidence.units.continuation import find_runs

    doc = DoclingDocument.load_from_json(path)
    index = build_index(doc)
    tables = unit_tables(doc, index)
    runs, verdicts = find_runs(doc, index, tables)
    rows_at = dict(tables)
    reasons = Counter(v.reason for _, _, v in verdicts)

    on, off = (list(EvidenceChunker(merge_continued_tables=m).chunk(doc)) for m in (True, False))

    def units(chunks: list[Any]) -> tuple[int, int]:
        tables = [c for c in chunks if c.meta.kind == "table"]
        return len({c.meta.unit_id for c in tables}), len(tables)

    (units_on, pieces_on), (units_off, pieces_off) = units(on), units(off)
    return {
        "fixture": path.relative_to(root).as_posix(),
        "pages": len(doc.pages),
        "unit_tables": len(tables),
        "pairs": len(verdicts),
        "verdicts": {r: reasons.get(r, 0) for r in REASONS},
        "runs": [
            {
                "tables": [index.items[p].self_ref for p in run.positions],
                "pages": sorted({pr.page_no for p in run.positions for pr in index.items[p].prov}),
                "body_rows": sum(len(rows_at[p].body) for p in run.positions),
                "header_rows_dropped": sum(run.drop_rows),
            }
            for run in runs
        ],
        "parts_joined": sum(len(run.positions) - 1 for run in runs),
        "units_merged": units_on,
        "units_apart": units_off,
        "table_pieces_merged": pieces_on,
        "table_pieces_apart": pieces_off,
        "output_changed": [c.model_dump() for c in on] != [c.model_dump() for c in off],
    }


def render(rows: list[dict[str, Any]]) -> str:
    """The Markdown table (generated only from the JSON rows)."""
    short = {"not paginated": "unpaged", "not adjacent": "between", "not next page": "page gap"}
    cols = [short.get(r, r) for r in REASONS[1:]]
    out = [
        "| fixture | unit tables | pairs | joined | runs (parts: pages) | units on / off | pieces on / off | changed | "
        + " | ".join(cols)
        + " |",
        "|---|---:|---:|---:|---|---|---|---|" + "---:|" * len(cols),
    ]
    tot: Counter[str] = Counter()
    for r in rows:
        runs = "; ".join(f"{len(x['tables'])}: {x['pages'][0]}–{x['pages'][-1]}" for x in r["runs"]) or "–"
        out.append(
            f"| `{r['fixture']}` | {r['unit_tables']} | {r['pairs']} | {r['parts_joined']} | {runs} "
            f"| {r['units_merged']} / {r['units_apart']} | {r['table_pieces_merged']} / {r['table_pieces_apart']} "
            f"| {'yes' if r['output_changed'] else 'no'} | "
            + " | ".join(str(r["verdicts"][k]) for k in REASONS[1:])
            + " |"
        )
        for k in ("unit_tables", "pairs", "parts_joined", "units_merged", "units_apart"):
            tot[k] += r[k]
        tot["table_pieces_merged"] += r["table_pieces_merged"]
        tot["table_pieces_apart"] += r["table_pieces_apart"]
        tot["runs"] += len(r["runs"])
        tot["changed"] += bool(r["output_changed"])
        for k in REASONS:
            tot[k] += r["verdicts"][k]
    out.append(
        f"| **all** | {tot['unit_tables']} | {tot['pairs']} | {tot['parts_joined']} | {tot['runs']} runs "
        f"| {tot['units_merged']} / {tot['units_apart']} | {tot['table_pieces_merged']} / "
        f"{tot['table_pieces_apart']} | {tot['changed']} | " + " | ".join(str(tot[k]) for k in REASONS[1:]) + " |"
    )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Measure every fixture, write the JSON and the Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES, help="folder of DoclingDocument JSON")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="raw numbers (JSON) to write")
    parser.add_argument("--markdown", type=Path, default=DEFAULT_MD, help="page whose marked table is replaced")
    args = parser.parse_args(argv)
    from docling_evidence.cli.safe_write import write_json, write_text

    if not args.fixtures.is_dir():
        print(f"no fixtures at {args.fixtures}: nothing measured")
        return 0
    paths = sorted(args.fixtures.rglob("*.json"), key=lambda p: p.relative_to(args.fixtures).as_posix())
    rows = [measure(p, args.fixtures) for p in paths]
    command = "HF_HUB_OFFLINE=1 python -m docling_evidence_bench.tools.continued_tables"
    write_json(args.json, {"command": command, "fixtures": rows}, indent=1, parents=True)
    table = render(rows)
    if args.markdown.is_file():
        page = args.markdown.read_text(encoding="utf-8")
        if START in page and END in page:
            head, rest = page.split(START, 1)
            page = head + START + "\n" + table + "\n" + END + rest.split(END, 1)[1]
            write_text(args.markdown, page)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
