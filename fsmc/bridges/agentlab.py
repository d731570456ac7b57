"""An fsmc site as an AgentLab benchmark: its tasks (registered through fsmc.bridges.browsergym) and their env args.

`benchmark(site, dist, out)` is a BrowserGym `Benchmark` that AgentLab runs as it runs its own (a `Study`, or one
`ExpArgs` per task); each task's `FsmcEnvArgs` registers the site's tasks again in whichever process AgentLab runs
the episode in, so its workers need nothing set up beforehand.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _offline() -> None:
    """Nothing leaves the machine: litellm (imported by AgentLab) reads its own copy of the model price list instead
    of fetching it, and tiktoken (AgentLab counts every observation's tokens) the encodings litellm ships, unless the
    user says otherwise."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    spec = importlib.util.find_spec("litellm")
    if spec is not None and spec.origin is not None:
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"))


_offline()

from agentlab.experiments.loop import EnvArgs  # noqa: E402 - after _offline: litellm reads the variables at import
from browsergym.experiments.benchmark import Benchmark, HighLevelActionSetArgs  # noqa: E402

from fsmc.bridges.browsergym import PatientActions, env_id, register_site, task_set  # noqa: E402

# BrowserGym's element actions and its chat (answers go to the user through `send_msg_to_user`)
ACTION_SUBSETS = ("chat", "bid")


@dataclass
class FsmcEnvArgs(EnvArgs):  # type: ignore[misc]
    """AgentLab's env args of one fsmc task, with the built site (none: the backend the spec declares) and the
    enumerate output it is registered from; with `action_timeout_ms`, the agent's element actions wait that long for
    their element (`PatientActions`)."""

    site: str = ""
    dist: str = ""
    out: str = ""
    action_timeout_ms: int | None = None

    def make_env(self, action_mapping: Any, exp_dir: Any, exp_task_kwargs: dict[str, Any] | None = None,
                 use_raw_page_output: bool = True) -> Any:
        register_site(self.site, dist=self.dist or None, tasks=self.out)
        if self.action_timeout_ms is not None:
            action_mapping = PatientActions(self.action_timeout_ms, action_mapping)
        return super().make_env(action_mapping, exp_dir, exp_task_kwargs or {}, use_raw_page_output)


def benchmark(site: str, dist: str | Path | None, out: str | Path, *, tasks: list[str] | None = None,
              max_steps: int = 15, seed: int = 0, action_timeout_ms: int | None = None) -> Benchmark:
    """The benchmark `fsmc.<site>`: every task of `out` (or the ids in `tasks`) on the built site `dist` (None: the
    backend the spec declares, a capture or a cloned application), one seed each (fsmc's tasks are deterministic: the
    seed changes nothing), with each task's kind and shortest length as its metadata."""
    import pandas as pd

    dist, out = str(Path(dist).resolve()) if dist is not None else "", str(Path(out).resolve())
    chosen = [t for t in task_set(out) if tasks is None or t.id in tasks]
    if tasks is not None and len(chosen) != len(set(tasks)):
        unknown = sorted(set(tasks) - {t.id for t in chosen})
        raise ValueError(f"no task {', '.join(unknown)} in {out}/tasks.jsonl")
    names = [env_id(site, t.id).removeprefix("browsergym/") for t in chosen]
    return Benchmark(
        name=f"fsmc.{site}", high_level_action_set_args=HighLevelActionSetArgs(subsets=ACTION_SUBSETS),
        is_multi_tab=False, supports_parallel_seeds=True, backends=[],
        env_args_list=[FsmcEnvArgs(task_name=n, task_seed=seed, max_steps=max_steps, site=site, dist=dist, out=out,
                                   action_timeout_ms=action_timeout_ms) for n in names],
        task_metadata=pd.DataFrame([{"task_name": n, "fsmc_task": t.id, "retrieval": t.retrieval,
                                     "shortest": t.shortest} for n, t in zip(names, chosen, strict=True)]))
