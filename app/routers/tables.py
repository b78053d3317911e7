"""Tables for friends: the table's page, its actions, and its live event stream.

``/t/{token}`` is the invite link.  Whoever opens it sees the table as their seat sees it
(or, without a seat, as a spectator: the cards played, never a hand) and can take a free
seat.  ``/t/{token}/events`` is the page's stream of server-sent events: ``table`` (the
table block, with the playback of the moves the page has not shown), ``people`` (who sits
where, who is connected) and ``closed``.  Every event's id names the game, its version and
the seats' revision, so a page that reconnects (``Last-Event-ID``) or reloads gets exactly
what it has not shown yet, drawn for its own person alone.
"""

from __future__ import annotations

import asyncio
import io
import threading
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Hashable
from dataclasses import dataclass
from typing import Annotated, Any

import segno
from fastapi import APIRouter, Form, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from jinja2_fragments import render_block
from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from engine import Card, CardSet, Game, Rules
from engine.errors import IllegalMoveError
from engine.moves import MoonMove, PassMove, PlayMove

from .. import i18n, limits, options, playback, presenter, security, services, tables
from ..deps import ContextDep, CurrentPlayer, SessionDep, as_player, get_session
from ..errors import BadChoiceError, GameClosedError, StaleStateError, TableError, TableNotFoundError, error_page
from ..feed import FEEDS, Snapshot
from ..models import DIFFICULTIES, Player, utcnow
from ..options import OptionsBase, with_rule_options
from ..playback import TEMPLATE
from ..tables import TableState

router = APIRouter(include_in_schema=False)

PAGE = "friends.html"
HEARTBEAT_S = 15.0
RENEW_S = 30.0
"""A stream renews its person's presence this often: within :data:`app.tables.CONNECTED_FOR`
(45 s), so a renewal late by up to 15 s (a busy server) still keeps them connected; every
15 s was a write a second for every 15 streams, as many as the moves of a busy server."""
PLAYBACK_LIMIT = 80
"""A page further behind than this many moves gets the table as it is, without the playback."""


@dataclass(frozen=True)
class Person:
    seat: int
    name: str
    person: bool
    taken: bool
    connected: bool
    host: bool
    you: bool


def _labels(state: TableState, viewer: int | None) -> tuple[str, ...]:
    """Every seat's name for the viewer: "You", the people's names, the computer seats by
    where they sit (a spectator sees them from the host's seat, the first)."""
    n = len(state.seats)
    compass = presenter.seat_names(n, viewer if viewer is not None else 0)
    out = []
    for s in state.seats:
        if viewer is not None and s.seat == viewer:
            out.append(i18n.gettext("You"))
        elif s.player_id is not None and s.name:
            out.append(s.name)
        else:
            out.append(compass[s.seat])
    return tuple(out)


def people(state: TableState, viewer_id: str | None) -> list[Person]:
    """Who sits where, the computer seats named as the viewer sees them."""
    names = _labels(state, state.seat_of(viewer_id))
    return [Person(s.seat, s.name if s.player_id and s.name else names[s.seat], s.person, s.player_id is not None,
                   state.connected(s), s.player_id == state.table.host_id and s.player_id is not None,
                   s.player_id is not None and s.player_id == viewer_id)
            for s in state.seats]


def free_seats(everyone: list[Person]) -> list[Person]:
    """The people's seats nobody has taken: those a friend may sit down at."""
    return [p for p in everyone if p.person and not p.taken]


