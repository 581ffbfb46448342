"""Table surfaces, organised in named families, drawn straight into the image.

Every pixel is mapped back to its point on the table (inverse homography), and
each family paints a procedural texture at those world coordinates, in
millimetres, so grain, weave and speckle shrink correctly with distance.

Families in :data:`TRAIN_FAMILIES` are used by default; those in
:data:`HELDOUT_FAMILIES` never are, and serve to measure how a reader copes with
tables it has not seen.

>>> set(TRAIN_FAMILIES) & set(HELDOUT_FAMILIES)
set()
>>> sorted(FAMILIES) == sorted(TRAIN_FAMILIES + HELDOUT_FAMILIES)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.colour import srgb_to_linear
from vision.synth.errors import UnknownTableFamily
from vision.synth.geometry import Camera
from vision.synth.noise import hash_values, value_noise

TRAIN_FAMILIES: tuple[str, ...] = ("wood", "felt", "cloth", "laminate", "paper", "tray", "pattern", "concrete")
HELDOUT_FAMILIES: tuple[str, ...] = ("stone", "leather", "tiles")


_Q = 4  # coarse fields are computed on a grid this many times sparser, then upsampled


@dataclass(frozen=True, eq=False)
class TableContext:
    """Where each pixel lands on the table, at full and at 1/4 resolution."""

    cam: Camera
    x: np.ndarray  # (H, W) world x of each pixel on the table, mm
    y: np.ndarray
    footprint: np.ndarray  # (H, W) mm per pixel
    xs: np.ndarray  # the same on the coarse grid
    ys: np.ndarray
    fps: np.ndarray

    @classmethod
    def of(cls, cam: Camera) -> "TableContext":
        w, h = cam.width, cam.height
        wq, hq = -(-w // _Q), -(-h // _Q)
        hinv = np.linalg.inv(cam.plane_homography(0.0))
        u, v = np.meshgrid(np.arange(wq, dtype=np.float64) * _Q + _Q / 2.0, np.arange(hq, dtype=np.float64) * _Q + _Q / 2.0)
        den = hinv[2, 0] * u + hinv[2, 1] * v + hinv[2, 2]
        xs = ((hinv[0, 0] * u + hinv[0, 1] * v + hinv[0, 2]) / den).astype(np.float32)
        ys = ((hinv[1, 0] * u + hinv[1, 1] * v + hinv[1, 2]) / den).astype(np.float32)
        # mm per pixel from the mapping's Jacobian (the table tilts away from the camera).
        gxy, gxx = np.gradient(xs)
        gyy, gyx = np.gradient(ys)
        fps = (np.sqrt(np.abs(gxx * gyy - gxy * gyx)) / _Q).astype(np.float32)
        big = (wq * _Q, hq * _Q)
        x = cv2.resize(xs, big, interpolation=cv2.INTER_LINEAR)[:h, :w]
        y = cv2.resize(ys, big, interpolation=cv2.INTER_LINEAR)[:h, :w]
        fp = cv2.resize(fps, big, interpolation=cv2.INTER_LINEAR)[:h, :w]
        return cls(cam, x, y, fp, xs, ys, fps)

    @property
    def shape(self) -> tuple[int, int]:
        return self.x.shape

    def noise(self, rng: np.random.Generator, scale: float, angle: float = 0.0, stretch: float = 1.0) -> np.ndarray:
        """Value noise in about [0, 1], detail finer than 2 px faded out, coarse fields computed sparsely."""
        finest = float(self.fps.min())
        if scale >= 24.0 * _Q * finest:
            small = value_noise(rng, self.xs, self.ys, scale, angle, stretch, self.fps)
            h, w = self.shape
            return cv2.resize(small, (small.shape[1] * _Q, small.shape[0] * _Q), interpolation=cv2.INTER_LINEAR)[:h, :w]
        return value_noise(rng, self.x, self.y, scale, angle, stretch, self.footprint, interp_linear=scale < 6.0 * finest)

    def speck(self, rng: np.random.Generator, scale: float, threshold: float) -> np.ndarray:
        """Soft-edged random flecks (0..1), never smaller than the pixels can show."""
        sc = max(scale, 2.5 * float(np.median(self.fps)))
        n = self.noise(rng, sc)
        return np.clip((n - threshold) * 12.0, 0.0, 1.0)

    def fractal(self, rng: np.random.Generator, scale: float, octaves: int = 3, angle: float = 0.0, stretch: float = 1.0) -> np.ndarray:
        total = np.zeros(self.shape, np.float32)
        amp, norm, sc = 1.0, 0.0, scale
        for _ in range(octaves):
            total += np.float32(amp) * (self.noise(rng, sc, angle, stretch) - 0.5)
            norm += amp
            amp *= 0.5
            sc *= 0.5
        return np.clip(0.5 + total * np.float32(1.6 / norm), 0.0, 1.0)


@dataclass(frozen=True, eq=False)
class Table:
    family: str
    variant: str
    albedo: np.ndarray  # (H, W, 3) linear RGB
    gloss: float  # strength of the lamp's reflection on the surface
    shininess: float

    def to_json(self) -> dict:
        return {"family": self.family, "variant": self.variant, "gloss": round(self.gloss, 3)}


def _rgb(rng: np.random.Generator, srgb: tuple[int, int, int], jitter: float = 0.08) -> np.ndarray:
    c = np.array(srgb, np.float32) / 255.0
    c = np.clip(c * (1.0 + rng.normal(0.0, jitter, 3)), 0.0, 1.0)
    return srgb_to_linear(c)


def _pick(rng: np.random.Generator, options: dict) -> tuple[str, object]:
    keys = list(options)
    k = keys[int(rng.integers(len(keys)))]
    return k, options[k]


def _mix(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Blend colour(s) ``a`` towards ``b`` by the scalar field ``t``."""
    return (a + (b - a) * t[..., None]).astype(np.float32)


