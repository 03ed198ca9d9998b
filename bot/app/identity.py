"""The App's own identity on GitHub, `<slug>[bot]`, learned from `GET /app` on the first job
(serve calls nothing on GitHub before that) and kept in the shared store for every process."""

from __future__ import annotations

from collections.abc import Callable

from .store import Store

SLUG_KEY = "app-slug"


def bot_login(slug: str) -> str:
    return f"{slug}[bot]"


def app_login(store: Store, fetch_slug: Callable[[], str]) -> str:
    slug = store.get_value(SLUG_KEY)
    if slug is None:
        slug = fetch_slug()
        store.set_value(SLUG_KEY, slug)
    return bot_login(slug)


def caused_by_app(sender: str, login: str) -> bool:
    """Only the App's own events are ignored; other bots are users like any other."""
    return sender.lower() == login.lower()