def table_context(request: Request, session: Session | None, player: Player, state: TableState, *,
                  outcome: tables.TableOutcome | None = None, since: int | None = None,
                  error: str | None = None, with_records: bool = True, game: Game | None = None,
                  parts: bool = False) -> dict[str, Any]:
    """What the table's page and fragments need, for ``player`` (at their seat, or watching).
    ``outcome``: the player's own action; ``since``: a page showing that version of the
    game gets the moves after it played back; ``game``: the table's game, already loaded
    (it is only read); ``session`` is needed only ``with_records``; ``parts``: a move
    within a hand is drawn as what it changes on the table of version ``since``
    (``patch``), not whole."""
    seat = state.seat_of(player.id)
    rec = state.record
    table = state.table
    token = table.token
    remaining = _remaining(state)
    everyone = people(state, player.id)
    free = free_seats(everyone)
    ctx: dict[str, Any] = {
        "player": player, "embed": False, "error": error, "difficulties": DIFFICULTIES,
        "records": services.records(session, player) if with_records and session is not None else [],
        "game": rec, "frames": [], "say": "", "pauses": playback.PAUSES_MS, "deferred": None, "rules_now": None,
        "t": None, "version": rec.version if rec else 0, "sheet": presenter.score_sheet(None), "tricks": [],
        "standard": Rules(), "level_name": presenter.difficulty_name,
        "choices": options.option_choices(state.rules, table.difficulty), "celebrate": False,
        "act": f"/t/{token}", "here_path": f"/t/{token}",
        "friends": {
            "token": token, "key": state.key, "seat": seat, "host": state.is_host(player.id),
            "people": everyone, "free": free, "invite": invite_url(request, token),
            "remaining": remaining, "turn_seconds": table.turn_seconds, "playing": state.playing,
            "over": rec is not None and rec.status == "finished", "dealt": rec is not None,
            "level": table.difficulty, "waiting_on_you": seat is not None and bool(table.waiting >> seat & 1),
            "next_hand": rec is not None and not table.waiting,
        },
    }
    if rec is None:
        ctx["say"] = i18n.gettext("Waiting for the host to deal the cards.")
        ctx["rules_now"] = presenter.rules_lines(state.rules)
        ctx["game"] = {"difficulty": table.difficulty, "id": None, "practice": False}
        with presenter.naming(_labels(state, seat)):
            ctx["sheet"] = presenter.empty_sheet(len(state.seats))
        return ctx
    if game is None:
        game = services.load_game(rec)
    view = tables.view_for(game, seat)
    with presenter.naming(_labels(state, seat), spectator=seat is None):
        before = None
        steps: list[services.Step] = []
        if outcome is not None:
            replayed = tables.replay(rec, game, outcome.before_version, seat) if outcome.before_version is not None \
                else None
        elif since is not None and since < rec.version and rec.version - since <= PLAYBACK_LIMIT:
            replayed = tables.replay(rec, game, since, seat)
        else:
            replayed = None
        if replayed is not None:
            before, moves = replayed
            steps = [services.Step(m, events, v) for m, events, v in moves]
            # (a stream's event, and a move sent as parts, send only the side panels these moves change)
            ctx["steps"] = steps if outcome is None or parts else None
        page = presenter.build_page(view, steps, before=before)
        ctx.update(t=page.table, sheet=page.sheet, tricks=page.tricks, frames=page.frames, playback_base=page.base,
                   say=page.say, celebrate=page.celebrate, rules_now=presenter.rules_lines(game.rules),
                   rules=game.rules)
        if parts and page.before is not None and not page.celebrate:
            ctx["patch"] = presenter.final_parts(page.before, page.table)
            ctx["patch_from"] = since if outcome is None else outcome.before_version
        if outcome is not None and not ctx.get("patch"):
            ctx["steps"] = None  # (an action's answer drawn whole brings every side panel)
    return ctx


def _remaining(state: TableState) -> int | None:
    """The turn timer's seconds left, as the table's countdown shows them (None: not running)."""
    deadline = state.table.deadline
    if not state.playing or deadline is None:
        return None
    return max(0, int((tables._aware(deadline) - state.now).total_seconds() + 0.999))


def invite_url(request: Request, token: str) -> str:
    """The table's invite link, in the page's language, as the person's browser reaches the app."""
    return f"{str(request.base_url).rstrip('/')}{i18n.url('/t/' + token)}"


def qr_svg(text: str) -> str:
    """``text`` as a QR code (segno, error correction M, the standard quiet zone of four
    modules), an SVG that its ``<img>`` sizes: dark modules on white whatever the page's colours."""
    out = io.BytesIO()
    segno.make(text, error="m", micro=False).save(out, kind="svg", xmldecl=False, scale=1, border=4,
                                                   omitsize=True, dark="#000", light="#fff")
    return out.getvalue().decode()


