"""``tableref``: one command line, one module per subcommand.

Each subcommand module exposes ``add_arguments(parser)`` and ``run(args) -> int``
and is imported only when used, so ``tableref replay`` never loads OpenCV and
``tableref read`` never loads Flask (and nothing here ever loads torch).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("web.serve_cmd", "run the table dashboard (camera or built-in demo source)"),
    "replay": ("web.replay_cmd", "replay a game log and print the final state as JSON"),
    "read": ("vision.commands.read", "read the dice and cards in photos"),
    "synth": ("vision.synth.cli", "render a synthetic labelled dataset of table scenes"),
    "train": ("vision.train.command", "train the detector and face classifier, export ONNX"),
    "teach": ("vision.commands.teach", "teach a reader profile a table's own dice from labelled photos"),
    "teach-curve": ("vision.evaluate.teach_curve", "how fast a profile learns a labelled set: accuracy against taught photos"),
    "calibrate": ("vision.commands.calibrate", "fit the classifier's temperatures and the one reporting threshold on a labelled set"),
    "eval": ("web.eval_cmd", "score the reader on a labelled dataset (and judge its scenes as a table would)"),
    "eval-live": ("vision.evaluate.live", "score settled live reveals on rendered clips (frames' vote and closer look)"),
    "eval-verdicts": ("web.verdict_eval", "judge settled live reveals as a table does, against the true dice's verdicts"),
    "bench": ("vision.evaluate.bench", "benchmark the runtime reader"),
    "yardstick": ("vision.yardstick.render_cmd", "render the independent yardstick scenes (Blender/Cycles, render extra)"),
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    top = argparse.ArgumentParser(prog="tableref", description="Computer-vision table referee for dice and card games.")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = argv[0] if argv and argv[0] in COMMANDS else None
    for name, (module_name, help_text) in COMMANDS.items():
        parser = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            module = importlib.import_module(module_name)
            module.add_arguments(parser)
            parser.set_defaults(_run=module.run)
    args = top.parse_args(argv)
    try:
        code = int(args._run(args) or 0)
        sys.stdout.flush()
        return code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _reader_gone()


def _reader_gone() -> int:
    """The program reading tableref's output stopped (``tableref read --json *.jpg | head``):
    stop quietly, as a Unix tool does, with 128 + SIGPIPE. What is still buffered goes to
    ``/dev/null``, so Python does not report the closed pipe again when it exits."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    return 141


if __name__ == "__main__":
    sys.exit(main())
