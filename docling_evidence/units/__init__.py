"""What belongs to a table before any context is chosen: its caption, its title, texts that point at it by place,
and the parts of a table continued on the next page.

May import: ``document``, ``text``, ``tables``.
"""
