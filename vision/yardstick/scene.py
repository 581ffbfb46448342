"""One yardstick scene in Blender: build it from its seed, render it with Cycles, label it from itself.

Labels come from the built scene, never from the plan that built it: each die's up face is read from
its final ``matrix_world`` (geometry.up_face), boxes are projections of the evaluated mesh through the
same pinhole the camera has, and visibility is measured by casting rays from the camera into the
scene (a hand, a lifted cup or another die in the way hides a sample).
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import bpy  # noqa: I001  (bpy first: it puts bmesh and mathutils on the path)
import bmesh
import numpy as np
from mathutils import Matrix, Vector
from PIL import Image

from . import faces, geometry, materials, post
from .designs import BodyColour, DeckDesign, DiceDesign, DieKind, Shape, design
from .splits import SceneSpec

LIGHTS = ("ceiling-neutral", "desk-lamp-warm", "window-cold", "window-and-lamp", "dim-room-warm", "overhead-glare")
CARD_W, CARD_H = faces.CARD_MM[0] / 1000.0, faces.CARD_MM[1] / 1000.0
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")


@dataclass
class Placed:
    """An object to be labelled: a die (with its six faces) or a card (face up or down)."""

    obj: bpy.types.Object
    kind: str
    design: str
    size: float = 0.0  # die side in metres
    faces: tuple[str, ...] = ()
    colour: str | None = None
    card: str | None = None  # "10H" for a face-up card, None for a face-down one


# ---- building -----------------------------------------------------------------------------------


def reset() -> None:
    bpy.ops.wm.read_factory_settings(use_empty=True)


def _mesh_object(name: str, bm: bmesh.types.BMesh, mat: bpy.types.Material | None) -> bpy.types.Object:
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    if mat is not None:
        mesh.materials.append(mat)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def _set_matrix(obj: bpy.types.Object, rot: np.ndarray, loc: np.ndarray) -> None:
    m = np.eye(4)
    m[:3, :3] = rot
    m[:3, 3] = loc
    obj.matrix_world = Matrix(m.tolist())


# u and v directions of each face's cell (u x v = outward normal, so marks read unmirrored from outside).
_FACE_UV = (
    ((0, 1, 0), (0, 0, 1)),
    ((0, -1, 0), (0, 0, 1)),
    ((-1, 0, 0), (0, 0, 1)),
    ((1, 0, 0), (0, 0, 1)),
    ((1, 0, 0), (0, 1, 0)),
    ((1, 0, 0), (0, -1, 0)),
)


def die_mesh(name: str, size: float, dd: DiceDesign, mat: bpy.types.Material) -> bpy.types.Object:
    """A bevelled or rounded cube with each face UV-mapped onto its atlas cell."""
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=size)
    rounded = dd.shape is Shape.ROUNDED
    bmesh.ops.bevel(bm, geom=list(bm.edges), offset=dd.bevel * size, offset_type="OFFSET",
                    segments=5 if rounded else 2, profile=0.5 if rounded else 0.7, affect="EDGES", clamp_overlap=True)
    uv = bm.loops.layers.uv.new("UVMap")
    for f in bm.faces:
        n = np.array(f.normal)
        idx = int(np.argmax(FACE_DOT := geometry.FACE_NORMALS @ n))
        f.smooth = rounded and FACE_DOT[idx] < 0.999
        udir, vdir = np.array(_FACE_UV[idx][0]), np.array(_FACE_UV[idx][1])
        col, row = idx % faces.ATLAS_COLS, idx // faces.ATLAS_COLS
        for loop in f.loops:
            co = np.array(loop.vert.co)
            u = min(0.995, max(0.005, 0.5 + float(co @ udir) / size))
            v = min(0.995, max(0.005, 0.5 + float(co @ vdir) / size))
            loop[uv].uv = ((col + u) / faces.ATLAS_COLS, 1.0 - (row + 1 - v) / faces.ATLAS_ROWS)
    return _mesh_object(name, bm, mat)


def card_mesh(name: str, mat: bpy.types.Material) -> bpy.types.Object:
    bm = bmesh.new()
    verts = [bm.verts.new((x * CARD_W / 2, y * CARD_H / 2, 0.0)) for x, y in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    f = bm.faces.new(verts)
    uv = bm.loops.layers.uv.new("UVMap")
    for loop in f.loops:
        co = loop.vert.co
        loop[uv].uv = (co.x / CARD_W + 0.5, co.y / CARD_H + 0.5)
    return _mesh_object(name, bm, mat)


def add_camera(pos: np.ndarray, rot: np.ndarray, width: int, height: int, fov_h_deg: float) -> geometry.PinholeCamera:
    """Put Blender's camera where the pinhole model is, so labels project exactly as Cycles renders."""
    data = bpy.data.cameras.new("webcam")
    data.sensor_fit = "HORIZONTAL"
    data.angle = math.radians(fov_h_deg)
    data.clip_start = 0.02
    obj = bpy.data.objects.new("webcam", data)
    bpy.context.scene.collection.objects.link(obj)
    _set_matrix(obj, rot, pos)
    bpy.context.scene.camera = obj
    return geometry.PinholeCamera.make(pos, rot, width, height, fov_h_deg)