def changed_panels(ctx: dict[str, Any]) -> playback.Panels:
    """The side panels the moves played back change (all of them for a table drawn whole)."""
    steps: list[services.Step] | None = ctx.get("steps")
    if steps is None:
        return playback.every_panel()
    return playback.changed_panels((e for s in steps for e in s.events), len(ctx["tricks"]))


def _render_table(request: Request, ctx: dict[str, Any], panels: playback.Panels | None = None) -> str:
    """The table (or a move's parts of it) with the side panels it changes (``panels``, if
    the caller has them already)."""
    env = request.app.state.templates.env
    deferred = playback.deferred(env, ctx, changed_panels(ctx) if panels is None else panels)
    return render_block(env, TEMPLATE, "table_patch" if ctx.get("patch") else "table", {**ctx, "deferred": deferred})


class Drawings:
    """The moves' tables drawn lately in this process for one person, by everything they
    are drawn from (:func:`_drawing_key`): a move's answer to the person who made it is the
    table event their own stream sends next (the page shows it once, from whichever comes
    first), so the stream takes the answer's drawing instead of drawing it again."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._drawn: OrderedDict[Hashable, str] = OrderedDict()
        self._lock = threading.Lock()  # (answers and streams draw in the thread pool)

    def put(self, key: Hashable, html: str) -> None:
        with self._lock:
            self._drawn[key] = html
            while len(self._drawn) > self.size:
                self._drawn.popitem(last=False)

    def get(self, key: Hashable) -> str | None:
        with self._lock:
            return self._drawn.get(key)


DRAWN = Drawings()


def _drawing_key(request: Request, state: TableState, player: Player, since: int) -> Hashable:
    """What a move's table drawn as parts (on version ``since``) for ``player`` depends on:
    the table, its game's version and seats' revision, whose view and their settings, the
    countdown as it shows now, the language and the address the page is served from."""
    table = state.table
    return (table.id, state.key, since, player.id, state.seat_of(player.id), state.is_host(player.id),
            bool(player.fast_play), _remaining(state), table.waiting, i18n.current().lang.code, str(request.base_url))


def _render_people(request: Request, ctx: dict[str, Any]) -> str:
    return render_block(request.app.state.templates.env, PAGE, "people", ctx)


def _fragment(request: Request, ctx: dict[str, Any], status_code: int = 200) -> HTMLResponse:
    """An action's answer: the table, and the people's panel swapped out of band."""
    people_html = _render_people(request, ctx).replace('id="people"', 'id="people" hx-swap-oob="true"', 1)
    return HTMLResponse(_render_table(request, ctx) + people_html, status_code=status_code)


def _page(request: Request, ctx: dict[str, Any], status_code: int = 200) -> HTMLResponse:
    ctx["base_url"] = str(request.base_url).rstrip("/")
    return request.app.state.templates.TemplateResponse(request, PAGE, ctx, status_code=status_code)


def _is_htmx(request: Request) -> bool:
    return request.headers.get("HX-Request") == "true"


def _answer(request: Request, session: Session, player: Player, state: TableState,
            outcome: tables.TableOutcome | None = None, version: int | None = None) -> Response:
    """An action's answer: for a move within a hand made from the table stored last
    (``version``, the form's), what it changes on the person's table; else the table whole."""
    if not _is_htmx(request):
        return RedirectResponse(i18n.url(f"/t/{state.table.token}"), status_code=303)
    parts = outcome is not None and version is not None and version == outcome.before_version
    ctx = table_context(request, session, player, state, outcome=outcome, with_records=False, parts=parts)
    if ctx.get("patch"):
        # (the people's panel comes with the table's event, as it does with every change)
        panels = changed_panels(ctx)
        html = _render_table(request, ctx, panels)
        if "records" not in panels[0]:
            DRAWN.put(_drawing_key(request, state, player, ctx["patch_from"]), html)
        return HTMLResponse(html)
    ctx["records"] = services.records(session, player)
    return _fragment(request, ctx)


# ---- opening a table ------------------------------------------------------------------------

@with_rule_options(form=True)
class NewTableForm(OptionsBase):
    difficulty: str = "medium"
    turn_seconds: int = tables.TURN_SECONDS
    name: str = ""


@router.post("/tables/new")
def open_table(request: Request, session: SessionDep, player: CurrentPlayer, ctx: ContextDep,
               form: Annotated[NewTableForm, Form()]) -> Response:
    """"Play with friends" in the options dialog: a table with these options, the host seated."""
    state = tables.open_table(session, player, form.rules(), form.difficulty, form.turn_seconds, form.name, ctx)
    where = i18n.url(f"/t/{state.table.token}")
    if _is_htmx(request):
        return Response(status_code=204, headers={"HX-Redirect": where})
    return RedirectResponse(where, status_code=303)


# ---- the table's page ------------------------------------------------------------------------

@router.get("/t/{token}", response_class=HTMLResponse)
def table_page(request: Request, token: str, session: SessionDep, player: CurrentPlayer) -> Response:
    state = tables.read(session, token)
    return _page(request, table_context(request, session, player, state))


@router.get("/t/{token}/table", response_class=HTMLResponse)
def table_fragment(request: Request, token: str, session: SessionDep, player: CurrentPlayer) -> Response:
    state = tables.read(session, token)
    return _fragment(request, table_context(request, session, player, state))


@router.get("/t/{token}/qr.svg")
def invite_qr(request: Request, token: str, session: SessionDep, player: CurrentPlayer) -> Response:
    """The invite link as a QR code, beside its copy button on the host's page (a phone's
    camera opens the table)."""
    state = tables.read(session, token)
    if not state.is_host(player.id):
        raise TableError(i18n.gettext("Only the host can do that."), "not_host", 403)
    return Response(qr_svg(invite_url(request, token)), media_type="image/svg+xml")


VersionForm = Annotated[int, Form()]


@router.post("/t/{token}/join")
def join(request: Request, token: str, session: SessionDep, player: CurrentPlayer, ctx: ContextDep,
         seat: Annotated[int, Form()], name: Annotated[str, Form(max_length=200)] = "") -> Response:
    state = tables.join(session, tables.read(session, token), player, seat, name, ctx)
    return _answer(request, session, player, state)


@router.post("/t/{token}/people")
def set_people(request: Request, token: str, session: SessionDep, player: CurrentPlayer,
               seats: Annotated[list[int] | None, Form()] = None) -> Response:
    state = tables.set_people(session, tables.read(session, token), player, set(seats or ()))
    return _answer(request, session, player, state)


@router.post("/t/{token}/deal")
def deal(request: Request, token: str, session: SessionDep, player: CurrentPlayer, ctx: ContextDep) -> Response:
    state = tables.deal(session, tables.read(session, token), player, ctx)
    return _answer(request, session, player, state)


@router.post("/t/{token}/remove")
def remove(request: Request, token: str, session: SessionDep, player: CurrentPlayer,
           seat: Annotated[int, Form()]) -> Response:
    state = tables.remove(session, tables.read(session, token), player, seat)
    return _answer(request, session, player, state)


@router.post("/t/{token}/close")
def close(request: Request, token: str, session: SessionDep, player: CurrentPlayer) -> Response:
    tables.close(session, tables.read(session, token), player)
    if _is_htmx(request):
        return Response(status_code=204, headers={"HX-Redirect": i18n.url("/")})
    return RedirectResponse(i18n.url("/"), status_code=303)


async def _act(request: Request, token: str, version: int, move: Any) -> Response:
    """A move at the table: the player's lookup, the move and its answer in one thread-pool
    hop (:func:`app.deps.as_player`; the dependencies took a hop of their own for the lookup)."""
    def work(session: Session, player: Player, ctx: services.Context) -> Response:
        state = tables.read(session, token)
        outcome = tables.act(session, state, player, version, move, ctx)
        return _answer(request, session, player, outcome.state, outcome, version)

    return await as_player(request, work)


@router.post("/t/{token}/pass")
async def pass_cards(request: Request, token: str, version: VersionForm,
                     cards: Annotated[list[str], Form()]) -> Response:
    try:
        chosen = CardSet(cards)
    except ValueError as exc:
        raise IllegalMoveError(f"pass exactly 3 cards you hold ({exc})", "pass_cards") from None
    return await _act(request, token, version, lambda seat: PassMove(seat, chosen))


@router.post("/t/{token}/play")
async def play_card(request: Request, token: str, version: VersionForm, card: Annotated[str, Form()]) -> Response:
    try:
        chosen = Card(card)
    except ValueError as exc:
        raise IllegalMoveError(str(exc), "not_a_card") from None
    return await _act(request, token, version, lambda seat: PlayMove(seat, chosen))


@router.post("/t/{token}/moon")
async def choose_moon(request: Request, token: str, version: VersionForm, choice: Annotated[str, Form()]) -> Response:
    if choice not in ("add", "subtract"):
        raise BadChoiceError("the moon choice is add or subtract")
    return await _act(request, token, version, lambda seat: MoonMove(seat, choice == "subtract"))


@router.post("/t/{token}/next")
async def next_hand(request: Request, token: str, version: VersionForm) -> Response:
    return await _act(request, token, version, tables.next_hand)


# ---- the live stream ------------------------------------------------------------------------------

def _sse(event: str, data: str, event_id: str | None = None) -> bytes:
    lines = [f"event: {event}"]
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines += [f"data: {line}" for line in data.split("\n")]
    return ("\n".join(lines) + "\n\n").encode()


def _parse_key(key: str | None) -> tuple[str, int, int] | None:
    if not key:
        return None
    parts = key.split(".")
    if len(parts) != 3:
        return None
    try:
        return parts[0], int(parts[1]), int(parts[2])
    except ValueError:
        return None


_PLAYERS = select(Player).where(col(Player.id).in_(bindparam("ids", expanding=True)))
"""The players watching a table (built once: building it cost more than running it)."""


def _read(engine: Any, token: str | None, table_id: str | None, viewers: frozenset[str], seq: int) -> Snapshot:
    """The table (by invite ``token`` or ``table_id``), its game and the players ``viewers``,
    in one transaction: what every stream of the table in this process draws from."""
    # (the feed's reads are the server's own work, not a request's: app.feed)
    info = {"background": "tables.feed"} if token is None else {}
    with Session(engine, expire_on_commit=False, info=info) as session:
        try:
            state = tables.read(session, token, table_id, open_only=False)
        except TableNotFoundError:
            session.commit()
            return Snapshot(seq, None, None, {})
        players = {p.id: p for p in session.exec(_PLAYERS, params={"ids": list(viewers)})} if viewers else {}
        game = services.load_game(state.record) if state.record is not None else None
        session.commit()
    return Snapshot(seq, state, game, players)


def _read_table(engine: Any) -> Callable[[str, frozenset[str], int], Snapshot]:
    return lambda table_id, viewers, seq: _read(engine, None, table_id, viewers, seq)


@dataclass
class Shown:
    """What one stream's page shows, and the people's panel it was last sent (drawn again
    only when what it shows has changed; sent with every move all the same)."""

    key: tuple[str, int, int] | None
    people: tuple[object, ...] | None = None
    people_html: str = ""


TOO_MANY_STREAMS = "Too many pages of tables are open from here; close one, and this page connects again."
"""A stream refused by :class:`app.limits.StreamSlots` (an EventSource does not show it: the
page shows that it is reconnecting, and tries again later)."""
STREAM_RETRY_S = 10


@dataclass(frozen=True)
class StandIn:
    """Whom a drawing shared by several people is drawn for: their own anti-forgery token
    then takes the place of this one's (nothing else in the table block names its person)."""

    id: str
    fast_play: bool


