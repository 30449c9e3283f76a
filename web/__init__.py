"""The Tabletop Arena website: leaderboards, bot pages, match history, replays and a JSON API.

Read-only over the platform's database: every page renders from SQL alone (no Redis, no
running workers), so the site stays up while tournaments are paused or the broker is down.
"""
