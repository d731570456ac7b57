"""Agents against the live environments: policies (oracle, random, a Python callable, an OpenAI-compatible endpoint),
episodes over an EnvPool, and their results.

    import asyncio
    from fsmc.env import Site
    from fsmc.eval import evaluate, make_policy, plan

    site = Site.load("generated_sites/shop/dist", "out/shop")
    episodes = plan([site], ["buy"], episodes=8, seed=0)
    results = asyncio.run(evaluate([site], episodes, make_policy("oracle"), "evals/shop-oracle", n=4))
"""

from fsmc.eval.policies import POLICIES, UnknownPolicy, make_policy
from fsmc.eval.policy import Decision, Policy, PolicyMaker, PolicyUnavailable
from fsmc.eval.report import EPISODES, GALLERY, RESULTS
from fsmc.eval.runner import Planned, evaluate, goal_type, plan

__all__ = ["EPISODES", "GALLERY", "POLICIES", "RESULTS", "Decision", "Planned", "Policy", "PolicyMaker",
           "PolicyUnavailable", "UnknownPolicy", "evaluate", "goal_type", "make_policy", "plan"]
