"""``python -m docling_evidence_bench``: the benchmark command line (see :mod:`docling_evidence_bench.cli`)."""

from docling_evidence_bench.cli import main

if __name__ == "__main__":
    main(prog_name="python -m docling_evidence_bench")
