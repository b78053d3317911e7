"""tools/native.py: Hard's hot path compiled with mypyc decides exactly as the interpreted engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools import native


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return native.build(tmp_path_factory.mktemp("native") / "copy")


def test_the_compiled_copy_makes_the_same_choices(compiled: Path) -> None:
    result = native.check(compiled, rounds=1, budget=4000)
    assert result["compiled_loaded"] and result["interpreted_loaded"]  # each side ran what it says
    assert result["decisions"] >= 10
    assert result["same"], f"decisions {result['differ']} differ"


def test_a_copy_is_reused_only_while_the_sources_are_unchanged(compiled: Path) -> None:
    assert native.is_current(compiled)
    built = {p: p.stat().st_mtime_ns for p in native.compiled_files(compiled)}
    native.build(compiled)  # current: nothing compiled again
    assert {p: p.stat().st_mtime_ns for p in native.compiled_files(compiled)} == built
    manifest = compiled / native.MANIFEST
    saved = manifest.read_text()
    try:
        manifest.write_text(json.dumps({"sources": "an older engine"}))
        assert not native.is_current(compiled)  # build would compile it again
    finally:
        manifest.write_text(saved)
    assert native.is_current(compiled)


def test_run_refuses_a_folder_without_compiled_modules(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="were not the ones imported"):
        native.run(tmp_path, ["-c", "print('never')"])


def test_run_starts_the_command_on_the_compiled_copy(compiled: Path, tmp_path: Path) -> None:
    out = tmp_path / "where.txt"
    code = ("import sys, engine.bots.sim as m, engine.bots.hard as h; "
            f"open({str(out)!r}, 'w').write(m.__file__ + '\\n' + h.__file__)")
    assert native.run(compiled, ["-c", code]) == 0
    sim, hard = out.read_text().splitlines()
    assert sim.endswith(".so") and Path(sim).is_relative_to(compiled)
    assert hard.endswith("hard.py") and Path(hard).is_relative_to(compiled)  # the copy's, interpreted
