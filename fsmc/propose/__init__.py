"""A model proposes a spec from a description or a profile; fsmc validates it; the improver fixes what fsmc reports.

    from fsmc.llm import Settings, open_client
    from fsmc.propose import Budget, propose

    outcome = propose(open_client(Settings()), "a small bakery shop", name="bakery", file="specs/bakery.fsm")
    outcome.clean, outcome.last.spec, [r.verdict.report for r in outcome.rounds if r.verdict]
"""

from fsmc.propose.loop import Outcome, Round, propose
from fsmc.propose.profile import Profile, ProfileError, read_profile
from fsmc.propose.prompt import REPLY_SCHEMA, SYSTEM, read_spec
from fsmc.propose.transcript import Transcript
from fsmc.propose.validate import Budget, Verdict, validate

__all__ = ["REPLY_SCHEMA", "SYSTEM", "Budget", "Outcome", "Profile", "ProfileError", "Round", "Transcript",
           "Verdict", "propose", "read_profile", "read_spec", "validate"]
