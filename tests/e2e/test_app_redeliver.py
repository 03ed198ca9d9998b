"""The periodic redelivery against the sandbox: failed deliveries (GitHub never retries them) are
asked for again through `POST /app/hook/deliveries/{id}/attempts`, once per GUID, whatever the
number of runs; a GUID that succeeded is left alone."""

from __future__ import annotations

from pathlib import Path

from bot.app.auth import InstallationTokens
from bot.app.config import load_config
from bot.app.redeliver import redeliver_failed
from bot.app.store import Store
from memshelf_sandbox import Sandbox
from memshelf_sandbox.app import App
from tests.app_helpers import rsa_pem
from tests.app_redis import free_port
from tests.app_shelves import seed_repos
from tests.sandbox_fixtures import branch_with

APP_ID = 4848


def test_failed_deliveries_are_redelivered_once(tmp_path: Path) -> None:
    pem = rsa_pem()
    (bare, name), = seed_repos(tmp_path, ["homelab/shelf"])
    app = App.from_private_key(APP_ID, pem.encode(), slug="shelf-app")
    nobody = f"http://127.0.0.1:{free_port()}/webhook"  # nothing listens: every attempt fails
    with Sandbox.start(bare, name, app=app, webhook=(nobody, "s")) as sb:
        writer = "ghp_writer000000000000000000000000000000"
        sb.add_token(writer, "writer", "write", integration=False)
        branch_with(sb, "night-shift/x", {"a.md": "x\n"})
        repo = sb.github(writer).get_repo(name)
        pull = repo.create_pull(title="x", body="", head="night-shift/x", base="main")
        repo.get_issue(pull.number).create_comment("/shelf help")
        assert sb.deliveries.wait_idle(30)
        failed = {d["guid"] for d in sb.deliveries.listing() if d["status_code"] != 200}
        assert len(failed) >= 2
        config = load_config({"MEMSHELF_BOT_APP_ID": str(APP_ID), "MEMSHELF_BOT_PRIVATE_KEY": pem,
                              "MEMSHELF_BOT_WEBHOOK_SECRET": "s"}, sb.api_url)
        store = Store.sqlite(tmp_path / "state.db")
        assert redeliver_failed(InstallationTokens(config), store) == len(failed)
        assert sb.deliveries.wait_idle(30)
        again = [d for d in sb.deliveries.listing() if d["redelivery"]]
        assert {d["guid"] for d in again} == failed
        assert redeliver_failed(InstallationTokens(config), store) == 0  # another run, another process: no twice
        assert sb.validation_errors == []
