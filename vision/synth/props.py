"""Things on the table that are not dice: flat distractors (cards, paper, coins,
chips, tokens, pencils) painted into the table, and occluders (dice cups and cones,
hands) drawn over the dice.

>>> rng = np.random.default_rng(0)
>>> d = make_decal(rng, "card")
>>> d.texture.shape[2], d.kind
(4, 'card')
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageDraw

from vision.synth import kanafonts as fonts
from vision.synth.colour import srgb_to_linear
from vision.synth.geometry import Camera
from vision.synth.layers import Layer, render_polygons
from vision.synth.lighting import Light

DECAL_KINDS = ("card", "card-back", "paper", "coin", "chip", "token", "pencil")


def _lin(rgb: tuple[int, int, int] | np.ndarray) -> np.ndarray:
    return srgb_to_linear(np.asarray(rgb, np.float32) / 255.0)


@dataclass(frozen=True, eq=False)
class Decal:
    """A flat thing lying on the table: an RGBA texture at ``px_per_mm``, centred at ``centre``."""

    kind: str
    texture: np.ndarray  # (h, w, 4) float32, linear RGB + alpha
    px_per_mm: float
    centre: tuple[float, float] = (0.0, 0.0)
    yaw: float = 0.0
    lift_mm: float = 0.0  # thickness (coins, chips), for shadows

    @property
    def radius_mm(self) -> float:
        h, w = self.texture.shape[:2]
        return 0.5 * math.hypot(h, w) / self.px_per_mm

    def placed(self, centre: tuple[float, float], yaw: float) -> "Decal":
        return Decal(self.kind, self.texture, self.px_per_mm, centre, yaw, self.lift_mm)

    def to_table(self) -> np.ndarray:
        """3x3 map from texture pixels to table millimetres."""
        h, w = self.texture.shape[:2]
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        k = 1.0 / self.px_per_mm
        return np.array([[c * k, -s * k, self.centre[0]], [s * k, c * k, self.centre[1]], [0, 0, 1]]) @ np.array(
            [[1, 0, -w / 2.0], [0, 1, -h / 2.0], [0, 0, 1]]
        )

    def footprint(self) -> np.ndarray:
        h, w = self.texture.shape[:2]
        corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], float).T
        return (self.to_table() @ corners)[:2].T

    def to_json(self) -> dict:
        return {"kind": self.kind, "centre_mm": [round(self.centre[0], 1), round(self.centre[1], 1)]}


def _rgba(h: int, w: int, rgb: np.ndarray) -> np.ndarray:
    t = np.zeros((h, w, 4), np.float32)
    t[..., :3] = rgb
    t[..., 3] = 1.0
    return t


def _suit_shape(canvas: np.ndarray, suit: str, cx: float, cy: float, size: float, colour: tuple) -> None:
    r = size / 2.0
    if suit == "D":
        pts = np.array([[cx, cy - r], [cx + r * 0.75, cy], [cx, cy + r], [cx - r * 0.75, cy]], np.int32)
        cv2.fillPoly(canvas, [pts], colour, cv2.LINE_AA)
    elif suit == "H":
        cv2.circle(canvas, (int(cx - r * 0.45), int(cy - r * 0.25)), int(r * 0.5), colour, -1, cv2.LINE_AA)
        cv2.circle(canvas, (int(cx + r * 0.45), int(cy - r * 0.25)), int(r * 0.5), colour, -1, cv2.LINE_AA)
        pts = np.array([[cx - r * 0.92, cy - r * 0.1], [cx + r * 0.92, cy - r * 0.1], [cx, cy + r]], np.int32)
        cv2.fillPoly(canvas, [pts], colour, cv2.LINE_AA)
    elif suit == "S":
        cv2.circle(canvas, (int(cx - r * 0.45), int(cy + r * 0.2)), int(r * 0.45), colour, -1, cv2.LINE_AA)
        cv2.circle(canvas, (int(cx + r * 0.45), int(cy + r * 0.2)), int(r * 0.45), colour, -1, cv2.LINE_AA)
        pts = np.array([[cx - r * 0.9, cy + r * 0.15], [cx + r * 0.9, cy + r * 0.15], [cx, cy - r]], np.int32)
        cv2.fillPoly(canvas, [pts], colour, cv2.LINE_AA)
        cv2.fillPoly(canvas, [np.array([[cx, cy + r * 0.3], [cx - r * 0.3, cy + r], [cx + r * 0.3, cy + r]], np.int32)], colour, cv2.LINE_AA)
    else:
        for dx, dy in ((0, -0.45), (-0.45, 0.15), (0.45, 0.15)):
            cv2.circle(canvas, (int(cx + dx * r), int(cy + dy * r)), int(r * 0.4), colour, -1, cv2.LINE_AA)
        cv2.fillPoly(canvas, [np.array([[cx, cy], [cx - r * 0.3, cy + r], [cx + r * 0.3, cy + r]], np.int32)], colour, cv2.LINE_AA)


def _card(rng: np.random.Generator, back: bool) -> Decal:
    k = 4.0
    w, h = int(63 * k), int(88 * k)
    img = np.full((h, w, 3), 246, np.uint8)
    if back:
        col = [(170, 30, 40), (30, 60, 150), (30, 110, 70), (40, 40, 40)][int(rng.integers(4))]
        img[:] = col
        step = int(rng.integers(10, 24))
        light = tuple(int(min(255, c + 70)) for c in col)
        for i in range(-h, w + h, step):
            cv2.line(img, (i, 0), (i + h, h), light, 2, cv2.LINE_AA)
            cv2.line(img, (i, h), (i + h, 0), light, 2, cv2.LINE_AA)
        cv2.rectangle(img, (8, 8), (w - 9, h - 9), (250, 250, 250), 6)
    else:
        suit = str(rng.choice(list("SHDC")))
        rank = str(rng.choice(["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]))
        colour = (200, 20, 30) if suit in "HD" else (20, 20, 20)
        pil = Image.fromarray(img)
        draw = ImageDraw.Draw(pil)
        font = fonts.load(fonts.KANA_FONTS[int(rng.integers(len(fonts.KANA_FONTS)))], 40)
        draw.text((22, 30), rank, font=font, fill=colour, anchor="mm")
        draw.text((w - 22, h - 30), rank, font=font, fill=colour, anchor="mm")
        img = np.asarray(pil).copy()
        _suit_shape(img, suit, 22, 68, 24, colour)
        _suit_shape(img, suit, w - 22, h - 68, 24, colour)
        n = {"A": 1, "J": 0, "Q": 0, "K": 0}.get(rank, int(rank) if rank.isdigit() else 1)
        if n == 0:
            cv2.rectangle(img, (50, 60), (w - 50, h - 60), (60, 90, 180), -1)
            cv2.rectangle(img, (60, 70), (w - 60, h - 70), (230, 190, 60), 4)
        else:
            cols, rows = (1, n) if n <= 3 else (2, (n + 1) // 2)
            for i in range(n):
                cx = w / 2 if cols == 1 else (w * 0.32 if i % 2 == 0 else w * 0.68)
                ri = i if cols == 1 else i // 2
                cy = h * (0.5 if rows == 1 else 0.22 + 0.56 * ri / (rows - 1))
                _suit_shape(img, suit, cx, cy, 56 if n == 1 else 34, colour)
    tex = _rgba(h, w, _lin(img))
    # Rounded corners.
    m = np.zeros((h, w), np.uint8)
    rc = int(3 * k)
    cv2.rectangle(m, (rc, 0), (w - rc, h), 255, -1)
    cv2.rectangle(m, (0, rc), (w, h - rc), 255, -1)
    for cx, cy in ((rc, rc), (w - rc, rc), (rc, h - rc), (w - rc, h - rc)):
        cv2.circle(m, (cx, cy), rc, 255, -1, cv2.LINE_AA)
    tex[..., 3] = m / 255.0
    return Decal("card-back" if back else "card", tex, k, lift_mm=0.3)


def _paper(rng: np.random.Generator) -> Decal:
    k = 3.0
    w, h = int(rng.uniform(70, 150) * k), int(rng.uniform(70, 200) * k)
    base = [(248, 248, 244), (250, 240, 170), (240, 240, 232), (200, 225, 245)][int(rng.integers(4))]
    img = np.full((h, w, 3), base, np.uint8)
    if rng.random() < 0.7:
        step = int(rng.uniform(6, 9) * k)
        for y in range(step * 2, h, step):
            cv2.line(img, (0, y), (w, y), (170, 190, 220), 1, cv2.LINE_AA)
    ink = [(30, 30, 60), (40, 40, 40), (20, 60, 160), (160, 30, 30)][int(rng.integers(4))]
    # Handwriting: wobbly strokes and a few digits.
    for line in range(int(rng.integers(2, 9))):
        y = int((line + 2) * rng.uniform(6, 9) * k)
        x = int(rng.uniform(5, 15) * k)
        while x < w - 20 and y < h - 10:
            n = int(rng.integers(3, 8))
            pts = np.stack([x + np.cumsum(rng.uniform(1, 5, n)) * k / 2, y - np.abs(rng.normal(0, 2.5 * k, n))], 1).astype(np.int32)
            cv2.polylines(img, [pts], False, ink, max(1, int(k / 2)), cv2.LINE_AA)
            x = int(pts[-1, 0] + rng.uniform(3, 8) * k)
    tex = _rgba(h, w, _lin(img))
    return Decal("paper", tex, k, lift_mm=0.1)


def _disc(rng: np.random.Generator, kind: str) -> Decal:
    k = 6.0
    if kind == "coin":
        d_mm = float(rng.uniform(16, 28))
        metal = [(200, 160, 70), (190, 190, 195), (180, 100, 60), (160, 150, 120)][int(rng.integers(4))]
    elif kind == "chip":
        d_mm = float(rng.uniform(36, 41))
        metal = [(200, 30, 30), (30, 60, 170), (30, 130, 60), (30, 30, 30), (240, 240, 235), (120, 40, 140)][int(rng.integers(6))]
    else:
        d_mm = float(rng.uniform(10, 24))
        metal = tuple(int(v) for v in rng.integers(30, 240, 3))
    n = int(d_mm * k) | 1
    c = n / 2.0
    yy, xx = np.mgrid[:n, :n].astype(np.float32)
    r = np.hypot(xx - c + 0.5, yy - c + 0.5) / (n / 2.0)
    base = _lin(metal)
    lum = np.ones((n, n), np.float32)
    if kind == "coin":
        lum *= 0.85 + 0.3 * np.clip(1.0 - r, 0.0, 1.0) ** 0.3
        lum *= np.where((r > 0.82) & (r < 0.9), 0.75, 1.0)
        relief = cv2.GaussianBlur((rng.random((n // 6 + 1, n // 6 + 1)) > 0.6).astype(np.float32), (0, 0), 1.0)
        lum *= 0.85 + 0.3 * cv2.resize(relief, (n, n), interpolation=cv2.INTER_LINEAR)
    elif kind == "chip":
        ang = np.arctan2(yy - c, xx - c)
        spots = (r > 0.78) & (np.mod(ang * 4 / math.pi, 1.0) < 0.45)
        lum = np.where(spots, 3.0 if base.mean() < 0.5 else 0.4, 1.0).astype(np.float32)
        lum *= np.where((r > 0.6) & (r < 0.64), 0.7, 1.0)
    tex = np.zeros((n, n, 4), np.float32)
    tex[..., :3] = base * lum[..., None]
    tex[..., 3] = np.clip((1.0 - r) * n / 2.0 + 0.5, 0.0, 1.0)
    return Decal(kind, tex, k, lift_mm={"coin": 1.8, "chip": 3.3}.get(kind, 4.0))


def _pencil(rng: np.random.Generator) -> Decal:
    k = 5.0
    length, width = float(rng.uniform(90, 175)), 7.0
    h, w = int(width * k), int(length * k)
    body = [(240, 200, 40), (30, 90, 160), (200, 40, 40), (40, 40, 40), (60, 140, 70)][int(rng.integers(5))]
    across = np.abs(np.linspace(-1, 1, h, dtype=np.float32))
    lum = (1.05 - 0.5 * across**2)[:, None] * np.ones((1, w), np.float32)
    tex = np.zeros((h, w, 4), np.float32)
    tex[..., :3] = _lin(body) * lum[..., None]
    tip = int(18 * k)
    xs = np.arange(w)
    wood = xs < tip
    taper = np.clip(xs / tip, 0.0, 1.0)
    inside = across[:, None] <= np.maximum(taper, 0.05)[None, :]
    tex[:, wood, :3] = (_lin((220, 180, 130)) * lum[:, wood, None])
    tex[:, xs < tip * 0.25, :3] = _lin((40, 40, 45))
    tex[..., 3] = inside.astype(np.float32)
    return Decal("pencil", tex, k, lift_mm=7.0)


def make_decal(rng: np.random.Generator, kind: str) -> Decal:
    if kind in ("card", "card-back"):
        return _card(rng, kind == "card-back")
    if kind == "paper":
        return _paper(rng)
    if kind == "pencil":
        return _pencil(rng)
    return _disc(rng, kind)


def paint_decal(albedo: np.ndarray, cam: Camera, decal: Decal) -> np.ndarray | None:
    """Warp a decal into the table albedo (in place); returns its coverage in the image."""
    hmap = cam.plane_homography(decal.lift_mm * 0.5) @ decal.to_table()
    px, z = cam.project(np.column_stack([decal.footprint(), np.zeros(4)]))
    if (z <= 1).any():
        return None
    x0, y0 = max(0, int(px[:, 0].min()) - 1), max(0, int(px[:, 1].min()) - 1)
    x1, y1 = min(cam.width, int(px[:, 0].max()) + 2), min(cam.height, int(px[:, 1].max()) + 2)
    if x1 <= x0 or y1 <= y0:
        return None
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
    warped = cv2.warpPerspective(decal.texture, shift @ hmap, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    a = warped[..., 3:4]
    win = albedo[y0:y1, x0:x1]
    win[:] = win * (1.0 - a) + warped[..., :3] * a
    cov = np.zeros(albedo.shape[:2], np.float32)
    cov[y0:y1, x0:x1] = a[..., 0]
    return cov


@dataclass(frozen=True, eq=False)
class Cup:
    """A dice cup or shaker cone standing on the table (mouth down unless ``upright``)."""

    centre: tuple[float, float]
    r_bottom: float
    r_top: float
    height: float
    colour: np.ndarray  # linear RGB
    upright: bool
    shine: float

    def ring(self, z: float, r: float, n: int = 48) -> np.ndarray:
        a = np.linspace(0, 2 * math.pi, n, endpoint=False)
        return np.stack([self.centre[0] + r * np.cos(a), self.centre[1] + r * np.sin(a), np.full(n, z)], axis=1)

    def to_json(self) -> dict:
        return {"kind": "cone" if self.r_top < 0.6 * self.r_bottom else "cup", "centre_mm": [round(v, 1) for v in self.centre], "height_mm": round(self.height, 1)}


def sample_cup(rng: np.random.Generator, centre: tuple[float, float]) -> Cup:
    rb = float(rng.uniform(34, 48))
    cone = rng.random() < 0.25
    rt = rb * float(rng.uniform(0.3, 0.55) if cone else rng.uniform(0.75, 1.0))
    col = [(90, 50, 30), (30, 30, 30), (150, 30, 30), (40, 60, 120), (200, 200, 195), (120, 90, 60), (40, 90, 60)][int(rng.integers(7))]
    return Cup(centre, rb, rt, float(rng.uniform(60, 110)), _lin(col) * float(rng.uniform(0.8, 1.2)), bool(rng.random() < 0.25 and not cone), float(rng.uniform(0.0, 0.6)))


def _lit(colour: np.ndarray, n: np.ndarray, light: Light, p: np.ndarray, view: np.ndarray, shine: float) -> np.ndarray:
    ldir = light.direction_at(p)
    ndl = max(float(n @ ldir), 0.0)
    up = 0.5 + 0.5 * float(n[2])
    amb = light.sky * up + light.ground * (1 - up)
    out = colour * (amb + light.key_at(p) * ndl)
    h = ldir + view
    h = h / np.linalg.norm(h)
    out = out + light.key_at(p) * shine * max(float(n @ h), 0.0) ** 30
    return out.astype(np.float32)


def render_cup(cam: Camera, cup: Cup, light: Light) -> Layer | None:
    n = 48
    bottom = cup.ring(0.0, cup.r_bottom, n)
    top = cup.ring(cup.height, cup.r_top, n)
    polys = []
    for i in range(n):
        j = (i + 1) % n
        quad = np.array([bottom[i], bottom[j], top[j], top[i]])
        mid = quad.mean(axis=0)
        radial = np.array([mid[0] - cup.centre[0], mid[1] - cup.centre[1], 0.0])
        radial /= np.linalg.norm(radial)
        slope = (cup.r_bottom - cup.r_top) / cup.height
        normal = radial + np.array([0, 0, slope])
        normal /= np.linalg.norm(normal)
        view = cam.centre - mid
        view /= np.linalg.norm(view)
        if normal @ view <= 0:
            continue
        polys.append((quad, _lit(cup.colour, normal, light, mid, view, cup.shine)))
    lid_n = np.array([0.0, 0.0, 1.0])
    mid = np.array([cup.centre[0], cup.centre[1], cup.height])
    view = (cam.centre - mid) / np.linalg.norm(cam.centre - mid)
    lid = _lit(cup.colour, lid_n, light, mid, view, cup.shine) * (0.85 if not cup.upright else 1.0)
    polys.append((top, lid))
    if cup.upright:
        inner = cup.ring(cup.height + 0.1, cup.r_top * 0.9, n)
        polys.append((inner, (cup.colour * light.sky * 0.25).astype(np.float32)))
    return render_polygons(cam, polys)


def cup_shadow(cup: Cup, light: Light) -> np.ndarray:
    """Table-plane outline of the cup's shadow (points, mm)."""
    pts = np.concatenate([cup.ring(0.0, cup.r_bottom, 24), cup.ring(cup.height, cup.r_top, 24)])
    d = light.direction_at(np.array([cup.centre[0], cup.centre[1], 0.0]))
    return pts[:, :2] - pts[:, 2:3] * d[None, :2] / max(d[2], 0.15)


