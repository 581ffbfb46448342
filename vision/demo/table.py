"""The built-in ``demo`` source: a synthetic table that keeps revealing dice (or cards).

No camera needed: ``tableref serve --source demo`` shows a loop of reveals rendered by
:mod:`vision.synth`, cycling over the games:

- Liar's Dice: 2-15 liars dice (one body colour per player's five);
- Nine Dice: the 9 basic dice (per colour white/black/blue two A dice and one C die),
  sometimes with the green expansion die;
- Pin-456: k of the 3 pin dice and 3 four-five-six dice;
- Doubt (only when asked for, or with ``games=("doubt",)``): 1-3 playing cards turned
  face up in a row, as at a challenge. The loop leaves cards out by default because the
  live reader only reads cards while a Doubt table waits for its reveal; once cards are
  asked for, the loop deals cards until dice are asked for again.

Each reveal is a *clip*: the empty table for a moment, a few frames of dice rolling in
(each die's patch slides and spins towards where it lands, motion-blurred), then the
still scene held for ``hold_s`` seconds with fresh sensor noise on every frame, as a
webcam would show it. The dashboard can ask for a reveal matching the dice in play with
:meth:`DemoSource.show` (e.g. exactly 7 liars dice); that clip starts as soon as it is
rendered, and the same dice (or cards) are rolled again in fresh layouts (``HINT_ROLLS`` in all),
so a reveal a reader could not settle gets another chance; then its still stays on the table.
Once asked, the demo is that table's: the loop shows only the asked-for game's reveals, the
revealed dice stay until the next reveal is asked for, and :meth:`DemoSource.hold` (the table
read its reveal) stops the re-rolls at once, so the dice read stay the dice shown.

Rendering (a few hundred ms a scene) happens on a background thread: a bank of
``bank`` clips is rendered up front and then one is refreshed per cycle through the bank,
so :meth:`DemoSource.read` only picks a prepared frame and adds noise (well under a
millisecond), serving ``fps`` frames a second without rendering on the hot path.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.read.detections import Card, Detection
from vision.live.pacer import Pacer
from vision.synth.card_faces import ALL_CARDS
from vision.synth.card_layout import CardOptions, check_options
from vision.synth.card_scene import CardSceneConfig, render_card_scene
from vision.synth.designs import DESIGNS, design
from vision.synth.errors import BadSceneConfig, UnknownColour
from vision.synth.scene import RenderedScene, SceneConfig, render_scene
from vision.synth.sets import DieSpec

log = logging.getLogger(__name__)

GAMES = ("liars-dice", "nine-dice", "pin456")  # the loop's default; "doubt" can be added
# Plain surfaces, where painting the dice out for the empty table leaves no visible trace.
DEMO_TABLES = ("wood", "felt", "laminate", "paper", "concrete")
HINT_ROLLS = 3  # an asked-for reveal is rolled this many times (fresh layouts) unless the table reads it first
CARD_PX = (160.0, 220.0)  # card height at 640 px wide: indices big enough to read every time
Renderer = Callable[[np.random.Generator, SceneConfig], RenderedScene]
CardRenderer = Callable[[np.random.Generator, CardSceneConfig], RenderedScene]
Reveal = tuple[DieSpec, ...] | tuple[str, ...]  # dice, or playing cards such as "10H"


def liars_reveal(rng: np.random.Generator, n: int | None = None) -> tuple[DieSpec, ...]:
    """``n`` liars dice (default 2-15), five per player, one body colour per player.

    >>> [s.colour for s in liars_reveal(np.random.default_rng(3), 7)].count(None)
    0
    """
    if n is None:
        n = int(rng.integers(2, 16))
    colours = list(DESIGNS["liars"].colours)
    rng.shuffle(colours)
    return tuple(DieSpec("liars", colours[(k // 5) % len(colours)]) for k in range(n))


def nine_reveal(rng: np.random.Generator, expansion: bool | None = None) -> tuple[DieSpec, ...]:
    """The 9 basic Nine Dice dice, plus the green ``nine-x`` die in about a third of rolls.

    >>> len(nine_reveal(np.random.default_rng(0), expansion=True))
    10
    """
    specs = [DieSpec(d, c) for c in ("white", "black", "blue") for d in ("nine-a", "nine-a", "nine-c")]
    if expansion if expansion is not None else rng.random() < 0.33:
        specs.append(DieSpec("nine-x", "green"))
    return tuple(specs)


def pin456_reveal(rng: np.random.Generator, k: int | None = None) -> tuple[DieSpec, ...]:
    """``k`` of the 3 pin and 3 four-five-six dice (default 1-6), all one body colour.

    >>> sorted(s.design for s in pin456_reveal(np.random.default_rng(1), 6))
    ['456', '456', '456', 'pin', 'pin', 'pin']
    """
    if k is None:
        k = int(rng.integers(1, 7))
    colour = str(rng.choice(["white", "ivory", "red"]))
    pool = [DieSpec("pin", colour)] * 3 + [DieSpec("456", colour)] * 3
    keep = sorted(int(i) for i in rng.choice(6, k, replace=False))
    return tuple(pool[i] for i in keep)


def doubt_reveal(
    rng: np.random.Generator, count: int | None = None, rank: str | None = None, possible: Sequence[str] | None = None
) -> tuple[str, ...]:
    """``count`` cards (default 1-3) played as ``rank`` (default any), drawn from ``possible``
    (default the whole deck): all of that rank about half the time, else at least one other.

    >>> cards = doubt_reveal(np.random.default_rng(4), 3, "Q")
    >>> len(cards), len(set(cards))
    (3, 3)
    >>> doubt_reveal(np.random.default_rng(0), 2, "7", ["7S", "7H", "KD"]) in {("7S", "7H"), ("7H", "7S"), ("7S", "KD"), ("KD", "7S"), ("7H", "KD"), ("KD", "7H")}
    True
    """
    pool = [str(c) for c in (possible if possible is not None else ALL_CARDS)]
    if count is None:
        count = int(rng.integers(1, 4))
    if not 1 <= count <= len(pool):
        raise BadSceneConfig(f"cannot show {count} cards out of {len(pool)} possible")
    if rank is None:
        rank = Card.parse(pool[int(rng.integers(len(pool)))]).rank
    honest = [c for c in pool if Card.parse(c).rank == rank]
    others = [c for c in pool if Card.parse(c).rank != rank]
    if len(honest) >= count and (not others or rng.random() < 0.5):
        picked = [honest[i] for i in rng.choice(len(honest), count, replace=False)]
    else:  # a lie: at least one card off the rank
        liar = others[int(rng.integers(len(others)))]
        rest = [c for c in pool if c != liar]
        picked = [liar] + [rest[i] for i in rng.choice(len(rest), count - 1, replace=False)]
        rng.shuffle(picked)
    return tuple(picked)


REVEALS: dict[str, Callable[[np.random.Generator], Reveal]] = {
    "liars-dice": liars_reveal,
    "nine-dice": nine_reveal,
    "pin456": pin456_reveal,
    "doubt": doubt_reveal,
}


def check_specs(specs: Sequence[DieSpec] | Sequence[str]) -> Reveal:
    """Validate a hint now (in the caller's thread) so a bad request fails loudly, not later."""
    specs = tuple(specs)
    if specs and all(isinstance(s, str) for s in specs):
        cards = tuple(str(s) for s in specs)
        check_options(CardOptions(hand=cards))
        return cards
    if any(isinstance(s, str) for s in specs):
        raise BadSceneConfig("a reveal shows dice or cards, not both")
    if not 1 <= len(specs) <= 40:
        raise BadSceneConfig(f"{len(specs)} dice: give 1..40")
    for s in specs:
        des = design(s.design)
        if s.colour is not None and s.colour not in des.colours:
            raise UnknownColour(s.colour)
        if s.face is not None:
            des.check_face(s.face)
    return specs  # type: ignore[return-value]


def game_of(specs: Sequence[DieSpec] | Sequence[str]) -> str:
    """Which game a set of dice belongs to, by design (``"custom"`` for a mix); cards are Doubt's.

    >>> game_of([DieSpec("pin"), DieSpec("456")]), game_of([DieSpec("nine-a"), DieSpec("liars")]), game_of(["QS"])
    ('pin456', 'custom', 'doubt')
    """
    if specs and all(isinstance(s, str) for s in specs):
        return "doubt"
    families = {"liars": "liars-dice", "nine-a": "nine-dice", "nine-c": "nine-dice", "nine-x": "nine-dice", "pin": "pin456", "456": "pin456"}
    games = {families.get(s.design, "custom") for s in specs if isinstance(s, DieSpec)}
    return games.pop() if len(games) == 1 else "custom"


def demo_scene_config(
    specs: Sequence[DieSpec], size: tuple[int, int], tables: Sequence[str] = DEMO_TABLES,
    die_px: tuple[float, float] | None = None,
) -> SceneConfig:
    """How the demo renders a reveal of these dice: a clear table (no props, no hands),
    the camera at most 25 degrees from straight down, dice 30-44 px across at 640 px wide
    (24-34 px for more than 12 dice) unless ``die_px`` says otherwise."""
    w, h = size
    return SceneConfig(
        width=w,
        height=h,
        dice=tuple(specs),
        distractors=False,
        occluders=False,
        table_families=tuple(tables),
        tilt_deg=(0.0, 25.0),
        die_px=die_px if die_px is not None else (30.0, 44.0) if len(specs) <= 12 else (24.0, 34.0),
    )


def demo_card_config(
    cards: Sequence[str], size: tuple[int, int], tables: Sequence[str] = DEMO_TABLES,
    card_px: tuple[float, float] | None = None,
) -> CardSceneConfig:
    """How the demo renders a Doubt reveal of these cards: face up in a row on a clear table
    (no props, no hands), the camera at most 25 degrees from straight down, cards 160-220 px
    tall at 640 px wide unless ``card_px`` says otherwise."""
    w, h = size
    return CardSceneConfig(
        width=w,
        height=h,
        hand=tuple(cards),
        distractors=False,
        occluders=False,
        table_families=tuple(tables),
        tilt_deg=(0.0, 25.0),
        card_px=card_px if card_px is not None else CARD_PX,
    )


@dataclass(frozen=True, eq=False)
class DemoClip:
    """One prepared reveal: empty table, rolling frames, the still and what is on it."""

    game: str
    specs: Reveal
    empty: np.ndarray
    rolling: tuple[np.ndarray, ...]
    still: np.ndarray
    objects: tuple[Detection, ...]
    hinted: bool = False  # rendered for :meth:`DemoSource.show`


def _line_kernel(length: float, angle: float) -> np.ndarray:
    n = max(1, int(math.ceil(length))) | 1
    k = np.zeros((n, n), np.float32)
    c = (n - 1) / 2.0
    dx, dy = math.cos(angle) * c, math.sin(angle) * c
    cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
    return k / max(float(k.sum()), 1e-6)


def _paste(dst: np.ndarray, patch: np.ndarray, alpha: np.ndarray, cx: float, cy: float) -> None:
    """Alpha-blend ``patch`` (float32 BGR) centred at (cx, cy), clipped to ``dst``."""
    ph, pw = alpha.shape
    x0, y0 = int(round(cx - pw / 2)), int(round(cy - ph / 2))
    h, w = dst.shape[:2]
    sx0, sy0 = max(0, -x0), max(0, -y0)
    dx0, dy0 = max(0, x0), max(0, y0)
    dx1, dy1 = min(w, x0 + pw), min(h, y0 + ph)
    if dx1 <= dx0 or dy1 <= dy0:
        return
    a = alpha[sy0 : sy0 + dy1 - dy0, sx0 : sx0 + dx1 - dx0, None]
    p = patch[sy0 : sy0 + dy1 - dy0, sx0 : sx0 + dx1 - dx0]
    roi = dst[dy0:dy1, dx0:dx1]
    roi[:] = roi * (1.0 - a) + p * a


def smooth_fill(image: np.ndarray, mask: np.ndarray, sigma: float) -> np.ndarray:
    """``image`` (float32) with the pixels under ``mask`` replaced by a blur of the pixels
    around them (normalised convolution, the blur widening until every hole is reached):
    smooth shading without the streaks inpainting draws across holes as big as a card."""
    h, w = mask.shape
    valid = (mask == 0).astype(np.float32)
    src = image.astype(np.float32) * valid[..., None]
    out = image.astype(np.float32)
    todo = mask > 0
    while todo.any() and sigma < 2 * max(h, w):
        weight = cv2.GaussianBlur(valid, (0, 0), sigma)
        ok = todo & (weight > 0.05)
        if ok.any():
            out[ok] = cv2.GaussianBlur(src, (0, 0), sigma)[ok] / weight[ok][:, None]
        todo &= ~ok
        sigma *= 2.0
    if todo.any():  # nothing of the table visible at all
        out[todo] = out[~todo].mean(axis=0) if (~todo).any() else 0.0
    return out


def empty_table(still: np.ndarray, boxes: Sequence[tuple[float, float, float, float]], rng: np.random.Generator) -> np.ndarray:
    """The table of ``still`` with the dice (and their shadows) painted out.

    The renderer cannot draw a table without dice, so the dice are removed: boxes plus a
    margin, and nearby pixels clearly darker than the table around them (shadows), are
    filled from the table around them for the smooth shading (:func:`smooth_fill`), then
    the table's fine texture is copied back from regions of the frame that hold no die.
    Good on the plain table families the demo uses (wood, felt, laminate, paper,
    concrete); checks and patterns would smear.
    """
    h, w = still.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    sizes = [max(x2 - x1, y2 - y1) for x1, y1, x2, y2 in boxes]
    die = float(np.median(sizes)) if sizes else 20.0
    for (x1, y1, x2, y2), size in zip(boxes, sizes):
        m = 0.2 * size
        cv2.rectangle(mask, (int(x1 - m), int(y1 - m)), (int(math.ceil(x2 + m)), int(math.ceil(y2 + m))), 255, -1)
    lum = cv2.cvtColor(still, cv2.COLOR_BGR2GRAY).astype(np.float32)
    valid = (mask == 0).astype(np.float32)
    sigma = 1.5 * die
    background = cv2.GaussianBlur(lum * valid, (0, 0), sigma) / np.maximum(cv2.GaussianBlur(valid, (0, 0), sigma), 1e-3)
    reach = int(2 * die) | 1
    near = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach)))
    shadow = (cv2.GaussianBlur(lum, (0, 0), 2.0) < 0.9 * background) & (near > 0)
    mask = cv2.dilate(mask | (shadow.astype(np.uint8) * 255), np.ones((5, 5), np.uint8))
    low = smooth_fill(still, mask, 3.0)
    detail = still.astype(np.float32) - cv2.GaussianBlur(still.astype(np.float32), (0, 0), 2.5)
    # The fine texture comes from elsewhere on the table: each hole pixel p copies the detail
    # at p + (dx, dy), trying the nearest shifts first, where that source is well clear of
    # every die or card (a big hole is filled as a patchwork of shifts).
    holes = mask > 0
    clean = cv2.dilate(mask, np.ones((9, 9), np.uint8)) == 0
    shifts = sorted(((int(rng.integers(-w // 2, w // 2)), int(rng.integers(-h // 2, h // 2))) for _ in range(40)), key=lambda d: math.hypot(*d))
    texture = np.zeros_like(detail)
    got = np.zeros((h, w), bool)
    for dx, dy in shifts:
        take = holes & ~got & np.roll(clean, (-dy, -dx), axis=(0, 1))
        if take.any():
            texture[take] = np.roll(detail, (-dy, -dx), axis=(0, 1))[take]
            got |= take
            if got[holes].all():
                break
    weight = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), 2.0)[..., None]
    out = low + texture * weight
    return np.clip(out, 0, 255).astype(np.uint8)


@dataclass(frozen=True, eq=False)
class Piece:
    """One thing that rolls (or slides) in: the object the reader should find, and its
    outline in the still (``None`` for a die: a rounded square filling its box)."""

    truth: Detection
    outline: np.ndarray | None = None  # (N, 2) pixel polygon, e.g. a card's four corners


def card_pieces(scene: RenderedScene) -> tuple[Piece, ...]:
    """One piece per face-up card of a rendered card scene: the card as a whole (face
    ``"10H"``, box around the card) with its four corners as the outline. The scene's own
    objects are corner indices, two per card; the table waits for cards."""
    h, w = scene.image.shape[:2]
    out = []
    for card in scene.meta.get("cards", []):
        if not card.get("face_up") or not card.get("face"):
            continue
        quad = np.asarray(card["corners_px"], np.float32)
        x1, y1 = float(np.clip(quad[:, 0].min(), 0, w)), float(np.clip(quad[:, 1].min(), 0, h))
        x2, y2 = float(np.clip(quad[:, 0].max(), 0, w)), float(np.clip(quad[:, 1].max(), 0, h))
        out.append(Piece(Detection(kind="card", face=str(card["face"]), colour=None, box=(x1, y1, x2, y2), score=1.0), quad))
    return tuple(out)


def _piece_alpha(piece: Piece, x0: int, y0: int, ch: int, cw: int) -> np.ndarray:
    if piece.outline is not None:
        mask = np.zeros((ch, cw), np.uint8)
        pts = np.round((piece.outline - [x0, y0]) * 4).astype(np.int32)  # 2 bits of sub-pixel precision
        cv2.fillPoly(mask, [pts], 255, cv2.LINE_AA, shift=2)
        return mask.astype(np.float32) / 255.0
    alpha = np.zeros((ch, cw), np.float32)
    r = max(1, int(0.22 * min(ch, cw)))
    cv2.rectangle(alpha, (r, 0), (cw - 1 - r, ch - 1), 1.0, -1)
    cv2.rectangle(alpha, (0, r), (cw - 1, ch - 1 - r), 1.0, -1)
    for cx, cy in ((r, r), (cw - 1 - r, r), (r, ch - 1 - r), (cw - 1 - r, ch - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 1.0, -1)
    return alpha


def make_clip(
    rng: np.random.Generator, game: str, specs: Reveal, scene: RenderedScene, rolling: int, pieces: Sequence[Piece] | None = None
) -> DemoClip:
    """Build a clip from a rendered still: paint the pieces (default: the scene's dice) out
    for the empty table (see :func:`empty_table`), then slide each piece in from a random
    start, spinning and motion-blurred, easing into where it lies in the still."""
    still = scene.image
    h, w = still.shape[:2]
    if pieces is None:
        pieces = tuple(Piece(obj) for obj in scene.objects)
    patches = []
    for piece in pieces:
        x1, y1, x2, y2 = piece.truth.box
        size = max(x2 - x1, y2 - y1)
        crop = still[int(y1) : int(math.ceil(y2)), int(x1) : int(math.ceil(x2))].astype(np.float32)
        ch, cw = crop.shape[:2]
        if ch < 2 or cw < 2:
            continue
        alpha = _piece_alpha(piece, int(x1), int(y1), ch, cw)
        # Room for rotation and blur around the patch.
        pad = int(0.6 * max(ch, cw))
        crop = cv2.copyMakeBorder(crop, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
        alpha = cv2.copyMakeBorder(alpha, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
        patches.append(((x1 + x2) / 2, (y1 + y2) / 2, size, crop, alpha))
    empty = empty_table(still, [p.truth.box for p in pieces], rng)
    base = empty.astype(np.float32)

    starts = []
    for cx, cy, size, _, _ in patches:
        ang = float(rng.uniform(0, 2 * math.pi))
        dist = float(rng.uniform(2.0, 5.0)) * size
        sx = float(np.clip(cx + dist * math.cos(ang), 0, w))
        sy = float(np.clip(cy + dist * math.sin(ang), 0, h))
        starts.append((sx, sy, float(rng.uniform(-540, 540))))
    frames = []
    for k in range(rolling):
        p = (k + 1) / (rolling + 1)
        ease = 1.0 - (1.0 - p) ** 2
        speed = 2.0 * (1.0 - p)  # derivative of the easing: fast first, slowing as it lands
        frame = base.copy()
        for (cx, cy, size, crop, alpha), (sx, sy, spin) in zip(patches, starts):
            x = sx + (cx - sx) * ease
            y = sy + (cy - sy) * ease
            dist = math.hypot(cx - sx, cy - sy)
            ph, pw = alpha.shape
            rot = cv2.getRotationMatrix2D((pw / 2, ph / 2), spin * (1.0 - ease), 1.0)
            c = cv2.warpAffine(crop, rot, (pw, ph), flags=cv2.INTER_LINEAR)
            a = cv2.warpAffine(alpha, rot, (pw, ph), flags=cv2.INTER_LINEAR)
            blur = min(0.5 * size, speed * dist / (rolling + 1))
            if blur >= 2:
                kern = _line_kernel(blur, math.atan2(cy - sy, cx - sx))
                c, a = cv2.filter2D(c, -1, kern), cv2.filter2D(a, -1, kern)
            _paste(frame, c, a, x, y)
        frames.append(np.clip(frame, 0, 255).astype(np.uint8))
    return DemoClip(game=game, specs=specs, empty=empty, rolling=tuple(frames), still=still, objects=tuple(p.truth for p in pieces))


class DemoSource:
    """The demo as a :class:`~vision.live.sources.FrameSource` (see the module doc). ``read()`` never renders."""

    live = False

    def __init__(
        self,
        *,
        fps: float = 15.0,
        size: tuple[int, int] = (640, 480),
        hold_s: float = 4.0,
        empty_s: float = 0.6,
        rolling: int = 8,
        bank: int = 6,
        games: Sequence[str] = GAMES,
        seed: int | None = None,
        noise_sigma: float = 2.5,
        renderer: Renderer = render_scene,
        card_renderer: CardRenderer = render_card_scene,
    ) -> None:
        unknown = [g for g in games if g not in REVEALS]
        if unknown or not games:
            raise ValueError(f"unknown demo games {unknown}; choose from {sorted(REVEALS)}")
        self.name = "demo"
        self.fps = fps
        self.size = size
        self.hold_frames = max(1, round(hold_s * fps))
        self.empty_frames = max(0, round(empty_s * fps))
        self.rolling = rolling
        self.bank_size = max(1, bank)
        self.games = tuple(games)
        self._dice_games = tuple(g for g in self.games if g != "doubt") or GAMES
        self._renderer = renderer
        self._card_renderer = card_renderer
        self._rng = np.random.default_rng(seed)
        self._pacer = Pacer(fps)
        self._noise = self._make_noise(np.random.default_rng(None if seed is None else seed + 1), noise_sigma)
        self._noise_k = 0

        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._bank: list[DemoClip] = []
        self._played_since_refresh = 0
        self._hint: Reveal | None = None
        self._hinted: DemoClip | None = None
        self._asked: Reveal | None = None  # the latest hint, rolled again when its clip ends
        self._asked_left = 0
        self._generation = 0  # bumped by show() and hold(): a render asked for before is dropped
        self._render_errors = 0
        self._last_error: str | None = None
        # Player state (only touched by the reading thread).
        self._clip: DemoClip | None = None
        self._pos = 0
        self._next_bank = 0
        self._truth: tuple[Detection, ...] | None = ()
        self._placard: np.ndarray | None = None

        self._thread = threading.Thread(target=self._render_loop, name="demo-render", daemon=True)
        self._thread.start()

    # -- public -------------------------------------------------------------------------

    def show(self, specs: Sequence[DieSpec] | Sequence[str]) -> None:
        """Reveal exactly these dice next (faces ``None`` are rolled at random), or these
        playing cards (``["QS", "10H"]``, 1-5 of them, face up in a row).

        Raises a :class:`vision.synth.errors.SynthError` for a design, colour, face or card
        the renderer does not know. A newer hint replaces one not yet rendered.
        """
        checked = check_specs(specs)
        with self._cond:
            self._generation += 1
            self._hinted = None
            self._hint = self._asked = checked
            self._asked_left = HINT_ROLLS - 1
            self._follow(game_of(checked))
            self._cond.notify_all()

    def hold(self) -> None:
        """The table has read the reveal on show: roll nothing more (no re-roll, no loop)
        until the next :meth:`show`, so the dice read stay the dice on the table."""
        with self._cond:
            self._generation += 1
            self._asked_left = 0
            self._hint = self._hinted = None
            self._cond.notify_all()

    def _follow(self, game: str) -> None:
        """Loop over the game last asked for only: a table sees its own game's dice (a
        reader set to cards must never be shown dice, it would read pips as card indices)."""
        games = (game,) if game in REVEALS else self._dice_games
        if self.games == games:
            return
        self.games = games
        self._bank = [c for c in self._bank if c.game in games]

    @property
    def last_truth(self) -> tuple[Detection, ...] | None:
        """What is on the table in the frame last served: the dice of the still, ``()`` for
        the empty table, ``None`` while dice are rolling."""
        return self._truth

    @property
    def clip(self) -> DemoClip | None:
        """The clip now playing."""
        return self._clip

    def ready(self) -> int:
        """How many clips are rendered and waiting in the bank."""
        with self._cond:
            return len(self._bank)

    def read(self) -> np.ndarray:
        self._pacer.wait()
        with self._cond:
            hinted, self._hinted = self._hinted, None
            if hinted is not None:
                self._start(hinted)
            elif self._clip is not None and self._pos >= self._length(self._clip) and self._clip.hinted:
                # Roll the asked-for dice again, in a fresh layout, while holding this still: a
                # reveal that a reader could not settle (a die read on and off) gets more chances.
                # Then (or once held) the revealed dice stay: the loop never replaces them.
                if self._asked_left > 0:
                    self._asked_left -= 1
                    if self._hint is None:
                        self._hint = self._asked
                        self._cond.notify_all()
                self._pos = self.empty_frames + len(self._clip.rolling)
            elif self._clip is None or self._pos >= self._length(self._clip):
                if self._bank:
                    clip = self._bank[self._next_bank % len(self._bank)]
                    self._next_bank += 1
                    self._played_since_refresh += 1
                    self._cond.notify_all()
                    self._start(clip)
                elif self._clip is not None:
                    self._pos = self.empty_frames + self.rolling  # keep holding the still
        if self._clip is None:
            self._truth = ()
            return self._waiting_frame()
        frame = self._frame_at(self._clip, self._pos)
        self._pos += 1
        return self._noisy(frame)

    def close(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=0.5)  # a render in progress finishes on its own, then exits

    # -- playing ------------------------------------------------------------------------

    def _length(self, clip: DemoClip) -> int:
        return self.empty_frames + len(clip.rolling) + self.hold_frames

    def _start(self, clip: DemoClip) -> None:
        self._clip, self._pos = clip, 0

    def _frame_at(self, clip: DemoClip, pos: int) -> np.ndarray:
        if pos < self.empty_frames:
            self._truth = ()
            return clip.empty
        pos -= self.empty_frames
        if pos < len(clip.rolling):
            self._truth = None
            return clip.rolling[pos]
        self._truth = clip.objects
        return clip.still

    def _noisy(self, frame: np.ndarray) -> np.ndarray:
        pos, neg = self._noise[self._noise_k % len(self._noise)]
        self._noise_k += 1
        h, w = frame.shape[:2]
        if pos.shape[:2] != (h, w):
            pos, neg = cv2.resize(pos, (w, h)), cv2.resize(neg, (w, h))
        return cv2.subtract(cv2.add(frame, pos), neg)

    def _make_noise(self, rng: np.random.Generator, sigma: float, count: int = 7) -> list[tuple[np.ndarray, np.ndarray]]:
        w, h = self.size
        out = []
        for _ in range(count):
            n = rng.normal(0.0, sigma, (h, w, 3))
            out.append((np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)))
        return out

    def _waiting_frame(self) -> np.ndarray:
        if self._placard is None:
            from vision.live.overlay import draw_placard

            lines = ["preparing the demo table ...", self._last_error or ""]
            self._placard = draw_placard(lines, self.size)
            self._placard.setflags(write=False)
        return self._placard

    # -- rendering (background thread) --------------------------------------------------

    def _render_loop(self) -> None:
        game_k = 0
        while not self._stop.is_set():
            with self._cond:
                while not self._stop.is_set():
                    if self._hint is not None or len(self._bank) < self.bank_size:
                        break
                    if self._played_since_refresh >= self.bank_size:
                        break
                    self._cond.wait(1.0)
                if self._stop.is_set():
                    return
                hint, self._hint = self._hint, None
                generation = self._generation
                refresh = hint is None and len(self._bank) >= self.bank_size
                if refresh:
                    self._played_since_refresh = 0
            game = game_of(hint) if hint is not None else self.games[game_k % len(self.games)]
            if hint is None:
                game_k += 1
            try:
                clip = self._render(game, hint)
            except Exception as err:  # a failed render must never stop the demo
                self._render_errors += 1
                self._last_error = f"render failed: {err}"
                log.warning("demo render failed (%s): %s", game, err)
                if self._stop.wait(min(10.0, 0.5 * 2 ** min(self._render_errors, 5))):
                    return
                continue
            self._render_errors = 0
            with self._cond:
                if hint is not None:
                    if generation == self._generation:  # not since replaced (show) or held (hold)
                        self._hinted = dataclasses.replace(clip, hinted=True)
                elif clip.game not in self.games:
                    continue  # rendered for the loop before the kind of reveal changed (see _follow)
                elif refresh and len(self._bank) >= self.bank_size:  # (the bank may have been emptied since)
                    # Replace, in the bank, the clip just started: it has been seen and would
                    # come round last (the player keeps its own reference, so nothing jumps).
                    self._bank[(self._next_bank - 1) % len(self._bank)] = clip
                else:
                    self._bank.append(clip)

    def _render(self, game: str, hint: Reveal | None) -> DemoClip:
        with self._cond:
            seed = int(self._rng.integers(2**32))
        rng = np.random.default_rng(seed)
        specs = hint if hint is not None else REVEALS[game](rng)
        t0 = time.perf_counter()
        if game == "doubt":
            cards = tuple(str(c) for c in specs)
            scene = self._card_renderer(rng, demo_card_config(cards, self.size))
            clip = make_clip(rng, game, cards, scene, self.rolling, card_pieces(scene))
        else:
            scene = self._renderer(rng, demo_scene_config(specs, self.size))  # type: ignore[arg-type]
            clip = make_clip(rng, game, specs, scene, self.rolling)
        log.debug("demo clip %s (%d objects) in %.0f ms", game, len(clip.objects), (time.perf_counter() - t0) * 1000)
        return clip
