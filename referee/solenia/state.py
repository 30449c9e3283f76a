"""The Solenia engine: one decision at a time, exactly as the Korean rulebook plays.

A turn (3. 게임의 진행) is split into small decisions: which card, which cell, which resources
to discard for a distant cell, which supply tile, how to pay it, where it goes (winter), which
bonus resources, and — whenever a store overflows — which resources to throw away. The supply
ship rule runs at the end of every turn in which the ship moved; the virtual player of the solo
game is played here, inside :meth:`apply`.
"""

from __future__ import annotations

from typing import Any

from referee.engine import (
    GameSpec,
    GameState,
    IllegalAction,
    Option,
    Result,
    TimeControl,
    competition_ranks,
    seen_by,
    solo_outcome,
)
from referee.rng import Rng
from referee.solenia import draft as draft_rules
from referee.solenia import placement, turn_end, views, virtual_player
from referee.solenia.data import (
    BOARD_COUNT,
    BOARD_SIDES,
    CARD_VALUE,
    CELL_NAMES,
    DAY,
    DAY_CITY,
    DECK_SIZE,
    HAND_SIZE,
    KIND_NAMES,
    LAYOUTS,
    NIGHT,
    RES_INDEX,
    RESOURCES,
    REVEALED_TILES,
    SHIP_HOME_COLUMN,
    SIDE_NAMES,
    STARTING_RESOURCES,
    SUMMER_BONUS,
    SUMMER_LIMIT,
    SUMMER_SLOTS,
    TECH_CAP,
    TECH_EFFECT,
    TILE_COST,
    TILES_OF_KIND,
    WINTER_LIMIT,
    WINTER_SLOT_NAMES,
    card_text,
    plural,
    solo_message,
    tile_text,
)
from referee.solenia.fields import (
    AFTER_EFFECTS,
    AFTER_RECOVERY,
    EMPTY,
    FLAT_LISTS,
    NESTED_LISTS,
    P_CARD,
    P_CELL,
    P_DRAFT,
    P_DROP,
    P_GAIN,
    P_OVER,
    P_PAY,
    P_SHIP,
    P_SLOT,
    P_SPEND,
    P_TILE,
    P_VPCELL,
    SCALARS,
    VP,
)
from referee.solenia.geometry import CELLS, col_row
from referee.solenia.payment import can_pay, payments
from referee.solenia.personal_board import (
    summer_slot,
    winter_slot_effect,
    winter_slots,
    winter_storage,
    winter_waivers,
)
from referee.solenia.scoring import score_breakdown, virtual_player_score

