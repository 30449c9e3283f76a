"""A greedy Black Angel bot: one rule of thumb per decision, read off the observation.

Why these rules: most VP a random player loses comes from sequence B with unused dice (their
value is lost) and from wasting dice on actions that do nothing. So this bot always plays
sequence A while it can, uses dice where they achieve something (place missions for their
rewards, take advanced tiles for end scoring, destroy Ravagers to feed card plays), and plays
cards into the line that activates the most technology tiles.
"""

from __future__ import annotations

from typing import Any

from arena.sdk import serve_bot

COLOURS = ("orange", "gray", "green")
ACTION_COLOUR = (0, 0, 1, 1, 2, 2)
ACTION_KIND = ("discover", "command", "repair", "command", "destroy", "command")
SLOT_CELLS = {"R1": (0, 1, 2), "R2": (3, 4, 5), "R3": (6, 7, 8), "C1": (0, 3, 6), "C2": (1, 4, 7), "C3": (2, 5, 8)}


def _me(obs: dict[str, Any]) -> dict[str, Any]:
    return obs["seats"][obs["you"]]


def _tile_value(tile: dict[str, Any] | None) -> float:
    if not tile or tile.get("colour") == "black" or tile.get("boost_side_up"):
        return 0.0
    eff = tile.get("effect", {})
    return eff.get("vp", 0) * 1.0 + 0.6 * sum(v if isinstance(v, int) else 1 for k, v in eff.items() if k != "vp")


def _line_value(me: dict[str, Any], slot: str, colour: str | None) -> float:
    total = 0.0
    for cell in SLOT_CELLS[slot]:
        t = me["grid"][cell]
        if t and (colour is None or t["colour"] == colour):
            total += _tile_value(t)
    return total


def _free_slots(me: dict[str, Any]) -> list[str]:
    return [name for name, used in zip(SLOT_CELLS, me["slots_used"], strict=False) if not used]


def _card_colour(me: dict[str, Any], code: str) -> str | None:
    if code == "r":
        return None
    mid = int(code[1:])
    return next(m["colour"] for m in me["hand"]["missions"] if m["id"] == mid)


def _choose_card(obs: dict[str, Any], ids: list[str]) -> str:
    me = _me(obs)
    best, best_v = "nocard", 0.0
    slots = _free_slots(me)
    for oid in ids:
        if not oid.startswith("card:"):
            continue
        colour = _card_colour(me, oid[5:])
        v = max((_line_value(me, sl, colour) for sl in slots), default=0.0)
        if colour is not None:
            v -= 0.3  # a mission is worth keeping for space
        if v > best_v:
            best, best_v = oid, v
    return best


def _choose_slot(obs: dict[str, Any], ids: list[str]) -> str:
    me = _me(obs)
    colour = _card_colour(me, obs["context"]["card"])
    return max(ids, key=lambda oid: _line_value(me, oid[5:], colour))


def _die_face(obs: dict[str, Any], oid: str) -> int:
    parts = oid.split(":")
    if parts[0] == "use":
        return _me(obs)["dice"][int(parts[1])]["face"]
    owner = int(parts[1])
    comp = obs["neutral"]["dice"] if owner >= obs["players"] and "neutral" in obs else (
        obs["hal"]["dice"] if owner >= obs["players"] else obs["seats"][owner]["dice"])
    return comp[int(parts[2])]["face"]


def _choose_die(obs: dict[str, Any], ids: list[str]) -> str:
    me = _me(obs)
    for oid in ids:  # turn a star into a 2 when debris allows
        if oid.startswith("flip:") and me["dice"][int(oid[5:])]["face"] in (0, 1):
            return oid
    uses = [o for o in ids if o.startswith("use:")]
    if uses:
        return max(uses, key=lambda o: _die_face(obs, o))
    buys = [o for o in ids if o.startswith("buy:")]
    if buys:
        return max(buys, key=lambda o: _die_face(obs, o))
    return ids[0]


