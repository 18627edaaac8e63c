import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.aliased_target import alias_compared, aliases_written
from ..rule import Hit, Rule


class TargetAliasesPrediction(Rule):
    """What it does: flags a target made by binding a second name to the prediction tensor
    (`q_target = q_pred`), then written in place (`q_target[idx, actions] = rewards + gamma * q_next`,
    or an in-place method such as `index_put_`), and handed to a loss together with the prediction
    (`loss(q_target, q_pred)`), with neither name bound again in between. A `.clone()` or
    `.detach().clone()` target is quiet.

    Why is this bad: assignment in Python copies no tensor. Both names hold one tensor, so the
    in-place write changes the prediction as well, and the loss compares that tensor with itself:
    it is zero (or its gradient is), and the network gets no learning signal from the targets.
    Training runs without an error; the DQN's Q-values just never move towards the returns.
    """

    code = "MLD037"
    name = "target-aliases-prediction"
    category = "autograd"
    severity = "error"  # silent: the loss compares one tensor with itself
    message = ("{target} = {prediction} makes no copy: writing into {target} changes {prediction} too, so the loss "
               "compares one tensor with itself ({where})")
    why = "Both names hold one tensor, so the in-place target write also rewrites the prediction the loss compares."
    fix = "Build the target from a copy: target = prediction.detach().clone(), then write into it."
    evidence = "karpathy-recipe/backprop-to-chart-dependencies"
    node_types = (ast.Assign,)
    BAD = (
        "def learn(net, loss_fn, states, actions, targets):\n"
        "    q_pred = net(states)\n"
        "    q_target = q_pred\n"
        "    q_target[range(len(actions)), actions] = targets\n"
        "    return loss_fn(q_target, q_pred)\n"
    )
    GOOD = BAD.replace("q_target = q_pred\n", "q_target = q_pred.detach().clone()\n")

    def applies(self, ctx: ModuleContext) -> bool:
        return bool(aliases_written(ctx))

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if node not in aliases_written(ctx):
            return
        loss = alias_compared(node, ctx)
        if loss is not None:
            yield Hit(node, self.message.format(target=node.targets[0].id, prediction=node.value.id,
                                                 where=f"line {loss.lineno}"))
