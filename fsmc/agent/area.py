"""The custom area of a generated project: the one folder an agent may write, how the site picks it up, and
the guards around it (paths, contents, and the hashes of every file outside it).

`custom/` sits at the project's root, beside `src/` and `public/`: a regenerated project keeps it (the
generator sweeps stale files from `src/` and `public/` only). Two hooks in the generated glue read it:
`src/main.js` loads `custom/style.css` after the theme's stylesheet, and `src/App.vue` shows
`custom/pages/<page>.vue` in place of the generated component of the spec's page `<page>`. The runtime
(`src/fsmc/`), the data, the layout and every generated component stay as fsmc wrote them.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from fsmc.errors import FsmcError

CUSTOM = "custom"
SUFFIXES = (".css", ".vue", ".svg", ".js", ".json")
MAX_FILE_BYTES = 256 * 1024
MAX_FILES = 200
SKIPPED = {"dist", "node_modules", CUSTOM, ".fsmc-agent"}  # not hashed: outputs, the shared packages, the area
SEGMENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
# What custom code must not touch: the runtime, the harness, the stored state, and anything off the site.
FORBIDDEN = (("__fsmc", "the test harness (window.__fsmc)"), ("runtime.js", "the compiled runtime"),
             ("machine.js", "the state machine"), ("sessionStorage", "the stored state"),
             ("localStorage", "browser storage"), ("fetch(", "network requests"), ("XMLHttpRequest", "network requests"))
URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s\"')]*", re.IGNORECASE)
SVG_NAMESPACES = ("http://www.w3.org/",)

HOOK_MARK = "fsmc agent hook"
CSS_ANCHOR = "import './style.css'\n"
# a static import after the theme's, so the custom rules come later in the bundle (a glob would be hoisted first)
CSS_HOOK = f"import '../{CUSTOM}/style.css'  // {HOOK_MARK}: the custom area's styles, after the theme's\n"
STYLE = "/* The custom area's stylesheet, loaded after the theme's src/style.css (fsmc build --agent). */\n"
PAGE_ANCHOR = "const current = computed(() => PAGE_COMPONENTS[state.value[0]])"
PAGE_HOOK = f"""// {HOOK_MARK}: custom/pages/<page>.vue is shown instead of the generated page <page>
import {{ PAGES as FSM_PAGES }} from './fsmc/runtime.js'
const CUSTOM_PAGES = Object.fromEntries(Object.entries(import.meta.glob('../{CUSTOM}/pages/*.vue', {{ eager: true, import: 'default' }}))
  .map(([path, component]) => [path.slice(path.lastIndexOf('/') + 1, -4), component]))
