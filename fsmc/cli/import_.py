"""`fsmc import`: a draft spec from a capture (pages from URL templates, actions from the links seen, extractors)."""

from __future__ import annotations

import argparse

from fsmc.cli.common import EXIT_OK, EXIT_UNREADABLE, fail

NAME = "import"
HELP = "Write a draft spec from a capture made by `fsmc capture`: pages, navigation actions, extractors of the state."
DESCRIPTION = HELP + """

  fsmc import captures/zoo -o specs/zoo.fsm
  fsmc check specs/zoo.fsm && fsmc enumerate specs/zoo.fsm -o out/zoo && fsmc replay out/zoo -o data/zoo

The captured pages (without a query string) become pages of the spec, one per URL template: a numeric or
id-like path segment is a slot (/zoo/animals/{id}), read off the URL into a variable. A link seen, shown and
unique on every captured instance of a page, to another captured page, becomes a navigation action clicking
a[href="..."]; the links to a template's instances make one action with a parameter over the values seen.
The spec declares `backend capture "FOLDER"`; the extractors that read its state go to FOLDER/extract.toml
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
    from fsmc.cli.common import EXIT_ERRORS

    try:
        made = import_capture(args.capture, args.out, force=args.force)
    except CaptureError as err:
        raise fail(f"fsmc import: error: {err}", EXIT_UNREADABLE if err.unreadable else EXIT_ERRORS) from None
    actions = sum(len(p.actions) for p in made.spec.pages)
    print(f"{args.out}: {len(made.spec.pages)} pages, {actions} actions, {len(made.spec.tasks)} tasks "
          f"(extractors in {args.capture}/extract.toml)")
    if made.left_out:
        print(f"  left out (no link to them from the entry's pages): {', '.join(made.left_out)}")
    return EXIT_OK
