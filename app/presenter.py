"""From a PlayerView to what the page shows: seat names, positions, card faces, text.

Nothing here decides a rule: legal cards, scores and turns arrive computed in the view.
The playback frames are built from the views the service recorded after each move.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from functools import lru_cache

from engine import Card, Phase, PlayerView, Suit
from engine import events as ev
from engine.errors import IllegalMoveError
from engine.moves import PlayMove
from engine.rules import PassDirection, Rules

from . import i18n, options
from .errors import TableError, TableNotFoundError
from .i18n import _, join_list, ngettext, number, pgettext
from .i18n import current as current_language
from .services import GameNotFoundError, StaleGameError, StaleStateError, Step


def N_(message: str) -> str:
    """Marks a message for extraction; it is translated where it is shown."""
    return message


SEAT_NAMES: dict[int, tuple[str, ...]] = {
    3: (N_("You"), N_("West"), N_("East")),
    # Translators: the seats round the table; "You" is the person playing, at the bottom
    4: (N_("You"), N_("West"), N_("North"), N_("East")),
    5: (N_("You"), N_("West"), N_("North-west"), N_("North-east"), N_("East")),
    6: (N_("You"), N_("West"), N_("North-west"), N_("North"), N_("North-east"), N_("East")),
}
# Translators: short forms of the seats for the narrow columns of a 5- or 6-player score
# sheet and trick list (compass letters, as on a map)
SHORT_NAMES = {"West": N_("W"), "North-west": N_("NW"), "North": N_("N"), "North-east": N_("NE"), "East": N_("E")}
# Translators: card ranks alone, as in "Clubs: two, nine, king." (the R key reads the hand)
RANK_WORDS = (N_("two"), N_("three"), N_("four"), N_("five"), N_("six"), N_("seven"), N_("eight"), N_("nine"),
              N_("ten"), N_("jack"), N_("queen"), N_("king"), N_("ace"))
# every card's whole name, so each language can say it its own way (word order, case, gender)
CARD_NAMES = (
    # Translators: card names in lower case as in the middle of a sentence, as players say them
    # (the page capitalises the first letter where a name stands alone)
    N_("two of clubs"), N_("three of clubs"), N_("four of clubs"), N_("five of clubs"), N_("six of clubs"),
    N_("seven of clubs"), N_("eight of clubs"), N_("nine of clubs"), N_("ten of clubs"), N_("jack of clubs"),
    N_("queen of clubs"), N_("king of clubs"), N_("ace of clubs"),
    N_("two of diamonds"), N_("three of diamonds"), N_("four of diamonds"), N_("five of diamonds"),
    N_("six of diamonds"), N_("seven of diamonds"), N_("eight of diamonds"), N_("nine of diamonds"),
    N_("ten of diamonds"), N_("jack of diamonds"), N_("queen of diamonds"), N_("king of diamonds"),
    N_("ace of diamonds"),
    N_("two of spades"), N_("three of spades"), N_("four of spades"), N_("five of spades"), N_("six of spades"),
    N_("seven of spades"), N_("eight of spades"), N_("nine of spades"), N_("ten of spades"), N_("jack of spades"),
    N_("queen of spades"), N_("king of spades"), N_("ace of spades"),
    N_("two of hearts"), N_("three of hearts"), N_("four of hearts"), N_("five of hearts"), N_("six of hearts"),
    N_("seven of hearts"), N_("eight of hearts"), N_("nine of hearts"), N_("ten of hearts"), N_("jack of hearts"),
    N_("queen of hearts"), N_("king of hearts"), N_("ace of hearts"),
)
PASS_TEXT = {
    PassDirection.LEFT: N_("Pass three cards to the left"), PassDirection.RIGHT: N_("Pass three cards to the right"),
    PassDirection.ACROSS: N_("Pass three cards across"),
    PassDirection.SECOND_LEFT: N_("Pass three cards two seats to the left"),
    PassDirection.SECOND_RIGHT: N_("Pass three cards two seats to the right"),
}
# Translators: the records' line of the games played at tables for friends
DIFFICULTY_NAMES = {"easy": N_("Easy"), "medium": N_("Medium"), "hard": N_("Hard"), "friends": N_("With friends")}
# Translators: the person's place at the end of a game (the winner is told "You won the game!")
PLACES = {2: N_("You finished 2nd"), 3: N_("You finished 3rd"), 4: N_("You finished 4th"),
          5: N_("You finished 5th"), 6: N_("You finished 6th")}
# Translators: the person's place at the end of a game, shared with another player
TIED_PLACES = {2: N_("You tied for 2nd place"), 3: N_("You tied for 3rd place"), 4: N_("You tied for 4th place"),
               5: N_("You tied for 5th place")}
PAUSE_PLAY = "play"
PAUSE_TRICK = "trick"


_LABELS: ContextVar[tuple[tuple[str, ...], bool] | None] = ContextVar("seat_labels", default=None)


@contextmanager
def naming(labels: tuple[str, ...], spectator: bool = False) -> Iterator[None]:
    """Inside: the seats are called ``labels`` (a table for friends: the people's names,
    "You" for the viewer); ``spectator``, the table is drawn for somebody who holds no seat
    (no "you", no hand, no turn of theirs)."""
    token = _LABELS.set((labels, spectator))
    try:
        yield
    finally:
        _LABELS.reset(token)


def spectating() -> bool:
    given = _LABELS.get()
    return given is not None and given[1]


def _me(view: PlayerView) -> int:
    """The viewer's seat, or -1 for a spectator (who is none of the seats)."""
    return -1 if spectating() else view.seat


