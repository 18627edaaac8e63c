import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.modes_frozen import freeze_at, is_feature_extractor, kept_in_eval_mode, train_calls
from ..rule import Hit, Rule

TRAINS = ("backward", "training_step", ".step(")


class FrozenModuleInTrainMode(Rule):
    """What it does: flags a feature extractor frozen with `requires_grad = False` alone, in a training file that
    switches it back to train mode: a backbone or encoder whose parameters a loop freezes (`for p in
    model.backbone.parameters(): p.requires_grad = False`, or `self.f` of a linear-probe model) or every parameter of
    the model but the head (`if 'fc' not in name: param.requires_grad = False`), with an unconditional `.train()` on
    it or on the model holding it and no `eval()` on the frozen part afterwards. Target, EMA, teacher and reference
    copies, discriminators, autoencoders and text encoders stay quiet (frozen on purpose, or without BatchNorm), as do
    files that override `train(mode)`, switch BatchNorm layers to eval one by one, set `track_running_stats`, or call
    `.train()` only under a test for the frozen setting.

    Why is this bad: requires_grad=False stops gradients, not the module's mode. In train mode every BatchNorm layer
    of the frozen part still normalises with the batch's statistics and overwrites its running mean and variance with
    the new data, and its dropout still drops. A linear probe or a fine-tune on a "frozen" backbone then trains the
    head on features that drift from the pretrained ones, and evaluates with statistics the pretraining never had.
    """

    code = "MLD025"
    name = "frozen-module-in-train-mode"
    category = "modes"
    severity = "warning"
    message = ("{module} is frozen with requires_grad=False only, and .train() on line {line} puts it back in train "
               "mode: its BatchNorm running statistics keep updating on this data and its dropout stays on")
    why = "Freezing parameters does not freeze a module's mode: BatchNorm statistics and dropout follow train()."
    fix = ("Call .eval() on the frozen part after every .train() (or override train() to keep it in eval mode), "
           "unless adapting its BatchNorm statistics to the new data is intended.")
    evidence = "pytorch-docs"
    node_types = (ast.For, ast.Call)
    call_names = frozenset({"requires_grad_"})
    requires_text = ("requires_grad",)
    BAD = (
        "import torch\n"
        "def linear_probe(model, head, loader, epochs):\n"
        "    for param in model.backbone.parameters():\n"
        "        param.requires_grad = False\n"
        "    optimizer = torch.optim.SGD(head.parameters(), lr=0.1)\n"
        "    for epoch in range(epochs):\n"
        "        model.train()\n"
        "        for x, y in loader:\n"
        "            loss = torch.nn.functional.cross_entropy(head(model.backbone(x)), y)\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
    )
    GOOD = BAD.replace("        model.train()\n", "        model.train()\n        model.backbone.eval()\n")

    def applies(self, ctx: ModuleContext) -> bool:
        return ctx.has_text(".train(") and any(map(ctx.has_text, TRAINS))

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        freeze = freeze_at(node, ctx)
        if freeze is None or not is_feature_extractor(freeze):
            return
        calls = train_calls(freeze, ctx)
        if calls and not kept_in_eval_mode(freeze, ctx):
            what = f"every parameter of `{freeze.module}` but its head" if freeze.all_but_head else f"`{freeze.module}`"
            yield Hit(freeze.node, self.message.format(module=what, line=calls[0].lineno))
