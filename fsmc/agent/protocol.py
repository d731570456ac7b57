"""How fsmc and the agent speak: one JSON action per reply (structured output), a tool result per turn.

Why a JSON action protocol and not the providers' function calling: fsmc.llm asks both providers the same
way (a JSON Schema reply), so the agent runs on any OpenAI-compatible server (vLLM, llama.cpp, Ollama serve
structured output more widely than tool calls) and on Gemini alike; the request cache, the ledger and the
stand-in server of the tests need nothing new; and a reply that is no action is an ordinary error the next
turn explains. One action per turn keeps every edit checked on its own.

The conversation is rebuilt from the turns before each request, deterministically (so a rerun is answered
from the cache): the last KEEP_FULL turns in full, older ones shortened (written contents and long results
elided), and only the newest KEEP_IMAGES screenshots shown as images.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fsmc.agent.area import CUSTOM
from fsmc.llm import Message
from fsmc.semantics import Machine

TOOLS = ("list_files", "read_file", "write_file", "delete_file", "build", "screenshot", "conformance", "done")
KEEP_FULL = 6
KEEP_IMAGES = 2
OLD_RESULT = 600  # characters of an old tool result kept

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "thought": {"type": "string", "description": "what you do and why, in a sentence or two"},
        "tool": {"type": "string", "enum": list(TOOLS)},
        "path": {"type": "string", "description": "read_file, write_file, delete_file: the file; else empty"},
        "content": {"type": "string", "description": "write_file: the whole new file; done: a summary; else empty"},
        "page": {"type": "string", "description": "screenshot: the spec's page name; else empty"},
    },
    "required": ["thought", "tool", "path", "content", "page"],
    "additionalProperties": False,
}

SYSTEM = f"""You are a front-end designer working on a generated website, inside a compiler's guard rails.

The site is a Vue 3 + Vite single-page app generated from a formal spec (a state machine). Its runtime, its \
test harness, its data and its generated components are fixed. You restyle it and write its content (layout, \
copy, images drawn as SVG) in the custom area, the folder {CUSTOM}/ at the project's root:

- {CUSTOM}/style.css: loaded after the theme's src/style.css (override its classes; read it first); it \
@imports any other stylesheet of {CUSTOM}/ and must stay.
- {CUSTOM}/pages/<page>.vue: shown instead of the generated component of the spec's page <page> (the page's \
name, e.g. {CUSTOM}/pages/home.vue). The simplest safe way is to wrap the generated component: \
`import Generated from '../../src/pages/HomePage0.vue'` and put your hero, headings, copy and pictures around \
`<Generated />`. Other components are in src/components/ (import them the same way).
- {CUSTOM}/**/*.svg and *.js, *.json helpers: images as SVG (import them from a .vue file, or inline them).
Everything else is read-only.

Rules, enforced after every edit: the project must build with Vite; no file outside {CUSTOM}/ may change; and a \
sample of the state machine's transitions is replayed in Chromium: every control a GUI procedure names \
(`data-testid` attributes: buttons, inputs, selects, links) must stay present, unique, visible and \
clickable, and acting on it must do what the spec says. An edit that breaks any of this is reverted and you \
are told why. No network: no external URLs, fonts or images; custom code must not touch the runtime, the \
harness or browser storage.

Answer every turn with ONE JSON object: {{"thought", "tool", "path", "content", "page"}} (unused fields as ""). \
Tools:
- list_files: the project's files.
- read_file(path): a file under src/, public/, {CUSTOM}/, or index.html.
- write_file(path, content): write a whole file in {CUSTOM}/ (then built and checked; kept only if it passes).
- delete_file(path): remove a file of {CUSTOM}/ (checked like a write).
- build: build again and check (every edit is built already).
- screenshot(page): see a page of the site at 1280×720 as it now is.
- conformance: replay the sample again.
- done(content): you have finished; content says what you changed.
Write files that depend on others after them (an SVG before the page that imports it)."""


@dataclass
class Turn:
    """One turn: the model's reply, the action read from it (None: no action), and the tool's answer."""

    number: int
    reply: str
    action: dict[str, str] | None
    result: str
    image: bytes | None = None
    ok: bool = True
    reverted: bool = False


def read_action(text: str) -> dict[str, str]:
    """The action in a reply; ValueError saying what is wrong with it."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"your reply is no JSON object ({err.msg} at character {err.pos})") from None
    if not isinstance(data, dict):
        raise ValueError("your reply must be one JSON object with the fields thought, tool, path, content, page")
    tool = data.get("tool")
    if tool not in TOOLS:
        raise ValueError(f"unknown tool {tool!r}: one of {', '.join(TOOLS)}")
    return {k: str(data.get(k) or "") for k in ("thought", "tool", "path", "content", "page")}


def task_text(machine: Machine, root: Path, brief: str, budget: str) -> str:
    """The first user message: what to do, the site's pages and their controls, the budget."""
    components = _page_components(root)
    lines = [f"Your task: {brief}", "", f"The site {machine.spec.site.name!r} "
             f"({machine.spec.site.title or machine.spec.site.name}) has these pages:"]
    for page in machine.spec.pages:
        lines.append(f"- {page.name} ({page.title or page.name}), generated as {components.get(page.name, '?')}; "
                     "its controls:")
        for action in page.actions:
            ops = "; ".join(f"{op.op} {op.selector}" for op in action.gui if op.selector)
            lines.append(f"    {action.name}: {ops or '(no control)'}")
    lines += ["", f"Selectors like add-{{i}} stand for one control per value. Budget: {budget}.",
              "Start by looking: list_files, read_file src/style.css, screenshot a page."]
    return "\n".join(lines)


def _page_components(root: Path) -> dict[str, str]:
    found = {}
    for path in sorted((root / "src" / "pages").glob("*.vue")):
        m = re.search(r"for page '([^']+)'", path.read_text(encoding="utf-8")[:400])
        if m:
            found[m.group(1)] = path.relative_to(root).as_posix()
    return found


def messages(task: str, turns: list[Turn]) -> tuple[Message, ...]:
    """The request's conversation after these turns."""
    out = [Message("system", SYSTEM), Message("user", task)]
    images = {t.number for t in [t for t in turns if t.image is not None][-KEEP_IMAGES:]}
    recent = len(turns) - KEEP_FULL
    for i, t in enumerate(turns):
        old = i < recent
        out.append(Message("assistant", _shortened(t) if old else t.reply))
        result = t.result if not old or len(t.result) <= OLD_RESULT else t.result[:OLD_RESULT] + " … (cut)"
        shown = (t.image,) if t.number in images and t.image is not None else ()
        out.append(Message("user", f"[turn {t.number}] {result}", shown))
    return tuple(out)


def _shortened(t: Turn) -> str:
    if t.action is None or len(t.action.get("content", "")) <= OLD_RESULT:
        return t.reply if len(t.reply) <= 4 * OLD_RESULT else t.reply[:4 * OLD_RESULT] + " … (cut)"
    short = {**t.action, "content": f"({len(t.action['content']):,} characters, not repeated)"}
    return json.dumps(short, ensure_ascii=False)
