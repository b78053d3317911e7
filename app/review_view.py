"""What the page shows of the coach: a hint's cards and sentence, a reviewed hand step by
step, and the score sheet's chart of the totals.  Built for the viewer's seat from what
the services computed (:mod:`app.coaching`); the templates only show it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from babel.numbers import format_decimal

from engine import Card, PlayerView
from engine.bots.coach import BLUNDER, FORCED, Rating

from .i18n import _, join_list
from .i18n import current as current_language
from .presenter import N_, CardFace, card_name, seat_names, short_names

# Translators: the reasons a hint gives for Hard's choice, one sentence each; %(card)s is a
# card's name ("queen of spades"), %(player)s a seat ("West"), %(suit)s a suit's symbol (♣)
REASONS = {
    "pass_moon": N_("Keep your high cards and pass low ones: this hand can shoot the moon."),
    "pass_queen": N_("Pass the queen of spades: if you keep her, she can cost you 13 points."),
    "pass_high_spades": N_("Pass your high spades: without the queen, the ace or king can catch her for 13 points."),
    "pass_void": N_("Pass all your %(suit)s: once you are out of them you can throw away dangerous cards."),
    "pass_hearts": N_("Pass your high hearts: they would win tricks full of points."),
    "pass_high": N_("Pass your highest cards: they would win tricks you do not want."),
    "lead_first": N_("You hold the %(card)s, so you lead it to the first trick."),
    "only_card": N_("The %(card)s is the only card you may play."),
    "moon_lead": N_("%(player)s has taken every point so far: keep a winner to take a heart from them and stop "
                    "the moon."),
    "lead_void": N_("%(player)s is out of %(suit)s: lead low so that what they throw away lands on someone "
                    "else's trick."),
    "smoke_queen": N_("The queen of spades is still out: lead a low spade to force her out."),
    "lead_low": N_("Lead low in %(suit)s so that someone else has to win the trick."),
    "moon_spoil": N_("%(player)s has taken every point so far: give this heart to someone else to stop the moon."),
    "dump_queen": N_("You are out of %(suit)s: drop the queen of spades on someone else's trick."),
    "dump_heart": N_("You are out of %(suit)s: get rid of a heart while someone else wins the trick."),
    "discard_high": N_("You are out of %(suit)s: throw away a dangerous high card while you can."),
    "moon_take": N_("%(player)s has taken every point so far and is winning this trick: take it to stop the moon."),
    "duck_points": N_("There are points on the table: play under the %(card)s so you do not win the trick."),
    "duck": N_("Play under the %(card)s and let someone else win the trick."),
    "win_clean": N_("No points on the table and you play last: win it with a high card you want to be rid of."),
    "cheapest": N_("In Hard's simulations this card gives you the fewest points on average."),
}
LABEL_NAMES = {"best": N_("Best"), "good": N_("Good"), "inaccuracy": N_("Inaccuracy"), "mistake": N_("Mistake"),
               BLUNDER: N_("Blunder"), FORCED: N_("Only card")}
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "S": "♠", "H": "♥"}


def decimal(x: float) -> str:
    """Expected points with one decimal, in the page's language (``2.5``, ``2,5``)."""
    try:
        return format_decimal(round(x, 1), format="0.0", locale=current_language().lang.code)
    except (ValueError, LookupError):
        return f"{x:.1f}"


@dataclass(frozen=True)
class HintView:
    cards: frozenset[str]
    """The codes of the hinted cards, highlighted in the hand."""
    text: str
    """"Hint: queen of spades. You are out of clubs: drop …"."""


def reason_text(reason: str, values: dict[str, Any], viewer: int, players: int) -> str:
    names = seat_names(players, viewer)
    words: dict[str, Any] = {}
    if "card" in values:
        words["card"] = card_name(Card(values["card"]))
    if "seat" in values:
        words["player"] = names[int(values["seat"])]
    if "suit" in values:
        words["suit"] = SUIT_SYMBOLS[values["suit"]]
    return _(REASONS.get(reason, REASONS["cheapest"]), **words)


def hint_view(cards: tuple[str, ...], reason: str, values: dict[str, Any], view: PlayerView) -> HintView:
    named = join_list([card_name(Card(c)) for c in cards])
    why = reason_text(reason, values, view.seat, view.players)
    return HintView(frozenset(cards), _("Hint: %(cards)s.", cards=named) + " " + why)


# ---- the review -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class ReviewPlay:
    """One card of a reviewed trick."""

    face: CardFace
    seat: str
    """The name of the seat that played it, as the viewer sees the table."""
    you: bool
    """Played by the person reviewing."""
    winner: bool
    """The card that took the trick."""


@dataclass(frozen=True)
class ReviewStep:
    """The pass or one trick of the reviewed hand, with the rating of the person's decision."""

    title: str
    """"The pass" or "Trick 3"."""
    plays: tuple[ReviewPlay, ...]
    """The trick's cards in play order (none for the pass)."""
    passed: tuple[CardFace, ...]
    """The cards the person passed (none for a trick)."""
    leader: str
    """"North led" ("" for the pass)."""
    winner: str
    """"North took it", or "cancelled" (Cancellation Hearts); "" for the pass."""
    label: str
    """``best``, ``good``, …, or "" when the person had no decision in this step."""
    label_text: str
    verdict: str
    """"You played the queen of spades: 13.2 expected points."."""
    better: str
    """"Better: the two of spades (0.8 expected points)." or ""."""
    say: str
    """The whole step in one sentence, for the screen reader."""


@dataclass(frozen=True)
class ReviewView:
    hand: int
    """1-based."""
    steps: tuple[ReviewStep, ...]
    lost: str
    """The expected points the person's decisions lost in the hand, as the page writes it."""
    lost_text: str
    """The same in a sentence."""
    blunders: int


