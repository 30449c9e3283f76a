"""The decision the referee plays for a forfeited seat: the one that disturbs the others least.

Why: the match goes on for the other seats, so the forfeited seat should leave their game as
it would have been. Sequence B advances the Black Angel (each B shortens everyone's game), so
it is only taken when sequence A is impossible ([4]: "시퀀스 A를 수행할 수 없다면, 시퀀스 B를
수행해야 합니다"), and in the final turn the seat passes instead ([5] 중요사항). In sequence A
the seat plays no card, uses its own lowest die (never buying another seat's die, which would
pay that seat and take its die) on an action that touches nothing others own: destroy, repair
or discovery, stopping at once. A star die can only command; then the ship stays and the
forced mission goes where it must.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.black_angel import board as B

if TYPE_CHECKING:
    from referee.black_angel.state import BlackAngelState

#: Options that end a step doing nothing, tried first in every phase.
_STOP = ("pass", "nocard", "none", "noplace", "noboost", "done")
#: Non-command actions, in the order least useful to the others (nothing is taken from them).
_QUIET_ACTIONS = ("act:5", "act:3", "act:1")


def fallback_option(s: BlackAngelState) -> str:
    ids = s.option_ids()
    for stop in _STOP:
        if stop in ids:
            return stop
    if s.phase == "turn":
        return "A" if "A" in ids else ids[0]
    if s.phase == "a_die":
        return _least_die(s, ids)
    if s.phase == "a_use":
        for quiet in _QUIET_ACTIONS:
            if quiet in ids:
                return quiet
        own = [o for o in ids if o.startswith("act:")]  # a command: never a mission of another
        return own[0] if own else ids[0]
    if s.phase == "cmd_ship":
        return next((o for o in ids if o != "ship:new"), ids[0])  # no new ship, no robot spent
    if s.phase == "cmd_move":
        start = s.ships[s.ctx["ship"]][1]
        return f"to:{start}" if f"to:{start}" in ids else ids[0]
    return ids[0]


def _least_die(s: BlackAngelState, ids: list[str]) -> str:
    """Own dice first, lowest non-star face first (a star must command); a neutral or Hal's die
    before another seat's when only bought dice are left."""
    own = [o for o in ids if o.startswith("use:")]
    if own:
        def face(oid: str) -> tuple[bool, int]:
            f = B.die_face(s.comp[s.seat][int(oid[4:])])
            return (f == 0, f)

        return min(own, key=face)
    bought = [o for o in ids if o.startswith("buy:")]
    if bought:
        return max(bought, key=lambda o: int(o.split(":")[1]) >= s.players)
    return ids[0]

