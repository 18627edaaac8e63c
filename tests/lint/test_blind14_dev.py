"""Blind split 14's false alarms on clean code, as development data: FastSpeech2's evaluation (MLD020) across
files. Its evaluate() never switches modes: the training loop calls model.eval() before it, the script's own
`__main__` builds the model with `get_model(..., train=False)` and the vocoder comes from a loader in a file outside
the run. The quiet shapes of tabular-dl-revisiting-models (MLD018's retry loop, MLD062's std of a whole training
split) are in the rules' fixtures."""

from pathlib import Path

from .families import both_ways

EVALUATE = (
    'import torch\n'
    'from torch.utils.data import DataLoader\n'
    '\n'
    'from utils.model import get_model\n'
    '\n'
    '\n'
    'def evaluate(model, step, dataset, logger=None, vocoder=None):\n'
    '    loader = DataLoader(dataset, batch_size=16, shuffle=False)\n'
    '    total = 0.0\n'
    '    for batch in loader:\n'
    '        with torch.no_grad():\n'
    '            output = model(batch)\n'
    '            total += output.mean().item()\n'
    '    if logger is not None and vocoder is not None:\n'
    '        logger(vocoder, output)\n'
    '    return total\n'
    '\n'
    '\n'
    'if __name__ == "__main__":\n'
    '    model = get_model("ckpt.pt", train=False)\n'
    '    print(evaluate(model, 0, []))\n'
)
TRAIN = (
    'import torch\n'
    '\n'
    'from evaluate import evaluate\n'
    'from utils.model import get_model, get_vocoder\n'
    '\n'
    '\n'
    'def main(loader, val_set, steps):\n'
    '    model = get_model("ckpt.pt", train=True)\n'
    '    optimizer = torch.optim.Adam(model.parameters())\n'
    '    vocoder = get_vocoder("hifigan.pt")\n'
    '    for step, batch in enumerate(loader):\n'
    '        loss = model(batch).mean()\n'
    '        optimizer.zero_grad()\n'
    '        loss.backward()\n'
    '        optimizer.step()\n'
    '        if step % 1000 == 0:\n'
    '            model.eval()\n'
    '            print(evaluate(model, step, val_set, print, vocoder))\n'
    '            model.train()\n'
)


def _project(tmp_path: Path, train: str = TRAIN) -> Path:
    (tmp_path / "evaluate.py").write_text(EVALUATE)
    (tmp_path / "train.py").write_text(train)
    return tmp_path


def test_fastspeech2s_evaluation_is_quiet(tmp_path):
    assert both_ways(_project(tmp_path), "MLD020") == []


def test_the_same_loop_without_its_eval_call_is_found_where_the_model_is_handed_over(tmp_path):
    assert both_ways(_project(tmp_path, TRAIN.replace("            model.eval()\n", "")), "MLD020") == [("train.py", 17)]


def test_a_library_model_evaluated_by_the_script_without_eval_is_found(tmp_path):
    # torchvision's builders return a model in training mode: unlike the project's own loader, that is known
    script = EVALUATE.replace('get_model("ckpt.pt", train=False)', "torchvision.models.resnet18(weights=None)") \
        .replace("import torch\n", "import torch\nimport torchvision\n", 1)
    (tmp_path / "evaluate.py").write_text(script)
    (tmp_path / "train.py").write_text(TRAIN)
    assert [f for f in both_ways(tmp_path, "MLD020") if f[0] == "evaluate.py"]
