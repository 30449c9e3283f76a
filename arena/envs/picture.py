"""``render_mode="rgb_array"``: the board as an image (``numpy`` H x W x 3 ``uint8``, a fixed size per game).

What it draws is what the website's board pages draw (web/templates/boards/<game>.html) from the
same input, the engine's public view (``state.public_view()``): whose turn and the decision, the
tracks (year, round, phase), every seat's scores and counters under the names the glossary
uses, the cards on the table (market, display, rows, stations) and the shared boards (Orbital's
stations module by module at their grid positions, Solenia's hex boards with their owners,
Black Angel's space strips and the action spaces). Never a hand or a deck order: the image is
the spectators' view, so an agent loop showing it to a seat shows nothing that seat may not see.

Why drawn here with Pillow rather than by rendering the website's templates: ``arena`` may not
import ``web`` (the layers run protos → referee → arena → web), and a browser per frame would be
far too slow for a training loop's video recorder. The drawing is plain shapes and text; the
colours are the website's.
"""

from __future__ import annotations

from typing import Any

from arena.envs import require

np = require("numpy", "numpy")
_image = require("PIL.Image", "Pillow")
_draw = require("PIL.ImageDraw", "Pillow")
_font = require("PIL.ImageFont", "Pillow")

WIDTH = 1000
#: Every frame of a game has the same size (video recorders such as Gymnasium's ``RecordVideo``
#: need that): wide and tall enough for the largest board met in random games of every
#: configuration (tests/envs/test_classic.py); anything beyond is cut off, never rescaled.
HEIGHT = {"black_angel": 1100, "solenia": 1100, "orbital": 1800}
DEFAULT_HEIGHT = 1100
#: The website's colours (web/templates/boards/*.html and its stylesheet).
FILL = {
    "red": "#e06666", "green": "#6aa84f", "yellow": "#f1c232", "orange": "#f6a04d",
    "blue": "#6fa8dc", "purple": "#a27bc9", "damaged": "#9a9a9a", "gray": "#b7b7b7",
    "black": "#444444", "wood": "#8d6e4a", "stone": "#9e9e9e", "wheat": "#e8c547",
    "water": "#5fa3d9", "day city": "#ffe599", "night city": "#8e7cc3", "ravager": "#cc4125",
    "day": "#ffe599", "night": "#8e7cc3",
}
SEAT = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
INK = "#222222"
MUTED = "#777777"


def _load_font(size: int) -> Any:
    try:
        return _font.load_default(size=size)
    except TypeError:  # Pillow < 10.1: the bitmap font, one size
        return _font.load_default()


