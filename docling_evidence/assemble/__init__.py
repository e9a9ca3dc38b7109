"""Evidence units and what is embedded: a table with its caption, footnotes and context as one unit, and
the views (short texts embedded as extra vectors) that point back to a chunk.

May import: every stage below it (``document`` to ``split``) and ``docling_evidence.meta``.
"""
