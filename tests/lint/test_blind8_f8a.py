"""Blind split 8 (F8a): MLD036's mechanism, settled on CPU with a tiny actor-critic, and the rule's
own variations of the missed case (an advantage against a value the function detaches elsewhere)."""
import textwrap

import pytest

from mldebug_mcp.lint.engine import lint_source


def _codes(source: str, code: str) -> list[int]:
    return [f.line for f in lint_source(textwrap.dedent(source), "t.py") if f.code == code]


def _critic_grad_from_policy_loss(detach: bool) -> float:
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    actor, critic = torch.nn.Linear(4, 3), torch.nn.Linear(4, 1)
    states, actions, returns = torch.randn(8, 4), torch.randint(0, 3, (8,)), torch.randn(8)
    values = critic(states).squeeze(-1)
    log_probs = torch.log_softmax(actor(states), -1).gather(1, actions[:, None]).squeeze(1)
    advantages = returns - values
    policy_loss = -(log_probs * (advantages.detach() if detach else advantages)).mean()
    policy_loss.backward()  # the policy loss alone: whatever reaches the critic came through the advantage
    return 0.0 if critic.weight.grad is None else float(critic.weight.grad.abs().sum())


def test_undetached_advantage_trains_the_critic_from_the_policy_loss():
    assert _critic_grad_from_policy_loss(detach=False) > 0.0
    assert _critic_grad_from_policy_loss(detach=True) == 0.0


def test_value_detached_elsewhere_in_the_function_counts_as_live():
    source = """
        def train(policies, values, actions, rewards, ret):
            loss = 0
            for i in reversed(range(len(rewards))):
                ret = rewards[i] + 0.9 * ret
                adv = ret - values[i]
                logp = policies[i].gather(1, actions[i]).log()
                loss = loss - (logp * adv).mean()
                ret = ret - values[i].detach()
            return loss
    """
    assert _codes(source, "MLD036") == [8]


def test_helper_returning_the_values_and_a_method_of_a_trainer():
    source = """
        class Agent:
            def learn(self, batch):
                dist, state_values = self.ac.evaluate(batch.obs)
                returns = batch.returns
                log_probs = dist.log_prob(batch.actions)
                actor_loss = -(log_probs * (returns - state_values)).mean()
                critic_loss = 0.5 * (returns - state_values).pow(2).mean()
                return actor_loss + critic_loss
    """
    assert _codes(source, "MLD036") == [7]


def test_detached_or_buffered_values_stay_quiet():
    source = """
        import torch

        class Agent:
            def learn(self, batch):
                dist, state_values = self.ac.evaluate(batch.obs)
                advantages = batch.returns - state_values.detach()
                log_probs = dist.log_prob(batch.actions)
                critic_loss = (batch.returns - state_values).pow(2).mean()
                return -(log_probs * advantages).mean() + critic_loss

            def reinforce(self, log_probs, rewards, values):
                with torch.no_grad():
                    advantage = rewards - self.critic(self.states)
                return -(torch.stack(log_probs) * advantage).sum()
    """
    assert _codes(source, "MLD036") == []
