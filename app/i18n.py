"""The page's languages: which one a request gets, and its message catalogue.

The language comes from a URL prefix (``/it/``, ``/pl/embed``), else from
``Accept-Language``, else English.  :class:`LanguageMiddleware` strips the prefix, so every
route exists once, and puts the request's language in a context variable that the
templates (through ``jinja2.ext.i18n``) and the presenter read with :func:`gettext`.
The Jinja environment is shared by concurrent requests, so it gets callables that look up
the current language rather than one language's translations installed on it.

Catalogues are ``locales/<code>/LC_MESSAGES/messages.po``, kept by Babel's own commands
(``make messages``: pybabel extract, update and compile) and read compiled (``.mo``, built by
``make catalogues``, which ``make run`` and ``make test`` do first).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from babel import negotiate_locale
from babel.lists import format_list
from babel.support import NullTranslations, Translations
from markupsafe import Markup

LOCALES = Path(__file__).resolve().parent.parent / "locales"
if not LOCALES.is_dir():  # installed package (the Docker image): the working directory
    LOCALES = Path.cwd() / "locales"
DOMAIN = "messages"
POT = LOCALES / f"{DOMAIN}.pot"


@dataclass(frozen=True)
class Language:
    code: str
    """Catalogue directory and Babel locale: ``pt_BR``, ``zh_Hans``."""
    tag: str
    """BCP 47 tag for ``<html lang>``: ``pt-BR``, ``zh-Hans``."""
    name: str
    """The language's name in itself, for the picker."""
    rtl: bool = False

    @property
    def slug(self) -> str:
        """The URL prefix without slashes: ``pt-br``."""
        return self.tag.lower()

    @property
    def dir(self) -> str:
        return "rtl" if self.rtl else "ltr"


LANGUAGES: tuple[Language, ...] = (
    Language("en", "en", "English"),
    Language("it", "it", "Italiano"),
    Language("pl", "pl", "Polski"),
    Language("id", "id", "Bahasa Indonesia"),
    Language("ms", "ms", "Bahasa Melayu"),
    Language("de", "de", "Deutsch"),
    Language("es", "es", "Español"),
    Language("fil", "fil", "Filipino"),
    Language("fr", "fr", "Français"),
    Language("nl", "nl", "Nederlands"),
    Language("pt_BR", "pt-BR", "Português (Brasil)"),
    Language("vi", "vi", "Tiếng Việt"),
    Language("tr", "tr", "Türkçe"),
    Language("ru", "ru", "Русский"),
    Language("uk", "uk", "Українська"),
    Language("ar", "ar", "العربية", rtl=True),
    Language("fa", "fa", "فارسی", rtl=True),
    Language("he", "he", "עברית", rtl=True),
    Language("hi", "hi", "हिन्दी"),
    Language("th", "th", "ไทย"),
    Language("zh_Hans", "zh-Hans", "简体中文"),
    Language("zh_Hant", "zh-Hant", "繁體中文"),
    Language("ja", "ja", "日本語"),
    Language("ko", "ko", "한국어"),
)
ENGLISH = LANGUAGES[0]
BY_SLUG = {lang.slug: lang for lang in LANGUAGES}
# Accept-Language tags that name one of ours differently (old or regional codes)
ALIASES: dict[str, str] = {
    "zh": "zh-hans", "zh-cn": "zh-hans", "zh-sg": "zh-hans", "zh-my": "zh-hans",
    "zh-tw": "zh-hant", "zh-hk": "zh-hant", "zh-mo": "zh-hant",
    "pt": "pt-br", "tl": "fil", "iw": "he", "in": "id",
}


@dataclass(frozen=True)
class RequestLanguage:
    lang: Language
    prefix: str
    """``/it`` when the language came from the URL (links and forms keep it), else ``""``."""


# the default is a frozen dataclass, so sharing it is safe
_current: ContextVar[RequestLanguage] = ContextVar("language", default=RequestLanguage(ENGLISH, ""))  # noqa: B039


def current() -> RequestLanguage:
    return _current.get()


