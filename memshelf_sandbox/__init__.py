"""The embedded GitHub: a loopback REST + GraphQL + git smart-HTTP server on a real bare repository.

`Sandbox.start(bare, "octo/shelf")` runs one in-process for tests; `memshelf-bot sandbox` runs
one by itself. See `server.py` for the request path and `api.py`/`routes_*.py` for the API.
"""

from .gitstore import GitStore, Person, init_bare, seed_bare_repo
from .sandbox import Sandbox

__all__ = ["GitStore", "Person", "Sandbox", "init_bare", "seed_bare_repo"]
