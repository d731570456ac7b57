"""fsmc tasks as BrowserGym tasks: `register_site` registers every task of an enumerate output as `browsergym/fsmc.…`.

Each task is an `AbstractBrowserTask` of the real browsergym-core: `setup` opens the task's site in BrowserGym's page
and puts it in the task's initial state; `validate` reads the state the site reports and lets the semantics decide (an
answer arrives through `send_msg_to_user`); `cheat` acts out the verified trajectory. BrowserGym's observation (AXTree
and DOM with bids, screenshot, `goal_object`, chat) and its action set then work unchanged. The site is a `Place`:
the built site (served on loopback, put in a state through its harness), or the backend the spec declares (a capture
served from its archive, a cloned application started and reset), driven through that backend's own episode on
BrowserGym's page (`fsmc.bridges.awaited`), reaching a task's initial state by acting moves out (`fsmc.env.reach`).

BrowserGym launches Chromium twice through its global Playwright (the page, and the chat window, which takes no
launch options): `use_debian_chromium` makes both Debian's, offline, by handing BrowserGym a Playwright whose
`chromium.launch` names Debian's executable.
"""

from __future__ import annotations

import atexit
import functools
import json
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from fsmc.backends.captured_spec import CapturedSpec
from fsmc.backends.cloned import ClonedApp
from fsmc.backends.protocol import JPEG, Capture, Op
from fsmc.backends.site import RESET_JS, STATE_JS
from fsmc.bridges.awaited import Awaited, run
from fsmc.browser import Isolation, SiteServer
from fsmc.browser.chromium import CHROMIUM_ARGS, HARNESS_READY, chromium_path
from fsmc.env.reach import reach
from fsmc.env.tasks import Task, TaskSet

LOAD_TIMEOUT_MS = 30_000  # the site's first load, on a machine busy with other work
ACTION_TIMEOUT_MS = 500  # what BrowserGym's action functions give an element to become actionable

PREFIX = "fsmc"
# BrowserGym shows scrollbars (it ignores Playwright's --hide-scrollbars) and launches with args of its own
OFFLINE_ARGS = [a for a in CHROMIUM_ARGS if a != "--hide-scrollbars"]
# gymnasium's names allow word characters, '.' and '-' (':' names a module to import): '/' becomes '.', every other
# character '-' and its code in hex, '-' itself too, so no name ends in gymnasium's version suffix '-v<N>'
_KEPT = re.compile(r"[A-Za-z0-9_]")


def encode_task_id(task_id: str) -> str:
    """A task id as a gymnasium name: '/' as '.', every character but letters, digits and '_' as '-' and its code in
    hex (`view/category/jackets,none,relevance` -> `view.category.jackets-2cnone-2crelevance`)."""
    return "".join("." if c == "/" else c if _KEPT.fullmatch(c) else _escape(c) for c in task_id)


def _escape(c: str) -> str:
    return f"-{ord(c):02x}" if ord(c) < 256 else f"-u{ord(c):06x}"


def decode_task_id(name: str) -> str:
    """The task id `encode_task_id` encoded."""
    return re.sub(r"-u([0-9a-f]{6})|-([0-9a-f]{2})", lambda m: chr(int(m[1] or m[2], 16)), name.replace(".", "/"))


def env_id(site: str, task_id: str) -> str:
    """The id BrowserGym registers a task under (gymnasium's, with the `browsergym/` namespace)."""
    return f"browsergym/{PREFIX}.{site}.{encode_task_id(task_id)}"


# ------------------------------------------------------------------ Debian's Chromium for both of BrowserGym's launches

class DebianChromium:
    """Playwright's `chromium` browser type, launching Debian's executable with fsmc's offline flags."""

    def __init__(self, browser_type: Any):
        self._type = browser_type

    def launch(self, **kwargs: Any) -> Any:
        kwargs.setdefault("executable_path", chromium_path())
        kwargs["args"] = [*kwargs.get("args", []), *OFFLINE_ARGS]
        return self._type.launch(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._type, name)


