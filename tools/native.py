"""Hard's hot path compiled with mypyc, for the arena and benchmarks (opt-in).

Most of a Hard decision's CPU goes to its tree and rollouts: the careful player's card
(``policy.choose_card``), playing it (``sim.SimRound.play``), the imagined opponents' habits
(``rollouts``), the tree's loop (``tree``) and the deal sampler.  mypyc (part of mypy, which
the project's lint already installs) compiles those typed modules to C extensions; the
decisions stay the same card for card (the same code and the same random draws; ``check``
compares them), in about half the CPU (docs/benchmarks.md).  The arena runs of issue 14 spend
most of their time in Hard, so a compiled copy runs more paired deals in a session.

The app and the test suite import the pure-Python engine as always: a compiled copy lives in
a folder of its own (``.native/`` by default, not in git), built from a copy of ``engine/``
and reused while the sources are unchanged (a hash of every engine file, the Python and the
mypy versions), and only a command started through this tool imports it.

    python -m tools.native build                       # compile (or reuse) .native/
    python -m tools.native run -m engine.arena --seats hard,ismcts,ismcts,ismcts ...
    python -m tools.native check                       # same choices? CPU side by side

``run`` starts Python with ``-P`` (the working folder is not put first on the path, so
``engine`` is the compiled copy's) and the copy, then this checkout, on ``PYTHONPATH``;
it refuses to start unless the compiled modules are the ones imported.  Building needs a C
compiler (gcc) and the Python headers.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.metadata
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODULES = ("sim", "policy", "sampling", "shooter", "passinfo", "rollouts", "tree")
"""The modules of ``engine/bots`` compiled: the hot path of a Hard decision.  ``hard`` and
``hardis`` stay interpreted (their bot classes derive from ``BaseBot``, which mypyc would have
to compile too), and so does ``engine/cards.py`` (``Card`` derives from ``int``); they call into
these."""
MANIFEST = "manifest.json"


def source_hash() -> str:
    """What a compiled copy depends on: every file of ``engine/``, this Python, this mypy."""
    h = hashlib.sha256()
    h.update(sys.version.encode())
    h.update(importlib.metadata.version("mypy").encode())
    for path in sorted((ROOT / "engine").rglob("*.py")):
        h.update(str(path.relative_to(ROOT)).encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def compiled_files(dest: Path) -> list[Path]:
    return [p for name in MODULES for p in (dest / "engine" / "bots").glob(f"{name}.*.so")]


def is_current(dest: Path, sources: str | None = None) -> bool:
    """Is ``dest`` a finished compiled copy of today's sources (``sources``: their
    :func:`source_hash`, when already known)?"""
    try:
        manifest = json.loads((dest / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    return (manifest.get("sources") == (sources or source_hash())
            and len(compiled_files(dest)) == len(MODULES))


def build(dest: Path, quiet: bool = True) -> Path:
    """Compile a copy of ``engine/`` into ``dest`` (nothing to do while it is current)."""
    sources = source_hash()
    if is_current(dest, sources):
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    shutil.copytree(ROOT / "engine", dest / "engine", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")  # mypy's settings
    files = [f"engine/bots/{name}.py" for name in MODULES]
    done = subprocess.run([sys.executable, "-m", "mypyc", *files], cwd=dest, capture_output=quiet, text=True)
    if done.returncode:
        raise RuntimeError(f"mypyc failed (exit {done.returncode}):\n{done.stdout or ''}{done.stderr or ''}")
    shutil.rmtree(dest / "build", ignore_errors=True)
    made = len(compiled_files(dest))
    if made != len(MODULES):
        raise RuntimeError(f"mypyc left {made} of {len(MODULES)} compiled modules in {dest}")
    (dest / MANIFEST).write_text(json.dumps({"sources": sources, "modules": list(MODULES)}) + "\n")
    return dest


def environment(dest: Path) -> dict[str, str]:
    """The environment of a command that imports the compiled copy first, this checkout after."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(dest), str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def loaded_natively() -> bool:
    """Are this process's compiled modules the C extensions (not their ``.py`` sources)?"""
    return all(str(importlib.import_module(f"engine.bots.{name}").__file__).endswith(".so") for name in MODULES)