def _camera(spec: SceneSpec, rng: random.Random) -> tuple[geometry.PinholeCamera, dict]:
    height = rng.uniform(0.35, 0.80)
    tilt = rng.uniform(0.0, 45.0)
    fov_diag = rng.uniform(60.0, 78.0)
    azimuth = rng.uniform(-math.pi, math.pi)
    roll = math.radians(rng.uniform(-4.0, 4.0))
    back = height * math.tan(math.radians(tilt))
    pos = np.array([-back * math.sin(azimuth), -back * math.cos(azimuth), height])
    target = np.zeros(3)
    if tilt < 1.0:  # straight down: aim along the azimuth so the image's up is away from the player
        rot = np.stack([[math.cos(azimuth), -math.sin(azimuth), 0.0], [math.sin(azimuth), math.cos(azimuth), 0.0],
                        [0.0, 0.0, 1.0]], axis=1)
    else:
        rot = geometry.look_at(pos, target)
    rot = rot @ geometry.rotation_z(roll)
    fov_h = geometry.diagonal_to_horizontal_fov(fov_diag, spec.width, spec.height)
    cam = add_camera(pos, rot, spec.width, spec.height, fov_h)
    info = {"height_cm": round(height * 100, 1), "tilt_deg": round(tilt, 1), "fov_deg": round(fov_diag, 1)}
    return cam, info


def _light(name: str, kind: str, energy: float, kelvin: float, pos: tuple, target: tuple = (0, 0, 0),
           size: float = 0.1, spot_deg: float = 70.0) -> None:
    data = bpy.data.lights.new(name, kind)
    data.energy = energy
    data.color = materials.kelvin_rgb(kelvin)
    if kind == "AREA":
        data.size = size
    elif kind in ("SPOT", "POINT"):
        data.shadow_soft_size = size
        if kind == "SPOT":
            data.spot_size = math.radians(spot_deg)
            data.spot_blend = 0.4
    obj = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(obj)
    _set_matrix(obj, geometry.look_at(np.array(pos, float), np.array(target, float)), np.array(pos, float))


