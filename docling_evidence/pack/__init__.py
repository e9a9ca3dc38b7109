"""Query-time packing: deliver the evidence a question needs within a token budget, not whole pieces.

``EvidenceChunker.pack(query, ranked, budget)`` (or :func:`docling_evidence.pack.packer.pack`) reads each retrieved
chunk into selectable segments (``segments``: caption, header, whole rows, sentences, footnotes), scores them against
the query (``scoring``: lexical and numeric overlap by default, any ``scorer(query, texts)`` otherwise) and fills the
budget (``packer``), one block per unit in ranking order; the result (``evidence``) lists what was used for citing.

This package imports docling-core's data model and the package's text helpers (``sentences``, ``context``'s word and
number sets, ``table_format``), never the chunker: ``lines`` is imported by the chunker itself, so it stays pure
string work. Nothing is imported here, so ``import docling_evidence.pack.lines`` stays light.
"""
