"""The Learn section (SPEC §6): seed 001's eight moments as positions of one real game.

A single story game is dealt explicitly and played by the engine: two warm-up hands, then
the third hand (which passes across, to North: lessons 1–6) and the fourth (no passing;
North tries to shoot the moon: lessons 7 and 8).  Every lesson is a moment of that game,
the position after a number of its moves, so each table is one the rules can reach.

Where the learner acts, their choice is applied to the position by the engine: an illegal
card raises :class:`IllegalMoveError`, whose ``rule`` picks the sentence that explains it.
A legal choice is right when it is the story's own move (and the story plays the trick
out from there); any other legal choice is poor, and the lesson says why in one sentence.
Nothing is stored: an attempt is a pure function of the lesson and the choice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

from engine import Card, CardSet, Game, Phase, PlayerView, Rules
from engine import events as ev
from engine.errors import IllegalMoveError
from engine.moves import Move, PassMove, PlayMove, parse_move

from .i18n import _, join_list
from .presenter import (
    ERROR_TEXTS,
    N_,
    PassStrip,
    Table,
    build_table,
    card_name,
    pass_strip,
    play_text,
    seat_names,
    status_text,
    trick_sentence,
)

LEARNER = 0
"""The story game's seat of the learner (South)."""
RULES = Rules()
Act = Literal["watch", "pass", "play"]
Kind = Literal["illegal", "poor", "right", "invalid"]

# ---- the story -------------------------------------------------------------------------------

# The third hand, lessons 1–6.  South holds the Q♠ with one small spade and the A♥ K♥ to
# pass to North; West will win the first trick with the A♣ and lead the 5♣; North, once
# it has passed three diamonds, is out of diamonds by the fourth trick.
HAND_3 = (
    "2C 9C 2D 3D 4D 5D 7D 4S QS 2H 8H KH AH",     # South
    "3C 5C KC AC KD AD 2S 5S 9S 3H 4H 10H JH",    # West
    "10C JC QC 6D 10D JD QD 3S 8S JS AS 7H 9H",   # North
    "4C 6C 7C 8C 8D 9D 6S 7S 10S KS 5H 6H QH",    # East
)
# The fourth hand (no passing), lessons 7–8.  North holds the top of three suits and goes
# for the moon; East's only spade is the Q♠; West keeps the A♣, which alone beats North's K♣.
HAND_4 = (
    "2C 2D 3D 4D 5D 7D 8D 10D JD 4S 9S 2H 5H",    # South
    "3C AC 2S 3S 5S 6S 7S 8S 10S JS 4H 7H 8H",    # West
    "QC KC QD KD AD KS AS 9H 10H JH QH KH AH",    # North
    "4C 5C 6C 7C 8C 9C 10C JC 6D 9D QS 3H 6H",    # East
)
FINISH = "..."
"""In the script: every seat passes its three lowest cards and plays its lowest legal card
until the hand is over (the warm-up hands, and the end of the third hand)."""

SCRIPT = (
    FINISH, "next", FINISH, "next",
    # the third hand: the others have chosen their passes when South chooses
    "@deal", "1 pass JH 10H 9S", "2 pass 10D JD QD", "3 pass KS QH 6H",
    "@pass", "0 pass QS AH KH",
    "@lead", "0 play 2C", "1 play AC", "2 play 10C", "3 play 4C",
    "1 play 5C", "2 play QC", "3 play 8C", "@follow", "0 play 9C",
    "@trick", "2 play 6D", "3 play 9D", "0 play 5D", "1 play AD",
    "1 play KD", "2 play 7H", "3 play 8D", "0 play 4D",
    "@hearts", FINISH, "next",
    # the fourth hand: North wins every trick, hearts included, then the Q♠
    "0 play 2C", "1 play 3C", "2 play QC", "3 play 4C",
    "2 play AD", "3 play 9D", "0 play 2D", "1 play 8H",
    "2 play KD", "3 play 6D", "0 play 3D", "1 play 7H",
    "2 play QD", "3 play 6H", "0 play 4D", "1 play 4H",
    "2 play AS", "3 play QS", "0 play 4S", "1 play 2S",
    "@queen", "2 play KS", "3 play 10C", "0 play 9S", "1 play 3S",
    "2 play AH", "3 play 3H", "0 play 2H", "1 play 5S",
    "2 play KC", "3 play 5C", "@moon", "0 play 5H", "1 play AC",
)


