"""A careful player's habits as plain functions on masks.

Medium plays these directly; Hard uses the same play function as the rollout policy of
its simulations (for every seat), so what Hard imagines its opponents do is what a
careful player does.  The play function reads only what the seat to play may know: its
own hand, the cards played, the trick and who took which points — never another hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import HEARTS, JACK_OF_DIAMONDS, LOW, QUEEN_OF_SPADES, SPADES, SUIT_MASK, Suit, add_card, iter_cards
from ..rules import PassDirection, Rules
from .sim import SimRound

QS = int(QUEEN_OF_SPADES)
QS_BIT = 1 << QS
JD = int(JACK_OF_DIAMONDS)
ABOVE_QS = (1 << (QS + 1)) | (1 << (QS + 2))  # K♠ and A♠
BELOW_QS = SPADES & (QS_BIT - 1)
SPADE = int(Suit.SPADES)
HEART = int(Suit.HEARTS)
"""Suit numbers as plain ints: the rollouts compare them millions of times."""

MOON_THREAT_SHARE = (2, 5)
"""A lone taker of every penalty card so far is a moon threat once it holds 2/5 of the
moon: earlier, stopping it costs points for nothing; later, it may be too late."""
WARY_SHARE = (1, 5)
"""Hard's imagined opponents (``choose_card``'s ``wary``) keep their hearts off a trick of
Hard's once Hard, the lone taker so far, would hold a fifth of the moon with it."""

# Discarding (void in the led suit): how much we want to be rid of each card, on top of
# its rank.  The order matters, not the size: the Q♠ first, then high hearts, then a
# spade above a queen still out (it would catch her), then high cards of short suits.
DISCARD_QUEEN = 60
DISCARD_HEART = 30
DISCARD_SPADE_OVER_QUEEN = 40
DISCARD_OMNIBUS_JACK = -60
"""Under Omnibus the J♦ is worth −10 to whoever takes it: keep it to win it later."""

# Leading: the lower the score, the better the lead.  A lead is judged by how many cards
# still out could beat it (each worth LEAD_PER_LOWER: a card others can go under is a
# trick we may take), then by our length in the suit.
LEAD_PER_LOWER = 10
LEAD_ALL_VOID = 200
"""Everyone else is void in the suit: they would all discard their points on us."""
LEAD_SPADES_WITH_QUEEN_DANGER = 60
"""Leading spades while holding the Q♠ (or the K♠/A♠ with her still out) invites her onto us."""
LEAD_HEART = 5
LEAD_SPOT_HEART = 15
"""Leading a heart gives points away; with spot hearts each one is worth far more."""

# Passing: how much we want to be rid of each card (higher passes first).
PASS_QUEEN_SHORT = 60
"""With at most PASS_QUEEN_MAX_SPADES spades the Q♠ cannot be guarded: pass her."""
PASS_QUEEN_KEEP = -50
"""With long spades (or passing across, to a player who would learn where she is) keep her."""
PASS_QUEEN_MAX_SPADES = 3
PASS_HIGH_SPADE = 40
"""The K♠/A♠ catch the queen unless we hold her with spades to guard them."""
PASS_HIGH_SPADE_GUARDED = 10
PASS_HIGH_SPADE_MAX_SPADES = 4
PASS_LOW_SPADE_OFFSET = 10
"""Low spades protect us against the queen: rank − 10 keeps them below every other card."""
PASS_HEART_PER_RANK = 3
PASS_HEART_OFFSET = -6
PASS_SPOT_HEART = 8
"""With spot hearts a high heart is worth its face value: even more to be rid of."""
PASS_PER_RANK = 2
PASS_SHORT_SUIT = 6
"""Per card fewer than four in a short side suit: passing it works towards a void."""
PASS_LONG_SUIT = -4
PASS_OMNIBUS_JACK = -40


# A mask's lowest card is ``(m & -m).bit_length() - 1``, its highest ``m.bit_length() - 1``,
# its size ``m.bit_count()``: written out rather than called, because these functions run
# for every simulated card of Hard's searches, where the calls were a measurable share.


