"""A game's records: the JSONL game log, and what is read from it (the transcript, where
the time went, the per-game metrics)."""
