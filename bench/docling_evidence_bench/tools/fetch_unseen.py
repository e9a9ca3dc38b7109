"""Fetch and convert the documents of the unseen question set (``data/unseen_questions.jsonl``).

The two documents are Markdown renderings of real arXiv papers (Switch Transformers, arXiv 2101.03961; a multi-column
CNN paper) shipped as examples in the ``marker-pdf`` source distribution on PyPI. They were never used while the
chunker's rules were written or tuned. This tool downloads that sdist with ``pip download`` (a package registry, so it
works offline here), extracts the two Markdown files and converts them with Docling's Markdown backend into
DoclingDocument JSON in ``OUT``; the documents are not stored in this repository. Run::

    python -m docling_evidence_bench.tools.fetch_unseen -o DIR

then ``docling-evidence-bench pack --qa bench/docling_evidence_bench/data/unseen_questions.jsonl --docs DIR``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

SDIST = "marker-pdf==2.0.0"
MEMBERS = {
    "switch_trans.json": "data/examples/markdown/switch_transformers/switch_trans.md",
    "multicolcnn.json": "data/examples/markdown/multicolcnn/multicolcnn.md",
}


def _download_sdist(into: Path) -> Path:
    """``pip download`` the sdist (no dependencies, no build) and return its path."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-d", str(into), SDIST],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    found = sorted(into.glob("marker_pdf-*.tar.gz"))
    if not found:
        raise SystemExit(f"pip download left no marker_pdf sdist in {into}")
    return found[0]


def _extract(sdist: Path, into: Path) -> dict[str, Path]:
    """Extract the Markdown files named in ``MEMBERS``; returns output name -> extracted path."""
    extracted: dict[str, Path] = {}
    with tarfile.open(sdist) as archive:
        by_suffix = {m.name.split("/", 1)[-1]: m for m in archive.getmembers() if m.isfile()}
        for out_name, member in MEMBERS.items():
            info = by_suffix.get(member)
            if info is None:
                raise SystemExit(f"{sdist.name} has no {member}")
            source = archive.extractfile(info)
            assert source is not None  # a regular file member always has a stream
            target = into / Path(member).name
            target.write_bytes(source.read())
            extracted[out_name] = target
    return extracted


def main(argv: list[str] | None = None) -> int:
    """Download, extract and convert; write one JSON per document into ``-o``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", type=Path, required=True, help="folder for the converted JSON documents")
    args = parser.parse_args(argv)
    from docling.document_converter import DocumentConverter

    args.out.mkdir(parents=True, exist_ok=True)
    converter = DocumentConverter()
    with tempfile.TemporaryDirectory() as tmp:
        markdown = _extract(_download_sdist(Path(tmp)), Path(tmp))
        for out_name, path in markdown.items():
            target = args.out / out_name
            if target.is_symlink() or (target.exists() and not target.is_file()):
                raise SystemExit(f"refusing to write over {target}: not a regular file")
            converter.convert(path).document.save_as_json(target)
            print(target)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