def _warm_up_deal(shift: int) -> list[CardSet]:
    """Card i of the sorted deck to seat (i + shift) mod 4: every seat gets every suit."""
    return [CardSet(c for c in range(52) if (c + shift) % 4 == seat) for seat in range(4)]


DEALS = (_warm_up_deal(0), _warm_up_deal(1), [CardSet(h) for h in HAND_3], [CardSet(h) for h in HAND_4])


def _finish(game: Game) -> None:
    while game.phase in (Phase.PASS, Phase.PLAY):
        if game.phase is Phase.PASS:
            seat = game.to_act[0]
            game.pass_cards(seat, list(game.hand(seat))[:3])
        else:
            turn = game.turn
            assert turn is not None  # the play phase always has a seat to play
            game.play(turn, game.legal_cards()[0])


@dataclass(frozen=True)
class Story:
    moves: tuple[Move, ...]
    marks: dict[str, int]
    """Each lesson's moment: how many of ``moves`` have been played."""


@cache
def story() -> Story:
    """The story game's moves, each checked by the engine as it is played."""
    game = Game(RULES, seed=0, deals=DEALS)
    marks: dict[str, int] = {}
    for step in SCRIPT:
        if step.startswith("@"):
            marks[step[1:]] = game.move_count
        elif step == FINISH:
            _finish(game)
        else:
            game.apply(parse_move(step))
    return Story(tuple(game.moves), marks)


@cache
def _position(at: int) -> Game:
    game = Game(RULES, seed=0, deals=DEALS)
    for move in story().moves[:at]:
        game.apply(move)
    return game


def position(slug: str) -> Game:
    """The lesson's moment, as a game of its own (a copy: the caller may play on)."""
    return _position(story().marks[slug]).copy()


# ---- the lessons ---------------------------------------------------------------------------

def _pass_advice(cards: CardSet) -> str:
    if Card("QS") not in cards:
        return N_("Keep the queen of spades with a single small spade to hide behind and she will most "
                  "likely land on you: pass her.")
    return N_("Passing the queen is right; pass your ace and king of hearts with her, or they will win "
              "tricks full of hearts.")


def _moon_advice(cards: CardSet) -> str:
    return N_("That card is safe for you, but North would take this trick too and keep every heart: throw in "
              "a heart while the ace of clubs can still beat North’s king.")


@dataclass(frozen=True)
class Lesson:
    slug: str
    title: str
    caption: str
    act: Act = "watch"
    praise: str = ""
    advice: Callable[[CardSet], str] | None = None
    """Why a legal choice other than the story's own move is a poor one."""


