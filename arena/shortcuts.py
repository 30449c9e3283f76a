"""The platform's shortcuts into the broker, Redis, database and rating packages, registered in
one place (:mod:`referee.shortcuts` is the switch; docs/shortcuts.md the table: what, why, the
measured gain, how to turn each off).

Registered here rather than in each module that uses one, so that importing this module (which
imports nothing heavy) is enough for ``ARENA_SHORTCUTS`` to know every name: a setting that
names one is checked against the registry (:func:`referee.shortcuts.check_setting`) before the
modules that use it may have been imported.

Each one's public path is the dependency's own behaviour, and runs whenever the shortcut is off
(``ARENA_SHORTCUTS``) or the installed release is not one it was tested with (the version gate).

One more was measured and removed (docs/shortcuts.md): kombu's Redis channel keeping one
redis-py client, which saved ~2 % of the platform cost per match (the scripts below already
keep kombu's per-delivery client construction off the hot path).
"""

from __future__ import annotations

from referee.shortcuts import Shortcut, enabled, register

__all__ = [
    "KOMBU_RESTORE",
    "KOMBU_UNACKED_SCRIPTS",
    "REDIS_DIRECT_SCRIPTS",
    "SQL_DRIVER_CURSOR",
    "TRUESKILL_TWO_SEAT",
    "enabled",
]

#: kombu bug work-around (celery/kombu#970, celery/kombu#582): a worker that loses Redis while
#: it holds unacknowledged messages no longer stops on AttributeError. Off: kombu's own
#: ``QoS.restore_unacked``, with that bug (the worker stops; its supervisor restarts it).
KOMBU_RESTORE = register(
    Shortcut(
        "kombu_restore_fix",
        package="kombu",
        tested=("5.7",),
        what="replaces kombu.transport.redis.QoS.restore_unacked (bug work-around)",
    )
).name

#: Per-match SQL on the DB-API cursor under SQLAlchemy. Off: the same statements through
#: SQLAlchemy's execution layer (``Connection.execute``), values converted by its column types.
SQL_DRIVER_CURSOR = register(
    Shortcut(
        "sql_driver_cursor",
        package="sqlalchemy",
        tested=("2.1",),
        what="per-match statements as SQL text on the DB-API cursor beneath SQLAlchemy, with "
        "SQLAlchemy's value conversions and psycopg's parameter style copied",
    )
).name

#: A delivery's and an ack's bookkeeping as one Lua script each. Off: kombu's own
#: ``QoS.append``/``QoS.ack`` (MULTI/EXEC pipelines of two commands each).
KOMBU_UNACKED_SCRIPTS = register(
    Shortcut(
        "kombu_unacked_scripts",
        package="kombu",
        tested=("5.7",),
        what="replaces kombu.transport.redis.QoS.append and QoS.ack with scripts writing kombu's "
        "unacked keys",
    )
).name

#: EVALSHA sent and read on a connection of our own (redis-py's Connection internals). Off:
#: redis-py's ``register_script`` Script objects, called through a client.
REDIS_DIRECT_SCRIPTS = register(
    Shortcut(
        "redis_direct_scripts",
        package="redis",
        tested=("8.2",),
        what="EVALSHA packed, sent and read on a redis-py Connection outside its pool",
    )
).name

#: Two-seat TrueSkill update written out on floats. Off: ``trueskill.TrueSkill.rate``.
TRUESKILL_TWO_SEAT = register(
    Shortcut(
        "trueskill_two_seat",
        package="trueskill",
        tested=("0.4.5",),
        what="re-implements trueskill's factor-graph schedule for two one-player teams",
    )
).name
