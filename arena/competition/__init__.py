"""Competition: who plays whom, and when.

One module a format: round-robin schedules (round_robin), Swiss pairings (swiss), the ladder's
continuous matchmaking (ladder, ladder_population) and the tournaments and seasons built from
them (tournaments). Which dial-in bots are online for the ladder is dialin_presence. The formats
are independent of each other (an import-linter contract in pyproject.toml); tournaments composes
them.
"""
