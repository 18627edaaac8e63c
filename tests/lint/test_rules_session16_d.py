"""MLD020 false-alarm families of the sixteenth session's stratified sample: each quiet shape beside a twin that
still fires."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from mldebug_mcp.lint.context import build_context
from mldebug_mcp.lint.project_facts import lazy_families

from .families import both_ways, project_findings, snippet_lines

FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("*.py"))


def _lines(source: str) -> list[int]:
    return snippet_lines(textwrap.dedent(source), "MLD020")


# SpeechBrain: Brain.fit()/evaluate() switch self.modules before calling the recipe's overrides
SEPARATION = """
    import torch
    import speechbrain as sb

    class Separation({base}):
        def compute_forward(self, mix, stage):
            est = self.hparams.Encoder(mix)
            return self.hparams.Decoder(self.hparams.MaskNet(est) * est)

        def evaluate_batch(self, batch, stage):
            with torch.no_grad():
                predictions = self.compute_forward(batch.mix_sig, stage)
            return predictions.mean().detach()

        def save_results(self, test_data):
            with torch.no_grad():
                for batch in test_data:
                    out = self.hparams.Encoder(batch.mix_sig)
                    print(out.mean())
"""


def test_a_speechbrain_brain_subclass_runs_its_modules_in_the_mode_the_brain_set():
    """speechbrain recipes/WSJ0Mix/separation/train.py:147 and WHAMandWHAMR/separation/train.py:303 (save_results)."""
    assert _lines(SEPARATION.format(base="sb.Brain")) == []
    assert _lines(SEPARATION.format(base="sb.core.Brain")) == []


def test_a_brain_subclass_through_a_base_of_the_same_file_is_quiet_too():
    """speechbrain recipes/ESC50/interpret: `class PIQ(InterpreterBrain)`, InterpreterBrain(sb.core.Brain)."""
    source = SEPARATION.format(base="MyBrain").replace(
        "class Separation", "class MyBrain(sb.core.Brain):\n        pass\n\n    class Separation")
    assert _lines(source) == []


def test_a_brain_subclass_through_a_base_of_another_file_is_quiet_too(tmp_path):
    """speechbrain recipes/ESC50/interpret/train_piq.py: `from interpreter_brain import InterpreterBrain`."""
    base = "import speechbrain as sb\n\nclass InterpreterBrain(sb.core.Brain):\n    pass\n"
    recipe = SEPARATION.format(base="InterpreterBrain").replace(
        "import speechbrain as sb", "from interpreter_brain import InterpreterBrain")
    assert project_findings(tmp_path, {"interpreter_brain.py": base, "train.py": recipe}, "MLD020") == []
    # without the base's file in the run, nothing says InterpreterBrain is a Brain
    assert project_findings(tmp_path / "alone", {"train.py": recipe}, "MLD020") != []


def test_the_same_methods_in_a_plain_class_still_fire():
    """The twin: a class of no framework running its hparams' encoder under no_grad without eval()."""
    assert _lines(SEPARATION.format(base="object")) != []


def test_a_brain_method_running_a_model_it_holds_apart_from_its_modules_still_fires():
    """A model the Brain does not hold in self.modules/self.hparams (`self.scorer` built in __init__) is not the
    framework's to switch."""
    source = """
        import torch
        import torch.nn as nn
        import speechbrain as sb

        class Scorer(sb.Brain):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                self.scorer = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5))

            def save_results(self, test_loader):
                with torch.no_grad():
                    for x in test_loader:
                        print(self.scorer(x).mean())
    """
    assert _lines(source) != []


# an evaluation helper of one file whose every caller, in another file, switched the model to eval() first
BBOX_AUG = """
    import torch

    def im_detect_bbox_aug(model, images, device):
        boxlists_ts = [im_detect_bbox(model, images, 800, device)]
        for scale in (600, 1000):
            boxlists_ts.append(im_detect_bbox(model, images, scale, device))
        return torch.cat(boxlists_ts)

    def im_detect_bbox(model, images, target_scale, device):
        images = torch.nn.functional.interpolate(images, size=target_scale)
        return model(images.to(device))
"""

