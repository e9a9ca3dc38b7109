"""Snapshot of EvidenceChunker's output, to show that a refactoring changes no chunk, view or metadata field.

Writes one JSON line per chunk: document, position, the SHA-1 of the chunk's text, of ``contextualize(chunk)``, of
its views and of its whole metadata as JSON, plus the readable fields (kind, unit id, part/parts, rows, page span).
The documents are every ``*.json`` DoclingDocument under the ``--docs`` folders and, with ``--tatqa``, the TAT-QA
documents built by the benchmark's loader; each is chunked at every ``--max-tokens`` limit. Two snapshots are compared
with ``--compare OLD.jsonl``: the exit code is 1 when they differ, and the first differing chunks are printed. Run
from the repository root::

    HF_HUB_OFFLINE=1 python -m docling_evidence_bench.tools.chunk_snapshot -o /tmp/before.jsonl \
        --max-tokens 128 256 512 2048
    # ... change the code ...
    HF_HUB_OFFLINE=1 python -m docling_evidence_bench.tools.chunk_snapshot -o /tmp/after.jsonl \
        --max-tokens 128 256 512 2048 --compare /tmp/before.jsonl

Folders that do not exist are skipped with a message; with nothing to read it exits 0 without writing anything.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from docling_evidence_bench.paths import REPO

DEFAULT_DOCS = REPO.parent / "shared" / "fixtures"


def _sha1(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def _documents(folders: list[Path], tatqa: Path | None) -> Iterator[tuple[str, Any]]:
    """``(name, DoclingDocument)`` for every document to snapshot, in a stable order."""
    from docling_core.types.doc import DoclingDocument

    for folder in folders:
        for path in sorted(folder.rglob("*.json"), key=lambda p: p.relative_to(folder).as_posix()):
            yield f"{folder.name}/{path.relative_to(folder).as_posix()}", DoclingDocument.load_from_json(path)
    if tatqa is not None:
        from docling_evidence_bench.tatqa import load_tatqa

        for name, doc in load_tatqa(tatqa).documents.items():
            yield f"tatqa/{name}", doc


def snapshot_lines(documents: Iterator[tuple[str, Any]], limits: list[int | None]) -> list[dict[str, Any]]:
    """One record per chunk of every document at every limit, in document, limit and chunk order."""
    from docling_evidence import EvidenceChunker
    from docling_evidence.tokenizer import bundled_tokenizer

    chunkers = {
        limit: EvidenceChunker(**({"tokenizer": bundled_tokenizer(limit)} if limit else {})) for limit in limits
    }
    records: list[dict[str, Any]] = []
    for name, doc in documents:
        for limit, chunker in chunkers.items():
            for k, chunk in enumerate(chunker.chunk(doc)):
                meta = chunk.meta
                records.append(
                    {
                        "doc": name,
                        "limit": limit,
                        "k": k,
                        "text": _sha1(chunk.text),
                        "contextualized": _sha1(chunker.contextualize(chunk)),
                        "views": _sha1(json.dumps(chunker.contextualize_views(chunk))),
                        "meta": _sha1(meta.model_dump_json()),
                        "kind": getattr(meta, "kind", None),
                        "unit_id": getattr(meta, "unit_id", None),
                        "part": getattr(meta, "part", None),
                        "parts": getattr(meta, "parts", None),
                        "page_span": getattr(meta, "page_span", None),
                    }
                )
    return records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, required=True, help="snapshot file to write (JSON lines)")
    parser.add_argument("--compare", type=Path, help="an earlier snapshot to compare with")
    parser.add_argument("--docs", type=Path, nargs="+", default=[DEFAULT_DOCS], help="folders of DoclingDocument JSON")
    parser.add_argument("--tatqa", type=Path, help="a TAT-QA JSON file whose documents are snapshot too")
    parser.add_argument(
        "--max-tokens", type=int, nargs="+", default=[None], help="chunk limits (default: the chunker's)"
    )
    args = parser.parse_args(argv)
    folders = [f for f in args.docs if f.is_dir()]
    for missing in sorted(set(args.docs) - set(folders)):
        print(f"no documents at {missing}: skipped")
    tatqa = args.tatqa if args.tatqa is not None and args.tatqa.is_file() else None
    if not folders and tatqa is None:
        print("nothing to snapshot")
        return 0
    records = snapshot_lines(_documents(folders, tatqa), args.max_tokens)
    args.output.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records), encoding="utf-8")
    print(f"{len(records)} chunks written to {args.output}")
    if args.compare is None:
        return 0
    old = [json.loads(line) for line in args.compare.read_text(encoding="utf-8").splitlines()]
    diffs = [(a, b) for a, b in zip(old, records, strict=False) if a != b]
    if not diffs and len(old) == len(records):
        print("identical to", args.compare)
        return 0
    print(f"differs from {args.compare}: {len(old)} -> {len(records)} chunks, {len(diffs)} differing positions")
    for a, b in diffs[:5]:
        print("  old:", json.dumps(a, sort_keys=True)[:300])
        print("  new:", json.dumps(b, sort_keys=True)[:300])
    return 1


if __name__ == "__main__":
    sys.exit(main())
