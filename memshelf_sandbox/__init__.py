"""The embedded GitHub: a loopback REST + GraphQL + git smart-HTTP server on real bare repositories.

`Sandbox.start(bare, "octo/shelf")` runs one in-process for tests; `memshelf-bot sandbox` runs
one by itself. See `server.py` for the request path, `core.py` and `api.py`/`routes_*.py` for the
repository API, `app.py`/`routes_app.py`/`routes_hooks.py` for GitHub's side of a GitHub App, and
`events.py`/`webhooks.py`/`delivery.py` for the webhooks it delivers.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {"GitStore": "gitstore", "Person": "gitstore", "init_bare": "gitstore", "seed_bare_repo": "gitstore",
            "Sandbox": "sandbox"}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """The exports, imported on first use: `memshelf-bot` loads this package to register its
    commands, and must not pay for the server (and its OpenAPI validator) to print `--help`."""
    if name not in _EXPORTS:
        raise AttributeError(name)
    return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
