"""The Arena gRPC server: accounts, bot submissions and qualification, tournaments, results and
live match streams. ``serve()`` (in :mod:`arena.server.app`) runs it; ``arena serve`` calls that.

Kept import-light on purpose: the CLI client imports :mod:`arena.sdk.auth` and must not pull
in the database or the referee.
"""