def seat_names(players: int, viewer: int = 0) -> tuple[str, ...]:
    """Every seat's name as the person at ``viewer`` calls it, indexed by seat: "You" for
    the viewer, then the others in play order (West on the left, …)."""
    given = _LABELS.get()
    if given is not None and len(given[0]) == players:
        return given[0]
    return tuple(_(SEAT_NAMES[players][(s - viewer) % players]) for s in range(players))


def short_names(players: int, viewer: int = 0) -> tuple[str, ...]:
    """The seats' names for narrow columns: compass letters at a table of 5 or 6, where
    the full names would not fit side by side; the full names at 3 or 4."""
    if players < 5:
        return seat_names(players, viewer)
    given = _LABELS.get()
    if given is not None and len(given[0]) == players:
        return tuple(n if len(n) <= 3 else n[:2] + "." for n in given[0])
    whole = SEAT_NAMES[players]
    return tuple(_(SHORT_NAMES.get(n, n)) for n in (whole[(s - viewer) % players] for s in range(players)))


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def card_name(card: Card) -> str:
    """The card's name in the current language, lower case as in a sentence."""
    return _(CARD_NAMES[card % 52])


def difficulty_name(level: str) -> str:
    return _(DIFFICULTY_NAMES[level]) if level in DIFFICULTY_NAMES else level


def _angle(seat: int, players: int, viewer: int) -> float:
    """Where a seat sits around the table: the viewer at the bottom, the others from the
    left across the top to the right, in playing (clockwise) order."""
    place = (seat - viewer) % players
    if place == 0:
        return -90.0
    return 180.0 - (place - 1) * 180.0 / (players - 2)


@dataclass(frozen=True)
class CardFace:
    code: str
    rank: str
    suit: str
    name: str
    """Full name with a capital, e.g. "Queen of spades" (the button's accessible name)."""
    red: bool
    symbol: str

    @classmethod
    def of(cls, card: Card) -> CardFace:
        return _face(card, i18n.translations(current_language().lang.code))


@lru_cache(maxsize=64 * 32)
def _face(card: Card, catalogue: object) -> CardFace:
    """A card's face in a language (``catalogue``: its translations, which name the card),
    made once: a table shows the same cards again and again."""
    name = card_name(card)
    return CardFace(card.code(), card.code()[:-1], card.code()[-1], name[0].upper() + name[1:],
                    card.suit in (Suit.HEARTS, Suit.DIAMONDS), card.symbol())


@dataclass(frozen=True)
class HandCard:
    """A card of the viewer's hand: whether it may be played now, and whether it was passed
    to them (marked until the first trick is over)."""

    face: CardFace
    legal: bool
    received: bool


@dataclass(frozen=True)
class SeatView:
    """One seat at the table as the viewer sees it (the viewer's own seat included)."""

    seat: int
    name: str
    cards: int
    total: int
    taken: int
    """Points taken in the hand being played (0 once the hand is scored)."""
    x: float
    y: float
    turn: bool
    dealer: bool
    you: bool

    @property
    def side(self) -> str:
        return "left" if self.x < 15 else "right" if self.x > 85 else "top"


@dataclass(frozen=True)
class TrickCard:
    seat: int
    face: CardFace
    x: float
    y: float
    winner: bool
    order: int
    say: str
    """"West: queen of spades", read by the 1–6 keys."""


@dataclass(frozen=True)
class TrickView:
    """The cards in the middle of the table: the trick being played, or a finished one held
    for a moment with its winner."""

    cards: tuple[TrickCard, ...]
    done: bool
    winner: int | None = None
    caption: str = ""
    """Under a finished trick: "You take the trick", "West takes the trick", …"""


def _seat_xy(seat: int, players: int, viewer: int, radius_x: float, radius_y: float) -> tuple[float, float]:
    a = math.radians(_angle(seat, players, viewer))
    return round(50 + radius_x * math.cos(a), 1), round(50 - radius_y * math.sin(a), 1)


def hand_cards(view: PlayerView) -> list[HandCard]:
    legal = view.legal
    received = view.received if (view.received and view.first_trick and view.phase is Phase.PLAY) else None
    marked = list(received) if received else []
    out = []
    for c in view.hand:
        is_received = c in marked
        if is_received:
            marked.remove(c)  # with two decks only as many copies as were received
        out.append(HandCard(CardFace.of(c), c in legal, is_received))
    return out


