"""Screens: cheap tests that tell when a rule's plain definition cannot find anything here.

Every rule module starts with its plain definition, the function a reader checks against the
spec. The work that makes it fast lives in this package, in two kinds:

- a **screen** answers "no" (the definition cannot match here: skip it) or "maybe" (run the
  definition): a keyword or literal every match holds (`keywords`, `literals`, `markup`,
  `secrets`), the class codes every match shows (`classcodes`), a search over many lines at once
  (`lines`), a share of grounded words already known to suffice (`grounding`);
- a **quick form** is a regular expression that finds exactly what the plain one finds, spelled
  so `re` skips to where a match can start (`wordstart`).

The rules call the plain definition wherever a screen says "maybe", so a screen that says
"maybe" too often only costs time; one that says "no" wrongly would hide a finding, which is
what the property test beside each screen (`tests/screens/test_<screen>.py`) rules out against
the plain definition. `switch.maybe_only()` turns every screen to "maybe" and every quick form
back to its plain spelling: the plain definitions alone then give every finding, which
`tests/screens/test_maybe_only.py` compares over the whole test corpus.

What screens compute from a text or an episode (its lowercased, folded text; its class codes)
they keep in their own views (`view`), never on the episode.
"""
