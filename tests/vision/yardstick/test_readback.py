"""Label read-back through Blender: a die rendered with a known face up is labelled with that face,
its label box holds every pixel of the die, and the image itself shows that many pips.

Needs bpy (the render extra; Python 3.11). One tiny Cycles render, a few seconds on 2 cores.
"""

from __future__ import annotations

import math
import random
from collections import deque
from pathlib import Path

import numpy as np
import pytest

bpy = pytest.importorskip("bpy")

from vision.yardstick import geometry, materials, scene  # noqa: E402
from vision.yardstick.designs import design  # noqa: E402
from vision.yardstick.faces import die_atlas  # noqa: E402

SIZE = 0.016
W, H = 256, 96
BACKGROUND = (0.02, 0.04, 0.12)  # linear: a dark blue cloth, so the lit white dice stand out
PUT_UP = ("2", "3", "4", "5", "6")  # one die per face, in a row


def _blobs(mask: np.ndarray) -> list[int]:
    """Sizes of the 4-connected components of a boolean mask."""
    seen = np.zeros_like(mask, dtype=bool)
    sizes = []
    for y, x in zip(*np.nonzero(mask)):
        if seen[y, x]:
            continue
        q, n = deque([(y, x)]), 0
        seen[y, x] = True
        while q:
            cy, cx = q.popleft()
            n += 1
            for ny, nx in ((cy + 1, cx), (cy - 1, cx), (cy, cx + 1), (cy, cx - 1)):
                if 0 <= ny < mask.shape[0] and 0 <= nx < mask.shape[1] and mask[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    q.append((ny, nx))
        sizes.append(n)
    return sizes


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict], np.ndarray, np.ndarray]:
    tmp: Path = tmp_path_factory.mktemp("readback")
    dd = design("ld-wheel-rope-engraved")
    kind = dd.kinds[0]
    colour = kind.colours[0]  # white body, black pips
    scene.reset()
    world = bpy.data.worlds.new("flat")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (*BACKGROUND, 1.0)
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = 1.0
    bpy.context.scene.world = world
    for name, energy, tilt in (("key", 4.0, 0.5), ("fill", 2.0, -0.6)):  # two suns: every side that shows is lit
        light = bpy.data.objects.new(name, bpy.data.lights.new(name, "SUN"))
        light.data.energy = energy
        light.rotation_euler = (tilt, tilt * 0.5, 0.0)
        bpy.context.scene.collection.objects.link(light)
    cam = scene.add_camera(np.array([0.001, -0.002, 0.12]), np.eye(3), W, H, 60.0)
    atlas, mask = die_atlas(dd, kind.faces, colour)
    mat = materials.die_material("die", dd, atlas, mask, random.Random(1), tmp)
    placed = []
    for i, face in enumerate(PUT_UP):
        obj = scene.die_mesh(f"die-{i:02d}", SIZE, dd, mat)
        idx = kind.faces.index(face)
        rot = next(r for r in geometry.cube_rotations() if geometry.up_face(r)[0] == idx)
        scene._set_matrix(obj, geometry.rotation_z(0.3 * i) @ rot, np.array([(i - 2) * 0.025, 0.0, SIZE / 2]))
        placed.append(scene.Placed(obj, "die", dd.id, size=SIZE, faces=kind.faces, colour=colour.name))
    bpy.context.view_layer.update()
    labels = scene.label_objects(placed, cam)
    tops, _ = cam.project(np.array([[(i - 2) * 0.025, 0.0, SIZE] for i in range(len(PUT_UP))]))
    scene.configure_cycles(W, H, samples=4)
    return labels, scene.render_linear(tmp), tops


def test_labels_read_the_faces_that_were_put_up(rendered: tuple[list[dict], np.ndarray, np.ndarray]) -> None:
    labels, _, _ = rendered
    assert [lab["face"] for lab in labels] == list(PUT_UP)
    for lab in labels:
        assert lab["colour"] == "white" and lab["readable"] and lab["visible"] > 0.95
        # 16 mm at 104 mm from a 60-degree, 256-pixel camera: about 34 px across
        assert 31 < lab["face_px"] < 37


def test_label_boxes_hold_their_dice_and_the_image_shows_the_labelled_pips(
    rendered: tuple[list[dict], np.ndarray, np.ndarray],
) -> None:
    labels, img, tops = rendered
    die = np.abs(img - np.array([BACKGROUND])).max(axis=2) > 0.08
    lum = img.mean(axis=2)
    claimed = np.zeros_like(die)
    for lab, (tx, ty) in zip(labels, tops):
        x1, y1, x2, y2 = lab["box"]
        inside = np.zeros_like(die)
        # one pixel of slack: Cycles' pixel filter spreads an edge into the pixel next to it
        inside[max(0, math.floor(y1) - 1):math.ceil(y2) + 1, max(0, math.floor(x1) - 1):math.ceil(x2) + 1] = True
        claimed |= inside
        ys, xs = np.nonzero(die & inside)
        assert (xs.max() - xs.min()) > 0.85 * (x2 - x1)  # the box is tight: the die fills it
        dark = lum < 0.3 * np.percentile(lum[die & inside], 90)  # black ink, not the grey bevels
        yy, xx = np.mgrid[0:H, 0:W]
        core = (yy - ty) ** 2 + (xx - tx) ** 2 < (0.44 * lab["face_px"]) ** 2  # inside the up face, any yaw
        pips = [n for n in _blobs(core & die & dark) if n >= 3]
        assert len(pips) == int(lab["face"]), lab
    assert not (die & ~claimed).any()  # every die pixel lies in some label box