def status_text(view: PlayerView, names: tuple[str, ...]) -> str:
    me = _me(view)
    if view.phase is Phase.PASS:
        if me < 0:
            return _("The players are choosing their passes")
        if view.passes_chosen[me]:
            return _("Waiting for the others to pass")
        return _(PASS_TEXT[view.pass_direction])
    if view.phase is Phase.PLAY:
        if view.turn == me:
            if not view.trick and view.first_trick and view.first_lead is not None:
                return _("Your turn: lead the %(card)s", card=card_name(view.first_lead))
            return _("Your turn")
        return _("%(player)s is thinking…", player=names[view.turn or 0])
    if view.phase is Phase.MOON_CHOICE:
        if view.pending_shooter == me:
            return _("You shot the moon! Choose how to score it")
        return _("%(player)s shot the moon", player=names[view.pending_shooter or 0])
    if view.phase is Phase.ROUND_OVER:
        return _("Hand over")
    winner = view.winner
    return _("You won the game!") if winner == me else _("Game over: %(player)s wins", player=names[winner or 0])


def points_text(p: int) -> str:
    return ngettext("%(num)s point", "%(num)s points", abs(p)) if p >= 0 else \
        ngettext("minus %(num)s point", "minus %(num)s points", abs(p))


def suit_title(suit: str) -> str:
    # a context, because the suit's name may differ from the game's ("Hearts")
    return {"C": pgettext("suit", "Clubs"), "D": pgettext("suit", "Diamonds"), "S": pgettext("suit", "Spades"),
            "H": pgettext("suit", "Hearts")}[suit]


def hand_summary(view: PlayerView) -> str:
    """The whole hand read suit by suit (the R key): "Clubs: two, nine. Diamonds: none. …"."""
    parts = []
    for suit in "CDSH":
        ranks = [_(RANK_WORDS[c % 13]) for c in view.hand if c.code()[-1] == suit]
        cards = join_list(ranks) if ranks else _("none")
        parts.append(_("%(suit)s: %(cards)s.", suit=suit_title(suit), cards=cards))
    return " ".join(parts)


Shown = tuple[int, tuple[Card, ...], int | None]
"""A finished trick held on the table: leader, cards, winner (None: it cancelled out)."""


def trick_view(view: PlayerView, shown: Shown | None, names: tuple[str, ...]) -> TrickView:
    """The trick being played, or the finished one ``shown``, as the viewer sees it."""
    n = view.players
    if shown is None:
        if view.trick_leader is None or not view.trick:
            return TrickView((), False)
        leader, cards, winner = view.trick_leader, view.trick, None
    else:
        leader, cards, winner = shown
    out = []
    for i, c in enumerate(cards):
        seat = (leader + i) % n
        x, y = _seat_xy(seat, n, view.seat, 15, 19)
        out.append(TrickCard(seat, CardFace.of(c), x, y, seat == winner, i, play_text(seat, c, names)))
    if shown is None:
        return TrickView(tuple(out), False)
    if winner is None:
        caption = _("The trick cancels out")
    elif winner == view.seat:
        caption = _("You take the trick")
    else:
        caption = _("%(player)s takes the trick", player=names[winner])
    return TrickView(tuple(out), True, winner, caption)


def last_trick_text(view: PlayerView, names: tuple[str, ...]) -> str:
    """The last finished trick of this hand, for the L key."""
    if not view.tricks:
        return _("No trick has been played in this hand yet.")
    t = view.tricks[-1]
    plays = [play_text(t.seat_of(i, view.players), c, names) for i, c in enumerate(t.cards)]
    if t.winner is None:
        return _("Last trick: %(plays)s; it cancelled out.", plays=join_list(plays))
    if t.winner == view.seat:
        return _("Last trick: %(plays)s; you took it, %(points)s.", plays=join_list(plays),
                 points=points_text(t.points))
    return _("Last trick: %(plays)s; %(player)s took it, %(points)s.", plays=join_list(plays),
             player=names[t.winner], points=points_text(t.points))


def play_text(seat: int, card: Card, names: tuple[str, ...]) -> str:
    # Translators: who played which card, e.g. "West: queen of spades"; also a card's label on the table
    return _("%(player)s: %(card)s", player=names[seat], card=card_name(card))


def describe_event(e: ev.Event, names: tuple[str, ...], viewer: int) -> str:
    """A short sentence for one event, told to the person at ``viewer``; plays and tricks
    are told by :func:`frames`."""
    if isinstance(e, ev.HeartsBroken):
        return _("Hearts are broken.")
    if isinstance(e, ev.PassesExchanged):
        return _("The cards have been passed.")
    if isinstance(e, ev.MoonShot):
        return _("You shoot the moon!") if e.seat == viewer else _("%(player)s shoots the moon!", player=names[e.seat])
    if isinstance(e, ev.RoundScored):
        parts = join_list([_("%(player)s %(points)s", player=names[s], points=number(p))
                           for s, p in enumerate(e.points)])
        return _("Hand %(number)s scores: %(scores)s.", number=e.round_index + 1, scores=parts)
    if isinstance(e, ev.ExtraRound):
        return _("The lowest totals are tied: one more hand.")
    if isinstance(e, ev.GameOver):
        return _("You win the game!") if e.winner == viewer else _("%(player)s wins the game.", player=names[e.winner])
    if isinstance(e, ev.RoundStarted):
        return _("Hand %(number)s is dealt.", number=e.round_index + 1)
    return ""


