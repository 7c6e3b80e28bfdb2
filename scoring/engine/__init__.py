"""The Toepen scoring engine: pure Python, no Django."""
