"""Hostile: dies before it ever serves (as a bot with a broken import would)."""

import sys

print("crash_at_start: giving up before serving", file=sys.stderr, flush=True)
sys.exit(3)