def moon_threat(st: SimRound, me: int) -> int:
    """The seat (not ``me``) that has taken every penalty card so far, if it has enough of
    them for a moon to be a real danger; else -1."""
    pen_taken = st.pen_taken
    total = sum(pen_taken)
    if not total:
        return -1
    holder = 0
    while not pen_taken[holder]:
        holder += 1
    if pen_taken[holder] != total or holder == me:
        return -1  # several takers, or ourselves
    num, den = MOON_THREAT_SHARE
    if st.pen_points[holder] * den >= st.moon_value * num:
        return holder
    return -1


def only_taker(st: SimRound, me: int) -> bool:
    """Has nobody but ``me`` taken a penalty card so far (``me`` may have taken none)?"""
    pen_taken = st.pen_taken
    return pen_taken[me] == sum(pen_taken)


def stopper(hand: int, out: int) -> int:
    """The bit of our highest heart if no heart still out is above it (it surely wins a
    heart trick: the one card that may stop a moon), else 0."""
    hearts = hand & HEARTS
    if not hearts:
        return 0
    top = hearts.bit_length() - 1
    return 0 if out & HEARTS & ~((2 << top) - 1) else 1 << top


def expected_winners(hand: int, out: int, sure: bool = False) -> int:
    """Cards of ``hand`` (distinct-card mask) likely to win a trick if the suit is led from
    the top, ``out`` being the cards the others may hold.  With ``sure``, only the cards
    above every card of their suit still out.  Otherwise a card wins when the others hold no
    more cards above it than we do, and once the top cards have drawn out even the longest of
    the others' holdings (taken as half of what they hold), the rest of a long suit wins too.
    The one measure of a hand's strength for the moon: the careful player's ``shooting``
    counts the sure winners, the shooter and the rollouts' shooters the likely ones."""
    winners = 0
    for suit in range(4):
        mine = hand & SUIT_MASK[suit]
        if not mine:
            continue
        theirs = out & SUIT_MASK[suit]
        top = 0
        above_mine = 0
        while mine:  # our cards of the suit, highest first
            c = mine.bit_length() - 1
            mine ^= 1 << c
            if (theirs >> (c + 1)).bit_count() <= (0 if sure else above_mine):
                top += 1
            above_mine += 1
        if sure:
            winners += top
        else:
            winners += above_mine if top * 2 >= theirs.bit_count() else top
    return winners


def shooting(st: SimRound, me: int, hand: int, out: int) -> bool:
    """Should ``me`` go for the moon: every penalty card taken so far is ours, a good share
    of them, and at least two thirds of our cards are sure winners."""
    if not st.pen_taken[me] or st.pen_points[me] * 2 < st.moon_value or not only_taker(st, me):
        return False
    return expected_winners(hand, out, sure=True) * 3 >= hand.bit_count() * 2


