"""Built sites (and the captures and applications specs declare) as live environments: async-first episodes whose reward the semantics decide, a gymnasium API, a pool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fsmc.env.actions import Action, InvalidAction, OffScreen, parse
from fsmc.env.core import AsyncFsmcEnv, EpisodeEnded, NotReset, Observation, StepResult
from fsmc.env.pool import EnvPool, Site, TooManyEpisodes, UnknownSite
from fsmc.env.tasks import Task, TaskSet, UnknownTask

__all__ = ["Action", "AsyncFsmcEnv", "EnvPool", "EpisodeEnded", "InvalidAction", "NotReset", "Observation", "OffScreen",
           "Site", "StepResult", "Task", "TaskSet", "TooManyEpisodes", "UnknownSite", "UnknownTask", "env_id", "parse",
           "register_site"]

ENTRY_POINT = "fsmc.env.gym:FsmcEnv"
SPECS = Path(__file__).resolve().parent.parent.parent / "specs"


def env_id(site: str) -> str:
    return f"fsmc/{site}-v0"


def register_site(site: str, dist: str | Path | None = None, tasks: str | Path | None = None, **kwargs: Any) -> str:
    """Register `fsmc/<site>-v0` with gymnasium; `dist` (default generated_sites/<site>/dist, from the working folder)
    and `tasks` (an `fsmc enumerate` output, default out/<site>) may also be given to `gymnasium.make`."""
    import gymnasium

    defaults = {"dist": str(dist or Path("generated_sites") / site / "dist"), "tasks": str(tasks or Path("out") / site)}
    gymnasium.register(env_id(site), entry_point=ENTRY_POINT, kwargs=defaults | kwargs, disable_env_checker=False)
    return env_id(site)


def _register_examples() -> None:
    """The example specs of this repository (shop, flights, mail), each under its file's name."""
    try:
        import gymnasium  # noqa: F401 - registering needs it; without it the async API still works
    except ImportError:
        return
    for spec in sorted(SPECS.glob("*.fsm")):
        register_site(spec.stem)


_register_examples()