def _lighting(rng: random.Random) -> tuple[str, post.Sensor]:
    name = rng.choice(LIGHTS)
    world = bpy.data.worlds.new("room")
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    side = rng.uniform(0, 2 * math.pi)
    far = (1.6 * math.cos(side), 1.6 * math.sin(side))
    dim = False
    ambient = 0.25
    if name == "ceiling-neutral":
        _light("ceiling", "AREA", rng.uniform(150, 350), rng.uniform(4000, 5000),
               (rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), rng.uniform(1.6, 2.2)), size=rng.uniform(0.6, 1.2))
    elif name == "desk-lamp-warm":
        _light("lamp", "SPOT", rng.uniform(15, 40), rng.uniform(2600, 3200),
               (0.35 * math.cos(side), 0.35 * math.sin(side), rng.uniform(0.4, 0.6)), size=0.03,
               spot_deg=rng.uniform(60, 95))
        ambient = 0.08
    elif name == "window-cold":
        _light("window", "AREA", rng.uniform(400, 900), rng.uniform(6000, 7500), (far[0], far[1], rng.uniform(0.6, 1.2)),
               size=rng.uniform(0.9, 1.5))
        ambient = 0.35
    elif name == "window-and-lamp":
        _light("window", "AREA", rng.uniform(300, 600), rng.uniform(6000, 7500), (far[0], far[1], 0.9), size=1.2)
        _light("lamp", "SPOT", rng.uniform(10, 25), 2800, (-0.3 * math.cos(side), -0.3 * math.sin(side), 0.5),
               size=0.03, spot_deg=80)
    elif name == "dim-room-warm":
        _light("bulb", "POINT", rng.uniform(8, 25), rng.uniform(2400, 3000),
               (far[0] * 0.8, far[1] * 0.8, rng.uniform(1.2, 1.8)), size=0.05)
        ambient = 0.04
        dim = True
    else:  # overhead-glare: a small bright fixture above the table, specular spots on the glossy dice under it
        a = rng.uniform(0, 2 * math.pi)
        r = rng.uniform(0.15, 0.45)
        _light("fixture", "AREA", rng.uniform(40, 100), rng.uniform(4500, 6500),
               (r * math.cos(a), r * math.sin(a), rng.uniform(0.9, 1.3)), size=rng.uniform(0.1, 0.25))
        ambient = 0.2
    tint = materials.kelvin_rgb(rng.uniform(3500, 7000))
    bg.inputs["Color"].default_value = (tint[0] * 0.6, tint[1] * 0.6, tint[2] * 0.6, 1.0)
    bg.inputs["Strength"].default_value = ambient
    bpy.context.scene.world = world
    sensor = post.Sensor(
        exposure_bias=rng.uniform(0.55, 0.8) if dim else rng.uniform(0.8, 1.25),
        full_well=rng.uniform(250, 500) if dim else rng.uniform(700, 2000),
        read_noise=rng.uniform(2.0, 5.0),
        softness=rng.uniform(0.4, 0.9),
        vignette=rng.uniform(0.05, 0.35),
        shake_px=rng.uniform(1.5, 4.0) if rng.random() < 0.12 else 0.0,
        shake_angle=rng.uniform(0, math.pi),
    )
    return name, sensor


def _table(rng: random.Random, tmp: Path) -> str:
    kind = rng.choice(materials.TABLES)
    bm = bmesh.new()
    bmesh.ops.create_grid(bm, x_segments=1, y_segments=1, size=4.0)
    _mesh_object("table", bm, materials.table_material(kind, rng, tmp))
    return kind


# ---- placing dice and cards --------------------------------------------------------------------


def _spot(cam: geometry.PinholeCamera, rng: random.Random, edge: bool = False) -> np.ndarray | None:
    w, h = cam.width, cam.height
    if edge:  # near a frame edge, sometimes a little past it
        side = rng.randrange(4)
        t = rng.uniform(0.1, 0.9)
        m = rng.uniform(-0.01, 0.06)
        px = [(m * w, t * h), ((1 - m) * w, t * h), (t * w, m * h), (t * w, (1 - m) * h)][side]
    else:
        px = (rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.8) * h)
    p = cam.table_point(px)
    if p is None or np.linalg.norm(p[:2]) > 1.5:
        return None
    return p[:2]


