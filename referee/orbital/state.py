"""The Orbital engine: one decision at a time, as the Korean rulebook plays.

A year (게임 라운드) is turns of one action each until every player has passed in succession; an
action that needs a further choice (a target, which card to keep, how much crew to risk) is
followed by a small decision of the same seat. The end of the year runs the rulebook's seven
steps; the income colour and the cards to discard over the hand limit are decisions. Bot players
(1인 규칙, 경쟁 버전, and bot seats added to a multiplayer game) are automata played inside
:meth:`apply`, like Black Angel's Hal; the peaceful solo game's two opponents are colour tracks.
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
from referee.orbital import botplayer, rules, views
from referee.orbital import station as geo
from referee.orbital.data import (
    CARD_ACTION,
    CARD_COLOUR,
    CARD_COUNT,
    CARD_NAME,
    COLOURS,
    CORE_ACTION,
    CORE_EFFECT,
    CORE_NAME,
    EVENT_EFFECT,
    MODULE_COUNT,
    RED,
    RULES,
    UPGRADE_COLOURS,
)
from referee.orbital.station import CORE, D, U, W
from referee.rng import Rng

P_KEEP, P_MAIN, P_TARGET, P_COUNT, P_PICK, P_OBS, P_VIA, P_INCOME, P_DISCARD, P_OVER = range(10)
PHASE_NAMES = ("keep", "main", "target", "crew_count", "market_pick", "observatory", "build_via",
               "income", "discard", "over")

#: Every field of the state by its rulebook term (star-scrappers-orbital.ko.txt), so a reader finds
#: a rule by name. An *actor* is a seat (0..players-1) or a bot player after them (1인 규칙);
#: per-actor lists are indexed by actor; colours and cores follow data.COLOURS; a card is an
#: index of data.CARD_NAME (module cards first, then event cards).
GLOSSARY: dict[str, str] = {
    "players": "player count (1-5): the seats that bots of the platform play",
    "variant": "standard / competitive (1인 규칙 경쟁 버전) / peaceful (평화 버전) / bots-N (봇 플레이어 추가)",
    "seed": "the match seed every shuffle comes from",
    "nbots": "봇 플레이어: how many bot players (automata) join the seats",
    "actors": "players + bot players: everyone who takes turns",
    "peaceful": "1인 규칙 평화 버전: no events, two colour-track opponents",
    "no_market": "경쟁 버전: the solo game against two bot players has no market",
    "rng": "the seeded generator (its state is part of the game)",
    "year": "연도 마커: the year (게임 라운드), 1-5",
    "first": "시작 플레이어 마커: the actor who starts this year",
    "cur": "the actor whose turn it is",
    "passes": "패스: passes in succession so far; the year ends when every actor has passed",
    "phase": "the decision asked now (PHASE_NAMES): keep, main action, target, …, over",
    "pend": "the effect waiting for its target or build (모듈 작동하기 / 이벤트 카드 사용하기)",
    "pend_src": "never set by this engine (always -1): kept for the raw observation's schema",
    "damage_dealt": "손상 토큰: damage placed on any station so far (a benchmark figure)",
    "mc": "메가크레딧 (MC): each actor's money",
    "vp": "승점: each actor's VP",
    "crew": "미사용 승무원: each actor's unused crew on its core module",
    "core": "코어 모듈: each actor's core colour (red = 기본 코어, else the upgrade taken)",
    "shield": "the Shield Generator module: 1 once it has stopped a damage this year (once a year)",
    "events_played": "이벤트 카드 사용하기: events each actor played (a benchmark figure)",
    "attacks": "attacks each actor made (weapons, 유성 폭풍, sabotage …; a benchmark figure)",
    "built": "모듈 건설: modules each actor built (a benchmark figure)",
    "market": "마켓: the face-up cards for sale, nearest the deck first (cost 1-5 MC)",
    "deck": "카드 더미: the draw deck (top = last)",
    "discard": "버린 카드 더미: the discard pile (top = last)",
    "dpub": "the cards of the discard pile that were face up when discarded (public)",
    "peek": "관측소: the cards the observatory drew, one of which is kept",
    "upgrades": "업그레이드 코어 모듈 카드: the upgrade cores still on offer",
    "queue": "the seats still to decide in a simultaneous step (keep 5 of 8, 수입, 핸드 제한)",
    "opp_vp": "평화 버전: the two colour-track opponents' VP",
    "hands": "손 (핸드): each actor's cards; a bot player's 핸드 스택 (top = last)",
    "known": "the cards of each hand that everyone saw go in (카드 구입, Insider Contact's pick, Robot Arm "
             "taking a face-up discard) and that are surely still there (a secret discard moves them to maybe)",
    "maybe": "the cards of each hand that everyone saw go in, then perhaps left in a secret discard "
             "(over the hand limit, Quiet Year): all but at most gone[a] of them are still there",
    "gone": "per hand, at most how many of its maybe cards have left (one per secret discard since)",
    "track": "평화 버전 트랙: each opponent's module count per colour",
    "mods": "오비탈: each actor's modules [card, x, y, heading, parent, 손상, 승무원, used] (station.py)",
    "opening": "what set-up did (게임 준비), as event lines",
    "_cache": "cache of the legal options",
    "_free": "cache of each station's free exits (모듈 건설), checked against the station on use",
    "_parents": "cache of each station's modules that something is built on (말단 모듈: the others) and of its target-module order",
}

SCALARS = ("players", "variant", "seed", "nbots", "year", "first", "cur", "passes", "phase", "pend",
           "pend_src", "damage_dealt")
FLAT = ("mc", "vp", "crew", "core", "shield", "events_played", "attacks", "built", "market", "deck",
        "discard", "dpub", "peek", "upgrades", "queue", "opp_vp")
NESTED = ("hands", "known", "track")

VARIANT_HELP = {
    "standard": "the base game for 2-5 players",
    "competitive": "solo rules, competitive version: you against two bot players (no market)",
    "peaceful": "solo rules, peaceful version: no events, two colour-track opponents; win with 22 VP or more",
}
_BOT_VARIANTS = tuple((p, f"bots-{k}") for p in (2, 3, 4) for k in range(1, 6 - p))
for _p, _v in _BOT_VARIANTS:
    _k = int(_v[5:])
    VARIANT_HELP.setdefault(_v, f"{_k} bot player{'s join' if _k > 1 else ' joins'} the game (the solo rules' bot players fill seats of a multiplayer game)")


_BUILD_ID = [f"build:{c}:" for c in range(len(CARD_NAME))]
_BUILD_LABEL = [f"build {n} on module " for n in CARD_NAME]

#: Options are immutable, and the same (card, module, side, cost) comes up again and again in
#: playouts: each is made once and shared (``_OPTIONS`` keys: a build tuple, or (kind, ...)).
_OPTIONS: dict[tuple[Any, ...], Option] = {}


def _build_option(c: int, p: int, d: int, cost: int) -> Option:
    key = (c, p, d, cost)
    opt = _OPTIONS.get(key)
    if opt is None:
        opt = _OPTIONS[key] = Option(f"{_BUILD_ID[c]}{p}.{d}", f"{_BUILD_LABEL[c]}{p} side {'NESW'[d]} for {cost} MC")
    return opt


def _build_options(builds: list[tuple[int, int, int, int]]) -> list[Option]:
    get = _OPTIONS.get
    out = []
    for key in builds:
        opt = get(key)
        if opt is None:
            opt = _build_option(*key)
        out.append(opt)
    return out


#: The same build options by one int, ``card << 13 | parent << 6 | direction << 4 | cost`` (an int
#: hashes faster than a tuple; the main decision looks up one per card and free exit). Exact while
#: a station has fewer than 128 modules (83 module cards and the core) and a cost is below 16.
_BUILD_BY_INT: dict[int, Option] = {}


def _build_by_int(k: int) -> Option:
    opt = _BUILD_BY_INT[k] = _build_option(k >> 13, (k >> 6) & 127, (k >> 4) & 3, k & 15)
    return opt


def _build_list(st: OrbitalState, a: int, slots: list[tuple[int, int]], via: str = "") -> list[Option]:
    """``_build_options(rules.build_options(st, a, via, slots=slots))`` in one pass: the same
    options in the same order (hand order, then the free exits in module order), made without the
    (card, parent, direction, cost) tuples in between. ``tests/orbital/test_fast_paths.py`` checks
    that both agree."""
    mods = st.mods[a]
    if len(mods) > 127:  # beyond the int key: the general path (never in a real game)
        return _build_options(rules.build_options(st, a, via, slots=slots))
    mc = st.mc[a]
    base = rules.base_build_cost(st, a, via)
    military = via == "build_military"
    core = st.core[a]
    keyed = None
    out: list[Option] = []
    append = out.append
    get = _BUILD_BY_INT.get
    for card in st.hands[a]:
        if card >= MODULE_COUNT:  # an event card
            continue
        colour = CARD_COLOUR[card]
        c_same, c_other = rules.card_build_costs(colour, base, military)
        ok_same, ok_other = c_same <= mc, c_other <= mc
        if not (ok_same or ok_other):
            continue
        if keyed is None:
            keyed = [((p << 6) | (d << 4), core if mods[p][0] == CORE else CARD_COLOUR[mods[p][0]]) for p, d in slots]
        ck = card << 13
        k_same, k_other = ck | c_same, ck | c_other
        for pk, pc in keyed:
            if pc == colour:
                if not ok_same:
                    continue
                k = k_same | pk
            elif ok_other:
                k = k_other | pk
            else:
                continue
            opt = get(k)
            append(opt if opt is not None else _build_by_int(k))
    return out


#: The target options by one int, ``players << 24 | station << 16 | (module + 1) << 8 | (card + 1)``
#: (module -1, card -1: the player). Exact while a station has fewer than 255 modules.
_TARGET_BY_INT: dict[int, Option] = {}


def _option(key: tuple[Any, ...], make: Any) -> Option:
    """The shared Option for ``key``; ``make()`` returns (id, label) the first time only."""
    opt = _OPTIONS.get(key)
    if opt is None:
        opt = _OPTIONS[key] = Option(*make())
    return opt


_PASS = Option("pass", "pass")
_UPGRADE = {c: Option(f"upgrade:{COLOURS[c]}", f"upgrade the core to the {CORE_NAME[c]} (4 MC)") for c in UPGRADE_COLOURS}
_BUY = [[Option(f"buy:{i}", f"buy {CARD_NAME[c]} for {i + 1} MC") for c in range(CARD_COUNT)] for i in range(RULES["market_size"])]
_EVENT = [Option(f"event:{c}", f"play {CARD_NAME[c]}") for c in range(CARD_COUNT)]
_RETURN = [Option(f"return:{c}", f"return {CARD_NAME[c]}") for c in range(CARD_COUNT)]
_DISCARD = [Option(f"discard:{c}", f"discard {CARD_NAME[c]}") for c in range(CARD_COUNT)]
_KEEP = [Option(f"keep:{c}", f"keep {CARD_NAME[c]}") for c in range(CARD_COUNT)]


class OrbitalState(GameState):
    spec = GameSpec(
        name="orbital",
        title="Star Scrappers: Orbital",
        configurations=((1, "competitive"), (1, "peaceful"))
        + tuple((p, "standard") for p in (2, 3, 4, 5))
        + _BOT_VARIANTS,
        default_variant="standard",
        description="Build the finest space station in five years: modules in six colours, "
        "majorities each year, events and attacks (1-5 players; solo against two bot players "
        "or peaceful).",
        time_control=TimeControl(decision_ms=1000, bank_ms=20000),
        variant_help=VARIANT_HELP,
    )

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, players: int, seed: int, variant: str | None = None) -> OrbitalState:
        variant = cls.spec.check(players, variant)
        st = cls.__new__(cls)
        st.players = players
        st.variant = variant
        st.seed = seed
        st.nbots = 2 if variant == "competitive" else (int(variant[5:]) if variant.startswith("bots-") else 0)
        st._derive()
        st.rng = Rng(seed)
        n = st.actors
        st.year = 1
        st.first = st.cur = st.passes = 0
        st.phase = P_KEEP
        st.pend = ""
        st.pend_src = -1
        st.damage_dealt = 0
        st.mc = [RULES["start_mc"]] * n
        st.vp = [0] * n
        st.crew = [1] * n
        st.core = [RED] * n
        st.shield = [0] * n
        st.events_played = [0] * n
        st.attacks = [0] * n
        st.built = [0] * n
        st.market = []
        st.peek = []
        st.upgrades = list(UPGRADE_COLOURS)
        st.queue = []
        st.opp_vp = [0, 0] if st.peaceful else []
        st.hands = [[] for _ in range(n)]
        st.known = [[] for _ in range(n)]
        st.maybe = [[] for _ in range(n)]
        st.gone = [0] * n
        st.track = [[1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]] if st.peaceful else []
        st.mods = [[geo.new_core()] for _ in range(n)]
        st.discard = []
        st.dpub = []
        st._fresh_caches()
        events: list[str] = []
        st._setup(events)
        st.opening = tuple(events)
        return st

    def _fresh_caches(self) -> None:
        """Empty caches (the legal options, the stations' free exits and shapes): a new, copied or
        rebuilt state starts with these."""
        self._cache = None
        self._free, self._parents = {}, {}

    def _derive(self) -> None:
        self.actors = self.players + self.nbots
        self.peaceful = self.variant == "peaceful"
        self.no_market = self.variant == "competitive"

    def _setup(self, events: list[str]) -> None:
        """게임 준비 1-6."""
        self.deck = list(range(MODULE_COUNT if self.peaceful else CARD_COUNT))
        self.rng.shuffle(self.deck)
        if not self.no_market:
            self.market = [self.deck.pop() for _ in range(RULES["market_size"])]
            events.append("market: " + ", ".join(CARD_NAME[c] for c in self.market))
        for a in range(self.players):
            self.hands[a] = [self.deck.pop() for _ in range(RULES["deal"])]
            events.append(seen_by(a, f"P{a + 1} is dealt " + ", ".join(CARD_NAME[c] for c in self.hands[a])))
        for a in range(self.players, self.actors):
            self.hands[a] = [self.deck.pop() for _ in range(RULES["bot_stack"])]
        if self.peaceful:
            self._opponents_draw(events)
        self.first = self.cur = self.rng.below(self.actors)
        events.append(f"{rules.name(self, self.first)} is the first player; year 1")
        self.queue = list(range(self.players))
        self.phase = P_KEEP

    # ------------------------------------------------------------------ the decision loop
    def to_move(self) -> int | None:
        ph = self.phase
        if ph == P_OVER:
            return None
        if ph in (P_KEEP, P_INCOME, P_DISCARD):
            return self.queue[0]
        return self.cur

    def is_over(self) -> bool:
        """Same as ``to_move() is None``, without the call (playouts ask before every decision)."""
        return self.phase == P_OVER

    def decision_prompt(self) -> str:
        return {
            P_KEEP: "return a dealt card to the deck (keep 5 of 8)",
            P_MAIN: "choose your action: build, upgrade, buy, activate, event, repair or pass",
            P_TARGET: "choose the target",
            P_COUNT: "how many unused crew to put into the high-risk project",
            P_PICK: "choose the market card to take",
            P_OBS: "keep one of the cards the observatory found",
            P_VIA: "build a module with the command module's discount",
            P_INCOME: "choose the colour that pays you 1 MC per undamaged module",
            P_DISCARD: "discard down to your hand limit",
            P_OVER: "",
        }[self.phase]

    def legal_options(self) -> list[Option]:
        if self._cache is None:
            self._cache = self._options()
        return list(self._cache)

    def _options(self) -> list[Option]:
        ph = self.phase
        if ph == P_OVER:
            return []
        if ph == P_MAIN:
            return self._main_options(self.cur)
        if ph == P_KEEP:
            return [_RETURN[c] for c in self.hands[self.queue[0]]]
        if ph == P_DISCARD:
            return [_DISCARD[c] for c in self.hands[self.queue[0]]]
        if ph == P_INCOME:
            counts = rules.colour_counts(self, self.queue[0])
            return [_option(("income", c, n), lambda c=c, n=n: (f"income:{COLOURS[c]}", f"income from {COLOURS[c]}: {7 + n} MC"))
                    for c, n in enumerate(counts) if n]
        if ph == P_TARGET:
            return self._target_options()
        if ph == P_COUNT:
            return [_option(("crew", k), lambda k=k: (f"crew:{k}", f"put {k} crew in, gain {3 * k} MC"))
                    for k in range(1, self.crew[self.cur] + 1)]
        if ph == P_PICK:
            return [_option(("pick", i, c), lambda i=i, c=c: (f"pick:{i}", f"take {CARD_NAME[c]}"))
                    for i, c in enumerate(self.market)]
        if ph == P_OBS:
            return [_KEEP[c] for c in self.peek]
        if ph == P_VIA:
            a = self.cur
            return _build_list(self, a, rules.free_slots(self, a), self.pend)
        raise AssertionError(ph)

    def _main_options(self, a: int) -> list[Option]:
        """Build, upgrade, buy, activate, event, repair, pass: in this order, as always listed."""
        hand = self.hands[a]
        mods = self.mods[a]
        has_module = has_event = False
        for c in hand:  # card ids below MODULE_COUNT are the module cards
            if c < MODULE_COUNT:
                has_module = True
            else:
                has_event = True
        # the free exits, once for the build options and the command modules' test below
        slots = rules.free_slots(self, a) if has_module else []
        out = _build_list(self, a, slots) if slots else []
        mc = self.mc[a]
        core = self.core[a]
        if core == RED and mc >= RULES["upgrade_cost"]:
            out.extend([_UPGRADE[c] for c in self.upgrades])
        for i, c in enumerate(self.market):
            if mc > i:
                # a market longer than the rules' (only a hand-made state) still lists every card
                out.append(_BUY[i][c] if i < len(_BUY) else Option(f"buy:{i}", f"buy {CARD_NAME[c]} for {i + 1} MC"))
        core_action = CORE_ACTION[core]
        crew = self.crew[a]
        damaged = []
        for i, m in enumerate(mods):
            if m[D]:
                damaged.append(i)
                continue
            if m[U]:
                continue
            card = m[0]
            act = core_action if card == CORE else CARD_ACTION[card]
            # rules.can_activate, its cheap refusals first (no arrow; not enough crew or MC)
            if act is None or crew < act[0] or mc < act[1]:
                continue
            effect = act[2]
            if effect in ("build", "build_military"):
                if not (slots and rules.can_build(self, a, effect, mc - act[1], slots)):
                    continue
            elif not rules.effect_applies(self, a, effect, mc - act[1]):
                continue
            opt = _OPTIONS.get(("act", i, card, core))
            if opt is None:
                opt = _option(("act", i, card, core), lambda i=i, card=card: (
                    f"act:{i}", f"activate {CORE_NAME[core] if card == CORE else CARD_NAME[card]}"))
            out.append(opt)
        if has_event:
            for c in hand:
                if c >= MODULE_COUNT and rules.event_applies(self, a, c):
                    out.append(_EVENT[c])
        if damaged:
            cost = rules.repair_cost(self, a)
            if mc >= cost:
                for i in damaged:
                    out.append(_option(("repair", i, mods[i][0], cost), lambda i=i: (
                        f"repair:{i}", f"repair {CARD_NAME[mods[i][0]]} ({cost} MC)")))
        out.append(_PASS)
        return out

    def _target_options(self) -> list[Option]:
        a, e = self.cur, self.pend
        mods = self.mods
        if e == "repair":
            return [_option(("repair-tgt", a, i, mods[a][i][0]), lambda i=i: (f"tgt:{a}:{i}", f"repair {CARD_NAME[mods[a][i][0]]}"))
                    for i in rules.damaged_modules(self, a)]
        # rules.effect_targets, one station at a time; each option is made once and kept under one
        # int, (players, station, module + 1, card + 1): the label names the seat or bot ("P2",
        # "Bot A": by the player count) and the module's card
        out = []
        append = out.append
        get = _TARGET_BY_INT.get
        base = self.players << 24
        for b in rules.others(self, a):
            station = mods[b]
            kb = base | b << 16
            for i in rules.station_targets(self, b, e):
                k = kb | (i + 1) << 8 | (station[i][0] + 1 if i >= 0 else 0)
                opt = get(k)
                if opt is None:
                    who = rules.name(self, b)
                    if i < 0:
                        opt = _TARGET_BY_INT[k] = Option(f"tgt:{b}", f"target {who}")
                    else:
                        opt = _TARGET_BY_INT[k] = Option(f"tgt:{b}:{i}", f"target {who}'s {CARD_NAME[station[i][0]]}")
                append(opt)
        return out

    def option_audience(self, option_id: str) -> tuple[int, ...] | None:
        """Returning, keeping or discarding a card of a private hand names it: only the seat may see."""
        if option_id.startswith(("return:", "keep:", "discard:")):
            seat = self.to_move()
            return None if seat is None else (seat,)
        return None

    def fallback_option(self) -> str:
        """Gentle: pass; else the first option (income: the colour that pays most)."""
        ids = self.option_ids()
        if "pass" in ids:
            return "pass"
        if self.phase == P_INCOME:
            counts = rules.colour_counts(self, self.queue[0])
            return f"income:{COLOURS[max(range(6), key=lambda c: (counts[c], -c))]}"
        return ids[0]

    def apply(self, option_id: str) -> list[str]:
        legal = self._cache
        if legal is None:
            legal = self._cache = self._options()
        for o in legal:
            if o.id == option_id:
                break
        else:
            raise self.illegal(option_id)
        self._cache = None
        events: list[str] = []
        kind, _, arg = option_id.partition(":")
        ph = self.phase
        if ph == P_KEEP:
            self._return(int(arg), events)
        elif ph == P_MAIN:
            self._main(kind, arg, events)
        elif ph == P_TARGET:
            parts = [int(x) for x in arg.split(":")]
            self.resolve_target(self.cur, self.pend, parts[0], parts[1] if len(parts) > 1 else -1, events)
            self._after_turn(False, events)
        elif ph == P_COUNT:
            self.high_risk(self.cur, int(arg), events)
            self._after_turn(False, events)
        elif ph == P_PICK:
            self._pick(int(arg), events)
            self._after_turn(False, events)
        elif ph == P_OBS:
            self._keep_peek(int(arg), events)
            self._after_turn(False, events)
        elif ph == P_VIA:
            self._build(arg, events)
            self._after_turn(False, events)
        elif ph == P_INCOME:
            self._income(self.queue.pop(0), COLOURS.index(arg), events)
            self._next_income(events)
        elif ph == P_DISCARD:
            self._discard(int(arg), events)
        self._cache = None
        return events

    def opening_events(self) -> list[str]:
        return list(self.opening)

    # ------------------------------------------------------------------ set-up decisions
    def _return(self, card: int, events: list[str]) -> None:
        """게임 준비 5: keep 5 of the 8 dealt cards; the rest go back and the deck is shuffled."""
        a = self.queue[0]
        self.hands[a].remove(card)
        self.deck.append(card)
        events.append(seen_by(a, f"P{a + 1} returns {CARD_NAME[card]} to the deck"))
        if len(self.hands[a]) > RULES["keep"]:
            return
        events.append(f"P{a + 1} keeps 5 cards")
        self.queue.pop(0)
        if self.queue:
            return
        self.rng.shuffle(self.deck)
        events.append("the deck is shuffled; year 1 begins")
        self.phase = P_MAIN
        self._start_turns(events)

    # ------------------------------------------------------------------ the actions
    def _main(self, kind: str, arg: str, events: list[str]) -> None:
        a = self.cur
        if kind == "pass":
            events.append(f"{rules.name(self, a)} passes")
            self._after_turn(True, events)
            return
        if kind == "build":
            self._build(arg, events)
        elif kind == "upgrade":
            self.upgrade(a, COLOURS.index(arg), events)
        elif kind == "buy":
            self._buy(a, int(arg), events)
        elif kind == "repair":
            self.mc[a] -= rules.repair_cost(self, a)
            rules.repair_one(self, a, int(arg), events)
        elif kind == "act":
            if self.activate(a, int(arg), events):
                return
        elif kind == "event":
            if self.play_event(a, int(arg), events):
                return
        self._after_turn(False, events)

    def _build(self, arg: str, events: list[str]) -> None:
        a = self.cur
        c, _, slot = arg.partition(":")
        p, _, d = slot.partition(".")
        card, parent, direction = int(c), int(p), int(d)
        via = self.pend if self.phase == P_VIA else ""
        cost = rules.build_cost(self, a, card, parent, via)
        rules.build(self, a, card, parent, direction, cost, events)

    def upgrade(self, a: int, colour: int, events: list[str]) -> None:
        """코어 모듈 업그레이드 (4MC, once a game): the core takes the upgrade's colour and effect."""
        self.mc[a] -= RULES["upgrade_cost"]
        self.upgrades.remove(colour)
        self.core[a] = colour
        events.append(f"{rules.name(self, a)} upgrades the core to the {CORE_NAME[colour]} ({COLOURS[colour]})")

    def _buy(self, a: int, pos: int, events: list[str]) -> None:
        """카드 구입: 1-5 MC by distance from the deck; the row closes up."""
        card = self.market.pop(pos)
        self.mc[a] -= pos + 1
        self.hands[a].append(card)
        self.known[a].append(card)
        events.append(f"{rules.name(self, a)} buys {CARD_NAME[card]} from the market for {pos + 1} MC")

    def activate(self, a: int, i: int, events: list[str], bot: bool = False) -> bool:
        """모듈 작동하기. Returns True when a further decision of the seat is pending."""
        m = self.mods[a][i]
        crew, mc, effect, amount = rules.module_action(self, a, i)  # type: ignore[misc]
        self.crew[a] -= crew
        m[W] += crew
        self.mc[a] -= mc
        m[U] = 1
        label = CORE_NAME[self.core[a]] if m[0] == CORE else CARD_NAME[m[0]]
        events.append(f"{rules.name(self, a)} activates {label}" + (f" with {crew} crew" if crew else "")
                      + (f" and {mc} MC" if mc else ""))
        if effect == "mc":
            self.mc[a] += amount
            events.append(f"{rules.name(self, a)} gains {amount} MC")
        elif effect == "mc_draw":
            self.mc[a] += amount
            rules.give(self, a, rules.draw(self, a, 1, events), events)
        elif effect == "crew":
            self.crew[a] += amount
            events.append(f"{rules.name(self, a)} gains {amount} unused crew")
        elif effect == "draw":
            rules.give(self, a, rules.draw(self, a, amount, events), events)
        elif effect == "salvage":
            card = self.discard.pop()
            if card in self.dpub:
                # the top of the pile was face up: everyone sees it go into the hand
                self.dpub.remove(card)
                self.known[a].append(card)
            rules.give(self, a, [card], events, why="takes from the discard pile")
        elif effect == "observe":
            got = rules.draw(self, a, 1 if bot else amount, events)
            if bot or len(got) == 1:
                rules.give(self, a, got, events)
                return False
            self.peek = got
            events.append(seen_by(a, f"{rules.name(self, a)} looks at " + ", ".join(CARD_NAME[c] for c in got)))
            self.phase = P_OBS
            return True
        elif bot:
            botplayer.resolve_for_bot(self, a, effect, events)
        elif effect in ("build", "build_military"):
            self.pend = effect
            self.phase = P_VIA
            return True
        else:
            if effect in ("attack_end", "attack_any"):
                self.attacks[a] += 1
            self.pend = effect
            self.phase = P_TARGET
            return True
        return False

    def play_event(self, a: int, card: int, events: list[str], bot: bool = False) -> bool:
        """이벤트 카드 사용하기: apply the effect, the card goes to the discard pile."""
        if bot:
            self.hands[a].pop()
        else:
            self.hands[a].remove(card)
        rules.forget(self, a, card)
        rules.to_discard(self, [card], public=True)
        self.events_played[a] += 1
        e = EVENT_EFFECT[card]
        who = rules.name(self, a)
        events.append(f"{who} plays {CARD_NAME[card]}")
        if e in ("meteor_storm", "quiet_year", "sabotage", "hull_breach"):
            if e != "quiet_year":
                self.attacks[a] += 1
            if bot:
                botplayer.resolve_for_bot(self, a, e, events)
                return False
            self.pend = e
            self.phase = P_TARGET
            return True
        if e == "insider_contact":
            if self.no_market or bot:
                rules.give(self, a, rules.draw(self, a, RULES["insider_solo_draw"], events), events)
                return False
            self.phase = P_PICK
            return True
        if e == "high_risk":
            if bot:
                self.high_risk(a, self.crew[a], events)
                return False
            self.phase = P_COUNT
            return True
        if e == "reinforcements":
            self.crew[a] += RULES["reinforcements_crew"]
            events.append(f"{who} gains {RULES['reinforcements_crew']} unused crew")
        elif e == "economic_crisis":
            for b in rules.others(self, a):
                lost = min(self.mc[b], RULES["economic_crisis_loss"])
                self.mc[b] -= lost
                events.append(f"{rules.name(self, b)} loses {lost} MC")
        elif e == "crew_rotation":
            back = sum(m[W] for m in self.mods[a])
            for m in self.mods[a]:
                m[W] = 0
            self.crew[a] += back
            events.append(f"{who}'s {back} used crew return to the core")
        elif e == "cold_war":
            gain = RULES["cold_war_mc"] * rules.colour_counts(self, a)[5]
            self.mc[a] += gain
            events.append(f"{who} gains {gain} MC")
        elif e == "trade_boom":
            self.mc[a] += RULES["trade_boom_mc"]
            events.append(f"{who} gains {RULES['trade_boom_mc']} MC")
        elif e == "tax_refund":
            gain = sum(1 for n in rules.colour_counts(self, a) if n)
            self.mc[a] += gain
            events.append(f"{who} gains {gain} MC")
        elif e == "supply_drop":
            rules.give(self, a, rules.draw(self, a, RULES["supply_drop_draw"], events), events)
        elif e == "emergency_repairs":
            for m in self.mods[a]:
                m[D] = 0
            events.append(f"{who} removes every damage token from the station")
        return False

    def resolve_target(self, a: int, effect: str, b: int, i: int, events: list[str]) -> None:
        """Apply a targeted effect of ``a`` on station ``b`` (module ``i``, -1 for the whole player)."""
        if effect == "repair":
            rules.repair_one(self, a, i, events)
        elif effect in ("attack_end", "attack_any", "sabotage"):
            rules.damage(self, b, i, events)
        elif effect == "hull_breach":
            rules.remove_module(self, b, i, events)
        elif effect == "meteor_storm":
            for j in rules.end_targets(self, b, undamaged_only=True):
                rules.damage(self, b, j, events)
        elif effect == "quiet_year":
            hand = self.hands[b]
            card = hand.pop() if b >= self.players else hand.pop(self.rng.below(len(hand)))
            self.discard.append(card)
            rules.secret_discard(self, b)
            events.append(f"{rules.name(self, b)} discards a card")
            if b < self.players:
                events.append(seen_by(b, f"P{b + 1} discards {CARD_NAME[card]}"))
        self.pend = ""

    def high_risk(self, a: int, n: int, events: list[str]) -> None:
        """High-Risk Project (고위험 프로젝트): crew in, MC out, then the station pays for it."""
        self.crew[a] -= n
        self.mc[a] += RULES["high_risk_mc"] * n
        events.append(f"{rules.name(self, a)} puts {n} crew into the project and gains {RULES['high_risk_mc'] * n} MC")
        ends = rules.end_targets(self, a, undamaged_only=True)
        if ends:
            rules.damage(self, a, ends[0], events)

    def _pick(self, pos: int, events: list[str]) -> None:
        card = self.market.pop(pos)
        self.hands[self.cur].append(card)
        self.known[self.cur].append(card)
        events.append(f"{rules.name(self, self.cur)} takes {CARD_NAME[card]} from the market")

    def _keep_peek(self, card: int, events: list[str]) -> None:
        a = self.cur
        self.peek.remove(card)
        self.hands[a].append(card)
        rules.to_discard(self, self.peek, public=False)
        events.append(f"{rules.name(self, a)} keeps 1 card and discards {len(self.peek)}")
        events.append(seen_by(a, f"P{a + 1} keeps {CARD_NAME[card]}"))
        self.peek = []

    # ------------------------------------------------------------------ turn order
    def _start_turns(self, events: list[str]) -> None:
        self.phase = P_MAIN
        if self.cur >= self.players:
            self._after_turn(botplayer.take_turn(self, events), events)

    def _after_turn(self, passed: bool, events: list[str]) -> None:
        """패스: the year ends at once when every player has passed in succession."""
        self.phase = P_MAIN
        self.pend = ""
        while True:
            self.passes = self.passes + 1 if passed else 0
            if self.passes >= self.actors:
                self._year_end(events)
                if self.phase != P_MAIN:
                    return
            else:
                self.cur = (self.cur + 1) % self.actors
            if self.cur < self.players:
                return
            passed = botplayer.take_turn(self, events)

    # ------------------------------------------------------------------ end of the year
    def _year_end(self, events: list[str]) -> None:
        """한 해의 끝, steps 1-3, then the income decisions of step 4."""
        events.append(f"year {self.year} ends")
        self._score_majorities(events)
        if self.year >= RULES["years"]:
            self.phase = P_OVER
            events.append("the game ends after year 5")
            return
        if not self.no_market:
            rules.to_discard(self, self.market, public=True)
            self.market = rules.draw(self, 0, RULES["market_size"], events)
            events.append("new market: " + ", ".join(CARD_NAME[c] for c in self.market))
        for a in range(self.actors):
            for m in self.mods[a]:
                m[W] = 0
            self.crew[a] = geo.population(self.mods[a], self.core[a])
        order = [(self.first + k) % self.actors for k in range(self.actors)]
        for a in order:
            if a >= self.players:
                counts = rules.colour_counts(self, a)
                self._income(a, max(range(6), key=lambda c: (counts[c], -c)), events)
        self.queue = [a for a in order if a < self.players]
        self._next_income(events)

    def _score_majorities(self, events: list[str]) -> None:
        """1. 승점 획득: the most undamaged modules of a colour scores (ties all score; year 5: 2)."""
        vp = RULES["majority_vp_last_year"] if self.year >= RULES["years"] else RULES["majority_vp"]
        counts = [rules.colour_counts(self, a) for a in range(self.actors)]
        for c in range(6):
            best = max([row[c] for row in counts] + [t[c] for t in self.track])
            if best == 0:
                continue
            winners = []
            for a in range(self.actors):
                if counts[a][c] == best:
                    self.vp[a] += vp
                    winners.append(rules.name(self, a))
            for k, t in enumerate(self.track):
                if t[c] == best:
                    self.opp_vp[k] += vp
                    winners.append(f"Opponent {k + 1}")
            events.append(f"{COLOURS[c]} majority ({best}): {', '.join(winners)} +{vp} VP")

    def _income(self, a: int, colour: int, events: list[str]) -> None:
        """4. 수입: 7 MC + 1 per undamaged module of the chosen colour."""
        gain = RULES["income_base"] + rules.colour_counts(self, a)[colour]
        gain += rules.has_passive(self, a, "income") + (2 if CORE_EFFECT[self.core[a]] == "income2" else 0)
        self.mc[a] += gain
        events.append(f"{rules.name(self, a)} takes {gain} MC of income ({COLOURS[colour]})")

    def _next_income(self, events: list[str]) -> None:
        while self.queue:
            a = self.queue[0]
            counts = rules.colour_counts(self, a)
            if sum(1 for n in counts if n) > 1:
                self.phase = P_INCOME
                return
            self._income(self.queue.pop(0), next(c for c in range(6) if counts[c]), events)
        self._draw_step(events)

    def _draw_step(self, events: list[str]) -> None:
        """5. 카드 뽑기: 4 cards each, hand limit 5; bot players fill their stack to 5."""
        order = [(self.first + k) % self.actors for k in range(self.actors)]
        for a in order:
            if a < self.players:
                rules.give(self, a, rules.draw(self, a, RULES["year_draw"], events), events)
            else:
                need = RULES["bot_stack"] - len(self.hands[a])
                got = rules.draw(self, a, max(0, need), events)
                self.hands[a].extend(got)
                if got:
                    events.append(f"{rules.name(self, a)} fills its hand stack with {len(got)} card(s)")
        if self.peaceful:
            self._opponents_draw(events)
        self.queue = [a for a in order if a < self.players and len(self.hands[a]) > rules.hand_limit(self, a)]
        if self.queue:
            self.phase = P_DISCARD
            return
        self._new_year(events)

    def _opponents_draw(self, events: list[str]) -> None:
        """평화 버전: each opponent draws 3 cards and builds their colours on its track."""
        for k in range(2):
            got = rules.draw(self, -1, RULES["peaceful_draw"], events)
            for c in got:
                self.track[k][CARD_COLOUR[c]] += 1
            rules.to_discard(self, got, public=True)
            events.append(f"Opponent {k + 1} builds " + ", ".join(f"{CARD_NAME[c]} ({COLOURS[CARD_COLOUR[c]]})" for c in got))

    def _discard(self, card: int, events: list[str]) -> None:
        a = self.queue[0]
        self.hands[a].remove(card)
        self.discard.append(card)
        rules.secret_discard(self, a)
        events.append(f"P{a + 1} discards a card over the hand limit")
        events.append(seen_by(a, f"P{a + 1} discards {CARD_NAME[card]}"))
        if len(self.hands[a]) <= rules.hand_limit(self, a):
            self.queue.pop(0)
        if not self.queue:
            self._new_year(events)

    def _new_year(self, events: list[str]) -> None:
        """6. 수리 and 7. 새해."""
        for a in range(self.actors):
            for m in self.mods[a]:
                m[D] = 0
                m[U] = 0
            self.shield[a] = 0
        self.year += 1
        self.first = (self.first + 1) % self.actors
        self.cur = self.first
        self.passes = 0
        events.append(f"year {self.year} begins; {rules.name(self, self.first)} is the first player")
        self._start_turns(events)

    # ------------------------------------------------------------------ views
    def observation(self, seat: int) -> dict[str, Any]:
        return views.observation(self, seat)

    def public_view(self) -> dict[str, Any]:
        """Exactly the public part: what every observation shares (no hand, no peek)."""
        return views.public_view(self)

    @classmethod
    def from_observation(cls, observation: dict[str, Any], seed: int = 0) -> OrbitalState:
        from referee.engine import ConfigError
        from referee.orbital.observed import state_from_observation

        try:
            return state_from_observation(observation, seed)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            if isinstance(exc, ConfigError):
                raise
            raise ConfigError(f"not an Orbital observation: {exc!r}") from None

    def spectator_view(self) -> dict[str, Any]:
        return views.spectator_view(self)

    # ------------------------------------------------------------------ copying
    def clone(self) -> OrbitalState:
        c = OrbitalState.__new__(OrbitalState)
        d = c.__dict__
        src = self.__dict__
        for k in SCALARS:
            d[k] = src[k]
        for k in FLAT:
            d[k] = src[k][:]
        c.hands = [h[:] for h in self.hands]
        c.known = [k[:] for k in self.known]
        c.maybe = [k[:] for k in self.maybe]
        c.gone = self.gone[:]
        c.track = [t[:] for t in self.track]
        c.mods = [[m[:] for m in s] for s in self.mods]
        c.rng = Rng(self.rng.state)
        c.opening = self.opening
        c.actors, c.peaceful, c.no_market = self.actors, self.peaceful, self.no_market
        # the station caches name the module objects of this state, so a copy starts without;
        # the legal options are the same
        c._fresh_caches()
        c._cache = self._cache
        return c

    def to_json(self) -> dict[str, Any]:
        src = self.__dict__
        data: dict[str, Any] = {k: src[k] for k in SCALARS}
        for k in FLAT:
            data[k] = list(src[k])
        data["hands"] = [list(h) for h in self.hands]
        data["known"] = [list(k) for k in self.known]
        data["maybe"] = [list(k) for k in self.maybe]
        data["gone"] = list(self.gone)
        data["track"] = [list(t) for t in self.track]
        data["mods"] = [[list(m) for m in s] for s in self.mods]
        data["rng"] = self.rng.state
        data["opening"] = [str(x) for x in self.opening]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OrbitalState:
        st = cls.__new__(cls)
        d = st.__dict__
        for k in SCALARS:
            d[k] = data[k]
        for k in FLAT:
            d[k] = list(data.get(k, ()))
        st.hands = [list(h) for h in data["hands"]]
        # a record written before ``known`` existed: nothing publicly known in any hand
        st.known = [list(k) for k in data.get("known", [[] for _ in st.hands])]
        st.maybe = [list(k) for k in data.get("maybe", [[] for _ in st.hands])]
        st.gone = list(data.get("gone", [0] * len(st.hands)))
        st.track = [list(t) for t in data["track"]]
        st.mods = [[list(m) for m in s] for s in data["mods"]]
        st.rng = Rng(int(data["rng"]))
        st.opening = tuple(str(x) for x in data.get("opening", ()))
        st._derive()
        st._fresh_caches()
        return st

    def determinise(self, seat: int, seed: int) -> OrbitalState:
        """Re-deal what ``seat`` cannot see: other hands, bot stacks, the deck, the discard pile, the peek."""
        c = self.clone()
        c._cache = None
        rng = Rng(seed ^ 0x0B17A1)
        own_peek = c.phase == P_OBS and c.cur == seat
        hidden = [a for a in range(c.actors) if a != seat]
        shown = set(c.dpub)
        pool = c.deck + [x for x in c.discard if x not in shown] + (c.peek if not own_peek else [])
        for a in hidden:
            known = c.known[a]
            pool += [x for x in c.hands[a] if x not in known] if known else c.hands[a]
        stay, extra = self._deal_maybe(c, seat, hidden, rng)
        if stay or extra:
            dealt = {x for s in stay.values() for x in s} | set(extra)
            pool = [x for x in pool if x not in dealt]
        rng.shuffle(pool)
        for a in hidden:
            # cards everyone saw go into the hand stay there (and the maybe cards kept); only
            # the rest is re-dealt
            k = c.known[a] + stay.get(a, [])
            n = len(c.hands[a]) - len(k)
            c.hands[a] = k + pool[:n]
            pool = pool[n:]
        if not own_peek:
            n = len(c.peek)
            c.peek = pool[:n]
            pool = pool[n:]
        # maybe cards that left went face down onto the pile: its secret places first
        c.discard, pool = rules.fill_discard(c.discard, shown, extra + pool)
        c.deck = pool
        c.rng = Rng(rng.next64())
        return c

    @staticmethod
    def _deal_maybe(c: OrbitalState, seat: int, hidden: list[int],
                    rng: Rng) -> tuple[dict[int, list[int]], list[int]]:
        """Per hidden hand, the maybe cards a sample keeps there; and those it lets have left."""
        if not any(c.maybe[a] for a in hidden):
            return {}, []
        visible = set(c.market) | set(c.dpub) | set(c.hands[seat])
        if c.phase == P_OBS and c.cur == seat:
            visible.update(c.peek)
        for k in c.known:
            visible.update(k)
        for s in c.mods:
            visible.update(m[0] for m in s)
        stay: dict[int, list[int]] = {}
        extra: list[int] = []
        for a in hidden:
            if c.maybe[a]:
                room = len(c.hands[a]) - len(c.known[a])
                stay[a], out = rules.deal_maybe(c.maybe[a], c.gone[a], visible, room, rng)
                visible.update(stay[a])
                visible.update(out)
                extra += out
        return stay, extra

    # ------------------------------------------------------------------ the end
    def tiebreak(self, a: int) -> tuple[int, int, int]:
        """게임 종료: VP, then population icons on undamaged modules, then MC."""
        return self.vp[a], geo.population(self.mods[a], self.core[a]), self.mc[a]

    def result(self) -> Result:
        if self.phase != P_OVER:
            raise IllegalAction("the game is not over yet")
        keys = [self.tiebreak(a) for a in range(self.actors)]
        details: dict[str, Any] = {
            "tiebreak": [list(k) for k in keys[: self.players]],
            "places": list(competition_ranks(keys)),
        }
        if self.nbots:
            details["bot_vp"] = self.vp[self.players:]
        scores = tuple(float(self.vp[a]) for a in range(self.players))
        if self.peaceful:
            # 평화 버전: 22 VP or more after year 5 wins; the goal plays the automaton's part
            details["opponent_vp"] = list(self.opp_vp)
            details["won"] = self.vp[0] >= RULES["peaceful_win_vp"]
            details["solo_message"] = ("won" if details["won"] else "lost") + f": {self.vp[0]} VP (22 or more wins)"
            rank, outcome = solo_outcome(scores[0], "the 22 VP goal", float(RULES["peaceful_win_vp"]), tie_wins=True)
            details.update(outcome)
            return Result(scores, (rank,), details)
        if self.players == 1:
            # 경쟁 버전: the player against the best bot player, 게임 종료's tie-breakers deciding a tie
            details["won"] = details["places"][0] == 1
            details["solo_message"] = "won against the bot players" if details["won"] else "a bot player won"
            best = max(self.vp[self.players:])
            rank, outcome = solo_outcome(scores[0], "the bot players", float(best), tie_wins=details["won"])
            details.update(outcome)
            if scores[0] == best:
                words = "beat the bot players on the tie-breaker" if details["won"] else "lost to the bot players on the tie-breaker"
                details["outcome"] = f"{words}, {scores[0]:g} to {best:g} VP"
                details["automaton_rank"] = 2 if details["won"] else 1
            return Result(scores, (rank,), details)
        if self.nbots:
            # bots-N: the bot players count as one more finisher, the best placed of them (as in
            # the competitive solo, and as the rating has them: arena.evaluation.ratings.automaton_table),
            # so a seat beaten by a bot player does not show as first. details["places"] keeps
            # every actor's own place.
            places = details["places"]
            best = min(places[self.players:])
            seats = range(self.players)
            ranks = tuple(1 + sum(1 for o in seats if places[o] < places[s]) + (best < places[s])
                          for s in seats)
            details["automaton_rank"] = 1 + sum(1 for s in seats if places[s] < best)
            return Result(scores, ranks, details)
        return Result(scores, competition_ranks(keys[: self.players]), details)