@contextmanager
def using(lang: Language, prefix: str = "") -> Iterator[None]:
    """Speak ``lang`` inside the block (tests and scripts; requests go through the middleware)."""
    token = _current.set(RequestLanguage(lang, prefix))
    try:
        yield
    finally:
        _current.reset(token)


def catalogue(code: str) -> Path:
    return LOCALES / code / "LC_MESSAGES" / f"{DOMAIN}.mo"


@cache
def translations(code: str) -> NullTranslations:
    if code == ENGLISH.code:  # the source language: the messages as written
        return NullTranslations()
    return Translations.load(str(LOCALES), [code], DOMAIN)


def _raw_gettext(message: str) -> str:
    return translations(current().lang.code).gettext(message)


def _raw_ngettext(singular: str, plural: str, n: int) -> str:
    return translations(current().lang.code).ngettext(singular, plural, n)


def gettext(message: str, **variables: Any) -> str:
    """The message in the current language, with ``%(name)s`` placeholders filled in."""
    text = _raw_gettext(message)
    return text % variables if variables else text


def pgettext(context: str, message: str, **variables: Any) -> str:
    """A message that needs a context to be told apart from the same English words."""
    text = str(translations(current().lang.code).pgettext(context, message))
    return text % variables if variables else text


def ngettext(singular: str, plural: str, n: int, **variables: Any) -> str:
    """The plural form for ``n`` (``%(num)s`` is ``n``)."""
    return _raw_ngettext(singular, plural, n) % {"num": n, **variables}


_ = gettext


def join_list(items: list[str]) -> str:
    """"a, b and c" in the current language."""
    if not items:
        return ""
    return _joined(tuple(items), current().lang.code)


@lru_cache(maxsize=4096)
def _joined(items: tuple[str, ...], code: str) -> str:
    # (Babel looks the patterns up at every call: a table's page joins the same few lists
    # many times over, each move, for each person watching it)
    try:
        return format_list(list(items), locale=code)
    except (KeyError, ValueError):  # a locale without list patterns in Babel's data
        return ", ".join(items)


MINUS = "\u2212"
"""A true minus sign: a hyphen is too short to read as one, and ``+-10`` reads as nothing."""


def number(n: int) -> str:
    """A score as text, negative with a true minus sign: ``−10``, ``7``."""
    return f"{MINUS}{-n}" if n < 0 else str(n)


def signed(n: int) -> str:
    """Points gained or lost, always with their sign: ``+3``, ``−10``, ``+0``."""
    return f"{MINUS}{-n}" if n < 0 else f"+{n}"


def _isolated(text: str) -> Markup:
    # a lone sign is a neutral character: in a right-to-left paragraph "−10" would show as
    # "10−"; <bdi> lays the number out left to right wherever it stands
    return Markup("<bdi>%s</bdi>") % text


def number_html(n: int | None) -> Markup | str:
    """:func:`number` for a template (``{{ total | num }}``); a missing value is a dash."""
    if n is None:
        return "–"
    return _isolated(number(n)) if n < 0 else str(n)


def signed_html(n: int) -> Markup:
    return _isolated(signed(n))


# ---- choosing the language --------------------------------------------------------------

def split_prefix(path: str) -> tuple[Language | None, str]:
    """``/pl/embed`` → (Polish, ``/embed``); a path without a language prefix is unchanged."""
    head, _sep, rest = path.lstrip("/").partition("/")
    lang = BY_SLUG.get(head.lower())
    if lang is None:
        return None, path
    return lang, "/" + rest


@lru_cache(maxsize=1024)
def negotiate(accept_language: str) -> Language:
    """The best of ours for an ``Accept-Language`` header, by its q-values; else English.
    Remembered per header: a browser sends the same one with every request, and Babel's
    matching was most of what the language middleware cost a request."""
    choices: list[tuple[float, int, str]] = []
    for i, part in enumerate(accept_language.split(",")):
        tag, *params = part.strip().split(";")
        q = 1.0
        for name, _eq, value in (p.strip().partition("=") for p in params):
            if name == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if tag.strip() and q > 0:
            choices.append((-q, i, tag.strip().lower().replace("_", "-")))
    found = negotiate_locale([_ours(tag) for _q, _i, tag in sorted(choices)], list(BY_SLUG), sep="-")
    return BY_SLUG.get(found or "", ENGLISH)