def choose_card(st: SimRound, hunt: bool = False, guard: bool = False, dump: bool = False,
                wary: int = -1) -> int:
    """The card a careful player would play for the seat to play in ``st``; with ``hunt``
    it also leads low spades to flush the Q♠ out while holding the A♠ or K♠ (when its low
    spades outnumber its high ones), as a queen hunter does; with ``dump``, last to play on
    a spade trick without points that another seat wins with the K♠ or A♠, it gives that
    seat the Q♠ (the careful player keeps her there, playing its highest other spade; a
    stronger player does not miss the gift); with ``guard`` it does not
    discard its moon stopper (:func:`stopper`) on a trick won so far by a seat that may
    still shoot the moon (nobody else has taken a penalty card): Hard's own seat in its
    rollouts.  With ``wary`` (a seat, Hard's, not the one to play), void in the led suit on a
    trick that seat wins, it discards no penalty card when that seat, the lone taker so far,
    would hold ``WARY_SHARE`` of the moon with the trick: an opponent who has seen a moon
    shot against it does not feed one."""
    legal = st.legal()
    if not legal & (legal - 1):
        return (legal & -legal).bit_length() - 1
    t = st.t
    me = st.turn
    hand = st.hands[me] & LOW
    out = st.inplay & ~st.played & ~hand
    trick = st.trick
    pts = t.pts
    qs_out = bool(out & QS_BIT)
    if st.pen_taken[me] and shooting(st, me, hand, out):
        return _shoot(st, legal, hand, out)
    threat = moon_threat(st, me)
    if not trick:
        return _lead(st, legal, hand, out, qs_out, threat, hunt)
    led = st.led
    best = st.best
    has_pen = bool(st.tmask & t.pen_mask)
    if st.pot and not has_pen:
        has_pen = sum(pts[c] for c in st.pot) > 0
    last = len(trick) == t.n - 1
    if legal & SUIT_MASK[led] == legal:  # following suit
        below = legal & ((1 << best) - 1)
        above = legal & ~below
        if threat >= 0 and st.best_seat == threat and (has_pen or led == HEART) and above:
            # stop the moon: take this trick (and its heart) from the shooter
            return (above & -above).bit_length() - 1 if last else above.bit_length() - 1
        if not has_pen:
            if last:
                if dump and led == SPADE and legal & QS_BIT and best > QS and st.best_seat != threat:
                    return QS
                pick = legal & ~QS_BIT if led == SPADE else legal
                if pick:
                    if t.spot and led == HEART:
                        return (pick & -pick).bit_length() - 1
                    return pick.bit_length() - 1
            if below:
                return below.bit_length() - 1
            # we win it whatever we play: get rid of the highest (not the queen)
            pick = above & ~QS_BIT
            if pick and not (led == SPADE and qs_out and not last and pick & ABOVE_QS and pick & BELOW_QS):
                return pick.bit_length() - 1
            if pick:
                return (pick & BELOW_QS).bit_length() - 1 if pick & BELOW_QS else pick.bit_length() - 1
            return (above & -above).bit_length() - 1
        if below:
            return below.bit_length() - 1
        pick = above & ~QS_BIT or above
        if last:
            return (pick & -pick).bit_length() - 1 if t.spot and led == HEART else pick.bit_length() - 1
        return (pick & -pick).bit_length() - 1
    # void in the led suit: discard
    best_seat = st.best_seat
    if threat >= 0 and best_seat == threat or wary >= 0 and best_seat == wary and _near_moon(st, wary):
        # no penalty card on the trick of a moon threat, nor (wary) of a seat nearing one
        safe = legal & ~t.pen_mask
        if safe:
            return _discard_plain(st, safe, hand, qs_out)
    if guard and not t.double and only_taker(st, st.best_seat):
        legal &= ~stopper(hand, out)  # two cards or more: one is left
    if legal & QS_BIT:
        return QS
    hearts = legal & HEARTS
    if hearts:
        return hearts.bit_length() - 1
    return _discard_plain(st, legal, hand, qs_out)


def _near_moon(st: SimRound, seat: int) -> bool:
    """Would ``seat``, the lone taker of penalty cards so far, hold ``WARY_SHARE`` of the moon
    with the trick in play?"""
    if not only_taker(st, seat):
        return False
    num, den = WARY_SHARE
    pts = st.t.pts
    return (st.pen_points[seat] + sum(pts[c] for c in st.trick)) * den >= st.moon_value * num


def _discard_plain(st: SimRound, legal: int, hand: int, qs_out: bool) -> int:
    """The most dangerous card to keep among ``legal``: high spades while the Q♠ is out,
    then high cards of short suits; never the J♦ under Omnibus (it is worth -10)."""
    best_c = -1
    best_v = -1000
    omnibus = st.t.omnibus
    for c in iter_cards(legal):
        suit = c // 13
        rank = c % 13
        v = rank * 2 - (hand & SUIT_MASK[suit]).bit_count()
        if suit == SPADE and qs_out and c > QS:
            v += DISCARD_SPADE_OVER_QUEEN
        if suit == HEART:
            v += DISCARD_HEART
        if c == QS:
            v += DISCARD_QUEEN
        if omnibus and c == JD:
            v += DISCARD_OMNIBUS_JACK
        if v > best_v:
            best_v = v
            best_c = c
    return best_c


