"""A table as rows of cell texts, and how rows are written (Markdown, HTML, triplets) through docling-core's
serializer framework.

May import: ``docling_evidence.text``, ``docling_evidence.document``.
"""
