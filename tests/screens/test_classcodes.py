"""Class codes (`screens.classcodes`): a text whose codes lack a rule's run holds no match of it."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memshelf_render.screens.classcodes import class_run, codes

PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


_SHAPED = (r"\b[A-Z]{2}[0-9]{2}[A-Z0-9]{1,3}\b", r"^A[0-9]+-B$", r"x[0-9]{2,}y-", r"[0-9]{3}-?[0-9]", r"Z[0-9]{1,2}_[a-z]{2}9",
           r"(?:ab)[0-9]{3}", r"\bA9{2,3}b", r"[A-Z]{2,}0[a-b]{2}", r"[0-9][0-9]?[0-9]{2}-", r"é?A[0-9]{3}", r"\B_A[09]{3}\b")


@PROPERTY
@given(st.sampled_from(_SHAPED), st.text(alphabet="aAbZxy019-_ é\n", max_size=40))
def test_a_text_without_a_rules_class_codes_holds_no_match(pattern, text):
    regex = re.compile(pattern)
    shape = class_run(regex)
    assert shape is not None
    if any(regex.search(line) for line in text.split("\n")):
        assert shape in codes(text), (pattern, text, shape)
