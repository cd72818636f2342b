"""The layers of gengap run one way, and no import closes a circle.

Every import in ``src/gengap`` counts, those inside functions and under ``TYPE_CHECKING`` too: a
lazy import that breaks a cycle at run time is still a cycle in the design.

From the bottom up: the *stages* (data, splits, perturbations, models, extraction, metrics, the
store, ...) and the *analysis* (statistics computed from rows); the *runner* (runs models and
stores rows) and the *report* (formats stored rows); the *facade* (:func:`gengap.evaluate`, the
:class:`gengap.Evaluation` that ties running, analysis and reporting together, and what builds on
it); the *cli*. A module imports its own layer or a lower one, never a layer beside it (the runner
never imports the report, nor the report the runner) nor above it. The analysis never imports what
runs models.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
TOP = "gengap"

#: The layer of each module, by the longest matching prefix of its name (everything else: "stages";
#: the package ``gengap`` itself, the public API that re-exports the facade, is the facade's).
LAYERS = {
    "gengap.analysis": "analysis",
    "gengap.runner": "runner",
    "gengap.backends": "runner",
    "gengap.training": "runner",
    "gengap.report": "report",
    "gengap._summary_table": "report",
    "gengap.evaluation": "facade",
    "gengap.retraining": "facade",
    "gengap.run_file": "facade",  # running what a run file (or gengap eval) describes
    "gengap.demo": "facade",
    "gengap.monitor.grokking_demo": "facade",
    "gengap.tasks.sweep": "facade",
    "gengap.view": "facade",  # the viewer: an app over stored runs, reading them with the report's code
    "gengap.cli": "cli",
}
#: Height of each layer: a module imports its own layer or lower ones; of two layers of the same height
#: above the ground (the runner and the report), neither imports the other. On the ground, the stages
#: and the analysis use each other (splits read statistics, statistics read split records).
RANK = {"stages": 0, "analysis": 0, "runner": 1, "report": 1, "facade": 2, "cli": 3}
#: What each layer must never import, whatever its height (prefixes of module names).
NEVER = {"analysis": ("gengap.models", "gengap.learners", "gengap.backends", "gengap.training", "gengap.runner")}


def modules() -> dict[str, Path]:
    out = {}
    for path in (SRC / TOP).rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules of the package it imports (anywhere in its code), resolved to the nearest module."""

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in mods}
    for module, path in mods.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                names = [f"{base}.{a.name}" for a in node.names] + [base]
            else:
                continue
            for name in names:
                target = resolve(name) if name.split(".")[0] == TOP else None
                if target is None or target == module:
                    continue
                # a submodule importing its own package's __init__ is Python importing the package first, not an edge
                # (the top package excepted: importing `gengap` from inside reaches the whole public API)
                if target != TOP and mods[target].name == "__init__.py" and module.startswith(target + "."):
                    continue
                graph[module].add(target)
    return graph


def allowed(source: str, target: str) -> bool:
    """Whether module ``source`` may import module ``target``."""
    a, b = layer(source), layer(target)
    return a == b or RANK[b] < RANK[a] or RANK[a] == RANK[b] == 0


def layer(module: str) -> str:
    if module == TOP:
        return "facade"
    for prefix in sorted(LAYERS, key=len, reverse=True):
        if module == prefix or module.startswith(prefix + "."):
            return LAYERS[prefix]
    return "stages"


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[v] = min(low[v], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return imports(modules())


def test_no_import_closes_a_circle(graph):
    found = circles(graph)
    described = ["; ".join(f"{a} -> {b}" for a in c for b in sorted(graph[a]) if b in c) for c in found]
    assert not found, "Import circles (every import counts, also inside functions):\n" + "\n".join(described)


def test_each_layer_imports_only_its_own_or_a_lower_one(graph):
    wrong = sorted(f"{a} ({layer(a)}) -> {b} ({layer(b)})" for a, targets in graph.items() for b in targets
                   if not allowed(a, b))
    assert not wrong, "Imports against the layers:\n" + "\n".join(wrong)


def test_the_analysis_never_imports_what_runs_models(graph):
    wrong = sorted(f"{a} -> {b}" for a, targets in graph.items() for b in targets
                   if layer(a) in NEVER and b.startswith(NEVER[layer(a)]))
    assert not wrong, "The analysis computes from rows; it must not import:\n" + "\n".join(wrong)


def test_the_checks_see_what_they_look_for():
    """The graph holds imports inside functions, and a circle or a wrong edge is found."""
    graph = imports(modules())
    assert "gengap.evaluation" in graph["gengap.demo"]  # imported inside scan_demo
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert layer("gengap.report._core") == "report" and layer("gengap.runner") == "runner"
    assert layer("gengap.analysis.gaps") == "analysis" and layer("gengap.splits.random") == "stages"
    assert layer("gengap") == "facade" and layer("gengap.cli._eval") == "cli"
    assert not allowed("gengap.report._core", "gengap.runner") and not allowed("gengap.runner", "gengap.report")
    assert not allowed("gengap.analysis.transfer", "gengap.evaluation") and not allowed("gengap.store", "gengap")
    assert allowed("gengap.evaluation", "gengap.report") and allowed("gengap.splits.groups", "gengap.analysis.group_scores")