#: Every field of the state by its rulebook term (solenia.ko.txt), so a reader finds a rule by
#: name. A position is column*7 + row on the five joined boards; per-resource lists are
#: [wood, stone, wheat, water]; kind 0 is day, 1 is night; seats are 0-3, the virtual player 4.
GLOSSARY: dict[str, str] = {
    "players": "인원: player count (1-4)",
    "variant": "summer (기본 규칙, 여름면) / winter (상급 규칙 1) / winter-tech (상급 규칙 2)",
    "seed": "the match seed every shuffle and roll comes from",
    "solo": "1인용 규칙: one player against the virtual player",
    "winter": "겨울면: the winter side of the personal boards",
    "tech": "기술 타일: the technology tiles are in play",
    "rng": "the seeded generator (shuffles, the virtual player's die)",
    "ship_col": "보급 우주선: the supply ship's column (the boards turn under it)",
    "cur": "whose turn it is (4 = the virtual player)",
    "phase": "the decision asked now (fields.P_*)",
    "sel_card": "the spaceship card being played",
    "sel_cell": "the cell it goes to",
    "pay_left": "자원을 버리고 다른 칸에: resources still to discard for the distance",
    "pend_kind": "도시 지역: day or night city of the supply tile being completed",
    "pend_tile": "the supply tile (보급품 타일) being completed",
    "pend_index": "its space in the row on show",
    "bonus_left": "보너스: bonus resources still to choose",
    "after_drop": "what follows once every store is back under its limit",
    "vp_card": "the virtual player's card in play",
    "vp_die": "1인용 주사위: the virtual player's last roll",
    "vp_used": "the virtual player's cards used (of 16)",
    "board_at": "게임판: board ids from left to right",
    "side_at": "the side each of those boards shows",
    "ctype": "칸: what each position is (wood, stone, wheat, water, day city, night city)",
    "owner": "whose spaceship card lies on each position (-1 none, 4 virtual player)",
    "card": "the spaceship card on each position",
    "stars": "별 모양 점수 토큰: each seat's stars",
    "used": "cards each seat has used (the game ends at 16 each)",
    "tech1": "1단계 기술 타일: each seat's level-1 tile",
    "bonus_from": "the resources the bonus may be taken in",
    "excess": "seats over the storage limit (8, winter 6 + 창고 확장), in order",
    "vp_deck": "the virtual player's spaceship deck",
    "vp_tiles": "supply tiles the virtual player has taken (its score, 1인용 규칙)",
    "draft_queue": "기술 타일 드래프트: who picks next, last player first",
    "offer1": "the level-1 tiles on offer",
    "vp_options": "cells next to its own card the player may choose for the virtual player",
    "vp_out": "the virtual player's cards out of the game",
    "market": "공개된 보급품 타일: the day and night rows on show",
    "tile_deck": "보급품 타일 더미: the day and night piles",
    "hand": "손: each seat's spaceship cards in hand (3)",
    "deck": "우주선 카드 더미: each seat's deck",
    "res": "자원: each seat's wood, stone, wheat, water",
    "out_cards": "개인 보드 오른쪽에 버린 카드: each seat's recovered (used-up) cards",
    "tech3": "3단계 기술 타일: each seat's day and night level-3 tiles",
    "tech_pts": "points each level-3 tile has given so far (12 at most)",
    "offer3": "the level-3 day/night sets on offer",
    "rows": "개인 보드: each seat's day and night rows of supply tiles (summer 6 spaces, "
            "winter levels 1A 1B 2A 2B 3A 3B)",
    "opening": "what set-up did, as event lines",
    "_cache": "cache of the legal options",
}

VARIANT_HELP = {
    "summer": "base game: summer side of the personal boards (6-level bonus track, set bonus)",
    "winter": "advanced rule 1: winter side (3 levels x 2 bonuses, storage 6 expandable to 8)",
    "winter-tech": "advanced rule 2: winter side with level-1 and level-3 technology tiles",
}


