import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.td_target import undetached_bootstrap
from ..rule import Hit, Rule


class TdTargetNotDetached(Rule):
    """What it does: flags a bootstrapped TD target (`y = rewards + gamma * q_next * (1 - dones)`) built from
    the online network's output on the next states (`self.q(next_states)`, also through names) that nothing
    detaches and no `torch.no_grad()` surrounds, when the same function compares it (in a loss call or a
    difference) with that network's estimate on the current states and runs a backward. A target network
    (`self.q_target`, `target_net`, `old`, `ema`), a `.detach()`, `.item()` or a no_grad block is quiet.

    Why is this bad: the TD update treats the target as a constant (a semi-gradient). Left attached, the loss
    also back-propagates through the target, pulling Q(s', a') towards Q(s, a) as much as the other way round:
    the residual-gradient update, which learns more slowly and to a different fixed point. Training runs and
    the loss falls, so nothing points at the target (AgileRL's double-DQN branch, fixed by detaching it).
    """

    code = "MLD043"
    name = "td-target-not-detached"
    category = "autograd"
    severity = "warning"
    message = ("the TD target {target} is built from {network}(...) on the next states, which still carries the "
               "online network's graph: the loss back-propagates through the target too; compute it under "
               "torch.no_grad() or .detach() it")
    why = "Undetached, the TD loss also trains the network through its own bootstrap target (a residual gradient)."
    fix = "Build the target under torch.no_grad() (or call .detach() on the next-state values), or use a target network."
    evidence = "karpathy-recipe/backprop-to-chart-dependencies"
    node_types = (ast.Assign,)
    requires_text = ("gamma", "discount")
    BAD = (
        "import torch.nn.functional as F\n"
        "def learn(q_net, optimizer, states, actions, rewards, next_states, dones, gamma=0.99):\n"
        "    q_next = q_net(next_states).max(1)[0]\n"
        "    y = rewards + gamma * q_next * (1 - dones)\n"
        "    q = q_net(states).gather(1, actions).squeeze(1)\n"
        "    loss = F.mse_loss(q, y)\n"
        "    optimizer.zero_grad()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
    )
    GOOD = BAD.replace("q_net(next_states).max(1)[0]", "q_net(next_states).detach().max(1)[0]")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        found = undetached_bootstrap(node, ctx)
        if found is not None:
            call, network = found
            yield Hit(call, self.message.format(target=node.targets[0].id, network=network))
