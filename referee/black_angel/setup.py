"""Game setup (rulebook [3] 게임 준비, and the setup changes of [6] 2인 게임 / 1인 게임)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.black_angel import board as B
from referee.black_angel import data as D
from referee.black_angel import turns
from referee.black_angel.decisions import register
from referee.rng import Rng

if TYPE_CHECKING:
    from referee.black_angel.state import BlackAngelState

# Hal's starting VP sets the difficulty: black-angel.ko.txt [6] 1인 게임 게임 준비 "할의 디스크 하나를
# 승점 트랙의 5점 칸에 놓고" and 게임 종료 "(쉬움: 0점, 보통: 5점, 어려움: 10점, 매우 어려움: 15점)".
# Hal takes no player aid: he has no storage and the solo set-up gives his disc that one space.
HAL_START_VP = {"solo": 5, "solo-advanced": 5, "solo-d0": 0, "solo-d10": 10, "solo-d15": 15,
                "solo-advanced-d0": 0, "solo-advanced-d10": 10, "solo-advanced-d15": 15}


def set_up(s: BlackAngelState, players: int, seed: int, variant: str) -> None:
    s.players, s.seed, s.variant = players, seed, variant
    s.rng = rng = Rng(seed)
    s.adv = variant.startswith(("advanced", "solo-advanced"))
    s.solo = players == 1
    s.neutral = players == 2
    s.hal_vp = HAL_START_VP.get(variant, 0)
    s.log, s._opts, s.ctx, s.cards = [], None, {}, {}
    s.opening = opening = []
    # 2. dice by player count
    n_dice = D.DICE_PER_COLOUR[players]
    s.supply, s.sdmg, s.dmg = [n_dice] * 3, [0, 0, 0], [0] * 6
    # 3. the space board: 7 strips (5 with 2 players or solo), any order, any side
    chosen = list(range(7))
    rng.shuffle(chosen)
    s.strips = chosen[: D.STRIPS_USED[players]]
    s.side = [rng.below(2) for _ in range(7)]
    s.spes_token, s.spes_tile, s.spes_reached, s.advances = s.strips[-1], -1, False, 0
    # 5. technology tiles: one of each colour on the first three display spaces, in random order
    s.t_stack = [list(D.TECH_BY_COLOUR[c]) for c in range(3)]
    for st in s.t_stack:
        rng.shuffle(st)
    s.t_disc = []
    first = [s.t_stack[c].pop() for c in range(3)]
    rng.shuffle(first)
    s.display = first + [-1] * (D.DISPLAY_SIZE - 3)
    opening.append(f"{players} player(s), variant {variant}: {D.DICE_PER_COLOUR[players]} dice per colour, "
                   f"{len(s.strips)} space strips; the Black Angel on the middle hex of strip "
                   f"{len(s.strips) // 2 + 1}, the Spes token on strip {len(s.strips)}")
    opening.append("technology display: " + ", ".join(
        f"{D.TILE[t]['colour']} tile {t} (cost {D.DISPLAY_COST[i]})" for i, t in enumerate(first)))
    # 6. advanced technology: a hidden deck, four face up
    s.a_deck = sorted(D.ADV)
    rng.shuffle(s.a_deck)
    s.a_disp = [s.a_deck.pop() for _ in range(D.ADV_SPACES)]
    opening.append("advanced technology: " + ", ".join(f"tile {t} ({D.ADV[t]['counts']})" for t in s.a_disp))
    # 7. mission decks by colour
    s.m_deck = [list(D.MISSIONS_BY_COLOUR[c]) for c in range(3)]
    for deck in s.m_deck:
        rng.shuffle(deck)
    s.m_disc = [[], [], []]
    # 8. Ravagers: fewer with fewer players; two open the game with their damage
    s.rav_deck = list(D.RAVAGER_IDS)
    rng.shuffle(s.rav_deck)
    del s.rav_deck[: D.RAVAGERS_REMOVED[players]]
    s.rav_disc, s.rav_on = [], [[] for _ in range(6)]
    if D.RAVAGERS_REMOVED[players]:
        opening.append(f"{D.RAVAGERS_REMOVED[players]} Ravager cards are returned to the box")
    for _ in range(2):
        card = s.rav_deck.pop()
        a = D.RAV_ACTION[card]
        s.rav_on[a].append(card)
        B.damage_action(s, a)
        opening.append(f"opening Ravager {card} ({D.RAV_EFFECT[card]}) attacks action {a + 1}: "
                       f"damage cube {s.dmg[a]} of 2 on it")
    # 9-14. each player's board and pieces
    st = D.START
    p = players
    s.vp = [st["vp"]] * p
    s.res, s.deb, s.shp = [st["resources"]] * p, [st["debris"]] * p, [st["ships"]] * p
    s.rbreak, s.rsup = [st["robots_break_room"]] * p, [st["robots_supply"]] * p
    s.work = [[st["robots_per_workstation"]] * 3 for _ in range(p)]
    s.grid, s.boost, s.gdeb = [], [], []
    for seat in range(p):
        grid = [-1] * 9
        tiles = list(D.START_TILES[seat])
        rng.shuffle(tiles)
        for cell, tile in zip(D.START_CELLS, tiles, strict=False):
            grid[cell] = tile
        s.grid.append(grid)
        s.boost.append([0] * 9)
        s.gdeb.append([0] * 9)
    s.hand_m = [[s.m_deck[c].pop() for c in range(3)] for _ in range(p)]
    s.hand_r = [[s.rav_deck.pop()] for _ in range(p)]
    s.known_r = [[] for _ in range(p)]
    s.slots = [[-1] * 6 for _ in range(p)]
    s.ej_tiles = [[] for _ in range(p)]
    s.ej_adv = [[-1, -1, -1] for _ in range(p)]
    s.ej_over = [[] for _ in range(p)]
    s.ej_cards = [[[], [], []] for _ in range(p)]
    s.ships = []
    # the neutral player (2 players) or Hal (solo) keeps its dice in compartment index p
    s.comp = [[] for _ in range(p + (1 if s.neutral or s.solo else 0))]
    s.nwork = [1, 1, 1] if s.neutral else [0, 0, 0]
    s.hal_deck = list(range(len(D.HAL_CARDS))) if s.solo else []
    rng.shuffle(s.hal_deck)
    s.hal_disc, s.hal_card = [], []
    # 15. turn order, the opening roll and the player aids' advantages
    for seat in range(p):
        for c in range(3):
            B.take_die_from_supply(s, c)
            s.comp[seat].append(B.roll(s, c))
        B.apply_effect(s, seat, D.AIDS[seat]["reward"])
        opening.append(f"seat {seat} (player {seat + 1} in turn order) rolls " + _dice_text(s.comp[seat])
                       + f"; player aid advantage: {B.effect_text(D.AIDS[seat]['reward'])}")
    if s.neutral or s.solo:
        for c in range(3):
            B.take_die_from_supply(s, c)
            s.comp[p].append(B.roll(s, c))
        who = "the neutral player" if s.neutral else f"Hal (starting at {s.hal_vp} VP)"
        opening.append(f"{who} rolls " + _dice_text(s.comp[p]))
    s.round, s.end_trig, s.last_round, s.over = 1, False, -1, False
    s.last_seq = ""
    s.seat = 0
    reserving = [seat for seat in range(p) if D.AIDS[seat]["free_reserve"]]
    if reserving:
        s.ctx = {"queue": reserving}
        s.seat = reserving[0]
        s.phase = "setup_reserve"
    else:
        turns.begin_turn(s)


def _dice_text(comp: list[int]) -> str:
    return ", ".join(f"{D.COLOURS[B.die_colour(c)]} {B.die_face(c)}" for c in comp)


def _reserve_options(s: BlackAngelState) -> list[tuple[str, str]]:
    out = [("none", "keep all dice in the standard area")]
    for i, code in enumerate(s.comp[s.seat]):
        out.append((f"reserve:{i}", f"reserve {D.COLOURS[B.die_colour(code)]} {B.die_face(code)} for free"))
    return out


def _reserve_apply(s: BlackAngelState, oid: str) -> None:
    if oid != "none":
        i = int(oid.split(":")[1])
        s.comp[s.seat][i] |= 4
        code = s.comp[s.seat][i]
        line = (f"seat {s.seat} moves its {D.COLOURS[B.die_colour(code)]} {B.die_face(code)} to the "
                "high-security area for free")
    else:
        line = f"seat {s.seat} keeps all its dice in the standard area"
    s.log.append(line)
    s.opening.append(line)
    queue = s.ctx["queue"][1:]
    if queue:
        s.ctx = {"queue": queue}
        s.seat = queue[0]
        return
    s.ctx = {}
    s.seat = 0
    turns.begin_turn(s)


register("setup_reserve", "3rd/4th player: move one die to your high-security area for free",
         _reserve_options, _reserve_apply)
