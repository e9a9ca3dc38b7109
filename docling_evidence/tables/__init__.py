"""A table as rows of cell texts, and how rows are written (Markdown, HTML, triplets) through docling-core's
serializer framework.

``rows`` reads a table into header and body rows; ``formats`` holds every row format, registered once by its kind;
``serializer`` picks the format a unit shows (the ``table_format`` setting, or another serializer's own output);
``pipes`` reads a Markdown pipe row into its cells and tells a separator row, for every reader of one; ``affinity``
tells which rows a text names.

May import: ``docling_evidence.text``, ``docling_evidence.document``.
"""
