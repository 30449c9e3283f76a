"""Names shared by the engine's modules: owner codes, decisions, and the state's fields.

The field lists drive hand-written cloning and serialising: every attribute of a state is
either a scalar, a flat list of ints or a list of lists, so copying is a few slices.
"""

from __future__ import annotations

#: The owner code of the virtual player's cards (seats are 0-3).
VP = 4
EMPTY = -1

# Decisions.
P_DRAFT, P_CARD, P_CELL, P_SPEND, P_SHIP, P_TILE, P_PAY, P_SLOT, P_GAIN, P_DROP, P_VPCELL, P_OVER = range(12)
PHASE_NAMES = (
    "draft", "card", "cell", "spend", "ship", "tile", "pay", "slot", "gain", "drop", "vp_cell", "over",
)
# What happens once every overflowing store is trimmed.
AFTER_EFFECTS, AFTER_RECOVERY = 0, 1


SCALARS = (
    "players", "variant", "seed", "ship_col", "cur", "phase", "sel_card", "sel_cell", "pay_left",
    "pend_kind", "pend_tile", "pend_index", "bonus_left", "after_drop", "vp_card", "vp_die", "vp_used",
)
FLAT_LISTS = (
    "board_at", "side_at", "ctype", "owner", "card", "stars", "used", "tech1", "bonus_from",
    "excess", "vp_deck", "vp_tiles", "draft_queue", "offer1", "vp_options", "vp_out",
)
NESTED_LISTS = ("market", "tile_deck", "hand", "deck", "res", "out_cards", "tech3", "tech_pts", "offer3")
