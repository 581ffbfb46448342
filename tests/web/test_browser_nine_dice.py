"""A Nine Dice round in a real browser on the demo source, as a table plays it.

``tableref serve --source demo`` in a subprocess, Debian's Chromium via Playwright, a
phone-sized page (390x844) as the table's laptop and a second phone-sized page as Mina's
own phone. The new table asks the demo for a roll at once; the page reads it and, while
the round is open, says so without giving the best hands away (no outlined dice). Then
three shouts are entered in the order heard: Ben's wrong one on the laptop (two taps:
who, then the hand), Mina's wrong colour-choosing shout from her phone's buzzer (two
taps: "Shout!", then the hand; no colour asked), and Ann's correct one on the laptop
(the colour asked only if her hand lets the winner choose). Every shout's result line
must be on the page as it is entered, the winner's tokens in the score, and, only then,
the best hands with their dice outlined on the reveal photo.

Screenshots (390x844 and 1280x800, English and Japanese, round open and closed) go to
pytest's tmp dir, and to ``$TABLEREF_SCREENSHOT_DIR`` if set. Skipped without
``/usr/bin/chromium`` or the reader's model files.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from browser_support import keep_screenshot

from referee.nine_dice import Letter
from web.live_bench import ServeProcess, TablePage
from web.live_bench import testid_value as value_id

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("reader_models")]

PLAYERS = ["Ben", "Mina", "Ann"]
KATAKANA = {letter.value for letter in Letter}
REVEAL_ATTEMPTS = 8
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
LAPTOP = {"viewport": {"width": 1280, "height": 800}}
TOKEN_WORDS = {"white": "白", "black": "黒", "blue": "青"}


def shot(page: Any, path: Path) -> None:
    keep_screenshot(page, path, full_page=False)


def settled_roll(server: ServeProcess, after_seq: int) -> int:
    """Wait until the demo settles a whole roll (9 or 10 katakana dice) past ``after_seq``."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        for entry in reversed(server.demo()["settled"]):
            truth = entry["truth"]
            if entry["seq"] > after_seq and truth and len(truth) in (9, 10) and set(truth) <= KATAKANA:
                return int(entry["seq"])
        time.sleep(0.1)
    raise AssertionError(f"the demo settled no roll in 90 s: {server.demo()}")


def read_the_roll(server: ServeProcess, table: TablePage) -> None:
    after = 0
    outcomes = []
    for _ in range(REVEAL_ATTEMPTS):
        settled_roll(server, after)
        rereading = table.page.get_attribute("[data-testid=verdict-panel]", "data-status") == "reread"
        outcome = table.reread() if rereading else table.reveal()
        outcomes.append(outcome.status)
        after = max(e["seq"] for e in server.demo()["settled"])
        if outcome.status == "verdict":
            return
    pytest.fail(f"no verdict after {REVEAL_ATTEMPTS} reads: {outcomes}")


def outlined(page: Any) -> int:
    return int(page.evaluate("() => document.querySelectorAll('#photo .hl').length"))


def line_count(page: Any) -> int:
    return len(page.query_selector_all('[data-testid^="shout-line-"]'))


def wrong_hands(best: list[str], hands: list[dict[str, Any]]) -> tuple[str, str]:
    """A hand that is not a best hand, and a colour-choosing one that is not either."""
    names = [h["hand"] for h in hands if not h["expansion"]]
    plain = next(h for h in ("ブレブレ", "2色ブベラ", "白ブベラ") if h not in best)
    choosing = next(h for h in ("プラスベガス", "ラスベガス", "ナシゴレン") if h not in best and h in names)
    return plain, choosing


