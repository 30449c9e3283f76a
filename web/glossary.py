"""The words the site uses, explained once, for the /glossary page.

Why a module and not a hand-written page: the numbers in the definitions (the provisional bar,
the calibration bar, the starting rating) and the forfeit reasons come from the code that uses
them, so the page cannot drift from what the leaderboard and match pages do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.evaluation.ratings import CALIBRATED_SIGMA, MU0, PROVISIONAL_SIGMA, SIGMA0
from referee.faults import REASONS
from web.card_glossary import game_cards


@dataclass(frozen=True)
class Term:
    """One entry: the word as the site prints it, other spellings, and what it means."""

    term: str
    meaning: str
    also: tuple[str, ...] = ()
    #: the game a card entry belongs to ("orbital"): two games may name a card alike
    game: str = ""

    @property
    def anchor(self) -> str:
        """The entry's id on the page (``/glossary#provisional``, ``/glossary#orbital-airlock``)."""
        text = f"{self.game} {self.term}" if self.game else self.term
        slug = re.sub(r"[^a-z0-9]+", "-", text.lower().replace("μ", "mu").replace("σ", "sigma"))
        return slug.strip("-") or "term"


def _g(value: float) -> str:
    return f"{value:g}"


RATINGS: tuple[Term, ...] = (
    Term("Rank", "A bot's place on the leaderboard, by μ − 3σ (1 is best). In a match, a seat's "
         "place at the end (1 is best; equal places tie; a forfeited seat ranks last)."),
    Term("Bot", "A program that plays one game, submitted by its owner. It answers each decision "
         "with one of the legal options."),
    Term("Owner", "The account that submitted the bot."),
    Term("Version", "Each upload of a bot's code is a new version, rated on its own. A new version "
         "goes live after its version test (SPRT) says it is no weaker than the one before."),
    Term("μ", f"Mu: the rating's estimate of a bot's skill (TrueSkill, one scale per game). Every "
         f"version starts at {_g(MU0)}; it rises with wins and falls with losses.", ("mu",)),
    Term("σ", f"Sigma: how uncertain μ still is. It starts at {SIGMA0:.2f} and shrinks as the bot "
         f"plays; the true skill is very likely within 3σ of μ.", ("sigma",)),
    Term("μ − 3σ", "The conservative rating the leaderboard sorts by: a bot ranks high only when "
         "its rating is both high and certain.", ("mu - 3 sigma", "conservative rating")),
    Term("provisional", f"A rating whose σ is still above {_g(PROVISIONAL_SIGMA)}: too uncertain to "
         f"trust yet. It is not a count of games: the mark goes once σ falls to "
         f"{_g(PROVISIONAL_SIGMA)} or below, and how fast σ falls depends on the opponents and "
         f"the results."),
    Term("anchor", f"A house bot (the random, greedy and search sample bots) or a solo automaton "
         f"(Hal at each difficulty, Solenia's virtual player, Orbital's bot players). Anchors are "
         f"the reference points of the scale: each is rated until it is calibrated (σ at or below "
         f"{_g(CALIBRATED_SIGMA)}, about 25 games), then its rating is fixed, so a rating means the "
         f"same next month.", ("house bot", "anchored")),
    Term("anchor · calibrating", "An anchor still being calibrated: rated like any bot until its σ "
         f"is at or below {_g(CALIBRATED_SIGMA)}.", ("calibrating",)),
    Term("retired", "A bot its owner withdrew: it keeps its rating and history but plays no more "
         "ladder matches."),
    Term("Matches", "How many rated matches the bot's current version has finished."),
    Term("Win share", "The share of its matches a bot finished first (a tie for first counts)."),
    Term("Last match", "When the bot's latest match finished."),
    Term("Rating change (μ)", "A seat's μ before and after the match."),
)

