"""A coding agent under the compiler's control: a model restyles a generated site and writes its content in the
project's custom area, every edit built, hashed and checked on a conformance sample in Chromium, and reverted
when it breaks anything.

    from fsmc import Compilation
    from fsmc.agent import Options, build_with_agent
    from fsmc.codegen import build_site
    from fsmc.llm import Settings, open_client

    c = Compilation("specs/shop.fsm")
    root = build_site(c.ir, "generated_sites").project.root
    outcome = build_with_agent(open_client(Settings(model="gpt-4.1")), c.machine, root, Options(max_turns=20))
    outcome.done, outcome.edits, outcome.transcript
"""

from fsmc.agent.area import CUSTOM, AreaError
from fsmc.agent.loop import DEFAULT_BRIEF, LEDGER, TRANSCRIPT, AgentError, Options, Outcome, build_with_agent
from fsmc.agent.protocol import SCHEMA, TOOLS, Turn
from fsmc.agent.sample import Sample, Transition, choose_sample

__all__ = ["CUSTOM", "DEFAULT_BRIEF", "LEDGER", "SCHEMA", "TOOLS", "TRANSCRIPT", "AgentError", "AreaError", "Options",
           "Outcome", "Sample", "Transition", "Turn", "build_with_agent", "choose_sample"]