def _tint(base: np.ndarray, lum: np.ndarray) -> np.ndarray:
    """A flat colour times a scalar brightness field."""
    b = [float(v) for v in base]
    return cv2.multiply(cv2.merge([lum, lum, lum]), (b[0], b[1], b[2], 0.0))


def _var(field: np.ndarray, amount: float) -> np.ndarray:
    """A brightness factor 1 +- ``amount`` from a field in [0, 1]."""
    return np.float32(1.0 - amount) + field * np.float32(2.0 * amount)


def _rotated(c: TableContext, angle: float) -> tuple[np.ndarray, np.ndarray]:
    ca, sa = np.float32(math.cos(angle)), np.float32(math.sin(angle))
    return c.x * ca + c.y * sa, c.y * ca - c.x * sa


def _aa_step(dist: np.ndarray, footprint: np.ndarray) -> np.ndarray:
    """1 inside (dist > 0), 0 outside, with a one-pixel soft edge."""
    return np.clip(dist / np.maximum(footprint, 0.05) + 0.5, 0.0, 1.0)


def wood(rng: np.random.Generator, c: TableContext) -> Table:
    name, col = _pick(
        rng,
        {
            "oak": (192, 146, 96),
            "walnut": (104, 68, 42),
            "cherry": (150, 82, 52),
            "pine": (214, 178, 128),
            "greywash": (160, 152, 140),
            "white-painted": (226, 220, 208),
            "ebony": (58, 40, 30),
            "teak": (150, 100, 60),
        },
    )
    base = _rgb(rng, col)
    ang = float(rng.uniform(0, math.pi))
    a, b = _rotated(c, ang)
    plank_w = float(rng.uniform(70.0, 220.0))
    pidx = np.floor(b / plank_w).astype(np.int64)
    tint = hash_values(rng, pidx)
    # Growth rings cut lengthwise: bands along the grain, bent by slow noise into arches.
    spacing = float(rng.uniform(4.0, 14.0))
    warp = (c.fractal(rng, 90.0, 3, angle=ang, stretch=6.0) - 0.5) * np.float32(spacing * rng.uniform(3.0, 8.0))
    rings = (b + warp + tint * 97.0) * np.float32(1.0 / spacing)
    rings -= np.floor(rings)
    late = np.clip((rings - 0.55) * 4.0, 0.0, 1.0) * np.clip((1.0 - rings) * 8.0, 0.0, 1.0)
    fade = np.clip(spacing / (4.0 * c.footprint), 0.0, 1.0)
    late = late * fade + 0.2 * (1.0 - fade)
    fibres = c.noise(rng, 0.6, angle=ang, stretch=40.0)
    streaks = c.noise(rng, 6.0, angle=ang, stretch=25.0)
    line_amt = float(rng.uniform(0.12, 0.35)) * (0.3 if name == "white-painted" else 1.0)
    lum = _var(tint, 0.12) * (1.0 - np.float32(line_amt) * late) * _var(fibres, 0.05) * _var(streaks, 0.08)
    gap = b - np.floor(b / plank_w) * plank_w
    gap = np.minimum(gap, plank_w - gap)
    lum *= 0.35 + 0.65 * np.clip(gap / np.maximum(0.8, c.footprint), 0.0, 1.0)
    return Table("wood", name, _tint(base, lum), float(rng.uniform(0.0, 0.5)), float(rng.uniform(10, 60)))


