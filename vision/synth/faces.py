"""Face artwork of the dice: pips, the big red Japanese 1, the ship's wheel, katakana.

Each die gets a :class:`FaceAtlas`: six face cells (in :data:`designs.SIDES` order)
laid out 3 x 2, holding the ink colour, how much ink covers each texel, and how
deep the mark is cut into the body (drilled pips, engraved katakana). The die
renderer looks these up with ``cv2.remap``.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> atlas = make_atlas(rng, ("1", "6", "2", "5", "3", "4"), body="white", design="pips")
>>> atlas.ink.shape == (2 * atlas.cell, 3 * atlas.cell, 4)
True
>>> float(atlas.ink[..., 3].max()) > 0.9
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw

from vision.synth import kanafonts as fonts
from vision.synth.colour import delta_e, srgb_to_linear
from vision.synth.designs import INK_COLOURS, MIN_VEIN_CONTRAST, body_rgb, ink_choices

TEX = 128  # texels across one face at full detail
_SS = 2  # small faces are drawn at twice their size, then averaged down

KATAKANA = "プラスベガブレフカ"

# Pip centres on a face whose half-width is 1, before spacing is applied.
_PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.0, 0.0),),
    2: ((-1.0, -1.0), (1.0, 1.0)),
    3: ((-1.0, -1.0), (0.0, 0.0), (1.0, 1.0)),
    4: ((-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)),
    5: ((-1.0, -1.0), (1.0, -1.0), (0.0, 0.0), (-1.0, 1.0), (1.0, 1.0)),
    6: ((-1.0, -1.0), (-1.0, 0.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 0.0), (1.0, 1.0)),
}


def pad_for(tex: int) -> int:
    return max(2, tex // 16)


@dataclass(frozen=True)
class FaceAtlas:
    """Six faces, cell ``i`` at column ``i % 3``, row ``i // 3``, each ``tex`` texels plus ``pad``."""

    tex: int
    ink: np.ndarray  # (2*cell, 3*cell, 4) float32: linear ink RGB premultiplied by coverage, coverage
    relief: np.ndarray  # (2*cell, 3*cell, 3) float32: cut depth 0..1 and its d/du, d/dv per texel
    style: dict
    inks: tuple[str, ...] = ()  # the ink colours the marks are drawn in, first used first

    @property
    def pad(self) -> int:
        return pad_for(self.tex)

    @property
    def cell(self) -> int:
        return self.tex + 2 * self.pad


@dataclass(frozen=True)
class _Style:
    ink: str
    mark: str  # "drilled" | "printed" | "engraved"
    pip_radius: float
    pip_spacing: float
    one_radius: float
    one_ring: bool
    six_rotated: bool
    jitter: float
    font: Path
    kana_size: float
    kana_stroke: float  # extra stroke width as a fraction of the face (bolder lettering)
    wheel_spokes: int
    wheel_red: bool
    wheel_form: str = "classic"  # one of WHEEL_FORMS; the others only on wide-face renders


# How a ship's wheel is drawn: the classic rim, hub, spokes and round handles; a large solid hub;
# a heavy rim and spokes; handles that taper off without knobs; two concentric rims.
WHEEL_FORMS: tuple[str, ...] = ("classic", "disc", "bold", "knobless", "double")


