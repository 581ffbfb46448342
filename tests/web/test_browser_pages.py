"""Real-browser checks of the pages a new group sees first, on the demo source (issue 83's
rough edges 3-6): Debian's Chromium through Playwright, one browser and one server for the
module, phone-sized (390x844, touch) and laptop-sized (1280x800) pages in both languages.

- Liar's Dice quantity chips come in ascending order, exactly the quantities of
  ``referee.liars_dice.legal_raises``, and those above the dice in play are marked.
- New-table options are named and explained in the page's language (no raw keys).
- The Japanese page says no English in the history, the live video's caption, the health
  link; the verdict heading does not repeat itself; "count" is 枚数 for cards, 個数 for dice.
- On a phone the move controls are within the first screen, nothing is wider than the
  screen, a player's "✕" stays on its name's line, the import picker stays in its card,
  and each die on the reveal photo is a tap target of at least 44 px around its true outline.

Screenshots of all four games at both sizes in both languages go to pytest's tmp dir and to
``$TABLEREF_SCREENSHOT_DIR`` if set, named ``<game>-<width>-<lang>.png``.
Skipped without ``/usr/bin/chromium``; the reveal photo checks also need the reader models.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import keep_screenshot, need_reader_models

from referee.liars_dice import Bid, Face, default_track, legal_raises
from web import live_bench
from web.live_bench import ServeProcess, TablePage, models_present

pytestmark = pytest.mark.slow

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
GAMES = ("liars-dice", "nine-dice", "doubt", "pin456")
JA_PLAYERS = ["わんじん", "せうん", "みな"]
RAW_OPTION_WORDS = re.compile(r"\b(start_rule|stake_cap|to_hell|counterfeit|auto|deck)\b")
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
SETTLE_TIMEOUT_S = 90.0
REVEAL_ATTEMPTS = 8  # about half the demo's 10-dice reveals are read sure; any reading with dice will do


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    source = "demo" if models_present() else "none"
    with ServeProcess(tmp_path_factory.mktemp("data"), source=source) as s:
        if source == "demo":
            s.wait_camera_online()
        yield s


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shots")


def new_page(browser: Any, size: dict[str, int]) -> tuple[Any, Any]:
    phone = size["width"] < 600
    context = browser.new_context(viewport=size, is_mobile=phone, has_touch=phone, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(60_000)
    return context, page


def shoot(page: Any, shots: Path, name: str) -> Path:
    page.evaluate("() => window.scrollTo(0, 0)")
    return keep_screenshot(page, shots / f"{name}.png", min_bytes=5_000)


# What the page lays out, measured in the page.
_WIDER = """() => [...document.querySelectorAll('body *')].filter((e) => {
  const r = e.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && (r.right > innerWidth + 0.5 || r.left < -0.5);
}).map((e) => e.tagName + (e.id ? '#' + e.id : '') + (e.dataset.testid ? '[' + e.dataset.testid + ']' : ''))"""
_RECT = "(e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }"
_SMALL_BUTTONS = """(sel) => [...document.querySelectorAll(sel)].filter((b) => b.offsetParent !== null).map((b) => {
  const r = b.getBoundingClientRect(); return [b.dataset.testid || b.textContent, r.width, r.height];
}).filter(([, w, h]) => w < 44 || h < 44)"""


def nothing_wider(page: Any) -> None:
    width = page.viewport_size["width"]
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    assert page.evaluate(_WIDER) == []


def rect(page: Any, selector: str) -> tuple[float, float, float, float]:
    return tuple(page.eval_on_selector(selector, _RECT))  # type: ignore[return-value]


def in_first_screen(page: Any, selector: str) -> bool:
    """``selector`` lies wholly within the first screenful (the page scrolled to the top)."""
    page.evaluate("() => window.scrollTo(0, 0)")
    left, top, right, bottom = rect(page, selector)
    size = page.viewport_size
    return top >= 0 and left >= 0 and bottom <= size["height"] and right <= size["width"]


def goto_table(page: Any, server: ServeProcess, tid: str, lang: str) -> None:
    page.goto(f"{server.url}/t/{tid}?lang={lang}")
    page.wait_for_selector("#table[data-seq]")
    page.wait_for_selector(f"html[lang={lang}]")


def latin_words(text: str, allowed: set[str]) -> list[str]:
    return [w for w in LATIN_WORD.findall(text) if w not in allowed]


# --- the home page -------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_home_page_names_every_option_and_fits(browser: Any, server: ServeProcess, shots: Path, size: dict[str, int]) -> None:
    context, page = new_page(browser, size)
    try:
        for lang in ("en", "ja"):
            page.goto(f"{server.url}/?lang={lang}")
            page.wait_for_selector(f"html[lang={lang}]")
            for game in GAMES:
                page.select_option("[data-testid=game-select]", game)
                box = page.locator(f'#options [data-game="{game}"]')
                text = box.inner_text()
                assert text.strip() and not RAW_OPTION_WORDS.search(text), (lang, game, text)
                options = [o.strip() for o in page.locator(f'#options [data-game="{game}"] option').all_inner_texts()]
                assert not set(options) & {"en", "ja", "auto", ""}, options
                if lang == "ja":
                    assert latin_words(text, {"A", "K"}) == [], (game, text)
                for control in page.locator(f'#options [data-game="{game}"] input, #options [data-game="{game}"] select').all():
                    label = control.locator("xpath=ancestor::label[1]")
                    assert label.locator(".help").inner_text().strip(), f"{game}: an option without its explanation"
                nothing_wider(page)
            health = page.inner_text("[data-testid=health-link]")
            assert health == ("Server status" if lang == "en" else "サーバーの状態")
            # Each player's "✕" on its name's line.
            for li in page.locator("#players li").all():
                name_box, remove_box = li.locator("input").bounding_box(), li.locator("button").bounding_box()
                assert remove_box["x"] > name_box["x"] + name_box["width"] - 1
                assert abs((remove_box["y"] + remove_box["height"] / 2) - (name_box["y"] + name_box["height"] / 2)) < 8
            # The import picker in its card, in the page's words.
            card = page.locator("section.card", has=page.locator("[data-testid=import-file]")).bounding_box()
            for part in ("import-choose", "import-name", "import-button"):
                b = page.locator(f"[data-testid={part}]").bounding_box()
                assert b["x"] >= card["x"] and b["x"] + b["width"] <= card["x"] + card["width"] + 0.5, part
            assert page.inner_text("[data-testid=import-name]") == ("No file chosen" if lang == "en" else "ファイル未選択")
            if lang == "ja":
                assert latin_words(page.inner_text("[data-testid=import-choose]") + health, set()) == []
            page.select_option("[data-testid=game-select]", "pin456")
            shoot(page, shots, f"home-{size['width']}-{lang}")
    finally:
        context.close()


# --- Liar's Dice: the quantity chips ---------------------------------------------------------------


def test_liars_dice_quantities_in_order_and_marked_above_the_dice_in_play(browser: Any, server: ServeProcess) -> None:
    context, page = new_page(browser, PHONE)
    try:
        table = TablePage(page, server.url, timeout_s=60)
        page.goto(server.url + "/?lang=en")
        table.create_table(["Wanjin", "Saewoon", "Mina"])  # 15 dice in play
        table.start("Wanjin")
        chips = page.locator('[data-testid^="choice-bid-quantity-"]')
        shown = [int(t) for t in chips.all_inner_texts()]
        legal = sorted({b.quantity for b in legal_raises(None, default_track())})
        assert shown == legal and shown == sorted(shown) and max(shown) > 15
        over = {int(str(c.get_attribute("data-testid")).rsplit("-", 1)[1]) for c in page.locator('[data-over="true"]').all()}
        assert over == {q for q in shown if q > 15}
        assert "15" in page.inner_text("[data-testid=over-note]")
        assert page.evaluate(_SMALL_BUTTONS, "[data-testid=actions] button") == []
        # The whole bid, quantity to "Send", without scrolling.
        assert in_first_screen(page, "[data-testid=action-bid]")
        table.choose("bid", "quantity", 3)
        table.choose("bid", "face", "5")
        assert in_first_screen(page, "[data-testid=send-bid]") and in_first_screen(page, "[data-testid=action-bid]")
        nothing_wider(page)
        page.click("[data-testid=send-bid]")
        page.wait_for_selector('#table[data-seq="2"]')
        shown = [int(t) for t in chips.all_inner_texts()]  # a wheel bid may go back to 2
        assert shown == sorted({b.quantity for b in legal_raises(Bid(3, Face.FIVE), default_track())})
    finally:
        context.close()


# --- each game's page, phone and laptop, both languages ------------------------------------------------


def first_moves(page: Any, table: TablePage, game: str, players: list[str]) -> None:
    """Play a game's opening through the page, up to a point with moves to make."""
    if game == "liars-dice":
        table.start(players[0])
        table.bid(2, "4")
    elif game == "doubt":
        table.choose("deal", "dealer", players[0])
        page.click("[data-testid=send-deal]")
        page.wait_for_selector('#table[data-seq="1"]')
    elif game == "pin456":
        table.choose("declare", "count", 3)
        page.click("[data-testid=send-declare]")
        page.wait_for_selector('#table[data-seq="1"]')