_STAND_IN_ID = "table-stream-" + services.new_id()


def _events(request: Request, engine: Any, snap: Snapshot, player_id: str, shown: Shown
            ) -> tuple[list[bytes], int | None, bool]:
    """What a page that shows ``shown`` has not seen yet of ``snap``, drawn for
    ``player_id`` alone: the events, the viewer's seat, and whether the table is closed.
    ``shown`` is brought up to date."""
    state = snap.state
    if state is None or state.table.status != "open":
        return [_sse("closed", "")], None, True
    # (a stream uses only reads that began after it joined its feed, each of which read every
    # stored player watching: one it did not find has not been stored yet, a visitor who has
    # not acted, and has the settings of a new player; a look of its own per stream and
    # change was a query per page open on the table)
    player = snap.players.get(player_id) or Player(id=player_id)
    key = _parse_key(state.key)
    assert key is not None
    seat = state.seat_of(player_id)
    out: list[bytes] = []
    old = shown.key
    game_changed = old is None or old[0] != key[0] or old[1] != key[1]
    people_changed = old is None or old[2] != key[2]
    if game_changed or people_changed:
        since = old[1] if old is not None and old[0] == key[0] and game_changed else None
        drawn_ctx: dict[str, Any] | None = None

        def context() -> dict[str, Any]:
            nonlocal drawn_ctx
            if drawn_ctx is None:
                drawn_ctx = table_context(request, None, player, state, since=since, with_records=False,
                                          game=snap.game, parts=True)
            return drawn_ctx

        if game_changed:
            # (the person's own move: their answer's drawing, if it was drawn on the same table)
            html = DRAWN.get(_drawing_key(request, state, player, since)) if since is not None else None
            if html is None:
                html = _table_html(request, engine, snap, context, player, since)
            out.append(_sse("table", html, state.key))
        # (with every move too: who is connected changes by the clock, a grace running out)
        everyone = people(state, player.id)
        drawn = (tuple(everyone), seat, tuple(free_seats(everyone)),
                 state.is_host(player.id), state.playing, state.record is not None,
                 invite_url(request, state.table.token), i18n.current().lang.code)
        if drawn != shown.people:
            shown.people, shown.people_html = drawn, _render_people(request, context())
        out.append(_sse("people", shown.people_html, state.key))
    shown.key = key
    return out, seat, False


