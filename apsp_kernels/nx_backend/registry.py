"""Which NetworkX functions the backend implements, and what each declines.

``implements(check)`` registers a function under its own name; ``check(arguments)`` (the
call's arguments bound to the signature, defaults applied) returns True or the reason the
backend declines the call, so that :meth:`BackendInterface.can_run` hands it back to NetworkX.
"""
from __future__ import annotations

import inspect

FUNCTIONS = {}  # name -> the implementation
CHECKS = {}  # name -> check(arguments) -> True | str


def implements(check=None):
    def register(func):
        FUNCTIONS[func.__name__] = func
        if check is not None:
            CHECKS[func.__name__] = check
        return func
    return register


def bind(name, args, kwargs) -> dict | str:
    """The arguments by parameter name, or why they do not fit the signature."""
    try:
        bound = inspect.signature(FUNCTIONS[name]).bind(*args, **kwargs)
    except TypeError as exc:
        return f"arguments apsp_kernels does not take: {exc}"
    bound.apply_defaults()
    return bound.arguments


# ----------------------------------------------------------------------------- common checks
def dijkstra_weights(arguments) -> bool:
    """Whether the call's search is Dijkstra's (its weights must then be non-negative)."""
    method = arguments.get("method", "dijkstra")
    return arguments.get("weight") is not None and method in (None, "dijkstra")


def no_heuristic(arguments):
    return True if arguments.get("heuristic") is None else \
        "a heuristic runs in NetworkX (its A* visits nodes in an order the backend cannot follow)"