class SoleniaState(GameState):
    spec = GameSpec(
        name="solenia",
        title="Solenia",
        configurations=tuple(
            (p, v) for p in (1, 2, 3, 4) for v in ("summer", "winter", "winter-tech")
        ),
        default_variant="summer",
        description="Supply the frozen night and the scorching day of planet Solenia (1-4 players; "
        "1 player plays against the virtual player).",
        time_control=TimeControl(decision_ms=1000, bank_ms=20000),
        variant_help=VARIANT_HELP,
    )

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, players: int, seed: int, variant: str | None = None) -> SoleniaState:
        variant = cls.spec.check(players, variant)
        st = cls.__new__(cls)
        st._blank(players, variant, seed)
        events: list[str] = []
        st._setup(events)
        st.opening = tuple(events)
        return st

    def _blank(self, players: int, variant: str, seed: int) -> None:
        self.players = players
        self.variant = variant
        self.seed = seed
        self._derive_flags()
        self.rng = Rng(seed)
        self.ship_col = SHIP_HOME_COLUMN
        self.cur = 0
        self.phase = P_CARD
        self.sel_card = EMPTY
        self.sel_cell = EMPTY
        self.pay_left = 0
        self.pend_kind = EMPTY
        self.pend_tile = EMPTY
        self.pend_index = EMPTY
        self.bonus_left = 0
        self.after_drop = AFTER_EFFECTS
        self.vp_card = EMPTY
        self.vp_die = 0
        self.vp_used = 0
        self.board_at = list(range(BOARD_COUNT))
        self.side_at = [0] * BOARD_COUNT
        self.ctype = [0] * CELLS
        self.owner = [EMPTY] * CELLS
        self.card = [EMPTY] * CELLS
        n = players
        self.stars = [0] * n
        self.used = [0] * n
        self.tech1 = [EMPTY] * n
        self.bonus_from: list[int] = []
        self.excess: list[int] = []
        self.vp_deck: list[int] = []
        self.vp_tiles: list[int] = []
        self.draft_queue: list[int] = []
        self.offer1: list[int] = []
        self.vp_options: list[int] = []
        self.vp_out: list[int] = []
        self.market: list[list[int]] = [[], []]
        self.tile_deck: list[list[int]] = [[], []]
        self.hand: list[list[int]] = [[] for _ in range(n)]
        self.deck: list[list[int]] = [[] for _ in range(n)]
        self.res: list[list[int]] = [[0, 0, 0, 0] for _ in range(n)]
        self.out_cards: list[list[int]] = [[] for _ in range(n)]
        self.tech3: list[list[int]] = [[EMPTY, EMPTY] for _ in range(n)]
        self.tech_pts: list[list[int]] = [[0, 0] for _ in range(n)]
        self.offer3: list[list[int]] = []
        self.rows: list[list[list[int]]] = [[[EMPTY] * SUMMER_SLOTS, [EMPTY] * SUMMER_SLOTS] for _ in range(n)]
        #: Event lines of the set-up (the virtual player's opening move among them): kept in the
        #: state so they survive cloning and serialising until the referee logs them. A tuple,
        #: never changed after set-up, so clones share it.
        self.opening: tuple[str, ...] = ()
        self._cache: list[Option] | None = None

    def _derive_flags(self) -> None:
        self.solo = self.players == 1
        self.winter = self.variant in ("winter", "winter-tech")
        self.tech = self.variant == "winter-tech"

    def _setup(self, events: list[str]) -> None:
        """2. 게임의 준비 (the solo game is set up as for two players)."""
        rng = self.rng
        first = "night_first" if rng.below(2) == 0 else "day_first"
        self.side_at = list(LAYOUTS[first])
        self._rebuild_cells()
        names = "-".join(SIDE_NAMES[b][s] for b, s in zip(self.board_at, self.side_at, strict=True))
        events.append(f"the boards are joined {names}; the supply ship faces right")
        reveal = REVEALED_TILES[self.players]
        for kind in (DAY, NIGHT):
            pile = list(TILES_OF_KIND[kind])
            rng.shuffle(pile)
            self.tile_deck[kind] = pile
            self.market[kind] = [pile.pop() for _ in range(reveal)]
            shown = ", ".join(tile_text(t) for t in self.market[kind])
            events.append(f"{KIND_NAMES[kind]} supply tiles revealed: {shown}")
        for seat in range(self.players):
            deck = list(range(DECK_SIZE))
            rng.shuffle(deck)
            self.deck[seat] = deck
            self.hand[seat] = [deck.pop() for _ in range(HAND_SIZE)]
        for seat, r in STARTING_RESOURCES.get(self.players, {}).items():
            self.res[seat][r] += 1
            events.append(f"P{seat + 1} starts with 1 {RESOURCES[r]}")
        if self.solo:
            self.vp_deck = list(range(DECK_SIZE))
            rng.shuffle(self.vp_deck)
        if self.tech:
            draft_rules.setup_draft(self)
            self.phase = P_DRAFT
        else:
            # 1인용 규칙: 가상의 플레이어부터 — its opening move belongs to the set-up's lines.
            self._start_first_turn(events)

    def _start_first_turn(self, events: list[str]) -> None:
        self.cur = VP if self.solo else 0
        self._start_turn(events)

    def opening_events(self) -> list[str]:
        return list(self.opening)

    def _rebuild_cells(self) -> None:
        ctype = []
        for col in range(BOARD_COUNT):
            ctype.extend(BOARD_SIDES[self.board_at[col]][self.side_at[col]])
        self.ctype = ctype

    # ------------------------------------------------------------------ rule queries
    def limit(self, seat: int) -> int:
        """How many resources the personal board stores (여름 8; 겨울 6 + expansions)."""
        if not self.winter:
            return SUMMER_LIMIT
        extra = winter_storage(self.rows[seat])
        if self.tech1_effect(seat).startswith("storage_"):
            extra += 1
        return WINTER_LIMIT + extra

    def tech1_effect(self, seat: int) -> str:
        """The level-1 technology effect of ``seat`` if active (tiles above and below it)."""
        t = self.tech1[seat]
        if t < 0:
            return ""
        rows = self.rows[seat]
        if (rows[DAY][0] >= 0 or rows[DAY][1] >= 0) and (rows[NIGHT][0] >= 0 or rows[NIGHT][1] >= 0):
            return TECH_EFFECT[t]
        return ""

    def tech3_active(self, seat: int, side: int) -> bool:
        """A level-3 day tile needs a day supply tile above it at level 3; night, below."""
        row = self.rows[seat][side]
        return row[4] >= 0 or row[5] >= 0

    def row_has_room(self, seat: int, kind: int) -> bool:
        return EMPTY in self.rows[seat][kind]

    def payment_rules(self, seat: int) -> tuple[tuple[int, ...], bool, bool]:
        """(waived resources, wood<->wheat swap, stone<->water swap) for ``seat`` now."""
        if not self.winter:
            return (), False, False
        eff = self.tech1_effect(seat)
        return winter_waivers(self.rows[seat]), eff == "storage_wood_wheat", eff == "storage_stone_water"

    def can_buy(self, seat: int, kind: int, res: list[int] | None = None, spare: int = 0) -> bool:
        """도시 지역: a city may take a card only if one of its supply tiles can be paid in full."""
        if not self.row_has_room(seat, kind):
            return False
        res = self.res[seat] if res is None else res
        waivers, ww, sa = self.payment_rules(seat)
        for t in self.market[kind]:
            if t >= 0 and can_pay(TILE_COST[t], res, waivers, ww, sa, spare):
                return True
        return False

    def has_cards(self, seat: int) -> bool:
        return bool(self.hand[seat]) or bool(self.deck[seat])

    # ------------------------------------------------------------------ the decision loop
    def to_move(self) -> int | None:
        ph = self.phase
        if ph == P_OVER:
            return None
        if ph == P_DROP:
            return self.excess[0]
        if ph == P_DRAFT:
            return self.draft_queue[0]
        if ph == P_VPCELL:
            return 0
        return self.cur

    def decision_prompt(self) -> str:
        return {
            P_DRAFT: "choose a technology tile (level 1) or a level-3 day/night set",
            P_CARD: "choose a spaceship card to play (or to discard and advance the ship)",
            P_CELL: "choose the cell for the card",
            P_SPEND: f"discard a resource for the distance ({self.pay_left} left)",
            P_SHIP: "move the supply ship 1 or 2 cells",
            P_TILE: "choose the supply tile to complete",
            P_PAY: "choose how to pay the supply tile",
            P_SLOT: "choose the personal-board slot for the supply tile",
            P_GAIN: f"choose a bonus resource ({self.bonus_left} left)",
            P_DROP: "your store is over its limit: choose a resource to throw away",
            P_VPCELL: "choose where the virtual player's card goes (next to its card)",
            P_OVER: "",
        }[self.phase]

    def fallback_option(self) -> str:
        """A forfeited seat's move: the one that disturbs the other seats least (fallback.py)."""
        from referee.solenia.fallback import fallback_option

        return fallback_option(self)

    def option_audience(self, option_id: str) -> tuple[int, ...] | None:
        """The card a seat picks from its hidden hand to play (``card:``) stays its secret until
        it lies on the board; a discarded card is shown at once, every other choice is public."""
        if option_id.startswith("card:"):
            return (self.cur,)
        return None

    def legal_options(self) -> list[Option]:
        if self._cache is None:
            self._cache = self._options()
        return list(self._cache)

    def _options(self) -> list[Option]:
        ph = self.phase
        seat = self.cur
        if ph == P_OVER:
            return []
        if ph == P_CARD:
            return placement.card_options(self, seat)
        if ph == P_CELL:
            cells, paid = placement.cells_for(self, seat)
            if paid:
                return [
                    Option(f"cell:{p}", f"{CELL_NAMES[self.ctype[p]]} at {col_row(p)}, discard {c}")
                    for p, c in cells
                ]
            return [Option(f"cell:{p}", f"{CELL_NAMES[self.ctype[p]]} at {col_row(p)}") for p, _ in cells]
        if ph == P_SPEND:
            return [Option(f"spend:{RESOURCES[r]}", f"discard 1 {RESOURCES[r]}") for r in placement.spendable(self, seat)]
        if ph == P_SHIP:
            return [Option("ship:1", "move the ship 1 cell"), Option("ship:2", "move the ship 2 cells (+1 star)")]
        if ph == P_TILE:
            out = []
            waivers, ww, sa = self.payment_rules(seat)
            for i, t in enumerate(self.market[self.pend_kind]):
                if t >= 0 and can_pay(TILE_COST[t], self.res[seat], waivers, ww, sa):
                    out.append(Option(f"tile:{i}", tile_text(t)))
            return out
        if ph == P_PAY:
            return [
                Option("pay:" + "-".join(map(str, p)), "pay " + _res_text(p)) for p in self._tile_payments(seat)
            ]
        if ph == P_SLOT:
            return [
                Option(f"slot:{WINTER_SLOT_NAMES[i]}", f"level {WINTER_SLOT_NAMES[i]} ({_slot_text(self.pend_kind, i)})")
                for i in winter_slots(self.rows[seat][self.pend_kind])
            ]
        if ph == P_GAIN:
            return [Option(f"gain:{RESOURCES[r]}", f"take 1 {RESOURCES[r]}") for r in self.bonus_from]
        if ph == P_DROP:
            s = self.excess[0]
            return [Option(f"drop:{RESOURCES[r]}", f"throw away 1 {RESOURCES[r]}") for r in range(4) if self.res[s][r] > 0]
        if ph == P_VPCELL:
            return [Option(f"vpcell:{p}", f"{CELL_NAMES[self.ctype[p]]} at {col_row(p)}") for p in self.vp_options]
        if ph == P_DRAFT:
            return draft_rules.options(self)
        raise AssertionError(f"unknown phase {ph}")

    def _tile_payments(self, seat: int) -> list[tuple[int, int, int, int]]:
        waivers, ww, sa = self.payment_rules(seat)
        return payments(TILE_COST[self.pend_tile], self.res[seat], waivers, ww, sa)

    def apply(self, option_id: str) -> list[str]:
        legal = self.legal_options()
        if not any(o.id == option_id for o in legal):
            raise self.illegal(option_id)
        self._cache = None
        events: list[str] = []
        kind, _, arg = option_id.partition(":")
        ph = self.phase
        if ph == P_CARD:
            self._choose_card(kind, int(arg), events)
        elif ph == P_CELL:
            self._place(int(arg), events)
        elif ph == P_SPEND:
            self._spend(RES_INDEX[arg], events)
        elif ph == P_SHIP:
            self._move_ship_after_zero(int(arg), events)
        elif ph == P_TILE:
            self._take_tile(int(arg), events)
        elif ph == P_PAY:
            self._pay(tuple(int(x) for x in arg.split("-")), events)
        elif ph == P_SLOT:
            self._put_winter(WINTER_SLOT_NAMES.index(arg), events)
        elif ph == P_GAIN:
            self._gain_bonus(RES_INDEX[arg], events)
        elif ph == P_DROP:
            self._drop(RES_INDEX[arg], events)
        elif ph == P_VPCELL:
            virtual_player.put(self, int(arg), events)
        elif ph == P_DRAFT:
            draft_rules.pick(self, kind, int(arg), events)
            if not self.draft_queue:
                self._start_first_turn(events)
        self._cache = None
        return events

    # ------------------------------------------------------------------ a player's turn
    def _start_turn(self, events: list[str]) -> None:
        if self.cur == VP:
            virtual_player.take_turn(self, events)
        else:
            self.phase = P_CARD

    def _choose_card(self, kind: str, card: int, events: list[str]) -> None:
        seat = self.cur
        self.hand[seat].remove(card)
        if kind == "discard":
            # 우주선 카드 사용 규칙 3: discard a card and advance the supply ship 1 cell.
            self.out_cards[seat].append(card)
            self.used[seat] += 1
            self.ship_col += 1
            events.append(f"P{seat + 1} discards {card_text(card)} and advances the supply ship")
            self._end_turn(events)
            return
        self.sel_card = card
        self.phase = P_CELL
        events.append(seen_by(seat, f"P{seat + 1} picks {card_text(card)} to play"))

    def _place(self, pos: int, events: list[str]) -> None:
        seat = self.cur
        cost = placement.distance_cost(self, seat, pos) if placement.paid_mode(self, seat) else 0
        self.owner[pos] = seat
        self.card[pos] = self.sel_card
        self.used[seat] += 1
        self.sel_cell = pos
        events.append(f"P{seat + 1} plays {card_text(self.sel_card)} on the {CELL_NAMES[self.ctype[pos]]} at {col_row(pos)}")
        if cost > 0:
            self.pay_left = cost
            self.phase = P_SPEND
            return
        self._after_place(events)

    def _spend(self, r: int, events: list[str]) -> None:
        self.res[self.cur][r] -= 1
        self.pay_left -= 1
        events.append(f"P{self.cur + 1} discards 1 {RESOURCES[r]} for the distance")
        if self.pay_left == 0:
            self._after_place(events)

    def _after_place(self, events: list[str]) -> None:
        """보급 우주선 규칙: a <0> card moves the ship at once."""
        if CARD_VALUE[self.sel_card] == 0:
            if self.tech1_effect(self.cur) == "ship_two":
                self.phase = P_SHIP
                return
            self.ship_col += 1
            events.append("the supply ship moves 1 cell")
        self._card_effect(events)

    def _move_ship_after_zero(self, steps: int, events: list[str]) -> None:
        self.ship_col += steps
        events.append(f"the supply ship moves {plural(steps, 'cell')}" + (" (+1 star)" if steps == 2 else ""))
        if steps == 2:
            self.stars[self.cur] += 1
        self._card_effect(events)

    def _card_effect(self, events: list[str]) -> None:
        """자원 지역: take the card's number of the region's resource; 도시 지역: stars, then a tile."""
        seat = self.cur
        value = CARD_VALUE[self.sel_card]
        if value == 0 and self.tech1_effect(seat) == "zero_as_one":
            value = 1
        t = self.ctype[self.sel_cell]
        if t < DAY_CITY:
            self.res[seat][t] += value
            if value:
                events.append(f"P{seat + 1} takes {value} {RESOURCES[t]}")
            self._effects_done(events)
            return
        self.stars[seat] += value
        self.pend_kind = DAY if t == DAY_CITY else NIGHT
        self.phase = P_TILE

    def _take_tile(self, index: int, events: list[str]) -> None:
        seat = self.cur
        kind = self.pend_kind
        tile = self.market[kind][index]
        self.market[kind][index] = EMPTY
        self.pend_tile = tile
        self.pend_index = index
        pays = self._tile_payments(seat)
        if len(pays) == 1:
            self._pay(pays[0], events)
        else:
            self.phase = P_PAY

    def _pay(self, pay: tuple[int, ...], events: list[str]) -> None:
        seat = self.cur
        r = self.res[seat]
        for i in range(4):
            r[i] -= pay[i]
        events.append(f"P{seat + 1} completes {tile_text(self.pend_tile)} paying {_res_text(pay)}")
        kind = self.pend_kind
        if not self.winter:
            slot = summer_slot(self.rows[seat][kind])
            self.rows[seat][kind][slot] = self.pend_tile
            gain = SUMMER_BONUS[slot]
            if gain:
                self.bonus_left = gain
                self.bonus_from = [0, 1, 2, 3]
                self.phase = P_GAIN
                return
            self._tile_done(events)
            return
        slots = winter_slots(self.rows[seat][kind])
        if len(slots) == 1:
            self._put_winter(slots[0], events)
        else:
            self.phase = P_SLOT

    def _put_winter(self, slot: int, events: list[str]) -> None:
        seat = self.cur
        kind = self.pend_kind
        before = (self.tech3_active(seat, DAY), self.tech3_active(seat, NIGHT))
        self.rows[seat][kind][slot] = self.pend_tile
        events.append(f"P{seat + 1} puts it on {KIND_NAMES[kind]} level {WINTER_SLOT_NAMES[slot]}")
        if self.tech:
            self._instant_tech_points(seat, kind, before, events)
        eff = winter_slot_effect(kind, slot)
        if eff["effect"] == "gain_one_of":
            self.bonus_left = 1
            self.bonus_from = [RES_INDEX[r] for r in eff["resources"]]
            self.phase = P_GAIN
            return
        self._tile_done(events)

    def _instant_tech_points(self, seat: int, kind: int, before: tuple[bool, bool], events: list[str]) -> None:
        """3단계 기술 타일 (무한대): points each time a supply tile is completed, at most 12 per tile."""
        for side in (DAY, NIGHT):
            t = self.tech3[seat][side]
            if t < 0:
                continue
            eff = TECH_EFFECT[t]
            gain = 0
            if eff == f"instant_four_{KIND_NAMES[kind]}" and before[side]:
                gain = 4
            elif eff == f"instant_three_{KIND_NAMES[kind]}" and self.tech3_active(seat, side):
                gain = 3
            if gain:
                new = min(TECH_CAP, self.tech_pts[seat][side] + gain)
                events.append(f"P{seat + 1} scores {plural(new - self.tech_pts[seat][side], 'point')} "
                              "from a technology tile")
                self.tech_pts[seat][side] = new

    def _gain_bonus(self, r: int, events: list[str]) -> None:
        self.res[self.cur][r] += 1
        self.bonus_left -= 1
        events.append(f"P{self.cur + 1} takes 1 {RESOURCES[r]} as a bonus")
        if self.bonus_left == 0:
            self.bonus_from = []
            self._tile_done(events)

    def _tile_done(self, events: list[str]) -> None:
        """마지막으로 가져온 보급품 타일과 같은 종류의 타일을 즉시 공개합니다."""
        kind = self.pend_kind
        if self.tile_deck[kind]:
            t = self.tile_deck[kind].pop()
            self.market[kind][self.pend_index] = t
            events.append(f"new {tile_text(t)} revealed")
        self.pend_tile = EMPTY
        self.pend_index = EMPTY
        self.pend_kind = EMPTY
        self._effects_done(events)

    def _effects_done(self, events: list[str]) -> None:
        seat = self.cur
        self.sel_card = EMPTY
        self.sel_cell = EMPTY
        if sum(self.res[seat]) > self.limit(seat):
            self.excess = [seat]
            self.after_drop = AFTER_EFFECTS
            self.phase = P_DROP
            return
        self._end_turn(events)

    def _drop(self, r: int, events: list[str]) -> None:
        """중요!!! over the limit, the player chooses what to keep; the rest is thrown away."""
        seat = self.excess[0]
        self.res[seat][r] -= 1
        events.append(f"P{seat + 1} throws away 1 {RESOURCES[r]}")
        if sum(self.res[seat]) <= self.limit(seat):
            self.excess.pop(0)
        if self.excess:
            return
        if self.after_drop == AFTER_EFFECTS:
            self._end_turn(events)
        else:
            self._finish_turn(events)

    # ------------------------------------------------------------------ end of a turn
    def _end_turn(self, events: list[str]) -> None:
        """보급 우주선 규칙: after the turn, one board leaves on the left per cell the ship moved."""
        while self.ship_col > SHIP_HOME_COLUMN:
            turn_end.detach_leftmost_board(self, events)
        order = [(self.cur + i) % self.players for i in range(self.players)] if self.cur != VP else list(range(self.players))
        self.excess = [s for s in order if sum(self.res[s]) > self.limit(s)]
        if self.excess:
            self.after_drop = AFTER_RECOVERY
            self.phase = P_DROP
            return
        self._finish_turn(events)

    def _finish_turn(self, events: list[str]) -> None:
        actor = self.cur
        if actor != VP:
            hand, deck = self.hand[actor], self.deck[actor]
            while len(hand) < HAND_SIZE and deck:
                hand.append(deck.pop())
        nxt = self._next_actor(actor)
        if nxt is None:
            self.phase = P_OVER
            events.append("all spaceship cards are used: the game ends")
            return
        self.cur = nxt
        self._start_turn(events)

    def _next_actor(self, actor: int) -> int | None:
        if self.solo:
            if actor == VP:
                return 0 if self.has_cards(0) else (VP if self.vp_deck else None)
            return VP if self.vp_deck else (0 if self.has_cards(0) else None)
        nxt = (actor + 1) % self.players
        return nxt if self.has_cards(nxt) else None

    # ------------------------------------------------------------------ views
    def observation(self, seat: int) -> dict[str, Any]:
        return views.observation(self, seat)

    def spectator_view(self) -> dict[str, Any]:
        return views.spectator_view(self)

    def public_view(self) -> dict[str, Any]:
        """Boards, tiles, resources and counts of hands and decks: what live spectators see."""
        return views.public_view(self)

    # ------------------------------------------------------------------ copying
    def clone(self) -> SoleniaState:
        c = SoleniaState.__new__(SoleniaState)
        d = c.__dict__
        src = self.__dict__
        for k in SCALARS:
            d[k] = src[k]
        for k in FLAT_LISTS:
            d[k] = src[k][:]
        for k in NESTED_LISTS:
            d[k] = [x[:] for x in src[k]]
        c.rows = [[r[0][:], r[1][:]] for r in self.rows]
        c.rng = Rng(self.rng.state)
        c.opening = self.opening
        c.solo, c.winter, c.tech = self.solo, self.winter, self.tech
        c._cache = self._cache
        return c

    def to_json(self) -> dict[str, Any]:
        src = self.__dict__
        data: dict[str, Any] = {k: src[k] for k in SCALARS}
        for k in FLAT_LISTS:
            data[k] = list(src[k])
        for k in NESTED_LISTS:
            data[k] = [list(x) for x in src[k]]
        data["rows"] = [[list(r[0]), list(r[1])] for r in self.rows]
        data["rng"] = self.rng.state
        data["opening"] = list(self.opening)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SoleniaState:
        st = cls.__new__(cls)
        d = st.__dict__
        for k in SCALARS:
            d[k] = data[k]
        for k in FLAT_LISTS:
            d[k] = list(data[k])
        for k in NESTED_LISTS:
            d[k] = [list(x) for x in data[k]]
        st.rows = [[list(r[0]), list(r[1])] for r in data["rows"]]
        st.rng = Rng(int(data["rng"]))
        st.opening = tuple(str(line) for line in data.get("opening", ()))
        st._derive_flags()
        st._cache = None
        return st

    @classmethod
    def from_observation(cls, observation: dict[str, Any], seed: int = 0) -> SoleniaState:
        from referee.engine import ConfigError
        from referee.solenia.observed import state_from_observation

        try:
            return state_from_observation(observation, seed)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            if isinstance(exc, ConfigError):
                raise
            raise ConfigError(f"not a Solenia observation: {exc!r}") from None

    def determinise(self, seat: int, seed: int) -> SoleniaState:
        """Re-deal what ``seat`` cannot see: other hands, every deck's order, the tile piles, dice."""
        c = self.clone()
        c._cache = None
        rng = Rng(seed ^ 0x5EED50)
        for s in range(self.players):
            if s == seat:
                rng.shuffle(c.deck[s])
                continue
            hidden_sel = c.phase == P_CELL and c.cur == s
            pool = c.hand[s] + c.deck[s] + ([c.sel_card] if hidden_sel else [])
            rng.shuffle(pool)
            if hidden_sel:
                c.sel_card = pool.pop()
            n = len(c.hand[s])
            c.hand[s] = pool[:n]
            c.deck[s] = pool[n:]
        for k in (DAY, NIGHT):
            rng.shuffle(c.tile_deck[k])
        rng.shuffle(c.vp_deck)
        c.rng = Rng(rng.next64())
        return c

    # ------------------------------------------------------------------ the end
    def result(self) -> Result:
        if self.phase != P_OVER:
            raise IllegalAction("the game is not over yet")
        breakdowns = [score_breakdown(self, s) for s in range(self.players)]
        scores = tuple(float(b["total"]) for b in breakdowns)
        details: dict[str, Any] = {"breakdown": breakdowns}
        if self.solo:
            # 1인용 규칙: the score band message, and the player ranked against the virtual
            # player (a tie is shared: "동점이라면 승리의 기쁨을 함께 나누세요")
            details["solo_message"] = solo_message(int(scores[0]))
            rank, outcome = solo_outcome(scores[0], "the virtual player", virtual_player_score(self),
                                         tie_wins=True)
            details.update(outcome)
            return Result(scores, (rank,), details)
        return Result(scores, competition_ranks([s for s in scores]), details)


def _res_text(p: tuple[int, ...] | list[int]) -> str:
    parts = [f"{n} {RESOURCES[r]}" for r, n in enumerate(p) if n]
    return ", ".join(parts) if parts else "nothing"


def _slot_text(kind: int, slot: int) -> str:
    eff = winter_slot_effect(kind, slot)
    e = eff["effect"]
    if e == "storage":
        return "+1 storage"
    if e == "gain_one_of":
        return "take " + " or ".join(eff["resources"])
    if e == "waive":
        return f"leave 1 {eff['resource']} unpaid each turn"
    if e == "printed_points":
        return f"end: 1 point per {eff['resource']} shown on your completed supply tiles (max {eff['cap']})"
    return f"end: {eff['points']} points"