_FELT = {"green": (26, 96, 56), "blue": (30, 62, 120), "red": (128, 28, 34), "black": (32, 32, 34), "grey": (104, 104, 104), "purple": (72, 42, 92), "brown": (92, 62, 42), "beige": (190, 176, 150)}


def felt(rng: np.random.Generator, c: TableContext) -> Table:
    name, col = _pick(rng, _FELT)
    fine = c.noise(rng, float(rng.uniform(0.3, 0.8)))
    mott = c.fractal(rng, float(rng.uniform(20, 60)), 2)
    return Table("felt", name, _tint(_rgb(rng, col), _var(fine, 0.1) * _var(mott, 0.06)), 0.0, 5.0)


_CLOTH = [(200, 40, 40), (240, 240, 236), (40, 70, 140), (60, 120, 70), (230, 200, 120), (120, 60, 110), (30, 30, 34), (200, 120, 60)]


def cloth(rng: np.random.Generator, c: TableContext) -> Table:
    c1, c2, c3 = (_rgb(rng, _CLOTH[int(i)]) for i in rng.choice(len(_CLOTH), 3, replace=False))
    ang = float(rng.uniform(0, math.pi))
    a, b = _rotated(c, ang)
    kind = str(rng.choice(["gingham", "plaid", "stripes", "plain", "linen"]))
    period = float(rng.uniform(8.0, 40.0))
    if kind == "gingham":
        t = ((np.mod(a, period) < period / 2).astype(np.float32) + (np.mod(b, period) < period / 2)) * 0.5
        albedo = _mix(c1, c2, t)
    elif kind == "plaid":
        t1 = (np.sin(a * np.float32(2 * math.pi / period)) > 0.4).astype(np.float32) * 0.6
        t2 = (np.sin(b * np.float32(2 * math.pi / (period * 1.3))) > 0.4).astype(np.float32) * 0.5
        albedo = _mix(_mix(c1, c2, t1), c3, t2)
    elif kind == "stripes":
        albedo = _mix(c1, c2, (np.mod(a, period) < period * float(rng.uniform(0.2, 0.6))).astype(np.float32))
    else:
        albedo = np.broadcast_to(c1, c.shape + (3,))
    # Woven threads: a fine checker of raised warp and weft, faded where pixels are coarser.
    p = float(rng.uniform(0.5, 1.4))
    keep = np.clip(p / (2.0 * c.footprint) - 0.5, 0.0, 1.0)
    weave = np.sin(a * np.float32(2 * math.pi / p)) * np.sin(b * np.float32(2 * math.pi / p)) * keep
    slub = c.noise(rng, 2.0, angle=ang, stretch=8.0)
    folds = c.fractal(rng, float(rng.uniform(60, 200)), 2)
    lum = (1.0 + 0.12 * weave) * _var(slub, 0.06) * _var(folds, float(rng.uniform(0.03, 0.12)))
    return Table("cloth", kind, (albedo * lum[..., None]).astype(np.float32), 0.0, 5.0)


