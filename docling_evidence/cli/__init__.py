"""The ``docling-evidence`` command line and what only it needs: the app and its entry point (``main``), one module
per command (``chunk_command``, ``inspect_command``, ``example_command``, ``cite_command``), the options they share
(``options``), where ``chunk`` processes files (``engines``), messages and exit codes (``common``), safe output
files, the Markdown listing and the inspector report.

Processing one file into records is :mod:`docling_evidence.batch`, below both the command line and the Ray engine.

May import: the whole library; nothing in the library imports it.
"""