def trick_sentence(plays: list[str], done: ev.TrickWon | ev.TrickCancelled | None, names: tuple[str, ...],
                   viewer: int) -> str:
    """The plays of a trick so far, and who took it, as one sentence for ``viewer``."""
    cards = join_list(plays)
    if isinstance(done, ev.TrickWon):
        points = points_text(done.points)
        if done.winner == viewer:
            return _("%(plays)s; you take the trick, %(points)s.", plays=cards, points=points)
        return _("%(plays)s; %(player)s takes the trick, %(points)s.", plays=cards,
                 player=names[done.winner], points=points)
    if isinstance(done, ev.TrickCancelled):
        return _("%(plays)s; the trick cancels out and its cards stay on the table.", plays=cards)
    return _("%(plays)s.", plays=cards)


@dataclass(frozen=True)
class Frame:
    """One moment of the playback after an action: the table as the person saw it then."""

    view: PlayerView
    shown: Shown | None
    say: str
    pause: str
    shuffling: bool = False
    """A new deal: the table is shown for a moment with "Shuffling the deck" and no hand."""


def _seen(step: Step) -> PlayerView:
    """The person's view after ``step``, which a page's playback needs."""
    if step.view is None:
        raise ValueError("the action was run without its steps' views (services.Context.views), "
                         "which a page's playback shows")
    return step.view


def frames(steps: list[Step], names: tuple[str, ...], final: PlayerView, dealt: bool = False) -> list[Frame]:
    """The plays to show one at a time; a finished trick is held with its winner.
    ``dealt``: the action dealt a new game, shown first as a shuffle.

    What a screen reader hears is grouped: the plays of a trick are told together when
    the trick ends (or when the playback stops mid-trick), so a trick played by the
    computer players is one sentence, not three quick messages that cut each other off."""
    me = _me(final)
    out: list[Frame] = []
    shuffle = _("Shuffling the deck.")
    if dealt:
        out.append(Frame(final, None, shuffle, PAUSE_TRICK, shuffling=True))
    plays: list[str] = []
    extra: list[str] = []
    for step in steps:
        if any(isinstance(e, ev.RoundStarted) for e in step.events):
            out.append(Frame(_seen(step), None, shuffle, PAUSE_TRICK, shuffling=True))
        if not isinstance(step.move, PlayMove):
            continue
        for e in step.events:
            if isinstance(e, ev.CardPlayed):
                plays.append(play_text(e.seat, e.card, names))
            elif isinstance(e, ev.HeartsBroken | ev.MoonShot):
                extra.append(describe_event(e, names, me))
        done = next((e for e in step.events if isinstance(e, ev.TrickWon | ev.TrickCancelled)), None)
        if done is not None:
            winner = done.winner if isinstance(done, ev.TrickWon) else None
            say = " ".join([trick_sentence(plays, done, names, me)] + extra)
            plays, extra = [], []
            out.append(Frame(_seen(step), (done.leader, done.cards, winner), say, PAUSE_TRICK))
        else:
            out.append(Frame(_seen(step), None, "", PAUSE_PLAY))
    if out and out[-1].pause == PAUSE_PLAY:
        # the final table shows this moment anyway
        last = out.pop()
        out.append(Frame(last.view, last.shown, last.say, ""))
    if plays or extra:
        # the playback stopped mid-trick (the person's turn): tell what is on the table
        last = out.pop()
        say = " ".join(t for t in [last.say, trick_sentence(plays, None, names, me) if plays else ""] + extra if t)
        out.append(Frame(last.view, last.shown, say, last.pause, last.shuffling))
    return out


def final_announcement(steps: list[Step], view: PlayerView, names: tuple[str, ...]) -> str:
    tail = [describe_event(e, names, _me(view)) for s in steps for e in s.events
            if isinstance(e, ev.RoundScored | ev.ExtraRound | ev.GameOver | ev.PassesExchanged | ev.RoundStarted)]
    return " ".join([t for t in tail if t] + [status_text(view, names) + "."])


def place_of(totals: tuple[int, ...], seat: int, winner: int | None = None) -> int:
    """1 for the lowest total; players with the same total share a place (1, 2, 2, 4),
    except that a tie the last hand broke puts the winner alone in first place."""
    mine = totals[seat]
    behind = winner is not None and seat != winner and totals[winner] == mine
    return 1 + sum(1 for t in totals if t < mine) + behind


def place_text(totals: tuple[int, ...], winner: int | None = None, seat: int = 0) -> str:
    """Where the person at ``seat`` finished, in words; the winner's own sentence is the result's title."""
    place = place_of(totals, seat, winner)
    if place == 1:
        return ""
    tied = sum(1 for s in range(len(totals)) if place_of(totals, s, winner) == place) > 1
    return _(TIED_PLACES[place]) if tied and place in TIED_PLACES else _(PLACES[place])


