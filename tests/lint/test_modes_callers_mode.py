"""MLD020: the mode is someone else's to set.

A library class handed its model by the caller and scoring the inputs of each call (an out-of-distribution
detector: `MaxLogit(model).predict(x)`) leaves the mode to its caller; a method that switches the mode
itself (`Trainer.generate()` calls `self.GAN.eval()`, in another file of the run) needs no eval() from the
code that calls it."""

import textwrap

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_paths, lint_source

from .families import project_findings


def _lines(source: str, path: str = "detector.py") -> list[int]:
    found = lint_source(textwrap.dedent(source), path, LintSettings(select=("MLD020",)))
    return [f.line for f in found if f.code == "MLD020"]


def _run(tmp_path, files: dict[str, str]) -> list[tuple[str, int]]:
    return project_findings(tmp_path, files, "MLD020")


DETECTOR = """
    import torch
    from torch.nn import Module


    class Energy:
        def __init__(self, model: Module, t: float = 1.0):
            self.model = model
            self.t = t

        def predict(self, x):
            if self.model is None:
                raise ValueError("no model")
            return self.score(self.model(x), t=self.t)

        @staticmethod
        def score(logits, t=1.0):
            return -t * torch.logsumexp(logits / t, dim=1)
"""


def test_a_detector_scoring_its_inputs_with_the_callers_model_is_quiet():
    assert _lines(DETECTOR) == []


def test_a_detector_that_trains_the_model_itself_is_reported():
    training = DETECTOR + """
        def fit(self, loader, optimizer):
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.cross_entropy(self.model(x), y).backward()
                optimizer.step()
    """
    assert _lines(training) == [14]


def test_a_detector_that_puts_the_model_in_training_mode_is_reported():
    switching = DETECTOR + """
        def enable_dropout(self):
            self.model.train()
    """
    assert _lines(switching) == [14]


def test_a_class_that_builds_its_own_model_is_not_the_callers():
    built = DETECTOR.replace("self.model = model", "self.model = torch.load(model)")
    assert _lines(built) == [8]


def test_a_pass_over_a_loader_is_an_evaluation_the_class_runs():
    looping = DETECTOR.replace("""            return self.score(self.model(x), t=self.t)""",
                               """            return [self.score(self.model(b), t=self.t) for b in x]""")
    assert _lines(looping) == [14]


TRAINER = """
    import torch


    class Trainer:
        def __init__(self, name, image_size):
            self.GAN = build_gan(image_size)
            self.name = name

        @torch.no_grad()
        def generate(self, num, tiles):
            self.GAN.eval()
            return self.GAN.G(torch.randn(tiles, 256))
"""

CLI = """
    import torch
    from gan.trainer import Trainer


    def main(name, load_from=-1, tiles=8):
        model = Trainer(name, 256)
        model.load(load_from)
        images = model.generate(name, tiles)
        return images
"""


def test_a_method_of_another_file_that_switches_the_mode_itself_needs_no_eval_from_its_caller(tmp_path):
    assert _run(tmp_path, {"cli.py": CLI, "gan/trainer.py": TRAINER}) == []


def test_a_method_of_another_file_that_never_switches_leaves_the_caller_reported(tmp_path):
    plain = TRAINER.replace("            self.GAN.eval()\n", "")
    assert _run(tmp_path, {"cli.py": CLI, "gan/trainer.py": plain}) == [("cli.py", 8)]


def test_a_trainer_of_another_project_in_the_same_run_does_not_meet_a_builder(tmp_path):
    """MLD021's builder-meets-trainer family across a folder of several projects: a Lightning module that
    trains what it is handed (torchsurv) says nothing about another project's loader returning eval mode."""
    from .test_blind4_modes import BUILDER, MODULE

    def run(files):
        for name, body in files.items():
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text(textwrap.dedent(body))
        report = lint_paths([tmp_path], LintSettings(select=("MLD021",)))
        return sorted((f.path.rsplit("/", 1)[-1], f.line) for f in report.findings if f.code == "MLD021")

    assert run({"vqvae/builder.py": BUILDER, "survival/lit.py": MODULE}) == []
    assert run({"survival/builder.py": BUILDER}) == [("builder.py", 10)]  # beside the trainer: still met


SCRIPT = """
    import torch
    from models import Fusion


    def predict(model, audio, device):
        output = model(audio.to(device))
        return output.detach().cpu().numpy()


    def predict_row(model, rows, i, device):
        return predict(model, torch.from_numpy(rows[i]), device)


    if __name__ == "__main__":
        device = torch.device("cuda")
        model = Fusion().to(device)
        model.load_state_dict(torch.load("last_full.pth")["model_state_dict"])
        rows = torch.load("rows.pt")
        for i in range(3):
            predict_row(model, rows, i, device)
"""


def test_a_script_model_loaded_at_module_level_and_handed_down_to_the_function_that_runs_it():
    """Speech-Separation predict.py: the __main__ block loads the trained model and hands it through
    _predict_row() and generate_audio() to predict(); nothing in the file calls eval()."""
    assert _lines(SCRIPT, "predict.py") == [18]  # at the load, where eval() goes


def test_the_handed_down_script_model_switched_or_untrained_is_quiet():
    assert _lines(SCRIPT.replace("    output = model(", "    model.eval()\n    output = model("), "predict.py") == []
    assert _lines(SCRIPT.replace('        model.load_state_dict(torch.load("last_full.pth")["model_state_dict"])\n',
                                 ""), "predict.py") == []
    other = SCRIPT.replace("            predict_row(model, rows, i, device)",
                           "            predict_row(model, rows, i, device)\n            predict_row(other, rows, i, device)")
    assert _lines(other, "predict.py") == []  # two callers' models: neither is known to be the loaded one
