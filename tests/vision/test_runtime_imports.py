"""The runtime must never pull in torch or Ultralytics (they are training-only dependencies)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUNTIME_MODULES = ["vision.reader", "vision.read_cmd", "vision.evaluate", "vision.bench", "vision.backends", "vision.train"]


@pytest.mark.parametrize("module", RUNTIME_MODULES)
def test_import_does_not_load_torch(module):
    code = (
        f"import sys, {module}\n"
        "heavy = sorted(m for m in ('torch', 'ultralytics', 'torchvision') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"{module} imported {done.stdout.strip()}"