def _style(rng: np.random.Generator, body: str, design: str, wide: bool = False) -> _Style:
    """One die's lettering and marks; ``wide`` also draws the training-only katakana fonts and
    wheel forms (after every other draw, so a render without it is unchanged)."""
    inks = ink_choices(body)
    ink = inks[int(rng.integers(len(inks)))]
    if design.startswith("nine"):
        ink = "black" if body == "white" else ("white" if rng.random() < 0.85 else "gold")
        mark = "engraved" if rng.random() < 0.5 else "printed"
    else:
        mark = "drilled" if rng.random() < 0.75 else "printed"
    pip_radius = float(rng.uniform(0.13, 0.18))
    st = _Style(
        ink=ink,
        mark=mark,
        pip_radius=pip_radius,
        pip_spacing=float(rng.uniform(0.44, 0.56)),
        one_radius=float(rng.choice([pip_radius, rng.uniform(0.17, 0.26)])),
        one_ring=bool(rng.random() < 0.08),
        six_rotated=bool(rng.random() < 0.5),
        jitter=float(rng.uniform(0.0, 0.025)),
        font=fonts.KANA_FONTS[int(rng.choice(len(fonts.KANA_FONTS), p=fonts.KANA_WEIGHTS))],
        kana_size=float(rng.uniform(0.6, 0.74)),
        kana_stroke=float(rng.choice([0.0, 0.0, 0.008, 0.015, 0.022, 0.03])),
        wheel_spokes=int(rng.choice([6, 8, 8])),
        # A red wheel only where red shows on the body: on a red die it would be invisible
        # while its label still said "wheel". The draw is made either way, so every other
        # die renders as before.
        wheel_red=bool(rng.random() < 0.6) and red_shows_on(body),
    )
    if not wide:
        return st
    return replace(st, font=fonts.WIDE_KANA_FONTS[int(rng.choice(len(fonts.WIDE_KANA_FONTS), p=fonts.WIDE_KANA_WEIGHTS))],
                   wheel_form=WHEEL_FORMS[int(rng.integers(len(WHEEL_FORMS)))])


def red_shows_on(body: str) -> bool:
    """Whether red marks stand out on a ``body`` die at least as much as the least
    contrasting body and ink :func:`~vision.synth.designs.ink_choices` pairs.

    >>> red_shows_on("white"), red_shows_on("orange"), red_shows_on("red")
    (True, True, False)
    """
    return delta_e(body_rgb(body), INK_COLOURS["red"]) >= MIN_VEIN_CONTRAST


def _circle(canvas: np.ndarray, cx: float, cy: float, r: float, thickness: int = -1) -> None:
    """Draw on a square canvas in face coordinates ([-1, 1] across), fixed point (shift 4)."""
    s = canvas.shape[0]

    def px(x: float) -> int:
        return int(round((x + 1.0) / 2.0 * s * 16))

    cv2.circle(canvas, (px(cx), px(cy)), int(round(r / 2.0 * s * 16)), 255, thickness, cv2.LINE_AA, 4)


def _pips(rng: np.random.Generator, n: int, st: _Style, s: int) -> list[tuple[np.ndarray, str]]:
    cov = np.zeros((s, s), np.uint8)
    layout = _PIP_LAYOUT[n]
    if n == 6 and st.six_rotated:
        layout = tuple((y, x) for x, y in layout)
    layers: list[tuple[np.ndarray, str]] = []
    for x, y in layout:
        jx, jy = rng.normal(0.0, st.jitter, 2)
        r = st.one_radius if n == 1 else st.pip_radius
        _circle(cov, x * st.pip_spacing + jx, y * st.pip_spacing + jy, r)
    if n == 1 and st.one_ring:
        _circle(cov, 0.0, 0.0, st.one_radius * 1.9, thickness=max(1, int(s * 0.035)))
    layers.append((cov, st.ink))
    return layers


def _jp_one(rng: np.random.Generator, st: _Style, s: int) -> list[tuple[np.ndarray, str]]:
    cov = np.zeros((s, s), np.uint8)
    _circle(cov, 0.0, 0.0, float(rng.uniform(0.3, 0.42)))
    return [(cov, "red")]


