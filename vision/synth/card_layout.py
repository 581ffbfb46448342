"""Playing cards on the table: layouts, placement in view, painting, and labels.

Cards lie flat on the table, painted into its albedo like the other flat
things, so the lamp, the shadows of hands and the camera treat them as part of
the table; their finish adds its own sheen (glare). A scene asks for cards with
:class:`CardOptions`; :func:`plan_cards` lays groups out in view,
:func:`paint_cards` draws them and :func:`label_cards` labels what stays visible.

Layouts (each a group of cards of one deck):

- ``single``: one card face up;
- ``row``: 1-4 cards side by side (sometimes the four of a kind), now and then one face down;
- ``spread``: 2-5 overlapping cards shifted sideways, only the top-left index of the lower ones showing;
- ``fan``: 2-5 cards fanned from a pivot, as held in a hand and put down;
- ``pile``: a messy pile of face-down cards (unlabelled), sometimes one turned up on top.

``CardOptions(hand=("QS", "QH"))`` lays exactly those cards face up in one row, all in
view (a reveal the demo table shows).

Labelling rule: one label per corner index (rank and suit glyphs) with at
least ``min_visible`` (85 %) of its area visible -- not under another card, a
finger, a die or outside the frame -- and at least ``min_index_px`` on its
shorter side. Partly visible indices are listed as unlabelled regions.

>>> check_options(CardOptions(layouts=("fan",)))
>>> sorted(LAYOUTS)
['fan', 'pile', 'row', 'single', 'spread']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.read.detections import CARD_RANKS, CARD_SUITS, Detection
from vision.synth.card_faces import ALL_CARDS, CardDesign, CardFace, draw_back, draw_face
from vision.synth.errors import BadSceneConfig, UnknownCardLayout
from vision.synth.geometry import Camera
from vision.synth.lighting import Light, sheen
from vision.synth.tables import TableContext

LAYOUTS: dict[str, float] = {"single": 0.15, "row": 0.3, "spread": 0.17, "fan": 0.2, "pile": 0.18}
CARD_THICKNESS_MM = 0.3
_SRGB_LUT = (np.where(np.arange(256) / 255.0 <= 0.04045, np.arange(256) / 255.0 / 12.92, ((np.arange(256) / 255.0 + 0.055) / 1.055) ** 2.4)).astype(np.float32)


@dataclass(frozen=True)
class CardOptions:
    """Which cards to lay: layouts (None = all), how many groups, the held-out deck designs, the label rule."""

    layouts: tuple[str, ...] | None = None
    groups: tuple[int, int] = (1, 3)
    heldout: bool = False
    wide_decks: bool = False  # training decks also draw the extra index fonts and court styles
    font_pool: bool = False  # wide decks also draw Debian's fonts (card_fonts.POOL_INDEX_FONTS)
    min_visible: float = 0.85
    min_index_px: float = 5.0
    hand: tuple[str, ...] | None = None  # exactly these cards, face up in one row, all in view


MAX_HAND = 5


def check_options(options: CardOptions) -> None:
    if options.hand is not None:
        if not 1 <= len(options.hand) <= MAX_HAND:
            raise BadSceneConfig(f"{len(options.hand)} cards in the hand: give 1..{MAX_HAND}")
        for code in options.hand:
            if code not in ALL_CARDS:
                raise BadSceneConfig(f"{code!r} is not a card (rank A, 2-10, J, Q or K, then suit S, H, D or C)")
        if len(set(options.hand)) != len(options.hand):
            raise BadSceneConfig(f"a card appears twice in the hand {list(options.hand)}: one deck holds each card once")
    if options.layouts is not None:
        if not options.layouts:
            raise BadSceneConfig("layouts is empty")
        for name in options.layouts:
            if name not in LAYOUTS:
                raise UnknownCardLayout(name)
    lo, hi = options.groups
    if not 1 <= lo <= hi <= 6:
        raise BadSceneConfig(f"card groups {options.groups}: give 1 <= low <= high <= 6")
    if not 0.0 < options.min_visible <= 1.0:
        raise BadSceneConfig("min_visible must be in (0, 1]")
    if options.heldout and options.wide_decks:
        raise BadSceneConfig("held-out decks and wide training decks exclude each other")
    if options.font_pool and not options.wide_decks:
        raise BadSceneConfig("the font pool is for wide training decks (wide_decks)")


@dataclass
class PlacedCard:
    """One card of a group: in the group's frame first (mm, x right, y down as seen from above), then on the table."""

    code: str | None  # None = face down
    group: int
    layout: str
    local: tuple[float, float]
    angle: float  # radians, clockwise as seen from above
    level: int = 0  # cards under it in a pile (lifts it a little)
    to_world: np.ndarray | None = None  # 3x3: card mm (origin top-left) -> table mm
    face: CardFace | None = None
    to_image: np.ndarray | None = None  # 3x3: card mm -> image px
    x0: int = 0
    y0: int = 0
    alpha: np.ndarray | None = None  # coverage in the image window at (x0, y0)


