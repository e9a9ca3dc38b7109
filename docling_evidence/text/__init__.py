"""Reading plain text: sentence spans, normalisation and answer matching, words and numbers.

May import: the standard library and docling-core only. Every other stage reads text through this package.
"""