INFERENCE = """
    import torch
    from .bbox_aug import im_detect_bbox_aug

    def compute_on_dataset(model, data_loader, device):
        {switch}
        results = []
        for images, _ in data_loader:
            with torch.no_grad():
                results.append(im_detect_bbox_aug(model, images, device))
        return results
"""


def _helper_findings(folder, switch: str, extra: dict[str, str] | None = None) -> list[tuple[str, int]]:
    files = {"engine/__init__.py": "", "engine/bbox_aug.py": BBOX_AUG,
             "engine/inference.py": INFERENCE.format(switch=switch), **(extra or {})}
    return project_findings(folder, files, "MLD020")


def test_a_helper_every_caller_of_another_file_hands_a_model_in_eval_mode_is_quiet(tmp_path):
    """maskrcnn-benchmark maskrcnn_benchmark/engine/bbox_aug.py:13, called only from inference.compute_on_dataset
    after model.eval()."""
    assert _helper_findings(tmp_path, "model.eval()") == []


def test_the_callers_facts_reach_the_helper_with_one_job_and_with_two(tmp_path):
    """The facts cross files through the project index, computed when asked, whichever process read the caller."""
    _helper_findings(tmp_path, "model.eval()")
    assert both_ways(tmp_path, "MLD020") == []
    _helper_findings(tmp_path / "none", "pass")
    assert both_ways(tmp_path / "none", "MLD020") == [("bbox_aug.py", 5)]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_the_new_lazy_families_say_beforehand_what_they_may_tell(path):
    """Every key the private-uses and callers' families tell has its token among the family's tokens."""
    source = path.read_text()
    ctx = build_context(str(path), source, ast.parse(source))
    for family in [f for f in lazy_families() if f.name in ("uses", "called")]:
        assert {family.token(key) for key in family.compute(ctx)} <= family.tokens(ctx)


def test_the_helper_still_fires_when_its_caller_switches_nothing_or_trains(tmp_path):
    assert _helper_findings(tmp_path / "none", "pass") == [("bbox_aug.py", 5)]
    assert _helper_findings(tmp_path / "train", "model.train()") == [("bbox_aug.py", 5)]


def test_the_helper_still_fires_when_one_caller_of_several_hands_a_model_in_training_mode(tmp_path):
    """Every known caller must evaluate in eval mode: a second file calling it right after training keeps it."""
    trainer = """
        import torch
        from .bbox_aug import im_detect_bbox_aug

        def train(model, loader, optimizer, device):
            model.train()
            for images, targets in loader:
                loss = model(images.to(device)).sum()
                loss.backward()
                optimizer.step()
            return im_detect_bbox_aug(model, images, device)
    """
    assert _helper_findings(tmp_path, "model.eval()", {"engine/trainer.py": trainer}) == [("bbox_aug.py", 5)]


def test_the_helper_still_fires_when_a_caller_hands_it_on_uncalled(tmp_path):
    """A use that is no call (a callback handed on, a re-export) hides its callers' modes."""
    registry = "from .bbox_aug import im_detect_bbox_aug\n\nHOOKS = [im_detect_bbox_aug]\n"
    assert _helper_findings(tmp_path, "model.eval()", {"engine/hooks.py": registry}) == [("bbox_aug.py", 5)]


GENERATION = """
    import torch

    def generate_text_func_stream(model, tokenizer, text):
        inputs = tokenizer(text, return_tensors="pt")
        with torch.no_grad():
            for output in model.generate(**inputs):
                yield tokenizer.decode(output)
"""

PROMPT_TUNING = """
    from model_run_utils import generate_text_func_stream

    class PeftPromptTuning:
        def __init__(self, tokenizer, model):
            {switch}
            self.model = model
            self.tokenizer = tokenizer

        def run_stream_out(self, text):
            return generate_text_func_stream(self.model, self.tokenizer, text)
"""


