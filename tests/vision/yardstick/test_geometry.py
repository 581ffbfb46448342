"""The yardstick's labelling maths on hand-made cases (no Blender needed)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.yardstick import geometry as g
from vision.yardstick.designs import LIARS_WHEEL_FACES


def test_the_24_cube_rotations_are_distinct_proper_rotations() -> None:
    rots = g.cube_rotations()
    assert len(rots) == 24
    assert len({tuple(r.astype(int).ravel()) for r in rots}) == 24
    for r in rots:
        assert np.allclose(r @ r.T, np.eye(3))
        assert np.isclose(np.linalg.det(r), 1.0)


def test_each_face_comes_up_in_four_of_the_24_orientations() -> None:
    ups = [g.up_face(r)[0] for r in g.cube_rotations()]
    assert sorted(ups.count(i) for i in range(6)) == [4] * 6


def test_a_rotation_with_face_3_up_reads_3() -> None:
    # +Y carries the 3 on a Liar's Dice die; a quarter turn about X brings +Y to the top.
    rot = g.rotation_z(0.7) @ g.rotation_x(math.pi / 2)
    idx, tilt = g.up_face(rot)
    assert LIARS_WHEEL_FACES[idx] == "3"
    assert tilt == pytest.approx(0.0, abs=1e-6)


def test_unrotated_die_shows_its_top_face_and_a_tilt_is_measured() -> None:
    assert g.up_face(np.eye(3)) == (4, 0.0)
    idx, tilt = g.up_face(g.rotation_x(math.radians(15)))
    assert idx == 4
    assert tilt == pytest.approx(15.0)
    assert LIARS_WHEEL_FACES[g.up_face(g.rotation_x(math.pi))[0]] == "6"


def _down_camera(height: float = 1.0, fov: float = 90.0) -> g.PinholeCamera:
    # Looking straight down: camera -Z is world -Z, camera +Y is world +Y (image up = table +Y).
    return g.PinholeCamera.make(np.array([0.0, 0.0, height]), np.eye(3), 640, 480, fov)


def test_a_known_camera_projects_a_known_cube_to_a_known_box() -> None:
    cam = _down_camera()
    assert cam.focal_px == pytest.approx(320.0)
    corners = g.cube_corners(0.1)  # centred at the origin: top face 0.95 m from the camera
    px, depth = cam.project(corners)
    assert depth.min() == pytest.approx(0.95)
    half = 320.0 * 0.05 / 0.95
    box = g.clip_box(px, 640, 480)
    assert box == pytest.approx((320 - half, 240 - half, 320 + half, 240 + half))
    # +Y of the table is up in the image
    p, _ = cam.project(np.array([[0.0, 0.1, 0.0]]))
    assert p[0, 1] < 240


def test_up_face_pixel_size_from_above() -> None:
    cam = _down_camera()
    corners = g.face_corners(4, 0.1)
    px, _ = cam.project(corners)
    assert math.sqrt(g.polygon_area(px)) == pytest.approx(320.0 * 0.1 / 0.95)


def test_rays_and_table_points_invert_the_projection() -> None:
    pos = np.array([0.1, -0.3, 0.5])
    cam = g.PinholeCamera.make(pos, g.look_at(pos, np.zeros(3)), 640, 480, 60.0)
    centre, _ = cam.project(np.zeros((1, 3)))
    assert centre[0] == pytest.approx([320.0, 240.0])
    point = np.array([[0.05, 0.02, 0.0]])
    px, _ = cam.project(point)
    assert cam.table_point(tuple(px[0])) == pytest.approx(point[0])


def test_diagonal_fov_converts_to_horizontal() -> None:
    h = g.diagonal_to_horizontal_fov(68.0, 640, 480)
    assert math.tan(math.radians(h) / 2) == pytest.approx(math.tan(math.radians(34.0)) * 0.8)


def test_a_box_outside_the_frame_is_clipped_or_none() -> None:
    assert g.clip_box(np.array([[-10.0, -5.0], [20.0, 30.0]]), 640, 480) == (0.0, 0.0, 20.0, 30.0)
    assert g.clip_box(np.array([[700.0, 10.0], [720.0, 30.0]]), 640, 480) is None


def test_squares_may_touch_but_not_overlap() -> None:
    s = 0.016
    assert not g.squares_overlap((0, 0), 0.0, s, (s, 0), 0.0, s)  # face to face
    assert g.squares_overlap((0, 0), 0.0, s, (s * 0.9, 0), 0.0, s)
    # a square turned 45 degrees reaches sqrt(2)/2 of its side
    assert g.squares_overlap((0, 0), math.pi / 4, s, (s * 1.1, 0), 0.0, s)
    assert not g.squares_overlap((0, 0), math.pi / 4, s, (s * 1.25, 0), 0.0, s)


def test_samples_fall_inside_their_polygon() -> None:
    square = np.array([[10.0, 10.0], [30.0, 10.0], [30.0, 30.0], [10.0, 30.0]])
    pts = g.samples_in_polygon(square, 100)
    assert 60 <= len(pts) <= 140
    assert g.inside_convex(square, pts).all()
    hull = g.convex_hull(np.vstack([square, [[20.0, 20.0]]]))
    assert len(hull) == 4


def test_readable_rule() -> None:
    assert g.readable(True, 0.95, 5.0)
    assert not g.readable(False, 1.0, 0.0)  # up face cut by the frame edge
    assert not g.readable(True, 0.85, 0.0)  # partly under a hand
    assert not g.readable(True, 1.0, 25.0)  # leaning
