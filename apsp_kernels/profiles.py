"""Run profiles: how large each notebook's sweeps are.

* ``smoke``: seconds, for CI and first checks (tiny sizes, CPU parts only where no GPU).
* ``default``: what ``make reproduce`` runs: every table and figure, <= 5 min per notebook on one H100.
* ``paper``: the papers' full sizes.
"""
PROFILES = ("smoke", "default", "paper")


def check(profile: str) -> str:
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}")
    return profile


def choose(profile: str, *, smoke, default, paper=None):
    """The value for ``profile``; ``paper`` falls back to ``default``."""
    return each(profile, smoke=smoke, default=default, paper=default if paper is None else paper)


def each(profile: str, *, smoke, default, paper):
    """The value for ``profile``, None included: ``paper=None`` is None (e.g. no prefix, every
    source), where :func:`choose` would take ``default``'s."""
    return {"smoke": smoke, "default": default, "paper": paper}[check(profile)]