def check_japanese_page(page: Any, game: str, players: list[str]) -> None:
    allowed = {"tableref"}
    for line in page.locator("[data-testid=history] li").all_inner_texts():
        for name in players:
            line = line.replace(name, "")
        assert latin_words(line, allowed) == [], line
    caption = page.locator("[data-testid=live-caption]")
    if caption.is_visible():
        assert latin_words(caption.inner_text(), set()) == []
    heading = page.inner_text("[data-testid=verdict-panel] h2") if page.is_visible("[data-testid=verdict-panel]") else ""
    assert "判定 判定済み" not in heading


@pytest.mark.parametrize("game", GAMES)
def test_each_game_page_on_a_phone_and_a_laptop(browser: Any, server: ServeProcess, shots: Path, game: str) -> None:
    players = JA_PLAYERS[: 3 if game == "doubt" else 2]
    context, page = new_page(browser, PHONE)
    try:
        table = TablePage(page, server.url, timeout_s=60)
        page.goto(server.url + "/?lang=ja")
        tid = table.create_table(players, game=game)
        first_moves(page, table, game, players)
        goto_table(page, server, tid, "ja")
        controls = "[data-testid=reveal-card]" if game == "nine-dice" else "[data-testid=actions] .action-group"
        page.wait_for_selector(controls)
        assert in_first_screen(page, controls), f"{game}: the move controls are below the first screen"
        assert page.evaluate(_SMALL_BUTTONS, "[data-testid=actions] button, [data-testid=reveal-card] > button") == []
        nothing_wider(page)
        check_japanese_page(page, game, players)
        if game == "doubt":
            assert "枚数" in page.inner_text("[data-testid=action-play]") and "個数" not in page.inner_text("[data-testid=action-play]")
            assert "配る" in page.inner_text("[data-testid=history]")
        if game == "pin456":
            assert "個数 3" in page.inner_text("[data-testid=history]") and "枚数" not in page.inner_text("[data-testid=history]")
        if game == "liars-dice":
            assert "個数 2" in page.inner_text("[data-testid=history]")
        for size in (PHONE, LAPTOP):
            page.set_viewport_size(size)
            for lang in ("en", "ja"):
                goto_table(page, server, tid, lang)
                page.wait_for_selector(controls)
                time.sleep(0.3)  # the live caption's first health poll
                nothing_wider(page)
                shoot(page, shots, f"{game}-{size['width']}-{lang}")
    finally:
        context.close()