class Sheet:
    """A growing page of text lines and shapes, cut to its used height at the end."""

    def __init__(self, height: int = DEFAULT_HEIGHT) -> None:
        self.image = _image.new("RGB", (WIDTH, height), "white")
        self.draw = _draw.Draw(self.image)
        self.font = _load_font(13)
        self.bold = _load_font(16)
        self.y = 8

    def heading(self, text: str) -> None:
        self.y += 4
        self.draw.text((10, self.y), text, fill=INK, font=self.bold)
        self.y += 22

    def line(self, text: str, x: int = 10, colour: str = INK) -> None:
        self.draw.text((x, self.y), text[:150], fill=colour, font=self.font)
        self.y += 17

    def swatches(self, items: list[tuple[Any, str]], x: int = 10, width: int = 118) -> None:
        """A row of labelled boxes filled with their colours (cards, tiles, cores), wrapping."""
        left = x
        for colour, label in items:
            if left + width > WIDTH - 10:
                left = x
                self.y += 40
            self.box(left, self.y, width - 6, 34, colour, label)
            left += width
        if items:
            self.y += 42

    def box(self, x: int, y: int, w: int, h: int, colour: Any, label: str = "",
            outline: str = INK, thick: int = 1) -> None:
        self.draw.rectangle((x, y, x + w, y + h), fill=_fill(colour), outline=outline, width=thick)
        if label:
            for i, part in enumerate(_wrap(label, max(4, w // 7))[:2]):
                self.draw.text((x + 3, y + 2 + 15 * i), part, fill=INK, font=self.font)

    def array(self) -> Any:
        return np.asarray(self.image, dtype=np.uint8).copy()


def _fill(colour: Any) -> str:
    """The website's colour of a name, a ``#rrggbb`` as is, else white."""
    if not isinstance(colour, str):
        return "#ffffff"
    return FILL.get(colour) or (colour if colour.startswith("#") else "#ffffff")


def _d(node: Any) -> dict[str, Any]:
    """``node`` if it is a dict, else an empty one (an empty slot, a null card)."""
    return node if isinstance(node, dict) else {}


def _l(node: Any) -> list[Any]:
    """``node`` if it is a list, else an empty one."""
    return node if isinstance(node, list) else []


def _wrap(text: str, width: int) -> list[str]:
    words, lines, current = str(text).split(), [], ""
    for word in words:
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    if current:
        lines.append(current)
    return lines or [""]


def picture(state: Any) -> Any:
    """The image of ``state``'s public view (or a blank page saying there is no game yet), of
    the game's fixed size: ``HEIGHT[game]`` x :data:`WIDTH` x 3."""
    sheet = Sheet(DEFAULT_HEIGHT if state is None else HEIGHT.get(state.spec.name, DEFAULT_HEIGHT))
    if state is None:
        sheet.heading("no game yet: call reset()")
        return sheet.array()
    view = state.public_view()
    sheet.heading(f"{state.spec.title}  - {state.players} players, {state.variant}")
    if state.is_over():
        result = state.result()
        sheet.line(f"game over · scores {list(result.scores)} · ranks {list(result.ranks)}")
    else:
        sheet.line(f"seat {state.to_move()} to move · {state.decision_prompt()}")
    draw = {"orbital": _orbital, "solenia": _solenia, "black_angel": _black_angel}.get(state.spec.name)
    if draw is not None:
        draw(sheet, view)
    return sheet.array()


def _orbital(sheet: Sheet, view: dict[str, Any]) -> None:
    years = view.get("years") or 5
    sheet.line(f"Year {view.get('year')} of {years} · phase {view.get('phase')}")
    for y in range(1, years + 1):  # the year track
        now = y == view.get("year")
        sheet.box(10 + (y - 1) * 28, sheet.y, 24, 20, INK if now else "#ffffff", "")
        sheet.draw.text((18 + (y - 1) * 28, sheet.y + 3), str(y), fill="white" if now else INK,
                        font=sheet.font)
    sheet.y += 28
    for st in map(_d, _l(view.get("stations"))):
        a = st.get("actor", 0)
        head = f"{st.get('name')}" + (" (bot player)" if st.get("bot") else "")
        sheet.heading(head + ("  - to move" if view.get("to_move") == a else ""))
        sheet.line(f"VP {st.get('vp')} · MC {st.get('mc')} · unused crew {st.get('unused_crew')} · "
                   f"population {st.get('population')} · hand {st.get('hand_size')}/"
                   f"{st.get('hand_limit')}")
        modules = [m for m in map(_d, _l(st.get("modules")))
                   if isinstance(m.get("x"), int) and isinstance(m.get("y"), int)]
        if not modules:
            continue
        xs = [m["x"] for m in modules]
        ys = [m["y"] for m in modules]
        cell = 92
        top = sheet.y
        for m in modules:
            x = 10 + (m["x"] - min(xs)) * cell
            y = top + (m["y"] - min(ys)) * 48
            if x + cell > WIDTH:
                continue
            colour = "damaged" if m.get("damage") else m.get("colour", "#ffffff")
            core = _d(m.get("card")).get("kind") == "core"
            marks = (f"x{m['damage']} " if m.get("damage") else "") + (
                f"crew {m['crew']}" if m.get("crew") else "")
            sheet.box(x, y, cell - 6, 42, colour, str(_d(m.get("card")).get("name", "")),
                      thick=3 if core else 1)
            if marks:
                sheet.draw.text((x + 3, y + 28), marks, fill=INK, font=sheet.font)
        sheet.y = top + (max(ys) - min(ys) + 1) * 48 + 6
    sheet.heading("Market")
    sheet.swatches([(_d(s.get("card")).get("colour"),
                     f"{_d(s.get('card')).get('name', '')} {s.get('cost')} MC")
                    for s in map(_d, _l(view.get("market")))])
    sheet.line("Upgrade cores: " + (", ".join(map(str, _l(view.get("upgrade_cores")))) or "none")
               + f" · deck {view.get('deck_size')} · discard pile {view.get('discard_size')}")
    opponent_vp = _l(view.get("opponent_vp"))
    for i, track in enumerate(map(_d, _l(view.get("opponent_tracks")))):
        sheet.line(f"Opponent {i + 1} · VP {opponent_vp[i] if i < len(opponent_vp) else '?'} · "
                   + " ".join(f"{c} {n}" for c, n in track.items()))


def _solenia(sheet: Sheet, view: dict[str, Any]) -> None:
    sheet.line(f"phase {view.get('phase')} · tile decks "
               + ", ".join(f"{k} {v}" for k, v in _d(view.get("tile_deck_counts")).items()))
    boards = map(_d, _l(view.get("boards")))
    ship = _d(view.get("ship")).get("pos")
    top = sheet.y + 8
    r = 26
    rows = 0
    for board in boards:
        for c in map(_d, _l(board.get("cells"))):
            if not (isinstance(c.get("col"), int) and isinstance(c.get("row"), int)):
                continue
            x = 30 + c["col"] * 2 * r * 0.9 + (r * 0.9 if c["row"] % 2 else 0)
            y = top + 20 + c["row"] * r * 1.55
            rows = max(rows, c["row"] + 1)
            points = [(x + r * np.cos(np.pi / 6 + k * np.pi / 3), y + r * np.sin(np.pi / 6 + k * np.pi / 3))
                      for k in range(6)]
            owner = c.get("owner")  # a seat, the solo game's virtual player ("virtual"), or None
            if isinstance(owner, int) and not isinstance(owner, bool):
                ring = SEAT[owner % len(SEAT)]
            else:
                ring = INK if owner is None else "#000000"
            sheet.draw.polygon(points, fill=FILL.get(c.get("type"), "#ffffff"), outline=ring,
                               width=1 if owner is None else 4)
            label = str(c.get("type") or "")[:5]
            if c.get("card") or owner is not None:
                label = f"s{owner}" if isinstance(owner, int) else str(owner)[:5]
            if c.get("pos") == ship:
                label = "ship"
            sheet.draw.text((x - 14, y - 7), label, fill=INK, font=sheet.font)
    sheet.y = int(top + 40 + rows * r * 1.55)
    market = _d(view.get("market"))
    for kind in ("day", "night"):
        tiles = [t for t in _l(market.get(kind)) if isinstance(t, dict)]
        sheet.line(f"{kind} tiles on offer:")
        sheet.swatches([(kind, f"{t.get('points')} pts: " + " ".join(
            f"{n} {res}" for res, n in _d(t.get("cost")).items() if n)) for t in tiles], width=180)
    for p in map(_d, _l(view.get("players_info"))):
        seat = p.get("seat")
        score = _d(p.get("score_now"))
        sheet.heading(f"seat {seat}" + ("  - to move" if view.get("to_move") == seat else ""))
        sheet.line(f"score {score.get('total')} · stars {p.get('stars')} · resources "
                   + ", ".join(f"{k} {v}" for k, v in _d(p.get("resources")).items())
                   + f" (limit {p.get('resource_limit')}) · hand {p.get('hand_count')} · deck "
                   f"{p.get('deck_count')}")
        for row in ("day_row", "night_row"):
            tiles = _l(p.get(row))
            sheet.swatches([(row[:-4] if t else "#ffffff", f"{_d(t).get('points')} pts" if t else "")
                            for t in tiles], width=70)


def _black_angel(sheet: Sheet, view: dict[str, Any]) -> None:
    sheet.line(f"round {view.get('round')} · phase {view.get('phase')}"
               + (" · end triggered" if view.get("end_triggered") else ""))
    sheet.heading("Action spaces")
    sheet.swatches([(a.get("colour"), f"{a.get('number')} {a.get('name')}"
                     + (f" dmg {a.get('damage')}" if a.get("damage") else ""))
                    for a in map(_d, _l(view.get("actions")))], width=160)
    sheet.heading("Technology display")
    sheet.swatches([(_d(t).get("colour"),
                     f"cost {c}" + (" lightning" if _d(t).get("lightning") else "") if t else "empty")
                    for t, c in zip(_l(view.get("display")), _l(view.get("display_costs")),
                                    strict=False)], width=120)
    sheet.heading("Space")
    for strip in map(_d, _l(_d(view.get("space")).get("strips"))):
        items = []
        for h in map(_d, _l(strip.get("hexes"))):
            label = str(h.get("type", ""))
            if h.get("black_angel"):
                label += " ANGEL"
            if h.get("ships"):
                label += " ships " + ",".join(str(s) for s in _l(h.get("ship_owners")) or _l(h["ships"]))
            items.append((h.get("type"), label))
        sheet.swatches(items, width=150)
    for s in map(_d, _l(view.get("seats"))):
        seat = s.get("seat")
        sheet.heading(f"{s.get('name')}" + ("  - to move" if view.get("to_move") == seat else ""))
        sheet.line(f"VP {s.get('vp')} · resources {s.get('resources')} · debris {s.get('debris')} · "
                   f"ships {s.get('ships')} · robots: break room {s.get('robots_break_room')}, supply "
                   f"{s.get('robots_supply')}")
        sheet.swatches([(d.get("colour"), f"die {d.get('face')}"
                         + (" R" if d.get("reserved") else "")) for d in map(_d, _l(s.get("dice")))],
                       width=70)
        sheet.swatches([(_d(t).get("colour"), str(_d(t).get("id", ""))) for t in _l(s.get("grid"))],
                       width=60)
