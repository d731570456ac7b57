"""Enumeration: every reachable state, goals and tasks, verified trajectories, and their statistics.

    from fsmc.enumerate import Options, enumerate_spec, verify_output
    enumerate_spec("specs/shop.fsm", "out/shop", Options(per_goal=3, negatives=True))
    report = verify_output("out/shop")
    with progress_display() as show:  # rich on a terminal, sparse lines otherwise
        enumerate_spec(Compilation("specs/shop.fsm"), "out/shop", Options(engine="native"), on_phase=show)
"""

from fsmc.engines import ENGINES, EngineError
from fsmc.enumerate.answers import accepts, answer_record, variants
from fsmc.enumerate.goals import Goal, derived_families, task_goals
from fsmc.enumerate.output import OutputError, spec_digest
from fsmc.enumerate.progress import PhaseProgress, PlainProgress, progress_display
from fsmc.enumerate.run import Summary, enumerate_spec
from fsmc.enumerate.search import Options, Scanner
from fsmc.enumerate.stats import Stats, StatsError, output_stats
from fsmc.enumerate.verify import Mismatch, VerifyError, VerifyReport, verify_output

__all__ = [
    "ENGINES", "EngineError", "Goal", "Mismatch", "Options", "OutputError", "PhaseProgress", "PlainProgress", "Scanner",
    "Stats", "StatsError", "Summary", "VerifyError", "VerifyReport", "accepts", "answer_record", "derived_families",
    "enumerate_spec", "output_stats", "progress_display", "spec_digest", "task_goals", "variants",
    "verify_output",
]
