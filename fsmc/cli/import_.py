"""`fsmc import`: a draft spec from a capture (pages from URL templates, actions from the links and forms seen,
extractors)."""

from __future__ import annotations

import argparse

from fsmc.cli.common import EXIT_OK, Failure

NAME = "import"
HELP = "Write a draft spec from a capture made by `fsmc capture`: pages, actions from links and forms, extractors."
DESCRIPTION = HELP + """

  fsmc import captures/zoo -o specs/zoo.fsm
  fsmc check specs/zoo.fsm && fsmc enumerate specs/zoo.fsm -o out/zoo && fsmc replay out/zoo -o data/zoo

The captured pages become pages of the spec, one per URL template: a numeric or id-like path segment is a
slot (/zoo/animals/{id}), read off the URL into a variable, and each query parameter whose values differ
across a template's captured URLs (/zoo/animals?_sort=name) is a variable over the values seen (none when
absent), read off the URL too. A link shown and unique on a captured page, to another captured page,
becomes an action clicking a[href="..."], enabled where the capture shows it; the links to a template's
instances make one action with a parameter over the values seen. A GET form that a flow submitted
(fsmc capture --flows FLOWS.json) becomes an action that types and selects the fields the flows changed
(parameters over the values submitted) and clicks its submit button (or presses Enter); forms it cannot import (a POST, one
no flow submitted) are listed in comments at the top of the draft, and printed. The spec declares `backend capture "FOLDER"`; the extractors that read its state go to FOLDER/extract.toml
(see docs/language.md, Backends). Both files are written only when the draft passes the checks; an existing
one is replaced only with --force. Exit 0 on success, 2 for a folder that is no readable capture or a file
that exists, 1 for a draft that cannot be made.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("capture", help="the capture folder (captures/NAME)")
    parser.add_argument("-o", "--out", required=True, help="the draft spec to write (specs/NAME.fsm)")
    parser.add_argument("--force", action="store_true", help="replace the spec and the capture's extract.toml if they exist")


def run(args: argparse.Namespace) -> int:
    from fsmc.capture import CaptureError
    from fsmc.capture.importer import import_capture

    try:
        made = import_capture(args.capture, args.out, force=args.force)
    except CaptureError as err:
        raise Failure(f"fsmc import: error: {err}", err) from None
    actions = sum(len(p.actions) for p in made.spec.pages)
    print(f"{args.out}: {len(made.spec.pages)} pages, {actions} actions, {len(made.spec.tasks)} tasks "
          f"(extractors in {args.capture}/extract.toml)")
    if made.left_out:
        print(f"  left out (no move from the start page leads there): {', '.join(made.left_out)}")
    for note in made.notes:
        print(f"  note: {note}")
    return EXIT_OK
