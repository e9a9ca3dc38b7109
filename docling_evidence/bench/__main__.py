"""``python -m docling_evidence.bench``: the benchmark command line (see :mod:`docling_evidence.bench.cli`)."""

from docling_evidence.bench.cli import app

if __name__ == "__main__":
    app(prog_name="python -m docling_evidence.bench")
