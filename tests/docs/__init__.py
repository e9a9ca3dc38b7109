"""Tests that keep the README and docs true: their code runs, their figures are the results files'."""