def _use_score(obs: dict[str, Any], oid: str) -> float:
    me = _me(obs)
    face = obs["context"]["die"] & 3
    if oid.startswith("rc"):
        return _use_score(obs, oid[3:]) - 0.5
    kind, arg = oid.split(":")
    if kind == "mis":
        return 1.5 * face
    k = int(arg) - 1
    action = obs["actions"][k]
    penalty = 0.6 if action["ravagers"] else 0.0
    value = max(0, face - (1 if action["damage"] >= 2 and face else 0))
    what = ACTION_KIND[k]
    colour = COLOURS[ACTION_COLOUR[k]]
    if what == "command":
        has = any(m["colour"] == colour for m in me["hand"]["missions"])
        return (4.0 if has and me["robots_break_room"] > 1 else 0.3) - penalty
    if what == "discover":
        adv = any(obs["advanced_display"]) and value >= 2
        cheap = any(t for t, c in zip(obs["display"], obs["display_costs"], strict=False) if t and c <= value)
        return (3.5 if adv else 2.0 if cheap else 0.0) - penalty
    if what == "destroy":
        stacks = [len(a["ravagers"]) for a in obs["actions"] if a["ravagers"]]
        return (1.0 + sum(n for n in stacks if n <= value) * 0.8 if any(n <= value for n in stacks) else 0.0) - penalty
    cubes = sum(a["damage"] for a in obs["actions"]) + sum(d["damaged"] for d in obs["dice_supply"].values())
    return (1.0 + 0.5 * min(cubes, value) if cubes else 0.0) - penalty


def _choose_move(obs: dict[str, Any], ids: list[str]) -> str:
    colour = COLOURS[obs["context"]["col"]]
    hexes = {h["hex"]: h for st in obs["space"]["strips"] for h in st["hexes"]}
    me = _me(obs)
    has = any(m["colour"] == colour for m in me["hand"]["missions"])

    def score(oid: str) -> float:
        h = hexes[int(oid[3:])]
        good = h["type"] == colour and "mission" not in h and has
        return (10.0 if good else 0.0) - 0.1 * h["icons"]

    return max(ids, key=score)


def _choose_place(obs: dict[str, Any], ids: list[str]) -> str:
    me = _me(obs)
    missions = {m["id"]: m for m in me["hand"]["missions"]}
    best, best_v = ids[0], -1.0
    for oid in ids:
        if oid == "noplace":
            continue
        m = missions[int(oid[6:])]
        v = sum(m["reward"].values()) + 0.5 * m["reward"].get("vp", 0)
        if v > best_v:
            best, best_v = oid, v
    return best


def act(observation: dict[str, Any], legal_options: list[Any]) -> str:
    ids = [o.id for o in legal_options]
    phase = observation.get("phase")
    if phase == "turn":
        for pref in ("A", "pass", "B"):
            if pref in ids:
                return pref
    if phase == "a_card":
        return _choose_card(observation, ids)
    if phase == "a_slot":
        return _choose_slot(observation, ids)
    if phase == "a_die":
        return _choose_die(observation, ids)
    if phase == "a_use":
        return max(ids, key=lambda o: _use_score(observation, o))
    if phase == "discover":
        adv = [o for o in ids if o.startswith("take:a")]
        tiles = [o for o in ids if o.startswith("take:d")]
        return adv[0] if adv else (tiles[-1] if tiles else "done")
    if phase == "repair":
        return next((o for o in ids if o != "done"), "done")
    if phase == "debris":
        return ids[-1]
    if phase == "destroy":
        return next((o for o in ids if o != "done"), "done")
    if phase == "cmd_ship":
        return next((o for o in ids if o != "ship:new"), ids[0])
    if phase == "cmd_move":
        return _choose_move(observation, ids)
    if phase == "cmd_card":
        return _choose_place(observation, ids)
    if phase == "a_boost":
        return ids[-1]
    if phase in ("b_reserve", "setup_reserve"):
        return "none" if "none" in ids else ids[0]
    return ids[0]


if __name__ == "__main__":
    serve_bot(act)
