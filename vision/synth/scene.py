"""Render one labelled table scene: dice on a table seen by a webcam.

The contract the detector trainer and the dashboard's demo source rely on:
``render_scene(rng, SceneConfig(...)) -> RenderedScene`` with the image (BGR
uint8), one :class:`vision.read.detections.Detection` per labelled die (kind "die",
face = the up face, colour = body colour name, box = pixel box of the visible
die, score 1.0), and JSON-serialisable ``meta``.

Labelling rule: a die is labelled only when at least ``min_visible`` (default
60 %) of its up face is visible (not hidden by a hand, cup, another die or the
frame edge). Dice below that stay in the image, unlabelled, as hard negatives
(a reader must not invent a face it cannot see); they are listed in
``meta["unlabelled"]`` with their boxes so a trainer may instead ignore those
regions.

Playing cards join the dice only when asked for (``SceneConfig(cards=CardOptions())``):
then the scene also holds one label per visible card corner index (kind "card",
see :mod:`vision.synth.card_layout`), after the dice, and ``meta["cards"]``.
Without ``cards`` nothing here changes, byte for byte.

>>> import numpy as np
>>> scene = render_scene(np.random.default_rng(1), SceneConfig(width=320, height=240, dice=(DieSpec("liars", "red", "wheel"),), occluders=False))
>>> scene.image.shape, [(o.face, o.colour) for o in scene.objects]
((240, 320, 3), [('wheel', 'red')])
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.read.detections import Detection
from vision.synth import props
from vision.synth.card_faces import sample_design
from vision.synth.card_layout import CardOptions, LaidCards, card_sheen, check_options, label_cards, laid_meta, paint_cards, plan_cards
from vision.synth.colour import srgb_to_linear
from vision.synth.designs import BODY_COLOURS, DESIGNS, VEIN_SHARE, body_rgb, design, vein_choice
from vision.synth.dice import DiePose, Material, render_die, up_rotation
from vision.synth.errors import BadSceneConfig, PlacementFailed, UnknownColour
from vision.synth.faces import make_atlas
from vision.synth.geometry import Camera, convex_hull, rotation_axis, rotation_z, squares_overlap
from vision.synth.layers import Layer, composite, render_polygons
from vision.synth.lighting import Light, key_irradiance, sample_light, sheen
from vision.synth.sensor import finish, soft_blur
from vision.synth.sets import DieSpec, check_games, random_dice
from vision.synth.tables import HELDOUT_FAMILIES, TRAIN_FAMILIES, Table, TableContext, check_families, make_table

__all__ = [
    "DieSpec",
    "SceneConfig",
    "RenderedScene",
    "render_scene",
    "RESOLUTIONS",
    "TRAIN_FAMILIES",
    "HELDOUT_FAMILIES",
    "SYNTH_VERSION",
    "RENDERER",
]

SYNTH_VERSION = "1.0"
# Which pixels a seed renders. Raised whenever a seed's images change while the file
# layout (SYNTH_VERSION) does not; sets written without it are renderer 1.
#   2: a marbled die's veins stand out from its inks
#   3: no red ship's wheel on a red die
RENDERER = 3
RESOLUTIONS: tuple[tuple[int, int], ...] = ((640, 480), (1280, 720), (640, 640))
_RES_P = (0.45, 0.4, 0.15)
MARBLED = 0.15  # default share of marbled bodies among pips and Liar's dice that are not translucent


@dataclass(frozen=True)
class SceneConfig:
    """What to render; every ``None`` means "random, as a webcam at a table would see it"."""

    width: int | None = None
    height: int | None = None
    dice: tuple[DieSpec, ...] | None = None  # None = a random plausible set of 1..25 dice
    table_families: tuple[str, ...] | None = None  # None = TRAIN_FAMILIES
    distractors: bool = True
    occluders: bool = True
    tilt_deg: tuple[float, float] | None = None  # camera tilt from straight down; default (0, 45)
    die_px: tuple[float, float] | None = None  # die edge in px, scaled to a 640-wide frame; default 15..40 (some to 70)
    hfov_deg: tuple[float, float] | None = None  # default (55, 78)
    camera_effects: bool = True  # noise, blur, white balance, JPEG...
    min_visible: float = 0.6  # fraction of the up face that must be visible to label a die
    cards: CardOptions | None = None  # playing cards on the table too; None = dice only
    dice_sets: tuple[str, ...] | None = None  # random dice from these game sets only (sets.GAMES); None = all
    marbled: float = MARBLED  # chance a pips or Liar's die that is not translucent has a marbled body
    wide_faces: bool = False  # dice also drawn with the training-only katakana fonts and wheel forms

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        if self.dice is not None:
            out["dice"] = [dataclasses.asdict(d) for d in self.dice]
        if self.cards is None:
            del out["cards"]  # a dice-only config reads as it always did
        else:
            if self.cards.hand is None:
                del out["cards"]["hand"]  # as did a card config before hands could be asked for
            if not self.cards.wide_decks:
                del out["cards"]["wide_decks"]  # and before wide decks
            if not self.cards.font_pool:
                del out["cards"]["font_pool"]  # and before the font pool
        if self.dice_sets is None:
            del out["dice_sets"]
        if self.marbled == MARBLED:
            del out["marbled"]
        if not self.wide_faces:
            del out["wide_faces"]  # as a config read before wide faces
        return out


@dataclass(frozen=True)
class RenderedScene:
    image: np.ndarray  # HxWx3 uint8 BGR
    objects: tuple[Detection, ...]
    meta: dict = field(default_factory=dict)


@dataclass
class _Die:
    spec: DieSpec  # resolved: design, colour and face all set
    half: float
    pose: DiePose | None = None
    yaw: float = 0.0
    layer: Layer | None = None
    top: np.ndarray | None = None
    keep: np.ndarray | None = None
    meta: dict = field(default_factory=dict)
    labelled: bool = True  # False for distractor cubes


def _check(config: SceneConfig) -> None:
    if not 0.0 <= config.marbled <= 1.0:
        raise BadSceneConfig(f"marbled share {config.marbled} out of range 0..1")
    if (config.width is None) != (config.height is None):
        raise BadSceneConfig("give both width and height, or neither")
    if config.width is not None and not (32 <= config.width <= 4096 and 32 <= int(config.height or 0) <= 4096):
        raise BadSceneConfig(f"image size {config.width}x{config.height} out of range 32..4096")
    if config.dice is not None:
        if not 1 <= len(config.dice) <= 40:
            raise BadSceneConfig(f"{len(config.dice)} dice: give 1..40")
        for d in config.dice:
            des = design(d.design)
            if d.colour is not None and d.colour not in BODY_COLOURS:
                raise UnknownColour(d.colour)
            if d.face is not None:
                des.check_face(d.face)
    if config.table_families is not None:
        if not config.table_families:
            raise BadSceneConfig("table_families is empty")
        check_families(config.table_families)
    if not 0.0 < config.min_visible <= 1.0:
        raise BadSceneConfig("min_visible must be in (0, 1]")
    if config.cards is not None:
        check_options(config.cards)
    if config.dice_sets is not None:
        if config.dice is not None:
            raise BadSceneConfig("give dice or dice_sets, not both")
        try:
            check_games(config.dice_sets)
        except ValueError as err:
            raise BadSceneConfig(str(err)) from None


def _resolve(rng: np.random.Generator, spec: DieSpec) -> DieSpec:
    des = DESIGNS[spec.design]
    colour = spec.colour if spec.colour is not None else str(rng.choice(des.colours))
    face = spec.face if spec.face is not None else str(rng.choice(des.labels))
    return DieSpec(spec.design, colour, face)


def _material(
    rng: np.random.Generator, colour: str, allow_fancy: bool, marbled: float = MARBLED, inks: tuple[str, ...] = (),
) -> tuple[Material, np.ndarray | None, str]:
    """A die body's material; a marbled body's veins stand out from ``inks`` (see :func:`vein_choice`)."""
    base = srgb_to_linear(np.array(body_rgb(colour), np.float32) / 255.0)
    base = np.clip(base * (1.0 + rng.normal(0.0, 0.06, 3)) * float(rng.uniform(0.88, 1.1)), 0.0, 1.0).astype(np.float32)
    r = rng.random()
    if r < 0.3:
        kind, rough, spec, gloss = "matte", math.radians(float(rng.uniform(15, 40))), 0.04, float(rng.uniform(0.03, 0.12))
    else:
        kind, rough, spec, gloss = "glossy", math.radians(float(rng.uniform(0.5, 6))), float(rng.uniform(0.035, 0.06)), float(rng.uniform(0.15, 0.6))
    trans, vein, swirl, amount = 0.0, None, None, 0.0
    vein_name: str | None = None
    if allow_fancy and colour not in ("white", "black", "ivory") and rng.random() < 0.18:
        kind, trans = "translucent", float(rng.uniform(0.3, 0.8))
    elif allow_fancy and rng.random() < marbled:  # one draw whatever the share: other renders stay as they were
        kind = "marbled"
        vein_name = vein_choice(str(rng.choice([c for c in BODY_COLOURS if c != colour])), colour, inks)
        vein = srgb_to_linear(np.array(body_rgb(vein_name), np.float32) / 255.0) * VEIN_SHARE + base * (1.0 - VEIN_SHARE)
        amount = float(rng.uniform(0.15, 0.45))
        k = rng.normal(0, 1, 6)
        swirl = np.concatenate([k[:3] / np.linalg.norm(k[:3]), k[3:] / np.linalg.norm(k[3:]), [rng.uniform(2.0, 6.0)]]).astype(np.float32)
    return Material(base, vein, amount, rough, spec, gloss, trans, vein_name), swirl, kind


def _tilt_rotation(rng: np.random.Generator, max_deg: float) -> np.ndarray:
    a = float(rng.uniform(0, 2 * math.pi))
    return rotation_axis(np.array([math.cos(a), math.sin(a), 0.0]), math.radians(float(rng.uniform(0, max_deg))))


def _pose(rng: np.random.Generator, die: _Die, xy: np.ndarray, yaw: float, tilt_max: float) -> DiePose:
    des = DESIGNS[die.spec.design]
    assert die.spec.face is not None
    sides = des.sides_with(die.spec.face)
    side = int(sides[int(rng.integers(len(sides)))])
    rot = _tilt_rotation(rng, tilt_max) @ rotation_z(yaw) @ up_rotation(side)
    radius = die.half * (float(rng.uniform(0.04, 0.1)) if rng.random() < 0.1 else float(rng.uniform(0.12, 0.32)))
    inner = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * (die.half - radius)
    cz = -float((inner @ rot.T)[:, 2].min()) + radius
    return DiePose(np.array([xy[0], xy[1], cz]), rot, die.half, radius)


def _sample_camera(rng: np.random.Generator, config: SceneConfig, w: int, h: int, die_mm: float) -> tuple[Camera, float]:
    hfov = float(rng.uniform(*(config.hfov_deg or (55.0, 78.0))))
    tilt = float(rng.uniform(*(config.tilt_deg or (0.0, 45.0))))
    if config.die_px is not None:
        die_px = float(np.exp(rng.uniform(math.log(config.die_px[0]), math.log(config.die_px[1]))))
    else:
        close = rng.random() < (0.5 if w == h else 0.22)
        lo, hi = (38.0, 70.0) if close else (15.0, 40.0)
        die_px = float(np.exp(rng.uniform(math.log(lo), math.log(hi))))
    return _camera(rng, w, h, hfov, tilt, die_px, die_mm), die_px


def _camera(rng: np.random.Generator, w: int, h: int, hfov: float, tilt: float, die_px: float, die_mm: float) -> Camera:
    f = (w / 2.0) / math.tan(math.radians(hfov) / 2.0)
    dist = f * die_mm / (die_px * w / 640.0)
    return Camera.look_at(w, h, hfov, dist, tilt, float(rng.uniform(0, 360)), roll_deg=float(rng.normal(0, 3)))


def _inside_image(cam: Camera, pose: DiePose, margin: float) -> float:
    """Fraction of the die's projected corners inside the image shrunk by ``margin`` px."""
    px, z = cam.project(pose.corners())
    if (z <= 1).any():
        return 0.0
    ok = (px[:, 0] >= margin) & (px[:, 0] <= cam.width - margin) & (px[:, 1] >= margin) & (px[:, 1] <= cam.height - margin)
    return float(ok.mean())