MATCHES: tuple[Term, ...] = (
    Term("seat", "A bot's or a person's place at the table: player 1 to N, as the rulebooks number "
         "them (a bot's protocol counts seats from 0). Tournaments give every bot every seat about "
         "equally often; the game's rules say who starts.", ("player",)),
    Term("variant", "A version of a game's rules: base or advanced rules, a solo game against an "
         "automaton and its difficulty, or a board side (`arena games` lists them)."),
    Term("solo", "A one-player game against an automaton the engine plays (Hal, the virtual "
         "player, Orbital's bot players); the automaton is rated like a bot, so solo games count."),
    Term("seed", "The number every shuffle and die roll of a match comes from: with it and the "
         "list of decisions the match replays exactly. Shown once the match is over."),
    Term("decision", "One choice a seat makes from the legal options; a turn may take several. "
         "A replay step is the board after a number of decisions."),
    Term("time control", "Each decision has a time limit, plus a bank of extra time for the whole "
         "match; overrunning both forfeits."),
    Term("forfeit", "A seat that breaks the rules of play (see the reasons below) ranks last; the "
         "engine plays its seat on with the fallback policy so the other seats finish."),
    Term("fallback policy", "The simple player the engine uses for a forfeited seat; its moves "
         "are marked in the replay."),
    Term("score", "A seat's final points as the game counts them (VP), with the rulebook's "
         "tie-breakers under “Tie-breakers and details”."),
)

FORFEITS: tuple[Term, ...] = tuple(
    Term(reason.replace("_", " "), meaning[0].upper() + meaning[1:] + ".", (reason,))
    for reason, meaning in REASONS.items()
)

TOURNAMENTS: tuple[Term, ...] = (
    Term("ladder", "Matches played continuously, preferring bots whose rating is least certain."),
    Term("round robin", "A tournament where every bot meets every other bot, in every seat about "
         "equally often."),
    Term("Swiss", "A tournament of rounds where bots with similar scores meet; no pair meets twice "
         "if it can be avoided."),
    Term("Buchholz", "The sum of a bot's opponents' tournament scores: the tie-break between "
         "equal scores in a Swiss tournament."),
    Term("bye", "A round without an opponent (an odd number of bots): it scores a win and changes "
         "no rating."),
    Term("challenge", "A match one author asks for now: their bot against a chosen active bot of "
         "the same game (never their own). Unrated unless the challenger ticks “rated”: an unrated "
         "challenge is recorded and shown like any match but changes no rating. Each account may "
         "make a few an hour.", ("challenged", "challenged by")),
    Term("SPRT", "The version test: a sequential probability ratio test that plays a new version "
         "against the one before until it can say the new one is no weaker (then it goes live) "
         "or is weaker (then it is held).", ("version test", "held by its test")),
)

def _cards(game: str) -> tuple[Term, ...]:
    return tuple(Term(name, text, game=game) for name, text in sorted(game_cards(game).items()))


#: The cards and tiles of each game by the names the board and the option buttons use; the
#: texts are the ones a card shows on hover or tap (:func:`card_rules`).
GAME_CARDS: tuple[tuple[str, str, tuple[Term, ...]], ...] = (
    ("black-angel-cards", "Black Angel: cards and tiles", _cards("black_angel")),
    ("orbital-cards", "Star Scrappers: Orbital: modules, events and cores", _cards("orbital")),
    ("solenia-cards", "Solenia: cards and tiles", _cards("solenia")),
)

SECTIONS: tuple[tuple[str, str, tuple[Term, ...]], ...] = (
    ("ratings", "Ratings and the leaderboard", RATINGS),
    ("matches", "Matches and replays", MATCHES),
    ("forfeits", "Forfeit reasons", FORFEITS),
    ("tournaments", "Tournaments", TOURNAMENTS),
    *GAME_CARDS,
)


def card_rules(game: str, name: str) -> str | None:
    """The rules text of a card or tile of ``game`` by the name the board gives it (its glossary
    entry), or None when the glossary has no such card. What a button's ``rules`` and the board's
    hover/tap text show (issue #37 item 3)."""
    return game_cards(game).get(name)


def card_anchor(game: str, name: str) -> str | None:
    """The /glossary anchor of a card's entry, for a "more" link beside its rules text."""
    return Term(name, "", game=game).anchor if card_rules(game, name) is not None else None


def all_terms() -> list[Term]:
    """Every entry of the page, in order."""
    return [t for _, _, terms in SECTIONS for t in terms]


def anchor_for(word: str) -> str | None:
    """The page anchor of the entry a word names (its term or another spelling), if any."""
    w = word.strip().lower()
    for t in all_terms():
        if w == t.term.lower() or w in (a.lower() for a in t.also):
            return t.anchor
    return None