LESSONS: tuple[Lesson, ...] = (
    Lesson("deal", N_("The deal"), N_(
        "You sit South, at the bottom; West is on your left, North opposite and East on your right. Each of "
        "them holds 13 cards face down, and your 13 are face up. Every heart you take costs a point and the "
        "queen of spades 13: take as few as you can.")),
    Lesson("pass", N_("Passing three cards"), N_(
        "Before each hand everyone passes three cards. This is the third hand, so yours go across, to North. "
        "Choose the three cards that are most dangerous to keep: they lift up, and the button works with "
        "exactly three."),
        act="pass", advice=_pass_advice,
        praise=N_("Well passed: the queen of spades and your two highest hearts are North’s worry now.")),
    Lesson("lead", N_("The first trick"), N_(
        "Whoever holds the two of clubs leads it to the first trick. Then West, North and East each play a "
        "card in turn, clockwise, following suit if they can."),
        act="play", praise=N_("Right: the two of clubs opens the hand.")),
    Lesson("follow", N_("Following suit"), N_(
        "West took the first trick, so West leads: the five of clubs. North plays the queen, the highest so "
        "far, and East the eight. Your turn: you must play a club if you have one."),
        act="play", praise=N_("Right: you followed suit with your only club, and North’s queen still wins.")),
    Lesson("trick", N_("Taking a trick"), N_(
        "The queen was the highest club, so North takes the trick: all four cards go to North’s pile. None "
        "of them is a heart or the queen of spades, so the trick is worth nothing. North leads next.")),
    Lesson("hearts", N_("Breaking hearts"), N_(
        "West leads the king of diamonds. North has no diamonds left, so may play any card, and throws away "
        "the seven of hearts; East plays the eight of diamonds. A heart has been played: hearts are broken, "
        "and from now on anyone may lead them.")),
    Lesson("queen", N_("The queen of spades"), N_(
        "A new hand. North has won every trick so far, hearts included, and leads the ace of spades. East "
        "has no other spade and must give up the queen, so North takes her too. Whoever takes every heart "
        "and the queen shoots the moon: they score nothing and everyone else 26.")),
    Lesson("moon", N_("Stopping the moon"), N_(
        "North has won every trick and leads the king of clubs; East follows with the five. You have no "
        "clubs left, so any card is legal. The ace of clubs has not been played yet: stop the moon!"),
        act="play", advice=_moon_advice,
        praise=N_("Well played: West takes the trick with the ace of clubs, and your five of hearts with it. "
                  "With a heart in another pile, North can no longer shoot the moon.")),
)
BY_SLUG = {le.slug: le for le in LESSONS}

RULE_TEXTS = {
    "first_lead": N_("Whoever holds the two of clubs must lead it to the first trick."),
    "must_follow": N_("A club was led and you hold one, so you must follow suit."),
}
"""The rule an illegal card breaks, in a sentence for the lesson where it can happen; the
other rules are told as the table tells them (``presenter.ERROR_TEXTS``)."""

INVALID = ("not_a_card", "not_in_hand", "pass_cards", "bad_seat")
"""Rules broken only by a request the page never makes (a card not held, two cards)."""


# ---- an attempt and what the page shows ------------------------------------------------------

@dataclass(frozen=True)
class Verdict:
    kind: Kind
    text: str
    rule: str | None = None


@dataclass(frozen=True)
class Screen:
    """One lesson as the page shows it: its moment, or the learner's attempt at it."""

    lesson: Lesson
    number: int
    view: PlayerView
    """The learner's view of the position shown."""
    table: Table
    mode: Literal["watch", "pass", "try"]
    """What the hand does: nothing, choose three to pass, or play a card."""
    status: str
    verdict: Verdict | None
    done: bool
    arrive_from: int | None
    """When the trick has just been played out: the place in it of the learner's card,
    from which on the cards are shown arriving one after another."""
    strip: PassStrip | None
    say: str
    next: Lesson | None

    @property
    def slug(self) -> str:
        return self.lesson.slug


def _shown(game: Game) -> tuple[int, tuple[Card, ...], int | None] | None:
    if not game.tricks:
        return None
    t = game.tricks[-1]
    return t.leader, t.cards, t.winner


def _screen(lesson: Lesson, game: Game, *, verdict: Verdict | None = None, done: bool = False,
            arrive_from: int | None = None, say: str = "") -> Screen:
    number = LESSONS.index(lesson) + 1
    view = game.view(LEARNER)
    # a moment just after a trick (or its playing out) holds the trick on the table, as the game does
    held = lesson.act == "watch" and lesson.slug != "deal" or (done and lesson.act == "play")
    table = build_table(view, shown=_shown(game) if held else None)
    acting = lesson.act != "watch" and not done
    mode: Literal["watch", "pass", "try"] = ("pass" if lesson.act == "pass" else "try") if acting else "watch"
    strip = pass_strip(view, table.names) if lesson.slug == "pass" and done else None
    return Screen(lesson, number, view, table, mode, status_text(view, table.names) if acting else "", verdict,
                  done, arrive_from, strip, say, LESSONS[number] if number < len(LESSONS) else None)


