"""English is the source language: its catalogue says every message as written
(``make messages`` runs this after ``pybabel update``, which leaves new messages empty)."""

from __future__ import annotations

import sys

from babel.messages.pofile import read_po, write_po

from app.i18n import DOMAIN, ENGLISH, LOCALES


def main() -> int:
    path = LOCALES / ENGLISH.code / "LC_MESSAGES" / f"{DOMAIN}.po"
    with path.open("rb") as f:
        catalog = read_po(f, locale=ENGLISH.code)
    for message in catalog:
        if message.id:
            message.string = message.id
    with path.open("wb") as f:
        write_po(f, catalog, width=100, include_lineno=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