def laminate(rng: np.random.Generator, c: TableContext) -> Table:
    name, col = _pick(rng, {"white": (236, 236, 232), "beige": (218, 204, 178), "grey": (150, 152, 154), "black": (36, 36, 38), "mint": (190, 220, 200), "blue-grey": (120, 140, 160), "cream": (240, 230, 205)})
    lum = _var(c.noise(rng, float(rng.uniform(0.4, 1.5))), 0.04) * _var(c.fractal(rng, float(rng.uniform(50, 200)), 2), 0.04)
    if rng.random() < 0.3:
        lum *= 1.0 - 0.3 * c.speck(rng, 0.7, 0.8)
    return Table("laminate", name, _tint(_rgb(rng, col, 0.04), lum), float(rng.uniform(0.2, 1.0)), float(rng.uniform(20, 200)))


def paper(rng: np.random.Generator, c: TableContext) -> Table:
    name, col = _pick(rng, {"white": (240, 240, 236), "grey-board": (186, 182, 174), "kraft": (190, 150, 104), "newsprint": (224, 220, 206)})
    lum = _var(c.noise(rng, 0.35), 0.06) * _var(c.noise(rng, 0.6, angle=float(rng.uniform(0, math.pi)), stretch=5.0), 0.05)
    if name in ("grey-board", "kraft"):
        lum *= 1.0 - 0.35 * c.speck(rng, 0.5, 0.82)
    if name == "newsprint":
        # Columns of text: lines 3.5 mm apart, words as runs along them, letters as fine grain.
        a, b = _rotated(c, float(rng.uniform(0, math.pi)))
        line = (np.mod(b, 3.5) < 2.0) * (c.noise(rng, 4.0, angle=0.0, stretch=1.0) > 0.35)
        gutter = np.mod(a, 60.0) > 4.0
        ink = line * gutter * _var(c.noise(rng, 0.4), 0.5)
        lum *= 1.0 - 0.45 * ink * np.clip(2.5 / c.footprint - 1.0, 0.2, 1.0)
    return Table("paper", name, _tint(_rgb(rng, col, 0.03), lum), float(rng.uniform(0.0, 0.1)), 8.0)


_PATTERN = [(240, 240, 236), (30, 30, 34), (200, 40, 40), (40, 80, 160), (60, 140, 80), (240, 200, 60), (230, 120, 160), (120, 80, 160), (250, 150, 50)]