def place_squares(cam: geometry.PinholeCamera, sizes: list[float], rng: random.Random,
                  edge_share: float = 0.05) -> list[tuple[float, float, float]]:
    """Centres and yaws on the table for squares of ``sizes``: clustered, some touching, none overlapping."""
    placed: list[tuple[float, float, float, float]] = []
    centres = [c for c in (_spot(cam, rng) for _ in range(rng.randint(1, 3))) if c is not None] or [np.zeros(2)]
    spread = rng.uniform(0.8, 2.5)
    for size in sizes:
        for _attempt in range(200):
            yaw = rng.uniform(0, math.pi / 2)
            r = rng.random()
            if placed and r < 0.3:  # touching a die already down, face to face
                ox, oy, oyaw, osize = rng.choice(placed)
                a = oyaw + rng.randrange(4) * math.pi / 2
                gap = (osize + size) / 2 + 0.0004
                xy = np.array([ox + gap * math.cos(a), oy + gap * math.sin(a)])
                yaw = oyaw + rng.uniform(-0.08, 0.08)
            elif r < 0.3 + edge_share:
                xy = _spot(cam, rng, edge=True)
                if xy is None:
                    continue
            else:
                c = rng.choice(centres)
                xy = c + np.array([rng.gauss(0, spread * size), rng.gauss(0, spread * size)])
            if any(geometry.squares_overlap((xy[0], xy[1]), yaw, size, (px, py), pyaw, ps, gap=0.0002)
                   for px, py, pyaw, ps in placed):
                continue
            uv, _ = cam.project(np.array([[xy[0], xy[1], size / 2]]))
            if not (-0.02 * cam.width < uv[0, 0] < 1.02 * cam.width and -0.02 * cam.height < uv[0, 1] < 1.02 * cam.height):
                continue
            placed.append((float(xy[0]), float(xy[1]), yaw, size))
            break
        else:
            raise RuntimeError("could not place every die without overlap")
    return [(x, y, yaw) for x, y, yaw, _ in placed]


def _dice_for(dd: DiceDesign, rng: random.Random) -> list[tuple[DieKind, BodyColour]]:
    if dd.game == "liars-dice":
        kind = dd.kinds[0]
        players = rng.sample(list(kind.colours), k=rng.randint(1, len(kind.colours)))
        return [(kind, rng.choice(players)) for _ in range(rng.randint(2, 15))]
    if dd.game == "nine-dice":
        basic = [(k, k.colours[0]) for k in dd.kinds if k.name != "expansion"]
        extra = [(k, k.colours[0]) for k in dd.kinds if k.name == "expansion"]
        return basic + (extra if rng.random() < 0.5 else [])
    return [(k, rng.choice(k.colours)) for k in dd.kinds]


def build_dice(dd: DiceDesign, cam: geometry.PinholeCamera, rng: random.Random, tmp: Path) -> list[Placed]:
    dice = _dice_for(dd, rng)
    size = rng.uniform(*dd.size_mm) / 1000.0
    spots = place_squares(cam, [size] * len(dice), rng)
    rotations = geometry.cube_rotations()
    mats: dict[tuple, bpy.types.Material] = {}
    out: list[Placed] = []
    for i, ((kind, colour), (x, y, yaw)) in enumerate(zip(dice, spots)):
        key = (kind.faces, colour)
        if key not in mats:
            atlas, mask = faces.die_atlas(dd, kind.faces, colour)
            mats[key] = materials.die_material(f"die-{len(mats)}", dd, atlas, mask, rng, tmp)
        obj = die_mesh(f"die-{i:02d}", size, dd, mats[key])
        rot = geometry.rotation_z(yaw) @ rng.choice(rotations)
        _set_matrix(obj, rot, np.array([x, y, size / 2 + 0.00005]))
        out.append(Placed(obj, "die", dd.id, size=size, faces=kind.faces, colour=colour.name))
    return out


