"""Star Scrappers: Orbital — build a space station over five years (1-5 players)."""