@dataclass
class LaidCards:
    """Cards painted into a table: what the labeller and the sheen need."""

    design: CardDesign
    cards: list[PlacedCard]
    gloss: np.ndarray  # (H, W) the card finish's gloss where cards are, 0 elsewhere
    coverage: np.ndarray  # (H, W) card coverage
    px_per_mm: float
    groups: list[dict] = field(default_factory=list)


def _index_right_mm(design: CardDesign) -> float:
    """How far from the left edge the index column reaches (what a spread or fan must leave showing)."""
    return design.index_cx_mm + 0.45 * design.rank_mm * design.stretch + 0.6


def _group(rng: np.random.Generator, layout: str, deck: list[str], design: CardDesign, gid: int) -> list[PlacedCard]:
    w, h = design.size_mm
    out: list[PlacedCard] = []

    def take() -> str:
        return deck.pop() if deck else ALL_CARDS[int(rng.integers(len(ALL_CARDS)))]

    if layout == "hand":  # the cards asked for (CardOptions.hand), face up side by side
        gap = float(rng.uniform(4.0, 16.0))
        for i, c in enumerate(deck):
            x = (i - (len(deck) - 1) / 2.0) * (w + gap)
            out.append(PlacedCard(c, gid, "row", (x, float(rng.normal(0, 2.0))), float(rng.normal(0, 0.04))))
    elif layout == "single":
        out.append(PlacedCard(take(), gid, layout, (0.0, 0.0), float(rng.normal(0, 0.05))))
    elif layout == "row":
        n = int(rng.choice([1, 2, 3, 4], p=[0.2, 0.3, 0.25, 0.25]))
        if n == 4 and rng.random() < 0.5:  # four of a kind, taken out of the deck
            rank = CARD_RANKS[int(rng.integers(len(CARD_RANKS)))]
            codes = [rank + s for s in rng.permutation(list(CARD_SUITS))]
            for c in codes:
                if c in deck:
                    deck.remove(c)
        else:
            codes = [take() for _ in range(n)]
        gap = float(rng.uniform(2.0, 16.0))
        for i, c in enumerate(codes):
            x = (i - (n - 1) / 2.0) * (w + gap)
            down = n > 1 and rng.random() < 0.08
            out.append(PlacedCard(None if down else c, gid, layout, (x, float(rng.normal(0, 2.0))), float(rng.normal(0, 0.04))))
    elif layout == "spread":
        n = int(rng.integers(2, 6))
        right = _index_right_mm(design)
        dx = float(rng.uniform(right + 2.0, right + 14.0))
        for i in range(n):
            out.append(PlacedCard(take(), gid, layout, ((i - (n - 1) / 2.0) * dx, float(rng.normal(0, 1.5))), float(rng.normal(0, 0.03))))
    elif layout == "fan":
        n = int(rng.integers(2, 6))
        d = h * float(rng.uniform(0.28, 0.45))  # pivot below the centre
        reach = d + h / 2.0
        need = math.asin(min(0.9, (_index_right_mm(design) + 2.0) / reach))
        step = float(rng.uniform(max(need, math.radians(7)), max(need, math.radians(7)) + math.radians(8)))
        sign = -1.0 if rng.random() < 0.1 else 1.0  # a left-handed fan hides the lower cards' indices
        for i in range(n):
            a = sign * (i - (n - 1) / 2.0) * step
            out.append(PlacedCard(take(), gid, layout, (d * math.sin(a), d - d * math.cos(a)), a))
    elif layout == "pile":
        n = int(rng.integers(3, 15))
        spread = float(rng.uniform(0.5, 5.0))
        turn = float(rng.uniform(0.02, 0.35))
        for i in range(n):
            out.append(PlacedCard(None, gid, layout, tuple(rng.normal(0, spread, 2)), float(rng.normal(0, turn)), level=i))  # type: ignore[arg-type]
        if rng.random() < 0.3:  # a challenged card turned up on the pile
            out.append(PlacedCard(take(), gid, layout, tuple(rng.normal(0, spread, 2)), float(rng.normal(0, turn)), level=n))  # type: ignore[arg-type]
    else:
        raise UnknownCardLayout(layout)
    return out


