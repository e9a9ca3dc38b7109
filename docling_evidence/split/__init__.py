"""Fitting the tokenizer's limit: a unit split by rows, by columns or inside a cell, and the text outside
units chunked as HybridChunker chunks it.

May import: ``text``, ``tables``, ``docling_evidence.tokenizer``.
"""