def _wheel(rng: np.random.Generator, st: _Style, s: int) -> list[tuple[np.ndarray, str]]:
    """A ship's steering wheel: rim, hub, spokes running through the rim into handles."""
    cov = np.zeros((s, s), np.uint8)
    c = s / 2.0
    ring_r = s * float(rng.uniform(0.2, 0.26))
    rim_w = max(2, int(s * rng.uniform(0.035, 0.05)))
    spoke_w = max(2, int(s * rng.uniform(0.025, 0.035)))
    handle_len = s * float(rng.uniform(0.09, 0.13))
    handle_w = max(3, int(s * rng.uniform(0.04, 0.055)))
    phase = float(rng.uniform(0.0, math.pi))

    def pt(r: float, a: float) -> tuple[int, int]:
        return (int(round((c + r * math.cos(a)) * 16)), int(round((c + r * math.sin(a)) * 16)))

    inner_ring = rng.random() < 0.35
    hub_r = s * 0.045
    knobs = True
    if st.wheel_form == "bold":
        rim_w, spoke_w, handle_w = int(rim_w * rng.uniform(1.6, 2.2)), int(spoke_w * rng.uniform(1.5, 2.0)), int(handle_w * 1.3)
    elif st.wheel_form == "disc":
        hub_r = ring_r * float(rng.uniform(0.3, 0.55))
    elif st.wheel_form == "knobless":
        knobs, handle_len = False, handle_len * float(rng.uniform(1.0, 1.3))
    elif st.wheel_form == "double":
        cv2.circle(cov, pt(0, 0), int(ring_r * float(rng.uniform(0.68, 0.8)) * 16), 255, rim_w, cv2.LINE_AA, 4)
    cv2.circle(cov, pt(0, 0), int(ring_r * 16), 255, rim_w, cv2.LINE_AA, 4)
    if inner_ring:
        cv2.circle(cov, pt(0, 0), int(ring_r * 0.55 * 16), 255, max(2, rim_w // 2), cv2.LINE_AA, 4)
    cv2.circle(cov, pt(0, 0), int(hub_r * 16), 255, -1, cv2.LINE_AA, 4)
    for k in range(st.wheel_spokes):
        a = phase + 2.0 * math.pi * k / st.wheel_spokes
        cv2.line(cov, pt(0, a), pt(ring_r, a), 255, spoke_w, cv2.LINE_AA, 4)
        cv2.line(cov, pt(ring_r, a), pt(ring_r + handle_len, a), 255, handle_w if knobs else max(2, int(handle_w * 0.7)), cv2.LINE_AA, 4)
        if knobs:
            cv2.circle(cov, pt(ring_r + handle_len, a), int(handle_w * 0.7 * 16), 255, -1, cv2.LINE_AA, 4)
    ink = "red" if st.wheel_red else st.ink
    return [(cov, ink)]


def _kana(rng: np.random.Generator, ch: str, st: _Style, s: int) -> list[tuple[np.ndarray, str]]:
    img = Image.new("L", (s, s), 0)
    font = fonts.load(st.font, int(s * st.kana_size))
    off = rng.normal(0.0, s * 0.015, 2)
    ImageDraw.Draw(img).text(
        (s / 2.0 + off[0], s / 2.0 + off[1]), ch, font=font, fill=255, anchor="mm", stroke_width=int(round(st.kana_stroke * s)), stroke_fill=255
    )
    return [(np.asarray(img), st.ink)]


def face_layers(rng: np.random.Generator, label: str, st: _Style, design: str, s: int) -> list[tuple[np.ndarray, str]]:
    """Coverage masks (``s`` x ``s`` uint8) with the ink name of each, for one face."""
    if label == "wheel":
        return _wheel(rng, st, s)
    if label in KATAKANA:
        return _kana(rng, label, st, s)
    if label == "blank":
        return []
    n = int(label)
    if n == 1 and design == "pips-jp":
        return _jp_one(rng, st, s)
    return _pips(rng, n, st, s)


def _relief(cov: np.ndarray, mark: str, label: str) -> np.ndarray:
    """Cut depth 0..1 from a coverage mask: round dimples for pips, flat-bottomed cuts for glyphs."""
    if mark == "printed":
        return np.zeros(cov.shape, np.float32)
    m = (cov > 127).astype(np.uint8)
    if label.isdigit() and mark == "drilled":
        dist = cv2.distanceTransform(m, cv2.DIST_L2, 3)
        x = np.clip(dist / max(float(dist.max()), 1.0), 0.0, 1.0)
        return np.sqrt(x * (2.0 - x)).astype(np.float32)
    return cv2.GaussianBlur(m.astype(np.float32), (0, 0), 0.6 + cov.shape[0] / 200.0) * 0.6


def _ink_rgb(name: str) -> np.ndarray:
    return srgb_to_linear(np.array(INK_COLOURS[name], np.float32) / 255.0)


def make_atlas(rng: np.random.Generator, faces: tuple[str, ...], body: str, design: str, tex: int = TEX, wide: bool = False) -> FaceAtlas:
    """Draw the six faces of one die into an atlas of ``tex`` texels per face (see the module doc).

    Choose ``tex`` about twice the die's size in pixels: the faces are then drawn
    already filtered for that size, and small dice cost little. ``wide`` draws the
    training-only fonts and wheel forms too.
    """
    st = _style(rng, body, design, wide)
    pad = pad_for(tex)
    cell = tex + 2 * pad
    draw = tex * _SS if tex <= 64 else tex
    ink = np.zeros((2 * cell, 3 * cell, 4), np.float32)
    relief = np.zeros((2 * cell, 3 * cell), np.float32)
    used: dict[str, None] = {}
    for i, label in enumerate(faces):
        y0, x0 = (i // 3) * cell + pad, (i % 3) * cell + pad
        cell_ink = ink[y0 : y0 + tex, x0 : x0 + tex]
        cell_rel = relief[y0 : y0 + tex, x0 : x0 + tex]
        for cov, ink_name in face_layers(rng, label, st, design, draw):
            used[ink_name] = None
            rel = _relief(cov, st.mark, label)
            if draw != tex:
                cov = cv2.resize(cov, (tex, tex), interpolation=cv2.INTER_AREA)
                rel = cv2.resize(rel, (tex, tex), interpolation=cv2.INTER_AREA)
            c = cov.astype(np.float32) * (1.0 / 255.0)
            keep = 1.0 - c
            cell_ink[..., :3] = cell_ink[..., :3] * keep[..., None] + _ink_rgb(ink_name) * c[..., None]
            cell_ink[..., 3] = np.maximum(cell_ink[..., 3], c)
            np.maximum(cell_rel, rel, out=cell_rel)
    gu = cv2.Sobel(relief, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gv = cv2.Sobel(relief, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    style = {"ink": st.ink, "mark": st.mark}
    if any(f in KATAKANA for f in faces):
        style.update(font=st.font.name, stroke=st.kana_stroke)
    if "wheel" in faces and st.wheel_form != "classic":
        style.update(wheel=st.wheel_form)
    return FaceAtlas(tex=tex, ink=ink, relief=cv2.merge([relief, gu, gv]), style=style, inks=tuple(used))


def face_image(rng: np.random.Generator, label: str, design: str, body: str = "white", size: int = TEX) -> np.ndarray:
    """One flat face as an sRGB uint8 RGB image (for previews and tests)."""
    from vision.synth.colour import linear_to_srgb
    from vision.synth.designs import body_rgb

    st = _style(rng, body, design)
    out = np.ones((size, size, 3), np.float32) * srgb_to_linear(np.array(body_rgb(body), np.float32) / 255.0)
    for cov, ink_name in face_layers(rng, label, st, design, size * _SS):
        c = cv2.resize(cov, (size, size), interpolation=cv2.INTER_AREA).astype(np.float32)[..., None] / 255.0
        out = out * (1.0 - c) + _ink_rgb(ink_name) * c
    return (linear_to_srgb(out) * 255.0 + 0.5).astype(np.uint8)
