"""The game options as the app takes them: request models and the form's fields, all built
from the :class:`~engine.rules.Option` of each field of :class:`~engine.rules.Rules`.

A new option is one field in ``engine/rules.py``; the API's ``GameOptions``, the page's
form (parsing and fields), the rules line beside the table and the arena's flags follow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import BaseModel, BeforeValidator, Field, create_model

from engine.rules import RuleOption, Rules, rule_options

from .i18n import gettext, ngettext


def _whole(value: Any) -> Any:
    # JSON Schema's "integer" includes 481.0: take a whole float as the integer it is; a
    # fraction, a string or a boolean still fails strict parsing
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _blank_is_none(value: Any) -> Any:
    # a form's empty number field ("  " too) is the option's "none" (no limit)
    return None if isinstance(value, str) and not value.strip() else value


Whole = Annotated[int, BeforeValidator(_whole)]
"""An integer in JSON: 481.0 is 481; "481", true and 481.5 are refused."""


class OptionsBase(BaseModel):
    """A request that deals a game: its own fields, and the rules' fields that
    :func:`options_model` adds."""

    rules_class: ClassVar[type[Rules]] = Rules

    def rules(self) -> Rules:
        """The rules asked for (:class:`~engine.rules.RulesError` when the engine refuses them)."""
        cls = self.rules_class
        return cls(**{o.name: getattr(self, o.name) for o in rule_options(cls)})


Model = TypeVar("Model", bound=OptionsBase)


def _field(o: RuleOption, form: bool) -> tuple[Any, Any]:
    # the bounds are stated in the schema and checked by Rules itself, so a form and a
    # JSON body get the engine's one sentence for an option out of range
    schema: dict[str, Any] = {"minimum": o.minimum, "maximum": o.maximum}
    if o.kind is bool:
        # an unticked checkbox is not sent at all: absent means off in a form
        return bool, Field(False if form else o.default, description=o.about.help)
    kind: Any = int if form else Whole
    if o.optional:
        kind = Annotated[kind | None, BeforeValidator(_blank_is_none)] if form else kind | None
    return kind, Field(o.default, description=o.about.help, json_schema_extra=schema)


def options_model(base: type[Model], rules: type[Rules] = Rules, *, form: bool = False,
                  name: str | None = None) -> type[Model]:
    """``base`` with a field per option of ``rules``.  A form model parses text leniently
    ("4", "on") and reads an absent checkbox as off; a JSON model is strict."""
    fields: dict[str, Any] = {o.name: _field(o, form) for o in rule_options(rules)}
    model = create_model(name or base.__name__, __base__=base, **fields)
    model.rules_class = rules
    return model


def with_rule_options(*, form: bool = False) -> Callable[[type[Model]], type[Model]]:
    """A class decorator: the class, under its own name, with a field per option of the
    rules (:func:`options_model`); the code reads them through :meth:`OptionsBase.rules`."""
    def add(base: type[Model]) -> type[Model]:
        return options_model(base, form=form)
    return add


def rules_lines(rules: Rules) -> list[str]:
    """The rules line in the current language (``Rules.describe`` says it in English)."""
    return rules.describe(gettext, ngettext)


def option_choices(rules: Rules, difficulty: str) -> dict[str, Any]:
    """The new-game dialog's fields, set as the player's latest game was: a player who
    likes six players and Omnibus should not have to choose them again every time."""
    return {"difficulty": difficulty, "rules": rules, "options": rule_options(type(rules))}
