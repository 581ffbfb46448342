"""Cycles shader node trees for the yardstick: tables, dice bodies, cards, skin and props (bpy only)."""

from __future__ import annotations

import math
import random
from pathlib import Path

import bpy
import numpy as np
from PIL import Image, ImageDraw

from .designs import RGB, DiceDesign, Finish, Marking

TABLES = ("wood", "felt", "cloth", "laminate", "patterned")


def linear(rgb: RGB) -> tuple[float, float, float, float]:
    """sRGB -> linear RGBA for shader inputs."""
    out = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return (out[0], out[1], out[2], 1.0)


def kelvin_rgb(k: float) -> tuple[float, float, float]:
    """Approximate linear RGB of a black body at ``k`` kelvin, normalised to max 1 (Tanner Helland's fit)."""
    t = k / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    srgb = [max(0.0, min(255.0, v)) / 255.0 for v in (r, g, b)]
    lin = linear((srgb[0], srgb[1], srgb[2]))[:3]
    m = max(lin)
    return (lin[0] / m, lin[1] / m, lin[2] / m)


def _new(name: str) -> tuple[bpy.types.Material, bpy.types.NodeTree, bpy.types.Node]:
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nt = mat.node_tree
    bsdf = nt.nodes["Principled BSDF"]
    return mat, nt, bsdf


def image_node(nt: bpy.types.NodeTree, img: Image.Image, name: str, tmp: Path, colour: bool = True) -> bpy.types.Node:
    path = tmp / f"{name}.png"
    img.save(path, compress_level=1)
    bimg = bpy.data.images.load(str(path))
    bimg.colorspace_settings.name = "sRGB" if colour else "Non-Color"
    node = nt.nodes.new("ShaderNodeTexImage")
    node.image = bimg
    node.interpolation = "Cubic" if colour else "Linear"
    return node


