"""Rebuild the tiny subset fonts shipped beside this file (a maintainer tool).

Not imported at run time. Needs fontTools and the Debian packages
``fonts-noto-cjk fonts-ipaexfont-gothic fonts-ipaexfont-mincho fonts-droid-fallback
fonts-hanazono fonts-kiloji fonts-seto`` (katakana) and
``fonts-dejavu-core fonts-liberation2 fonts-crosextra-carlito fonts-cantarell
fonts-lato fonts-roboto-unhinted fonts-ebgaramond fonts-open-sans`` (card indices)::

    apt-get install fonts-noto-cjk fonts-ipaexfont-gothic fonts-ipaexfont-mincho
    apt-get install fonts-droid-fallback fonts-hanazono fonts-kiloji fonts-seto
    apt-get install fonts-dejavu-core fonts-liberation2 fonts-crosextra-carlito fonts-cantarell
    apt-get install fonts-lato fonts-roboto-unhinted fonts-ebgaramond fonts-open-sans
    python vision/synth/fonts/subset_fonts.py [kana|cards|all]

Each font is cut down to :data:`CHARS` (the Nine Dice katakana plus the card
indices the distractors print), every glyph is checked in the cmap, and the
fonts derived from IPAex get new names as the IPA Font License requires
(Article 3.1(4)); the original fonts can be put back by installing the Debian
packages above (Article 3.1(2)).

The card index fonts are cut down to :data:`CARD_CHARS`. Those under the SIL OFL
get new names (``TablerefCard*``), so no Reserved Font Name (Liberation, Arimo,
Tinos, Cousine, Carlito, Lato, EB Garamond) is carried by a Modified Version (OFL
condition 3); the Apache-2.0 ones (Roboto Condensed, Open Sans) are renamed too,
for consistency, and their new names say they are modified files. The DejaVu
subsets keep their names, which the Bitstream Vera licence allows (it only
forbids "Bitstream" and "Vera" in a modified font's name).
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

KATAKANA = "プラスベガブレフカ"
CHARS = KATAKANA + "0123456789AJQK"
CARD_CHARS = "0123456789AJQK"

HERE = Path(__file__).resolve().parent

# (output file, source path, index in a collection or None, new family name or None)
SOURCES: tuple[tuple[str, str, int | None, str | None], ...] = (
    ("NotoSansCJKjp-Regular-kana.otf", "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 0, None),
    ("NotoSansCJKjp-Bold-kana.otf", "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", 0, None),
    ("NotoSerifCJKjp-Regular-kana.otf", "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", 0, None),
    ("NotoSerifCJKjp-Bold-kana.otf", "/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc", 0, None),
    ("TablerefKanaGothic.ttf", "/usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf", None, "TablerefKanaGothic"),
    ("TablerefKanaMincho.ttf", "/usr/share/fonts/opentype/ipaexfont-mincho/ipaexm.ttf", None, "TablerefKanaMincho"),
)


# The extra training-only katakana fonts (kanafonts.EXTRA_KANA_FONTS): dice faces only, so cut
# to the katakana alone (Droid Sans Fallback has no Latin digits).
EXTRA_KANA_SOURCES: tuple[tuple[str, str, int | None, str | None], ...] = (
    ("TablerefKanaPlain.ttf", "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", None, "TablerefKanaPlain"),
    ("TablerefKanaBrushMincho.ttf", "/usr/share/fonts/truetype/hanazono/HanaMinA.ttf", None, "TablerefKanaBrushMincho"),
    ("TablerefKanaRound.ttf", "/usr/share/fonts/truetype/kiloji/kiloji_b.ttf", None, "TablerefKanaRound"),
    ("TablerefKanaHand.ttf", "/usr/share/fonts/truetype/seto/setofont.ttf", None, "TablerefKanaHand"),
)


_DEJAVU = "/usr/share/fonts/truetype/dejavu/"
_LIB2 = "/usr/share/fonts/truetype/liberation2/"
# Card index fonts: (output file, source path, None, new family name or None).
CARD_SOURCES: tuple[tuple[str, str, int | None, str | None], ...] = (
    ("DejaVuSans-Bold-cards.ttf", _DEJAVU + "DejaVuSans-Bold.ttf", None, None),
    ("DejaVuSansCondensed-Bold-cards.ttf", _DEJAVU + "DejaVuSansCondensed-Bold.ttf", None, None),
    ("DejaVuSerifCondensed-Bold-cards.ttf", _DEJAVU + "DejaVuSerifCondensed-Bold.ttf", None, None),
    ("TablerefCardSerif-Bold.ttf", _LIB2 + "LiberationSerif-Bold.ttf", None, "TablerefCardSerif Bold"),
    ("TablerefCardSerif-Regular.ttf", _LIB2 + "LiberationSerif-Regular.ttf", None, "TablerefCardSerif"),
    ("TablerefCardGrotesk-Bold.ttf", _LIB2 + "LiberationSans-Bold.ttf", None, "TablerefCardGrotesk Bold"),
    ("TablerefCardSlab-Bold.ttf", _LIB2 + "LiberationMono-Bold.ttf", None, "TablerefCardSlab Bold"),
    ("TablerefCardHumanist-Bold.ttf", "/usr/share/fonts/truetype/crosextra/Carlito-Bold.ttf", None, "TablerefCardHumanist Bold"),
    ("TablerefCardRounded-ExtraBold.otf", "/usr/share/fonts/opentype/cantarell/Cantarell-ExtraBold.otf", None, "TablerefCardRounded ExtraBold"),
    # the extra training-only index fonts (card_fonts.EXTRA_INDEX_FONTS)
    ("TablerefCardBlack-Black.ttf", "/usr/share/fonts/truetype/lato/Lato-Black.ttf", None, "TablerefCardBlack Black"),
    ("TablerefCardNarrow-Bold.ttf", "/usr/share/fonts/truetype/roboto/unhinted/RobotoCondensed-Bold.ttf", None, "TablerefCardNarrow Bold"),
    ("TablerefCardOldstyle-Bold.otf", "/usr/share/fonts/opentype/ebgaramond/EBGaramond12-Bold.otf", None, "TablerefCardOldstyle Bold"),
    ("TablerefCardWide-ExtraBold.ttf", "/usr/share/fonts/truetype/open-sans/OpenSans-ExtraBold.ttf", None, "TablerefCardWide ExtraBold"),
)


def _load(path: str, index: int | None) -> TTFont:
    if index is None:
        return TTFont(path)
    return TTCollection(path).fonts[index]


def _rename(font: TTFont, family: str) -> None:
    """Replace every name that carries the original font's name (IPA licence 3.1(4), OFL condition 3)."""
    for rec in font["name"].names:
        if rec.nameID in (1, 4, 16, 18, 21):  # 18: Mac compatible full name (EB Garamond has one)
            rec.string = family
        elif rec.nameID == 6:
            rec.string = family.replace(" ", "")
        elif rec.nameID == 3:
            rec.string = family + "-subset"
    if "CFF " in font:  # an OpenType/CFF font carries its name inside the CFF table too
        cff = font["CFF "].cff
        top = cff[cff.fontNames[0]]
        cff.fontNames = [family.replace(" ", "")]
        top.FullName = family
        top.FamilyName = family


