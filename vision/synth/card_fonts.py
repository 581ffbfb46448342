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


def font_path(name: str) -> Path:
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
