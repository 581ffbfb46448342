"""The corner-index fonts of the synthetic playing cards (subsets shipped in ``fonts/``).

Each font holds only ``0-9 A J Q K``; fonts/README.md names the originals and
their licences. :data:`HELDOUT_INDEX_FONTS` are never drawn on a training card:
a held-out set (``heldout=True``) uses only them, to measure how a reader copes
with a deck design it never saw.

:data:`EXTRA_INDEX_FONTS` (a black grotesque, a condensed grotesque, an oldstyle
serif and a wide grotesque; none monospaced or a slab, so the held-out slab stays
unlike every training font) are for training decks only, and only when asked
for: :data:`TRAIN_INDEX_FONTS`, the default training draw, leaves them out, so
an old seed still renders the same bytes. A caller that wants them passes
``TRAIN_INDEX_FONTS + EXTRA_INDEX_FONTS`` to :func:`font_weights`, which
normalises over the names it is given.

:data:`POOL_INDEX_FONTS` are Debian's own fonts, read where Debian installs them and
never shipped: 44 serif and sans designs of every weight (Times-, Palatino- and
Century-like romans, grotesques, Japanese fonts' Latin digits, thin and black), for
training decks that ask for a font pool (``tableref synth --cards --wide-decks
--font-pool``). A corner index in a font the reader never saw is what it reads worst;
the more designs it trains on, the fewer are foreign. None is a font of the
yardstick's measured decks or dice (``vision/yardstick/fonts.py``), none is
monospaced or a slab. :func:`missing_pool_packages` says what to install.

>>> set(TRAIN_INDEX_FONTS) & set(HELDOUT_INDEX_FONTS)
set()
>>> set(EXTRA_INDEX_FONTS) & set(TRAIN_INDEX_FONTS)
set()
>>> set(EXTRA_INDEX_FONTS) & set(HELDOUT_INDEX_FONTS)
set()
>>> all(font_path(name).is_file() for name in INDEX_FONTS)
True
>>> cap_ratio("serif-bold") > 0.5
True
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

from vision.synth.errors import UnknownIndexFont

FONT_DIR = Path(__file__).resolve().parent / "fonts"

# name -> (file, how often a training deck uses it). Playing-card indices are
# mostly a bold serif or a bold (often condensed) grotesque.
INDEX_FONTS: dict[str, tuple[str, float]] = {
    "serif-bold": ("TablerefCardSerif-Bold.ttf", 0.22),
    "serif": ("TablerefCardSerif-Regular.ttf", 0.06),
    "serif-condensed": ("DejaVuSerifCondensed-Bold-cards.ttf", 0.12),
    "sans-bold": ("DejaVuSans-Bold-cards.ttf", 0.1),
    "condensed": ("DejaVuSansCondensed-Bold-cards.ttf", 0.14),
    "grotesk": ("TablerefCardGrotesk-Bold.ttf", 0.14),
    "humanist": ("TablerefCardHumanist-Bold.ttf", 0.1),
    "rounded": ("TablerefCardRounded-ExtraBold.otf", 0.12),
    "slab": ("TablerefCardSlab-Bold.ttf", 0.0),  # held out
    # extra training fonts, drawn only when asked for (EXTRA_INDEX_FONTS)
    "black": ("TablerefCardBlack-Black.ttf", 0.1),
    "narrow": ("TablerefCardNarrow-Bold.ttf", 0.1),
    "oldstyle": ("TablerefCardOldstyle-Bold.otf", 0.1),
    "wide": ("TablerefCardWide-ExtraBold.ttf", 0.1),
}
HELDOUT_INDEX_FONTS: tuple[str, ...] = ("slab",)
EXTRA_INDEX_FONTS: tuple[str, ...] = ("black", "narrow", "oldstyle", "wide")
# The default training draw: the original eight, in their order (old seeds render the same).
TRAIN_INDEX_FONTS: tuple[str, ...] = tuple(
    n for n in INDEX_FONTS if n not in HELDOUT_INDEX_FONTS and n not in EXTRA_INDEX_FONTS
)


# name -> (file, Debian package): the font pool (see the module doc).
_POOL_PACKAGES = {
    "urw": "fonts-urw-base35", "ipam": "fonts-ipafont-mincho", "ipag": "fonts-ipafont-gothic",
    "ipaexm": "fonts-ipaexfont-mincho", "ipaexg": "fonts-ipaexfont-gothic", "liberation": "fonts-liberation",
    "free": "fonts-freefont-ttf", "noto": "fonts-noto-core", "libertine": "fonts-linuxlibertine",
    "caladea": "fonts-crosextra-caladea", "carlito": "fonts-crosextra-carlito", "lato": "fonts-lato",
    "vl": "fonts-vlgothic", "mplus": "fonts-mplus", "cjk": "fonts-noto-cjk",
}
_URW, _TT, _OT = "/usr/share/fonts/opentype/urw-base35/", "/usr/share/fonts/truetype/", "/usr/share/fonts/opentype/"
POOL_INDEX_FONTS: dict[str, tuple[str, str]] = {
    name: (path, _POOL_PACKAGES[name.split("-")[1]]) for name, path in {
        "pool-urw-roman": _URW + "NimbusRoman-Regular.otf", "pool-urw-roman-bold": _URW + "NimbusRoman-Bold.otf",
        "pool-urw-century": _URW + "C059-Roman.otf", "pool-urw-century-bold": _URW + "C059-Bold.otf",
        "pool-urw-palladio": _URW + "P052-Roman.otf", "pool-urw-palladio-bold": _URW + "P052-Bold.otf",
        "pool-urw-bookman": _URW + "URWBookman-Light.otf", "pool-urw-bookman-demi": _URW + "URWBookman-Demi.otf",
        "pool-urw-sans": _URW + "NimbusSans-Regular.otf", "pool-urw-sans-bold": _URW + "NimbusSans-Bold.otf",
        "pool-urw-narrow-bold": _URW + "NimbusSansNarrow-Bold.otf",
        "pool-urw-gothic": _URW + "URWGothic-Book.otf", "pool-urw-gothic-demi": _URW + "URWGothic-Demi.otf",
        "pool-ipam-mincho": _OT + "ipafont-mincho/ipam.ttf", "pool-ipag-gothic": _OT + "ipafont-gothic/ipag.ttf",
        "pool-ipaexm-mincho": _OT + "ipaexfont-mincho/ipaexm.ttf", "pool-ipaexg-gothic": _OT + "ipaexfont-gothic/ipaexg.ttf",
        "pool-liberation-serif": _TT + "liberation/LiberationSerif-Regular.ttf",
        "pool-liberation-serif-bold": _TT + "liberation/LiberationSerif-Bold.ttf",
        "pool-liberation-sans-bold": _TT + "liberation/LiberationSans-Bold.ttf",
        "pool-liberation-narrow": _TT + "liberation/LiberationSansNarrow-Regular.ttf",
        "pool-free-serif": _TT + "freefont/FreeSerif.ttf", "pool-free-serif-bold": _TT + "freefont/FreeSerifBold.ttf",
        "pool-free-sans": _TT + "freefont/FreeSans.ttf",
        "pool-noto-serif": _TT + "noto/NotoSerif-Regular.ttf", "pool-noto-serif-bold": _TT + "noto/NotoSerif-Bold.ttf",
        "pool-noto-sans": _TT + "noto/NotoSans-Regular.ttf", "pool-noto-sans-bold": _TT + "noto/NotoSans-Bold.ttf",
        "pool-libertine": _OT + "linux-libertine/LinLibertine_R.otf",
        "pool-libertine-bold": _OT + "linux-libertine/LinLibertine_RB.otf",
        "pool-libertine-biolinum": _OT + "linux-libertine/LinBiolinum_R.otf",
        "pool-caladea": _TT + "crosextra/Caladea-Regular.ttf", "pool-caladea-bold": _TT + "crosextra/Caladea-Bold.ttf",
        "pool-carlito": _TT + "crosextra/Carlito-Regular.ttf", "pool-carlito-bold": _TT + "crosextra/Carlito-Bold.ttf",
        "pool-lato-light": _TT + "lato/Lato-Light.ttf", "pool-lato-black": _TT + "lato/Lato-Black.ttf",
        "pool-vl-gothic": _TT + "vlgothic/VL-Gothic-Regular.ttf",
        "pool-mplus-light": _OT + "mplus/Mplus1-Light.otf", "pool-mplus-regular": _OT + "mplus/Mplus1-Regular.otf",
        "pool-mplus-bold": _OT + "mplus/Mplus1-Bold.otf",
        "pool-cjk-serif": _OT + "noto/NotoSerifCJK-Regular.ttc", "pool-cjk-serif-bold": _OT + "noto/NotoSerifCJK-Bold.ttc",
        "pool-cjk-sans": _OT + "noto/NotoSansCJK-Regular.ttc",
    }.items()
}


def missing_pool_packages() -> list[str]:
    """The Debian packages of the font pool whose fonts are not installed here, sorted."""
    return sorted({package for path, package in POOL_INDEX_FONTS.values() if not Path(path).is_file()})


def font_path(name: str) -> Path:
    if name in POOL_INDEX_FONTS:
        return Path(POOL_INDEX_FONTS[name][0])
    if name not in INDEX_FONTS:
        raise UnknownIndexFont(name)
    return FONT_DIR / INDEX_FONTS[name][0]


def font_weights(names: tuple[str, ...]) -> list[float]:
    """Sampling probabilities for ``names`` (equal when all weights are 0, as for held-out fonts)."""
    w = [INDEX_FONTS[n][1] for n in names]
    total = sum(w)
    return [v / total for v in w] if total > 0 else [1.0 / len(names)] * len(names)


@lru_cache(maxsize=128)
def load(name: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(font_path(name)), size)


@lru_cache(maxsize=16)
def cap_ratio(name: str) -> float:
    """Height of the digit 8 (about the cap height) per unit of font size."""
    x0, y0, x1, y1 = load(name, 200).getbbox("8")
    return (y1 - y0) / 200.0
