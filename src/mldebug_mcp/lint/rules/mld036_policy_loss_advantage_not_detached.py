import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.policy_advantage import FUNCTIONS, REGRESSIONS, factors, flow, may_be_log_prob
from ..rule import Hit, Rule

# a log-probability, and a value estimate or an advantage, somewhere in the module's text (has_text finds a name
# as a substring of the code's names: "v", "V" and "A" pass nearly every file, so LOG_TEXTS does the sifting)
LOG_TEXTS = ("log_prob", "logp", "log_pi", "log_softmax", "logprob", "log_policy", ".log()", "torch.log(", "log_p")
VALUE_TEXTS = ("value", "Value", "critic", "baseline", "Vs", "V", "v", "vs", "advantage", "adv", "A",
               *sorted(REGRESSIONS))  # a baseline regressed onto the reward


class PolicyLossAdvantageNotDetached(Rule):
    """What it does: flags a policy-gradient term, a log-probability (or PPO's ratio `exp(logp - old_logp)`)
    times an advantage (`-(log_prob * (returns - values)).mean()`, `logp * A` with `A = Qret - V`), whose advantage is a
    difference against the critic's value estimate that still carries the critic's graph: the value comes
    from a critic or baseline network's forward in the same function (inline, unpacked from
    `dist, value = model(obs)`, stacked from a list, through a GAE loop), or the function itself detaches
    it elsewhere or trains it with a regression loss. An advantage that is `.detach()`ed, computed under
    `torch.no_grad()`, made from a rollout buffer's numbers (`torch.tensor(...)`, `.item()`) or from
    stored old/target values stays quiet, and so does the critic's own loss on the same difference.

    Why is this bad: the advantage is meant to be a constant weight on the policy's score function. Left
    attached, the policy loss back-propagates into the critic too: the critic is pushed to change its
    estimate so the weighted log-likelihood grows, a gradient unrelated to fitting the returns, added to
    the critic's own loss whenever they share a backward or a .grad. Training runs and the returns may
    still rise, just slower and noisier (ACER's maintainer fixed it by detaching the advantage).
    """

    code = "MLD036"
    name = "policy-loss-advantage-not-detached"
    category = "autograd"
    severity = "warning"
    message = ("the policy-gradient term multiplies the log-probability by an advantage that still carries the "
               "critic's graph: the policy loss trains the critic too; detach the advantage")
    why = "Undetached, the policy loss back-propagates through the value estimate and pushes the critic off its target."
    fix = "Weight the log-probability by advantage.detach() (or compute the advantage under torch.no_grad())."
    evidence = "karpathy-recipe/backprop-to-chart-dependencies"
    node_types = (ast.BinOp,)
    requires_text = ("log",)  # a log-probability
    BAD = (
        "def update(actor, critic, opt, states, actions, returns):\n"
        "    values = critic(states).squeeze(-1)\n"
        "    log_probs = actor(states).log_prob(actions)\n"
        "    advantages = returns - values\n"
        "    actor_loss = -(log_probs * advantages).mean()\n"
        "    critic_loss = advantages.pow(2).mean()\n"
        "    opt.zero_grad()\n"
        "    (actor_loss + critic_loss).backward()\n"
        "    opt.step()\n"
    )
    GOOD = (
        "def update(actor, critic, opt, states, actions, returns):\n"
        "    values = critic(states).squeeze(-1)\n"
        "    log_probs = actor(states).log_prob(actions)\n"
        "    advantages = returns - values\n"
        "    actor_loss = -(log_probs * advantages.detach()).mean()\n"
        "    critic_loss = advantages.pow(2).mean()\n"
        "    opt.zero_grad()\n"
        "    (actor_loss + critic_loss).backward()\n"
        "    opt.step()\n"
    )

    def applies(self, ctx: ModuleContext) -> bool:
        return any(map(ctx.has_text, LOG_TEXTS)) and any(map(ctx.has_text, VALUE_TEXTS))

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if not isinstance(node.op, ast.Mult):
            return
        parent = ctx.parent(node)
        while isinstance(parent, ast.UnaryOp):
            parent = ctx.parent(parent)
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Mult):
            return  # the whole product is looked at once, from its top
        func = ctx.enclosing(node, FUNCTIONS) or ctx.tree  # a script's loop at module level: the module
        terms = factors(node)
        if not any(map(may_be_log_prob, terms)):
            return
        facts = flow(func, ctx)
        line = node.lineno
        logs = [t for t in terms if facts.log_prob(t, line)]
        if not logs:
            return
        for term in terms:
            if any(term is t for t in logs):
                continue
            if facts.advantage(term, line) is not None:
                yield Hit(term)
                return