@dataclass
class _World:
    """Everything placed on the table, in millimetres."""

    dice: list[_Die]
    cubes: list[_Die]
    cups: list[props.Cup]
    decals: list[props.Decal]
    tray: dict | None


def _place(
    rng: np.random.Generator,
    cam: Camera,
    dice: list[_Die],
    explicit: bool,
    tray: dict | None,
    cups: list[props.Cup],
    tilt_max: float,
    edge: dict | None = None,
) -> list[_Die]:
    """Put dice on the table in view, clustered and sometimes touching, never overlapping."""
    w, h = cam.width, cam.height
    n_clusters = 1 if rng.random() < 0.5 else int(rng.integers(2, 4))
    scatter = rng.random() < 0.3
    cpx = np.column_stack([rng.uniform(0.2 * w, 0.8 * w, n_clusters), rng.uniform(0.2 * h, 0.8 * h, n_clusters)])
    centres = cam.unproject_to_plane(cpx)
    mean_half = float(np.mean([d.half for d in dice]))
    spread = mean_half * 2.0 * float(rng.uniform(0.8, 2.2)) * math.sqrt(max(1.0, len(dice) / n_clusters))
    placed: list[_Die] = []
    for die in dice:
        for attempt in range(80):
            if placed and rng.random() < 0.3 and attempt < 40:
                other = placed[int(rng.integers(len(placed)))]
                assert other.pose is not None
                ang = other.yaw + float(rng.integers(4)) * math.pi / 2
                gap = (other.half + die.half) * float(rng.uniform(1.0, 1.08))
                xy = other.pose.centre[:2] + gap * np.array([math.cos(ang), math.sin(ang)])
                yaw = other.yaw + float(rng.normal(0, 0.08))
            elif scatter:
                xy = cam.unproject_to_plane(np.array([[rng.uniform(0.05 * w, 0.95 * w), rng.uniform(0.05 * h, 0.95 * h)]]))[0]
                yaw = float(rng.uniform(0, 2 * math.pi))
            else:
                xy = centres[int(rng.integers(n_clusters))] + rng.normal(0.0, spread, 2)
                yaw = float(rng.uniform(0, 2 * math.pi))
            if tray is not None:
                lx, ly = _tray_local(tray, xy)
                if abs(lx) > tray["hx"] - 1.6 * die.half or abs(ly) > tray["hy"] - 1.6 * die.half:
                    continue
            if edge is not None and float(xy @ edge["dir"]) > edge["dist"] - 1.6 * die.half:
                continue
            if any(math.hypot(xy[0] - c.centre[0], xy[1] - c.centre[1]) < c.r_bottom + 1.6 * die.half for c in cups):
                continue
            if any(squares_overlap(xy, yaw, die.half * 1.03, p.pose.centre[:2], p.yaw, p.half * 1.03) for p in placed if p.pose is not None):
                continue
            pose = _pose(rng, die, xy, yaw, tilt_max)
            need = 1.0 if explicit or rng.random() < 0.9 else 0.5
            if _inside_image(cam, pose, 2.0 if explicit else 0.0) < need:
                continue
            die.pose, die.yaw = pose, yaw
            placed.append(die)
            break
    return placed