def build_cards(deck: DeckDesign, cam: geometry.PinholeCamera, rng: random.Random, tmp: Path) -> list[Placed]:
    """1-4 cards face up (a Doubt reveal), maybe a face-down pile and a few loose face-down cards."""
    deck_cards = [r + s for r in RANKS for s in SUITS]
    rng.shuffle(deck_cards)
    back = materials.card_material("card-back", faces.card_back(deck), tmp)
    n_up = rng.randint(1, 4)
    n_pile = rng.choice([0, 0, rng.randint(3, 14)])
    n_loose = rng.choice([0, 0, 1, 2])
    out: list[Placed] = []
    z = 0.0002
    base = _spot(cam, rng)
    base = np.zeros(2) if base is None else base
    pile_at = base + np.array([rng.uniform(-0.15, 0.15), rng.uniform(-0.15, 0.15)])
    pile_yaw = rng.uniform(0, math.pi)
    for k in range(n_pile):
        obj = card_mesh(f"pile-{k:02d}", back)
        off = np.array([rng.gauss(0, 0.003), rng.gauss(0, 0.003)])
        _set_matrix(obj, geometry.rotation_z(pile_yaw + rng.gauss(0, 0.06)), np.array([*(pile_at + off), z]))
        z += 0.0003
        out.append(Placed(obj, "card", deck.id))
    spots = place_squares(cam, [CARD_H * 0.8] * (n_up + n_loose), rng, edge_share=0.0)
    fan = rng.random() < 0.35  # cards laid overlapping in a row, as players drop them
    for k in range(n_up + n_loose):
        up = k < n_up
        card = deck_cards.pop() if up else None
        mat = materials.card_material(f"card-{k}", faces.card_face(deck, card), tmp) if up else back
        obj = card_mesh(f"card-{k:02d}", mat)
        x, y, yaw = spots[k]
        if fan and up and k > 0:
            x0, y0, yaw0 = spots[0]
            x, y, yaw = x0 + k * 0.025 * math.cos(yaw0), y0 + k * 0.025 * math.sin(yaw0), yaw0 + rng.gauss(0, 0.05)
        yaw += rng.choice([0.0, math.pi]) + rng.uniform(-0.4, 0.4)
        _set_matrix(obj, geometry.rotation_z(yaw), np.array([x, y, z]))
        z += 0.0003
        out.append(Placed(obj, "card", deck.id, card=card))
    return out


def _occluder(placed: list[Placed], rng: random.Random) -> str | None:
    """Sometimes a hand reaching over the dice or a cup being lifted off them."""
    r = rng.random()
    if r > 0.3 or not placed:
        return None
    target = np.array(rng.choice(placed).obj.matrix_world.translation)[:2]
    if r < 0.17:
        skin = rng.choice([(0.87, 0.67, 0.55), (0.72, 0.52, 0.40), (0.45, 0.30, 0.22), (0.95, 0.78, 0.66)])
        mat = materials.plain_material("skin", skin, 0.5, subsurface=0.3)
        yaw = rng.uniform(0, 2 * math.pi)
        height = rng.uniform(0.025, 0.06)
        parts: list[tuple[bmesh.types.BMesh, np.ndarray, np.ndarray]] = []
        palm = bmesh.new()
        bmesh.ops.create_uvsphere(palm, u_segments=24, v_segments=12, radius=1.0)
        bmesh.ops.scale(palm, vec=(0.05, 0.045, 0.014), verts=palm.verts)
        parts.append((palm, np.eye(3), np.array([0.0, 0.0, 0.0])))
        for f in range(4):
            finger = bmesh.new()
            bmesh.ops.create_cone(finger, cap_ends=True, segments=12, radius1=0.0085, radius2=0.007, depth=0.07)
            rot = geometry.rotation_x(math.radians(-80 - rng.uniform(0, 20)))  # pointing along +Y, drooping
            parts.append((finger, rot, np.array([-0.03 + f * 0.02, 0.075, -0.006])))
        arm = bmesh.new()
        bmesh.ops.create_cone(arm, cap_ends=True, segments=16, radius1=0.03, radius2=0.035, depth=0.5)
        parts.append((arm, geometry.rotation_x(math.radians(83)), np.array([0.0, -0.28, 0.03])))
        for i, (bm, rot, off) in enumerate(parts):
            obj = _mesh_object(f"hand-{i}", bm, mat)
            world_rot = geometry.rotation_z(yaw) @ rot
            loc = np.array([*target, height]) + geometry.rotation_z(yaw) @ off + np.array(
                [rng.uniform(-0.02, 0.02), rng.uniform(-0.02, 0.02), 0.0])
            _set_matrix(obj, world_rot, loc)
        return "hand"
    cup = bmesh.new()
    bmesh.ops.create_cone(cup, cap_ends=True, segments=32, radius1=0.042, radius2=0.036, depth=0.09)
    colour = rng.choice([(0.25, 0.12, 0.06), (0.08, 0.08, 0.08), (0.45, 0.10, 0.10)])
    obj = _mesh_object("cup", cup, materials.plain_material("leather", colour, 0.55))
    lift = rng.uniform(0.004, 0.025)  # being lifted off the dice at the reveal, still low over them
    tilt = geometry.rotation_x(math.radians(rng.uniform(5, 30)))
    a = rng.uniform(0, 2 * math.pi)
    off = rng.uniform(0.03, 0.06) * np.array([math.cos(a), math.sin(a)])
    _set_matrix(obj, geometry.rotation_z(a + math.pi / 2) @ tilt, np.array([*(target + off), 0.045 + lift]))
    return "cup"


