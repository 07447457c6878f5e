"""fast: the project's own fast paths, beside the papers' kernels (which stay as published).

Each method names the paper whose algorithm it speeds up; its docstring names the figure.
"""
from ..registry import Method

PAPER = {
    "key": "fast",
    "title": "apsp_kernels fast paths: the papers' algorithms tuned to the hardware limit",
    "authors": "apsp_kernels contributors",
    "file": "",
}

METHODS: list[Method] = []
