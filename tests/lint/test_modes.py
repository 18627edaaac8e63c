"""Mode-state shapes that depend on the whole file (its name, whether it trains at all), which one fixture
file cannot show: MLD020 on inference and evaluation scripts, and the quiet variants next to each."""

import textwrap

import pytest

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_source


def _lines(source: str, path: str, code: str = "MLD020") -> list[int]:
    found = lint_source(textwrap.dedent(source), path, LintSettings(select=(code,)))
    return [f.line for f in found if f.code == code]


ACTIVATIONS = """
    import numpy as np
    import torch
    from .nets import truncate

    def layer_activation(loader, net, layer):
        actmodel = truncate(net, layer)
        {fix}
        acts = []
        for images, _ in loader:
            out = actmodel(images)
            acts.extend(out.detach().numpy())
        return np.array(acts)
"""

TEST_SCRIPT = """
    import torch
    from models import Net

    loader = torch.utils.data.DataLoader(dataset, 1, shuffle=False)
    model = Net()
    model.load_state_dict(torch.load(path, weights_only=True))
    {fix}
    errors = []
    for images, counts in loader:
        with torch.set_grad_enabled(False):
            outputs = model(images)
        errors.append(counts.sum().item() - outputs.sum().item())
"""

EVAL_RECIPE = """
    import torch
    from harness import evaluate as run_harness

    class Wrapper:
        def __init__(self, model):
            self._model = model

        def logits(self, tokens):
            return self._model(tokens)

    class EvalRecipe:
        def setup(self, cfg, state):
            self._model = self._load(cfg, state)

        def _load(self, cfg, state):
            model = build(cfg)
            model.load_state_dict(state)
            {fix}
            return model

        @torch.no_grad()
        def evaluate(self):
            return run_harness(Wrapper(self._model))
"""

INFERENCE_MAIN = """
    import torch
    from network import C3D

    def main(clips):
        model = C3D(num_classes=101)
        model.load_state_dict(torch.load("best.pt", weights_only=True))
        model.{mode}()
        labels = []
        for clip in clips:
            with torch.no_grad():
                labels.append(model(clip).argmax(1).item())
        return labels
"""


@pytest.mark.parametrize(("template", "path", "line"), [
    (ACTIVATIONS, "analyzer.py", 7),  # after the model is built: where actmodel.eval() goes
    (TEST_SCRIPT, "test.py", 7),  # after the weights are loaded, before the test loop
    (EVAL_RECIPE, "recipe.py", 18),  # where the weights are loaded, in a file that never calls eval()
])
def test_evaluation_without_eval_is_flagged_where_the_fix_goes(template, path, line):
    assert _lines(template.format(fix=""), path) == [line]


@pytest.mark.parametrize(("template", "path", "fix"), [
    (ACTIVATIONS, "analyzer.py", "actmodel.eval()"),
    (TEST_SCRIPT, "test.py", "model.eval()"),
    (EVAL_RECIPE, "recipe.py", "model.eval()"),
])
def test_the_fixed_files_are_quiet(template, path, fix):
    assert _lines(template.format(fix=fix), path) == []


def test_train_instead_of_eval_in_an_inference_script():
    assert _lines(INFERENCE_MAIN.format(mode="train"), "inference.py") == [8]
    assert _lines(INFERENCE_MAIN.format(mode="eval"), "inference.py") == []


def test_training_files_are_not_read_as_extraction():
    # the same loop in a file that trains: the outputs may be features for the next step
    source = ACTIVATIONS.format(fix="") + "\n    def step(opt, loss):\n        loss.backward()\n        opt.step()\n"
    assert _lines(source, "analyzer.py") == []


def test_forward_for_side_effects_is_not_evaluation():
    source = """
        import torch

        def calibrate(model, calib_loader):
            with torch.no_grad():
                for x, _ in calib_loader:
                    model(x)  # observers record ranges; the output is not used
    """
    assert _lines(source, "quantize_eval.py") == []


def test_checkpoint_utility_without_evaluation_is_quiet():
    source = """
        import torch

        def load_weights(model, path):
            model.load_state_dict(torch.load(path, weights_only=True))
            return model
    """
    assert _lines(source, "checkpoint.py") == []


def test_a_caller_that_sets_eval_mode_keeps_the_evaluation_quiet():
    source = """
        import torch

        def predict(model, test_loader):
            with torch.no_grad():
                return [model(x).argmax(1) for x, _ in test_loader]

        def main(model, test_loader):
            model.eval()
            return predict(model, test_loader)
    """
    assert _lines(source, "predict.py") == []


def test_activations_read_by_a_hook_are_evaluation():
    source = """
        import torch

        def hooked_features(net, loader, layer):
            feats = []
            layer.register_forward_hook(lambda m, i, o: feats.append(o.detach()))
            for images, _ in loader:
                net(images)
            return feats
    """
    assert _lines(source, "features.py") == [5]  # the top of the function handed the model
    assert _lines(source.replace("feats = []", "feats = []\n            net.eval()"), "features.py") == []