@dataclass(frozen=True)
class ResultColumn:
    seat: int
    name: str
    short: str
    points: int
    total: int
    you: bool
    place: int
    best: bool


@dataclass(frozen=True)
class RoundResult:
    """The box shown when a hand or the game is over."""

    number: int
    ranked: bool
    title: str
    columns: tuple[ResultColumn, ...]
    """A column per player: three short rows fit between the seats at any table size."""
    moon_call: str
    """"You shot the moon!" or "West shot the moon!" ("" when nobody did)."""
    place_text: str
    tie_note: str


def round_result(view: PlayerView, names: tuple[str, ...]) -> RoundResult | None:
    """The box shown when a hand or the game is over: every player's points for the hand
    and total; at the end of the game ranked, the winner first, with each one's place."""
    if view.phase not in (Phase.ROUND_OVER, Phase.GAME_OVER) or not view.round_points:
        return None
    n, me = view.players, _me(view)
    short = short_names(n, view.seat)
    pts = view.round_points[-1]
    shooter = view.shooters[-1]
    over = view.phase is Phase.GAME_OVER
    winner = view.winner if over else None
    seats = sorted(range(n), key=lambda s: (view.totals[s], s != winner, s)) if over else list(range(n))
    low = min(view.totals)
    if not over:
        title = _("Hand %(number)s is over", number=len(view.round_points))
    elif winner == me:
        title = _("You won the game!")
    else:
        title = _("%(player)s wins the game", player=names[winner] if winner is not None else "")
    moon_call = "" if shooter is None else _("You shot the moon!") if shooter == me else \
        _("%(player)s shot the moon!", player=names[shooter])
    return RoundResult(
        number=len(view.round_points), ranked=over, title=title,
        columns=tuple(ResultColumn(s, names[s], short[s], pts[s], view.totals[s], s == me,
                                   place_of(view.totals, s, winner), view.totals[s] == low) for s in seats),
        moon_call=moon_call,
        place_text=place_text(view.totals, winner, me) if over and me >= 0 else "",
        # the option of seed 001: a tie for the lowest total went to the last hand's lower score
        tie_note=_("Tied for the lowest total: the lower score in the last hand wins.")
        if over and view.totals.count(low) > 1 else "",
    )


@dataclass(frozen=True)
class PassStrip:
    """What the person passed and received this hand, shown while it is played."""

    no_pass: bool
    """A hand without passing in a game that passes (e.g. every fourth hand)."""
    passed: tuple[CardFace, ...] = ()
    passed_to: str = ""
    received: tuple[CardFace, ...] = ()
    received_from: str = ""


def pass_strip(view: PlayerView, names: tuple[str, ...]) -> PassStrip | None:
    if view.phase not in (Phase.PASS, Phase.PLAY, Phase.MOON_CHOICE):
        return None
    if view.pass_direction is PassDirection.NONE:
        return PassStrip(no_pass=True) if view.rules.passing else None
    if view.passed is None:
        return None
    return PassStrip(
        no_pass=False,
        passed=tuple(CardFace.of(c) for c in view.passed),
        passed_to=names[view.pass_target] if view.pass_target is not None else "",
        received=tuple(CardFace.of(c) for c in view.received) if view.received is not None else (),
        received_from=names[view.received_from] if view.received_from is not None else "")


def in_progress(view: PlayerView) -> bool:
    """Whether starting another game would throw away something the person has done in
    this one: a game dealt but not yet touched, or one that is over, is not in progress."""
    if view.phase is Phase.GAME_OVER:
        return False
    if view.round_index > 0 or view.tricks or view.phase in (Phase.MOON_CHOICE, Phase.ROUND_OVER):
        return True
    if view.phase is Phase.PASS:
        return view.passes_chosen[view.seat]
    played = view.hand_sizes[view.seat] < max(view.hand_sizes)
    return view.passed is not None or played


@dataclass(frozen=True)
class Table:
    """One moment of the game as the person at ``me.seat`` sees it: everything the table
    shows, computed, so the templates only lay it out."""

    players: int
    phase: str
    names: tuple[str, ...]
    """Every seat's name as the viewer calls it, by seat number."""
    others: tuple[SeatView, ...]
    """The other seats, in play order from the viewer's left."""
    me: SeatView
    hand: tuple[HandCard, ...]
    hand_mode: str
    """"pass" (choose three), "play" (the legal cards can be played) or "wait"."""
    trick: TrickView
    status: str
    shuffling: bool
    frame: bool
    """A moment of the playback (nothing on it can be clicked)."""
    my_turn: bool
    round_number: int
    hearts_broken: bool
    pass_hint: bool
    """The passing direction is shown in the middle of the table."""
    pass_arrow: str
    pass_text: str
    result: RoundResult | None
    moon_value: int | None
    """The points of the moon the viewer shot, when they must choose how it scores."""
    strip: PassStrip | None
    in_progress: bool
    last_say: str
    score_say: str
    hand_say: str
    received_from: str

    @property
    def hand_columns(self) -> int:
        return max(len(self.hand) - 1, 0)


