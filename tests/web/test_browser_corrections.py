"""Tap-to-correct, undo and re-read in a real browser on the demo source (issue 83's rough
edges 1, 2 and 7), a Liar's Dice round on a phone-sized page:

- a die corrected to the bid's face is outlined as counting toward the bid (and as
  corrected), and keeps the body colour the camera read;
- undo after the correction takes back only the correction: the reveal, its photo and
  its verdict stay, with the die as first read;
- undo of the reveal, then "Read the table": the dice still on the table are read again
  at once (the demo keeps them), the history says who lost what.

Skipped without ``/usr/bin/chromium`` or the reader's model files.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser_support import tap_object
from web.live_bench import ServeProcess, TablePage

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("reader_models")]

PLAYERS = ["Wanjin", "Saewoon"]
REVEAL_ATTEMPTS = 10
ACCENT = "rgb(242, 181, 68)"


def settled(server: ServeProcess, after_seq: int, dice: int) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if any(e["seq"] > after_seq and e["truth"] and len(e["truth"]) == dice for e in server.demo()["settled"]):
            return
        time.sleep(0.1)
    raise AssertionError(f"the demo settled no reveal of {dice} dice: {server.demo()}")


def read_until_verdict(server: ServeProcess, table: TablePage, dice: int) -> Any:
    after, seen = 0, []
    for _ in range(REVEAL_ATTEMPTS):
        settled(server, after, dice)
        rereading = table.page.get_attribute("[data-testid=verdict-panel]", "data-status") == "reread"
        outcome = table.reread() if rereading else table.reveal()
        seen.append(outcome.status)
        after = max(e["seq"] for e in server.demo()["settled"])
        if outcome.status == "verdict":
            return outcome
    pytest.fail(f"no verdict after {REVEAL_ATTEMPTS} reads: {seen}")


def test_correct_undo_and_read_again_on_the_demo(browser: Any, tmp_path: Path) -> None:
    with ServeProcess(tmp_path / "data", source="demo") as server:
        context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        try:
            page = context.new_page()
            table = TablePage(page, server.url, timeout_s=60)
            tid = table.create_table(PLAYERS)
            page.wait_for_selector("[data-testid=camera-badge][data-online=true]")
            table.start(PLAYERS[0])
            table.bid(2, "4")
            table.challenge()
            outcome = read_until_verdict(server, table, 10)
            reading = server.get_json(f"/api/tables/{tid}/readings/{outcome.reading_id}")
            first = reading["objects"]
            # A die that does not count toward "two 4s" (not a 4, not a wheel) becomes a 4.
            k = next(i for i, o in enumerate(first) if o["face"] not in ("4", "wheel"))
            tap_object(page, k)
            page.click("[data-testid=editor-face-4]")
            seq = table.seq()
            page.click("[data-testid=editor-save]")
            # the corrected die is outlined as fixed and still highlighted (it counts toward the bid);
            # the photo may be drawn again meanwhile, so the colour is awaited, not read once
            page.wait_for_function(f"() => [...document.querySelectorAll('#photo .fixed.hl[data-testid=object-outline-{k}], "
                                   f"#photo .box.fixed.hl[data-testid=object-box-{k}]')]"
                                   f".some((e) => getComputedStyle(e).borderTopColor === '{ACCENT}')")
            fixed = server.get_json(f"/api/tables/{tid}/readings/{outcome.reading_id}")["objects"][k]
            assert fixed["face"] == "4" and fixed["corrected"] and fixed["colour"] == first[k]["colour"] is not None
            assert table.seq() == seq  # a correction replaces the reveal; it adds no event

            # Undo takes back the correction only: the verdict and its photo stay.
            page.click("[data-testid=undo-button]")
            page.wait_for_function(f"() => !document.querySelector('#photo .fixed[data-testid=object-box-{k}]')")
            view = server.get_json(f"/api/tables/{tid}")
            assert view["seq"] == seq and view["reading"]["status"] == "verdict"
            assert [o["face"] for o in view["reading"]["objects"]] == [o["face"] for o in first]
            assert page.get_attribute("[data-testid=verdict-panel]", "data-status") == "verdict"
            assert page.query_selector("[data-testid=reveal-image]") is not None
            note = page.inner_text(f"[data-testid=history-{seq - 1}]")
            assert "loses" in note  # the history says who lost what

            # Undo the reveal itself, then read the table again: the same dice, read at once.
            table.undo()
            assert server.get_json(f"/api/tables/{tid}")["expects"] == "reveal"
            again = table.reveal()
            assert again.status in ("verdict", "reread"), again
            if again.status == "verdict":
                read = server.get_json(f"/api/tables/{tid}/readings/{again.reading_id}")["objects"]
                assert sorted(o["face"] for o in read) == sorted(o["face"] for o in first)
        finally:
            context.close()
