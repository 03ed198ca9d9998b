"""Keyword gates of the instruction patterns (`rules.content.INSTRUCTIONS`).

Each gate is a tuple of keyword groups: the pattern can only match when, for every group, one of
its lowercase keywords occurs in the text (lowercased and, where it holds a letter IGNORECASE
takes for another, folded: `casing`). A later group's keywords are looked for only when the first
group passes, so the first group is the cheapest: the `<` of `<|` (one character, a memchr), the
`now` three patterns need before `you`/`from`. Clean text costs a few substring checks.
"""

from __future__ import annotations

from . import switch

# pattern name (as in `rules.content.INSTRUCTIONS`) -> keyword groups
GATES: dict[str, tuple[tuple[str, ...], ...]] = {
    "ignore-previous": (("ignore", "disregard", "forget", "override", "bypass"),),
    "you-must-now": (("now",), ("you",)),
    "from-now-on": (("now",), ("from",)),
    "you-are-now": (("now",), ("you",)),
    "new-instructions": (("instructions",),),
    "reveal-prompt": (("prompt",),),
    "do-not-tell": (("user",), ("tell", "inform", "alert")),
    "role-tag": (("<",),),
    "chat-token": (("<",), ("<|",)),
    "inst-tag": (("inst]", "<<"),),
    "ignore-previous-ru": (("игнор", "забуд", "отброс"),),
    "you-must-ru": (("теперь",),),
}
_GROUPS = {name: tuple(frozenset(group) for group in gate) for name, gate in GATES.items()}
_FIRST = {k for gate in GATES.values() for k in gate[0]}  # looked for in every text
# a first group's keyword -> the later groups' keywords of its gates, looked for only when it occurs
_UNLOCKS = {k: frozenset(x for g in GATES.values() if k in g[0] for group in g[1:] for x in group) for k in _FIRST}
_UNLOCKS = {k: later for k, later in _UNLOCKS.items() if later}
_ASCII_FIRST = tuple(sorted(k for k in _FIRST if k.isascii()))
_OTHER_FIRST = tuple(sorted(k for k in _FIRST if not k.isascii()))


def keywords_in(lower: str) -> set[str]:
    """The gate keywords in `lower` that decide the gates: every keyword of a gate's first group,
    the later groups' only when the first group passed (the non-ASCII keywords only when the text
    is not ASCII). A gate passes on this set exactly when it passes on all the keywords the text
    holds, for a few checks fewer."""
    present = {k for k in _ASCII_FIRST if k in lower}
    if not lower.isascii():
        present.update(k for k in _OTHER_FIRST if k in lower)
    for key in present & _UNLOCKS.keys():
        present.update(k for k in _UNLOCKS[key] if k in lower)
    return present


def may_match(lower: str) -> set[str] | None:
    """The names of the patterns that may match a text whose `casing.screen_lower` is `lower`
    (None: all of them, under `switch.maybe_only`)."""
    if switch.MAYBE_ONLY:
        return None
    present = keywords_in(lower)
    if not present:
        return set()
    return {name for name, gate in _GROUPS.items() if all(group & present for group in gate)}
