"""Screens: cheap tests that tell when a rule's plain definition cannot find anything here.

Every rule module starts with its plain definition, the function a reader checks against the
spec. The work that makes it fast lives in this package, in two kinds:

- a **screen** answers "no" (the definition cannot match here: skip it) or "maybe" (run the
  definition): a keyword or literal every match holds (`keywords`, `literals`, `markup`,
  `secrets`, `markers`), the class codes every match shows (`classcodes`), a search over many
  lines at once (`lines`), all put together for one pattern in `patterns`;
- a **quick form** computes exactly what the plain definition computes, the cheaper way: a
  regular expression spelled so `re` skips to where a match can start (`wordstart`), or tried
  only where one of its opening words occurs (`anchors`), the digest's
  grounding share read only as far as its verdict needs (`grounding`). Its answer is used as it
  is, so its property test must show it equal to the plain definition, not merely a superset.

The rules call the plain definition wherever a screen says "maybe", so a screen that says
"maybe" too often only costs time; one that says "no" wrongly would hide a finding, which is
what the property test of each module (`tests/unit/screens/test_<module>.py`) rules out against the
plain definition. `switch.maybe_only()` turns every screen to "maybe" and every quick form
back to its plain spelling: the plain definitions alone then give every finding, which
`tests/unit/screens/test_maybe_only.py` compares over the whole test corpus.

What screens compute from a text or an episode (its lowercased, folded text; its class codes)
they keep in their own views (`view`), never on the episode.
"""
