"""Performance of EvidenceChunker against HybridChunker: CPU time, scaling, tokenizer work, throughput.

Every ratio compares the two chunkers in the same process, on the same document objects, with the same tokenizer
object (the bundled all-MiniLM-L6-v2 tokenizer at 256 tokens) and otherwise default settings, measured as CPU time
(``time.process_time``, the best of ``--repeats`` runs), so the load of a shared machine does not enter it.

Measured:

- **fixtures**: every DoclingDocument JSON under ``../shared/fixtures`` (target: EvidenceChunker <= 0.5x);
- **scaling**: synthetic documents with 1, 8, 64 and 512 tables in one section without layout (HTML/DOCX/Markdown
  style), on one page with layout, and in one section over pages with layout, and one real fixture concatenated
  x1, x8 and x64 (target: <= 1.0x at every point; linear = 8x the tables costs about 8x the time);
- **tokenizer work**: tokens sent to the tokenizer per token of the document (the document rendered once by
  EvidenceChunker's serializer), counted by a wrapping tokenizer that also sees ``semchunk``'s calls (target: <= 1.2),
  and the CPU time of chunking the fixtures against tokenizing every token of them once (target: <= 4x);
  ``--tokens`` measures only these two, in about a minute;
- **import**: cold ``import docling_evidence`` + ``EvidenceChunker()`` in a fresh interpreter, CPU and wall seconds,
  and whether torch got imported;
- **packing** (``--pack``): CPU milliseconds of one ``EvidenceChunker.pack`` call (``docs/packing.md``) for a query
  about a table row with 10 ranked units (the row's unit first, then the chunks sharing most words with the query),
  at 256, 512 and 1,024 tokens, on a fresh chunker (nothing read before) and on one that packed the same chunks
  before (target: under 5 ms per query); ``--pack --write-docs`` replaces only the packing block of
  docs/performance.md;
- **throughput** (``--throughput``): documents per second of ``docling-evidence chunk`` on the fixtures with
  ``--jobs 1``, ``--jobs 2`` and ``--engine ray`` (wall clock, so it depends on the machine's load).

Run from the repository root (2 cores shared: run it with ``nice``)::

    HF_HUB_OFFLINE=1 nice python -m docling_evidence_bench.tools.perf_bench --write-docs            # about 10 min CPU
    HF_HUB_OFFLINE=1 nice python -m docling_evidence_bench.tools.perf_bench --quick                 # 1-64 tables, x1-x8
    HF_HUB_OFFLINE=1 nice python -m docling_evidence_bench.tools.perf_bench --tokens                # tokens only

``--write-docs`` replaces the measured block of docs/performance.md and writes docs/performance-scaling.png;
``--json X`` keeps the raw numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from docling_evidence_bench.paths import REPO
from docling_evidence_bench.tools.perf_report import (
    markdown,
    pack_markdown,
    tokens_markdown,
    write_docs,
    write_pack_docs,
)

FIXTURES = REPO.parent / "shared" / "fixtures"
PACK_BUDGETS = (256, 512, 1024)
PACK_UNITS = 10
PACK_QUERIES_PER_DOC = 8
SCALE_FIXTURE = "docling/2206.01062.json"
FAMILIES = ("flow-section", "flow-rich-cells", "layout-page", "layout-section")


# ---------------------------------------------------------------------------------------------------------------------
# counting tokenizer work


def counting_tokenizer(max_tokens: int = 256) -> Any:
    """The bundled tokenizer, tallying every token it is asked to count (``semchunk``'s calls included).

    A plain :class:`~docling_evidence.tokenizer.TokenizersTokenizer` over a tallying stand-in for the
    ``tokenizers.Tokenizer``: the chunker treats it exactly as the bundled tokenizer (same counts, same memo, same
    ``semchunk`` counter), and every ``encode`` (single or batch) is tallied, through ``count_tokens`` or through
    ``get_tokenizer()``. ``counted`` holds the tokens, ``calls`` the texts encoded.
    """
    from docling_evidence.tokenizer import BUNDLED_TOKENIZER_DIR, TokenizersTokenizer

    class TallyingTokenizer:
        """The raw tokenizer's ``encode``, ``encode_batch``, ``get_vocab`` and ``to_str``, with ``encode`` tallied."""

        def __init__(self, raw: Any) -> None:
            self.raw = raw
            self.counted = 0
            self.calls = 0

        def encode(
            self, sequence: str, pair: Any = None, is_pretokenized: bool = False, add_special_tokens: bool = True
        ) -> Any:
            enc = self.raw.encode(
                sequence, pair, is_pretokenized=is_pretokenized, add_special_tokens=add_special_tokens
            )
            self.counted += len(enc)
            self.calls += 1
            return enc

        def encode_batch(
            self, inputs: list[str], is_pretokenized: bool = False, add_special_tokens: bool = True
        ) -> Any:
            encs = self.raw.encode_batch(inputs, is_pretokenized=is_pretokenized, add_special_tokens=add_special_tokens)
            self.counted += sum(len(e) for e in encs)
            self.calls += len(encs)
            return encs

        def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
            return self.raw.get_vocab(with_added_tokens)

        def to_str(self, pretty: bool = False) -> str:
            return self.raw.to_str(pretty)

    class CountingTokenizer(TokenizersTokenizer):
        """Tallies in ``tokenizer`` (a :class:`TallyingTokenizer`); counts and methods are the bundled tokenizer's."""

        @property
        def counted(self) -> int:
            return self.tokenizer.counted

        @property
        def calls(self) -> int:
            return self.tokenizer.calls

    base = TokenizersTokenizer.from_file(BUNDLED_TOKENIZER_DIR, max_tokens)
    return CountingTokenizer(tokenizer=TallyingTokenizer(base.tokenizer), max_tokens=max_tokens)


def rendered(doc: Any) -> str:
    """The document rendered once by EvidenceChunker's serializer (Markdown, tables included)."""
    from docling_evidence.tables.serializer import EvidenceSerializerProvider

    return EvidenceSerializerProvider().get_serializer(doc=doc).serialize().text


def document_tokens(doc: Any, tokenizer: Any) -> int:
    """Tokens of the document rendered once (:func:`rendered`)."""
    return sum(tokenizer.count_tokens(line) for line in rendered(doc).split("\n"))


# ---------------------------------------------------------------------------------------------------------------------
# documents


def _table(doc: Any, k: int, prov: Any = None, rich: bool = False) -> Any:
    """Table ``k``: a header and 5 rows. ``rich``: each row's last cell is a rich cell (an inline group of a value
    and a link text, as Docling reads an HTML cell holding a link)."""
    from docling_core.types.doc import DocItemLabel, GroupLabel, TableCell, TableData
    from docling_core.types.doc.document import RichTableCell

    header = ["Segment", "2021", "2022", "Change"]
    rows = [header] + [[f"Region {k}-{r}", f"{100 + 7 * r + k}", f"{110 + 5 * r + k}", f"{r - 2}%"] for r in range(5)]

    def span(i: int, j: int) -> dict[str, int]:
        return {
            "start_row_offset_idx": i,
            "end_row_offset_idx": i + 1,
            "start_col_offset_idx": j,
            "end_col_offset_idx": j + 1,
        }

    is_rich = [[rich and i > 0 and j == 3 for j in range(4)] for i in range(len(rows))]
    cells = [
        TableCell(text=value, column_header=i == 0, **span(i, j))
        for i, row in enumerate(rows)
        for j, value in enumerate(row)
        if not is_rich[i][j]
    ]
    caption = doc.add_text(
        label=DocItemLabel.CAPTION, text=f"Table {k}: Revenue of segment {k} by region", prov=prov[0] if prov else None
    )
    table = doc.add_table(
        data=TableData(num_rows=len(rows), num_cols=4, table_cells=cells),
        caption=caption,
        prov=prov[1] if prov else None,
    )
    for i, row in enumerate(rows):
        if is_rich[i][3]:
            group = doc.add_group(parent=table, label=GroupLabel.INLINE)
            doc.add_text(parent=group, label=DocItemLabel.TEXT, text=row[3])
            doc.add_text(parent=group, label=DocItemLabel.TEXT, text="note")
            doc.add_table_cell(table_item=table, cell=RichTableCell(ref=group.get_ref(), text=row[3], **span(i, 3)))
    return table


def synthetic_doc(n_tables: int, family: str) -> Any:
    """``n_tables`` tables, each with a caption, a lead-in naming it, a comment after it and a filler paragraph.

    ``flow-section``: no layout, all in one section (HTML, DOCX, Markdown). ``flow-rich-cells``: the same with a rich
    cell in every body row (HTML tables with links). ``layout-page``: one tall page holds everything.
    ``layout-section``: one section over pages, four tables per letter-size page.
    """
    from docling_core.types.doc import BoundingBox, CoordOrigin, DocItemLabel, DoclingDocument, ProvenanceItem, Size

    doc = DoclingDocument(name=f"{family}-{n_tables}")
    layout = not family.startswith("flow-")
    per_page = n_tables if family == "layout-page" else 4
    block = 180.0  # points per table block: lead-in, caption, table, comment, filler
    if layout:
        pages = 1 if family == "layout-page" else (n_tables + per_page - 1) // per_page
        height = 60 + per_page * block + 40
        for p in range(1, pages + 1):
            doc.add_page(page_no=p, size=Size(width=612, height=height))

    def prov(page: int, top: float, bottom: float) -> Any:
        if not layout:
            return None
        return ProvenanceItem(
            page_no=page,
            bbox=BoundingBox(l=72, t=top, r=540, b=bottom, coord_origin=CoordOrigin.TOPLEFT),
            charspan=(0, 0),
        )

    doc.add_heading(text="Segment results", level=1, prov=prov(1, 30, 50))
    for k in range(1, n_tables + 1):
        page = 1 + (k - 1) // per_page
        y = 60 + ((k - 1) % per_page) * block
        doc.add_text(
            label=DocItemLabel.TEXT,
            text=f"Table {k} shows the revenue of segment {k}: every region grew, the largest by {k % 9 + 2} percent.",
            prov=prov(page, y, y + 20),
        )
        _table(
            doc,
            k,
            (prov(page, y + 22, y + 34), prov(page, y + 36, y + 120)) if layout else None,
            rich=family == "flow-rich-cells",
        )
        doc.add_text(
            label=DocItemLabel.TEXT,
            text=f"Regional managers attribute the change in segment {k} to pricing and to new distribution partners.",
            prov=prov(page, y + 124, y + 144),
        )
        doc.add_text(
            label=DocItemLabel.TEXT,
            text="The outlook remains cautious: input costs, currency effects and demand may stay volatile.",
            prov=prov(page, y + 148, y + 176),
        )
    return doc


def fixtures() -> list[tuple[str, Any]]:
    from docling_core.types.doc import DoclingDocument

    paths = sorted(FIXTURES.rglob("*.json"), key=lambda p: p.relative_to(FIXTURES).as_posix())
    return [(p.relative_to(FIXTURES).as_posix(), DoclingDocument.load_from_json(p)) for p in paths]


def repeated(doc: Any, times: int) -> Any:
    from docling_core.types.doc import DoclingDocument

    return doc if times == 1 else DoclingDocument.concatenate([doc] * times)


# ---------------------------------------------------------------------------------------------------------------------
# measuring


def chunkers(tokenizer: Any) -> dict[str, Any]:
    from docling_core.transforms.chunker.hybrid_chunker import HybridChunker

    from docling_evidence import EvidenceChunker

    return {"evidence": EvidenceChunker(tokenizer=tokenizer), "hybrid": HybridChunker(tokenizer=tokenizer)}


def cpu_seconds(fn: Callable[[], Any], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def time_docs(docs: list[Any], chunker_set: dict[str, Any], repeats: int) -> dict[str, float]:
    return {
        name: cpu_seconds(lambda c=chunker: [list(c.chunk(d)) for d in docs], repeats)
        for name, chunker in chunker_set.items()
    }


def tokens_per_input(
    named_docs: list[tuple[str, Any]], chunker_names: tuple[str, ...] = ("evidence", "hybrid")
) -> dict[str, Any]:
    """Tokens counted per document token, for each chunker, on ``named_docs`` (in all, and per document)."""
    from docling_core.transforms.chunker.hybrid_chunker import HybridChunker

    from docling_evidence import EvidenceChunker

    plain = counting_tokenizer()
    doc_tokens = {name: document_tokens(d, plain) for name, d in named_docs}
    total = sum(doc_tokens.values())
    out: dict[str, Any] = {"document_tokens": total}
    classes = {"evidence": EvidenceChunker, "hybrid": HybridChunker}
    for name in chunker_names:
        tok = counting_tokenizer()
        chunker = classes[name](tokenizer=tok)
        per: dict[str, float] = {}
        for doc_name, d in named_docs:
            before = tok.counted
            list(chunker.chunk(d))
            per[doc_name] = (tok.counted - before) / max(1, doc_tokens[doc_name])
        out[name] = {
            "counted": tok.counted,
            "calls": tok.calls,
            "per_input_token": tok.counted / total,
            "per_fixture": per,
        }
    return out


def tokenizing_ratio(docs: list[Any], repeats: int) -> dict[str, float]:
    """CPU seconds of chunking ``docs`` with EvidenceChunker against tokenizing every token of them once (each
    rendered document counted whole by the same tokenizer), best of ``repeats`` runs each, the two measured in turn
    (this machine's speed drifts by a third within a minute: measured one after the other, the ratio drifted too)."""
    from docling_evidence import EvidenceChunker
    from docling_evidence.tokenizer import bundled_tokenizer

    tok = bundled_tokenizer()
    texts = [rendered(d) for d in docs]
    chunker = EvidenceChunker(tokenizer=tok)
    list(chunker.chunk(docs[0]))  # warm-up: imports and first-use caches
    provider = chunker.serializer_provider
    tokenize = chunk = serializer = float("inf")
    for _ in range(repeats):
        tokenize = min(tokenize, cpu_seconds(lambda: [tok.count_tokens(t) for t in texts], 1))
        chunk = min(chunk, cpu_seconds(lambda: [list(chunker.chunk(d)) for d in docs], 1))
        # what chunk() starts with, as HybridChunker.chunk() does: docling-core's serializer of the document, whose
        # construction re-validates the whole document (tree checks, every box clamped to its page)
        serializer = min(serializer, cpu_seconds(lambda: [provider.get_serializer(doc=d) for d in docs], 1))
    return {
        "tokenize_s": tokenize,
        "chunk_s": chunk,
        "ratio": chunk / tokenize,
        "serializer_s": serializer,
        "serializer_ratio": serializer / tokenize,
    }


def import_cost() -> dict[str, Any]:
    """Cold import + construction in a fresh interpreter (best of 3)."""
    code = (
        "import sys, time; c=time.process_time(); w=time.perf_counter()\n"
        "from docling_evidence import EvidenceChunker\n"
        "EvidenceChunker()\n"
        "print(time.process_time()-c, time.perf_counter()-w, 'torch' in sys.modules, 'transformers' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    runs = []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
        cpu, wall, torch, transformers = out.stdout.split()
        runs.append((float(cpu), float(wall), torch == "True", transformers == "True"))
    best = min(runs)
    return {
        "cpu_s": best[0],
        "wall_s": min(r[1] for r in runs),
        "torch": any(r[2] for r in runs),
        "transformers": any(r[3] for r in runs),
    }


def pipeline_cost() -> dict[str, Any]:
    """CPU seconds per fixture for what one worker does per file (load the JSON, chunk, build the records), and the
    worker's peak RSS, measured in a fresh interpreter after a warm-up (imports and tokenizer excluded)."""
    code = (
        "import resource, sys, time\n"
        "from pathlib import Path\n"
        "from docling_evidence.batch import ChunkSettings, process_file\n"
        "files = sorted(Path(sys.argv[1]).rglob('*.json'))\n"
        "s = ChunkSettings(); process_file(str(files[0]), s)\n"
        "c = time.process_time()\n"
        "bad = [o.error for o in (process_file(str(f), s) for f in files) if o.error]\n"
        "print(time.process_time() - c, len(files), len(bad), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code, str(FIXTURES)], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-500:])
    cpu, n, bad, rss = out.stdout.split()
    return {"cpu_s_per_doc": float(cpu) / int(n), "docs": int(n), "failed": int(bad), "peak_rss_mib": int(rss) / 1024}


def throughput(files: list[Path], copies: int) -> dict[str, Any]:
    """Docs/s of the CLI on ``copies`` copies of ``files`` (wall clock, start-up included) for --jobs 1, --jobs 2
    and --engine ray (a local Ray instance on this machine's CPUs)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as inputs:
        for c in range(copies):
            for k, f in enumerate(files):
                shutil.copyfile(f, Path(inputs) / f"{c:02d}-{k:03d}-{f.name}")  # copies: the CLI dedups links
        n = copies * len(files)
        runs = (("--jobs 1", ["--jobs", "1"]), ("--jobs 2", ["--jobs", "2"]), ("--engine ray", ["--engine", "ray"]))
        for label, extra in runs:
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / "out.jsonl"
                cmd = [sys.executable, "-m", "docling_evidence.cli", "chunk", inputs, "-o", str(out), *extra]
                start = time.perf_counter()
                proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
                wall = time.perf_counter() - start
                ok = proc.returncode == 0
                results[label] = {
                    "docs": n,
                    "wall_s": wall,
                    "docs_per_s": n / wall if ok else None,
                    "records": sum(1 for _ in out.open()) if ok and out.exists() else None,
                    "error": None if ok else proc.stderr.strip().splitlines()[-1:],
                }
    return results


def pack_queries(chunks: list[Any], scorer: Callable[[str, Any], Any]) -> list[tuple[str, list[Any]]]:
    """Up to :data:`PACK_QUERIES_PER_DOC` queries about table rows of one document, each with its ranking: the first
    piece of the row's unit (its caption/context piece, the case max-pooling gets wrong), the piece showing the row,
    then the chunks of other units sharing most words with the query, :data:`PACK_UNITS` units in all."""
    from docling_evidence.pack.lines import tag_arg

    out: list[tuple[str, list[Any]]] = []
    pieces = [c for c in chunks if c.meta.kind == "table"]
    for piece in pieces[:: max(1, len(pieces) // PACK_QUERIES_PER_DOC)][:PACK_QUERIES_PER_DOC]:
        lines = zip(piece.text.split("\n"), piece.meta.line_roles, strict=False)  # tags are empty when absent
        rows = [line for line, tag in lines if tag_arg(tag)[0] == "row"]
        if not rows:
            continue
        cells = [c.strip() for c in rows[len(rows) // 2].strip("|").split("|") if c.strip()]
        query = f"What is the {' '.join(cells[1:2])} of {cells[0] if cells else ''}?"
        unit = piece.meta.unit_id
        first = next(c for c in chunks if c.meta.unit_id == unit)
        others = [c for c in chunks if c.meta.unit_id != unit]
        scores = scorer(query, [c.text for c in others])
        by_unit: dict[str, Any] = {}
        for _, c in sorted(zip(scores, range(len(others)), strict=True), key=lambda t: -t[0]):
            by_unit.setdefault(others[c].meta.unit_id, others[c])
        ranked = [first, *([piece] if piece is not first else []), *list(by_unit.values())[: PACK_UNITS - 1]]
        out.append((query, ranked))
    return out


def pack_cost(docs: list[Any]) -> dict[str, Any]:
    """CPU milliseconds per ``EvidenceChunker.pack`` call: median and 95th percentile over the queries of
    :func:`pack_queries`, per budget, on a fresh chunker (cold: every chunk read and counted) and warm; and the same
    with the ranked units' other pieces offered too (``pack(..., pieces=chunks)``), as the retrievers pack with a
    budget."""
    from docling_evidence import EvidenceChunker
    from docling_evidence.pack.scoring import lexical_scorer

    cases = []
    for d in docs:
        chunks = list(EvidenceChunker().chunk(d))
        cases += [(q, r, chunks) for q, r in pack_queries(chunks, lexical_scorer)]
    results: dict[str, Any] = {"queries": len(cases), "units": PACK_UNITS, "budgets": {}}
    for budget in PACK_BUDGETS:
        times: dict[str, list[float]] = {"cold": [], "warm": [], "units_cold": [], "units_warm": []}
        for query, ranked, chunks in cases:
            for prefix, pieces in (("", None), ("units_", chunks)):
                chunker = EvidenceChunker()
                start = time.process_time()
                chunker.pack(query, ranked, budget, pieces=pieces)
                times[f"{prefix}cold"].append(1000 * (time.process_time() - start))
                start = time.process_time()
                for _ in range(5):
                    chunker.pack(query, ranked, budget, pieces=pieces)
                times[f"{prefix}warm"].append(1000 * (time.process_time() - start) / 5)
        results["budgets"][str(budget)] = {name: _quantiles(values) for name, values in times.items()}
    return results


def _quantiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"median": 0.0, "p95": 0.0}
    return {"median": ordered[len(ordered) // 2], "p95": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]}


def run(quick: bool, repeats: int, with_throughput: bool) -> dict[str, Any]:
    from docling_evidence.tokenizer import bundled_tokenizer

    tokenizer = bundled_tokenizer()
    chunker_set = chunkers(tokenizer)
    warm = synthetic_doc(2, "layout-page")
    for c in chunker_set.values():
        list(c.chunk(warm))
    results: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "python": platform.python_version(),
    }
    results["import"] = import_cost()
    print("import", results["import"], flush=True)

    fx = fixtures()
    docs = [d for _, d in fx]
    per = {}
    for name, d in fx:
        per[name] = time_docs([d], chunker_set, repeats)
    total = {k: sum(v[k] for v in per.values()) for k in ("evidence", "hybrid")}
    results["fixtures"] = {
        "n": len(fx),
        "per_fixture": per,
        "total": total,
        "ratio": total["evidence"] / total["hybrid"],
    }
    print("fixtures", total, round(results["fixtures"]["ratio"], 3), flush=True)
    results["tokens"] = tokens_per_input(fx)
    results["tokenizing"] = tokenizing_ratio(docs, repeats)
    print(
        "tokens",
        {k: v if not isinstance(v, dict) else round(v["per_input_token"], 3) for k, v in results["tokens"].items()},
        flush=True,
    )
    print("tokenizing", results["tokenizing"], flush=True)
    results["pipeline"] = pipeline_cost()
    print("pipeline", results["pipeline"], flush=True)

    sizes = (1, 8, 64) if quick else (1, 8, 64, 512)
    scale: list[dict[str, Any]] = []
    for family in FAMILIES:
        for n in sizes:
            doc = synthetic_doc(n, family)
            t = time_docs([doc], chunker_set, repeats if n <= 64 else 1)
            scale.append({"family": family, "tables": n, **t, "ratio": t["evidence"] / t["hybrid"]})
            print(scale[-1], flush=True)
    base = dict(fx)[SCALE_FIXTURE] if SCALE_FIXTURE in dict(fx) else docs[0]
    n_base = len(base.tables)
    for times in (1, 8) if quick else (1, 8, 64):
        doc = repeated(base, times)
        t = time_docs([doc], chunker_set, repeats if times <= 8 else 1)
        scale.append(
            {
                "family": f"fixture x{times}",
                "tables": n_base * times,
                "times": times,
                **t,
                "ratio": t["evidence"] / t["hybrid"],
            }
        )
        print(scale[-1], flush=True)
    results["scale"] = scale
    if with_throughput:
        files = sorted(FIXTURES.rglob("*.json"))
        results["throughput"] = throughput(files, copies=1 if quick else 3)
        print("throughput", results["throughput"], flush=True)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1-64 tables and fixtures x1-x8 only")
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement (the best counts)")
    parser.add_argument("--throughput", action="store_true", help="also time the CLI with --jobs 1/2 and Ray")
    parser.add_argument("--write-docs", action="store_true", help="update docs/performance.md and the plot")
    parser.add_argument("--pack", action="store_true", help="measure only the cost of EvidenceChunker.pack")
    parser.add_argument(
        "--tokens",
        action="store_true",
        help="measure only the tokenizer work on the fixtures: tokens counted per document token (EvidenceChunker) "
        "and chunking's CPU time against tokenizing every token once",
    )
    parser.add_argument("--json", type=Path, help="write the raw results here")
    parser.add_argument("--from-json", type=Path, help="report earlier raw results instead of measuring")
    args = parser.parse_args(argv)
    if args.pack:
        if not FIXTURES.is_dir():
            print(f"no fixtures at {FIXTURES}: nothing to measure")
            return 0
        machine = f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
        pack = pack_cost([d for _, d in fixtures()])
        print(pack_markdown(pack, machine))
        if args.json:
            args.json.write_text(json.dumps(pack, indent=1), encoding="utf-8")
        if args.write_docs:
            write_pack_docs(pack, machine)
        return 0
    if args.tokens:
        if not FIXTURES.is_dir():
            print(f"no fixtures at {FIXTURES}: nothing to measure")
            return 0
        fx = fixtures()
        work = {
            "tokens": tokens_per_input(fx, ("evidence",)),
            "tokenizing": tokenizing_ratio([d for _, d in fx], args.repeats),
        }
        print(tokens_markdown(work))
        if args.json:
            args.json.write_text(json.dumps(work, indent=1), encoding="utf-8")
        return 0
    if args.from_json:
        results = json.loads(args.from_json.read_text(encoding="utf-8"))
    elif not FIXTURES.is_dir():
        print(f"no fixtures at {FIXTURES}: nothing to measure")
        return 0
    else:
        results = run(args.quick, args.repeats, args.throughput)
    print(markdown(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    if args.write_docs:
        write_docs(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