def _pattern_texture(rng: random.Random) -> Image.Image:
    """A repeating printed tablecloth / vinyl pattern of this renderer's own (motifs on a ground)."""
    s = 512
    ground = rng.choice([(0.85, 0.80, 0.68), (0.20, 0.28, 0.40), (0.62, 0.18, 0.16), (0.30, 0.42, 0.30)])
    motif = rng.choice([(0.95, 0.93, 0.88), (0.75, 0.55, 0.20), (0.10, 0.12, 0.15), (0.55, 0.65, 0.80)])
    img = Image.new("RGB", (s, s), tuple(int(c * 255) for c in ground))
    d = ImageDraw.Draw(img)
    kind = rng.choice(["flowers", "diamonds", "stripes"])
    col = tuple(int(c * 255) for c in motif)
    if kind == "flowers":
        for gy in range(0, s, 128):
            for gx in range(0, s, 128):
                cx, cy = gx + 64 + (64 if (gy // 128) % 2 else 0), gy + 64
                for k in range(6):
                    a = k * math.pi / 3
                    px, py = (cx + 26 * math.cos(a)) % s, (cy + 26 * math.sin(a)) % s
                    d.ellipse((px - 16, py - 16, px + 16, py + 16), fill=col)
                d.ellipse(((cx % s) - 12, cy - 12, (cx % s) + 12, cy + 12), fill=tuple(int(c * 0.7) for c in col))
    elif kind == "diamonds":
        for gy in range(0, s + 64, 64):
            for gx in range(0, s + 64, 64):
                d.polygon([(gx, gy - 24), (gx + 24, gy), (gx, gy + 24), (gx - 24, gy)], fill=col)
    else:
        for gx in range(0, s, 64):
            d.rectangle((gx, 0, gx + 18, s), fill=col)
            d.rectangle((gx + 28, 0, gx + 32, s), fill=tuple(int(c * 0.8) for c in col))
    return img


def table_material(kind: str, rng: random.Random, tmp: Path) -> bpy.types.Material:
    mat, nt, bsdf = _new(f"table-{kind}")
    coord = nt.nodes.new("ShaderNodeTexCoord")
    mapping = nt.nodes.new("ShaderNodeMapping")
    nt.links.new(coord.outputs["Object"], mapping.inputs["Vector"])
    mapping.inputs["Rotation"].default_value[2] = rng.uniform(0, math.pi)
    if kind == "wood":  # long irregular grain along x, plank-scale tone drift, growth rings faintly
        mapping.inputs["Scale"].default_value = (rng.uniform(1.0, 2.0), rng.uniform(25.0, 45.0), 1.0)
        grain = nt.nodes.new("ShaderNodeTexNoise")
        grain.inputs["Scale"].default_value = rng.uniform(2.0, 4.0)
        grain.inputs["Detail"].default_value = 8.0
        grain.inputs["Roughness"].default_value = 0.62
        grain.inputs["Distortion"].default_value = rng.uniform(0.5, 2.0)
        nt.links.new(mapping.outputs["Vector"], grain.inputs["Vector"])
        ramp = nt.nodes.new("ShaderNodeValToRGB")
        dark = rng.choice([(0.30, 0.16, 0.07), (0.42, 0.26, 0.14), (0.20, 0.11, 0.06), (0.62, 0.46, 0.30)])
        ramp.color_ramp.elements[0].position = 0.3
        ramp.color_ramp.elements[1].position = 0.7
        ramp.color_ramp.elements[0].color = linear(dark)
        ramp.color_ramp.elements[1].color = linear(tuple(min(1.0, c * 1.35 + 0.04) for c in dark))
        nt.links.new(grain.outputs["Fac"], ramp.inputs["Fac"])
        plank = nt.nodes.new("ShaderNodeTexNoise")
        plank.inputs["Scale"].default_value = 1.5
        nt.links.new(coord.outputs["Object"], plank.inputs["Vector"])
        tone = nt.nodes.new("ShaderNodeMix")
        tone.data_type = "RGBA"
        tone.blend_type = "MULTIPLY"
        tone.inputs[0].default_value = 0.35
        nt.links.new(ramp.outputs["Color"], tone.inputs[6])
        nt.links.new(plank.outputs["Color"], tone.inputs[7])
        nt.links.new(tone.outputs[2], bsdf.inputs["Base Color"])
        bsdf.inputs["Roughness"].default_value = rng.uniform(0.3, 0.6)
    elif kind == "felt":
        noise = nt.nodes.new("ShaderNodeTexNoise")
        noise.inputs["Scale"].default_value = 900.0
        nt.links.new(mapping.outputs["Vector"], noise.inputs["Vector"])
        base = rng.choice([(0.05, 0.32, 0.16), (0.08, 0.20, 0.38), (0.40, 0.06, 0.08), (0.12, 0.12, 0.13)])
        mix = nt.nodes.new("ShaderNodeMix")
        mix.data_type = "RGBA"
        mix.inputs[6].default_value = linear(tuple(c * 0.75 for c in base))
        mix.inputs[7].default_value = linear(tuple(min(1.0, c * 1.2) for c in base))
        nt.links.new(noise.outputs["Fac"], mix.inputs[0])
        nt.links.new(mix.outputs[2], bsdf.inputs["Base Color"])
        bsdf.inputs["Roughness"].default_value = 0.95
        bsdf.inputs["Sheen Weight"].default_value = 0.6
    elif kind == "cloth":
        mapping.inputs["Scale"].default_value = (1.0, 1.0, 1.0)
        checker = nt.nodes.new("ShaderNodeTexChecker")
        checker.inputs["Scale"].default_value = rng.uniform(12.0, 40.0)
        a = rng.choice([(0.75, 0.10, 0.10), (0.15, 0.25, 0.60), (0.20, 0.45, 0.25), (0.35, 0.30, 0.28)])
        checker.inputs["Color1"].default_value = linear(a)
        checker.inputs["Color2"].default_value = linear((0.92, 0.90, 0.86))
        nt.links.new(mapping.outputs["Vector"], checker.inputs["Vector"])
        nt.links.new(checker.outputs["Color"], bsdf.inputs["Base Color"])
        bsdf.inputs["Roughness"].default_value = 0.85
        bsdf.inputs["Sheen Weight"].default_value = 0.3
    elif kind == "laminate":
        noise = nt.nodes.new("ShaderNodeTexNoise")
        noise.inputs["Scale"].default_value = 40.0
        nt.links.new(mapping.outputs["Vector"], noise.inputs["Vector"])
        base = rng.choice([(0.85, 0.85, 0.83), (0.70, 0.68, 0.64), (0.45, 0.46, 0.48), (0.80, 0.74, 0.62)])
        mix = nt.nodes.new("ShaderNodeMix")
        mix.data_type = "RGBA"
        mix.inputs[6].default_value = linear(tuple(c * 0.94 for c in base))
        mix.inputs[7].default_value = linear(base)
        nt.links.new(noise.outputs["Fac"], mix.inputs[0])
        nt.links.new(mix.outputs[2], bsdf.inputs["Base Color"])
        bsdf.inputs["Roughness"].default_value = rng.uniform(0.15, 0.35)
    elif kind == "patterned":
        mapping.inputs["Scale"].default_value = (rng.uniform(3.0, 7.0),) * 3
        tex = image_node(nt, _pattern_texture(rng), "pattern", tmp)
        nt.links.new(mapping.outputs["Vector"], tex.inputs["Vector"])
        nt.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
        bsdf.inputs["Roughness"].default_value = rng.uniform(0.5, 0.8)
    else:
        raise ValueError(kind)
    return mat


def die_material(name: str, design: DiceDesign, atlas: Image.Image, mask: Image.Image, rng: random.Random,
                 tmp: Path) -> bpy.types.Material:
    mat, nt, bsdf = _new(name)
    tex = image_node(nt, atlas, f"{name}-atlas", tmp)
    nt.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    if design.finish is Finish.GLOSSY:
        bsdf.inputs["Roughness"].default_value = rng.uniform(0.08, 0.2)
        bsdf.inputs["Coat Weight"].default_value = rng.uniform(0.1, 0.4)
    elif design.finish is Finish.MATTE:
        bsdf.inputs["Roughness"].default_value = rng.uniform(0.45, 0.65)
    else:
        bsdf.inputs["Roughness"].default_value = rng.uniform(0.1, 0.2)
        bsdf.inputs["Subsurface Weight"].default_value = rng.uniform(0.5, 0.8)
        bsdf.inputs["Subsurface Scale"].default_value = 0.004
    if design.marking is not Marking.PRINTED:
        mtex = image_node(nt, mask, f"{name}-mask", tmp, colour=False)
        nt.links.new(coord_uv(nt), mtex.inputs["Vector"])
        bump = nt.nodes.new("ShaderNodeBump")
        bump.inputs["Strength"].default_value = 0.7
        bump.inputs["Distance"].default_value = 0.0006
        bump.invert = design.marking is Marking.ENGRAVED
        nt.links.new(mtex.outputs["Color"], bump.inputs["Height"])
        nt.links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    return mat


def coord_uv(nt: bpy.types.NodeTree) -> bpy.types.NodeSocket:
    coord = nt.nodes.new("ShaderNodeTexCoord")
    return coord.outputs["UV"]


def card_material(name: str, texture: Image.Image, tmp: Path) -> bpy.types.Material:
    """A card face or back: the RGBA texture, its alpha cutting the rounded corners."""
    mat, nt, bsdf = _new(name)
    tex = image_node(nt, texture, name, tmp)
    nt.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    nt.links.new(tex.outputs["Alpha"], bsdf.inputs["Alpha"])
    bsdf.inputs["Roughness"].default_value = 0.45
    return mat


def plain_material(name: str, rgb: RGB, roughness: float, subsurface: float = 0.0) -> bpy.types.Material:
    mat, nt, bsdf = _new(name)
    bsdf.inputs["Base Color"].default_value = linear(rgb)
    bsdf.inputs["Roughness"].default_value = roughness
    if subsurface:
        bsdf.inputs["Subsurface Weight"].default_value = subsurface
        bsdf.inputs["Subsurface Scale"].default_value = 0.01
    return mat


def pixels_of(image: bpy.types.Image) -> np.ndarray:
    """A loaded bpy image as a float (H, W, 4) array, top row first."""
    w, h = image.size
    buf = np.empty(w * h * 4, dtype=np.float32)
    image.pixels.foreach_get(buf)
    return buf.reshape(h, w, 4)[::-1]