def _table_html(request: Request, engine: Any, snap: Snapshot, context: Callable[[], dict[str, Any]],
                player: Player, since: int | None) -> str:
    """The table event's HTML: drawn once for every stream of this process that sees the
    same (a spectator's, or one person's in two tabs), each with its own token.  What it is
    drawn from (``context``, the person's table) is made only by the stream that draws it:
    a hundred spectators, or a person's many tabs, cost one drawing, not a hundred tables."""
    state = snap.state
    key = ("table", since, state.seat_of(player.id), state.is_host(player.id), bool(player.fast_play),
           i18n.current().lang.code, str(request.base_url))
    stand_in = StandIn(_STAND_IN_ID, bool(player.fast_play))

    def draw() -> str | None:
        ctx = context()
        panels = changed_panels(ctx)
        if "records" in panels[0]:
            return None  # (the moves change the records panel: each person's own, drawn for them alone)
        return _render_table(request, {**ctx, "player": stand_in}, panels)

    html: str | None = snap.shared(key, draw)
    if html is None:
        ctx = context()
        with Session(engine, expire_on_commit=False) as session:
            ctx["records"] = services.records(session, player)
            session.commit()
        return _render_table(request, ctx, changed_panels(ctx))
    csrf = request.app.state.templates.env.globals["csrf_token"]
    return html.replace(csrf(_STAND_IN_ID), csrf(player.id))