def _tray_local(tray: dict, xy: np.ndarray) -> tuple[float, float]:
    c, s = math.cos(tray["yaw"]), math.sin(tray["yaw"])
    dx, dy = xy[0] - tray["centre"][0], xy[1] - tray["centre"][1]
    return c * dx + s * dy, -s * dx + c * dy


def _tray_world(tray: dict, lx: float, ly: float, z: float = 0.0) -> np.ndarray:
    c, s = math.cos(tray["yaw"]), math.sin(tray["yaw"])
    return np.array([tray["centre"][0] + c * lx - s * ly, tray["centre"][1] + s * lx + c * ly, z])


def _tray_boxes(tray: dict) -> list[np.ndarray]:
    """The four walls as boxes (8 corners each, world mm)."""
    hx, hy, t, hw = tray["hx"], tray["hy"], tray["thick"], tray["wall"]
    spans = [(-hx - t, hx + t, hy, hy + t), (-hx - t, hx + t, -hy - t, -hy), (hx, hx + t, -hy, hy), (-hx - t, -hx, -hy, hy)]
    boxes = []
    for x0, x1, y0, y1 in spans:
        boxes.append(np.array([_tray_world(tray, x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (0.0, hw)]))
    return boxes


_BOX_FACES = ((0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3))


def _render_tray(cam: Camera, tray: dict, light: Light) -> Layer | None:
    polys = []
    for box in _tray_boxes(tray):
        centre = box.mean(axis=0)
        for face in _BOX_FACES:
            quad = box[list(face)]
            n = np.cross(quad[1] - quad[0], quad[2] - quad[0])
            n /= np.linalg.norm(n)
            if n @ (quad.mean(axis=0) - centre) < 0:
                n = -n
            if n @ (cam.centre - quad.mean(axis=0)) <= 0:
                continue
            p = quad.mean(axis=0)
            ldir = light.direction_at(p)
            up = 0.5 + 0.5 * n[2]
            col = tray["colour"] * (light.sky * up + light.ground * (1 - up) + light.key_at(p) * max(float(n @ ldir), 0.0))
            if n[2] > 0.9:
                col = col * 1.1
            polys.append((quad, col.astype(np.float32)))
    return render_polygons(cam, polys)


def _shadow_polys(pts: np.ndarray, light: Light) -> np.ndarray:
    """Project 3D points along the light onto the table and take the outline (mm)."""
    d = light.direction_at(pts.mean(axis=0))
    flat = pts[:, :2] - pts[:, 2:3] * d[None, :2] / max(float(d[2]), 0.12)
    return convex_hull(flat)


def _fill_world(mask: np.ndarray, cam: Camera, poly_xy: np.ndarray, value: float = 1.0) -> None:
    px, z = cam.project(np.column_stack([poly_xy, np.zeros(len(poly_xy))]))
    if (z <= 1).any():
        return
    cv2.fillPoly(mask, [np.round(px * 16).astype(np.int32)], value, cv2.LINE_AA, 4)


def _sigma(x: float) -> float:
    return float(np.clip(x, 0.0, 60.0))


def _blur(m: np.ndarray, sigma: float) -> np.ndarray:
    return soft_blur(m, sigma)


class _Hidden(Exception):
    """A requested die ended up unreadable; the scene is drawn again."""


def render_scene(rng: np.random.Generator, config: SceneConfig = SceneConfig()) -> RenderedScene:
    """Render one scene (see the module doc). All randomness comes from ``rng``.

    With ``config.dice`` given, every requested die is labelled, in the order
    given: occluders never cover them, and a draw that hides one (a tray wall in
    the way) is redrawn, the last tries without occluders or a tray.
    """
    _check(config)
    for attempt in range(5):
        try:
            return _render(rng, config, plain=attempt >= 3)
        except _Hidden:
            continue
    raise PlacementFailed("a requested die stayed hidden in every draw")


def _render(rng: np.random.Generator, config: SceneConfig, plain: bool) -> RenderedScene:
    explicit = config.dice is not None
    if config.width is not None:
        w, h = int(config.width), int(config.height or 0)
    else:
        w, h = RESOLUTIONS[int(rng.choice(len(RESOLUTIONS), p=_RES_P))]
    specs = tuple(config.dice) if explicit else random_dice(rng, config.dice_sets)
    families = config.table_families or TRAIN_FAMILIES
    family = str(families[int(rng.integers(len(families)))])
    if plain and family == "tray" and len(families) > 1:
        family = str([f for f in families if f != "tray"][int(rng.integers(len(families) - 1))])
    occluders = config.occluders and not plain

    # Dice sizes: one size per design in this scene (a set), a little spread per die.
    set_size = {name: float(rng.uniform(*d.size_mm)) for name, d in DESIGNS.items()}
    mixed_sizes = not explicit and rng.random() < 0.4
    dice: list[_Die] = []
    for s in specs:
        r = _resolve(rng, s)
        size = float(rng.uniform(*DESIGNS[r.design].size_mm)) if mixed_sizes else set_size[r.design] * float(rng.uniform(0.98, 1.02))
        dice.append(_Die(r, size / 2.0))
    die_mm = 2.0 * float(np.mean([d.half for d in dice]))

    # Camera, scaled so the dice come out the wanted size in pixels; back off until they all fit.
    tilt_max = 0.0 if rng.random() < 0.75 else float(rng.uniform(1.0, 4.0))
    cam, die_px = _sample_camera(rng, config, w, h, die_mm)
    hfov, tilt = cam.hfov_deg, cam.to_json()["tilt_deg"]
    tray: dict | None = None
    cups: list[props.Cup] = []
    placed: list[_Die] = []
    for attempt in range(10):
        if attempt:
            die_px *= 0.82
            cam = _camera(rng, w, h, hfov, tilt, die_px, die_mm)
        mmpp = cam.mm_per_px((0.0, 0.0))
        tray = None
        if family == "tray":
            tray = {
                "centre": (0.0, 0.0),
                "yaw": math.radians(float(rng.normal(0, 4))) + math.atan2(cam.rot[0, 1], cam.rot[0, 0]),
                "hx": float(rng.uniform(0.3, 0.48)) * w * mmpp,
                "hy": float(rng.uniform(0.3, 0.48)) * h * mmpp,
                "thick": float(rng.uniform(4, 12)),
                "wall": float(rng.uniform(12, 35)),
            }
        cups = []
        if occluders and cam.centre[2] > 260 and rng.random() < 0.3:
            for _ in range(int(rng.integers(1, 3))):
                c = cam.unproject_to_plane(np.array([[rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h]]))[0]
                cups.append(props.sample_cup(rng, (float(c[0]), float(c[1]))))
        # A tilted camera may see past the table's far edge, down to the floor.
        edge = None
        if tray is None and tilt > 20.0 and rng.random() < 0.35:
            fwd = cam.rot[2, :2] / max(float(np.linalg.norm(cam.rot[2, :2])), 1e-9)
            top = cam.unproject_to_plane(np.array([[w / 2.0, 0.0]]))[0]
            edge = {"dir": fwd, "dist": float(top @ fwd) * float(rng.uniform(0.45, 0.9))}
        for d in dice:
            d.pose = None
        placed = _place(rng, cam, dice, explicit, tray, cups, tilt_max, edge)
        if len(placed) == len(dice) or (not explicit and len(placed) >= max(1, int(0.8 * len(dice)))):
            break
    if explicit and len(placed) != len(dice):
        raise PlacementFailed(f"could not fit {len(dice)} dice in a {w}x{h} view")
    if not placed:
        raise PlacementFailed("no die could be placed")
    dice = [d for d in dice if d.pose is not None]

    light = sample_light(rng, np.array([0.0, 0.0, 0.0]), cam.centre)
    ctx = TableContext.of(cam)
    table = make_table(rng, family, ctx)
    albedo = table.albedo
    outside: Table | None = None
    tray_mask = None
    if tray is not None:
        tray["colour"] = srgb_to_linear(np.array([(30, 30, 34), (60, 60, 64), (120, 80, 50), (150, 30, 30), (20, 40, 90), (230, 230, 226)][int(rng.integers(6))], np.float32) / 255.0)
        others = [f for f in families if f != "tray"] or [f for f in TRAIN_FAMILIES if f != "tray"]
        outside = make_table(rng, str(others[int(rng.integers(len(others)))]), ctx)
        tray_mask = np.zeros((h, w), np.float32)
        corners = np.array([_tray_world(tray, sx * tray["hx"], sy * tray["hy"])[:2] for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
        _fill_world(tray_mask, cam, corners)
        albedo = albedo * tray_mask[..., None] + outside.albedo * (1.0 - tray_mask[..., None])
    albedo = np.ascontiguousarray(albedo, dtype=np.float32)

    # Distractors: flat things on the table (dice may rest on cards and paper), blank cubes.
    decal_meta: list[dict] = []
    cubes: list[_Die] = []
    if config.distractors and rng.random() < 0.65:
        for _ in range(int(rng.integers(1, 6))):
            kind = str(rng.choice(props.DECAL_KINDS))
            if config.cards is not None and kind == "card":
                kind = "card-back"  # with labelled cards about, no face-up card goes unlabelled
            dec = props.make_decal(rng, kind)
            for _try in range(20):
                c = cam.unproject_to_plane(np.array([[rng.uniform(-0.1, 1.1) * w, rng.uniform(-0.1, 1.1) * h]]))[0]
                flat = kind in ("card", "card-back", "paper")
                if not flat and any(np.hypot(*(d.pose.centre[:2] - c)) < dec.radius_mm + 1.5 * d.half for d in dice if d.pose is not None):
                    continue
                dec = dec.placed((float(c[0]), float(c[1])), float(rng.uniform(0, 2 * math.pi)))
                if props.paint_decal(albedo, cam, dec) is not None:
                    decal_meta.append(dec.to_json())
                break
        if rng.random() < 0.3:
            cube_specs = []
            colour = str(rng.choice(["red", "blue", "green", "yellow", "black", "white", "brown", "purple", "orange"]))
            for _ in range(int(rng.integers(1, 5))):
                cube_specs.append(_Die(DieSpec("pips", colour, "1"), float(rng.uniform(4.0, 6.0)), labelled=False))
            cubes = _place(rng, cam, cube_specs, False, tray, cups, 0.0, edge)
            for cb in cubes:
                if cb.pose is not None and any(
                    squares_overlap(cb.pose.centre[:2], cb.yaw, cb.half * 1.05, d.pose.centre[:2], d.yaw, d.half * 1.05) for d in dice if d.pose is not None
                ):
                    cb.pose = None
            cubes = [c for c in cubes if c.pose is not None]

    laid: LaidCards | None = None
    if config.cards is not None:
        laid = _lay_cards(rng, cam, albedo, light, config.cards, dice + cubes)

    # Occluders that hover: hands.
    hands: list[props.Hand] = []
    # Hands only where the camera is high enough for a hand to fit between it and the dice.
    if occluders and cam.centre[2] > 300 and rng.random() < 0.2:
        for _ in range(1 if rng.random() < 0.85 else 2):
            target = dice[int(rng.integers(len(dice)))].pose
            assert target is not None
            # The palm a hand's length from a die, so fingers reach over some dice at most.
            ang = float(rng.uniform(0, 2 * math.pi))
            c = target.centre[:2] + float(rng.uniform(40.0, 140.0)) * np.array([math.cos(ang), math.sin(ang)])
            # The arm reaches in from the near side of the picture, or from a side.
            edge_px = np.array([[rng.uniform(0, w), h * 1.3]]) if rng.random() < 0.6 else np.array([[w * (1.3 if rng.random() < 0.5 else -0.3), rng.uniform(0, h)]])
            arm = cam.unproject_to_plane(edge_px)[0] - c
            yaw = math.atan2(-arm[0], arm[1])
            hand = props.sample_hand(rng, (float(c[0]), float(c[1])), yaw)
            max_h = 0.15 * float(cam.centre[2])
            if hand.height > max_h:
                hand = dataclasses.replace(hand, height=float(rng.uniform(min(20.0, max_h), max_h)))
            hands.append(hand)

    # The table lit: key lamp with soft shadows, contact shadows, ambient, glossy reflection.
    fp_c = cam.mm_per_px((0.0, 0.0))
    shadow = np.zeros((h, w), np.float32)
    contact = np.zeros((h, w), np.float32)
    all_dice = dice + cubes
    for d in all_dice:
        assert d.pose is not None
        _fill_world(shadow, cam, _shadow_polys(d.pose.corners(), light))
        c, s = math.cos(d.yaw), math.sin(d.yaw)
        k = d.half * 1.12
        sq = np.array([[c * x - s * y, s * x + c * y] for x, y in ((-k, -k), (k, -k), (k, k), (-k, k))]) + d.pose.centre[:2]
        _fill_world(contact, cam, sq)
    pen = math.tan(light.size_rad) * die_mm / fp_c
    shadow = np.clip(_blur(shadow, _sigma(0.5 + 0.5 * pen)), 0.0, 1.0)
    contact = np.clip(_blur(contact, _sigma(0.35 * die_mm / fp_c)), 0.0, 1.0)
    far = np.zeros((h, w), np.float32)
    for cup in cups:
        _fill_world(far, cam, convex_hull(props.cup_shadow(cup, light)))
    if tray is not None:
        for box in _tray_boxes(tray):
            _fill_world(far, cam, _shadow_polys(box, light))
    far = _blur(far, _sigma(0.5 + math.tan(light.size_rad) * 40.0 / fp_c))
    for hand in hands:
        hs = props.hand_shadow(cam, hand, light)
        if hs is not None:
            far = np.maximum(far, _blur(hs[0], _sigma(1.0 + math.tan(light.size_rad) * hand.height / fp_c)))
    far = np.clip(far, 0.0, 1.0)
    occl = np.maximum(shadow, far)

    # Bounce light from the table tints the dice from below.
    tint = cv2.resize(albedo, (8, 8), interpolation=cv2.INTER_AREA).reshape(-1, 3).mean(axis=0)
    light = dataclasses.replace(light, ground=(light.sky * 0.5 + light.colour * 0.3) * tint * 1.5)

    q = 4
    xy_q = np.stack([ctx.xs, ctx.ys], axis=-1)
    irr_q = key_irradiance(light, xy_q)
    gloss_q = np.zeros_like(irr_q)
    gl = table.gloss if tray_mask is None else 0.5 * (table.gloss + (outside.gloss if outside else 0.0))
    if gl > 0.01:
        p = np.concatenate([xy_q, np.zeros(xy_q.shape[:2] + (1,), np.float32)], axis=-1)
        gloss_q = gl * sheen(p, cam.centre, light, table.shininess)
    big = (ctx.xs.shape[1] * q, ctx.xs.shape[0] * q)
    irr = cv2.resize(irr_q, big, interpolation=cv2.INTER_LINEAR)[:h, :w]
    glo = cv2.resize(gloss_q.astype(np.float32), big, interpolation=cv2.INTER_LINEAR)[:h, :w]
    key = [float(v) for v in light.colour]
    amb = [float(v) for v in light.sky]
    lit = 1.0 - occl
    direct = irr * lit
    ambient = 1.0 - 0.55 * contact - 0.25 * far
    spec = glo * lit
    shade = cv2.merge([direct * key[i] + ambient * amb[i] for i in range(3)])
    img = albedo * shade
    if gl > 0.01:
        img += cv2.merge([spec * key[i] for i in range(3)])
    if laid is not None:  # on the cards their own finish replaces the table's sheen
        extra = (card_sheen(laid, cam, light, ctx) - glo * laid.coverage) * lit
        img += cv2.merge([extra * key[i] for i in range(3)])
    beyond: np.ndarray | None = None  # how far each pixel lies past the table's far edge (0-1)
    if edge is not None:
        beyond = np.clip((ctx.x * np.float32(edge["dir"][0]) + ctx.y * np.float32(edge["dir"][1]) - np.float32(edge["dist"])) / ctx.footprint + 0.5, 0.0, 1.0)
        floor = srgb_to_linear(np.array([(90, 70, 55), (60, 60, 66), (150, 140, 130), (40, 36, 34), (120, 100, 80)][int(rng.integers(5))], np.float32) / 255.0)
        mott = soft_blur(ctx.noise(rng, 400.0), 6.0) * np.float32(0.8) + np.float32(0.6)
        bg = cv2.merge([mott * np.float32(float(floor[i]) * float(light.sky[i] + 0.5 * light.colour[i])) for i in range(3)])
        img = img * (1.0 - beyond[..., None]) + soft_blur(bg, 3.0) * beyond[..., None]
    img = np.ascontiguousarray(img, dtype=np.float32)
    zbuf = np.full((h, w), np.inf, np.float32)

    if tray is not None:
        wall = _render_tray(cam, tray, light)
        if wall is not None:
            composite(img, zbuf, wall)

    # Dice, far to near, each remembering how much of it later layers hide.
    for d in sorted(all_dice, key=lambda d: -float(cam.project(d.pose.centre[None])[1][0])):  # type: ignore[index,union-attr]
        assert d.pose is not None
        s = d.spec
        blank = not d.labelled
        atlas_tex = int(np.clip(2.0 * die_px * w / 640.0 * d.half * 2.0 / die_mm, 24, 128)) // 8 * 8
        faces = ("blank",) * 6 if blank else DESIGNS[s.design].faces
        atlas = make_atlas(rng, faces, s.colour or "white", s.design, atlas_tex, wide=config.wide_faces)
        mat, swirl, mkind = _material(rng, s.colour or "white", allow_fancy=s.design in ("pips", "liars") and not blank,
                                      marbled=config.marbled, inks=atlas.inks)
        if blank:
            mat = dataclasses.replace(mat, vein=None, vein_name=None)
            swirl = None
        px, _ = cam.project(d.pose.centre[None])
        ix, iy = int(np.clip(px[0, 0], 0, w - 1)), int(np.clip(px[0, 1], 0, h - 1))
        r = render_die(cam, d.pose, atlas, mat, light, swirl, key_scale=1.0 - float(far[iy, ix]))
        d.meta = {"material": mkind, **mat.to_json(), **atlas.style, "size_mm": round(2 * d.half, 1)}
        if r is None:
            continue
        layer = Layer(r.x0, r.y0, r.colour, r.alpha, r.depth)
        d.layer, d.top = layer, r.top
        d.keep = np.zeros(r.alpha.shape, np.float32)
        res = composite(img, zbuf, layer)
        if res is None:
            continue
        (ir, ic, lr, lc), a_eff = res
        d.keep[lr, lc] = (r.depth[lr, lc] < np.inf) * (a_eff > 0) + 0.0
        _hide(all_dice, d, layer, res)

    # Occluders over the dice: cups (with depth) and hands (in front of everything).
    occ_meta: list[dict] = []
    for cup in cups:
        layer = props.render_cup(cam, cup, light)
        if layer is not None and not (explicit and _covers_dice(layer, dice)):
            res = composite(img, zbuf, layer)
            if res is not None:
                _hide(all_dice, None, layer, res)
                occ_meta.append(cup.to_json())
    for hand in hands:
        layer = props.render_hand(cam, hand, light)
        if layer is None or (explicit and _covers_dice(layer, dice)):
            continue
        if rng.random() < 0.3:  # a moving hand is blurred
            kern = _line_kernel(float(rng.uniform(3, 12)) * w / 640.0, float(rng.uniform(0, math.pi)))
            layer = Layer(layer.x0, layer.y0, cv2.filter2D(layer.colour, -1, kern), cv2.filter2D(layer.alpha, -1, kern), layer.depth)
        res = composite(img, zbuf, layer)
        if res is not None:
            _hide(all_dice, None, layer, res)
            occ_meta.append(hand.to_json())

    # Labels from what is left visible of each die.
    objects: list[Detection] = []
    dice_meta: list[dict] = []
    unlabelled: list[dict] = []
    for d in dice:
        info = {"design": d.spec.design, "face": d.spec.face, "colour": d.spec.colour, **d.meta}
        box, frac = _visible(d, w, h)
        info["up_face_visible"] = round(frac, 3)
        if box is not None:
            info["box"] = [round(v, 1) for v in box]
        if box is not None and frac >= config.min_visible:
            objects.append(Detection(kind="die", face=str(d.spec.face), colour=d.spec.colour, box=box, score=1.0))
            info["labelled"] = True
        else:
            info["labelled"] = False
            unlabelled.append({k: info[k] for k in ("design", "face", "colour", "up_face_visible") if k in info} | ({"box": info["box"]} if "box" in info else {}))
        dice_meta.append(info)
    if explicit and len(objects) != len(specs):
        raise _Hidden()
    cards_meta: list[dict] = []
    if laid is not None and config.cards is not None:
        # The floor past the far edge is painted over the table and the cards on it: an index
        # there is as hidden as one under a die.
        over_cards = (zbuf < np.inf).astype(np.float32)
        if beyond is not None:
            over_cards = np.maximum(over_cards, beyond)
        card_objects, cards_meta, card_unlabelled = label_cards(laid, over_cards, config.cards, first_object=len(objects))
        objects += card_objects
        unlabelled += card_unlabelled

    image, sensor_meta = finish(rng, img, light.kelvin, light.mode, config.camera_effects)

    meta = {
        "version": SYNTH_VERSION,
        "width": w,
        "height": h,
        "camera": {**cam.to_json(), "die_px_at_640": round(die_px, 1)},
        "table": table.to_json() | ({"outside": outside.to_json()} if outside is not None else {}) | ({"far_edge": True} if edge is not None else {}),
        "heldout": family in HELDOUT_FAMILIES,
        "light": light.to_json(),
        "dice": dice_meta,
        "unlabelled": unlabelled,
        "distractors": decal_meta + [{"kind": "cube", "size_mm": round(2 * c.half, 1)} for c in cubes],
        "occluders": occ_meta,
        "sensor": sensor_meta,
    }
    if laid is not None:
        meta["card_deck"] = laid_meta(laid)
        meta["cards"] = cards_meta
    return RenderedScene(image=image, objects=tuple(objects), meta=meta)


def _lay_cards(rng: np.random.Generator, cam: Camera, albedo: np.ndarray, light: Light, options: CardOptions, dice: list[_Die]) -> LaidCards | None:
    """Cards into the table albedo, in groups that keep clear of the dice where they can."""
    design = sample_design(rng, heldout=options.heldout, wide=options.wide_decks, pool=options.font_pool)
    avoid = [(d.pose.centre[:2], d.half * 1.6) for d in dice if d.pose is not None]
    cards = plan_cards(rng, cam, options, design, avoid)
    if not cards:
        return None
    return paint_cards(rng, cam, albedo, light, cards, design)


def _line_kernel(length: float, angle: float) -> np.ndarray:
    n = int(math.ceil(length)) | 1
    k = np.zeros((n, n), np.float32)
    c = (n - 1) / 2.0
    cv2.line(k, (int(round(c - c * math.cos(angle))), int(round(c - c * math.sin(angle)))), (int(round(c + c * math.cos(angle))), int(round(c + c * math.sin(angle)))), 1.0, 1)
    return k / max(float(k.sum()), 1e-6)


def _hide(all_dice: list[_Die], current: _Die | None, layer: Layer, res: tuple) -> None:
    """Reduce what earlier dice keep visible by the coverage a new layer now has in front."""
    (ir, ic, _lr, _lc), a_eff = res
    y0, x0 = ir.start, ic.start
    y1, x1 = ir.stop, ic.stop
    for other in all_dice:
        if other is current or other.layer is None or other.keep is None:
            continue
        oh, ow = other.keep.shape
        ox0, oy0 = other.layer.x0, other.layer.y0
        ax0, ay0 = max(x0, ox0), max(y0, oy0)
        ax1, ay1 = min(x1, ox0 + ow), min(y1, oy0 + oh)
        if ax0 >= ax1 or ay0 >= ay1:
            continue
        other.keep[ay0 - oy0 : ay1 - oy0, ax0 - ox0 : ax1 - ox0] *= 1.0 - a_eff[ay0 - y0 : ay1 - y0, ax0 - x0 : ax1 - x0]


def _covers_dice(layer: Layer, dice: list[_Die]) -> bool:
    """Whether an occluder's coverage touches any die (for scenes whose dice must all be read)."""
    lh, lw = layer.shape
    for d in dice:
        if d.layer is None:
            continue
        dh, dw = d.layer.shape
        ax0, ay0 = max(layer.x0, d.layer.x0), max(layer.y0, d.layer.y0)
        ax1, ay1 = min(layer.x0 + lw, d.layer.x0 + dw), min(layer.y0 + lh, d.layer.y0 + dh)
        if ax0 >= ax1 or ay0 >= ay1:
            continue
        a = layer.alpha[ay0 - layer.y0 : ay1 - layer.y0, ax0 - layer.x0 : ax1 - layer.x0]
        b = d.layer.alpha[ay0 - d.layer.y0 : ay1 - d.layer.y0, ax0 - d.layer.x0 : ax1 - d.layer.x0]
        if float((a * b).sum()) > 0.5:
            return True
    return False


def _visible(d: _Die, w: int, h: int) -> tuple[tuple[float, float, float, float] | None, float]:
    """Pixel box of the die's visible part and the visible fraction of its up face."""
    if d.layer is None or d.keep is None or d.top is None:
        return None, 0.0
    vis = d.layer.alpha * d.keep
    top_all = float(d.top.sum())
    frac = float((d.top * d.keep).sum()) / top_all if top_all > 0 else 0.0
    ys, xs = np.nonzero(vis > 0.3)
    if not len(ys):
        return None, frac
    x1 = float(np.clip(d.layer.x0 + xs.min(), 0, w))
    y1 = float(np.clip(d.layer.y0 + ys.min(), 0, h))
    x2 = float(np.clip(d.layer.x0 + xs.max() + 1, 0, w))
    y2 = float(np.clip(d.layer.y0 + ys.max() + 1, 0, h))
    if x2 - x1 < 3 or y2 - y1 < 3:
        return None, frac
    return (x1, y1, x2, y2), frac