def build_table(view: PlayerView, *, shown: Shown | None = None, frame: bool = False,
                shuffling: bool = False) -> Table:
    """The table for the person whose view this is (``view.seat``), at one moment."""
    n, me = view.players, view.seat
    names = seat_names(n, me)
    turn_seat = view.turn if view.phase is Phase.PLAY else view.pending_shooter
    # once a hand is scored its points are in the totals: "+26" beside them would count them twice
    scored = view.phase in (Phase.ROUND_OVER, Phase.GAME_OVER)

    def seat_view(s: int) -> SeatView:
        x, y = _seat_xy(s, n, me, 39, 39)
        return SeatView(s, names[s], view.hand_sizes[s], view.totals[s], 0 if scored else view.taken_points[s],
                        x, y, turn_seat == s and shown is None, view.dealer == s, s == me)

    my_turn = view.my_turn and not frame and not spectating()
    mode = "pass" if my_turn and view.phase is Phase.PASS else "play" if my_turn and view.phase is Phase.PLAY \
        else "wait"
    hand = () if shuffling else tuple(hand_cards(view))
    return Table(
        players=n, phase=view.phase.value, names=names,
        others=tuple(seat_view((me + i) % n) for i in range(1, n)), me=seat_view(me),
        hand=hand, hand_mode=mode,
        trick=TrickView((), False) if shuffling else trick_view(view, shown, names),
        status=_("Shuffling the deck…") if shuffling else status_text(view, names) if shown is None else "",
        shuffling=shuffling, frame=frame, my_turn=my_turn, round_number=view.round_index + 1,
        hearts_broken=view.hearts_broken,
        pass_hint=not frame and view.phase is Phase.PASS and not view.passes_chosen[me] and not spectating(),
        pass_arrow=view.pass_direction.value.replace(" ", "-"),
        pass_text=_(PASS_TEXT[view.pass_direction]) if view.pass_direction in PASS_TEXT else "",
        result=None if frame else round_result(view, names),
        moon_value=view.moon_value if view.phase is Phase.MOON_CHOICE and view.pending_shooter == _me(view) else None,
        strip=None if shuffling else pass_strip(view, names),
        in_progress=in_progress(view),
        last_say=last_trick_text(view, names),
        score_say=_("Scores: %(scores)s.", scores=join_list(
            [_("%(player)s %(points)s", player=names[s], points=number(view.totals[s])) for s in range(n)])),
        hand_say="" if shuffling or frame else hand_summary(view),
        received_from=names[view.received_from] if view.received_from is not None else "",
    )


@dataclass(frozen=True)
class SheetCell:
    points: int
    shot: bool
    """This player shot the moon in this hand."""


@dataclass(frozen=True)
class ScoreSheet:
    """Every hand's points and the totals, a column per seat in seat order."""

    names: tuple[str, ...]
    short: tuple[str, ...]
    rows: tuple[tuple[SheetCell, ...], ...]
    totals: tuple[int, ...]


def empty_sheet(players: int) -> ScoreSheet:
    """The sheet of a table with no game yet, its seats named."""
    return ScoreSheet(seat_names(players), short_names(players), (), (0,) * players)


def score_sheet(view: PlayerView | None) -> ScoreSheet:
    """The sheet for the viewer; with no game yet, an empty one for the standard table."""
    if view is None:
        return ScoreSheet(seat_names(4), seat_names(4), (), (0, 0, 0, 0))
    n, me = view.players, view.seat
    rows = tuple(tuple(SheetCell(p, shooter == s) for s, p in enumerate(points))
                 for points, shooter in zip(view.round_points, view.shooters, strict=True))
    return ScoreSheet(seat_names(n, me), short_names(n, me), rows, tuple(view.totals))


@dataclass(frozen=True)
class TrickPlay:
    """A card in the list of finished tricks: who played it, and whether it took the trick."""

    face: CardFace
    seat: str
    winner: bool


@dataclass(frozen=True)
class TrickLine:
    """One finished trick of this hand in the list beside the table."""

    number: int
    leader: str
    compact: bool
    """At a table of 5 or 6 the seats are compass letters, so a trick fits on one line."""
    leader_short: str
    winner_short: str | None
    cards: tuple[TrickPlay, ...]
    winner: str | None
    points: int
    carried: int


def trick_history(view: PlayerView) -> list[TrickLine]:
    n, me = view.players, view.seat
    names, short = seat_names(n, me), short_names(n, me)
    return [TrickLine(
        number=t.number + 1, leader=names[t.leader], compact=n >= 5, leader_short=short[t.leader],
        winner_short=short[t.winner] if t.winner is not None else None,
        cards=tuple(TrickPlay(CardFace.of(c), names[t.seat_of(i, n)], t.seat_of(i, n) == t.winner)
                    for i, c in enumerate(t.cards)),
        winner=names[t.winner] if t.winner is not None else None, points=t.points, carried=len(t.carried))
        for t in view.tricks]