def _lead(st: SimRound, legal: int, hand: int, out: int, qs_out: bool, threat: int, hunt: bool = False) -> int:
    if qs_out:
        low_spades = legal & BELOW_QS
        if low_spades and out & SPADES & ~QS_BIT and (
                not hand & ABOVE_QS or (hunt and low_spades.bit_count() > (hand & ABOVE_QS).bit_count())):
            return low_spades.bit_length() - 1  # flush the queen out with spades she cannot beat
    best_c = -1
    best_v = 1 << 30
    for suit in range(4):
        mine = legal & SUIT_MASK[suit]
        if not mine:
            continue
        theirs = out & SUIT_MASK[suit]
        c = (mine & -mine).bit_length() - 1
        if threat >= 0 and suit == HEART:
            c = mine.bit_length() - 1  # a high heart may win a trick the shooter needed
        lower = (theirs & ((1 << c) - 1)).bit_count()
        v = lower * LEAD_PER_LOWER + (hand & SUIT_MASK[suit]).bit_count()
        if not theirs:
            v += LEAD_ALL_VOID
        if suit == SPADE and (hand & QS_BIT or (qs_out and hand & ABOVE_QS)):
            v += LEAD_SPADES_WITH_QUEEN_DANGER
        if suit == HEART:
            v += LEAD_SPOT_HEART if st.t.spot else LEAD_HEART
        if v < best_v:
            best_v = v
            best_c = c
    return best_c


def shoot_card(st: SimRound) -> int:
    """The card for the seat to play when it goes for the moon: win every trick it can."""
    legal = st.legal()
    if not legal & (legal - 1):
        return (legal & -legal).bit_length() - 1
    hand = st.hands[st.turn] & LOW
    return _shoot(st, legal, hand, st.inplay & ~st.played & ~hand)


def _shoot(st: SimRound, legal: int, hand: int, out: int) -> int:
    trick = st.trick
    if not trick:
        # lead a sure winner if we have one, else our highest card
        for suit in (0, 1, 2, 3):
            mine = legal & SUIT_MASK[suit]
            if mine:
                theirs = out & SUIT_MASK[suit]
                if not theirs or mine.bit_length() - 1 > theirs.bit_length() - 1:
                    return mine.bit_length() - 1
        return legal.bit_length() - 1
    led = st.led
    if legal & SUIT_MASK[led] == legal:
        above = legal & ~((1 << st.best) - 1)
        if above:
            return (above & -above).bit_length() - 1 if len(trick) == st.t.n - 1 else above.bit_length() - 1
        return (legal & -legal).bit_length() - 1
    safe = legal & ~st.t.pen_mask
    return (safe & -safe).bit_length() - 1 if safe else (legal & -legal).bit_length() - 1


# ---- passing ---------------------------------------------------------------------------------


def card_scores(hand: int, rules: Rules, direction: PassDirection,
                keep_queen_across: bool = True) -> list[tuple[int, int]]:
    """(score, card) for each distinct card of ``hand``: how much we want to be rid of it
    (with ``keep_queen_across`` false, the Q♠ is judged by the spade length alone)."""
    across = direction is PassDirection.ACROSS and keep_queen_across
    low = hand & LOW
    high = hand >> 52
    spades = (low & SPADES).bit_count() + (high & SPADES).bit_count()
    has_qs = bool(low & QS_BIT)
    out: list[tuple[int, int]] = []
    for c in iter_cards(low):
        suit = c // 13
        rank = c % 13
        if suit == HEART:
            v = rank * PASS_HEART_PER_RANK + (PASS_SPOT_HEART if rules.spot_hearts else 0) + PASS_HEART_OFFSET
        elif c == QS:
            v = PASS_QUEEN_SHORT if spades <= PASS_QUEEN_MAX_SPADES and not across else PASS_QUEEN_KEEP
        elif suit == SPADE:
            if c > QS:
                v = PASS_HIGH_SPADE if spades <= PASS_HIGH_SPADE_MAX_SPADES or not has_qs else PASS_HIGH_SPADE_GUARDED
            else:
                v = rank - PASS_LOW_SPADE_OFFSET
        else:
            n_suit = (low & SUIT_MASK[suit]).bit_count() + (high & SUIT_MASK[suit]).bit_count()
            if n_suit <= 3:
                v = rank * PASS_PER_RANK + (4 - n_suit) * PASS_SHORT_SUIT
            else:
                v = rank * PASS_PER_RANK + PASS_LONG_SUIT
            if rules.omnibus and c == JD:
                v = PASS_OMNIBUS_JACK
        out.append((v, c))
    return out


