"""The document as Docling gives it: loading and converting inputs, one indexed pass over a DoclingDocument
(reading order, pages, captions and footnotes of items, page boilerplate by ``params.DocumentParams``), and the
geometry of provenance boxes.

May import: docling-core, ``docling_evidence.text``. Nothing above it in the pipeline.
"""