def pattern(rng: np.random.Generator, c: TableContext) -> Table:
    c1, c2, c3 = (_rgb(rng, _PATTERN[int(i)]) for i in rng.choice(len(_PATTERN), 3, replace=False))
    kind = str(rng.choice(["dots", "checker", "confetti", "blobs", "stripes", "grid"]))
    a, b = _rotated(c, float(rng.uniform(0, math.pi)))
    if kind == "dots":  # pip-like dots: a hard negative for the detector
        period = float(rng.uniform(6.0, 30.0))
        r = period * float(rng.uniform(0.12, 0.35))
        t = _aa_step(r - np.hypot(np.mod(a, period) - period / 2, np.mod(b, period) - period / 2), c.footprint)
    elif kind == "checker":
        period = float(rng.uniform(10.0, 60.0))
        t = ((np.floor(a / period) + np.floor(b / period)) % 2).astype(np.float32)
    elif kind == "confetti":
        cell = float(rng.uniform(8.0, 25.0))
        ia, ib = np.floor(a / cell).astype(np.int64), np.floor(b / cell).astype(np.int64)
        h1 = hash_values(rng, ia * 7919 + ib)
        h2 = hash_values(rng, ia * 31 + ib * 17)
        da = np.mod(a, cell) - cell * (0.3 + 0.4 * h1)
        db = np.mod(b, cell) - cell * (0.3 + 0.4 * h2)
        t = _aa_step(cell * 0.18 - np.hypot(da, db), c.footprint) * (h1 > 0.4)
    elif kind == "blobs":
        t = (c.fractal(rng, float(rng.uniform(15, 60)), 3) > 0.55).astype(np.float32)
    elif kind == "stripes":
        period = float(rng.uniform(5.0, 30.0))
        t = (np.mod(a, period) < period / 2).astype(np.float32)
    else:
        period = float(rng.uniform(8.0, 40.0))
        w = float(rng.uniform(0.6, 2.0))
        t = ((np.mod(a, period) < w) | (np.mod(b, period) < w)).astype(np.float32)
    albedo = _mix(c1, c2, t.astype(np.float32))
    accent = (c.noise(rng, float(rng.uniform(40, 120))) > 0.7).astype(np.float32) * np.float32(rng.uniform(0.0, 0.6))
    albedo = _mix(albedo, c3, accent) * _var(c.noise(rng, 0.8), 0.04)[..., None]
    return Table("pattern", kind, albedo.astype(np.float32), float(rng.uniform(0.0, 0.4)), float(rng.uniform(10, 80)))


def concrete(rng: np.random.Generator, c: TableContext) -> Table:
    name, col = _pick(rng, {"light": (176, 172, 166), "dark": (100, 100, 100), "warm": (170, 156, 140), "terrazzo": (200, 196, 188)})
    lum = _var(c.fractal(rng, float(rng.uniform(40, 150)), 3), 0.12) * _var(c.fractal(rng, 4.0, 2), 0.1)
    lum *= 1.0 - 0.35 * c.speck(rng, 0.8, 0.84)
    albedo = _tint(_rgb(rng, col, 0.04), lum)
    if name == "terrazzo":
        for _ in range(3):
            chip = c.speck(rng, float(rng.uniform(2, 6)), 0.76)
            albedo = _mix(albedo, _rgb(rng, tuple(int(v) for v in rng.integers(40, 230, 3))), chip)
    return Table("concrete", name, albedo, float(rng.uniform(0.0, 0.2)), 10.0)


def stone(rng: np.random.Generator, c: TableContext) -> Table:
    kind = str(rng.choice(["granite", "marble"]))
    if kind == "granite":
        base = _rgb(rng, tuple(int(v) for v in rng.choice([(60, 60, 64), (150, 140, 130), (40, 36, 34), (190, 180, 170)])))
        albedo = np.broadcast_to(base, c.shape + (3,))
        for scale, thr in ((1.2, 0.72), (2.5, 0.75), (0.6, 0.7)):
            chip = c.speck(rng, scale, thr) * 0.8
            albedo = _mix(albedo, _rgb(rng, tuple(int(v) for v in rng.integers(20, 240, 3)), 0.0), chip)
    else:
        base = _rgb(rng, tuple(int(v) for v in rng.choice([(232, 230, 226), (40, 40, 44), (210, 196, 180), (190, 200, 196)])))
        turb = c.fractal(rng, float(rng.uniform(30, 90)), 4)
        a, _ = _rotated(c, float(rng.uniform(0, math.pi)))
        vein = np.abs(np.sin(a * np.float32(1.0 / rng.uniform(15, 60)) + turb * 8.0)) ** 0.25
        dark = _rgb(rng, (90, 90, 96) if base.mean() > 0.3 else (210, 210, 200))
        albedo = _mix(base, dark, (1.0 - vein) * 0.8)
    return Table("stone", kind, albedo.astype(np.float32), float(rng.uniform(0.3, 1.0)), float(rng.uniform(40, 200)))


