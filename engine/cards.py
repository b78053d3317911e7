"""Cards and card sets.

A card is an ``int`` subclass whose value is its bit index in a card mask:
``suit * 13 + rank`` with suits in the order clubs, diamonds, spades, hearts
(the order a hand is sorted in, alternating colours) and rank 0 = two … 12 = ace.
So a set of cards is a plain integer bitmask, and legal-move generation is set
arithmetic.

Cancellation Hearts plays with two decks, so a hand can hold two identical
cards.  A mask therefore has 104 bits: bit ``c`` means "at least one copy of c",
bit ``c + 52`` means "a second copy".  The second bit is never set without the
first, which keeps the low 52 bits equal to the distinct cards held.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import IntEnum
from typing import Final


class Suit(IntEnum):
    """The four suits, in the order a hand is sorted."""

    CLUBS = 0
    DIAMONDS = 1
    SPADES = 2
    HEARTS = 3

    @property
    def letter(self) -> str:
        return "CDSH"[self]

    @property
    def symbol(self) -> str:
        return "♣♦♠♥"[self]

    @property
    def plural(self) -> str:
        """English name as used in rule messages: "clubs"."""
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Suit:
        t = text.strip()
        for s in cls:
            if t.upper() in (s.letter, s.name) or t == s.symbol or t.lower() == s.plural:
                return s
        raise ValueError(f"not a suit: {text!r}")


RANK_NAMES: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
RANK_WORDS: Final = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                     "jack", "queen", "king", "ace")


class Rank(IntEnum):
    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12

    @property
    def label(self) -> str:
        return RANK_NAMES[self]


_SUIT_CHARS: Final = {"C": 0, "D": 1, "S": 2, "H": 3, "♣": 0, "♦": 1, "♠": 2, "♥": 3,
                      "♧": 0, "♢": 1, "♤": 2, "♡": 3}
_RANK_CHARS: Final = {name: i for i, name in enumerate(RANK_NAMES)} | {"T": 8, "1": 12}


class Card(int):
    """One card; an immutable value that is also its bit index.

    >>> Card("QS"), Card("10H") == Card("TH") == Card("10♥")
    (Card('QS'), True)
    """

    __slots__ = ()

    def __new__(cls, value: int | str) -> Card:
        if isinstance(value, str):
            return parse_card(value)
        if isinstance(value, Card):
            return value
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 52:
            return CARDS[value]
        raise ValueError(f"not a card index: {value!r}")

    @property
    def suit(self) -> Suit:
        return Suit(self // 13)

    @property
    def rank(self) -> Rank:
        return Rank(self % 13)

    @property
    def bit(self) -> int:
        return 1 << self

    def code(self) -> str:
        """``"QS"``, ``"10H"``: the form used in saved games and the API."""
        return RANK_NAMES[self % 13] + "CDSH"[self // 13]

    def symbol(self) -> str:
        """``"Q♠"``."""
        return RANK_NAMES[self % 13] + "♣♦♠♥"[self // 13]

    def name(self) -> str:
        """English full name: ``"queen of spades"``."""
        return f"{RANK_WORDS[self % 13]} of {Suit(self // 13).plural}"

    def __str__(self) -> str:
        return self.code()

    def __repr__(self) -> str:
        return f"Card({self.code()!r})"

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (int(self),))


def _make(i: int) -> Card:
    c = int.__new__(Card, i)
    return c


CARDS: Final[tuple[Card, ...]] = tuple(_make(i) for i in range(52))
_BY_TEXT: dict[str, Card] = {}


def parse_card(text: str) -> Card:
    """Parse ``"QS"``, ``"10H"``, ``"TH"``, ``"Q♠"`` (case-insensitive, spaces ignored)."""
    hit = _BY_TEXT.get(text)
    if hit is not None:
        return hit
    t = text.strip().upper().replace(" ", "")
    if len(t) < 2 or t[-1] not in _SUIT_CHARS or t[:-1] not in _RANK_CHARS:
        raise ValueError(f"not a card: {text!r} (expected e.g. 'QS', '10H', 'TH' or 'Q♠')")
    card = CARDS[_SUIT_CHARS[t[-1]] * 13 + _RANK_CHARS[t[:-1]]]
    if len(_BY_TEXT) < 4096:
        _BY_TEXT[text] = card
    return card


# ---- masks -------------------------------------------------------------------------------

LOW: Final = (1 << 52) - 1
"""The 52 first-copy bits."""
SUIT_MASK: Final[tuple[int, int, int, int]] = tuple(0x1FFF << (13 * s) for s in range(4))  # type: ignore[assignment]
CLUBS: Final = SUIT_MASK[0]
DIAMONDS: Final = SUIT_MASK[1]
SPADES: Final = SUIT_MASK[2]
HEARTS: Final = SUIT_MASK[3]
TWO_OF_CLUBS: Final = CARDS[0]
QUEEN_OF_SPADES: Final = CARDS[2 * 13 + Rank.QUEEN]
JACK_OF_DIAMONDS: Final = CARDS[1 * 13 + Rank.JACK]
PENALTY: Final = HEARTS | (1 << QUEEN_OF_SPADES)
"""Cards that score penalty points: every heart and the Q♠."""


def distinct(mask: int) -> int:
    """The distinct cards of a (possibly two-deck) mask."""
    return mask & LOW


def add_card(mask: int, card: int) -> int:
    """Add one copy of ``card`` to a mask (a second copy goes to the high bit)."""
    bit = 1 << card
    return mask | (bit << 52) if mask & bit else mask | bit


def add_to(mask: int, card: int, double: bool) -> int:
    """``mask`` with one more copy of ``card`` (a second copy only with two decks)."""
    return add_card(mask, card) if double else mask | 1 << card


def remove_card(mask: int, card: int) -> int:
    """Remove one copy of ``card``; the caller guarantees at least one is there."""
    hi = 1 << (card + 52)
    return mask ^ hi if mask & hi else mask ^ (1 << card)


def multiset_sub(a: int, b: int) -> int:
    """Multiset difference of two masks (counts never drop below zero)."""
    ah, bh = a >> 52, b >> 52
    al, bl = a & LOW, b & LOW
    return ((ah & ~bh) | (al & ~bl)) | ((ah & ~bl) << 52)


def multiset_add(a: int, b: int) -> int:
    """Multiset sum of two masks; the caller guarantees no count exceeds two."""
    al, bl = a & LOW, b & LOW
    # one copy wherever either has one; a second wherever either has two, or both one
    return al | bl | ((a >> 52) | (b >> 52) | (al & bl)) << 52


def _suit_table() -> tuple[tuple[tuple[Card, ...], ...], ...]:
    table = []
    for s in range(4):
        rows = []
        for bits in range(1 << 13):
            rows.append(tuple(CARDS[s * 13 + r] for r in range(13) if bits >> r & 1))
        table.append(tuple(rows))
    return tuple(table)


_SUIT_CARDS: Final = _suit_table()


def cards_of(mask: int) -> tuple[Card, ...]:
    """The distinct cards of a mask as a sorted tuple (fast: four table look-ups)."""
    t = _SUIT_CARDS
    out = t[0][mask & 0x1FFF]
    if mask >> 13:
        out += t[1][(mask >> 13) & 0x1FFF] + t[2][(mask >> 26) & 0x1FFF] + t[3][(mask >> 39) & 0x1FFF]
    return out


def iter_cards(mask: int) -> Iterator[Card]:
    """Every card of a mask, a duplicate twice, in sorted order."""
    high = mask >> 52
    for c in cards_of(mask & LOW):
        yield c
        if high >> c & 1:
            yield c


class CardSet:
    """An immutable set of cards (a multiset, at most two copies, for two decks).

    Set-like: ``in``, ``len``, iteration in sorted order, ``| & - ^``, comparisons.
    ``CardSet("QS AH 10H")`` parses; ``str()`` prints that back.
    """

    __slots__ = ("mask",)
    mask: int

    def __init__(self, cards: int | str | Iterable[Card | str | int] = 0) -> None:
        if isinstance(cards, bool):
            raise ValueError(f"not a card mask: {cards!r}")
        if isinstance(cards, int):
            if cards < 0 or cards >> 104:
                raise ValueError("card mask out of range")
            m = cards
        else:
            if isinstance(cards, str):
                cards = cards.replace(",", " ").split()
            m = 0
            for c in cards:
                card = Card(c)
                if m >> (card + 52) & 1:
                    raise ValueError(f"more than two copies of {card}")
                m = add_card(m, card)
        object.__setattr__(self, "mask", m)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CardSet is immutable")

    def __reduce__(self) -> tuple[object, tuple[int]]:
        # immutable: copies, deep copies and pickles rebuild it from its mask
        return (CardSet.from_mask, (self.mask,))

    @classmethod
    def from_mask(cls, mask: int) -> CardSet:
        s = object.__new__(cls)
        object.__setattr__(s, "mask", mask)
        return s

    def __contains__(self, card: object) -> bool:
        if isinstance(card, str):
            card = parse_card(card)
        return isinstance(card, int) and 0 <= card < 52 and bool(self.mask >> card & 1)

    def __iter__(self) -> Iterator[Card]:
        return iter_cards(self.mask)

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return self.mask != 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(("CardSet", self.mask))

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet.from_mask(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet.from_mask(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet.from_mask(multiset_sub(self.mask, other.mask))

    def __xor__(self, other: CardSet) -> CardSet:
        return (self - other) | (other - self)

    def __le__(self, other: CardSet) -> bool:
        return multiset_sub(self.mask, other.mask) == 0

    def __lt__(self, other: CardSet) -> bool:
        return self <= other and self != other

    def __ge__(self, other: CardSet) -> bool:
        return other <= self

    def __gt__(self, other: CardSet) -> bool:
        return other < self

    def issubset(self, other: CardSet) -> bool:
        return self <= other

    def count(self, card: Card | str) -> int:
        c = Card(card)
        return (self.mask >> c & 1) + (self.mask >> (c + 52) & 1)

    def add(self, card: Card | str) -> CardSet:
        return CardSet.from_mask(add_card(self.mask, Card(card)))

    def remove(self, card: Card | str) -> CardSet:
        c = Card(card)
        if not self.mask >> c & 1:
            raise KeyError(c)
        return CardSet.from_mask(remove_card(self.mask, c))

    def suit(self, suit: Suit | int) -> CardSet:
        m = SUIT_MASK[suit]
        return CardSet.from_mask(self.mask & (m | m << 52))

    def distinct(self) -> CardSet:
        return CardSet.from_mask(self.mask & LOW)

    def codes(self) -> list[str]:
        return [c.code() for c in self]

    def __str__(self) -> str:
        return " ".join(self.codes())

    def __repr__(self) -> str:
        return f"CardSet({str(self)!r})"


FULL_DECK: Final = CardSet.from_mask(LOW)
