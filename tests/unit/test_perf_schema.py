"""The schema fast path against jsonschema: a config `schema_subset` calls valid is valid.

`conforms` answers True only when it is sure; anything else goes to jsonschema for the
messages, so the one wrong answer that would hide a finding is a True jsonschema disagrees
with. The configs below are built from the schemas' own keys and from values of every YAML type
near their edges (empty, absolute, `..`, floats that are integers, booleans, dates).
"""

from __future__ import annotations

import datetime as dt
import json

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memshelf_render.schema_subset import conforms
from memshelf_render.shelf import SCHEMA_DIR

PROPERTY = settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
SCHEMAS = {name: json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))
           for name in ("shelf.schema.json", "settings.schema.json")}
_KEYS = sorted({key for schema in SCHEMAS.values() for key in schema["properties"]}
               | {"path", "generated_by", "patterns", "dir", "required", "extra", "Mode"})
_SCALARS = st.one_of(
    st.sampled_from(["", "single", "multi", "0.1", "1.2.3", "v1", "docs", "/abs", "a/../b", "..", "a/b", "x",
                     "docshelf-mcp", "manual", "auto", "never", "POLICY.md", "a..b", "ü"]),
    st.integers(-2, 5000), st.sampled_from([1.0, 1024.0, 2.5, -1.0]), st.booleans(), st.none(),
    st.just(dt.date(2026, 1, 1)))


def _values(depth: int):
    if depth == 0:
        return _SCALARS
    inner = _values(depth - 1)
    return st.one_of(_SCALARS, st.lists(inner, max_size=3),
                     st.dictionaries(st.sampled_from(_KEYS), inner, max_size=4))


SHELF = {"spec_version": "0.1", "mode": "single", "name": "demo", "docs_root": "docs",
         "categories": ["topics", "research", "sessions"], "index": {"path": "INDEX.md", "generated_by": "docshelf-mcp"},
         "ledger": {"path": "ledger.tsv"}, "policy": {"path": "POLICY.md", "patterns": "POLICY.patterns"}}
SETTINGS = {"badge": True, "allow_paths": ["notes/*"], "max_episode_bytes": 2048, "comment": "auto"}
_CHANGES = st.dictionaries(st.sampled_from(_KEYS), _values(2), max_size=2)
_CONFIGS = st.one_of(
    st.dictionaries(st.sampled_from(_KEYS), _values(2), max_size=8), _values(1),
    st.builds(lambda base, changes, dropped: {k: v for k, v in {**base, **changes}.items() if k not in dropped},
              st.sampled_from([SHELF, SETTINGS, {}]), _CHANGES, st.sets(st.sampled_from(_KEYS), max_size=2)))


def _errors(data, schema) -> list[str]:
    return [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(data)]


@PROPERTY
@given(_CONFIGS, st.sampled_from(sorted(SCHEMAS)))
def test_what_the_fast_path_calls_valid_jsonschema_calls_valid(data, name):
    if conforms(data, SCHEMAS[name]):
        assert _errors(data, SCHEMAS[name]) == []


def test_common_configs_take_the_fast_path():
    shelf, settings_ = SHELF, SETTINGS
    assert conforms(shelf, SCHEMAS["shelf.schema.json"])
    assert conforms(settings_, SCHEMAS["settings.schema.json"]) and conforms({}, SCHEMAS["settings.schema.json"])
    for bad in ({**shelf, "docs_root": "/abs"}, {**shelf, "categories": ["a", "a"]}, {"mode": "single"},
                {**shelf, "index": {"path": "x/../../y"}}, {**shelf, "extra": 1}):
        assert not conforms(bad, SCHEMAS["shelf.schema.json"]) and _errors(bad, SCHEMAS["shelf.schema.json"])
