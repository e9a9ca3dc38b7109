"""The ``docling-evidence`` command line and what only it needs: safe output files, the Markdown listing, the
inspector report, the limit search.

May import: the whole library; nothing in the library imports it.
"""
