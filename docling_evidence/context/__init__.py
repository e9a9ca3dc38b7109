"""The context of a table: the paragraphs and sentences that explain it, chosen by layout distance on
paginated documents and by reading order otherwise, within a budget; section peers; the optional similarity gate.

May import: ``document``, ``text``, ``tables``, ``units``.
"""