def lesson_screen(slug: str) -> Screen:
    """The lesson's moment, before the learner has done anything."""
    lesson = BY_SLUG[slug]
    return _screen(lesson, position(slug))


def attempt(slug: str, choice: Sequence[str]) -> Screen:
    """The learner's choice at the lesson's moment (three cards for the pass, else one),
    judged by the engine and the lesson."""
    lesson = BY_SLUG[slug]
    if lesson.act == "watch" or not choice:
        return lesson_screen(slug)
    game = position(slug)
    at = story().marks[slug]
    right = story().moves[at]
    try:
        if lesson.act == "pass":
            events = game.pass_cards(LEARNER, list(choice))
        elif len(choice) != 1:
            raise IllegalMoveError("play exactly one card", "not_a_card")
        else:
            events = game.play(LEARNER, choice[0])
    except IllegalMoveError as exc:
        kind: Kind = "invalid" if exc.rule in INVALID else "illegal"
        text = RULE_TEXTS.get(exc.rule) or ERROR_TEXTS.get(exc.rule) or ERROR_TEXTS["not_in_hand"]
        return _judged(lesson, Verdict(kind, _(text), exc.rule))
    chosen = game.moves[-1]
    if chosen != right:
        assert isinstance(chosen, PassMove | PlayMove), chosen  # a lesson asks for a pass or a card
        cards = chosen.cards if isinstance(chosen, PassMove) else CardSet([chosen.card])
        assert lesson.advice is not None, f"lesson {slug} has one right move only"
        return _judged(lesson, Verdict("poor", _(lesson.advice(cards))))
    return _played_out(lesson, game, at + 1, events)


def _judged(lesson: Lesson, verdict: Verdict) -> Screen:
    """The lesson's moment again, with why the choice was not the one (nothing is played)."""
    return _screen(lesson, position(lesson.slug), verdict=verdict, say=verdict.text)


def _played_out(lesson: Lesson, game: Game, at: int, events: list[ev.Event]) -> Screen:
    """The right choice: the story goes on until the trick is taken (the pass of the
    person, the last to choose, is exchanged at once)."""
    moves = story().moves
    trick_over = len(_position(at - 1).tricks) + 1
    while lesson.act == "play" and len(game.tricks) < trick_over:
        events = events + game.apply(moves[at])
        at += 1
    praise = _(lesson.praise)
    names = seat_names(RULES.players, LEARNER)
    if lesson.act == "pass":
        view = game.view(LEARNER)
        got = join_list([card_name(c) for c in view.received or ()])
        say = f"{praise} {_('Received from %(player)s:', player=names[view.received_from or 0])} {got}."
        return _screen(lesson, game, verdict=Verdict("right", praise), done=True, say=say)
    trick = game.tricks[-1]
    mine = (LEARNER - trick.leader) % RULES.players
    plays = [play_text(trick.seat_of(i, RULES.players), c, names) for i, c in enumerate(trick.cards)]
    done = next(e for e in events if isinstance(e, ev.TrickWon))
    say = f"{praise} {trick_sentence(plays[mine:], done, names, LEARNER)}"
    return _screen(lesson, game, verdict=Verdict("right", praise), done=True, arrive_from=mine, say=say)


def all_screens() -> list[Screen]:
    return [lesson_screen(le.slug) for le in LESSONS]


def right_choice(slug: str) -> list[str]:
    """The story's own move at an acting lesson, as the page sends it (for tests and tools)."""
    move = story().moves[story().marks[slug]]
    if isinstance(move, PassMove):
        return move.cards.codes()
    assert isinstance(move, PlayMove)
    return [move.card.code()]


