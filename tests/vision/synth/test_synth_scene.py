"""Scene rendering: determinism, labels, every design and face, the labelling rule."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.read.detections import DIE_FACES
from vision.synth.colour import delta_e, srgb_to_lab
from vision.synth.designs import (
    BODY_COLOURS,
    DESIGNS,
    INK_COLOURS,
    MIN_VEIN_CONTRAST,
    MIN_VEIN_LIGHTNESS,
    SIDES,
    ink_choices,
    vein_choice,
    vein_rgb,
    vein_stands_out,
)
from vision.synth.dice import _N, _U, _V, up_rotation
from vision.synth.faces import make_atlas
from vision.synth.errors import BadSceneConfig, UnknownColour, UnknownDesign, UnknownFace, UnknownTableFamily
from vision.synth.geometry import Camera, rotation_z
from vision.synth.scene import DieSpec, SceneConfig, _material, render_scene
from vision.synth.tables import FAMILIES, HELDOUT_FAMILIES, TRAIN_FAMILIES

SMALL = dict(width=320, height=240)


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def test_same_seed_same_bytes() -> None:
    cfg = SceneConfig(**SMALL)
    a = render_scene(_rng(5), cfg)
    b = render_scene(_rng(5), cfg)
    assert a.image.tobytes() == b.image.tobytes()
    assert a.objects == b.objects
    assert a.meta == b.meta
    assert json.loads(json.dumps(a.meta)) == a.meta  # JSON-serialisable as it is
    c = render_scene(_rng(6), cfg)
    assert c.image.tobytes() != a.image.tobytes()


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_every_design_and_face_renders_as_requested(name: str) -> None:
    design = DESIGNS[name]
    specs = tuple(DieSpec(name, colour, face) for face, colour in zip(design.labels, design.colours * 6))
    scene = render_scene(_rng(11), SceneConfig(width=480, height=360, dice=specs, die_px=(26, 30)))
    assert scene.image.shape == (360, 480, 3) and scene.image.dtype == np.uint8
    assert [(o.face, o.colour) for o in scene.objects] == [(s.face, s.colour) for s in specs]
    for o in scene.objects:
        x1, y1, x2, y2 = o.box
        assert 0 <= x1 < x2 <= 480 and 0 <= y1 < y2 <= 360
        assert o.kind == "die" and o.score == 1.0 and o.face in DIE_FACES
        assert 8 <= x2 - x1 <= 120 and 8 <= y2 - y1 <= 120


def test_requested_dice_with_random_faces_and_colours_are_all_labelled() -> None:
    specs = (DieSpec("liars"),) * 10
    for seed in range(3):
        scene = render_scene(_rng(seed), SceneConfig(**SMALL, dice=specs))
        assert len(scene.objects) == 10
        assert all(o.face in DESIGNS["liars"].labels and o.colour in DESIGNS["liars"].colours for o in scene.objects)


def test_random_scenes_follow_the_labelling_rule() -> None:
    for seed in range(12):
        scene = render_scene(_rng(100 + seed), SceneConfig(**SMALL))
        assert scene.meta["table"]["family"] in TRAIN_FAMILIES
        labelled = [d for d in scene.meta["dice"] if d["labelled"]]
        assert len(labelled) == len(scene.objects)
        for d in scene.meta["dice"]:
            assert (d["up_face_visible"] >= 0.6) == d["labelled"] or "box" not in d
        for o, d in zip(scene.objects, labelled):
            assert (o.face, o.colour) == (d["face"], d["colour"])
            assert list(o.box) == d["box"]
        assert 1 <= len(scene.meta["dice"]) <= 25


def test_a_die_whose_up_face_is_mostly_covered_is_not_labelled() -> None:
    from vision.synth.layers import Layer, composite
    from vision.synth.scene import _Die, _hide, _visible

    h = w = 20
    img = np.zeros((40, 40, 3), np.float32)
    zbuf = np.full((40, 40), np.inf, np.float32)
    die = _Die(DieSpec("pips", "white", "3"), 8.0)
    alpha = np.ones((h, w), np.float32)
    die.layer = Layer(10, 10, np.ones((h, w, 3), np.float32), alpha, np.full((h, w), 500.0, np.float32))
    die.top = np.zeros((h, w), np.float32)
    die.top[:12, :] = 1.0  # the up face is the upper part of the window
    res = composite(img, zbuf, die.layer)
    assert res is not None
    die.keep = res[1].copy()
    box, frac = _visible(die, 40, 40)
    assert frac == 1.0 and box == (10.0, 10.0, 30.0, 30.0)
    # A hand in front covering the upper 8 rows: two thirds of the up face gone.
    cover = np.zeros((h, w), np.float32)
    cover[:8, :] = 1.0
    hand = Layer(10, 10, np.zeros((h, w, 3), np.float32), cover, np.ones((h, w), np.float32))
    res = composite(img, zbuf, hand)
    assert res is not None
    _hide([die], None, hand, res)
    box, frac = _visible(die, 40, 40)
    assert abs(frac - 4 / 12) < 1e-6 and frac < SceneConfig().min_visible
    assert box == (10.0, 18.0, 30.0, 30.0)  # the box shrinks to what is still visible


def test_table_families_split() -> None:
    assert not set(TRAIN_FAMILIES) & set(HELDOUT_FAMILIES)
    assert set(TRAIN_FAMILIES) | set(HELDOUT_FAMILIES) == set(FAMILIES)
    for fam in HELDOUT_FAMILIES:
        scene = render_scene(_rng(3), SceneConfig(**SMALL, table_families=(fam,), dice=(DieSpec("pips"),)))
        assert scene.meta["table"]["family"] == fam and scene.meta["heldout"]


def test_dice_sets_keep_only_those_games_dice() -> None:
    for seed in range(4):
        scene = render_scene(_rng(seed), SceneConfig(**SMALL, dice_sets=("nine",)))
        assert {d["design"] for d in scene.meta["dice"]} <= {"nine-a", "nine-c", "nine-x"}
        scene = render_scene(_rng(seed), SceneConfig(**SMALL, dice_sets=("liars", "pin456")))
        assert {d["design"] for d in scene.meta["dice"]} <= {"liars", "pin", "456"}


def test_dice_sets_appear_in_the_config_only_when_given() -> None:
    # Configs written before the option existed must read the same.
    assert SceneConfig().to_json() == {k: v for k, v in SceneConfig(dice_sets=("nine",)).to_json().items() if k != "dice_sets"}
    assert "dice_sets" not in SceneConfig().to_json()


def test_bad_requests_raise_their_own_errors() -> None:
    with pytest.raises(UnknownDesign):
        render_scene(_rng(0), SceneConfig(dice=(DieSpec("d20"),)))
    with pytest.raises(UnknownColour):
        render_scene(_rng(0), SceneConfig(dice=(DieSpec("pips", "plaid"),)))
    with pytest.raises(UnknownFace):
        render_scene(_rng(0), SceneConfig(dice=(DieSpec("liars", None, "1"),)))
    with pytest.raises(UnknownTableFamily):
        render_scene(_rng(0), SceneConfig(table_families=("lava",)))
    with pytest.raises(BadSceneConfig):
        render_scene(_rng(0), SceneConfig(width=640))
    with pytest.raises(BadSceneConfig, match="unknown dice set 'poker'"):
        render_scene(_rng(0), SceneConfig(dice_sets=("poker",)))
    with pytest.raises(BadSceneConfig, match="not both"):
        render_scene(_rng(0), SceneConfig(dice_sets=("nine",), dice=(DieSpec("pips"),)))


def test_faces_are_never_mirrored_and_up_side_is_on_top() -> None:
    cam = Camera.look_at(640, 480, 60.0, 400.0, 0.0, 0.0)
    for side in range(len(SIDES)):
        for yaw in (0.0, 1.0, 2.5):
            rot = rotation_z(yaw) @ up_rotation(side)
            assert np.allclose(rot @ _N[side], [0, 0, 1], atol=1e-9)
            p0 = np.array([[0.0, 0.0, 10.0]])
            pts = np.concatenate([p0, p0 + rot @ _U[side], p0 + rot @ _V[side]])
            px, _ = cam.project(pts)
            du, dv = px[1] - px[0], px[2] - px[0]
            assert du[0] * dv[1] - du[1] * dv[0] > 0  # texture u->v turns the same way as image x->y


def test_opposite_pip_faces_sum_to_seven() -> None:
    faces = DESIGNS["pips"].faces
    for i, (axis, sign) in enumerate(SIDES):
        j = SIDES.index((axis, -sign))
        assert int(faces[i]) + int(faces[j]) == 7


def test_the_marbled_share_changes_only_the_bodies() -> None:
    for seed in range(3):
        cfg = dict(SMALL, dice_sets=("pips", "liars"))
        none = render_scene(_rng(seed), SceneConfig(**cfg, marbled=0.0)).meta["dice"]
        every = render_scene(_rng(seed), SceneConfig(**cfg, marbled=1.0)).meta["dice"]
        usual = render_scene(_rng(seed), SceneConfig(**cfg)).meta["dice"]
        assert not any(d["marbled"] for d in none)
        fancy = [d for d in every if d["labelled"] and d["design"] in ("pips", "liars")]
        assert fancy and all(d["material"] in ("marbled", "translucent") for d in fancy)
        # one random draw whatever the share: the same dice, faces and boxes in every render
        for other in (every, usual):
            assert [(d["face"], d["box"]) for d in other] == [(d["face"], d["box"]) for d in none]
    assert "marbled" not in SceneConfig().to_json()  # configs written before the option read the same
    assert SceneConfig(marbled=0.6).to_json()["marbled"] == 0.6
    with pytest.raises(BadSceneConfig, match="marbled"):
        render_scene(_rng(0), SceneConfig(**SMALL, marbled=1.5))


def test_marbled_veins_stand_out_from_every_ink_on_the_die() -> None:
    # A vein the colour of the pips hides them: a blue 6 with white pips on white veins shows a 4.
    assert vein_choice("white", "blue", ("white",)) != "white"
    assert vein_choice("ivory", "black", ("yellow",)) != "ivory"  # hue apart, lightness alike
    assert 30 < MIN_VEIN_CONTRAST < 40 and 15 < MIN_VEIN_LIGHTNESS < 25  # an orange body with red pips
    for design in ("pips", "liars"):
        for body in DESIGNS[design].colours:
            for ink in set(ink_choices(body)):
                for inks in ((ink,), (ink, "red")):
                    for drawn in (c for c in BODY_COLOURS if c != body):
                        vein = vein_choice(drawn, body, inks)
                        assert vein != body
                        assert all(vein_stands_out(body, vein, i) for i in inks)
                        for i in inks:  # both in colour and in lightness
                            v, k = srgb_to_lab(vein_rgb(body, vein)), srgb_to_lab(INK_COLOURS[i])
                            assert delta_e(vein_rgb(body, vein), INK_COLOURS[i]) >= MIN_VEIN_CONTRAST
                            assert abs(v[0] - k[0]) >= MIN_VEIN_LIGHTNESS
                        if all(vein_stands_out(body, drawn, i) for i in inks):
                            assert vein == drawn  # a vein that was fine stays as it was drawn


def test_the_ship_s_wheel_always_stands_out_from_its_die() -> None:
    # A red wheel on a red Liar's die is invisible while its label says "wheel".
    faces = DESIGNS["liars"].faces
    for body in DESIGNS["liars"].colours:
        inks = set()
        for seed in range(30):
            rng = _rng(seed)
            atlas = make_atlas(rng, faces, body=body, design="liars", tex=32)
            inks.update(atlas.inks)
            again = _rng(seed)
            make_atlas(again, faces, body="white", design="liars", tex=32)
            assert rng.bit_generator.state == again.bit_generator.state  # the rule draws nothing more
        assert all(delta_e(BODY_COLOURS[body], INK_COLOURS[i]) >= MIN_VEIN_CONTRAST for i in inks), (body, inks)
        assert ("red" in inks) == (body != "red"), (body, inks)


def test_the_vein_rule_draws_nothing_more_at_random() -> None:
    # Renders whose drawn veins were fine stay byte for byte what they were before the rule.
    for seed in range(40):
        plain, guarded = _rng(seed), _rng(seed)
        a, _, kind_a = _material(plain, "blue", allow_fancy=True, marbled=1.0)
        b, _, kind_b = _material(guarded, "blue", allow_fancy=True, marbled=1.0, inks=("white",))
        assert kind_a == kind_b
        assert plain.bit_generator.state == guarded.bit_generator.state
        if b.vein_name is not None:
            assert vein_stands_out("blue", b.vein_name, "white")
            if a.vein_name != b.vein_name:
                assert not vein_stands_out("blue", a.vein_name, "white")


def test_scenes_record_each_marbled_die_s_vein_and_it_contrasts_with_the_ink() -> None:
    seen = 0
    for seed in range(4):
        scene = render_scene(_rng(seed), SceneConfig(**SMALL, dice_sets=("pips", "liars"), marbled=1.0))
        for d in scene.meta["dice"]:
            assert ("vein" in d) == bool(d["marbled"])
            if d["marbled"]:
                seen += 1
                assert vein_stands_out(d["colour"], d["vein"], d["ink"])
    assert seen > 0
