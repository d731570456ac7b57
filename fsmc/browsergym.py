"""`import fsmc.browsergym`: fsmc's tasks as BrowserGym tasks (the bridge lives in fsmc.bridges.browsergym)."""

from fsmc.bridges.browsergym import (
    FsmcTask,
    PatientActions,
    decode_task_id,
    encode_task_id,
    env_id,
    register_site,
    release_playwright,
    use_debian_chromium,
)

__all__ = ["FsmcTask", "PatientActions", "decode_task_id", "encode_task_id", "env_id", "register_site", "release_playwright",
           "use_debian_chromium"]
