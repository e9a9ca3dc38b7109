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
        # member names start with the sdist's top folder ("marker_pdf-2.0.0/"): key them by the path after it
        by_package_path = {m.name.split("/", 1)[-1]: m for m in archive.getmembers() if m.isfile()}
        for out_name, member in MEMBERS.items():
            info = by_package_path.get(member)
            if info is None:
                raise SystemExit(f"{sdist.name} has no {member}")
            source = archive.extractfile(info)
            assert source is not None  # a regular file member always has a stream
            target = into / Path(member).name
            target.write_bytes(source.read())
            extracted[out_name] = target
    return extracted


def main(argv: list[str] | None = None) -> int:
    """Download, extract and convert; write one JSON per document into ``-o`` (as the library's CLI writes: each
    output checked before any work, written atomically, never over a folder or an input)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", type=Path, required=True, help="folder for the converted JSON documents")
    args = parser.parse_args(argv)
    from docling_evidence.cli.safe_write import OutputError, check_output, write_json

    targets = {name: args.out / name for name in MEMBERS}
    try:
        for target in targets.values():
            check_output(target, parents=True)
    except OutputError as exc:
        raise SystemExit(f"error: {exc}") from None
    from docling.document_converter import DocumentConverter

    converter = DocumentConverter()
    with tempfile.TemporaryDirectory() as tmp:
        markdown = _extract(_download_sdist(Path(tmp)), Path(tmp))
        for out_name, path in markdown.items():
            document = converter.convert(path).document
            print(write_json(targets[out_name], document.export_to_dict(), indent=2, parents=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