def test_a_nine_dice_round_on_a_phone_sized_page(browser: Any, tmp_path: Path) -> None:
    with ServeProcess(tmp_path / "data", source="demo") as server:
        laptop_ctx = browser.new_context(**PHONE, locale="en-US")
        phone_ctx = browser.new_context(**PHONE, locale="en-US")
        try:
            laptop = laptop_ctx.new_page()
            table = TablePage(laptop, server.url, timeout_s=60)
            tid = table.create_table(PLAYERS, game="nine-dice")
            laptop.wait_for_selector("[data-testid=camera-badge][data-online=true]")
            read_the_roll(server, table)

            # The round is open: the page says so, and shows no best hand and no outlined die.
            laptop.wait_for_selector("[data-testid=round-status]")
            assert "shout the best hand" in laptop.inner_text("[data-testid=round-status]")
            assert "best hands are shown when the round ends" in laptop.inner_text("[data-testid=verdict-summary]")
            assert laptop.is_hidden("[data-testid=best-hands]") and outlined(laptop) == 0
            assert "Ben, Mina, Ann" in laptop.inner_text("[data-testid=round-waiting]")
            view = server.get_json(f"/api/tables/{tid}")
            best = list(view["state"]["best"])
            told = laptop.inner_text("[data-testid=verdict-panel]") + laptop.inner_text("[data-testid=status]")
            assert not any(b in told for b in best), (best, told)
            plain, choosing = wrong_hands(best, view["aids"]["hands"])

            # Ben, on the laptop: who, then the hand. Scored at once, in one line.
            laptop.tap("[data-testid=shout-player-Ben]")
            laptop.wait_for_selector("[data-testid=shout-hands]")
            laptop.evaluate("() => document.querySelector('[data-testid=shout-card]').scrollIntoView()")
            shot(laptop, tmp_path / "nine-dice-who-hand-390-en.png")
            laptop.tap(f"[data-testid=shout-hand-{value_id(plain)}]")
            laptop.wait_for_selector("[data-testid=shout-line-0]")
            line = laptop.inner_text("[data-testid=shout-line-0]")
            assert line.startswith(f"Ben: {plain} — ") and "Ben has no token to return." in line
            assert ("not on the table" in line) or ("not the best" in line)
            shot(laptop, tmp_path / "nine-dice-open-390-en.png")

            # Mina, on her own phone: "This phone is Mina", then Shout! and the hand (two taps).
            phone = phone_ctx.new_page()
            phone.set_default_timeout(60_000)
            phone.goto(f"{server.url}/t/{tid}")
            phone.wait_for_selector("[data-testid=shout-me]")
            phone.select_option("[data-testid=shout-me]", "Mina")
            phone.tap("[data-testid=shout-buzz]")
            phone.wait_for_selector("[data-testid=shout-hands]")
            phone.evaluate("() => document.querySelector('[data-testid=shout-card]').scrollIntoView()")
            shot(phone, tmp_path / "nine-dice-buzzer-390-en.png")
            phone.tap(f"[data-testid=shout-hand-{value_id(choosing)}]")
            phone.wait_for_selector("[data-testid=shout-line-1]")
            assert phone.query_selector("[data-testid=shout-claim]") is None  # a wrong shout names no colour
            mina = phone.inner_text("[data-testid=shout-line-1]")
            assert mina.startswith(f"Mina: {choosing} — ") and "Mina has no token to return." in mina
            # ラスベガス is on the table whenever プラスベガス is, and then not the best
            assert ("not on the table" in mina) or ("not the best" in mina)
            laptop.wait_for_selector("[data-testid=shout-line-1]")  # the laptop hears of it too

            # Ann, correct: the round ends, her tokens move; the colour asked only when she chooses.
            laptop.tap("[data-testid=shout-player-Ann]")
            laptop.tap(f"[data-testid=shout-hand-{value_id(best[0])}]")
            colour = None
            if best[0] in ("プラスベガス", "ラスベガス", "ナシゴレン"):
                laptop.wait_for_selector("[data-testid=shout-claim]")
                assert f"Ann's {best[0]} is right" in laptop.inner_text("[data-testid=shout-claim]")
                colour = "blue"
                laptop.tap("[data-testid=claim-colour-blue]")
            laptop.wait_for_selector("[data-testid=shout-line-2]")
            won = laptop.inner_text("[data-testid=shout-line-2]")
            assert won.startswith(f"Ann: {best[0]} — right! Ann takes"), won
            view = server.get_json(f"/api/tables/{tid}")
            assert view["state"]["rounds"][-1]["winner"] == "Ann" and not view["state"]["round_open"]
            assert [e["event"]["type"] for e in view["history"]] == ["roll", "shout", "shout", "shout"]
            assert "colour" not in view["history"][2]["event"]  # Mina's wrong shout went in the log without one
            tokens = view["state"]["players"][2]["tokens"]
            assert sum(tokens.values()) > 0 or view["state"]["players"][2]["scarab"]
            row = laptop.inner_text("[data-testid=score-Ann]").split()
            assert row[:4] == ["Ann", str(tokens["white"]), str(tokens["black"]), str(tokens["blue"])]
            if colour:
                assert tokens[colour] == 1
            # Only now: the best hands, the first one's dice outlined on the reveal photo.
            laptop.wait_for_selector("[data-testid=best-hands]:not([hidden])")
            assert best[0] in laptop.inner_text("[data-testid=best-hands]")
            formation = next(f for f in view["reading"]["verdict"]["round"]["formations"] if f["hand"] == best[0])
            assert outlined(laptop) >= len(formation["dice"])
            assert "Ann wins with" in laptop.inner_text("[data-testid=round-status]")
            assert all(laptop.query_selector(f"[data-testid=shout-line-{i}]") for i in range(3))
            assert laptop.evaluate("() => document.documentElement.scrollWidth") <= 390
            shot(laptop, tmp_path / "nine-dice-closed-390-en.png")
            laptop.evaluate("() => document.querySelector('[data-testid=best-hands]').scrollIntoView()")
            shot(laptop, tmp_path / "nine-dice-best-390-en.png")

            # The same table in Japanese on a phone, and on a laptop-sized page in both languages.
            phone.goto(f"{server.url}/t/{tid}?lang=ja")
            phone.wait_for_selector("[data-testid=shout-line-2]")
            assert "正解！" in phone.inner_text("[data-testid=shout-line-2]")
            mina_ja = phone.inner_text("[data-testid=shout-line-1]")
            assert ("場にありません" in mina_ja) or ("最強ではありません" in mina_ja)  # as in English above
            assert "勝ち" in phone.inner_text("[data-testid=round-status]")
            shot(phone, tmp_path / "nine-dice-closed-390-ja.png")
            for lang in ("en", "ja"):
                wide_ctx = browser.new_context(**LAPTOP)
                try:
                    wide = wide_ctx.new_page()
                    wide.goto(f"{server.url}/t/{tid}?lang={lang}")
                    wide.wait_for_selector("[data-testid=shout-line-2]")
                    wide.wait_for_selector("[data-testid=reveal-image]")
                    shot(wide, tmp_path / f"nine-dice-closed-1280-{lang}.png")
                    wide.evaluate("() => document.querySelector('[data-testid=best-hands]').scrollIntoView()")
                    shot(wide, tmp_path / f"nine-dice-best-1280-{lang}.png")
                finally:
                    wide_ctx.close()
        finally:
            laptop_ctx.close()
            phone_ctx.close()


