"""The katakana subset fonts shipped in ``fonts/`` (see fonts/README.md for licences).

>>> len(KANA_FONTS) >= 3
True
>>> all(has_glyph(p, "ブ") for p in KANA_FONTS)
True
>>> len(WIDE_KANA_FONTS) == len(WIDE_KANA_WEIGHTS), round(sum(WIDE_KANA_WEIGHTS), 6)
(True, 1.0)
>>> all(has_glyph(p, "ブ") and has_glyph(p, "プ") for p in EXTRA_KANA_FONTS)
True

:data:`POOL_KANA_FONTS` are Debian's own fonts, read where Debian installs them and never
shipped: 44 katakana designs (gothic and mincho of every weight, rounded, brush, pen,
bitmap, and the kana of Korean and Chinese fonts), for training dice that ask for the pool
(``tableref synth --wide-faces --font-pool``). A katakana font the reader never saw is what
it reads worst; the more designs it trains on, the fewer are foreign. None is a font of the
yardstick's measured designs (``vision/yardstick/fonts.py``: Sawarabi, Motoya Maruberi,
Migu, Konatu, Ume Mincho), nor M+ or VL Gothic, whose kana Migu shares.
:func:`missing_pool_packages` says what to install.

>>> from vision.yardstick.fonts import FONTS
>>> measured = {"sawarabi-gothic", "sawarabi-mincho", "maruberi", "migu", "konatu", "ume-mincho"}
>>> {path for path, _ in POOL_KANA_FONTS.values()} & {FONTS[k].path for k in measured}
set()
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path(__file__).resolve().parent / "fonts"

KANA_FONTS: tuple[Path, ...] = (
    FONT_DIR / "NotoSansCJKjp-Regular-kana.otf",
    FONT_DIR / "NotoSansCJKjp-Bold-kana.otf",
    FONT_DIR / "NotoSerifCJKjp-Regular-kana.otf",
    FONT_DIR / "NotoSerifCJKjp-Bold-kana.otf",
    FONT_DIR / "TablerefKanaGothic.ttf",
    FONT_DIR / "TablerefKanaMincho.ttf",
)
# How often each font is drawn on a die: dice lettering is mostly a bold gothic.
KANA_WEIGHTS: tuple[float, ...] = (0.18, 0.3, 0.08, 0.14, 0.22, 0.08)

# Training-only fonts, drawn when a render asks for wider face designs (``SceneConfig.wide_faces``):
# a plain gothic, a brush-like mincho, a rounded and a hand-lettered kana, so the classifier
# learns the katakana's shapes rather than three families' strokes. Katakana only.
EXTRA_KANA_FONTS: tuple[Path, ...] = (
    FONT_DIR / "TablerefKanaPlain.ttf",
    FONT_DIR / "TablerefKanaBrushMincho.ttf",
    FONT_DIR / "TablerefKanaRound.ttf",
    FONT_DIR / "TablerefKanaHand.ttf",
)


# What a wide-face die's katakana is drawn in: half the draws keep KANA_WEIGHTS' mix, half go
# evenly to the extras.
WIDE_KANA_FONTS: tuple[Path, ...] = KANA_FONTS + EXTRA_KANA_FONTS
WIDE_KANA_WEIGHTS: tuple[float, ...] = tuple(0.5 * w for w in KANA_WEIGHTS) + (0.5 / len(EXTRA_KANA_FONTS),) * len(EXTRA_KANA_FONTS)


# The share of wide-face dice with the pool that take a pool font (faces._style).
POOL_SHARE = 0.5

_T, _O = "/usr/share/fonts/truetype/", "/usr/share/fonts/opentype/"
# name -> (file, Debian package): the katakana pool (see the module doc).
POOL_KANA_FONTS: dict[str, tuple[str, str]] = {
    "ipa-gothic": (_O + "ipafont-gothic/ipag.ttf", "fonts-ipafont-gothic"),
    "ipa-mincho": (_O + "ipafont-mincho/ipam.ttf", "fonts-ipafont-mincho"),
    "noto-sans-light": (_O + "noto/NotoSansCJK-Light.ttc", "fonts-noto-cjk-extra"),
    "noto-sans-medium": (_O + "noto/NotoSansCJK-Medium.ttc", "fonts-noto-cjk-extra"),
    "noto-sans-black": (_O + "noto/NotoSansCJK-Black.ttc", "fonts-noto-cjk-extra"),
    "noto-serif-light": (_O + "noto/NotoSerifCJK-Light.ttc", "fonts-noto-cjk-extra"),
    "noto-serif-semibold": (_O + "noto/NotoSerifCJK-SemiBold.ttc", "fonts-noto-cjk-extra"),
    "noto-serif-black": (_O + "noto/NotoSerifCJK-Black.ttc", "fonts-noto-cjk-extra"),
    "aoyagi-kouzan": (_T + "aoyagi-kouzan-t/AoyagiKouzanT.ttf", "fonts-aoyagi-kouzan-t"),
    "aoyagi-soseki": (_T + "aoyagi-soseki/aoyagi-soseki.ttf", "fonts-aoyagi-soseki"),
    "kouzan-brush": (_T + "kouzan-mouhitsu/kouzan-mouhitsu.ttf", "fonts-kouzan-mouhitsu"),
    "droid-fallback": (_T + "droid/DroidSansFallbackFull.ttf", "fonts-droid-fallback"),
    "hanazono-mincho": (_T + "hanazono/HanaMinA.ttf", "fonts-hanazono"),
    "ume-gothic": (_T + "horai-umefont/ume-tgo4.ttf", "fonts-horai-umefont"),
    "ume-hy-gothic": (_T + "horai-umefont/ume-hgo4.ttf", "fonts-horai-umefont"),
    "ume-gothic-c5": (_T + "horai-umefont/ume-tgc5.ttf", "fonts-horai-umefont"),
    "ume-ui-gothic": (_T + "horai-umefont/ume-ugo4.ttf", "fonts-horai-umefont"),
    "kiloji": (_T + "kiloji/kiloji.ttf", "fonts-kiloji"),
    "kiloji-b": (_T + "kiloji/kiloji_b.ttf", "fonts-kiloji"),
    "misaki-gothic": (_T + "misaki/misaki_gothic.ttf", "fonts-misaki"),
    "oradano-mincho": (_T + "oradano-mincho/OradanoGSRR.ttf", "fonts-oradano-mincho-gsrr"),
    "seto": (_T + "seto/setofont.ttf", "fonts-seto"),
    "wqy-zenhei": (_T + "wqy/wqy-zenhei.ttc", "fonts-wqy-zenhei"),
    "wqy-microhei": (_T + "wqy/wqy-microhei.ttc", "fonts-wqy-microhei"),
    "yoz-standard": (_T + "yozvox-yozfont/YOzRS_.ttf", "fonts-yozvox-yozfont"),
    "yoz-new-bold": (_T + "yozvox-yozfont/YOzBN_.ttf", "fonts-yozvox-yozfont"),
    "yoz-antique": (_T + "yozvox-yozfont/YOzRA_.ttf", "fonts-yozvox-yozfont"),
    "yoz-edo": (_T + "yozvox-yozfont/YOzRE_.ttf", "fonts-yozvox-yozfont"),
    "yoz-cute-bold": (_T + "yozvox-yozfont/YOzBC_.ttf", "fonts-yozvox-yozfont"),
    "baekmuk-batang": (_T + "baekmuk/batang.ttf", "fonts-baekmuk"),
    "baekmuk-dotum": (_T + "baekmuk/dotum.ttf", "fonts-baekmuk"),
    "baekmuk-gulim": (_T + "baekmuk/gulim.ttf", "fonts-baekmuk"),
    "baekmuk-headline": (_T + "baekmuk/hline.ttf", "fonts-baekmuk"),
    "un-batang-bold": (_T + "unfonts-core/UnBatangBold.ttf", "fonts-unfonts-core"),
    "un-graphic": (_T + "unfonts-core/UnGraphic.ttf", "fonts-unfonts-core"),
    "un-dinaru-bold": (_T + "unfonts-core/UnDinaruBold.ttf", "fonts-unfonts-core"),
    "un-pilgi": (_T + "unfonts-core/UnPilgi.ttf", "fonts-unfonts-core"),
    "un-gungseo": (_T + "unfonts-core/UnGungseo.ttf", "fonts-unfonts-core"),
    "un-dotum-bold": (_T + "unfonts-core/UnDotumBold.ttf", "fonts-unfonts-core"),
    "nanum-barun-gothic-bold": (_T + "nanum/NanumBarunGothicBold.ttf", "fonts-nanum"),
    "nanum-square-bold": (_T + "nanum/NanumSquareB.ttf", "fonts-nanum"),
    "nanum-myeongjo-bold": (_T + "nanum/NanumMyeongjoBold.ttf", "fonts-nanum"),
    "arphic-ukai": (_T + "arphic/ukai.ttc", "fonts-arphic-ukai"),
    "arphic-uming": (_T + "arphic/uming.ttc", "fonts-arphic-uming"),
}
POOL_KANA_PATHS: tuple[Path, ...] = tuple(Path(path) for path, _ in POOL_KANA_FONTS.values())


def missing_pool_packages() -> list[str]:
    """The Debian packages of the katakana pool whose fonts are not installed here, sorted."""
    return sorted({package for path, package in POOL_KANA_FONTS.values() if not Path(path).is_file()})


@lru_cache(maxsize=64)
def load(path: Path, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(path), size)


def render_glyph(path: Path, ch: str, size: int = 64) -> np.ndarray:
    """The glyph's coverage on a ``(2*size, 2*size)`` canvas, uint8."""
    img = Image.new("L", (2 * size, 2 * size), 0)
    ImageDraw.Draw(img).text((size, size), ch, font=load(path, size), fill=255, anchor="mm")
    return np.asarray(img)


def has_glyph(path: Path, ch: str) -> bool:
    """True when the font draws ``ch`` itself rather than its .notdef box.

    A character missing from the cmap renders as .notdef, whatever it is, so it
    draws exactly like a private-use code point that no font here maps.
    """
    drawn = render_glyph(path, ch)
    return bool(drawn.any()) and not np.array_equal(drawn, render_glyph(path, "\ue000"))
