"""Snapshot of EvidenceChunker's output over every real fixture, to show a refactoring changes no chunk.

Writes one JSON line per chunk: fixture, position, the contextualized text's SHA-1 and the fields of the metadata
that describe the chunk (kind, unit id, part/parts, rows, page span, caption source, doc item refs and roles).
Two snapshots of the same fixtures are compared with ``--compare OLD.jsonl``; the exit code is 1 when they differ,
and the first differing chunks are printed. Run from the repository root::

    HF_HUB_OFFLINE=1 python benchmarks/chunk_snapshot.py -o /tmp/before.jsonl
    # ... change the code ...
    HF_HUB_OFFLINE=1 python benchmarks/chunk_snapshot.py -o /tmp/after.jsonl --compare /tmp/before.jsonl

When ``../shared/fixtures`` is absent it prints a message and exits 0 without writing anything.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_FIXTURES = REPO.parent / "shared" / "fixtures"


def snapshot_lines(fixtures: Path, chunker_kwargs: dict[str, Any]) -> list[dict[str, Any]]:
    """One record per chunk of every ``*.json`` under ``fixtures``, in file and chunk order."""
    from docling_core.types.doc import DoclingDocument

    from docling_evidence import EvidenceChunker

    chunker = EvidenceChunker(**chunker_kwargs)
    records: list[dict[str, Any]] = []
    for path in sorted(fixtures.rglob("*.json"), key=lambda p: p.relative_to(fixtures).as_posix()):
        doc = DoclingDocument.load_from_json(path)
        for k, chunk in enumerate(chunker.chunk(doc)):
            meta = chunk.meta
            records.append(
                {
                    "fixture": path.relative_to(fixtures).as_posix(),
                    "k": k,
                    "sha1": hashlib.sha1(chunker.contextualize(chunk).encode("utf-8")).hexdigest(),
                    "kind": getattr(meta, "kind", None),
                    "unit_id": getattr(meta, "unit_id", None),
                    "part": getattr(meta, "part", None),
                    "parts": getattr(meta, "parts", None),
                    "rows": list(meta.rows) if getattr(meta, "rows", None) else None,
                    "page_span": getattr(meta, "page_span", None),
                    "caption_source": getattr(meta, "caption_source", None),
                    "doc_items": [it.self_ref for it in meta.doc_items],
                    "roles": getattr(meta, "roles", None),
                }
            )
    return records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, required=True, help="snapshot file to write (JSON lines)")
    parser.add_argument("--compare", type=Path, help="an earlier snapshot to compare with")
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES)
    parser.add_argument("--max-tokens", type=int, default=None, help="chunk limit (default: the chunker's)")
    args = parser.parse_args(argv)
    if not args.fixtures.is_dir():
        print(f"no fixtures at {args.fixtures}: nothing to snapshot")
        return 0
    kwargs = {"max_tokens": args.max_tokens} if args.max_tokens else {}
    records = snapshot_lines(args.fixtures, kwargs)
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