def _ours(tag: str) -> str:
    """The slug of ours a language tag names, trying it whole, then without its last
    subtags: ``zh-hant-hk`` → ``zh-hant``, ``zh-tw`` → ``zh-hant``, ``pt-pt`` → ``pt-br``."""
    parts = tag.split("-")
    for n in range(len(parts), 0, -1):
        candidate = "-".join(parts[:n])
        candidate = ALIASES.get(candidate, candidate)
        if candidate in BY_SLUG:
            return candidate
    return tag


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class LanguageMiddleware:
    """Outermost: strips the language prefix before routing and sets the request's language."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        lang, path = split_prefix(scope["path"])
        if lang is not None:
            scope = {**scope, "path": path, "raw_path": path.encode()}
            chosen = RequestLanguage(lang, "/" + lang.slug)
        else:
            header = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"accept-language"), "")
            chosen = RequestLanguage(negotiate(header), "")
        scope.setdefault("state", {})["language"] = chosen

        async def send_with_language(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"content-language", chosen.lang.tag.encode()))
                if not chosen.prefix:  # caches must keep one copy per language asked for
                    headers.append((b"vary", b"Accept-Language"))
                message = {**message, "headers": headers}
            await send(message)

        token = _current.set(chosen)
        try:
            await self.app(scope, receive, send_with_language)
        finally:
            _current.reset(token)


def url(path: str) -> str:
    """A path of this site in the current language (``/game/play`` → ``/it/game/play``)."""
    return current().prefix + path


def install(env: Any) -> None:
    """Give a Jinja environment ``{% trans %}``, ``_()`` and the language helpers."""
    missing = [lang.code for lang in LANGUAGES if lang is not ENGLISH and not catalogue(lang.code).is_file()]
    if missing:
        raise RuntimeError(f"no compiled catalogue for {', '.join(missing)}: run make catalogues")
    env.add_extension("jinja2.ext.i18n")
    env.policies["ext.i18n.trimmed"] = True
    # newstyle: Jinja fills in the placeholders itself and escapes the values
    env.install_gettext_callables(_raw_gettext, _raw_ngettext, newstyle=True)
    env.globals.update(language=current, languages=LANGUAGES, url=url, js_strings=js_strings)
    env.filters.update(num=number_html, signed=signed_html)


def js_strings() -> dict[str, str]:
    """What the page's script says, in the current language (placeholders ``%(name)s``)."""
    return {
        "no_cards": _("No cards on the table."),
        "no_card_n": _("There is no card %(n)s on the table."),
        "suit_led": _("The suit led is %(suit)s."),
        "no_suit_led": _("No suit has been led in this trick."),
        "wait": _("Please wait."),
        "choose_n": _("Choose %(n)s more cards"),
        "choose_1": _("Choose 1 more card"),
        "ready": _("Ready to pass"),
        "copied": _("Copied"),
        "copied_say": _("The embed code is copied."),
        "reconnecting": _("Reconnecting…"),
        "reconnected": _("Connected again."),
        "dealing": _("Shuffling the deck…"),
        # Translators: said when a card is chosen for passing with Space or a tap
        "selected": _("%(card)s chosen, %(n)s of 3."),
        "unselected": _("%(card)s put back."),
        "pass_full": _("You have already chosen three cards. Put one back first."),
        "help": _("Keys: Enter plays the focused card or starts the game. Space chooses a card to pass. "
                  "Left and right arrows jump between suits, up and down arrows move one card, "
                  "Home and End go to the ends of your hand. R reads your hand, C the cards on the table, "
                  "1 to 6 one card each, F the suit led, L the last trick, S the scores, "
                  "T whose turn it is, H this help."),
        "suit_C": _("clubs"), "suit_D": _("diamonds"), "suit_S": _("spades"), "suit_H": _("hearts"),
    }

