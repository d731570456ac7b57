"""Test helpers for specs: Hypothesis strategies (needs `hypothesis`) and a synthetic spec generator.

    from hypothesis import given
    from fsmc.testing import specs, move_sequences

    @given(specs())
    def test_my_property(spec): ...
"""

from fsmc.testing.strategies import machines, move_sequences, specs, states
from fsmc.testing.synth import synthetic_spec

__all__ = ["machines", "move_sequences", "specs", "states", "synthetic_spec"]
