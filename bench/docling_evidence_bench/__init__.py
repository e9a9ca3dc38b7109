"""Retrieval benchmark: datasets, arms, retrieval, measures, statistics and reports (imported only when used)."""
