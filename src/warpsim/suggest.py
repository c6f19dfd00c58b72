"""'Did you mean ...?' for names a user types (GPUs, workloads, --set keys, methods)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def close_matches(word: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """Up to `n` choices close to `word` (case-insensitive; a choice containing it counts too)."""
    choices = list(choices)
    lower = {c.lower(): c for c in choices}
    hits = [lower[m] for m in difflib.get_close_matches(word.lower(), list(lower), n=n, cutoff=0.6)]
    if word and len(hits) < n:
        hits += [c for c in choices if word.lower() in c.lower() and c not in hits][: n - len(hits)]
    return hits


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """' (did you mean X?)', or '' when nothing is close."""
    hits = close_matches(word, choices)
    if not hits:
        return ""
    return f" (did you mean {' or '.join(repr(h) for h in hits)}?)"
