"""Scene lighting: one key lamp (a point light with a size), sky/ground ambient, an
environment for glossy reflections; colour temperature and intensity vary.

>>> rng = np.random.default_rng(3)
>>> light = sample_light(rng, scene_centre=np.zeros(3), camera_centre=np.array([0.0, -300.0, 500.0]))
>>> light.direction_at(np.zeros(3)).shape
(3,)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.synth.colour import kelvin_rgb


@dataclass(frozen=True, eq=False)
class Light:
    position: np.ndarray  # key lamp, world mm
    colour: np.ndarray  # linear RGB irradiance of the key at the scene centre
    sky: np.ndarray  # ambient from above
    ground: np.ndarray  # ambient bounced from below (tinted by the table later)
    env: np.ndarray  # brightness of what glossy surfaces reflect
    size_rad: float  # angular size of the lamp seen from the table (shadow softness)
    kelvin: float
    mode: str  # "normal" | "glare" | "dim" | "bright"
    centre: np.ndarray  # scene centre the intensities refer to

    def direction_at(self, p: np.ndarray) -> np.ndarray:
        d = self.position - np.asarray(p, dtype=float)
        return d / np.linalg.norm(d)

    def key_at(self, p: np.ndarray) -> np.ndarray:
        """Key-light colour at ``p`` (inverse-square falloff relative to the scene centre)."""
        d0 = np.linalg.norm(self.position - self.centre)
        d = np.linalg.norm(self.position - np.asarray(p, dtype=float))
        return self.colour * float((d0 / d) ** 2)

    def to_json(self) -> dict:
        d = self.direction_at(self.centre)
        return {
            "mode": self.mode,
            "kelvin": round(self.kelvin),
            "elevation_deg": round(math.degrees(math.asin(float(d[2]))), 1),
            "azimuth_deg": round(math.degrees(math.atan2(float(d[1]), float(d[0]))), 1),
            "key": [round(float(v), 3) for v in self.colour],
            "ambient": [round(float(v), 3) for v in self.sky],
            "size_deg": round(math.degrees(self.size_rad), 1),
        }


def sample_light(rng: np.random.Generator, scene_centre: np.ndarray, camera_centre: np.ndarray) -> Light:
    mode = str(rng.choice(["normal", "normal", "normal", "glare", "dim", "bright"]))
    dist = float(rng.uniform(700.0, 2600.0))
    if mode == "glare":
        # Lamp near the mirror image of the camera: top faces of glossy dice flare.
        to_cam = camera_centre - scene_centre
        mirror = np.array([-to_cam[0], -to_cam[1], to_cam[2]])
        mirror /= np.linalg.norm(mirror)
        jitter = rng.normal(0.0, 0.12, 3)
        d = mirror + jitter
        d[2] = abs(d[2]) + 0.2
    else:
        elev = math.radians(float(rng.uniform(25.0, 88.0)))
        az = float(rng.uniform(0.0, 2.0 * math.pi))
        d = np.array([math.cos(elev) * math.cos(az), math.cos(elev) * math.sin(az), math.sin(elev)])
    d = d / np.linalg.norm(d)
    position = scene_centre + dist * d
    kelvin = float(rng.choice([rng.uniform(2600.0, 3500.0), rng.uniform(3500.0, 5500.0), rng.uniform(5000.0, 7500.0)]))
    ambient_kelvin = float(np.clip(kelvin + rng.normal(800.0, 1200.0), 2500.0, 9000.0))
    key = {"normal": 1.0, "glare": 1.3, "dim": 0.35, "bright": 1.8}[mode] * float(rng.uniform(0.7, 1.3))
    amb = float(rng.uniform(0.15, 0.6)) * (0.5 if mode == "dim" else 1.0)
    sky = kelvin_rgb(ambient_kelvin) * amb
    return Light(
        position=position,
        colour=kelvin_rgb(kelvin) * key,
        sky=sky,
        ground=sky * 0.35,
        env=kelvin_rgb(ambient_kelvin) * float(rng.uniform(0.4, 1.4)) * (0.5 if mode == "dim" else 1.0),
        size_rad=math.radians(float(rng.uniform(2.0, 25.0))),
        kelvin=kelvin,
        mode=mode,
        centre=np.asarray(scene_centre, dtype=float),
    )


def key_irradiance(light: Light, world_xy: np.ndarray) -> np.ndarray:
    """Key-light cosine * falloff on the table for world points (..., 2), relative to the centre."""
    p = np.concatenate([world_xy, np.zeros(world_xy.shape[:-1] + (1,), world_xy.dtype)], axis=-1)
    d = light.position.astype(np.float32) - p
    dist = np.linalg.norm(d, axis=-1)
    d0 = float(np.linalg.norm(light.position - light.centre))
    return ((d[..., 2] / dist) * (d0 / dist) ** 2).astype(np.float32)



def sheen(points: np.ndarray, camera_centre: np.ndarray, light: Light, shininess: float) -> np.ndarray:
    """Specular reflection of the lamp (Blinn-Phong lobe plus Schlick's Fresnel) at world
    ``points`` (..., 3) on a horizontal surface, before scaling by the surface's gloss."""
    v = camera_centre.astype(np.float32) - points
    v /= np.linalg.norm(v, axis=-1, keepdims=True)
    lv = light.position.astype(np.float32) - points
    lv /= np.linalg.norm(lv, axis=-1, keepdims=True)
    hv = v + lv
    hv /= np.linalg.norm(hv, axis=-1, keepdims=True)
    fres = 0.04 + 0.96 * (1.0 - v[..., 2]) ** 5
    return (shininess + 8.0) / 40.0 * np.clip(hv[..., 2], 0, 1) ** shininess * 0.6 + fres * 0.8
