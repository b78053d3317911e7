"""No import cycles in the project's own packages (function-level imports count too)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "app", "tools")


def _sources() -> dict[str, tuple[bool, str]]:
    """Module name -> (is a package, source text)."""
    mods = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            is_pkg = parts[-1] == "__init__"
            mods[".".join(parts[:-1] if is_pkg else parts)] = (is_pkg, path.read_text())
    return mods


def _graph(mods: dict[str, tuple[bool, str]]) -> dict[str, set[str]]:
    graph = {}
    for name, (is_pkg, source) in mods.items():
        package = name if is_pkg else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                # "from . import events" imports the submodule, not the package's __init__
                found |= {f"{target}.{a.name}" if f"{target}.{a.name}" in mods else target for a in node.names}
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
        graph[name] = {m for m in found if m in mods and m != name}
    return graph


def _in_cycles(graph: dict[str, set[str]]) -> list[str]:
    def reach(start: str) -> set[str]:
        seen: set[str] = set()
        todo = list(graph[start])
        while todo:
            m = todo.pop()
            if m not in seen:
                seen.add(m)
                todo.extend(graph[m])
        return seen

    return sorted(name for name in graph if name in reach(name))


def test_no_module_imports_itself_back() -> None:
    graph = _graph(_sources())
    assert "engine.state" in graph["engine.referee"]  # the walk resolves relative imports
    assert _in_cycles(graph) == []


def test_a_cycle_through_a_function_level_import_is_found() -> None:
    """The shape the services <-> thinking pair had: one side imported the other inside a function."""
    mods = {
        "app": (True, ""),
        "app.services": (False, "from .thinking import POOLED\n"),
        "app.thinking": (False, "def think():\n    from .services import run_bots\n"),
        "app.models": (False, "from . import services\n"),
    }
    assert _in_cycles(_graph(mods)) == ["app.services", "app.thinking"]


def _layer(module: str) -> str:
    if module == "app.main":
        return "main"
    if module.startswith("app.routers."):
        return "router"
    return module.split(".")[0] if not module.startswith("app") else "app"


ALLOWED = {
    # docs/architecture.md: each layer imports only the layers below it
    "engine": {"engine"},
    "app": {"engine", "app"},
    "router": {"engine", "app"},  # a router never imports another router
    "main": {"engine", "app", "router"},
    "tools": {"engine", "app", "tools", "main"},
}


def _crossings(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{name} -> {dep}" for name, deps in graph.items() for dep in deps
                  if _layer(dep) not in ALLOWED[_layer(name)] and dep != "app.routers")


def test_each_layer_imports_only_the_layers_below_it() -> None:
    graph = _graph(_sources())
    assert _crossings(graph) == []
    assert "app.routers.api" not in graph["app.routers.pages"]  # the pages once borrowed the API's errors


def test_a_service_importing_a_router_is_caught() -> None:
    mods = {"app": (True, ""), "app.routers": (True, ""), "app.services": (False, "from .routers import pages\n"),
            "app.routers.pages": (False, "from .. import services\nfrom . import api\n"),
            "app.routers.api": (False, "")}
    assert _crossings(_graph(mods)) == ["app.routers.pages -> app.routers.api", "app.services -> app.routers.pages"]
