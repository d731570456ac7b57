"""`fsmc schema`: print the JSON Schema of the IR."""

from __future__ import annotations

import argparse
import json

from fsmc import ir
from fsmc.cli.common import EXIT_OK

NAME = "schema"
HELP = "Print the JSON Schema of the fsmc IR (the format of `fsmc convert --to ir`)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    print(json.dumps(ir.Spec.model_json_schema(), indent=2, sort_keys=True))
    return EXIT_OK
