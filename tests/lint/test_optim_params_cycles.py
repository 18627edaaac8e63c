"""Parameter sources whose names lead back to themselves are unknown, not an endless walk.

A real `get_optimizer` rebinds `params` from itself (`params = list(filter(..., params))`, then param groups built
from values drawn from the earlier `params`); following each name to its last assignment went round in a circle
until Python's recursion limit, and the file was reported as MLD000 "nested too deeply" and left unchecked."""

import textwrap

from mldebug_mcp.lint.engine import lint_source

REBOUND_PARAMS = textwrap.dedent('''
    from torch.optim import AdamW

    def split_decay(group):
        decay, no_decay = [], []
        for p in group:
            (no_decay if p.ndim < 2 else decay).append(p)
        return decay, no_decay

    def make_optimizer(params, lr=1e-4, only_trainable=False):
        if only_trainable:
            params = list(filter(lambda t: t.requires_grad, params))
        decay, no_decay = split_decay(params)
        params = [{"params": decay}, {"params": no_decay, "weight_decay": 0.0}]
        return AdamW(params, lr=lr)
''')


def test_a_parameter_list_rebound_from_itself_is_linted_not_reported_as_too_deep():
    codes = [finding.code for finding in lint_source(REBOUND_PARAMS, "optimizer.py")]
    assert "MLD000" not in codes