def _faces(codes: tuple[str, ...]) -> tuple[CardFace, ...]:
    return tuple(CardFace.of(Card(c)) for c in codes)


def _names(codes: tuple[str, ...]) -> str:
    return join_list([card_name(Card(c)) for c in codes])


def _verdict(r: Rating | None) -> tuple[str, str, str, str]:
    """(label, label text, verdict, better) of a rated decision."""
    if r is None:
        return "", "", "", ""
    cards = _names(r.chosen)
    if r.label == FORCED:
        return r.label, _(LABEL_NAMES[FORCED]), _("You played the %(card)s, your only legal card.", card=cards), ""
    if r.kind == "pass":
        verdict = _("You passed %(cards)s: %(points)s expected points.", cards=cards, points=decimal(r.chosen_points))
    else:
        verdict = _("You played the %(card)s: %(points)s expected points.", card=cards,
                    points=decimal(r.chosen_points))
    better = ""
    if r.best != r.chosen and r.kind == "pass":
        better = _("Better: pass %(cards)s (%(points)s expected points).", cards=_names(r.best),
                   points=decimal(r.best_points))
    elif r.best != r.chosen:
        better = _("Better: the %(card)s (%(points)s expected points).", card=_names(r.best),
                   points=decimal(r.best_points))
    return r.label, _(LABEL_NAMES[r.label]), verdict, better


def review_view(end: PlayerView, ratings: list[Rating], hand: int) -> ReviewView:
    """Hand ``hand`` (0-based) step by step, as its last view ``end`` (the hand over) shows it."""
    n, me = end.players, end.seat
    names = seat_names(n, me)
    plays = {r.trick: r for r in ratings if r.kind == "play"}
    passing = next((r for r in ratings if r.kind == "pass"), None)
    steps: list[ReviewStep] = []
    if passing is not None:
        label, label_text, verdict, better = _verdict(passing)
        title = _("The pass")
        steps.append(ReviewStep(title, (), _faces(passing.chosen), "", "", label, label_text, verdict, better,
                                " ".join(x for x in (title + ".", label_text + ".", verdict, better) if x)))
    for t in end.tricks:
        cards = []
        for i, c in enumerate(t.cards):
            s = t.seat_of(i, n)
            cards.append(ReviewPlay(CardFace.of(c), names[s], s == me, t.winner == s and _won_with(t, i, n)))
        r = plays.get(t.number + 1)  # the engine counts tricks from 0, the page from 1
        label, label_text, verdict, better = _verdict(r)
        title = _("Trick %(number)s", number=t.number + 1)
        leader = _("%(player)s led", player=names[t.leader])
        winner = _("%(player)s took it", player=names[t.winner]) if t.winner is not None else _("cancelled")
        played = join_list([_("%(player)s: %(card)s", player=p.seat, card=p.face.name) for p in cards])
        say = " ".join(x for x in (title + ":", played + ".", winner + ".", label_text + "." if label_text else "",
                                   verdict, better) if x)
        steps.append(ReviewStep(title, tuple(cards), (), leader, winner, label, label_text, verdict, better, say))
    lost = sum(r.lost for r in ratings)
    return ReviewView(hand + 1, tuple(steps), decimal(lost),
                      _("Expected points lost in this hand: %(points)s", points=decimal(lost)),
                      sum(1 for r in ratings if r.label == BLUNDER))


def _won_with(trick: Any, i: int, n: int) -> bool:
    """Is the ``i``-th card of ``trick`` the one that took it (the winner's card)?"""
    return trick.winner is not None and trick.seat_of(i, n) == trick.winner


# ---- the chart of the totals ----------------------------------------------------------------------

@dataclass(frozen=True)
class ChartLine:
    """One player's totals, hand by hand, as a line of the chart."""

    name: str
    short: str
    """The name's short form, written at the line's end."""
    points: str
    """The SVG polyline's points."""
    you: bool
    series: int
    """The seat: the line's colour (``series-N`` in the style sheet)."""
    last_x: float
    last_y: float
    """Where the line ends, for its label."""


@dataclass(frozen=True)
class ScoreChart:
    width: int
    height: int
    lines: tuple[ChartLine, ...]
    top: int
    """The highest total drawn (the chart's scale)."""
    summary: str
    """The totals hand by hand in words, for a screen reader (the chart is a picture)."""


CHART_W, CHART_H, PAD = 240, 90, 6


def score_chart(view: PlayerView | None) -> ScoreChart | None:
    """Each player's total after every hand as lines (none before two hands are scored)."""
    if view is None or len(view.round_points) < 2:
        return None
    n, me = view.players, view.seat
    names, short = seat_names(n, me), short_names(n, me)
    totals = [[0] * n]
    for points in view.round_points:
        totals.append([a + b for a, b in zip(totals[-1], points, strict=True)])
    low = min(0, min(min(t) for t in totals))
    top = max(1, max(max(t) for t in totals))
    hands = len(totals) - 1

    def xy(i: int, v: int) -> tuple[float, float]:
        x = PAD + (CHART_W - 2 * PAD) * i / hands
        y = CHART_H - PAD - (CHART_H - 2 * PAD) * (v - low) / (top - low)
        return round(x, 1), round(y, 1)

    lines = []
    for s in range(n):
        pts = [xy(i, t[s]) for i, t in enumerate(totals)]
        lines.append(ChartLine(names[s], short[s], " ".join(f"{x},{y}" for x, y in pts), s == me, s,
                               pts[-1][0], pts[-1][1]))
    summary = " ".join(_("%(player)s: %(totals)s.", player=names[s], totals=", ".join(str(t[s]) for t in totals[1:]))
                       for s in range(n))
    return ScoreChart(CHART_W, CHART_H, tuple(lines), top, summary)