def leather(rng: np.random.Generator, c: TableContext) -> Table:
    name, col = _pick(rng, {"tan": (170, 112, 64), "brown": (96, 58, 34), "black": (30, 28, 28), "oxblood": (100, 30, 30), "green": (40, 70, 50)})
    cells = c.noise(rng, float(rng.uniform(0.8, 2.0)))
    crease = np.clip(1.0 - np.abs(cells - 0.5) * 8.0, 0.0, 1.0)
    lum = _var(c.fractal(rng, 30.0, 3), 0.18) * (1.0 - 0.3 * crease)
    return Table("leather", name, _tint(_rgb(rng, col), lum), float(rng.uniform(0.1, 0.5)), float(rng.uniform(8, 30)))


def tiles(rng: np.random.Generator, c: TableContext) -> Table:
    name, col = _pick(rng, {"white": (236, 236, 232), "blue": (70, 110, 170), "terracotta": (180, 96, 60), "green": (90, 150, 120), "black": (30, 30, 32), "mixed": (200, 190, 170)})
    size = float(rng.uniform(40.0, 200.0))
    grout_w = float(rng.uniform(1.5, 5.0))
    grout = _rgb(rng, tuple(int(v) for v in rng.choice([(200, 200, 196), (90, 90, 90), (160, 150, 140)])))
    per = hash_values(rng, (np.floor(c.x / size) * 131 + np.floor(c.y / size)).astype(np.int64))
    albedo = _tint(_rgb(rng, col, 0.03), _var(per, 0.06))
    if name == "mixed":
        albedo = _mix(albedo, _rgb(rng, (60, 90, 140)), (per > 0.6).astype(np.float32))
    mx, my = np.mod(c.x, size), np.mod(c.y, size)
    edge = np.minimum(np.minimum(mx, size - mx), np.minimum(my, size - my))
    albedo = _mix(albedo, grout, _aa_step(grout_w / 2.0 - edge, c.footprint))
    return Table("tiles", name, albedo, float(rng.uniform(0.4, 1.0)), float(rng.uniform(60, 250)))


def tray_floor(rng: np.random.Generator, c: TableContext) -> Table:
    """The floor of a dice tray: felt, grey board, or neoprene."""
    choice = str(rng.choice(["felt", "paper", "neoprene"]))
    if choice == "felt":
        t = felt(rng, c)
    elif choice == "paper":
        t = paper(rng, c)
    else:
        base = _rgb(rng, tuple(int(v) for v in rng.choice([(40, 40, 44), (30, 50, 90), (120, 30, 40), (70, 80, 70)])))
        t = Table("tray", "neoprene", _tint(base, _var(c.noise(rng, 0.4), 0.08)), 0.05, 8.0)
    return Table("tray", f"floor-{t.variant}", t.albedo, t.gloss, t.shininess)


FAMILIES: dict[str, Callable[[np.random.Generator, TableContext], Table]] = {
    "wood": wood,
    "felt": felt,
    "cloth": cloth,
    "laminate": laminate,
    "paper": paper,
    "tray": tray_floor,  # the scene adds the tray's walls and puts another surface around it
    "pattern": pattern,
    "concrete": concrete,
    "stone": stone,
    "leather": leather,
    "tiles": tiles,
}


def check_families(names: tuple[str, ...]) -> None:
    for n in names:
        if n not in FAMILIES:
            raise UnknownTableFamily(n)


def make_table(rng: np.random.Generator, family: str, c: TableContext) -> Table:
    check_families((family,))
    return FAMILIES[family](rng, c)

