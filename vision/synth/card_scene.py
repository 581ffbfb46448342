"""Render one labelled table scene of playing cards, as a webcam above the table sees it.

The card counterpart of :func:`vision.synth.scene.render_scene`:
``render_card_scene(rng, CardSceneConfig(...)) -> RenderedScene`` with the
image (BGR uint8), one :class:`vision.read.detections.Detection` per visible corner
index (kind "card", face = ``<rank><suit>`` such as ``"10H"``, colour None,
box = pixel box of the index's rank and suit glyphs, score 1.0), and
JSON-serialisable ``meta``: every card with its four image corners and its
indices (box, visible fraction, and the position of its label in ``objects``),
the deck design, the partly visible indices under ``unlabelled``.

The labelling rule is :mod:`vision.synth.card_layout`'s: an index is labelled
when at least ``min_visible`` (85 %) of it is visible. To put cards into a dice
scene instead, give ``SceneConfig(cards=CardOptions())`` to ``render_scene``.

>>> import numpy as np
>>> scene = render_card_scene(np.random.default_rng(3), CardSceneConfig(width=320, height=240, layouts=("row",), occluders=False))
>>> scene.image.shape, {o.kind for o in scene.objects}
((240, 320, 3), {'card'})
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.synth import props
from vision.synth.card_faces import sample_design
from vision.synth.card_layout import CardOptions, LaidCards, card_sheen, check_options, label_cards, laid_meta, paint_cards, plan_cards
from vision.synth.errors import BadSceneConfig, PlacementFailed
from vision.synth.geometry import Camera
from vision.synth.layers import Layer, composite
from vision.synth.lighting import Light, key_irradiance, sample_light, sheen
from vision.synth.scene import RESOLUTIONS, SYNTH_VERSION, RenderedScene
from vision.synth.sensor import finish, soft_blur
from vision.synth.tables import HELDOUT_FAMILIES, TRAIN_FAMILIES, TableContext, check_families, make_table

__all__ = ["CardSceneConfig", "CardOptions", "render_card_scene"]

_RES_P = (0.45, 0.4, 0.15)
_DECALS = ("paper", "coin", "chip", "token", "pencil", "card-back")  # never a face-up card nobody labels


@dataclass(frozen=True)
class CardSceneConfig:
    """What to render; every ``None`` means "random, as a webcam at a card table would see it"."""

    width: int | None = None
    height: int | None = None
    layouts: tuple[str, ...] | None = None  # see card_layout.LAYOUTS; None = all
    groups: tuple[int, int] = (1, 3)  # how many groups of cards
    heldout: bool = False  # held-out table families and deck designs (index font, court style)
    wide_decks: bool = False  # training decks also draw the extra index fonts and court styles
    font_pool: bool = False  # wide decks also draw Debian's fonts (card_fonts.POOL_INDEX_FONTS)
    table_families: tuple[str, ...] | None = None  # None = TRAIN_FAMILIES (HELDOUT_FAMILIES when heldout)
    distractors: bool = True
    occluders: bool = True  # hands and fingers over the cards
    tilt_deg: tuple[float, float] | None = None  # camera tilt from straight down; default (0, 45)
    card_px: tuple[float, float] | None = None  # card height in px, scaled to a 640-wide frame; default (80, 260)
    hfov_deg: tuple[float, float] | None = None  # default (55, 78)
    camera_effects: bool = True
    min_visible: float = 0.85  # fraction of a corner index that must be visible to label it
    hand: tuple[str, ...] | None = None  # exactly these cards, face up in one row (see CardOptions)

    @property
    def families(self) -> tuple[str, ...]:
        if self.table_families is not None:
            return self.table_families
        return HELDOUT_FAMILIES if self.heldout else TRAIN_FAMILIES

    def options(self) -> CardOptions:
        return CardOptions(layouts=self.layouts, groups=self.groups, heldout=self.heldout, wide_decks=self.wide_decks, font_pool=self.font_pool, min_visible=self.min_visible, hand=self.hand)

    def to_json(self) -> dict[str, Any]:
        out = {"scene": "cards", **dataclasses.asdict(self)}
        if self.hand is None:
            del out["hand"]  # a set written before hands could be asked for reads the same
        if not self.wide_decks:
            del out["wide_decks"]  # likewise for sets written before wide decks
        if not self.font_pool:
            del out["font_pool"]  # and before the font pool
        return out


def check_config(config: CardSceneConfig) -> None:
    if (config.width is None) != (config.height is None):
        raise BadSceneConfig("give both width and height, or neither")
    if config.width is not None and not (32 <= config.width <= 4096 and 32 <= int(config.height or 0) <= 4096):
        raise BadSceneConfig(f"image size {config.width}x{config.height} out of range 32..4096")
    if config.table_families is not None:
        if not config.table_families:
            raise BadSceneConfig("table_families is empty")
        check_families(config.table_families)
    for name, rng_ in (("tilt_deg", config.tilt_deg), ("card_px", config.card_px), ("hfov_deg", config.hfov_deg)):
        if rng_ is not None and not (len(rng_) == 2 and 0 <= rng_[0] <= rng_[1]):
            raise BadSceneConfig(f"{name} must be (low, high) with 0 <= low <= high")
    if config.card_px is not None and config.card_px[0] <= 0:
        raise BadSceneConfig("card_px must be positive")
    check_options(config.options())


def render_card_scene(rng: np.random.Generator, config: CardSceneConfig = CardSceneConfig()) -> RenderedScene:
    """Render one scene of cards (see the module doc). All randomness comes from ``rng``."""
    check_config(config)
    for _ in range(5):
        scene = _render(rng, config)
        if scene is not None:
            return scene
    raise PlacementFailed("no group of cards could be placed in view")


def _camera(rng: np.random.Generator, w: int, h: int, hfov: float, tilt: float, card_px: float, card_mm: float) -> Camera:
    f = (w / 2.0) / math.tan(math.radians(hfov) / 2.0)
    dist = f * card_mm / (card_px * w / 640.0)
    return Camera.look_at(w, h, hfov, dist, tilt, float(rng.uniform(0, 360)), roll_deg=float(rng.normal(0, 3)))


def _line_kernel(length: float, angle: float) -> np.ndarray:
    n = int(math.ceil(length)) | 1
    k = np.zeros((n, n), np.float32)
    c = (n - 1) / 2.0
    dx, dy = c * math.cos(angle), c * math.sin(angle)
    cv2.line(k, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1)
    return k / max(float(k.sum()), 1e-6)


def _hands(rng: np.random.Generator, cam: Camera, laid: LaidCards) -> list[props.Hand]:
    """A hand reaching in with its fingers over a card: over an index now and then."""
    up = [c for c in laid.cards if c.code is not None and c.face is not None and c.to_world is not None]
    if not up:
        return []
    card = up[int(rng.integers(len(up)))]
    assert card.face is not None and card.to_world is not None
    fw, fh = card.face.size_mm
    aims = ((fw * 0.12, fh * 0.1), (fw * 0.88, fh * 0.9), (fw * 0.5, fh * 0.5), (fw * float(rng.uniform(0, 1)), fh * float(rng.uniform(0, 1))))
    aim_mm = aims[int(rng.integers(len(aims)))]
    aim = (card.to_world @ np.array([aim_mm[0], aim_mm[1], 1.0]))[:2]
    w, h = cam.width, cam.height
    edge_px = np.array([[rng.uniform(0, w), h * 1.3]]) if rng.random() < 0.6 else np.array([[w * (1.3 if rng.random() < 0.5 else -0.3), rng.uniform(0, h)]])
    arm = cam.unproject_to_plane(edge_px)[0] - aim
    u = arm / max(float(np.linalg.norm(arm)), 1e-6)
    centre = aim + u * float(rng.uniform(55.0, 100.0))  # the fingertips land about on the aim
    hand = props.sample_hand(rng, (float(centre[0]), float(centre[1])), math.atan2(-u[0], u[1]))
    max_h = 0.15 * float(cam.centre[2])
    return [dataclasses.replace(hand, height=float(rng.uniform(min(6.0, max_h), min(40.0, max_h))))]


def _decals(rng: np.random.Generator, cam: Camera, albedo: np.ndarray, cards_xy: list[np.ndarray]) -> list[dict]:
    out = []
    w, h = cam.width, cam.height
    for _ in range(int(rng.integers(1, 5))):
        kind = str(rng.choice(_DECALS))
        dec = props.make_decal(rng, kind)
        for _try in range(20):
            c = cam.unproject_to_plane(np.array([[rng.uniform(-0.1, 1.1) * w, rng.uniform(-0.1, 1.1) * h]]))[0]
            # Thick things (coins, chips, pencils) do not lie under a card.
            if kind not in ("paper", "card-back") and any(np.hypot(*(c - p)) < dec.radius_mm + 50.0 for p in cards_xy):
                continue
            dec = dec.placed((float(c[0]), float(c[1])), float(rng.uniform(0, 2 * math.pi)))
            if props.paint_decal(albedo, cam, dec) is not None:
                out.append(dec.to_json())
            break
    return out


def _render(rng: np.random.Generator, config: CardSceneConfig) -> RenderedScene | None:
    if config.width is not None:
        w, h = int(config.width), int(config.height or 0)
    else:
        w, h = RESOLUTIONS[int(rng.choice(len(RESOLUTIONS), p=_RES_P))]
    families = config.families
    family = str(families[int(rng.integers(len(families)))])
    design = sample_design(rng, heldout=config.heldout, wide=config.wide_decks, pool=config.font_pool)
    options = config.options()
    card_mm = design.size_mm[1]

    hfov = float(rng.uniform(*(config.hfov_deg or (55.0, 78.0))))
    tilt = float(rng.uniform(*(config.tilt_deg or (0.0, 45.0))))
    lo, hi = config.card_px or (80.0, 260.0)
    card_px = float(np.exp(rng.uniform(math.log(lo), math.log(hi))))
    cards = []
    for _attempt in range(8):
        cam = _camera(rng, w, h, hfov, tilt, card_px, card_mm)
        cards = plan_cards(rng, cam, options, design)
        if cards:
            break
        card_px *= 0.8
    if not cards:
        return None

    light = sample_light(rng, np.array([0.0, 0.0, 0.0]), cam.centre)
    ctx = TableContext.of(cam)
    table = make_table(rng, family, ctx)
    albedo = np.ascontiguousarray(table.albedo, dtype=np.float32).copy()
    decal_meta: list[dict] = []
    if config.distractors and rng.random() < 0.5:
        xy = [(c.to_world @ np.array([design.size_mm[0] / 2, design.size_mm[1] / 2, 1.0]))[:2] for c in cards if c.to_world is not None]
        decal_meta = _decals(rng, cam, albedo, xy)
    laid = paint_cards(rng, cam, albedo, light, cards, design)
    hands: list[props.Hand] = []
    if config.occluders and cam.centre[2] > 180 and rng.random() < 0.3:
        hands = _hands(rng, cam, laid)

    img = _shade(cam, ctx, table.gloss, table.shininess, albedo, light, laid, hands)
    zbuf = np.full((h, w), np.inf, np.float32)
    occ_meta: list[dict] = []
    for hand in hands:
        layer = props.render_hand(cam, hand, light)
        if layer is None:
            continue
        if rng.random() < 0.3:  # a moving hand is blurred
            kern = _line_kernel(float(rng.uniform(3, 12)) * w / 640.0, float(rng.uniform(0, math.pi)))
            layer = Layer(layer.x0, layer.y0, cv2.filter2D(layer.colour, -1, kern), cv2.filter2D(layer.alpha, -1, kern), layer.depth)
        if composite(img, zbuf, layer) is not None:
            occ_meta.append(hand.to_json())
    occluded = (zbuf < np.inf).astype(np.float32)  # hands in front of the cards
    objects, cards_meta, unlabelled = label_cards(laid, occluded, options)

    image, sensor_meta = finish(rng, img, light.kelvin, light.mode, config.camera_effects)
    meta = {
        "version": SYNTH_VERSION,
        "scene": "cards",
        "width": w,
        "height": h,
        "camera": {**cam.to_json(), "card_px_at_640": round(card_px, 1)},
        "table": table.to_json(),
        "heldout": bool(config.heldout or family in HELDOUT_FAMILIES),
        "light": light.to_json(),
        "card_deck": laid_meta(laid),
        "cards": cards_meta,
        "unlabelled": unlabelled,
        "distractors": decal_meta,
        "occluders": occ_meta,
        "sensor": sensor_meta,
    }
    return RenderedScene(image=image, objects=tuple(objects), meta=meta)


def _shade(cam: Camera, ctx: TableContext, table_gloss: float, shininess: float, albedo: np.ndarray, light: Light, laid: LaidCards, hands: list[props.Hand]) -> np.ndarray:
    """The table and its cards lit by the lamp: key with hand shadows, ambient, the glossy reflections."""
    h, w = albedo.shape[:2]
    fp_c = cam.mm_per_px((0.0, 0.0))
    far = np.zeros((h, w), np.float32)
    for hand in hands:
        hs = props.hand_shadow(cam, hand, light)
        if hs is not None:
            far = np.maximum(far, soft_blur(hs[0], float(np.clip(1.0 + math.tan(light.size_rad) * hand.height / fp_c, 0.0, 60.0))))
    far = np.clip(far, 0.0, 1.0)
    tint = cv2.resize(albedo, (8, 8), interpolation=cv2.INTER_AREA).reshape(-1, 3).mean(axis=0)
    light = dataclasses.replace(light, ground=(light.sky * 0.5 + light.colour * 0.3) * tint * 1.5)
    q = 4
    xy_q = np.stack([ctx.xs, ctx.ys], axis=-1)
    irr_q = key_irradiance(light, xy_q)
    big = (ctx.xs.shape[1] * q, ctx.xs.shape[0] * q)
    irr = cv2.resize(irr_q, big, interpolation=cv2.INTER_LINEAR)[:h, :w]
    glo = np.zeros((h, w), np.float32)
    if table_gloss > 0.01:
        p = np.concatenate([xy_q, np.zeros(xy_q.shape[:2] + (1,), np.float32)], axis=-1)
        gq = table_gloss * sheen(p, cam.centre, light, shininess)
        glo = cv2.resize(gq.astype(np.float32), big, interpolation=cv2.INTER_LINEAR)[:h, :w]
    # On the cards their own finish replaces the table's.
    glo = glo * (1.0 - laid.coverage) + card_sheen(laid, cam, light, ctx)
    key = [float(v) for v in light.colour]
    amb = [float(v) for v in light.sky]
    lit = 1.0 - far
    direct = irr * lit
    ambient = 1.0 - 0.25 * far
    spec = glo * lit
    shade = cv2.merge([direct * key[i] + ambient * amb[i] for i in range(3)])
    img = albedo * shade + cv2.merge([spec * key[i] for i in range(3)])
    return np.ascontiguousarray(img, dtype=np.float32)