def build_one(out_name: str, src: str, index: int | None, family: str | None, chars: str = CHARS) -> Path:
    font = _load(src, index)
    missing = [c for c in chars if ord(c) not in font.getBestCmap()]
    if missing:
        raise SystemExit(f"{src}: no glyph for {''.join(missing)!r}")
    options = subset.Options()
    options.layout_features = []
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.notdef_outline = True
    options.hinting = False
    options.drop_tables += ["gasp"]  # unhinted anyway; Kiloji's gasp table is malformed
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in chars])
    subsetter.subset(font)
    if family is not None:
        _rename(font, family)
    out = HERE / out_name
    font.save(out)
    check = TTFont(out).getBestCmap()
    assert all(ord(c) in check for c in chars), out
    return out


def main(argv: list[str] | None = None) -> int:
    which = (sys.argv[1:] if argv is None else argv) or ["all"]
    if which[0] not in ("kana", "cards", "all"):
        raise SystemExit("usage: subset_fonts.py [kana|cards|all]")
    jobs = []
    if which[0] in ("kana", "all"):
        jobs += [(s, CHARS) for s in SOURCES] + [(s, KATAKANA) for s in EXTRA_KANA_SOURCES]
    if which[0] in ("cards", "all"):
        jobs += [(s, CARD_CHARS) for s in CARD_SOURCES]
    for (out_name, src, index, family), chars in jobs:
        out = build_one(out_name, src, index, family, chars)
        print(f"{out.name}: {out.stat().st_size} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
