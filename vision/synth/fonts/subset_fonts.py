"""Rebuild the tiny katakana subset fonts shipped beside this file (a maintainer tool).

Not imported at run time. Needs fontTools and the Debian packages
``fonts-noto-cjk fonts-ipaexfont-gothic fonts-ipaexfont-mincho``::

    apt-get install fonts-noto-cjk fonts-ipaexfont-gothic fonts-ipaexfont-mincho
    python vision/synth/fonts/subset_fonts.py

Each font is cut down to :data:`CHARS` (the Nine Dice katakana plus the card
indices the distractors print), every glyph is checked in the cmap, and the
fonts derived from IPAex get new names as the IPA Font License requires
(Article 3.1(4)); the original fonts can be put back by installing the Debian
packages above (Article 3.1(2)).
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

KATAKANA = "プラスベガブレフカ"
CHARS = KATAKANA + "0123456789AJQK"

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


def _load(path: str, index: int | None) -> TTFont:
    if index is None:
        return TTFont(path)
    return TTCollection(path).fonts[index]


def _rename(font: TTFont, family: str) -> None:
    """Replace every name that carries the original font's name (IPA licence 3.1(4))."""
    for rec in font["name"].names:
        if rec.nameID in (1, 4, 16, 21):
            rec.string = family
        elif rec.nameID == 6:
            rec.string = family.replace(" ", "")
        elif rec.nameID == 3:
            rec.string = family + "-subset"


def build_one(out_name: str, src: str, index: int | None, family: str | None) -> Path:
    font = _load(src, index)
    missing = [c for c in CHARS if ord(c) not in font.getBestCmap()]
    if missing:
        raise SystemExit(f"{src}: no glyph for {''.join(missing)!r}")
    options = subset.Options()
    options.layout_features = []
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.notdef_outline = True
    options.hinting = False
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in CHARS])
    subsetter.subset(font)
    if family is not None:
        _rename(font, family)
    out = HERE / out_name
    font.save(out)
    check = TTFont(out).getBestCmap()
    assert all(ord(c) in check for c in CHARS), out
    return out


def main() -> int:
    for out_name, src, index, family in SOURCES:
        out = build_one(out_name, src, index, family)
        print(f"{out.name}: {out.stat().st_size} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
