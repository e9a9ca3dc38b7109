"""``python -m docling_evidence.cli``: the ``docling-evidence`` command."""

from docling_evidence.cli.main import main

main()
