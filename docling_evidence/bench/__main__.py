"""``python -m docling_evidence.bench``: the benchmark command line (see :mod:`docling_evidence.bench.cli`)."""

import sys

from docling_evidence.bench.cli import app
from docling_evidence.cli.common import run_app

if __name__ == "__main__":
    sys.exit(run_app(app, prog_name="python -m docling_evidence.bench"))