# ---- labels -------------------------------------------------------------------------------------


def _first_hit(depsgraph: bpy.types.Depsgraph, origin: np.ndarray, direction: np.ndarray) -> tuple[str | None, float]:
    hit, loc, _n, _i, obj, _m = bpy.context.scene.ray_cast(depsgraph, Vector(origin), Vector(direction))
    if not hit:
        return None, math.inf
    return obj.name, float(np.linalg.norm(np.array(loc) - origin))


def _surface_visible(depsgraph, cam: geometry.PinholeCamera, name: str, points: np.ndarray) -> float:
    """Share of 3D surface points of object ``name`` in frame and seen directly by the camera."""
    origin = np.array(cam.position)
    px, depth = cam.project(points)
    ok = 0
    for p, uvp, dz in zip(points, px, depth):
        if dz <= 0 or not geometry.in_frame(uvp[None], cam.width, cam.height)[0]:
            continue
        d = p - origin
        dist = float(np.linalg.norm(d))
        hit, hd = _first_hit(depsgraph, origin, d / dist)
        if hit == name and hd > dist - 0.002:
            ok += 1
    return ok / len(points)


def _silhouette_visible(depsgraph, cam: geometry.PinholeCamera, name: str, hull: np.ndarray) -> float:
    """Share of the object's projected silhouette (convex hull) in frame and not hidden by something else."""
    centre = hull.mean(axis=0)
    samples = geometry.samples_in_polygon(centre + 0.94 * (hull - centre), 160)
    inside = geometry.in_frame(samples, cam.width, cam.height)
    origin = np.array(cam.position)
    rays = cam.ray(samples)
    ok = sum(1 for s_in, d in zip(inside, rays) if s_in and _first_hit(depsgraph, origin, d)[0] == name)
    return ok / len(samples)


def _grid(n: int) -> np.ndarray:
    t = (np.arange(n) + 0.5) / n
    return np.array([(a, b) for a in t for b in t])


