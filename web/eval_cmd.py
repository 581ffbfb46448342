"""``tableref eval``: :mod:`vision.evaluate.photos`, with the scenes that name their game also judged
as the table would judge them (:func:`web.verdict_eval.scene_verdicts`).

The reader's scores live in vision/, which holds no game rules; the verdicts need the
referee and the table's judging of unsure pieces (:mod:`web.unsure`), so the command that
prints both is put together here.
"""

from __future__ import annotations

import argparse

from vision.evaluate.photos import add_arguments as add_eval_arguments
from vision.evaluate.photos import run as run_eval

from web.verdict_eval import scene_verdicts


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_eval_arguments(parser)


def run(args: argparse.Namespace) -> int:
    return run_eval(args, verdicts=scene_verdicts)
