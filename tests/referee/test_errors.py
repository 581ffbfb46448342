"""The error catalogue: every kind of mistake has a code and both languages."""

from __future__ import annotations

import importlib

import pytest

from referee import errors
from referee.errors import LANGUAGES, NotYourTurn, RefereeError, catalogue

GAME_MODULES = ("referee.liars_dice", "referee.nine_dice", "referee.doubt", "referee.pin456")


@pytest.fixture(scope="module", autouse=True)
def load_all_games():
    for name in GAME_MODULES:
        importlib.import_module(name)


def test_every_error_is_a_value_error():
    assert issubclass(RefereeError, ValueError)


def test_catalogue_has_both_languages_for_every_code():
    cat = catalogue()
    assert len(cat) >= 10
    for code, templates in cat.items():
        for lang in LANGUAGES:
            assert templates[lang].strip(), (code, lang)


def test_japanese_templates_are_japanese():
    for code, templates in catalogue().items():
        if templates["ja"] == "{reason}":
            continue
        assert any(ord(ch) > 0x3000 for ch in templates["ja"]), code


def test_messages_format_in_both_languages():
    err = NotYourTurn(player="Mina", turn="Saewoon")
    assert "Saewoon" in err.message("en") and "Saewoon" in err.message("ja")
    assert err.to_json("ja")["code"] == "not_your_turn"


def test_duplicate_codes_are_rejected():
    with pytest.raises(TypeError):
        type("Twin", (RefereeError,), {"code": "not_your_turn", "templates": {"en": "x", "ja": "x"}})


def test_missing_language_is_rejected():
    with pytest.raises(TypeError):
        type("Half", (RefereeError,), {"code": "half_translated", "templates": {"en": "x"}})


def test_shared_kinds_exist():
    for name in ("MalformedLog", "InvalidOption", "MalformedEvent", "UnknownPlayer", "NotYourTurn",
                 "OutOfOrder", "GameOver", "Misread"):
        assert issubclass(getattr(errors, name), RefereeError)