def pass_scores(hand: int, rules: Rules, direction: PassDirection) -> list[tuple[int, int]]:
    """Three cards to pass from ``hand`` (a possibly two-deck mask), chosen greedily by
    how dangerous each card is to keep (scores change as the hand shrinks: voiding a
    suit gets more attractive); returns [(card, score)] in the order chosen."""
    chosen: list[tuple[int, int]] = []
    h = hand
    for _ in range(3):
        v, c = max(card_scores(h, rules, direction), key=lambda vc: (vc[0], -vc[1]))
        chosen.append((c, v))
        h = _remove(h, c)
    return chosen


def pass_candidates(hand: int, rules: Rules, direction: PassDirection, top: int = 5) -> list[int]:
    """Pass masks worth simulating: the greedy choice first, then every three of the
    ``top`` cards we most want to be rid of."""
    first = choose_pass_mask(hand, rules, direction)
    ranked = sorted(card_scores(hand, rules, direction), key=lambda vc: (-vc[0], vc[1]))
    pool = [c for _, c in ranked[:top]]
    if hand >> 52:  # two decks: a second copy of a top card may be passed too
        pool += [c for c in pool if hand >> (c + 52) & 1]
    return _threes(hand, pool, first)


def hard_pass_candidates(hand: int, rules: Rules, direction: PassDirection, top: int = 5) -> list[int]:
    """Pass masks for a search to judge: the careful player's pass first, then every three of
    the ``top`` cards we most want to be rid of, the Q♠ among them whenever we hold her
    (across too: whether she goes is the search's to judge by how the round plays out)."""
    first = choose_pass_mask(hand, rules, direction)
    ranked = sorted(card_scores(hand, rules, direction, keep_queen_across=False), key=lambda vc: (-vc[0], vc[1]))
    pool = [c for _, c in ranked[:top]]
    if hand & QS_BIT and QS not in pool:
        pool.append(QS)
    if hand >> 52:
        pool += [c for c in pool if hand >> (c + 52) & 1]
    return _threes(hand, pool, first)


def _threes(hand: int, pool: list[int], first: int) -> list[int]:
    """``first``, then every three cards of ``pool`` that ``hand`` holds, each pass once."""
    from itertools import combinations

    out = [first]
    for combo in combinations(pool, 3):
        m = 0
        for c in combo:
            m = add_card(m, c)
        if m.bit_count() == 3 and m not in out and multiset_contains(hand, m):
            out.append(m)
    return out


def multiset_contains(hand: int, part: int) -> bool:
    low = hand & LOW
    high = hand >> 52
    pl = part & LOW
    ph = part >> 52
    return not (pl & ~low) and not (ph & ~high)


def _remove(mask: int, card: int) -> int:
    hi = 1 << (card + 52)
    return mask ^ hi if mask & hi else mask ^ (1 << card)


def choose_pass_mask(hand: int, rules: Rules, direction: PassDirection) -> int:
    m = 0
    for c, _ in pass_scores(hand, rules, direction):
        m = add_card(m, c)
    return m


# ---- shooter's choice ------------------------------------------------------------------------


def moon_subtract(totals: Sequence[int], shooter: int, moon_value: int, target: int) -> bool:
    """Shooter's choice by game score: add the moon to the others when that ends the game
    with us alone in the lead, or when we already lead; otherwise subtract it from our own."""
    add = [t + moon_value if i != shooter else t for i, t in enumerate(totals)]
    sub = [t - moon_value if i == shooter else t for i, t in enumerate(totals)]

    def won(tot: list[int]) -> int:
        if max(tot) < target:
            return 0
        low = min(tot)
        if tot[shooter] == low and tot.count(low) == 1:
            return 1
        return -1

    wa, ws = won(add), won(sub)
    if wa != ws:
        return ws > wa
    others = min(t for i, t in enumerate(totals) if i != shooter)
    return totals[shooter] >= others