class DebianPlaywright:
    """A sync Playwright whose `chromium` is `DebianChromium`; everything else is Playwright's own."""

    def __init__(self, playwright: Any):
        self.playwright = playwright
        self.chromium = DebianChromium(playwright.chromium)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.playwright, name)


def use_debian_chromium() -> None:
    """Make BrowserGym's global Playwright launch Debian's Chromium (its page and its chat window); idempotent."""
    import browsergym.core as core

    pw = core._get_global_playwright()
    if not isinstance(pw, DebianPlaywright):
        core._set_global_playwright(DebianPlaywright(pw))


def release_playwright() -> None:
    """Stop BrowserGym's global Playwright, if one runs. Playwright's sync API holds the thread's event loop while it
    runs, so until then nothing in the thread can run an asyncio loop (fsmc's own environments, replay)."""
    import browsergym.core as core

    pw = core._PLAYWRIGHT
    if pw is not None:
        (pw.playwright if isinstance(pw, DebianPlaywright) else pw).stop()
        core._set_global_playwright(None)


# ------------------------------------------------------------------ shared per process: task sets, site servers

@functools.cache
def task_set(out: str) -> TaskSet:
    return TaskSet(out)


@functools.cache
def site_server(dist: str) -> SiteServer:
    """The built site served on loopback for as long as the process lives (every task of the site shares it)."""
    return SiteServer(dist).__enter__()


