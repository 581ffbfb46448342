"""Teaching a table its set in a real browser on the demo source (issue 81): from the table
page to "Teach this set", a new profile, a roll read, one die tapped and corrected, confirmed
(the correction is what the profile keeps on disk), a second roll confirmed as read, the
held-out score shown, a photo taken back, and the table page showing the profile.

Skipped without ``/usr/bin/chromium`` or the reader's model files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser_support import tap_object
from web.live_bench import ServeProcess, TablePage
from web.live_bench import testid_value as face_id

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("reader_models")]

PLAYERS = ["Wanjin", "Saewoon"]
READ_ATTEMPTS = 5
LIARS_FACES = ("wheel", "2", "3", "4", "5", "6")


def read_roll(page: Any) -> None:
    """Click "Roll, then read" until the page shows the photo read (the demo's dice may
    still be rolling when the wait ends)."""
    for _ in range(READ_ATTEMPTS):
        page.click("[data-testid=teach-read]")
        page.wait_for_selector("[data-testid=teach-wait]", state="hidden")
        if page.is_visible("[data-testid=teach-image]"):
            return
    pytest.fail("the teaching read showed no photo: " + (page.text_content("[data-testid=error]") or ""))


def photos_taught(page: Any, n: int) -> None:
    page.wait_for_function("n => document.querySelector('[data-testid=teach-photos]').textContent.startsWith(n + ' ')",
                           arg=n)


def test_teach_the_demo_set_in_the_browser(browser: Any, tmp_path: Path) -> None:
    with ServeProcess(tmp_path / "data", source="demo") as server:
        server.wait_camera_online()
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            page = context.new_page()
            table = TablePage(page, server.url, timeout_s=90)
            tid = table.create_table(PLAYERS)
            page.wait_for_selector("[data-testid=teach-card-profile]:has-text('profile')")
            page.click("[data-testid=teach-link]")
            page.wait_for_url(f"**/t/{tid}/teach")
            page.fill("[data-testid=profile-name]", "Demo set")
            page.click("[data-testid=profile-create]")
            photos_taught(page, 0)
            assert page.get_attribute("[data-testid=teach-ready]", "data-ready") == "false"
            pid = server.get_json(f"/api/tables/{tid}/teaching")["profile"]["id"]

            read_roll(page)
            pending = server.get_json(f"/api/tables/{tid}/teaching")["pending"]
            assert len(server.demo()["truth"]) == 10  # the roll asked for: every die of the table
            assert len(pending["objects"]) >= 8, pending["objects"]
            was = pending["objects"][0]["face"]
            wanted = next(f for f in LIARS_FACES if f != was)
            tap_object(page, 0)
            page.click(f"[data-testid=editor-face-{face_id(wanted)}]")
            page.click("[data-testid=editor-save]")
            assert "fixed" in (page.get_attribute("[data-testid=object-outline-0]", "class") or "")
            page.click("[data-testid=teach-confirm]")
            photos_taught(page, 1)
            lines = (tmp_path / "data" / "profiles" / pid / "labels.jsonl").read_text(encoding="utf-8").splitlines()
            kept = json.loads(lines[0])["objects"]
            assert kept[0]["face"] == wanted and kept[0]["box"] == pending["objects"][0]["box"]

            read_roll(page)
            page.click("[data-testid=teach-confirm]")
            photos_taught(page, 2)
            page.wait_for_function("() => document.querySelector('[data-testid=teach-held-out]').textContent.includes('%')",
                                   timeout=180_000)
            assert page.get_attribute("[data-testid=teach-ready]", "data-ready") == "false"  # 2 photos, not 10

            undo = page.query_selector_all("[data-testid^=taught-undo-]")
            assert len(undo) == 2
            undo[0].click()
            photos_taught(page, 1)

            page.click("[data-testid=teach-back]")
            page.wait_for_selector("[data-testid=teach-card-profile]:has-text('Demo set')")
            assert page.is_checked("[data-testid=teach-card-learn]")
        finally:
            context.close()
