"""README's table of the rules options, written from their metadata (engine/rules.py):
``python -m tools.options_table`` rewrites it; a test checks README is up to date."""

from __future__ import annotations

import sys
from pathlib import Path

from engine.rules import RuleOption, Rules, rule_options

README = Path(__file__).resolve().parent.parent / "README.md"
BEGIN = "<!-- options table: python -m tools.options_table -->"
END = "<!-- end of the options table -->"


def _default(o: RuleOption) -> str:
    if o.default is None:
        return "`None`"
    return str(o.default).lower() if o.is_flag else str(o.default)


def _values(o: RuleOption) -> str:
    if o.is_flag:
        return "true, false"
    if o.about.values:
        return ", ".join(map(str, o.about.values))
    return f"{o.minimum}..{o.maximum}" + (", `None`" if o.optional else "")


def table(rules: type[Rules] = Rules) -> str:
    lines = [BEGIN, "| field | default | values | meaning |", "|---|---|---|---|"]
    lines += [f"| `{o.name}` | {_default(o)} | {_values(o)} | {o.about.help} |" for o in rule_options(rules)]
    return "\n".join([*lines, END])


def with_table(text: str, rules: type[Rules] = Rules) -> str:
    """``text`` (README) with the table between its markers replaced by the current one."""
    head, begin, rest = text.partition(BEGIN)
    _old, end, tail = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"README.md lacks the markers {BEGIN!r} … {END!r}")
    return head + table(rules) + tail


def main() -> int:
    README.write_text(with_table(README.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