@router.get("/t/{token}/events")
async def events(request: Request, token: str, player: CurrentPlayer, last: str | None = None) -> Response:
    """The page's stream: nothing is held between events but what it shows.  One address's
    streams are limited in number (:class:`app.limits.StreamSlots`), and the first look (a
    read and a drawing) takes a place in the admission gate like any request."""
    engine = request.app.state.db_engine
    slot = request.app.state.streams.take(limits.client_key(request.scope))
    if slot is None:
        return Response(TOO_MANY_STREAMS, status_code=429, media_type="text/plain",
                        headers={"Retry-After": str(STREAM_RETRY_S), "Cache-Control": "no-store"})
    try:
        async with request.app.state.gate.place() as admitted:
            if not admitted:
                raise limits.ServerBusyError()
            shown = Shown(_parse_key(request.headers.get("Last-Event-ID") or last))
            snap = await run_in_threadpool(_read, engine, token, None, frozenset({player.id}), 0)
            if snap.state is None:
                slot.release()
                return Response(status_code=204)  # no such table: an EventSource stops trying on 204
            table_id: str = snap.state.table.id
            first, seat, closed = await run_in_threadpool(_events, request, engine, snap, player.id, shown)

            # connected from now on (before the answer starts: a page that has its stream open
            # is never taken for absent)
            await run_in_threadpool(_presence, engine, table_id, seat, player.id, utcnow() + tables.CONNECTED_FOR,
                                    True, 1)
    except BaseException:
        slot.release()
        raise

    async def stream() -> AsyncIterator[bytes]:
        nonlocal seat
        async with FEEDS.joined(table_id, player.id, _read_table(engine)) as joined:
            # a change stored between the first look and joining is not missed: a read after it
            due = joined.feed.fresh()
            try:
                yield b"retry: 1000\n\n" + b"".join(first)
                if closed:
                    return
                renewed = asyncio.get_running_loop().time()
                while True:
                    due_in = RENEW_S - (asyncio.get_running_loop().time() - renewed)
                    try:
                        await asyncio.wait_for(joined.changed.wait(), max(0.0, min(HEARTBEAT_S, due_in)))
                    except TimeoutError:
                        yield b": still here\n\n"
                    loop_now = asyncio.get_running_loop().time()
                    if loop_now - renewed >= RENEW_S:
                        renewed = loop_now
                        await run_in_threadpool(_presence, engine, table_id, seat, player.id,
                                                utcnow() + tables.CONNECTED_FOR, False)
                    if not joined.changed.is_set():
                        continue
                    joined.changed.clear()
                    snap = joined.feed.snapshot
                    if snap is None or snap.seq < due:
                        continue  # (the read promised is under way: it sets the event again)
                    chunks, now_seat, ended = await run_in_threadpool(_events, request, engine, snap, player.id,
                                                                      shown)
                    if now_seat != seat and not ended:
                        # the person has just taken a seat (or was removed from one)
                        seat = now_seat
                        renewed = loop_now
                        await run_in_threadpool(_presence, engine, table_id, seat, player.id,
                                                utcnow() + tables.CONNECTED_FOR, True, 1)
                    if chunks:  # (a change's events in one write)
                        yield b"".join(chunks)
                    if ended:
                        return
            finally:
                # gone (a closed tab, a lost connection): if it was the person's last page,
                # still "connected" for a moment, so a reload is not leaving; then a computer
                # player takes the person's turns
                slot.release()
                await asyncio.shield(run_in_threadpool(_presence, engine, table_id, seat, player.id,
                                                       utcnow() + tables.GONE_AFTER, True, -1))

    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    body = stream()
    # (a client gone before the answer started never runs the stream, nor its finally)
    weakref.finalize(body, slot.release)
    return StreamingResponse(body, media_type="text/event-stream", headers=headers)