def label_objects(placed: list[Placed], cam: geometry.PinholeCamera) -> list[dict]:
    depsgraph = bpy.context.evaluated_depsgraph_get()
    out: list[dict] = []
    for p in placed:
        mw = np.array(p.obj.matrix_world)
        verts = np.array([v.co for v in p.obj.data.vertices])
        world = geometry.transform(mw, verts)
        px, _ = cam.project(world)
        hull = geometry.convex_hull(px)
        box = geometry.clip_box(px, cam.width, cam.height)
        visible = _silhouette_visible(depsgraph, cam, p.obj.name, hull) if box else 0.0
        entry: dict = {"kind": p.kind}
        if p.kind == "die":
            idx, tilt = geometry.up_face(mw[:3, :3])
            corners = geometry.transform(mw, geometry.face_corners(idx, p.size))
            cpx, _ = cam.project(corners)
            face_in = bool(geometry.in_frame(cpx, cam.width, cam.height).all())
            # 5x5 points on the up face, 0.4 mm proud of it, inset from the bevel
            n = geometry.FACE_NORMALS[idx]
            axis = int(np.flatnonzero(n)[0])
            a, b = [i for i in range(3) if i != axis]
            local = np.zeros((25, 3))
            g = (_grid(5) - 0.5) * p.size * 0.8
            local[:, a], local[:, b] = g[:, 0], g[:, 1]
            local[:, axis] = n[axis] * (p.size / 2 + 0.0004)
            face_vis = _surface_visible(depsgraph, cam, p.obj.name, geometry.transform(mw, local)) if box else 0.0
            entry.update(face=p.faces[idx], colour=p.colour, box=_round(box or (0, 0, 0, 0)),
                         face_px=round(math.sqrt(geometry.polygon_area(cpx)), 2), visible=round(visible, 3),
                         readable=geometry.readable(face_in, face_vis, tilt) and box is not None, design=p.design)
        else:
            local = np.array([[-CARD_W / 2, CARD_H / 2, 0], [CARD_W / 2, CARD_H / 2, 0], [CARD_W / 2, -CARD_H / 2, 0],
                              [-CARD_W / 2, -CARD_H / 2, 0]])
            cpx, _ = cam.project(geometry.transform(mw, local))
            readable = False
            if p.card is not None and box:
                for sx, sy in ((-1, 1), (1, -1)):  # the two index corners (top-left, bottom-right as printed)
                    g = _grid(4)
                    pts = np.zeros((16, 3))
                    pts[:, 0] = sx * (CARD_W / 2 - (0.03 + 0.15 * g[:, 0]) * CARD_W)
                    pts[:, 1] = sy * (CARD_H / 2 - (0.03 + 0.24 * g[:, 1]) * CARD_H)
                    pts[:, 2] = 0.0001
                    if _surface_visible(depsgraph, cam, p.obj.name, geometry.transform(mw, pts)) >= \
                            geometry.READABLE_MIN_FACE_VISIBLE:
                        readable = True
            entry.update(face=p.card, colour=None, box=_round(box or (0, 0, 0, 0)),
                         corners=[[round(float(x), 1), round(float(y), 1)] for x, y in cpx],
                         visible=round(visible, 3), readable=readable, design=p.design)
            if p.card is not None and box:
                entry["indices"] = _index_labels(depsgraph, cam, p, mw)
        out.append(entry)
    return out


INDEX_MIN_VISIBLE = 0.85  # an index box is a detector/classifier training label from this share in view
INDEX_MIN_PX = 5.0  # ... and this many pixels on its shorter side (as ``tableref synth`` labels indices)


def _index_labels(depsgraph, cam: geometry.PinholeCamera, p: Placed, mw: np.ndarray) -> list[dict]:
    """A face-up card's two corner indices (top left, bottom right as printed): each one's
    image quad and box around its ink, the share of it seen directly by the camera, and
    whether it is a training label (``labelled``: in view enough and big enough)."""
    deck = design(p.design)
    assert isinstance(deck, DeckDesign)
    out = []

    def world(uv: np.ndarray) -> np.ndarray:  # texture fractions (y down) -> world, 0.1 mm proud of the face
        local = np.column_stack([(uv[:, 0] - 0.5) * CARD_W, (0.5 - uv[:, 1]) * CARD_H, np.full(len(uv), 0.0001)])
        return geometry.transform(mw, local)

    for name, (x0, y0, x1, y1) in zip(("top-left", "bottom-right"), faces.index_rects(deck, p.card)):
        qpx, _ = cam.project(world(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])))
        grid = np.array([x0, y0]) + np.array([x1 - x0, y1 - y0]) * _grid(4)
        vis = _surface_visible(depsgraph, cam, p.obj.name, world(grid))
        bx0, by0 = float(np.clip(qpx[:, 0].min(), 0, cam.width)), float(np.clip(qpx[:, 1].min(), 0, cam.height))
        bx1, by1 = float(np.clip(qpx[:, 0].max(), 0, cam.width)), float(np.clip(qpx[:, 1].max(), 0, cam.height))
        out.append({"corner": name, "box": _round((bx0, by0, bx1, by1)),
                    "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in qpx], "visible": round(vis, 3),
                    "labelled": bool(vis >= INDEX_MIN_VISIBLE and min(bx1 - bx0, by1 - by0) >= INDEX_MIN_PX)})
    return out