# --- the reveal photo: Liar's Dice challenged, read from the demo camera ---------------------------------


def wait_settled(server: ServeProcess, after_seq: int, dice: int) -> int:
    """The seq of a settled demo reveal past ``after_seq`` that shows ``dice`` dice."""
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    while time.monotonic() < deadline:
        for entry in reversed(server.demo()["settled"]):
            if entry["seq"] > after_seq and entry["truth"] is not None and len(entry["truth"]) == dice:
                return int(entry["seq"])
        time.sleep(0.2)
    raise AssertionError(f"the demo settled no reveal of {dice} dice in {SETTLE_TIMEOUT_S:g} s")


def test_reveal_photo_tap_targets_on_a_phone(browser: Any, server: ServeProcess, shots: Path) -> None:
    need_reader_models()  # no reader models: no reveal photo
    context, page = new_page(browser, PHONE)
    try:
        table = TablePage(page, server.url, timeout_s=60)
        page.goto(server.url + "/?lang=ja")
        tid = table.create_table(JA_PLAYERS[:2])
        table.start(JA_PLAYERS[0])
        table.bid(2, "4")
        table.challenge()
        page.wait_for_selector("[data-testid=live-caption]:not([hidden])")
        assert latin_words(page.inner_text("[data-testid=live-caption]"), set()) == []
        seq = max([0, *(e["seq"] for e in server.demo()["settled"])])  # reveals settled before the challenge do not count
        outcomes = []
        reading: dict[str, Any] = {"objects": []}
        for _ in range(REVEAL_ATTEMPTS):
            seq = wait_settled(server, seq, 10)
            rereading = page.get_attribute("[data-testid=verdict-panel]", "data-status") == "reread"
            outcome = table.reread() if rereading else table.reveal()
            outcomes.append(outcome)
            if outcome.status == "verdict":
                break
        shown = table.reading_id()  # the reading the panel shows
        reading = server.get_json(f"/api/tables/{tid}/readings/{shown}") if shown is not None else reading
        assert reading["objects"], f"no reading with dice from the demo: {outcomes}"
        page.wait_for_selector("[data-testid=reveal-image]")
        page.wait_for_function("() => document.querySelector('[data-testid=reveal-image]').complete")
        img = rect(page, "[data-testid=reveal-image]")
        scale = (img[2] - img[0]) / reading["width"]
        sizes = []
        for i, obj in enumerate(reading["objects"]):
            x1, y1, x2, y2 = obj["box"]
            outline = rect(page, f"[data-testid=object-outline-{i}]")
            want = (img[0] + x1 * scale, img[1] + y1 * scale, img[0] + x2 * scale, img[1] + y2 * scale)
            assert all(abs(a - b) < 1.5 for a, b in zip(outline, want)), (i, outline, want)  # the outline stays true
            hit = rect(page, f"[data-testid=object-box-{i}]")
            sizes.append((x2 - x1) * scale)
            assert hit[2] - hit[0] >= 44 and hit[3] - hit[1] >= 44, (i, hit)
            centre = ((hit[0] + hit[2]) / 2, (hit[1] + hit[3]) / 2)
            assert abs(centre[0] - (want[0] + want[2]) / 2) < 1.5 and abs(centre[1] - (want[1] + want[3]) / 2) < 1.5
        assert min(sizes) < 44, "the demo's dice are small on a phone: the test would not test the tap target"
        # A tap inside a small die's target but outside the die opens that die's editor (the
        # nearest die's, where targets of neighbours overlap).
        page.evaluate("() => document.querySelector('[data-testid=reveal-image]').scrollIntoView({block: 'center'})")
        img = rect(page, "[data-testid=reveal-image]")
        centres = [((o["box"][0] + o["box"][2]) / 2 * scale + img[0], (o["box"][1] + o["box"][3]) / 2 * scale + img[1])
                   for o in reading["objects"]]
        tapped = None
        for i, size in sorted(enumerate(sizes), key=lambda p: p[1]):
            hit = rect(page, f"[data-testid=object-box-{i}]")
            for px, py in ((hit[0] + 2, (hit[1] + hit[3]) / 2), (hit[2] - 2, (hit[1] + hit[3]) / 2),
                           ((hit[0] + hit[2]) / 2, hit[1] + 2), ((hit[0] + hit[2]) / 2, hit[3] - 2)):
                outline = rect(page, f"[data-testid=object-outline-{i}]")
                outside = not (outline[0] <= px <= outline[2] and outline[1] <= py <= outline[3])
                nearest = min(range(len(centres)), key=lambda k: (centres[k][0] - px) ** 2 + (centres[k][1] - py) ** 2)
                on_top = page.evaluate("([x, y]) => document.elementFromPoint(x, y)?.dataset.testid || ''", [px, py])
                if outside and nearest == i and on_top.startswith("object-box-"):
                    tapped = (i, px, py)
                    break
            if tapped:
                break
        assert tapped is not None, "no small die with a free edge of its tap target"
        i, px, py = tapped
        page.touchscreen.tap(px, py)
        page.wait_for_selector("[data-testid=correction-editor]:not([hidden])")
        assert page.get_attribute("[data-testid=correction-editor]", "data-index") == str(i)
        face = reading["objects"][i]["face"]
        assert page.get_attribute(f"[data-testid=editor-face-{live_bench.testid_value(face)}]", "class") == "on"
        page.click("[data-testid=editor-cancel]")
        heading = page.inner_text("[data-testid=verdict-panel] h2")
        assert heading.split() == ["判定"] if outcome.status == "verdict" else len(heading.split()) == 2
        check_japanese_page(page, "liars-dice", JA_PLAYERS[:2])
        assert any(line.startswith("公開") for line in page.locator("[data-testid=history] li").all_inner_texts()) \
            or outcome.status != "verdict"
        for size in (PHONE, LAPTOP):
            page.set_viewport_size(size)
            for lang in ("en", "ja"):
                goto_table(page, server, tid, lang)
                page.wait_for_selector("[data-testid=reveal-image]")
                page.wait_for_function("() => document.querySelector('[data-testid=reveal-image]').complete")
                nothing_wider(page)
                if lang == "en":
                    assert page.inner_text("[data-testid=verdict-panel] h2").split()[:2] != ["Verdict", "verdict"]
                shoot(page, shots, f"liars-dice-reveal-{size['width']}-{lang}")
    finally:
        context.close()


