"""Fonts the yardstick draws with: Debian's Japanese fonts, none of which vision/synth ships.

vision/synth draws katakana in Noto Sans/Serif CJK and IPAex; these are other designs
(Sawarabi, Motoya L Maruberi, Migu's M+ kana, Konatu, Ume). The yardstick's own training
designs draw with a third group (Ume Gothic, Droid Sans Fallback, Hanazono Mincho, Seto, Kiloji,
YOz), none of which a ``val`` or ``test`` design uses. Fonts are found on the system, not
shipped: rendering the yardstick is a developer task (``pip install .[render]`` plus the Debian
packages named below), and a missing font is a clear error, never a silent fallback to a font that
draws .notdef boxes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

KATAKANA = "プラスベガブレフカ"
CARD_GLYPHS = "0123456789AJQK"


@dataclass(frozen=True)
class FontSpec:
    key: str
    path: str
    package: str  # the Debian package that installs it


FONTS: dict[str, FontSpec] = {
    f.key: f
    for f in (
        FontSpec("sawarabi-gothic", "/usr/share/fonts/truetype/sawarabi-gothic/sawarabi-gothic-medium.ttf",
                 "fonts-sawarabi-gothic"),
        FontSpec("sawarabi-mincho", "/usr/share/fonts/truetype/sawarabi-mincho/sawarabi-mincho-medium.ttf",
                 "fonts-sawarabi-mincho"),
        FontSpec("maruberi", "/usr/share/fonts/truetype/motoya-l-maruberi/MTLmr3m.ttf", "fonts-motoya-l-maruberi"),
        FontSpec("migu", "/usr/share/fonts/truetype/migmix/migu-1c-bold.ttf", "fonts-migmix"),
        FontSpec("konatu", "/usr/share/fonts/truetype/konatu/Konatu.ttf", "fonts-konatu"),
        FontSpec("ume-mincho", "/usr/share/fonts/truetype/horai-umefont/ume-tmo3.ttf", "fonts-horai-umefont"),
        # Only the training designs (designs.TRAIN_DESIGNS) draw with these.
        FontSpec("ume-gothic", "/usr/share/fonts/truetype/horai-umefont/ume-tgo4.ttf", "fonts-horai-umefont"),
        FontSpec("droid-fallback", "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", "fonts-droid-fallback"),
        FontSpec("hanazono-mincho", "/usr/share/fonts/truetype/hanazono/HanaMinA.ttf", "fonts-hanazono"),
        FontSpec("seto", "/usr/share/fonts/truetype/seto/setofont.ttf", "fonts-seto"),
        FontSpec("kiloji", "/usr/share/fonts/truetype/kiloji/kiloji.ttf", "fonts-kiloji"),
        FontSpec("yoz-cf", "/usr/share/fonts/truetype/yozvox-yozfont/YOzBCF.ttf", "fonts-yozvox-yozfont-cute"),
        FontSpec("oradano-mincho", "/usr/share/fonts/truetype/oradano-mincho/OradanoGSRR.ttf",
                 "fonts-oradano-mincho-gsrr"),
    )
}


class FontMissing(RuntimeError):
    """A font the yardstick needs is not installed, or lacks glyphs it must draw."""


@lru_cache(maxsize=None)
def font_path(key: str, glyphs: str) -> str:
    """The font file for ``key`` after checking its cmap holds every one of ``glyphs``."""
    spec = FONTS[key]
    path = Path(spec.path)
    if not path.is_file():
        raise FontMissing(f"font {key!r} not found at {spec.path} (install the Debian package {spec.package})")
    try:
        from fontTools.ttLib import TTFont
    except ImportError as exc:  # fonttools comes with the render extra
        raise FontMissing("fonttools is missing (pip install .[render])") from exc
    cmap = TTFont(str(path), lazy=True).getBestCmap()
    missing = [c for c in glyphs if ord(c) not in cmap]
    if missing:
        raise FontMissing(f"font {key!r} ({spec.path}) has no glyph for {''.join(missing)}")
    return str(path)