def _card_to_group(card: PlacedCard, w: float, h: float) -> np.ndarray:
    c, s = math.cos(card.angle), math.sin(card.angle)
    return np.array([[c, -s, card.local[0]], [s, c, card.local[1]], [0, 0, 1]]) @ np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]])


def _group_to_world(centre: np.ndarray, yaw: float) -> np.ndarray:
    # The y flip: the group frame is drawn as seen from above (y down), the table's y runs the other way.
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s, centre[0]], [s, c, centre[1]], [0, 0, 1]]) @ np.diag([1.0, -1.0, 1.0])


def _corners(w: float, h: float) -> np.ndarray:
    return np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], float).T


def plan_cards(
    rng: np.random.Generator,
    cam: Camera,
    options: CardOptions,
    design: CardDesign,
    avoid: list[tuple[np.ndarray, float]] | None = None,
) -> list[PlacedCard]:
    """Groups of cards put in view (not overlapping each other, nor the ``avoid`` circles on the table, mm).

    Returns the cards in drawing order (bottom first); empty when nothing fitted.
    """
    w_mm, h_mm = design.size_mm
    names = list(options.layouts or LAYOUTS)
    p = np.array([LAYOUTS[n] for n in names])
    lo, hi = options.groups
    n_groups = int(rng.integers(lo, hi + 1)) if options.hand is None else 1
    deck = [ALL_CARDS[i] for i in rng.permutation(len(ALL_CARDS))] if options.hand is None else list(options.hand)
    placed: list[PlacedCard] = []
    circles: list[tuple[np.ndarray, float]] = []
    W, H = cam.width, cam.height
    for gid in range(n_groups):
        layout = str(names[int(rng.choice(len(names), p=p / p.sum()))]) if options.hand is None else "hand"
        cards = _group(rng, layout, deck, design, gid)
        local = [_card_to_group(c, w_mm, h_mm) for c in cards]
        pts = np.concatenate([(m @ _corners(w_mm, h_mm))[:2].T for m in local])
        radius = float(np.linalg.norm(pts, axis=1).max())
        cut_ok = rng.random() < 0.12 and options.hand is None  # now and then a group runs off the frame
        for attempt in range(40):
            centre = cam.unproject_to_plane(np.array([[rng.uniform(0.12, 0.88) * W, rng.uniform(0.12, 0.88) * H]]))[0]
            if any(np.hypot(*(centre - c)) < radius + r + 6.0 for c, r in circles):
                continue
            if avoid and attempt < 30 and any(np.hypot(*(centre - c)) < radius + r for c, r in avoid):
                continue
            g = _group_to_world(centre, float(rng.uniform(0, 2 * math.pi)))
            world = np.concatenate([(g @ m @ _corners(w_mm, h_mm))[:2].T for m in local])
            px, z = cam.project(np.column_stack([world, np.zeros(len(world))]))
            if (z <= 1).any():
                continue
            inside = (px[:, 0] >= 2) & (px[:, 0] <= W - 2) & (px[:, 1] >= 2) & (px[:, 1] <= H - 2)
            if not (inside.all() or (cut_ok and inside.mean() >= 0.5)):
                continue
            for c, m in zip(cards, local):
                c.to_world = g @ m
            placed += cards
            circles.append((centre, radius))
            break
    return placed


def _texture_scale(cam: Camera, cards: list[PlacedCard], design: CardDesign) -> float:
    """Pixels per mm to draw the faces at: a little finer than the finest the camera resolves."""
    w, h = design.size_mm
    best = 0.0
    for c in cards:
        assert c.to_world is not None
        world = (c.to_world @ _corners(w, h))[:2].T
        px, _ = cam.project(np.column_stack([world, np.zeros(4)]))
        best = max(best, float(np.linalg.norm(px[2] - px[0])) / math.hypot(w, h))
    return float(np.clip(round(best * 1.6 * 2) / 2, 3.0, 14.0))