@dataclass(frozen=True)
class PlaybackFrame:
    """A moment of the playback as the page shows it: the table at that moment, and which of
    its parts differ from the moment shown before it (for the first moment, from the final
    table, which the page copies to play the moments on)."""

    table: Table
    say: str
    pause: str
    backs: tuple[SeatView, ...] = ()
    """The seats whose backs of cards change."""
    plates: tuple[SeatView, ...] = ()
    """The seats whose plate changes (name, cards, score, whose turn)."""
    center: bool = True
    """The trick in the middle (cards, caption, deck, passing hint) is drawn again…"""
    added: tuple[TrickCard, ...] = ()
    """… or only these cards are added to the trick (``center`` is then False)."""
    status: bool = True
    info: bool = True
    """The hand's number and whether hearts are broken."""
    hand: bool = True
    """The person's cards (always shown waiting while the playback runs)."""
    strip: bool = True
    felt: bool = True
    """What the reading keys say (L, S) and the phase."""


def _same_card(a: TrickCard, b: TrickCard) -> bool:
    # the same card at the same place; whether it won shows from its center, not from the card
    return (a.seat, a.face, a.x, a.y, a.order, a.say) == (b.seat, b.face, b.x, b.y, b.order, b.say)


def _plate(s: SeatView) -> tuple[object, ...]:
    return s.name, s.cards, s.total, s.taken, s.turn


def _hand_shown(t: Table) -> tuple[tuple[str, bool], ...]:
    # while the playback runs the hand waits: which cards are legal does not show
    return tuple((h.face.code, h.received) for h in t.hand)


def changes(before: Table, table: Table, say: str, pause: str) -> PlaybackFrame:
    """The moment ``table`` as the parts that differ from ``before``, the table shown until then."""
    seats = {s.seat: s for s in (*before.others, before.me)}
    old, new = before.trick, table.trick
    same_center = (old, before.shuffling, before.pass_hint) == (new, table.shuffling, table.pass_hint)
    # a card played to the trick under way, or the card that ends it: only the card is sent
    # (a finished trick's winner is marked by the center, so the cards before stay as they are)
    grows = (not same_center and not old.done and not before.shuffling and not table.shuffling
             and before.pass_hint == table.pass_hint and len(new.cards) > len(old.cards)
             and all(_same_card(a, b) for a, b in zip(old.cards, new.cards, strict=False)))
    return PlaybackFrame(
        table, say, pause,
        backs=tuple(s for s in table.others if min(s.cards, 6) != min(seats[s.seat].cards, 6)),
        plates=tuple(s for s in (*table.others, table.me) if _plate(seats[s.seat]) != _plate(s)),
        center=not same_center and not grows, added=new.cards[len(old.cards):] if grows else (),
        status=(before.status, before.my_turn) != (table.status, table.my_turn),
        info=(before.round_number, before.hearts_broken) != (table.round_number, table.hearts_broken),
        hand=_hand_shown(before) != _hand_shown(table),
        strip=before.strip != table.strip,
        felt=(before.phase, before.last_say, before.score_say) != (table.phase, table.last_say, table.score_say),
    )


@dataclass(frozen=True)
class Page:
    """The game screen for the person at ``viewer``: the table now, the moments that led to
    it since the person's action, the side panels and what is said at the end."""

    viewer: int
    table: Table
    frames: tuple[PlaybackFrame, ...]
    base: str
    """The table the first moment changes: "previous" (the one the person acted on, still on
    their screen) or "final" (a new deal: the page copies the final table)."""
    sheet: ScoreSheet
    tricks: list[TrickLine]
    say: str
    celebrate: bool
    before: Table | None = None
    """The table the person acted on (``before`` of :func:`build_page`), as it was drawn then."""


def build_page(view: PlayerView, steps: list[Step] | None = None, dealt: bool = False,
               before: PlayerView | None = None) -> Page:
    """Everything the game screen shows after ``steps`` (an action's moves; none: the table
    as it is), for the person whose view this is; ``before``: what they saw when they acted."""
    steps = steps or []
    names = seat_names(view.players, view.seat)
    final = build_table(view)
    # the page plays the moments on the table the person acted on, with the final hand (the
    # cards they hold do not change while the computer players move)
    prior = None if before is None else build_table(before)
    shown = final if prior is None else replace(prior, hand=final.hand)
    moments = []
    for f in frames(steps, names, view, dealt=dealt):
        table = build_table(f.view, shown=f.shown, frame=True, shuffling=f.shuffling)
        moments.append(changes(shown, table, f.say, f.pause))
        shown = table
    return Page(viewer=view.seat, table=final, frames=tuple(moments), base="final" if before is None else "previous",
                sheet=score_sheet(view),
                tricks=trick_history(view), say=final_announcement(steps, view, names),
                celebrate=celebrating(steps), before=prior)


@dataclass(frozen=True)
class FinalParts:
    """What a move changes on the table a page shows (drawn from version ``before`` of the
    same hand): the parts of the final table to put in place of the page's, the rest of
    the page's table staying as it is (a table for friends sends a move as these)."""

    table: Table
    backs: tuple[SeatView, ...]
    """The seats whose backs of cards change."""
    plates: tuple[SeatView, ...]
    """The seats whose plate changes (name, cards, score, whose turn)."""
    center: bool
    """The trick in the middle, or the passing hint and its arrow, changes."""
    status: bool
    """The status line or whether it is the person's turn changes."""
    info: bool
    """The hand's number or whether hearts are broken changes."""
    felt: bool
    """What the reading keys say (L, S) or the phase changes."""
    hand: bool
    """The person's hand form (its cards, their mode, the strip, the pass bar)."""