def run(dest: Path, args: list[str]) -> int:
    """Run ``python -P ARGS`` on the compiled copy; its exit status."""
    probe = [sys.executable, "-P", "-c", "import sys; from tools.native import loaded_natively; "
             "sys.exit(0 if loaded_natively() else 1)"]
    if subprocess.run(probe, env=environment(dest)).returncode:
        raise RuntimeError(f"the compiled modules in {dest} were not the ones imported")
    return subprocess.run([sys.executable, "-P", *args], env=environment(dest)).returncode


# ---- the check: the same decisions, compiled and interpreted ---------------------------------


def decisions(rounds: int, budget: int) -> dict[str, Any]:
    """Hard's choices at seat 0 (every pass and every play with a choice) in ``rounds`` rounds
    played by Medium, each decided with its own seeded generator, and the CPU they took."""
    from engine import Game, Rules
    from engine.bots.hardis import HardISBot
    from engine.bots.medium import MediumBot
    from engine.moves import Move
    from engine.referee import computer_turns
    from engine.values import Phase
    from engine.view import PlayerView

    views: list[PlayerView] = []

    class Recording(MediumBot):
        def decide(self, view: PlayerView, rng: random.Random) -> Move:
            if view.seat == 0 and (view.phase is Phase.PASS or len(view.legal) > 1):
                views.append(view)
            return super().decide(view, rng)

    medium = Recording()
    for r in range(rounds):
        for _ in computer_turns(Game(Rules(), seed=f"native {r}"), medium):
            pass
    bot = HardISBot(is_budget=budget, pass_budget=budget)
    start = time.process_time()
    choices = [str(bot.decide(view, random.Random(i))) for i, view in enumerate(views)]
    return {"choices": choices, "cpu": time.process_time() - start, "native": loaded_natively()}


def check(dest: Path, rounds: int, budget: int) -> dict[str, Any]:
    """The same decisions interpreted (in a child process without the copy) and compiled:
    whether every choice agrees, and the CPU seconds of each, side by side."""
    code = ("import json, sys; from tools.native import decisions; "
            f"print(json.dumps(decisions({rounds}, {budget})))")
    pure_env = dict(os.environ)
    pure_env["PYTHONPATH"] = str(ROOT)
    out: dict[str, Any] = {}
    for label, env in (("interpreted", pure_env), ("compiled", environment(dest))):
        done = subprocess.run([sys.executable, "-P", "-c", code], env=env, capture_output=True, text=True, check=True)
        out[label] = json.loads(done.stdout.strip().splitlines()[-1])
    a, b = out["interpreted"], out["compiled"]
    return {"decisions": len(a["choices"]), "same": a["choices"] == b["choices"],
            "differ": [i for i, (x, y) in enumerate(zip(a["choices"], b["choices"], strict=True)) if x != y],
            "interpreted_cpu": round(a["cpu"], 3), "compiled_cpu": round(b["cpu"], 3),
            "speedup": round(a["cpu"] / b["cpu"], 2) if b["cpu"] else None,
            "compiled_loaded": b["native"], "interpreted_loaded": not a["native"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.native", description=__doc__.split("\n")[0])
    ap.add_argument("--dir", type=Path, default=ROOT / ".native", help="the compiled copy's folder (default .native)")
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("build", help="compile a copy of engine/ (reused while the sources are unchanged)")
    sub.add_parser("run", help="run a Python command on the compiled copy: run -m engine.arena ...")
    c = sub.add_parser("check", help="Hard's choices interpreted and compiled, and the CPU of each")
    c.add_argument("--rounds", type=int, default=4)
    c.add_argument("--budget", type=int, default=108000, help="Hard's budget per decision (simulated card plays)")
    argv = sys.argv[1:] if argv is None else argv
    rest: list[str] = []
    if "run" in argv:  # everything after it is the command's own (argparse would read its options)
        i = argv.index("run")
        argv, rest = argv[:i + 1], argv[i + 1:]
    args = ap.parse_args(argv)
    dest = build(args.dir.resolve())
    if args.command == "build":
        print(f"{dest}: {len(MODULES)} modules compiled for today's sources")
        return 0
    if args.command == "run":
        if not rest:
            ap.error("run needs a command: run -m engine.arena ...")
        return run(dest, rest)
    result = check(dest, args.rounds, args.budget)
    print(json.dumps(result))
    return 0 if result["same"] else 1


if __name__ == "__main__":
    sys.exit(main())