def test_no_camera_placard_in_the_pages_language(browser: Any, tmp_path: Path) -> None:
    """The video's words are the page's: without a camera, a placard in Japanese on the ja page."""
    with ServeProcess(tmp_path / "data", source="none") as none_server:
        context, page = new_page(browser, PHONE)
        try:
            table = TablePage(page, none_server.url)
            page.goto(none_server.url + "/?lang=ja")
            table.create_table(JA_PLAYERS[:2])
            page.wait_for_selector("[data-testid=live-placard]:not([hidden])")
            assert page.inner_text("[data-testid=live-placard]").strip() == "カメラなし: 手で入力してください。"
            assert not page.is_visible("[data-testid=live-video]")
        finally:
            context.close()


def test_a_die_at_the_photos_edge_does_not_widen_a_phone_page(browser: Any, server: ServeProcess) -> None:
    """A small die at the right edge of the reveal photo has a 44 px tap target centred on
    it, half of which lies past the photo: the page must not grow wider for it (a Nine Dice
    round whose best hand sat at the edge scrolled a phone sideways by 2 px)."""
    context, page = new_page(browser, PHONE)
    try:
        page.goto(server.url + "/")
        page.evaluate("""() => {
          const photo = document.createElement('div');
          photo.className = 'photo';
          photo.innerHTML = '<div style="height: 100px"></div>';
          for (const cls of ['box', 'outline hl']) {
            const e = document.createElement('div');
            e.className = cls;
            Object.assign(e.style, { left: '99.5%', top: '50%', width: '1%', height: '10px' });
            photo.append(e);
          }
          document.querySelector('main').append(photo);
        }""")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
        target = page.eval_on_selector(".photo .box", _RECT)
        assert target[2] - target[0] >= 44  # the target keeps its size; only what lies past the photo is clipped
    finally:
        context.close()