def paint_cards(rng: np.random.Generator, cam: Camera, albedo: np.ndarray, light: Light, cards: list[PlacedCard], design: CardDesign) -> LaidCards:
    """Draw the planned cards into the table's linear ``albedo`` (in place), bottom first."""
    h_img, w_img = albedo.shape[:2]
    k = _texture_scale(cam, cards, design)
    gloss = np.zeros((h_img, w_img), np.float32)
    coverage = np.zeros((h_img, w_img), np.float32)
    back: CardFace | None = None
    mm_to_tex = np.diag([k, k, 1.0])
    for card in cards:
        assert card.to_world is not None
        if card.code is None:
            back = back if back is not None else draw_back(design, k, rng)
            face = back
        else:
            face = draw_face(card.code, design, k, rng)
        card.face = face
        fw, fh = face.size_mm
        hmap = cam.plane_homography(CARD_THICKNESS_MM * (card.level + 0.5)) @ card.to_world
        card.to_image = hmap
        px = hmap @ _corners(fw, fh)
        px = (px[:2] / px[2]).T
        pad = 3
        x0, y0 = max(0, int(px[:, 0].min()) - pad), max(0, int(px[:, 1].min()) - pad)
        x1, y1 = min(w_img, int(px[:, 0].max()) + pad + 2), min(h_img, int(px[:, 1].max()) + pad + 2)
        if x1 <= x0 or y1 <= y0:
            card.alpha = None
            continue
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float) @ hmap @ np.linalg.inv(mm_to_tex)
        rgba = np.dstack([face.rgb, (face.alpha * 255.0 + 0.5).astype(np.uint8)])
        warped = cv2.warpPerspective(rgba, shift, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        a = warped[..., 3].astype(np.float32) / 255.0
        colour = _SRGB_LUT[warped[..., :3]]
        # A slight bend or tilt of the card shows as a gentle gradient of light across it.
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        ctr = px.mean(axis=0)
        size = float(np.linalg.norm(px[2] - px[0])) + 1.0
        g = rng.normal(0.0, 0.06, 2)
        colour *= (float(rng.uniform(0.96, 1.03)) + (g[0] * (xx - ctr[0]) + g[1] * (yy - ctr[1])) / size)[..., None]
        win = albedo[y0:y1, x0:x1]
        # The card's edge: a thin soft shadow on what lies under it.
        ring = np.clip(cv2.GaussianBlur(a, (0, 0), float(np.clip(size / 400.0, 0.6, 1.5))) - a, 0.0, 1.0)
        win *= (1.0 - float(rng.uniform(0.25, 0.6)) * ring)[..., None]
        win[:] = win * (1.0 - a[..., None]) + colour * a[..., None]
        gloss[y0:y1, x0:x1] = gloss[y0:y1, x0:x1] * (1.0 - a) + np.float32(design.gloss) * a
        coverage[y0:y1, x0:x1] = np.maximum(coverage[y0:y1, x0:x1], a)
        card.x0, card.y0, card.alpha = x0, y0, a
    groups: dict[int, dict] = {}
    for c in cards:
        groups.setdefault(c.group, {"layout": c.layout, "cards": 0, "face_up": 0})
        groups[c.group]["cards"] += 1
        groups[c.group]["face_up"] += c.code is not None
    return LaidCards(design, cards, gloss, coverage, k, [groups[g] for g in sorted(groups)])


def card_sheen(laid: LaidCards, cam: Camera, light: Light, ctx: TableContext) -> np.ndarray:
    """The lamp's reflection on the cards' finish (H, W): zero off the cards."""
    xs, ys = ctx.xs, ctx.ys
    p = np.stack([xs, ys, np.zeros_like(xs)], axis=-1)
    spec_q = sheen(p, cam.centre, light, laid.design.shininess).astype(np.float32)
    h, w = laid.gloss.shape
    q = 4  # the coarse grid of TableContext
    big = cv2.resize(spec_q, (xs.shape[1] * q, xs.shape[0] * q), interpolation=cv2.INTER_LINEAR)[:h, :w]
    return big * laid.gloss


def _area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def _project(hmap: np.ndarray, pts_mm: np.ndarray) -> np.ndarray:
    q = hmap @ np.column_stack([pts_mm, np.ones(len(pts_mm))]).T
    return (q[:2] / q[2]).T


def _visible(laid: LaidCards, i: int, quad: np.ndarray, occluded: np.ndarray) -> float:
    """Fraction of ``quad`` (image px: an index, or the whole card) that is in frame and not under later cards or 3D things."""
    h, w = occluded.shape
    full = _area(quad)
    if full < 1.0:
        return 0.0
    x0, y0 = max(0, int(np.floor(quad[:, 0].min()))), max(0, int(np.floor(quad[:, 1].min())))
    x1, y1 = min(w, int(np.ceil(quad[:, 0].max())) + 1), min(h, int(np.ceil(quad[:, 1].max())) + 1)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(m, [np.round((quad - [x0, y0]) * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    keep = (m.astype(np.float32) / 255.0) * (1.0 - occluded[y0:y1, x0:x1])
    for later in laid.cards[i + 1 :]:
        if later.alpha is None:
            continue
        lh, lw = later.alpha.shape
        ax0, ay0 = max(x0, later.x0), max(y0, later.y0)
        ax1, ay1 = min(x1, later.x0 + lw), min(y1, later.y0 + lh)
        if ax0 >= ax1 or ay0 >= ay1:
            continue
        keep[ay0 - y0 : ay1 - y0, ax0 - x0 : ax1 - x0] *= 1.0 - later.alpha[ay0 - later.y0 : ay1 - later.y0, ax0 - later.x0 : ax1 - later.x0]
    return float(np.clip(keep.sum() / full, 0.0, 1.0))


def label_cards(
    laid: LaidCards,
    occluded: np.ndarray,
    options: CardOptions,
    first_object: int = 0,
) -> tuple[list[Detection], list[dict], list[dict]]:
    """Labels for the visible corner indices, each card's meta, and the unlabelled index regions.

    ``occluded`` (H, W) is what stands over the table in front of the cards
    (dice, cups, hands: 1 = hidden). A card's meta lists its image corners
    (top-left, top-right, bottom-right, bottom-left of the card as printed) and
    its indices, each with its box, visible fraction and, when labelled, its
    position in the scene's objects (``object``), so two corners of one card
    can be merged into one card.
    """
    h, w = occluded.shape
    objects: list[Detection] = []
    cards_meta: list[dict] = []
    unlabelled: list[dict] = []
    for i, card in enumerate(laid.cards):
        if card.face is None or card.to_image is None:
            continue
        fw, fh = card.face.size_mm
        corners = _project(card.to_image, np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], float))
        info: dict = {
            "face": card.code,
            "face_up": card.code is not None,
            "group": card.group,
            "layout": card.layout,
            "corners_px": [[round(float(x), 1), round(float(y), 1)] for x, y in corners],
            "visible": round(_visible(laid, i, corners, occluded), 3),  # of the whole card (its body)
            "indices": [],
        }
        for mark in card.face.indices:
            quad = _project(card.to_image, mark.rect_mm)
            hull = _project(card.to_image, mark.hull_mm)
            vis = _visible(laid, i, quad, occluded)
            bx0, by0 = float(np.clip(hull[:, 0].min(), 0, w)), float(np.clip(hull[:, 1].min(), 0, h))
            bx1, by1 = float(np.clip(hull[:, 0].max(), 0, w)), float(np.clip(hull[:, 1].max(), 0, h))
            box = (bx0, by0, bx1, by1)
            ok = vis >= options.min_visible and min(bx1 - bx0, by1 - by0) >= options.min_index_px
            entry = {
                "corner": mark.corner,
                "box": [round(v, 1) for v in box],
                "quad_px": [[round(float(x), 1), round(float(y), 1)] for x, y in quad],
                "visible": round(vis, 3),
                "labelled": bool(ok),
                "object": first_object + len(objects) if ok else None,
            }
            if ok:
                objects.append(Detection(kind="card", face=str(card.code), colour=None, box=box, score=1.0))
            elif vis > 0.0 and bx1 > bx0 and by1 > by0:
                unlabelled.append({"kind": "card", "face": card.code, "corner": mark.corner, "box": entry["box"], "visible": entry["visible"]})
            info["indices"].append(entry)
        cards_meta.append(info)
    return objects, cards_meta, unlabelled


def laid_meta(laid: LaidCards) -> dict:
    return {"design": laid.design.to_json(), "texture_px_per_mm": laid.px_per_mm, "groups": laid.groups}
