"""Evaluation: how strong a bot is.

The ratings (ratings: TrueSkill and its anchors) and the sequential probability ratio test that
decides whether a new version is better than the one it replaces (sprt). Pure computation over
the database's rows: no queue, no server.
"""