PATCHED_PHASES = (Phase.PASS.value, Phase.PLAY.value)
"""A move within a hand's passing and play is sent as parts; a hand's end, a moon's choice
or a new deal change the table whole (its result box, its controls)."""


def _hand_drawn(t: Table) -> tuple[object, ...]:
    # what the hand form shows: the cards and how each can be used, its words and its strip
    cards = tuple((h.face.code, h.received, h.legal if t.hand_mode == "play" else None) for h in t.hand)
    return t.hand_mode, cards, t.hand_say, t.strip, t.pass_text if t.hand_mode == "pass" else "", t.received_from


def final_parts(before: Table, final: Table) -> FinalParts | None:
    """The parts of ``final`` that differ from ``before`` (both drawn as final tables, not
    moments of a playback); None when the table changes whole (see :data:`PATCHED_PHASES`)."""
    if before.phase not in PATCHED_PHASES or final.phase not in PATCHED_PHASES \
            or before.round_number != final.round_number or before.players != final.players \
            or before.shuffling or final.shuffling or before.result is not None or final.result is not None \
            or before.moon_value is not None or final.moon_value is not None:
        return None
    seats = {s.seat: s for s in (*before.others, before.me)}
    if set(seats) != {s.seat for s in (*final.others, final.me)} or before.me.seat != final.me.seat:
        return None
    return FinalParts(
        final,
        backs=tuple(s for s in final.others if min(s.cards, 6) != min(seats[s.seat].cards, 6)),
        plates=tuple(s for s in (*final.others, final.me) if _plate(seats[s.seat]) != _plate(s)),
        center=(before.trick, before.pass_hint, before.pass_arrow, before.pass_text)
        != (final.trick, final.pass_hint, final.pass_arrow, final.pass_text),
        status=(before.status, before.my_turn) != (final.status, final.my_turn),
        info=(before.round_number, before.hearts_broken) != (final.round_number, final.hearts_broken),
        felt=(before.phase, before.last_say, before.score_say) != (final.phase, final.last_say, final.score_say),
        hand=_hand_drawn(before) != _hand_drawn(final),
    )


def celebrating(steps: list[Step]) -> bool:
    """Whether the action just shown ended a hand in which somebody shot the moon."""
    return any(isinstance(e, ev.MoonShot) for s in steps for e in s.events)


def rules_lines(rules: Rules) -> list[str]:
    """What this game's rules are, in the current language (as ``Rules.describe`` in English)."""
    return options.rules_lines(rules)


ERROR_TEXTS = {
    "must_follow": N_("You must follow suit."),
    "hearts_not_broken": N_("Hearts are not broken yet: lead another suit."),
    "first_trick_points": N_("No hearts or queen of spades on the first trick."),
    "first_lead": N_("The first trick is led with the two of clubs."),
    "not_in_hand": N_("That card is not in your hand."),
    "pass_cards": N_("Choose exactly three cards to pass."),
    "not_your_turn": N_("It is not your turn."),
    "wrong_phase": N_("That is not possible at this moment of the game."),
    "practice_only": N_("Hints and undo are only for practice games."),
    "nothing_to_undo": N_("There is nothing of yours to take back."),
    "not_reviewable": N_("That hand is not finished yet."),
}


def stale_text(exc: StaleStateError) -> str:
    # the page's controls are locked while a request runs, so a stale action comes from
    # another tab (or another device) of the same player
    if isinstance(exc, StaleGameError):
        return _("A new game was dealt in another tab; here it is.")
    return _("This game continued in another tab; here it is now.")


def error_text(exc: Exception) -> str:
    """The message shown (and said) for a refused action.  In English the engine's own
    sentence, which is the most precise; in other languages its translation by rule."""
    if isinstance(exc, StaleStateError):
        # the engine's sentence ("it is at move 20 …") is for the API; a person is told what happened
        return stale_text(exc)
    if isinstance(exc, TableError):
        return str(exc)  # said in the person's language when it was raised
    if isinstance(exc, TableNotFoundError):
        return _("This table is closed, or the link is not right.")
    text = str(exc.args[0]) if isinstance(exc, LookupError) and exc.args else str(exc)
    english = capital(text)
    if current_language().lang.code == "en":
        return english
    if isinstance(exc, IllegalMoveError) and exc.rule in ERROR_TEXTS:
        if exc.rule == "first_lead" and "♣" not in text:  # the 3♣ leads when the 2♣ is out
            return _("The first trick is led with the lowest club.")
        return _(ERROR_TEXTS[exc.rule])
    if isinstance(exc, GameNotFoundError):
        return _("You have no game yet: deal the cards to start one.")
    return _("That was refused: %(reason)s", reason=english)