const current = computed(() => CUSTOM_PAGES[FSM_PAGES[state.value[0]]] || PAGE_COMPONENTS[state.value[0]])"""


class AreaError(FsmcError):
    """A path or a file the custom area refuses; the message says what is allowed."""


def install_hooks(root: Path) -> None:
    """Make the generated glue read the custom area (idempotent); AreaError when the glue is not as expected.
    The area always has a custom/style.css (the hook imports it; more stylesheets are @imported from it)."""
    style = root / CUSTOM / "style.css"
    if not style.is_file():
        style.parent.mkdir(parents=True, exist_ok=True)
        style.write_text(STYLE, encoding="utf-8")
    for rel, anchor, hook in (("src/main.js", CSS_ANCHOR, CSS_ANCHOR + CSS_HOOK), ("src/App.vue", PAGE_ANCHOR, PAGE_HOOK)):
        path = root / rel
        text = path.read_text(encoding="utf-8")
        if HOOK_MARK in text:
            continue
        if anchor not in text:
            raise AreaError(f"{path} does not have the line the custom area hooks onto ({anchor.strip()!r}): fsmc's "
                            "site templates changed; fsmc/agent/area.py must follow them")
        path.write_text(text.replace(anchor, hook, 1), encoding="utf-8")


def custom_path(root: Path, rel: str) -> Path:
    """The file `rel` names inside the custom area; AreaError for anything else."""
    parts = rel.strip().split("/")
    if not rel.strip() or parts[0] != CUSTOM or len(parts) < 2:
        raise AreaError(f"{rel!r}: you may write only inside {CUSTOM}/ (e.g. {CUSTOM}/style.css, "
                        f"{CUSTOM}/pages/<page>.vue, {CUSTOM}/img/hero.svg)")
    bad = [p for p in parts if not SEGMENT.fullmatch(p) or p in (".", "..")]
    if bad or "\\" in rel:
        raise AreaError(f"{rel!r}: a path of plain names (letters, digits, _ . -) separated by /, none starting "
                        "with a dot")
    if not rel.endswith(SUFFIXES):
        raise AreaError(f"{rel!r}: the custom area holds {', '.join(SUFFIXES)} files only")
    return root.joinpath(*parts)


def check_content(rel: str, content: str) -> None:
    """AreaError when a file's text is too big or reaches for what custom code must leave alone."""
    if len(content.encode("utf-8")) > MAX_FILE_BYTES:
        raise AreaError(f"{rel}: larger than {MAX_FILE_BYTES // 1024} KiB")
    for needle, what in FORBIDDEN:
        if needle in content:
            raise AreaError(f"{rel}: mentions {needle!r}: custom files must leave {what} alone")
    for url in URL.findall(content):
        if not url.startswith(SVG_NAMESPACES):
            raise AreaError(f"{rel}: refers to {url!r}: the site is served offline; draw images as SVG in "
                            f"{CUSTOM}/ and use the fonts of the theme")


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the custom area by its path relative to the root."""
    area = root / CUSTOM
    if not area.is_dir():
        return {}
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(area.rglob("*")) if p.is_file()}


def restore(root: Path, files: dict[str, bytes]) -> None:
    """Put the custom area back as `snapshot` saw it: files added since removed, changed ones rewritten."""
    for rel in set(snapshot(root)) - set(files):
        (root / rel).unlink()
    for rel, data in files.items():
        path = root / rel
        if not path.is_file() or path.read_bytes() != data:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    area = root / CUSTOM
    if area.is_dir():
        for folder in [*sorted((p for p in area.rglob("*") if p.is_dir()), reverse=True), area]:
            if not any(folder.iterdir()):
                folder.rmdir()


def protected_hashes(root: Path) -> dict[str, str]:
    """SHA-256 of every project file outside the custom area, the outputs and the shared packages."""
    hashes: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if not (here == root and d in SKIPPED))
        for name in sorted(files):
            path = here / name
            rel = path.relative_to(root).as_posix()
            if here == root and name.startswith("agent."):  # the run's transcript and ledger
                continue
            hashes[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return hashes


def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The protected files added, removed or changed between two `protected_hashes`."""
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def listing(root: Path) -> list[str]:
    """The project's files an agent may read (src/, custom/, index.html), image folders summarised."""
    lines = ["index.html"]
    for top in ("src", CUSTOM, "public"):
        base = root / top
        if not base.is_dir():
            continue
        for folder, dirs, files in os.walk(base):
            dirs.sort()
            here = Path(folder).relative_to(root).as_posix()
            svgs = [f for f in files if f.endswith(".svg")]
            if top == "public" and len(svgs) > 3:
                lines.append(f"{here}/ ({len(svgs)} SVG images: {', '.join(sorted(svgs)[:3])}, …)")
                continue
            lines += [f"{here}/{f}" for f in sorted(files)]
    return lines


def readable_path(root: Path, rel: str) -> Path:
    """A project file the agent may read (not the outputs, not the packages); AreaError otherwise."""
    parts = rel.strip().split("/")
    if parts[0] not in ("src", CUSTOM, "public", "index.html") or any(p in ("", ".", "..") for p in parts):
        raise AreaError(f"{rel!r}: readable are index.html and the files under src/, public/ and {CUSTOM}/ "
                        "(list_files shows them)")
    path = root.joinpath(*parts)
    if not path.is_file():
        raise AreaError(f"{rel!r}: no such file (list_files shows them)")
    return path