def _round(box: tuple[float, float, float, float]) -> list[float]:
    return [round(float(v), 1) for v in box]


# ---- rendering ----------------------------------------------------------------------------------


def configure_cycles(width: int, height: int, samples: int, threads: int = 2) -> None:
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    scene.cycles.use_adaptive_sampling = True
    scene.cycles.adaptive_threshold = 0.03
    scene.cycles.use_denoising = True
    scene.cycles.denoiser = "OPENIMAGEDENOISE"
    scene.cycles.denoising_quality = "FAST"  # "high" quality costs more than the samples on 2 cores
    scene.cycles.denoising_prefilter = "FAST"
    scene.cycles.sample_clamp_indirect = 5.0
    scene.cycles.max_bounces = 3
    scene.cycles.diffuse_bounces = 1
    scene.cycles.glossy_bounces = 2
    scene.cycles.transmission_bounces = 2
    scene.cycles.transparent_max_bounces = 4
    scene.cycles.caustics_reflective = False
    scene.cycles.caustics_refractive = False
    scene.cycles.blur_glossy = 1.0
    scene.render.threads_mode = "FIXED"
    scene.render.threads = threads
    scene.render.resolution_x = width
    scene.render.resolution_y = height
    scene.render.resolution_percentage = 100
    scene.render.use_persistent_data = False
    scene.render.image_settings.file_format = "OPEN_EXR"
    scene.render.image_settings.color_depth = "16"
    scene.render.image_settings.exr_codec = "NONE"
    scene.view_settings.view_transform = "Standard"


@contextlib.contextmanager
def _quiet_stdout() -> Iterator[None]:
    """Cycles prints a progress line per tile to fd 1; keep the command's own progress readable."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(devnull)
        os.close(saved)


def render_linear(tmp: Path) -> np.ndarray:
    path = tmp / "frame.exr"
    bpy.context.scene.render.filepath = str(path)
    with _quiet_stdout():
        bpy.ops.render.render(write_still=True)
    img = bpy.data.images.load(str(path))
    arr = materials.pixels_of(img)[..., :3].copy()
    bpy.data.images.remove(img)
    return arr


def build(spec: SceneSpec, tmp: Path) -> tuple[geometry.PinholeCamera, dict, list[Placed], post.Sensor]:
    """Build the scene of ``spec`` in the current (reset) Blender file; returns what labelling needs."""
    rng = random.Random(spec.seed)
    reset()
    cam, cam_info = _camera(spec, rng)
    table = _table(rng, tmp)
    light, sensor = _lighting(rng)
    d = design(spec.design)
    placed = build_cards(d, cam, rng, tmp) if isinstance(d, DeckDesign) else build_dice(d, cam, rng, tmp)
    occluder = _occluder(placed, rng)
    bpy.context.view_layer.update()
    cam_info["motion_blur"] = sensor.shake_px > 0
    meta = {"camera": cam_info, "table": table, "light": light, "occluder": occluder}
    return cam, meta, placed, sensor


def render_scene(spec: SceneSpec, image_path: Path, samples: int, threads: int = 2) -> dict:
    """Render one scene to ``image_path`` (PNG) and return its labels line (yardstick-format.md)."""
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="yardstick-") as tmpdir:
        tmp = Path(tmpdir)
        cam, meta, placed, sensor = build(spec, tmp)
        objects = label_objects(placed, cam)
        configure_cycles(spec.width, spec.height, samples, threads)
        linear = render_linear(tmp)
    pixels = post.develop(linear, sensor, np.random.default_rng(spec.seed))
    image_path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(pixels).save(image_path)
    return {
        "image": f"images/{image_path.name}",
        "scene": spec.scene_id,
        "split": spec.split,
        "game": spec.game,
        "design": spec.design,
        "seed": spec.seed,
        "width": spec.width,
        "height": spec.height,
        **meta,
        "samples": samples,
        "render_s": round(time.monotonic() - t0, 2),
        "objects": objects,
    }
