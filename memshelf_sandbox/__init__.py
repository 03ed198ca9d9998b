"""The embedded GitHub: a loopback REST + GraphQL + git smart-HTTP server on real bare repositories.

`Sandbox.start(bare, "octo/shelf")` runs one in-process for tests; `memshelf-bot sandbox` runs
one by itself. See `server.py` for the request path, `core.py` and `api.py`/`routes_*.py` for the
repository API, `app.py`/`routes_app.py`/`routes_hooks.py` for GitHub's side of a GitHub App, and
`events.py`/`webhooks.py`/`delivery.py` for the webhooks it delivers.
"""

from .gitstore import GitStore, Person, init_bare, seed_bare_repo
from .sandbox import Sandbox

__all__ = ["GitStore", "Person", "Sandbox", "init_bare", "seed_bare_repo"]
