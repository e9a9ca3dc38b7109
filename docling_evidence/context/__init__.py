"""The context of a table: the paragraphs and sentences that explain it, chosen by layout distance on
paginated documents and by reading order otherwise, within a budget; section peers; the optional similarity gate.

Modules, in the order context choice uses them:

- ``params``: :class:`~docling_evidence.context.params.ContextParams`, every tunable rule, validated;
- ``terms``: what a text may share with a table (its label, words, numbers) and which values are distinctive;
- ``index``: the per-document :class:`~docling_evidence.context.index.ContextIndex`, built once;
- ``candidates``: which paragraphs may be a table's context (neighbours, naming, framed, quoting);
- ``relevance``: which sentences of a candidate explain the table, and in which pass (``Tier``) each is taken;
- ``choose``: ranking and taking sentences within the token budget (``choose_context``);
- ``peers``: section peers; ``similarity``: the optional embedding gate.

May import: ``document``, ``text``, ``tables``, ``units``.
"""
