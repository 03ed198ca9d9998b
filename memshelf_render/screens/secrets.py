"""The secret pre-screen: a text that fails it cannot match any built-in credential shape.

It passes exactly the texts that hold `AKIA`, `squ_`, `PRIVATE KEY`, `github_pat_`, `xox`, `eyJ`,
`gh[pousr]_`, `bearer` and white space in any case, or an env assignment's keyword
(`env_assignment`). Each literal is looked for as cheaply as `str` and `re` allow (a scan of the
text for a literal of several letters costs ~1.5 ns a character; `re` skips to one literal
character in C, `in` with a rare character is a memchr): the sonar and GitHub tokens at their
`_`, slack's `xox` at its `x`, `bearer` at its `b`, and an env assignment from its `=`, backwards,
in the reversed text (so the search starts at the one literal character every match holds). What
a shape never matches is left out where it is cheap to tell: `bearer` not followed by white space
(the shape's `\\s+`), and an `=` right before a mask, `KEY=«redacted:env-secret»` (the shape's
look-ahead), the way a shelf holds the secrets it had masked.
"""

from __future__ import annotations

import re
import string

from ..masks import MASK_OPEN
from . import switch
from .casing import lowered_forms
from .view import Screened

ENV_HINTS = ("token", "secret", "passw", "pwd", "apikey", "api_key", "api-key", "accesskey", "access_key", "access-key")
_UNDERSCORED = re.compile(r"_(?:(?<=squ_)|(?<=gh[pousr]_)|(?<=github_pat_))")
_XOX = re.compile(r"x(?=ox)")
_BEARER = re.compile(r"b(?=earer\s)")


def _reversed_lowered(word: str) -> str:
    """A pattern for `word` in the reversed lowercased text, wherever IGNORECASE matched it in the
    text: each letter as any of its lowered forms (`casing.lowered_forms`), these reversed too."""
    def letter(forms: tuple[str, ...]) -> str:
        return re.escape(forms[0]) if len(forms) == 1 else "(?:" + "|".join(re.escape(f[::-1]) for f in forms) + ")"

    return "".join(letter(lowered_forms(char)) for char in reversed(word))


# the env rule's identifier characters ([A-Za-z0-9_] under IGNORECASE) once lowercased, and `-`
_IDENTIFIER_LOWERED = "a-z0-9_\\-" + "".join(sorted({c for x in string.ascii_lowercase
                                                      for form in lowered_forms(x)[1:] for c in form}))
# `=`, then (looking back from after it, so the search still skips from one `=` to the next) no mask
_NOT_MASKED = "".join(rf"(?<!{re.escape((quote + MASK_OPEN.lower())[::-1])}=)" for quote in ("", '"', "'"))
_ENV_REVERSED = re.compile(rf"={_NOT_MASKED}\s*[{_IDENTIFIER_LOWERED}]*?(?:"
                           + "|".join(map(_reversed_lowered, ENV_HINTS)) + ")")


def env_assignment(lower: str) -> bool:
    """Some env-secret keyword, then identifier characters, then '=' with no mask right after it
    (a superset of the shape, whose IGNORECASE also takes `ſ` for `s` and `ı`/`İ` for `i`)."""
    return "=" in lower and _ENV_REVERSED.search(lower[::-1]) is not None


def may_hold_secret(view: Screened) -> bool:
    """False when no built-in shape can match the text; "maybe" (True) otherwise."""
    if switch.MAYBE_ONLY:
        return True
    text = view.text
    if (("K" in text and ("AKIA" in text or "PRIVATE KEY" in text)) or ("J" in text and "eyJ" in text)
            or _UNDERSCORED.search(text) or _XOX.search(text)):
        return True
    lower = view.lower
    return _BEARER.search(lower) is not None or env_assignment(lower)
