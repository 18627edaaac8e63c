"""MLD021 across files of one run (blind split 4's families): a builder that returns the model in eval mode,
met by a framework module that trains a model it is handed without switching a mode, and by a training loop
of another file that trains the built model without train(). Each with fixed twins, which stay quiet."""

from .families import project_findings


def _run(tmp_path, files: dict[str, str]) -> list[tuple[str, int]]:
    return project_findings(tmp_path, files, "MLD021")


BUILDER = """
    import torch
    import torch.nn as nn


    def _load_state(model, weights_path=None, device="cpu"):
        if weights_path:
            model.load_state_dict(torch.load(weights_path, map_location=device))
        model = model.to(device)
        model = model.eval()
        return model


    def build_tagger(d, h, c, weights_path=None):
        net = nn.Sequential(nn.Linear(d, h), nn.Dropout(0.2), nn.Linear(h, c))
        return _load_state(net, weights_path)
"""

MODULE = """
    import torch
    from lightning import LightningModule


    class LitTagger(LightningModule):
        def __init__(self, model, criterion):
            super().__init__()
            self.model = model
            self.criterion = criterion

        def forward(self, x):
            return self.model(x)

        def training_step(self, batch, batch_idx):
            x, y = batch
            return self.criterion(self.forward(x), y)
"""

LOOP = """
    import torch
    from builder import build_tagger


    def fit(loader):
        tagger = build_tagger(4, 8, 2, "w.pt")
        opt = torch.optim.Adam(tagger.parameters())
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(tagger(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
"""


def test_builder_in_eval_mode_met_by_a_module_that_trains_what_it_is_handed(tmp_path):
    assert _run(tmp_path, {"builder.py": BUILDER, "lit.py": MODULE}) == [("builder.py", 10)]


def test_module_that_switches_to_train_mode_is_quiet(tmp_path):
    fixed = MODULE + """
        def on_train_start(self):
            self.model.train()
    """
    assert _run(tmp_path, {"builder.py": BUILDER, "lit.py": fixed}) == []


def test_builder_without_eval_or_named_for_inference_is_quiet(tmp_path):
    no_eval = BUILDER.replace("model = model.eval()", "model = model.float()")
    assert _run(tmp_path, {"builder.py": no_eval, "lit.py": MODULE}) == []
    inference = BUILDER.replace("_load_state", "_load_for_inference").replace("build_tagger", "predictor")
    assert _run(tmp_path, {"builder.py": inference, "lit.py": MODULE}) == []


def test_loop_of_another_file_trains_the_built_model_without_train(tmp_path):
    assert _run(tmp_path, {"builder.py": BUILDER, "train.py": LOOP}) == [("train.py", 7)]
    fixed = LOOP.replace("    opt = torch", "    tagger.train()\n    opt = torch")
    assert _run(tmp_path, {"builder.py": BUILDER, "train.py": fixed}) == []
