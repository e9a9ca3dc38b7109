"""docling-evidence."""
