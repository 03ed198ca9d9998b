"""Escaping for the channels the bot writes to: one function per channel, used by every front-end.

Everything a pull request or a shelf carries (file names, ids, titles, YAML values) is hostile:
on the way out it is escaped for where it goes, so it can never start a workflow command on a
log line, break out of an annotation property, or move a terminal's cursor.

- `workflow_data` / `workflow_property`: the message and the properties (`file=`, `title=`) of a
  GitHub workflow command, as the runner decodes them.
- `log_line`: one plain line of a GitHub Actions log: no line break, and it never starts with
  `::` (the runner would read it as a command) nor carries a control character.
- `terminal`: text for a terminal or a text report: C0/C1 controls, ESC, DEL, bidirectional
  overrides and lone surrogates (undecodable file-name bytes) shown as visible escapes.
- `json_text`: a JSON document as `json.dumps(..., ensure_ascii=False)` wrote it, with the
  characters `terminal` would escape written as `\\uXXXX` escapes instead (the same JSON value,
  so machines read it unchanged; a terminal showing it is not driven by it).
"""

from __future__ import annotations

import re

# C0 controls except TAB, DEL, C1 controls, bidi embeddings/overrides/isolates, the BOM, line and
# paragraph separators, and lone surrogates (how undecodable file-name bytes arrive).
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
                     "\u2028\u2029\ufeff\ud800-\udfff]")


def _visible(m: re.Match[str]) -> str:
    ch = m.group(0)
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def terminal(text: str) -> str:
    """`text` with every control character, bidi override and lone surrogate shown as an escape."""
    return _UNSAFE.sub(_visible, text)


def multiline_terminal(text: str) -> str:
    """Like `terminal`, but line breaks stay line breaks (for text blocks the bot composed)."""
    return "\n".join(terminal(line) for line in text.split("\n"))


def workflow_data(text: str) -> str:
    """The message part of a workflow command (`::error ...::<data>`)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def workflow_property(text: str) -> str:
    """A property value of a workflow command (`file=`, `title=`)."""
    return workflow_data(text).replace(":", "%3A").replace(",", "%2C")


def log_line(text: str) -> str:
    """One plain log line: visible control characters (line breaks included), and a leading
    `::` defused, so the runner never reads it as a workflow command."""
    line = terminal(text)
    body = line.lstrip()
    if body.startswith("::"):  # the runner trims leading whitespace before it looks for `::`
        return line[: len(line) - len(body)] + "\\x3a" + body[1:]
    return line


def _json_escape(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group(0)):04x}"


# What `json.dumps(..., ensure_ascii=False)` leaves raw of `_UNSAFE` (it escapes C0 itself; line
# breaks outside strings are the document's own layout).
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
                             "\u2028\u2029\ufeff\ud800-\udfff]")


def json_text(document: str) -> str:
    """A JSON document with every unsafe character (see `terminal`) as a `\\uXXXX` escape. Such
    characters occur only inside JSON strings, where the escape denotes the same character."""
    return _UNSAFE_IN_JSON.sub(_json_escape, document)
