"""The page, its HTMX fragments, and the plain-form fallbacks.

One URL per action: an HTMX request gets the table fragment (with the playback frames
and the side-panel updates to apply after them); a plain form post is redirected back
to the page it came from.  Errors re-render the table as it really is, with the message.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2_fragments import render_block
from sqlmodel import Session

from engine import Game, PlayerView, Rules

from .. import coaching, i18n, options, playback, presenter, review_view, security, services
from ..deps import ContextDep, CurrentPlayer, SessionDep, get_session
from ..errors import BadChoiceError
from ..models import DIFFICULTIES, GameRecord, Player
from ..options import OptionsBase, with_rule_options
from ..playback import TEMPLATE
from ..services import Outcome

router = APIRouter(include_in_schema=False)


def _is_htmx(request: Request) -> bool:
    return request.headers.get("HX-Request") == "true"


def page_context(session: Session, player: Player, *, rec: GameRecord | None = None, game: Game | None = None,
                 outcome: Outcome | None = None, embed: bool = False, error: str | None = None,
                 dealt: bool = False, with_records: bool = True) -> dict[str, Any]:
    """What the game screen's template needs; ``with_records`` False: not the records panel
    (an action's answer that does not change it skips the query)."""
    if outcome is not None:
        rec, game = outcome.record, outcome.game
    elif rec is None:
        rec = services.current_game(session, player)
        game = services.load_game(rec) if rec is not None else None
    ctx: dict[str, Any] = {
        "player": player, "embed": embed, "error": error, "difficulties": DIFFICULTIES,
        "records": services.records(session, player) if with_records else [], "game": rec, "frames": [], "say": "",
        "pauses": playback.PAUSES_MS, "deferred": None, "rules_now": None, "t": None, "version": 0,
        "sheet": presenter.score_sheet(None), "tricks": [], "standard": Rules(),
        "level_name": presenter.difficulty_name,
        # the new-game dialog offers the options of the player's latest game again
        "choices": options.option_choices(game.rules if game is not None else Rules(),
                                          rec.difficulty if rec is not None else player.difficulty),
        "celebrate": False,
        "practice_played": coaching.practice_games(session, player) if with_records else 0,
        "coach": None, "hint": None, "chart": None,
    }
    if rec is None or game is None:
        ctx["say"] = i18n.gettext("Choose your options and deal the cards.")
        return ctx
    page = presenter.build_page(PlayerView.of(game, rec.seat), outcome.steps if outcome is not None else None,
                                dealt=dealt, before=outcome.before if outcome is not None else None)
    ctx.update(
        t=page.table, version=rec.version, sheet=page.sheet, tricks=page.tricks, frames=page.frames,
        playback_base=page.base,
        say=page.say, celebrate=page.celebrate, rules_now=presenter.rules_lines(game.rules), rules=game.rules,
        coach=coaching.helpers(rec, game), chart=review_view.score_chart(PlayerView.of(game, rec.seat)),
    )
    return ctx


def _render_fragment(request: Request, ctx: dict[str, Any], status_code: int = 200,
                     panels: playback.Panels | None = None) -> HTMLResponse:
    """The table, its playback, and the side panels' updates to apply after it: every panel
    (``panels`` None), or those an action changed (:func:`playback.changed_panels`)."""
    env = request.app.state.templates.env
    deferred = playback.deferred(env, ctx, playback.every_panel() if panels is None else panels)
    html = render_block(env, TEMPLATE, "table", {**ctx, "deferred": deferred})
    return HTMLResponse(html, status_code=status_code)


def _render_page(request: Request, ctx: dict[str, Any], status_code: int = 200) -> HTMLResponse:
    templates = request.app.state.templates
    ctx["base_url"] = str(request.base_url).rstrip("/")
    name = "embed.html" if ctx["embed"] else TEMPLATE
    return templates.TemplateResponse(request, name, ctx, status_code=status_code)


def _back(embed: bool) -> RedirectResponse:
    return RedirectResponse(i18n.url("/embed" if embed else "/"), status_code=303)


def _respond(request: Request, session: Session, player: Player, outcome: Outcome, embed: bool,
             dealt: bool = False) -> Response:
    if _is_htmx(request):
        panels = playback.changed_panels(outcome.events, len(outcome.view.tricks), dealt)
        ctx = page_context(session, player, outcome=outcome, embed=embed, dealt=dealt,
                           with_records="records" in panels[0])
        return _render_fragment(request, ctx, panels=panels)
    return _back(embed)


# ---- pages --------------------------------------------------------------------------------

@router.get("/", response_class=HTMLResponse)
def index(request: Request, session: SessionDep, player: CurrentPlayer) -> Response:
    return _render_page(request, page_context(session, player))


@router.get("/embed", response_class=HTMLResponse)
def embed(request: Request, session: SessionDep, player: CurrentPlayer) -> Response:
    return _render_page(request, page_context(session, player, embed=True))


@router.get("/table", response_class=HTMLResponse)
def table(request: Request, session: SessionDep, player: CurrentPlayer, embed: bool = False) -> Response:
    """The table as it is now (the page fetches it after an error or a stale click)."""
    return _render_fragment(request, page_context(session, player, embed=embed))


# ---- actions ------------------------------------------------------------------------------

EmbedForm = Annotated[bool, Form()]
VersionForm = Annotated[int, Form()]


@with_rule_options(form=True)
class NewGameForm(OptionsBase):
    difficulty: str = ""
    practice: bool = False
    """A practice game: hints and undo, never counted in the records."""
    """Empty: the standard game at the player's level."""
    same: bool = False
    """The rules and level of the game on the table (its "New game" button)."""
    replaces: str | None = None
    """The table's game ("none": the empty table; an empty form field would read as absent)."""
    embed: bool = False


@router.post("/game/new")
def new_game(request: Request, session: SessionDep, player: CurrentPlayer, ctx: ContextDep,
             form: Annotated[NewGameForm, Form()]) -> Response:
    """Deal a new game: with the options form, or ``same`` rules as the game on the table."""
    current = services.current_game(session, player) if form.same else None
    if current is not None:
        rules = services.load_game(current).rules
        level = form.difficulty or current.difficulty
    elif form.same or not form.difficulty:
        rules, level = Rules(), form.difficulty or player.difficulty
    else:
        rules, level = form.rules(), form.difficulty
    # the table's own "Deal"/"New game" buttons name the game they replace: a double
    # click deals once (the second click gets 409 and the new table)
    # a practice game's "New game" button deals another practice game
    practice = form.practice or (current is not None and current.practice)
    outcome = services.start_game(session, player, rules, level, ctx=ctx, practice=practice or None,
                                  replaces="" if form.replaces == "none" else form.replaces)
    return _respond(request, session, player, outcome, form.embed, dealt=True)


@router.post("/game/pass")
def pass_cards(request: Request, session: SessionDep, player: CurrentPlayer, ctx: ContextDep, version: VersionForm,
               cards: Annotated[list[str], Form()], embed: EmbedForm = False) -> Response:
    outcome = services.pass_cards(session, player, None, version, cards, ctx)
    return _respond(request, session, player, outcome, embed)


@router.post("/game/play")
def play_card(request: Request, session: SessionDep, player: CurrentPlayer, ctx: ContextDep, version: VersionForm,
              card: Annotated[str, Form()], embed: EmbedForm = False) -> Response:
    outcome = services.play_card(session, player, None, version, card, ctx)
    return _respond(request, session, player, outcome, embed)


@router.post("/game/moon")
def choose_moon(request: Request, session: SessionDep, player: CurrentPlayer, ctx: ContextDep, version: VersionForm,
                choice: Annotated[str, Form()], embed: EmbedForm = False) -> Response:
    if choice not in ("add", "subtract"):
        raise BadChoiceError("the moon choice is add or subtract")
    outcome = services.choose_moon(session, player, None, version, choice == "subtract", ctx)
    return _respond(request, session, player, outcome, embed)


@router.post("/game/next")
def next_round(request: Request, session: SessionDep, player: CurrentPlayer, ctx: ContextDep, version: VersionForm,
               embed: EmbedForm = False) -> Response:
    outcome = services.next_round(session, player, None, version, ctx)
    return _respond(request, session, player, outcome, embed)


@router.post("/prefs")
def preferences(request: Request, session: SessionDep, player: CurrentPlayer, ctx: ContextDep,
                fast_play: Annotated[bool, Form()] = False, embed: EmbedForm = False) -> Response:
    """Fast play can be switched at any time, even during playback."""
    services.set_preferences(session, player, fast_play=fast_play, ctx=ctx)
    if _is_htmx(request):
        return Response(status_code=204)
    return _back(embed)


# ---- practice helpers and the review (app.coaching) -------------------------------------

@router.post("/game/hint")
def hint(request: Request, session: SessionDep, player: CurrentPlayer, ctx: ContextDep, version: VersionForm,
         embed: EmbedForm = False) -> Response:
    """Hard's choice for the person now, highlighted in the hand, with one sentence why."""
    answer = coaching.hint(session, player, None, version, ctx)
    page = page_context(session, player, rec=answer.record, game=answer.game, embed=embed, with_records=False)
    shown = review_view.hint_view(answer.cards, answer.reason, answer.values,
                                  PlayerView.of(answer.game, answer.record.seat))
    page.update(hint=shown, say=shown.text)
    if _is_htmx(request):
        return _render_fragment(request, page, panels=([], None))
    page["records"] = services.records(session, player)
    page["practice_played"] = coaching.practice_games(session, player)
    return _render_page(request, page)


@router.post("/game/undo")
def undo(request: Request, session: SessionDep, player: CurrentPlayer, ctx: ContextDep, version: VersionForm,
         embed: EmbedForm = False) -> Response:
    """Take back the person's last pass or card (and the computer players' moves after it)."""
    outcome = coaching.undo(session, player, None, version, ctx)
    if _is_htmx(request):
        page = page_context(session, player, outcome=outcome, embed=embed)
        page["say"] = i18n.gettext("Taken back.") + " " + page["say"]
        return _render_fragment(request, page)
    return _back(embed)


@router.get("/game/review", response_class=HTMLResponse)
def review(request: Request, session: SessionDep, player: CurrentPlayer, ctx: ContextDep, hand: int) -> Response:
    """Hand ``hand`` (1-based) of the person's game reviewed, step by step (the review dialog's body)."""
    answer = coaching.review(session, player, None, hand - 1, ctx)
    env = request.app.state.templates.env
    shown = review_view.review_view(answer.end, answer.ratings, answer.hand)
    return HTMLResponse(render_block(env, TEMPLATE, "review", {"review": shown, "player": player}))


# ---- refusals: the table as it is now, with the reason (app.errors calls this) -----------------

def refused(request: Request, reason: Exception | str, status: int) -> Response:
    """The page's answer to a refused request: the table as it really is with the message
    (an HTMX request gets the table fragment, which it swaps like any 4xx), drawn with the
    request's own session after rolling back what the refused action left."""
    embed = "/embed" in request.headers.get("HX-Current-URL", request.url.path)
    session = get_session(request)
    session.rollback()
    pid = security.player_id_of(request)
    player = services.get_player(session, pid) or Player(id=pid or services.new_id())
    message = reason if isinstance(reason, str) else presenter.error_text(reason)
    ctx = page_context(session, player, embed=embed, error=message)
    if _is_htmx(request):
        return _render_fragment(request, ctx, status_code=status)
    return _render_page(request, ctx, status_code=status)