def test_a_generation_helper_whose_only_caller_keeps_its_model_in_eval_mode_is_quiet(tmp_path):
    """caikit-nlp caikit_nlp/toolkit/text_generation/model_run_utils.py:323: PeftPromptTuning.__init__ calls
    model.eval() "for all future calls" and hands self.model to the helper."""
    files = {"model_run_utils.py": GENERATION, "peft_prompt_tuning.py": PROMPT_TUNING.format(switch="model.eval()")}
    assert project_findings(tmp_path, files, "MLD020") == []


def test_the_generation_helper_still_fires_when_the_class_never_switches_or_trains_its_model(tmp_path):
    files = {"model_run_utils.py": GENERATION, "peft_prompt_tuning.py": PROMPT_TUNING.format(switch="pass")}
    assert project_findings(tmp_path / "none", files, "MLD020") == [("model_run_utils.py", 5)]
    trains = PROMPT_TUNING.format(switch="model.eval()") + textwrap.indent(textwrap.dedent("""
        def fit(self, loader):
            self.model.train()
            for batch in loader:
                self.model(**batch).loss.backward()
    """), "        ")
    files["peft_prompt_tuning.py"] = trains
    assert project_findings(tmp_path / "trains", files, "MLD020") == [("model_run_utils.py", 5)]


# a private method nothing calls: not evidence of evaluation in training mode
TRAINER = """
    import torch
    import torch.nn as nn

    class FAcodecTrainer:
        def __init__(self, cfg):
            self.model = nn.ModuleDict({{"encoder": nn.Sequential(nn.Conv1d(1, 8, 3), nn.BatchNorm1d(8))}})

        def train_loop(self, loader, optimizer):
            _ = [self.model[key].train() for key in self.model]
            for x in loader:
                self.model["encoder"](x).sum().backward()
                optimizer.step()

        def {name}(self, eval_wave):
            with torch.no_grad():
                z = self.model.encoder(eval_wave[None, None, ...].float())
            return z[0]
{caller}"""


def test_a_private_inference_method_nothing_calls_is_quiet():
    """Amphion models/codec/facodec/facodec_trainer.py:765: FAcodecTrainer._inference, called by no file."""
    assert _lines(TRAINER.format(name="_inference", caller="")) == []


def test_the_private_method_still_fires_when_called_and_a_public_one_when_uncalled():
    """Called by this file (`self._inference(wave)`), or public (an API called from outside the run); the finding
    opens the method: the class trains self.model's entries (`self.model[key].train()`), so its loading methods
    are no setup for prediction."""
    called = """
        def log_samples(self, waves):
            return [self._inference(w) for w in waves]
    """
    caller = textwrap.indent(textwrap.dedent(called), "        ")
    assert _lines(TRAINER.format(name="_inference", caller=caller)) == [16]
    assert _lines(TRAINER.format(name="inference", caller="")) == [16]


def test_a_private_method_called_from_another_file_of_the_run_still_fires(tmp_path):
    """A subclass (or any code) in another file names it: `self._inference(wave)`."""
    subclass = """
        from trainer import FAcodecTrainer

        class Logger(FAcodecTrainer):
            def log_samples(self, waves):
                return [self._inference(w) for w in waves]
    """
    files = {"trainer.py": TRAINER.format(name="_inference", caller=""), "logger.py": subclass}
    assert project_findings(tmp_path, files, "MLD020") == [("trainer.py", 16)]


def test_a_trainer_whose_loop_trains_its_models_entries_gets_the_finding_in_the_method_not_in_its_resume_loader():
    """Amphion facodec_trainer.py:765 landed in _load_model: `self.model[key].train()` trains the class's models, so
    the resume method that reloads them is no setup for prediction; eval() goes at the top of the inference method."""
    source = TRAINER.format(name="inference", caller="").replace(
        "import torch.nn as nn", "import torch.nn as nn\n    from utils import load_checkpoint") + textwrap.indent(
        textwrap.dedent("""
            def resume(self, path):
                self.model, self.optimizer = load_checkpoint(self.model, self.optimizer, path)
                return path
        """), "        ")
    assert _lines(source) == [17]