@functools.cache
def trajectories(out: str) -> dict[str, dict[str, Any]]:
    """The first verified positive trajectory of each task, by task id."""
    found: dict[str, dict[str, Any]] = {}
    for line in (Path(out) / "trajectories.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line) if line.strip() else None
        if rec and rec.get("kind") == "positive" and rec["task_id"] not in found:
            found[rec["task_id"]] = rec
    return found


# ------------------------------------------------------------------ where a task runs: the built site or the declared backend

class Place:
    """Where a task's site is, and how BrowserGym's page is put in a state, read, and acted on there."""

    def open(self, page: Any, task: Task, tasks: TaskSet) -> dict[str, Any]:
        """Open the site in `page` (only it reachable) in the task's initial state; the state it shows."""
        raise NotImplementedError

    def state(self, page: Any) -> dict[str, Any]:
        raise NotImplementedError

    def act(self, page: Any, op: Mapping[str, Any]) -> None:
        """One GUI operation of trajectories.jsonl, done as the backend's actor does it."""
        raise NotImplementedError

    def moved(self, page: Any) -> None:
        """After a move's last operation: the page at rest."""

    def close(self) -> None:
        """The task is done with the page (BrowserGym's `teardown`)."""


class BuiltSite(Place):
    """The generated site's dist/, served on loopback and put in any state through its harness."""

    def __init__(self, dist: str):
        self.dist = dist

    def open(self, page: Any, task: Task, tasks: TaskSet) -> dict[str, Any]:
        server = site_server(self.dist)
        isolation = Isolation(server.url.rstrip("/"))
        page.context.route("**/*", functools.partial(_route, isolation))
        page.goto(server.url, wait_until="load", timeout=LOAD_TIMEOUT_MS)  # BrowserGym's own default is 5 s
        page.wait_for_function(HARNESS_READY, timeout=LOAD_TIMEOUT_MS)
        page.evaluate(RESET_JS, task.initial)
        return self.state(page)

    def state(self, page: Any) -> dict[str, Any]:
        shown: dict[str, Any] = page.evaluate(STATE_JS)
        return shown

    def act(self, page: Any, op: Mapping[str, Any]) -> None:
        act_out(page, op)


class DeclaredBackend(Place):
    """The backend the spec declares (a capture, a cloned application), its own episode driving BrowserGym's page:
    reset to its start, the task's initial state reached by acting out the shortest moves that lead there."""

    def __init__(self, out: str):
        self.out, self.backend = out, declared_backend(out)
        self.episode: Any = None

    def open(self, page: Any, task: Task, tasks: TaskSet) -> dict[str, Any]:
        machine, limit, live = tasks.machine, self.backend.max_episodes, _live.setdefault(self.out, set())
        if limit is not None and len(live - {self}) >= limit:
            raise RuntimeError(f"the backend of {self.out} ({type(self.backend).__name__}) runs {limit} episode"
                               f"{'s' * (limit != 1)} at a time (it keeps one copy of its data): close the other "
                               "BrowserGym environment on it first")
        live.add(self)

        async def go() -> dict[str, Any]:
            self.episode = await self.backend.adopt(Awaited(page))
            await reach(self.episode, machine, machine.from_json(task.initial))
            return dict(await self.episode.state())

        return run(page, go())

    def state(self, page: Any) -> dict[str, Any]:
        return dict(run(page, self.episode.state()))

    def act(self, page: Any, op: Mapping[str, Any]) -> None:
        run(page, self.episode.perform(Op.from_json(op), Capture.NONE))

    def moved(self, page: Any) -> None:
        run(page, self.episode.settle())

    def close(self) -> None:
        _live.get(self.out, set()).discard(self)


_live: dict[str, set[DeclaredBackend]] = {}  # the places with an episode open now, by enumerate output


@functools.cache
def declared_backend(out: str) -> Any:
    """The backend OUT's spec declares, ready for pages opened elsewhere, for as long as the process lives (a cloned
    application started once and stopped at exit; each episode restores its database)."""
    from fsmc.replay import spec_backend

    backend = spec_backend(task_set(out).machine.spec, JPEG)
    if isinstance(backend, ClonedApp):
        atexit.register(backend.stop_app)
        backend.start_app()
    elif isinstance(backend, CapturedSpec):
        backend.start_pages()
    return backend


def place_of(dist: str, out: str) -> Place:
    return BuiltSite(dist) if dist else DeclaredBackend(out)


# ------------------------------------------------------------------ the task

def _load_browsergym() -> Any:
    try:
        import browsergym.core.task as task
    except ImportError:
        raise ImportError("fsmc.browsergym needs browsergym-core: run `bash scripts/setup.sh` "
                          "(or `pip install --no-deps browsergym-core==0.14.3 beautifulsoup4 'lxml<6'`)") from None
    return task


class FsmcTask(_load_browsergym().AbstractBrowserTask):  # type: ignore[misc]
    """One task of an fsmc enumerate output on its site (the built one, `dist`; none: the backend its spec declares),
    as BrowserGym runs tasks."""

    def __init__(self, seed: int, dist: str, out: str, task_id: str, site: str = "") -> None:
        super().__init__(seed)
        self.dist, self.out, self.site = str(dist), str(out), site
        self.place = place_of(self.dist, self.out)
        self.tasks = task_set(self.out)
        self.task: Task = self.tasks.get(task_id)
        self.slow_mo = 0  # BrowserGym's default of 1 s a Playwright call is for watching, not for agents
        self.state: dict[str, Any] | None = None  # the last state the semantics vouch for (JSON form)
        self.done = False

    @classmethod
    def get_task_id(cls) -> str:
        return f"{PREFIX}.task"

    def setup(self, page: Any) -> tuple[str, dict[str, Any]]:
        """Open the site (only it is reachable) and put it in the task's initial state; the instruction is the goal."""
        shown = self.place.open(page, self.task, self.tasks)
        if shown != self.task.initial:
            raise RuntimeError(f"the site did not take the initial state of {self.task.id}: it shows {shown}")
        self.state, self.done = shown, False
        return self.task.instruction, {"task": self.task.id, "site": self.site, "retrieval": self.task.retrieval}

    def validate(self, page: Any, chat_messages: list[Mapping[str, Any]]) -> tuple[float, bool, str, dict[str, Any]]:
        """Reward 1 when the goal holds in the state the page reports (answer tasks: when the agent's last message
        is accepted); the episode ends on success, on a message to the user, on a terminal page, or on a state that no
        move of the semantics explains (reward 0). After the end, every step gets reward 0."""
        if self.done:
            return 0.0, True, "", {"note": "the episode has ended; reset"}
        try:
            shown = self.place.state(page)
        except Exception as err:  # Playwright's own Error, a backend's failure: the page left the site or crashed
            return self._end(0.0, {"failure": f"the page reports no state: {str(err).splitlines()[0]}"})
        info: dict[str, Any] = {"state": shown}
        if shown != self.state and not self._explained(shown):
            return self._end(0.0, info | {"failure": "the page's state is not one move of the semantics from the last"})
        self.state = shown
        answer = _last_answer(chat_messages)
        if answer is not None:
            accepted = self.task.accepts(answer) if self.task.retrieval else self._holds()
            return self._end(float(accepted), info | {"answer": answer, "success": accepted})
        if self.task.retrieval:
            return 0.0, False, "", info | {"success": False}
        success = self._holds()
        terminal = self.tasks.terminal(self.tasks.machine.from_json(shown))
        if success or terminal:
            return self._end(float(success), info | {"success": success})
        return 0.0, False, "", info | {"success": False}

    def cheat(self, page: Any, chat_messages: list[dict[str, Any]]) -> None:
        """Act out the task's verified trajectory in the page; an answer task's answer goes to the chat."""
        trajectory = trajectories(self.out).get(self.task.id)
        if trajectory is None:
            raise ValueError(f"{self.task.id} has no verified trajectory in {self.out}")
        for move in trajectory["moves"]:
            for op in move["gui"]:
                self.place.act(page, op)
            self.place.moved(page)
            shown = self.place.state(page)
            if shown != move["state"]:
                raise RuntimeError(f"{self.task.id}: after {move['action']} the page shows {shown}, "
                                   f"not {move['state']}")
            self.state = shown  # each move vouched for by the trajectory, so `validate` sees no jump
        if (trajectory.get("answer") or {}).get("text") is not None:
            chat_messages.append({"role": "assistant", "timestamp": time.time(), "message": trajectory["answer"]["text"]})

    def teardown(self) -> None:
        self.place.close()

    def _holds(self) -> bool:
        assert self.state is not None
        return self.tasks.holds(self.task, self.tasks.machine.from_json(self.state))

    def _explained(self, shown: dict[str, Any]) -> bool:
        machine = self.tasks.machine
        try:
            after = machine.from_json(shown)
        except (KeyError, TypeError, ValueError):
            return False
        assert self.state is not None
        return any(nxt == after for _, nxt in machine.successors(machine.from_json(self.state)))

    def _end(self, reward: float, info: dict[str, Any]) -> tuple[float, bool, str, dict[str, Any]]:
        self.done = True
        return reward, True, "", info


def _route(isolation: Isolation, route: Any) -> None:
    """BrowserGym's pages are sync Playwright's: the same isolation as the generated site's contexts."""
    if isolation.allows(route.request.url):
        route.continue_()
    else:
        isolation._block(route.request.url)
        route.abort("blockedbyclient")


def _last_answer(chat_messages: list[Mapping[str, Any]]) -> str | None:
    """The agent's message, when it spoke last (BrowserGym's greeting comes before the goal, so it never counts)."""
    if chat_messages and chat_messages[-1].get("role") == "assistant" and len(chat_messages) > 1:
        return str(chat_messages[-1].get("message", ""))
    return None


# ------------------------------------------------------------------ the verified trajectory acted out, sync Playwright

def act_out(page: Any, op: Mapping[str, Any]) -> None:
    """One GUI operation of trajectories.jsonl, done in BrowserGym's page as the replay's actor does it."""
    kind, sel = op["op"], op.get("selector")
    find = page.locator(f'[data-testid="{sel}"]')
    if kind == "wait":
        return
    if kind == "scroll_until_visible":
        find.scroll_into_view_if_needed()
    elif kind == "repeat_click":
        until = page.locator(f'[data-testid="{op["until"]}"]')
        for _ in range(op.get("limit") or 1):
            if until.is_visible():
                break
            find.click()
    elif kind == "click":
        find.click()
    elif kind == "hover":
        page.mouse.move(0, 0)
        find.hover()
    elif kind == "type":
        find.click()
        page.keyboard.press("ControlOrMeta+A")
        page.keyboard.insert_text(op.get("text") or "") if op.get("text") else page.keyboard.press("Backspace")
    elif kind == "press":
        find.focus()
        page.keyboard.press(op.get("text") or "Enter")
    elif kind == "select":
        find.select_option(value=op.get("text") or "")
    elif kind == "drag":
        find.drag_to(page.locator(f'[data-testid="{op["text"]}"]'))
    else:
        raise ValueError(f"cannot act out the GUI operation {kind!r}")
    page.wait_for_timeout(50)  # the site's Vue renders after the event: a task's state is read after it


# ------------------------------------------------------------------ registration

def register_site(site: str, dist: str | Path | None = None, tasks: str | Path | None = None,
                  **env_kwargs: Any) -> list[str]:
    """Register each task of `tasks` (an `fsmc enumerate` output, default out/<site>) with BrowserGym's
    `register_task`; the gymnasium ids, in the tasks' order. The tasks run on the built site `dist`; without one, on
    the backend their spec declares (a capture, a cloned application: `backend capture|app "…"`) if it declares one,
    else on generated_sites/<site>/dist. `env_kwargs` are BrowserGym's `BrowserEnv` options (`pre_observation_delay`,
    `headless`, `action_mapping`: see `patient_actions`, …), defaults for make."""
    from browsergym.core.registration import register_task

    use_debian_chromium()
    out = Path(tasks or Path("out") / site).resolve()
    declared = dist is None and bool(task_set(str(out)).machine.spec.backends)
    where = "" if declared else str(Path(dist or Path("generated_sites") / site / "dist").resolve())
    if declared:
        declared_backend(str(out))  # its declaration read, the archive checked or the application started, now
    elif not (Path(where) / "index.html").is_file():
        raise FileNotFoundError(f"{where} has no index.html: build the site first with `fsmc build SPEC`")
    ids = [env_id(site, task.id) for task in task_set(str(out))]
    if _registered.get(site) == (where, out, env_kwargs):  # AgentLab registers again in each episode: once is enough
        return ids
    for task in task_set(str(out)):
        name = env_id(site, task.id).removeprefix("browsergym/")
        register_task(name, FsmcTask, task_kwargs={"dist": where, "out": str(out), "task_id": task.id, "site": site},
                      kwargs=dict(env_kwargs))
    _registered[site] = (where, out, env_kwargs)
    return ids


_registered: dict[str, tuple[str, Path, dict[str, Any]]] = {}


class PatientActions:
    """An action mapping (BrowserGym's action string to the Python code it runs) whose element actions wait up to
    `timeout_ms` for their element to be actionable: BrowserGym's own functions give it 500 ms, which a busy machine
    exceeds (a race with the load, not a limit). `PatientActions(10_000)` as `BrowserEnv`'s `action_mapping`."""

    def __init__(self, timeout_ms: int, mapping: Callable[[str], str] | None = None):
        from browsergym.core.action.highlevel import HighLevelActionSet

        self.timeout_ms = timeout_ms
        self.mapping = mapping or HighLevelActionSet().to_python_code

    def __call__(self, action: str) -> str:
        return re.sub(rf"\btimeout={ACTION_TIMEOUT_MS}\b", f"timeout={self.timeout_ms}", self.mapping(action))