def test_the_open_round_in_japanese_and_on_a_laptop(browser: Any, tmp_path: Path) -> None:
    """The open round's status and a wrong shout's line, in Japanese on a phone and in
    English on a laptop-sized page (screenshots), with no best hand on either."""
    with ServeProcess(tmp_path / "data", source="demo") as server:
        ctx = browser.new_context(**PHONE, locale="ja-JP")
        wide_ctx = browser.new_context(**LAPTOP)
        try:
            page = ctx.new_page()
            table = TablePage(page, server.url, timeout_s=60)
            page.goto(server.url + "/?lang=ja")
            tid = table.create_table(["ベン", "ミナ"], game="nine-dice")
            page.wait_for_selector("[data-testid=camera-badge][data-online=true]")
            read_the_roll(server, table)
            page.wait_for_selector("[data-testid=round-status]")
            assert "最強の役を宣言" in page.inner_text("[data-testid=round-status]")
            view = server.get_json(f"/api/tables/{tid}")
            plain, _ = wrong_hands(view["state"]["best"], view["aids"]["hands"])
            page.tap(f"[data-testid=shout-player-{value_id('ベン')}]")
            page.tap(f"[data-testid=shout-hand-{value_id(plain)}]")
            page.wait_for_selector("[data-testid=shout-line-0]")
            line = page.inner_text("[data-testid=shout-line-0]")
            assert line.startswith(f"ベン: {plain} — ") and "返すトークンはありません" in line
            assert outlined(page) == 0 and page.is_hidden("[data-testid=best-hands]")
            shot(page, tmp_path / "nine-dice-open-390-ja.png")
            wide = wide_ctx.new_page()
            wide.goto(f"{server.url}/t/{tid}?lang=en")
            wide.wait_for_selector("[data-testid=shout-line-0]")
            wide.wait_for_selector("[data-testid=reveal-image]")
            assert outlined(wide) == 0
            shot(wide, tmp_path / "nine-dice-open-1280-en.png")
            wide.goto(f"{server.url}/t/{tid}?lang=ja")
            wide.wait_for_selector("[data-testid=shout-line-0]")
            shot(wide, tmp_path / "nine-dice-open-1280-ja.png")
        finally:
            ctx.close()
            wide_ctx.close()
