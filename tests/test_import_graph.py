"""The package's modules import one way: no cycle, counting imports inside functions too."""
import ast
from pathlib import Path

import apsp_kernels

ROOT = Path(apsp_kernels.__file__).parent


def module_names() -> dict:
    names = {}
    for path in ROOT.rglob("*.py"):
        parts = ("apsp_kernels",) + path.relative_to(ROOT).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def imports_of(name: str, path: Path, modules: dict) -> set:
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1] if node.level else [])
            mod = ".".join(p for p in (base, node.module or "") if p)
            subs = {f"{mod}.{a.name}" for a in node.names} & modules.keys()
            found |= subs if len(subs) == len(node.names) else subs | {mod}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return (found & modules.keys()) - {name}


def cycles(edges: dict) -> list:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while not comp or comp[-1] != v:
                comp.append(stack.pop())
                on.discard(comp[-1])
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in edges:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles():
    modules = module_names()
    edges = {name: imports_of(name, path, modules) for name, path in modules.items()}
    assert cycles(edges) == []


def test_a_planted_cycle_is_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
