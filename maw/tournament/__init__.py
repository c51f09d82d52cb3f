"""Tournaments: many games unattended, their results in SQLite, and the report."""