def _presence(engine: Any, table_id: str, seat: int | None, player_id: str, until: Any, changed: bool,
              streams: int = 0) -> None:
    with Session(engine, expire_on_commit=False) as session:
        tables.present(session, table_id, seat, player_id, until, arrived=changed, streams=streams)


# ---- refusals ----------------------------------------------------------------------------------

def refused(request: Request, reason: Exception | str, status: int) -> Response:
    """A refused action at a table: the table as it is now, with the reason."""
    session = get_session(request)
    session.rollback()
    pid = security.player_id_of(request)
    player = services.get_player(session, pid) or Player(id=pid or services.new_id())
    if isinstance(reason, StaleStateError) and not isinstance(reason, GameClosedError):
        # at a table a move that came too late was overtaken by somebody else's
        message = i18n.gettext("Somebody else moved first; here is the table now.")
    else:
        message = reason if isinstance(reason, str) else presenter.error_text(reason)
    token = request.scope.get("path", "").split("/")[2] if request.scope.get("path", "").count("/") >= 2 else ""
    try:
        state = tables.read(session, token)
    except TableNotFoundError:
        return HTMLResponse(error_page(presenter.error_text(TableNotFoundError("no such table"))), status_code=404)
    ctx = table_context(request, session, player, state, error=message)
    if _is_htmx(request):
        return _fragment(request, ctx, status_code=status)
    return _page(request, ctx, status_code=status)