_SKIN = [(255, 220, 190), (240, 190, 150), (215, 160, 120), (180, 125, 90), (130, 85, 60), (90, 60, 45)]


@dataclass(frozen=True, eq=False)
class Hand:
    """A hand (and forearm) hovering ``height`` mm over the table, reaching in from ``yaw``."""

    texture: np.ndarray  # (h, w, 4) linear RGB (already shaded for roundness) + alpha
    px_per_mm: float
    anchor: tuple[float, float]  # texture pixel at the centre of the palm
    centre: tuple[float, float]
    yaw: float
    height: float

    def to_plane(self) -> np.ndarray:
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        k = 1.0 / self.px_per_mm
        return np.array([[c * k, -s * k, self.centre[0]], [s * k, c * k, self.centre[1]], [0, 0, 1]]) @ np.array(
            [[1, 0, -self.anchor[0]], [0, 1, -self.anchor[1]], [0, 0, 1]]
        )

    def to_json(self) -> dict:
        return {"kind": "hand", "centre_mm": [round(v, 1) for v in self.centre], "height_mm": round(self.height, 1)}


def sample_hand(rng: np.random.Generator, centre: tuple[float, float], yaw: float) -> Hand:
    """Palm, four fingers, a thumb and a forearm (sleeved or bare), drawn at 2 px/mm.

    Each part is shaded as a rounded solid of its own, so fingers stay apart.
    """
    k = 2.0
    scale = float(rng.uniform(0.85, 1.15))
    arm = 320.0
    w, h = int(200 * k), int((110 + arm) * k)
    cx, cy = w / 2.0, 100 * k  # palm centre; fingers point towards -y, the arm runs to +y
    s = scale * k
    parts: list[tuple[np.ndarray, float, bool]] = []  # mask, half-thickness in px, is sleeve

    def part(draw, thickness: float, sleeve: bool = False) -> None:
        m = np.zeros((h, w), np.uint8)
        draw(m)
        parts.append((m, thickness, sleeve))

    part(lambda m: cv2.ellipse(m, (int(cx), int(cy)), (int(42 * s), int(48 * s)), 0, 0, 360, 255, -1, cv2.LINE_AA), 16 * s)
    curl = float(rng.uniform(0.45, 1.0))
    for i, (dx, ln, wd) in enumerate(((-27, 62, 15), (-9, 72, 16), (9, 68, 16), (26, 55, 14))):
        ang = math.radians(float(rng.normal(0, 6)) + (i - 1.5) * 5)
        x0, y0 = cx + dx * s, cy - 30 * s
        length = ln * s * curl
        x1, y1 = x0 + length * math.sin(ang), y0 - length * math.cos(ang)

        def finger(m: np.ndarray, x0=x0, y0=y0, x1=x1, y1=y1, wd=wd) -> None:
            cv2.line(m, (int(x0), int(y0)), (int(x1), int(y1)), 255, int(wd * s * 0.92), cv2.LINE_AA)
            cv2.circle(m, (int(x1), int(y1)), int(wd * s * 0.46), 255, -1, cv2.LINE_AA)

        part(finger, wd * s * 0.46)
    side = 1 if rng.random() < 0.5 else -1
    tx0, ty0 = cx + side * 35 * s, cy + 10 * s
    tang = math.radians(side * float(rng.uniform(30, 70)))
    tx1, ty1 = tx0 + 50 * s * math.sin(tang), ty0 - 50 * s * math.cos(tang)

    def thumb(m: np.ndarray) -> None:
        cv2.line(m, (int(tx0), int(ty0)), (int(tx1), int(ty1)), 255, int(19 * s), cv2.LINE_AA)
        cv2.circle(m, (int(tx1), int(ty1)), int(9 * s), 255, -1, cv2.LINE_AA)

    part(thumb, 9 * s)
    part(lambda m: cv2.rectangle(m, (int(cx - 33 * s), int(cy + 20 * s)), (int(cx + 33 * s), h), 255, -1), 30 * s)
    if rng.random() < 0.6:
        top = int(cy + float(rng.uniform(70, 140)) * s)
        part(lambda m: cv2.rectangle(m, (int(cx - 48 * s), top), (int(cx + 48 * s), h), 255, -1), 40 * s, True)
    skin = _lin(_SKIN[int(rng.integers(len(_SKIN)))]) * float(rng.uniform(0.85, 1.1))
    cloth = _lin(tuple(int(v) for v in rng.integers(20, 230, 3)))
    tex = np.zeros((h, w, 4), np.float32)
    for m, thick, sleeve in parts:  # later parts lie over earlier ones
        a = m.astype(np.float32) / 255.0
        dist = cv2.distanceTransform((m > 127).astype(np.uint8), cv2.DIST_L2, 3)
        shade = 0.4 + 0.6 * np.sqrt(np.clip(dist / thick, 0.0, 1.0))
        col = (cloth if sleeve else skin) * shade[..., None]
        tex[..., :3] = tex[..., :3] * (1.0 - a[..., None]) + col * a[..., None]
        tex[..., 3] = np.maximum(tex[..., 3], a)
    mottle = cv2.resize(rng.random((h // 24 + 1, w // 24 + 1), dtype=np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    tex[..., :3] *= (0.92 + 0.16 * mottle)[..., None]
    return Hand(tex, k, (cx, cy), centre, yaw, float(rng.uniform(20, 70)))


def render_hand(cam: Camera, hand: Hand, light: Light) -> Layer | None:
    hmap = cam.plane_homography(hand.height) @ hand.to_plane()
    h, w = hand.texture.shape[:2]
    corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], float).T
    plane = hand.to_plane() @ corners
    world = np.column_stack([plane[0] / plane[2], plane[1] / plane[2], np.full(4, hand.height)])
    px, z = cam.project(world)
    if (z <= 1).any():
        return None
    x0, y0 = max(0, int(px[:, 0].min()) - 1), max(0, int(px[:, 1].min()) - 1)
    x1, y1 = min(cam.width, int(px[:, 0].max()) + 2), min(cam.height, int(px[:, 1].max()) + 2)
    if x1 <= x0 or y1 <= y0:
        return None
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
    warped = cv2.warpPerspective(hand.texture, shift @ hmap, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    p = np.array([hand.centre[0], hand.centre[1], hand.height])
    shade = light.sky + light.key_at(p) * max(float(light.direction_at(p)[2]), 0.0) * 0.8
    a = warped[..., 3]
    colour = warped[..., :3] * shade.astype(np.float32)
    depth = np.where(a > 0, np.float32(1.0), np.float32(np.inf)).astype(np.float32)
    return Layer(x0, y0, colour.astype(np.float32), a.astype(np.float32), depth)


def hand_shadow(cam: Camera, hand: Hand, light: Light) -> tuple[np.ndarray, np.ndarray] | None:
    """The hand's coverage as cast on the table, warped into the image (mask, and its window origin)."""
    p = np.array([hand.centre[0], hand.centre[1], 0.0])
    d = light.direction_at(p)
    off = -hand.height * d[:2] / max(d[2], 0.2)
    shifted = np.array([[1, 0, off[0]], [0, 1, off[1]], [0, 0, 1]]) @ hand.to_plane()
    hmap = cam.plane_homography(0.0) @ shifted
    mask = cv2.warpPerspective(np.ascontiguousarray(hand.texture[..., 3]), hmap, (cam.width, cam.height), flags=cv2.INTER_LINEAR)
    return mask, off
