"""Query-time packing: deliver the evidence a question needs within a token budget, not whole pieces.

``EvidenceChunker.pack(query, ranked, budget)`` (or :func:`docling_evidence.pack.packer.pack`) reads each retrieved
chunk into selectable segments (``segments``: caption, header, whole rows, sentences, footnotes), scores them against
the query (``scoring``: lexical and numeric overlap by default, any ``scorer(query, texts)`` otherwise) and fills the
budget (``packer``), one block per unit in ranking order; the result (``evidence``) lists what was used for citing.
``expand`` finds the ranked units' other pieces (``pack(..., pieces=)``), grouped as ``segments`` groups chunks.

``budget`` is the one check of a packing budget, also used by the retrievers' ``budget=``
(``docling_evidence.integrations.packing``).

This package imports the package's text helpers (``text.sentences``; ``text.words`` for the word and number sets),
``tables.pipes`` to read a pipe row, ``units.captions``' table label and ``assemble.views``' context gap, never the
chunker: ``lines`` is imported by the chunker itself, so it stays pure string work. Nothing is imported here, so
``import docling_evidence.pack.lines`` stays light.
"""
