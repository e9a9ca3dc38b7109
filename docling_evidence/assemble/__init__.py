"""Evidence units and what is embedded: a table with its caption, footnotes and context as one unit, the chunks
of its pieces, and the views (short texts embedded as extra vectors) that point back to a chunk.

Modules, in the order the chunker uses them:

- ``params``: :class:`~docling_evidence.assemble.params.UnitParams` (what a unit attaches) and
  :class:`~docling_evidence.assemble.params.PieceParams` (context budgets and headings in pieces);
- ``units``: :func:`~docling_evidence.assemble.units.build_units`, one unit per table, from a ``UnitRequest``;
- ``budgets``: how many tokens of context a unit may take; ``measure``: texts measured as they are embedded;
- ``paragraphs``: each paragraph as the serializer writes it, rendered once per document;
- ``pieces``: the chunk of each piece (its items, roles and shown characters) and its views; ``shown``: the
  characters of each context paragraph a piece shows; ``views``: row, sentence and caption views;
- ``headings``, ``order``, ``orphans``, ``text_ids``: the text path (headings in scope, where units go in
  reading order, texts no chunk holds, text chunk ids).

May import: every stage below it (``document`` to ``split``), ``docling_evidence.meta`` and
``docling_evidence.tokenizer``.
"""
