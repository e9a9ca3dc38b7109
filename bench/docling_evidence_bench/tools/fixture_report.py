"""Per-fixture report: EvidenceChunker next to HybridChunker on every real DoclingDocument fixture.

For each ``*.json`` under ``../shared/fixtures`` (beside the repository) it measures: tables, tables that became
evidence units, how each unit's caption was found (``meta.caption_source``), whether every Docling-linked caption
stays with its table (text and doc item, EvidenceChunker and HybridChunker), context paragraphs and footnotes
attached, chunks emitted, the largest contextualized chunk in tokens, and chunking time of both chunkers on the same
document in the same run (median of ``--runs`` runs each, alternating which chunker goes first).

Writes the raw numbers to ``docs/results/fixtures.json`` and a Markdown table generated from that JSON to
``docs/fixtures.md``. Run from the repository root::

    HF_HUB_OFFLINE=1 /work/venv/bin/python -m docling_evidence_bench.tools.fixture_report

When the fixtures are absent it prints a message and exits 0 without writing anything.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from docling_evidence_bench.paths import REPO

DEFAULT_FIXTURES = REPO.parent / "shared" / "fixtures"
DEFAULT_JSON = REPO / "docs" / "results" / "fixtures.json"
DEFAULT_MD = REPO / "docs" / "fixtures.md"
CAPTION_SOURCES = ("docling_ref", "text_nearby", "adjacent_page", "header_row", "none")


def find_fixtures(root: Path) -> list[Path]:
    """Every ``*.json`` under ``root`` (recursively), sorted by relative path."""
    return sorted(root.rglob("*.json"), key=lambda p: p.relative_to(root).as_posix())


def _time_chunking(chunker: Any, doc: Any) -> tuple[float, list[Any]]:
    start = time.perf_counter()
    chunks = list(chunker.chunk(doc))
    return time.perf_counter() - start, chunks


def _table_refs(doc: Any) -> list[Any]:
    from docling_core.types.doc import TableItem

    return [it for it, _ in doc.iterate_items(traverse_pictures=False) if isinstance(it, TableItem)]


def _caption_kept(chunks: list[Any], chunker: Any, table: Any, captions: list[Any]) -> tuple[bool, bool]:
    """(caption text in a chunk holding the table, caption doc items in that chunk's doc_items) for one table."""
    holding = [c for c in chunks if any(d.self_ref == table.self_ref for d in c.meta.doc_items)]
    norm = [" ".join(c.text.split()) for c in captions]
    text_ok = bool(holding) and all(any(n in " ".join(chunker.contextualize(c).split()) for c in holding) for n in norm)
    items_ok = bool(holding) and all(
        any(cap.self_ref in {d.self_ref for d in c.meta.doc_items} for c in holding) for cap in captions
    )
    return text_ok, items_ok


def measure_fixture(path: Path, root: Path, runs: int) -> dict[str, Any]:
    """Chunk one fixture with both chunkers ``runs`` times each and collect the report's numbers."""
    from docling_core.transforms.chunker.hybrid_chunker import HybridChunker
    from docling_core.types.doc import DoclingDocument

    from docling_evidence import EvidenceChunker
    from docling_evidence.tokenizer import bundled_tokenizer

    doc = DoclingDocument.load_from_json(path)
    evidence = EvidenceChunker(tokenizer=bundled_tokenizer())
    hybrid = HybridChunker(tokenizer=bundled_tokenizer())
    times: dict[str, list[float]] = {"evidence": [], "hybrid": []}
    out: dict[str, list[Any]] = {}
    for run in range(runs):
        order = ("evidence", "hybrid") if run % 2 == 0 else ("hybrid", "evidence")
        for name in order:
            seconds, chunks = _time_chunking(evidence if name == "evidence" else hybrid, doc)
            times[name].append(seconds)
            out[name] = chunks
    ev_chunks, hy_chunks = out["evidence"], out["hybrid"]

    tables = _table_refs(doc)
    unit_chunks: dict[str, list[Any]] = {}
    for c in ev_chunks:
        if c.meta.kind == "table":
            unit_chunks.setdefault(c.meta.unit_id, []).append(c)
    sources: Counter[str] = Counter()
    context: set[tuple[str, str]] = set()
    footnotes: set[tuple[str, str]] = set()
    for uid, pieces in unit_chunks.items():
        sources[pieces[0].meta.caption_source or "none"] += 1
        for c in pieces:
            for ref, role in c.meta.roles.items():
                if role == "context":
                    context.add((uid, ref))
                elif role == "footnote":
                    footnotes.add((uid, ref))
    # every piece's tables: the parts of a table continued over pages are spread over the pieces of one unit
    unit_tables = {
        ref for pieces in unit_chunks.values() for c in pieces for ref, r in c.meta.roles.items() if r == "table"
    }

    linked = ev_text = ev_item = hy_text = hy_item = 0
    for table in tables:
        caps = [ref.resolve(doc) for ref in table.captions]
        caps = [c for c in caps if getattr(c, "text", "").strip()]
        if not caps or table.self_ref not in unit_tables:
            continue
        linked += 1
        t_ok, i_ok = _caption_kept(ev_chunks, evidence, table, caps)
        ev_text += t_ok
        ev_item += i_ok
        t_ok, i_ok = _caption_kept(hy_chunks, hybrid, table, caps)
        hy_text += t_ok
        hy_item += i_ok

    def max_tokens(chunker: Any, chunks: list[Any]) -> int:
        return max((chunker.tokenizer.count_tokens(chunker.contextualize(c)) for c in chunks), default=0)

    ev_s = statistics.median(times["evidence"])
    hy_s = statistics.median(times["hybrid"])
    return {
        "fixture": path.relative_to(root).as_posix(),
        "pages": len(doc.pages),
        "tables": len(tables),
        "units": len(unit_chunks),
        "joined": len(unit_tables) - len(unit_chunks),
        "captions": {s: sources.get(s, 0) for s in CAPTION_SOURCES},
        "docling_captions": linked,
        "docling_captions_kept_text": ev_text,
        "docling_captions_kept_item": ev_item,
        "hybrid_docling_captions_kept_text": hy_text,
        "hybrid_docling_captions_kept_item": hy_item,
        "context_paragraphs": len(context),
        "footnotes": len(footnotes),
        "chunks_evidence": len(ev_chunks),
        "chunks_table": sum(1 for c in ev_chunks if c.meta.kind == "table"),
        "chunks_hybrid": len(hy_chunks),
        "max_tokens_evidence": max_tokens(evidence, ev_chunks),
        "max_tokens_hybrid": max_tokens(hybrid, hy_chunks),
        "seconds_evidence": round(ev_s, 4),
        "seconds_hybrid": round(hy_s, 4),
        "seconds_evidence_runs": [round(t, 4) for t in times["evidence"]],
        "seconds_hybrid_runs": [round(t, 4) for t in times["hybrid"]],
        "time_ratio": round(ev_s / hy_s, 3) if hy_s > 0 else None,
    }


def environment() -> dict[str, Any]:
    """Where the numbers were measured (:func:`docling_evidence_bench.environment.environment`)."""
    from docling_evidence_bench.environment import environment as measured_on

    env = measured_on(("docling-core", "docling-evidence"))
    commit = env["git_commit"]
    return {
        **env,
        "git_commit": commit[:7] if commit else "",
        "docling_core": env["packages"]["docling-core"],
        "docling_evidence": env["packages"]["docling-evidence"],
        "load_average_at_start": env["load_average"],
    }


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Sums over all fixtures (max for token maxima, ratio of summed medians for time)."""
    keys = [
        "pages",
        "tables",
        "units",
        "joined",
        "docling_captions",
        "docling_captions_kept_text",
        "docling_captions_kept_item",
        "hybrid_docling_captions_kept_text",
        "hybrid_docling_captions_kept_item",
        "context_paragraphs",
        "footnotes",
        "chunks_evidence",
        "chunks_table",
        "chunks_hybrid",
    ]
    tot: dict[str, Any] = {k: sum(r.get(k, 0) for r in rows) for k in keys}
    tot["captions"] = {s: sum(r["captions"][s] for r in rows) for s in CAPTION_SOURCES}
    tot["max_tokens_evidence"] = max((r["max_tokens_evidence"] for r in rows), default=0)
    tot["max_tokens_hybrid"] = max((r["max_tokens_hybrid"] for r in rows), default=0)
    tot["seconds_evidence"] = round(sum(r["seconds_evidence"] for r in rows), 3)
    tot["seconds_hybrid"] = round(sum(r["seconds_hybrid"] for r in rows), 3)
    tot["time_ratio"] = round(tot["seconds_evidence"] / tot["seconds_hybrid"], 3) if tot["seconds_hybrid"] else None
    return tot


def render_markdown(report: dict[str, Any]) -> str:
    """The Markdown page, generated only from the JSON report."""
    env = report["environment"]
    changed = env.get("package_uncommitted") or []
    dirty = f" (uncommitted changes in: {', '.join(changed)})" if changed else ""
    lines = [
        "# EvidenceChunker on the real fixtures",
        "",
        "<!-- generated by docling_evidence_bench.tools.fixture_report from docs/results/fixtures.json; do not edit by "
        "hand -->",
        "",
        "Every real Docling JSON fixture in `../shared/fixtures`, chunked by `EvidenceChunker()` and by docling-core's",
        "`HybridChunker()` (its defaults: triplet tables, `merge_peers=True`), both with the bundled all-MiniLM-L6-v2",
        "tokenizer at 256 tokens (`docling_evidence.tokenizer.bundled_tokenizer()`).",
        "",
        "Command (from the repository root):",
        "",
        "```bash",
        report["command"],
        "```",
        "",
        f"Environment: {env['cpu_count']} CPUs, Python {env['python']}, docling-core {env['docling_core']}, "
        f"docling-evidence {env['docling_evidence']} at commit {env['git_commit']}"
        f"{dirty}, {env['platform']}; "
        f"{env['date_utc']} UTC; load average at start {env['load_average_at_start']}. "
        f"Times are the median of {report['runs']} runs per chunker, the two "
        "chunkers alternating which goes first, on the same loaded document in the same process (loading the JSON "
        "is not timed).",
        "",
        "Columns: **tables** in the body (pictures not entered); **units**: evidence units (tables with no cell text "
        "do not become one; (+n): table parts joined to the unit of a table continued from the previous page, "
        "docs/continued_tables.md); **captions by rule**: units whose caption came from Docling's refs / nearby text /"
        " the adjacent page / a caption-like header row / none; **Docling captions kept**: tables with a Docling "
        "caption ref whose caption text is in a chunk holding the table *and* whose caption doc item is in that "
        "chunk's `doc_items` (EvidenceChunker, then HybridChunker); **ctx**: context paragraphs attached (distinct "
        "per unit); **fn**: footnotes attached; **chunks** E (of which table pieces) / H; **max tok** E / H: largest "
        "`tokenizer.count_tokens(chunker.contextualize(chunk))`; **time** E / H and the ratio E/H.",
        "",
        "| fixture | tables | units | captions by rule (ref/near/adj/hdr/none) | Docling captions kept E · H "
        "| ctx | fn | chunks E / H | max tok E / H | time E / H (s) | ratio |",
        "|---|---:|---:|---|---|---:|---:|---|---|---|---:|",
    ]

    def row(name: str, r: dict[str, Any]) -> str:
        cap = "/".join(str(r["captions"][s]) for s in CAPTION_SOURCES)
        n = r["docling_captions"]
        kept = f"{min(r['docling_captions_kept_text'], r['docling_captions_kept_item'])}/{n}" if n else "–"
        hy = (
            f"{r['hybrid_docling_captions_kept_text']}/{n} text, {r['hybrid_docling_captions_kept_item']}/{n} item"
            if n
            else "–"
        )
        ratio = f"{r['time_ratio']:.2f}" if r["time_ratio"] is not None else "–"
        joined = r.get("joined", 0)
        units = f"{r['units']} (+{joined})" if joined else str(r["units"])
        return (
            f"| {name} | {r['tables']} | {units} | {cap} | {kept if n else '–'}{' · ' + hy if n else ''} "
            f"| {r['context_paragraphs']} | {r['footnotes']} "
            f"| {r['chunks_evidence']} ({r['chunks_table']}) / {r['chunks_hybrid']} "
            f"| {r['max_tokens_evidence']} / {r['max_tokens_hybrid']} "
            f"| {r['seconds_evidence']:.2f} / {r['seconds_hybrid']:.2f} | {ratio} |"
        )

    for r in report["fixtures"]:
        lines.append(row(f"`{r['fixture']}`", r))
    lines.append(row("**all**", report["totals"]))
    tot = report["totals"]
    lines += [
        "",
        f"Over all fixtures: {tot['units'] + tot['joined']} of {tot['tables']} tables became units "
        f"({tot['joined']} of them joined to a table continued from the previous page); "
        f"{min(tot['docling_captions_kept_text'], tot['docling_captions_kept_item'])} of {tot['docling_captions']} "
        f"Docling-linked captions stay with their table in EvidenceChunker (HybridChunker: "
        f"{tot['hybrid_docling_captions_kept_text']} by text, {tot['hybrid_docling_captions_kept_item']} by doc item);"
        f" largest EvidenceChunker chunk {tot['max_tokens_evidence']} tokens (HybridChunker "
        f"{tot['max_tokens_hybrid']}); total chunking time {tot['seconds_evidence']:.1f} s vs "
        f"{tot['seconds_hybrid']:.1f} s (ratio {tot['time_ratio']}).",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES, help="folder of DoclingDocument JSON")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="raw report (JSON) to write")
    parser.add_argument("--markdown", type=Path, default=DEFAULT_MD, help="Markdown table to write")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per chunker and fixture (median)")
    parser.add_argument("--only", default=None, help="only fixtures whose path contains this text")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if not args.fixtures.is_dir():
        print(f"fixtures not found at {args.fixtures}: nothing to report (skipped)")
        return 0
    paths = [p for p in find_fixtures(args.fixtures) if args.only is None or args.only in p.as_posix()]
    if not paths:
        print(f"no *.json fixtures under {args.fixtures}: nothing to report (skipped)")
        return 0
    env = environment()
    rows = []
    for path in paths:
        row = measure_fixture(path, args.fixtures, args.runs)
        rows.append(row)
        print(
            f"{row['fixture']}: {row['units']}/{row['tables']} units, chunks {row['chunks_evidence']}/"
            f"{row['chunks_hybrid']}, {row['seconds_evidence']:.2f}s / {row['seconds_hybrid']:.2f}s",
            file=sys.stderr,
        )
    command = "HF_HUB_OFFLINE=1 python -m docling_evidence_bench.tools.fixture_report"
    if args.runs != 3:
        command += f" --runs {args.runs}"
    if args.only:
        command += f" --only {args.only}"
    report = {
        "command": command,
        "environment": env,
        "runs": args.runs,
        "fixtures": rows,
        "totals": totals(rows),
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    args.markdown.parent.mkdir(parents=True, exist_ok=True)
    args.markdown.write_text(render_markdown(json.loads(args.json.read_text(encoding="utf-8"))), encoding="utf-8")
    print(f"wrote {args.json} and {args.markdown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
